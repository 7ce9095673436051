"""Reading a question of several unrelated questions: which part is about what.

A Chinese sentence of its own that says enough is a question of its own and is lent no
other sentence's subject, while a short follow-up is; the noun after an English question
word names the kind of answer, not the subject; a statement that opens a sentence after
a question mark leads into the question it ends with.
"""

from __future__ import annotations

import re

import pytest

from research.plan import offline_plan
from research.question import entity, zh_content
from research.text import stem


def _parts(question: str) -> list[str]:
    return [s.text for s in offline_plan(question).subquestions]


# --- Chinese: questions in a row -------------------------------------------------------

ROW = (
    "谁设计了青石港的灯塔？生活在北宋的那位女词人写过哪些诗集？谁的到来使山谷里的牧民改信了新宗教？"
)


def test_chinese_questions_in_a_row_that_say_enough_are_each_their_own():
    plan = offline_plan(ROW)
    assert [s.text for s in plan.subquestions] == [
        "谁设计了青石港的灯塔？",
        "生活在北宋的那位女词人写过哪些诗集？",
        "谁的到来使山谷里的牧民改信了新宗教？",
    ]
    assert all(s.own == "" for s in plan.subquestions)  # nothing was lent
    first, poet, herders = (plan.focus(s) for s in plan.subquestions)
    assert first.core == ("青石港",)
    assert poet.core == ("女词人",)
    assert "青石" not in poet.subject and "青石" not in herders.subject
    for sub in plan.subquestions[1:]:  # searched for by their own words
        assert not any("青石港" in q for q in sub.queries)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "青石湖有多深，哪个乐团在湖边首演了第一部歌剧？",
            ["青石湖有多深？", "哪个乐团在湖边首演了第一部歌剧？"],
        ),
        (
            "红松林有多大？哪种候鸟每年秋天在湖心岛停留？",
            ["红松林有多大？", "哪种候鸟每年秋天在湖心岛停留？"],
        ),
        (
            "白沙镇始建于哪一年？到2015年底，湖区的候鸟种群减少了多少？",
            ["白沙镇始建于哪一年？", "到2015年底，湖区的候鸟种群减少了多少？"],
        ),
    ],
)
def test_a_chinese_clause_that_says_enough_keeps_its_own_subject(question, parts):
    """After ？ or ，, and after a lead-in, a clause with content words of its own."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == parts
    subject = plan.focus(plan.subquestions[0]).core[0]
    assert not any(subject in q for q in plan.subquestions[1].queries)


def test_a_short_chinese_follow_up_is_lent_the_subject():
    """为什么修建, 哪位皇帝下令修建 (皇帝 is the kind of answer) and 每年有多少游客 say too
    little to be about anything else; a pronoun stands for the subject."""
    question = "白鹭桥是哪一年建成的？为什么修建？哪位皇帝下令修建？每年有多少游客？"
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == [
        "白鹭桥是哪一年建成的？",
        "白鹭桥为什么修建？",
        "白鹭桥哪位皇帝下令修建？",
        "白鹭桥每年有多少游客？",
    ]
    assert plan.subquestions[1].own == "为什么修建？"
    assert all(plan.focus(s).core == ("白鹭桥",) for s in plan.subquestions)
    assert _parts("白鹭桥是哪一年建成的？它为什么被拆除？")[1] == "白鹭桥为什么被拆除？"


@pytest.mark.parametrize(
    ("question", "part", "own"),
    [
        ("白鹭桥是谁设计的？为什么用久了桥面会开裂？", "白鹭桥为什么用久了桥面会开裂？", ("桥面",)),
        (
            "青石港何时建成？如何在冬季保持港口不结冰？",
            "青石港如何在冬季保持港口不结冰？",
            ("港口",),
        ),
    ],
)
def test_a_chinese_clause_opening_with_why_how_or_when_asks_it_of_the_subject(question, part, own):
    """A clause that opens by asking why, how or when, with no noun after its question
    word, leaves its subject unsaid, as Chinese does after a first question: it is asked
    of the question's subject, its own words kept as the other reading (桥面 may be
    what it asks about), however many content words it says."""
    plan = offline_plan(question)
    second = plan.subquestions[1]
    assert second.text == part
    focus = plan.focus(second)
    assert focus.alternative is not None and focus.alternative.core == own
    assert all(question[:3] in q for q in second.queries)


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("白鹭桥是哪一年建成的？为什么这座桥用了几年才建成？", "为什么白鹭桥用了几年才建成？"),
        ("青石运河是谁开凿的？该运河为什么衰落？", "青石运河为什么衰落？"),
        ("白鹭湖在哪里？这个湖有多深？", "白鹭湖有多深？"),
    ],
)
def test_a_chinese_phrase_pointing_back_at_the_subject_is_replaced_by_it(question, part):
    """这座桥 after a question on 白鹭桥 is that bridge: the part names it, and asks of it."""
    plan = offline_plan(question)
    second = plan.subquestions[1]
    assert second.text == part
    assert plan.focus(second).core == plan.focus(plan.subquestions[0]).core


def test_a_chinese_piece_listed_after_a_pause_mark_shares_the_subject_whatever_it_says():
    assert _parts("红松林位于哪里、林中生活着哪些珍稀鸟类？") == [
        "红松林位于哪里？",
        "红松林林中生活着哪些珍稀鸟类？",
    ]


@pytest.mark.parametrize(
    ("clause", "nouns", "others"),
    [
        ("为什么修建", [], ["修建"]),
        ("每年有多少游客", ["游客"], []),
        ("哪位皇帝下令修建", [], ["下令", "修建"]),  # 皇帝: the kind of answer asked for
        ("生活在北宋的那位女词人写过哪些诗集", ["词人"], ["北宋"]),
        ("今天又发挥着什么作用", [], []),  # 今天 too common, 作用 frames
    ],
)
def test_the_content_words_a_chinese_clause_says_of_its_own(clause, nouns, others):
    assert zh_content(clause) == (nouns, others)


# --- English: the kind of answer is no subject ----------------------------------------


@pytest.mark.parametrize(
    ("question", "phrase", "kind"),
    [
        ("What engineer managed to build a working steam carriage?", "steam carriage", "engineer"),
        ("Which botanist first described the tea plant?", "tea plant", "botanist"),
        ("What potter later glazed the harbor tiles?", "harbor tiles", "potter"),
        ("Which merchant ships carried salt to the islands?", "salt", "merchant"),
        ("What year did the ferry line close?", "ferry line", "year"),
        ("What animals eat wild grass?", "wild grass", "animals"),
    ],
)
def test_the_noun_after_an_english_question_word_names_the_answers_kind(question, phrase, kind):
    assert entity(question) == phrase
    plan = offline_plan(question)
    focus = plan.focus(plan.subquestions[0])
    assert focus.subject == tuple(stem(w) for w in phrase.split())
    assert stem(kind) not in focus.subject


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("What causes tides?", "tides"),  # a verb after the question word: no kind
        ("What does the index measure?", "index"),
        ("How do heat pumps work?", "heat pumps"),
        ("What did the council approve in 2019?", "council"),  # approve is only a verb
        ("What was the old mill originally built for?", "old mill"),
        ("What happened when the old bridge collapsed?", "old bridge"),
        # after a form of "do", the subject ends before the bare verb
        ("Why do honey bee colonies die over winter?", "honey bee colonies"),
        ("Why do leaves change colour in autumn?", "leaves"),
        ("What do beekeepers feed bees in winter?", "beekeepers"),
        ("What does the farmer feed cows?", "farmer"),
        ("How do water supply networks fail?", "water supply networks"),
        ("How do heat pump systems work in winter?", "heat pump systems"),
        ("Where do salmon spawn?", "salmon"),
    ],
)
def test_an_english_questions_noun_phrase_stops_at_its_verb(question, phrase):
    assert entity(question) == phrase


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        # a name that only places the clause's subject stays with it
        ("Why are reed beds in Norland shrinking?", "reed beds in Norland"),
        ("How were the temples at Varnish Cove built?", "the temples at Varnish Cove"),
        ("Why did ferry fares on Lake Ostel rise?", "ferry fares on Lake Ostel"),
        # a name after the verb, or with no common noun before it, is the subject
        ("How many people live in Norland?", "Norland"),
        ("What is the population of Norland?", "Norland"),
        ("Why did the Krell flood kill so many people?", "Krell flood"),
    ],
)
def test_a_name_that_places_the_subject_stays_with_it(question, phrase):
    assert entity(question) == phrase


def test_a_pronoun_after_a_placed_subject_takes_the_whole_subject():
    question = "Why are reed beds in Norland shrinking, and what can farmers do about it?"
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == [
        "Why are reed beds in Norland shrinking?",
        "What can farmers do about reed beds in Norland?",
    ]
    for sub in plan.subquestions:
        assert all("beds" in q and "Norland" in q for q in sub.queries), sub.queries


@pytest.mark.parametrize(
    ("question", "verb"),
    [
        ("How often did the Orvel ferry cross, and what did a crossing cost?", "cross"),
        ("When was the Harsk bridge built, and who built it?", "built"),
        ("Who founded Ardenport, and when was Ardenport founded?", "founded"),
    ],
)
def test_the_verb_a_part_asks_of_its_subject_is_no_part_of_the_subject(question, verb):
    """A word two parts share is taken as their common subject, but not the verb one of
    them asks of its subject: a page must say that the ferry crossed, not be about a
    crossing, to answer how often it crossed."""
    plan = offline_plan(question)
    asked = [
        plan.focus(s) for s in plan.subquestions if verb in (w.strip("?,") for w in s.text.split())
    ]
    assert asked
    for focus in asked:
        assert stem(verb) not in focus.subject, focus
        assert stem(verb) in {f.term for f in focus.facets}, focus


@pytest.mark.parametrize(
    ("question", "subject", "asked"),
    [
        ("Should I take velmorin for a stiff neck?", "velmorin", {"stiff", "neck"}),
        ("How do I descale a samovar?", "samovar", {"descal"}),
        ("How can I reduce my heating bill in winter?", "heating bill", {"reduc", "winter"}),
        ("How do you prune a quince tree?", "quince tree", {"prune"}),
        ("What should we feed a hedgehog?", "hedgehog", {"feed"}),
    ],
)
def test_an_advice_question_is_about_the_thing_done_not_every_word(question, subject, asked):
    """An advice or how-to question asks what a person does with a thing: the thing is
    its subject, and what is done with it (and for what) is what a sentence must say of
    it, not more words of the subject."""
    assert entity(question) == subject
    plan = offline_plan(question)
    focus = plan.focus(plan.subquestions[0])
    assert focus.subject == tuple(stem(w) for w in subject.split())
    assert {f.term for f in focus.facets} == asked


# --- English: a statement that leads into a question ----------------------------------


def test_a_statement_after_a_question_mark_leads_into_the_next_part():
    question = (
        "What did the council approve in 2019? Coastal towns in the region are known to be "
        "small and old, and what else are they known for?"
    )
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == [
        "What did the council approve in 2019?",
        "Coastal towns in the region are known to be small and old, what else are they known for?",
    ]
    council, towns = (plan.focus(s) for s in plan.subquestions)
    assert council.subject == ("council",)
    assert towns.subject == ("coastal", "town")


@pytest.mark.parametrize(
    ("question", "second", "subject"),
    [
        (
            "Who painted the chapel ceiling? The old mill by the river is said to be haunted, "
            "and why do people believe that?",
            "The old mill by the river is said to be haunted, why do people believe that?",
            ("old", "mill"),
        ),
        (
            "Which ferry sank in 1921? Outside of its use for trains, what else is the Harbor "
            "Line famous for?",
            "Outside of its use for trains, what else is the Harbor Line famous for?",
            ("harbor", "line"),
        ),
    ],
)
def test_a_sentence_that_opens_with_a_statement_is_about_what_it_names(question, second, subject):
    """Its pronouns point at what the sentence names, not at the first part's subject."""
    plan = offline_plan(question)
    assert len(plan.subquestions) == 2 and plan.subquestions[1].text == second
    assert plan.focus(plan.subquestions[1]).subject == subject


