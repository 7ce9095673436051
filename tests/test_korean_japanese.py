"""Korean and Japanese questions, read with their own scripts.

Korean marks a noun's role with a particle on its end (경복궁은, 경복궁을) and joins two
asks with a verb's clause ending (지어졌고 누가 …); Japanese writes no spaces, its
particles and verb endings in hiragana between words in kanji and katakana. Both mark
what a question is about with a topic particle (은/는, は). The language data in
``research/lang/ko.yaml`` and ``ja.yaml`` says so, and the core reads them: a question of
two asks gives two parts, each about the topic and searched with it; words are compared
without their particles and endings; and a run on invented pages answers both parts from
the page that holds the facts.
"""

from __future__ import annotations

import asyncio

import pytest

from demo.corpus import CorpusPage, corpus_world, read_report, research
from research.lang import text_language
from research.plan import offline_plan
from research.text import terms, words

pytestmark = pytest.mark.timeout(600)

# Invented questions of two asks, with the topic each part must be about.
TWO_ASKS = [
    ("ko", "오르발트 다리는 언제 지어졌고 누가 설계했나요?", "오르발트 다리"),
    ("ko", "벨마 호수는 얼마나 깊고 왜 유명한가요?", "벨마 호수"),
    ("ko", "카렌 성의 정문은 언제 만들어졌고 누가 만들었나요?", "카렌 성"),
    ("ko", "도르니 섬은 어디에 있나요? 그리고 인구는 몇 명인가요?", "도르니 섬"),
    ("ko", "로벨 탑은 언제 세워졌으며 높이는 얼마인가요?", "로벨 탑"),
    ("ja", "オルヴァルト橋はいつ建てられ、誰が設計しましたか？", "オルヴァルト橋"),
    ("ja", "ベルマ湖はどのくらい深く、なぜ有名なのですか？", "ベルマ湖"),
    ("ja", "カレン城の正門はいつ造られ、誰が造りましたか？", "カレン城"),
    ("ja", "ドルニ島はどこにありますか？人口は何人ですか？", "ドルニ島"),
    ("ja", "ロベル塔はいつ建てられ、高さは何メートルですか？", "ロベル塔"),
]


@pytest.mark.parametrize(("lang", "question", "topic"), TWO_ASKS, ids=[q for _, q, _ in TWO_ASKS])
def test_a_question_of_two_asks_gives_two_parts_about_its_topic(lang, question, topic):
    assert text_language(question) == lang
    plan = offline_plan(question)
    assert plan.read_as["read"] == "lists"
    texts = [s.text for s in plan.subquestions]
    assert len(texts) == 2, texts
    for sub in plan.subquestions:
        assert topic in sub.text, texts  # the later ask is given the topic
        assert topic.split()[0] in sub.queries[0], (sub.text, sub.queries)
        focus = plan.focus(sub)
        # each part asks something of the topic: words of its own, or a kind of answer
        assert focus.facets or focus.kind != "what", (sub.text, focus)


def test_a_question_word_is_never_the_subject_nor_searched_for():
    for question in ("언제 오르발트 다리가 지어졌나요?", "いつオルヴァルト橋は建てられましたか？"):
        plan = offline_plan(question)
        sub = plan.subquestions[0]
        asked = "언제" if question.startswith("언제") else "いつ"
        assert all(asked not in q for q in sub.queries), sub.queries
        assert asked not in " ".join(plan.focus(sub).subject)


@pytest.mark.parametrize(
    "question",
    [
        "オルヴァルト橋はいつ建てられ、誰が設計しましたか？",
        "カレン城の正門はいつ造られ、誰が設計しましたか？",
        "ロベル塔の鐘は何キロありますか、そして誰が鋳造しましたか？",
    ],
)
def test_a_japanese_parts_queries_are_written_in_the_questions_own_characters(question):
    """Japanese is cut as Chinese is, in Simplified characters (桥, 设计, 门); every
    query is written back in the kanji of the question (橋, 設計, 門), as a Japanese
    page writes them."""
    plan = offline_plan(question)
    assert len(plan.subquestions) == 2
    for sub in plan.subquestions:
        written = [ch for q in sub.queries for ch in q if not ch.isspace()]
        assert written and all(ch in question for ch in written), (sub.text, sub.queries)


def test_korean_words_are_compared_without_their_particles_and_endings():
    assert words("경복궁은 1395년에 지어졌다") == ["경복궁", "1395년", "지어졌"]
    asked, said = terms("경복궁은 언제 지어졌고"), terms("경복궁이 지어졌다")
    assert {"경복궁", "지어졌"} <= set(asked) & set(said)
    assert words("그는") == ["그는"]  # a particle is cut only when two syllables are left


def test_japanese_is_cut_where_its_scripts_meet_and_hiragana_is_no_term():
    assert words("オルヴァルト橋は1874年に建てられた") == [
        "オルヴァルト",
        "桥",
        "は",
        "1874",
        "年",
        "に",
        "建",
        "てられた",
    ]
    assert terms("オルヴァルト橋は1874年に建てられた") == ["オルヴァルト", "桥", "1874", "年", "建"]


KO_PAGES = [
    CorpusPage(
        "오르발트 다리",
        "ko/orvald-bridge",
        [
            "오르발트 다리는 벨타 강을 가로지르는 돌다리이다.",
            "오르발트 다리는 1874년에 지어졌다.",
            "이 다리는 기술자 파벨 소모프가 설계했다.",
            "다리의 길이는 212미터이고 아치가 일곱 개 있다.",
        ],
        lang="ko",
    ),
    CorpusPage(
        "벨타 강",
        "ko/velta-river",
        [
            "벨타 강은 북쪽 지방을 흐르는 강으로 길이는 340킬로미터이다.",
            "봄이 되면 벨타 강은 자주 범람한다.",
        ],
        lang="ko",
    ),
]
JA_PAGES = [
    CorpusPage(
        "オルヴァルト橋",
        "ja/orvald-bridge",
        [
            "オルヴァルト橋はヴェルタ川に架かる石造りのアーチ橋である。",
            "オルヴァルト橋は1874年に建てられた。",
            "設計したのは技師のパーヴェル・ソモフである。",
            "橋の長さは212メートルで、アーチは七つある。",
        ],
        lang="ja",
    ),
    CorpusPage(
        "ヴェルタ川",
        "ja/velta-river",
        [
            "ヴェルタ川は北部を流れる川で、長さは340キロメートルである。",
            "春になるとヴェルタ川はたびたび氾濫する。",
        ],
        lang="ja",
    ),
]


@pytest.mark.parametrize(
    ("pages", "question", "facts"),
    [
        (KO_PAGES, "오르발트 다리는 언제 지어졌고 누가 설계했나요?", ("1874", "소모프")),
        (JA_PAGES, "オルヴァルト橋はいつ建てられ、誰が設計しましたか？", ("1874", "ソモフ")),
    ],
    ids=["ko", "ja"],
)
def test_both_parts_are_answered_from_the_page_that_holds_the_facts(
    pages, question, facts, tmp_path
):
    with corpus_world(pages, tmp_path / "site") as world:
        result = asyncio.run(research(question, world, tmp_path / "runs", max_pages=4))
    report = read_report(result)
    assert result.exit_code == 0 and result.answered == 2, report
    for fact in facts:
        assert fact in report, report
    assert "velta-river" not in report.split("## Sources")[-1], report