def test_a_follow_up_that_names_nothing_still_takes_the_questions_subject():
    assert _parts("Who founded the ferry company? When did it go bankrupt?") == [
        "Who founded the ferry company?",
        "When did the ferry company go bankrupt?",
    ]
    assert _parts("Who founded the ferry company? In 1950, when did it go bankrupt?")[1] == (
        "In 1950, when did the ferry company go bankrupt?"
    )


def test_a_lead_in_sentence_is_kept_with_its_question_and_given_no_question_word():
    """A sentence opening with a lead-in asks by the question word inside it."""
    question = (
        "About Marrow Lake: How deep is it? In a 1978 survey, what were the nets found to harm?"
    )
    assert _parts(question) == [
        "How deep is Marrow Lake?",
        "In a 1978 survey, what were the nets found to harm?",
    ]


# --- English: asks that share a clause, follow-ups -------------------------------------


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "When and by whom was the Harlow viaduct first built?",
            ["When was the Harlow viaduct first built?",
             "By whom was the Harlow viaduct first built?"],
        ),
        (
            "How and why did the Tessel dam fail?",
            ["How did the Tessel dam fail?", "Why did the Tessel dam fail?"],
        ),
        (
            "Where, when and why did the Arden ferry sink?",
            ["Where did the Arden ferry sink?", "When did the Arden ferry sink?",
             "Why did the Arden ferry sink?"],
        ),
    ],
)  # fmt: skip
def test_question_words_joined_by_and_each_ask_the_clause_they_share(question, parts):
    """Each question word of "When and by whom was X built?" is a part of its own that
    asks the whole clause, not a bare "When?"."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == parts
    subject = plan.focus(plan.subquestions[0]).subject
    assert all(plan.focus(s).subject == subject for s in plan.subquestions)
    assert all(any(len(q.split()) >= 2 for q in s.queries) for s in plan.subquestions)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What caused the 1907 copper panic, and how did regulators respond?", "copper panic"),
        ("Why did the Hallam Bridge collapse, and who paid for the repairs?", "Hallam Bridge"),
    ],
)
def test_a_short_follow_up_part_searches_with_the_questions_subject(question, subject):
    """A later part that names nothing of its own asks about the question's subject: one
    of its queries names it, after the part's own words."""
    follow = offline_plan(question).subquestions[1]
    assert subject.lower() not in follow.text.lower()
    assert any(subject in q for q in follow.queries[1:])
    assert subject not in follow.queries[0]


def test_a_later_part_that_names_its_own_thing_is_searched_as_it_is():
    plan = offline_plan("What is the population of Lyon? What is the capital of Peru?")
    assert all("Lyon" not in q for q in plan.subquestions[1].queries)
    plan = offline_plan("奥兰多港是谁建造的？微软是谁创立的？")
    assert all("奥兰多港" not in q for q in plan.subquestions[1].queries)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Why did the Vessar League break apart, and what happened to the Council afterwards?",
         "Vessar League"),
        ("Why was the Torne Charter revoked, and what did the Guild do in response?",
         "Torne Charter"),
        ("维萨同盟为什么解体？之后舰队怎么样了？", "维萨同盟"),
        ("托恩宪章为什么被废除？后来行会做了什么？", "托恩宪章"),
    ],
)  # fmt: skip
def test_a_part_that_says_it_follows_on_searches_with_the_questions_subject(question, subject):
    """A later part saying it follows on from what was asked ("afterwards", 之后) asks
    about the question's subject though it names a thing of its own."""
    follow = offline_plan(question).subquestions[1]
    assert subject not in follow.text
    assert any(subject in q for q in follow.queries[1:]), follow.queries


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("When was the Carrow Bridge built, and who designed the Mellin Gate Bridge?",
         ("carrow", "bridg")),
        ("When did the Orvan Republic fall, and when did the Orvan Empire fall?",
         ("orvan", "republ")),
    ],
)  # fmt: skip
def test_a_part_naming_its_own_thing_keeps_it_though_it_shares_a_word_with_the_other(
    question, subject
):
    """Two parts naming two things that share a word ("… Bridge") are each about their
    own thing: the first part's name is its subject, not a word it must say."""
    plan = offline_plan(question)
    first, second = (plan.focus(s) for s in plan.subquestions)
    assert first.subject == subject
    assert set(first.subject) != set(second.subject)
    assert all(subject[0] in q.lower() for q in plan.subquestions[0].queries)


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("How long is the Carrow Bridge?", "length"),
        ("How tall was the Orvan lighthouse?", "height"),
        ("How deep is Lake Merrow?", "depth"),
        ("How old is the Tessel mill?", "age"),
    ],
)
def test_a_measure_asked_by_how_is_searched_by_its_name(question, noun) -> None:
    """A part asking "How long is X?" is searched as "X length": its words alone are only
    its subject's name."""
    first = offline_plan(question).subquestions[0].queries[0]
    assert first.endswith(noun) and len(first.split()) >= 2, first


def test_a_span_of_time_asked_by_how_long_is_not_searched_as_a_length() -> None:
    queries = offline_plan("How long did the Carrow Bridge take to build?").subquestions[0].queries
    assert not any("length" in q for q in queries)


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("青石塔是谁设计的？建造它花了多长时间？", "建造青石塔花了多长时间？"),
        ("白鹭桥是哪一年建成的？人们为什么修建它？", "人们为什么修建白鹭桥？"),
    ],
)
def test_a_chinese_pronoun_after_its_verb_stands_for_the_questions_subject(question, part):
    """它 after a verb (建造它) with no thing named before it in its clause points to the
    question's subject, which the part then names and searches."""
    plan = offline_plan(question)
    assert plan.subquestions[1].text == part
    assert all(question[:3] in q for q in plan.subquestions[1].queries)


def test_a_chinese_pronoun_after_a_thing_its_clause_names_is_left_to_it():
    plan = offline_plan("青石港在哪里？大坝建成后它带来了什么影响？")
    assert "青石港" not in plan.subquestions[1].text


@pytest.mark.parametrize(
    ("question", "date"),
    [("2021年青石港的货物吞吐量是多少？", "2021年"), ("19世纪青石港有多少人口？", "19世纪")],
)
def test_a_chinese_date_stays_in_the_parts_queries(question, date):
    """A year or century is what the question asks about: every query of the part
    keeps it whole (not a bare 年)."""
    queries = offline_plan(question).subquestions[0].queries
    assert queries and all(date in q for q in queries[:1])
    assert all(not q.endswith(" 年") for q in queries)


# --- the README's own examples ----------------------------------------------------------

README_PARTS = {
    "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？": [
        "京杭大运河是如何修建的？",
        "京杭大运河是如何解决水源问题的？",
        "京杭大运河为何衰落？",
        "京杭大运河今天又发挥着什么作用？",
    ],
    "京杭大运河今天发挥着什么作用？": ["京杭大运河今天发挥着什么作用？"],
    "When and by whom was the Grand Canal first built?": [
        "When was the Grand Canal first built?",
        "By whom was the Grand Canal first built?",
    ],
    "How was the Grand Canal kept supplied with water?": [
        "How was the Grand Canal kept supplied with water?"
    ],
    "Why did the Beijing-Hangzhou Grand Canal decline?": [
        "Why did the Beijing-Hangzhou Grand Canal decline?"
    ],
    "How do locks on the Grand Canal work?": ["How do locks on the Grand Canal work?"],
    "What is the eastern route of the South-North Water Transfer Project?": [
        "What is the eastern route of the South-North Water Transfer Project?"
    ],
    "What is the difference between a pound lock and a flash lock?": [
        "What is a pound lock?",
        "What is a flash lock?",
        "What is the difference between a pound lock and a flash lock?",
    ],
    "Which is longer, the Grand Canal or the Erie Canal?": [
        "How long is the Grand Canal?",
        "How long is the Erie Canal?",
        "Which is longer, the Grand Canal or the Erie Canal?",
    ],
    "How much freight does the Grand Canal carry today?": [
        "How much freight does the Grand Canal carry today?"
    ],
    "How do heat pumps work?": ["How do heat pumps work?"],
}


def test_the_readmes_example_questions_are_cut_as_a_person_would_cut_them():
    """Every ``--question "…"`` the README shows gives the parts listed here."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    shown = [" ".join(q.split()) for q in re.findall(r'--question "([^"]+)"', readme)]
    assert shown and set(shown) <= set(README_PARTS), set(shown) - set(README_PARTS)
    for question in shown:
        assert _parts(question) == README_PARTS[question], question


@pytest.mark.parametrize(
    ("question", "second"),
    [
        (
            "When was the Varn Canal dug, and what is it used for today?",
            "What is the Varn Canal used for today?",
        ),
        (
            "The Ostel Bridge: when was it built and why was it closed?",
            "Why was the Ostel Bridge closed?",
        ),
        (
            "When was the Varn Canal first dug, and why did it decline?",
            "Why did the Varn Canal decline?",
        ),
        # the article is a longer name's: the subject read from it is written without it
        (
            "Who founded the Harsk company, and where is its headquarters?",
            "Where is Harsk's headquarters?",
        ),
    ],
)
def test_a_pronoun_is_replaced_by_the_subject_as_the_question_writes_it(question, second):
    assert _parts(question)[1] == second


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # the common nouns a name heads, between the auxiliary and the verb, belong to it
        ("How many people did the Krell flood kill? Why was it so deadly?", "Krell flood"),
        ("When did the Varn eruption happen, and why was it so destructive?", "Varn eruption"),
        ("How many homes did the Tessel fire destroy?", "Tessel fire"),
        ("When was the Ostel bridge built, and who designed it?", "Ostel bridge"),
        ("When did the Tessen 4 crew land on the moon?", "Tessen 4 crew"),
        # …but not a word that is the verb, its object, or an adverb
        ("When did the Ostel Railway stop carrying freight?", "Ostel Railway"),
        ("How does the Marrow Reserve set interest rates?", "Marrow Reserve"),
        ("When was the Varn Tunnel first bored?", "Varn Tunnel"),
        ("How did the Keshari build the aqueduct?", "Keshari"),
        ("Who founded the Harsk company?", "Harsk"),
    ],
)
def test_a_name_keeps_the_nouns_it_heads(question, subject):
    assert entity(question) == subject


def test_a_later_part_names_the_whole_subject_its_pronoun_stands_for():
    parts = _parts("How many people did the Krell flood kill? Why was it so deadly?")
    assert parts[1] == "Why was the Krell flood so deadly?"
    assert "Krell flood" in " ".join(offline_plan(parts[0]).subquestions[0].queries)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        # "of" and a name's particles join its capitalised words wherever they stand
        ("What were the Harbour Board of Kessing's accounts in 1990?", "Harbour Board of Kessing"),
        ("When did Marta da Lorne publish her atlas?", "Marta da Lorne"),
        ("Who wrote The Song of the Quiet Hills?", "The Song of the Quiet Hills"),
        ("Where is the Abbey of Saint Orrin?", "Abbey of Saint Orrin"),
        # …but "of" after a name of its own only places it
        ("How was the Old Harbour of Ostria built?", "Old Harbour"),
        ("What is known about the Old Harbour of Ostria's quays?", "Old Harbour of Ostria"),
        # a preposition with an article joins them in a name that is owned ("'s" closes it)
        ("What is known about A Lamp in the Window's reception?", "A Lamp in the Window"),
        ("What is known about Man at the Ferry's commission?", "Man at the Ferry"),
        # …and not two names the question only places one in the other
        ("Is Corvell in Ostria?", "Corvell"),
        ("Did Paris and London sign the treaty?", "Paris"),
        ("Is The Lantern in Ostria?", "The Lantern"),
    ],
)
def test_the_words_that_link_a_names_capitals_keep_it_whole(question, subject):
    assert entity(question).removesuffix("'s") == subject
    focus = offline_plan(question).focus(offline_plan(question).subquestions[0])
    named = {w for w in re.findall(r"[A-Z]\w+", subject) if w not in ("The", "A")}
    assert {stem(w.lower()) for w in named} <= set(focus.subject)


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("What is The Lantern?", "The Lantern"),
        ("Who directed The Boy with a Kite?", "The Boy with a Kite"),
        ("What is known about Man at the Ferry's commission?", "Man at the Ferry"),
        # a capital that opens the sentence, and a name with no article, mark no title
        ("The Lantern opened when?", ""),
        ("When was the Ostel Railway built?", ""),
        ("What is known about Marta da Lorne's atlas?", ""),
    ],
)
def test_an_english_title_is_read_from_its_articles(question, title):
    plan = offline_plan(question)
    assert plan.focus(plan.subquestions[0]).titled == title


# --- Chinese: what a question asks with is not what it asks about ----------------------


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # a thing asked what it is is read whole, however the word list cuts it
        ("什么是梯田灌溉？它有哪些优点？", ["什么是梯田灌溉？", "梯田灌溉有哪些优点？"]),
        ("什么是数字测绘？它有哪些用途？", ["什么是数字测绘？", "数字测绘有哪些用途？"]),
        # 是什么 asks what a thing is: no 是…的 is made of it
        ("白沙湖是什么？它有多大？", ["白沙湖是什么？", "白沙湖有多大？"]),
        (
            "白沙湖是谁管理的？它是什么时候建成的？",
            ["白沙湖是谁管理的？", "白沙湖是什么时候建成的？"],
        ),
    ],
)
def test_a_chinese_definition_names_its_thing_whole(question, parts):
    assert _parts(question) == parts


@pytest.mark.parametrize(
    ("question", "subject", "idle"),
    [
        ("为什么要修建白鹭桥？", "白鹭桥", ["要"]),
        ("白鹭桥是什么时候建成的？", "白鹭桥", ["时候"]),
        ("怎样才能提高白鹭茶的产量？", "白鹭茶", ["怎样", "才能"]),
        ("怎么才能让白鹭茶更香？", "白鹭茶", ["才能", "让", "更"]),
    ],
)
def test_chinese_queries_leave_out_question_frames_and_modal_words(question, subject, idle):
    """What a question asks with (什么时候, 怎样才能) and its modal and degree words (要,
    才能, 更) are no words to search with; a fixed phrase opening with a question word
    (怎样才能) names nothing."""
    assert entity(question) == subject
    (part,) = offline_plan(question).subquestions
    for query in part.queries:
        assert subject in query and not set(query.split()) & set(idle), part.queries
