"""The planner by kind of question, on invented questions: each kind's parts, and each
part's queries naming what the part is about (its subject, and for a list the kind of
thing listed). Comparisons have their own module (``test_comparison.py``)."""

from __future__ import annotations

import json

import pytest

from research.facts import states_cause
from research.features import gives_number
from research.lang.verbs import VERBS, finite_verb
from research.plan import offline_plan
from research.question import Focus, entity
from research.text import terms

#: kind → (question, the parts' count, words every query of each part names (one tuple
#: per part; any of a tuple's words will do, case aside))
KINDS: dict[str, list[tuple[str, int, list[tuple[str, ...]]]]] = {
    "list": [
        ("Which towns lie on the Varn Canal?", 1, [("Varn",)]),
        ("What are the main exports of Ardenport?", 1, [("Ardenport",)]),
        ("Which rivers feed the Ostel reservoir?", 1, [("Ostel",)]),
        ("瓦恩运河沿线有哪些城市？", 1, [("瓦恩运河",)]),
        ("阿登港的主要出口商品有哪些？", 1, [("阿登港",)]),
        ("What are the symptoms of Harsk fever?", 1, [("Harsk",)]),
    ],
    "yes/no": [
        ("Is the Varn Canal still used for shipping?", 1, [("Varn",)]),
        ("Does Ardenport have a university?", 1, [("Ardenport",)]),
        ("Can ferries cross the Ostel river in winter?", 1, [("Ostel",)]),
        ("瓦恩运河还在通航吗？", 1, [("瓦恩运河",)]),
        ("阿登港有大学吗？", 1, [("阿登港",)]),
    ],
    "definition": [
        ("What is a sluice gate?", 1, [("sluice",)]),
        ("What is the northern spur of the Varn Canal?", 1, [("spur", "Varn")]),
        ("What does the Harsk Foundation do?", 1, [("Harsk",)]),
        ("什么是水闸？", 1, [("水闸",)]),
        ("阿登港自由区是什么？", 1, [("阿登港",)]),
    ],
    "how-to": [
        ("How do I clean a cast-iron pan?", 1, [("cast-iron",)]),
        ("How can I reduce condensation in a basement?", 1, [("condensation",)]),
        ("How do you re-point a brick wall?", 1, [("brick",)]),
        ("如何清洗铸铁锅？", 1, [("铸铁锅",)]),
        ("怎样给砖墙重新勾缝？", 1, [("砖墙",)]),
    ],
    "advice": [
        ("What should I do if my sourdough starter smells of acetone?", 1, [("sourdough",)]),
        ("Should I prune a young apple tree in winter?", 1, [("apple",)]),
        ("Is it safe to swim in the Ostel reservoir?", 1, [("Ostel",)]),
        ("冬天应该修剪年轻的苹果树吗？", 1, [("苹果树",)]),
    ],
    "cause and effect": [
        ("What caused the Velmouth blackout?", 1, [("Velmouth",)]),
        ("韦尔茅斯大停电是什么原因造成的？", 1, [("韦尔茅斯",)]),
        ("What were the effects of the 1911 Ardenport flood?", 1, [("Ardenport",)]),
        ("Why did the Varn dam fail, and how did the town respond?", 2, [("Varn",), ("Varn",)]),
        ("瓦恩大坝为什么溃决？造成了什么后果？", 2, [("瓦恩大坝",), ("瓦恩大坝",)]),
    ],
    "temporal": [
        ("What is the current population of Ardenport?", 1, [("Ardenport",)]),
        ("What is the latest version of the Quillon compiler?", 1, [("Quillon",)]),
        ("How many people live in Velmouth now?", 1, [("Velmouth",)]),
        ("2024年阿登港的货物吞吐量是多少？", 1, [("阿登港",)]),
        ("阿登港目前有多少人口？", 1, [("阿登港",)]),
        ("What is the Varn Canal used for today?", 1, [("Varn",)]),
    ],
    "several asks": [
        ("When was the Orvald Bridge opened, and why was it closed?", 2,
         [("Orvald",), ("Orvald",)]),
        ("Who founded the Varn Museum, and when did its first director retire?", 2,
         [("Varn",), ("Varn",)]),
        ("When and by whom was the Harsk lighthouse built?", 2, [("Harsk",), ("Harsk",)]),
        ("阿登港是什么时候建成的？为什么后来衰落了？", 2, [("阿登港",), ("阿登港",)]),
    ],
    "comparison": [  # one part per side, then the comparison (its queries name a side)
        ("Which is longer, the Varn Canal or the Ostel Canal?", 3,
         [("Varn",), ("Ostel",), ("Varn", "Ostel")]),
        ("Is it cheaper to live in Varnholt or in Ostelburg?", 3,
         [("Varnholt",), ("Ostelburg",), ("Varnholt", "Ostelburg")]),
        ("Quillon vs Brask: which has the better screen?", 3,
         [("Quillon",), ("Brask",), ("Quillon", "Brask")]),
        ("Which should I buy, Quillon or Brask?", 3,
         [("Quillon",), ("Brask",), ("Quillon", "Brask")]),
        ("What is the difference between sliding sluices and swinging weirs?", 3,
         [("sluices",), ("weirs",), ("sluices", "weirs")]),
        ("Should I take Zorvex or Calmira for a sprained wrist?", 3,
         [("Zorvex",), ("Calmira",), ("Zorvex", "Calmira")]),
        ("比较一下阿登港和维尔茅斯的人口", 3, [("阿登港",), ("维尔茅斯",), ("阿登港", "维尔茅斯")]),
        ("石窑跟蒸汽窑比哪个便宜？", 3, [("石窑",), ("蒸汽窑",), ("石窑", "蒸汽窑")]),
        ("石窑和蒸汽窑的区别", 3, [("石窑",), ("蒸汽窑",), ("石窑", "蒸汽窑")]),
        ("阿登港和维尔茅斯哪个好？", 3, [("阿登港",), ("维尔茅斯",), ("阿登港", "维尔茅斯")]),
    ],
    "other languages": [
        ("Wie hoch ist der Harskturm und wann wurde er gebaut?", 2,
         [("Harskturm",), ("Harskturm",)]),
        ("Wann wurde die Varnbrücke eröffnet?", 1, [("Varnbrücke",)]),
        ("¿Cuándo se construyó el puente de Velmouth y por qué se cerró?", 2,
         [("Velmouth",), ("Velmouth",)]),
        ("¿Quién fundó el museo de Ardenport?", 1, [("Ardenport",)]),
        ("Quand le pont d'Ostel a-t-il été construit ?", 1, [("Ostel",)]),
        ("Pourquoi le barrage de Varn a-t-il cédé ?", 1, [("Varn",)]),
        ("Quando è stato costruito il ponte di Velmouth?", 1, [("Velmouth",)]),
        ("Quando foi fundada a cidade de Ardenport?", 1, [("Ardenport",)]),
        ("Wanneer werd de Harskbrug geopend?", 1, [("Harskbrug",)]),
        ("När byggdes Varnbron och varför stängdes den?", 2, [("Varnbron",), ("Varnbron",)]),
    ],
}  # fmt: skip

CASES = [(kind, *case) for kind, cases in KINDS.items() for case in cases]


@pytest.mark.parametrize(("kind", "question", "count", "named"), CASES)
def test_a_question_of_each_kind_is_planned_with_queries_naming_its_subject(
    kind, question, count, named
) -> None:
    parts = offline_plan(question).subquestions
    assert len(parts) == count, (kind, [p.text for p in parts])
    for part, words in zip(parts, named, strict=True):
        # a follow-up keeps a query in its own words first, then one with the subject
        said = [q for q in part.queries if any(w.casefold() in q.casefold() for w in words)]
        assert said, (kind, part)


def test_there_are_forty_invented_questions_in_english_and_chinese_and_ten_in_others() -> None:
    others = KINDS["other languages"]
    assert len(CASES) - len(others) >= 40 and len(others) >= 10


def test_a_list_question_searches_for_the_kind_of_thing_it_lists() -> None:
    """ "Which towns …" looks for towns: the noun the answer's instances are named by is
    in the part's first query (not only the verb, "Varn Canal lie")."""
    queries = offline_plan("Which towns lie on the Varn Canal?").subquestions[0].queries
    assert "towns" in queries[0].split()
    queries = offline_plan("What company built the Varn bridge?").subquestions[0].queries
    assert "company" in queries[0].split()


@pytest.mark.parametrize(
    ("question", "about", "asked"),
    [
        ("Is rye bread bad for your teeth?", "rye bread", "teeth"),
        ("Are heat pumps noisy at night?", "heat pumps", "noisy"),
        ("Can goats eat acorns?", "goats", "acorns"),
        ("Was the old granary rebuilt after the flood?", "old granary", "flood"),
        # a judgement of an action is about the thing it is done to
        (
            "Is it worth buying an electric scooter for a 5 km commute?",
            "electric scooter",
            "commute",
        ),
        ("Is it safe to eat raw cookie dough?", "cookie dough", "safe"),
        ("Is it legal to fly a drone over a nature reserve?", "drone", "reserve"),
        ("Is it worth it to reupholster my old sofa?", "old sofa", "worth"),
    ],
)
def test_a_yes_no_question_is_about_what_it_asks_something_of(question, about, asked) -> None:
    """ "Is rye bread bad for your teeth?" is about rye bread: it is the part's subject and
    every query names it; what is asked of it is a word a sentence must say, not part of
    the subject."""
    plan = offline_plan(question)
    (part,) = plan.subquestions
    focus = plan.focus(part)
    assert set(terms(about)) <= set(focus.subject), focus.subject
    assert not set(terms(asked)) & set(focus.subject), focus.subject
    assert all(set(terms(q)) & set(terms(about)) for q in part.queries), part.queries


@pytest.mark.parametrize(
    "question",
    [
        "What did the Orvald Bridge cost?",
        "What did the Belis Tower cost to build?",
        "What does a ferry ticket to Kelm cost?",
    ],
)
def test_a_price_asked_by_its_verb_asks_for_a_number(question: str) -> None:
    plan = offline_plan(question)
    assert [plan.focus(s).kind for s in plan.subquestions] == ["number"]


@pytest.mark.parametrize(
    ("sentence", "answers"),
    [
        ("The Orvald geyser erupts every 90 minutes.", True),
        ("It erupts twice a day in summer.", True),
        ("The geyser rarely erupts in winter.", True),
        ("A ticket to see it cost two pence in 1900.", False),  # a number, not how often
        ("The geyser's column is 30 metres high.", False),
    ],
)
def test_a_part_asking_how_often_takes_a_frequency_not_any_number(
    sentence: str, answers: bool
) -> None:
    plan = offline_plan("How often does the Orvald geyser erupt?")
    focus = plan.focus(plan.subquestions[0])
    assert focus.kind == "number"
    assert gives_number(focus, sentence) is answers
    zh = offline_plan("奥尔瓦德间歇泉多久一次喷发？")
    asked = zh.focus(zh.subquestions[0])
    assert gives_number(asked, "奥尔瓦德间歇泉每隔90分钟喷发一次。")
    assert not gives_number(asked, "奥尔瓦德间歇泉的水柱高30米。")


@pytest.mark.parametrize(
    ("question", "sentence", "answers"),
    [
        ("How long is the Varn Canal?", "The whole route is given as about 212 km.", True),
        ("How long is the Varn Canal?", "The canal is divided into seven reaches.", False),
        ("How long is the Varn Canal?", "Its locks were in use from 1790 to 1880.", False),
        ("How long did the Ostel siege last?", "The siege lasted eighteen months.", True),
        ("How long did the Ostel siege last?", "It ended with 300 men taken prisoner.", False),
        ("How tall is the Belis Tower?", "The tower rises 412 feet above the square.", True),
        ("How tall is the Belis Tower?", "Its 300 steps take ten minutes to climb.", False),
        ("How heavy is the Harsk bell?", "The bell weighs about 13 tonnes.", True),
        ("What is the area of Lake Marrow?", "The lake covers 38 square kilometres.", True),
        ("What is the area of Lake Marrow?", "Four rivers feed the lake.", False),
        ("How large were the Ostel floods?", "They cost 40% of the harvest.", True),
        ("瓦恩运河有多长？", "瓦恩运河全长约212公里。", True),
        ("瓦恩运河有多长？", "瓦恩运河分为七段。", False),
    ],
)
def test_a_part_asking_a_measure_takes_a_quantity_in_it(
    question: str, sentence: str, answers: bool
) -> None:
    """ "How long is the canal?" is answered by a length ("212 km"), not by any number
    ("seven reaches") nor by a span of years; "how long did it last" by a span of time."""
    plan = offline_plan(question)
    focus = plan.focus(plan.subquestions[0])
    assert focus.kind == "number"
    assert gives_number(focus, sentence) is answers


def test_the_answer_span_of_a_measure_is_the_quantity_in_it() -> None:
    """The bold span of a "how long" answer is its length, not the count before it."""
    from research.answer import answer_span

    plan = offline_plan("How long is the Varn Canal?")
    focus = plan.focus(plan.subquestions[0])
    sentence = "Its 14 locks raise boats along a route of about 212 km."
    assert answer_span(focus, sentence) == "about 212 km"


def test_a_part_asking_only_a_measure_of_its_subject_quotes_only_that_measure() -> None:
    """ "How long is the Varn Canal?" asks nothing of the canal but its length: on a page
    about the canal, the sentence giving it is evidence and the others are not, however
    squarely they name the canal."""
    from research.document import Document
    from research.relevance import relevant

    page = (
        "# The Varn Canal\n\n"
        "The Varn Canal is divided into seven reaches. "
        "The Varn Canal was opened in 1790 by the Harsk company. "
        "The whole route of the Varn Canal is about 212 km. "
        "Barges on the Varn Canal carried coal and grain.\n"
    )
    plan = offline_plan("How long is the Varn Canal?")
    focus = plan.focus(plan.subquestions[0])
    found = [s.sentence.text for s in relevant(focus, Document.of(page, "The Varn Canal"))]
    assert found == ["The whole route of the Varn Canal is about 212 km."], found


#: kind → (question, one (subject, facets, kind) per part): the subject and the facets as
#: the question writes them (compared by their terms).
READINGS: dict[str, list[tuple[str, list[tuple[str, str, str]]]]] = {
    # "how many X does Y have": a quantity X of Y, so Y is the subject and X a facet
    "quantity of a thing": [
        ("How many calories does rye bread have?", [("rye bread", "calories", "number")]),
        ("How much caffeine does a cup of chicory tea contain?",
         [("chicory tea", "caffeine", "number")]),
        ("How many seeds does a ripe pomegranate hold?",
         [("ripe pomegranate", "seeds", "number")]),
        ("How much protein is in a bowl of red lentils?", [("red lentils", "protein", "number")]),
        ("How many calories are in a slice of barley bread?",
         [("barley bread", "calories", "number")]),
        ("How much does an adult walrus weigh?", [("adult walrus", "weigh", "number")]),
        ("How many people live in the old harbour district?",
         [("old harbour district", "people live", "number")]),
        ("How many people live in Velmouth?", [("Velmouth", "people live", "number")]),
        ("一片黑麦面包有多少卡路里？", [("黑麦面包", "卡路里", "number")]),
        ("一瓶苹果汁里有多少糖？", [("苹果汁", "糖", "number")]),
        ("一杯菊苣茶含有多少咖啡因？", [("菊苣茶", "咖啡因", "number")]),
    ],
    # a verb right after "what" is what the question asks of its subject, not the kind
    # of thing it asks for ("which *ferries* …" is that kind: the answer names them)
    "asked by its verb": [
        ("What threatens the Ostel salmon?", [("Ostel", "threatens salmon", "what")]),
        ("What damaged the Varn aqueduct?", [("Varn", "damaged aqueduct", "what")]),
        ("What feeds the Ostel reservoir?", [("Ostel", "feeds reservoir", "what")]),
        ("What attracts tourists to Velmouth?", [("Velmouth", "attracts tourists", "what")]),
        ("Which ferries serve Velmouth?", [("Velmouth", "serve", "what")]),
        ("是什么损坏了瓦恩渡槽？", [("瓦恩渡槽", "损坏", "what")]),
        # a question closing on "what" and a noun phrase: the phrase is the kind asked
        ("Harsk fever is spread by what small insect?", [("Harsk", "fever spread", "what")]),
        ("Ostel cheese is aged in what wooden barrels?", [("Ostel", "cheese aged", "what")]),
        ("哪些渡轮停靠韦尔茅斯？", [("韦尔茅斯", "渡轮 停靠", "what")]),
    ],
    # "is it true that S?": what S is about is the subject, what it says of it the facets
    "claim check": [
        ("Is it true that coffee stunts growth?", [("coffee", "stunts growth", "whether")]),
        ("Is it a myth that bats are blind?", [("bats", "blind", "whether")]),
        ("Is it true that goldfish have a three-second memory?",
         [("goldfish", "three-second memory", "whether")]),
        ("Does chewing gum really stay in the stomach for seven years?",
         [("chewing gum", "stay stomach seven years", "whether")]),
        ("Do carrots really improve night vision?",
         [("carrots", "improve night vision", "whether")]),
        ("Can lightning strike the same place twice?",
         [("lightning", "strike place twice", "whether")]),
        ("Is it true that cracked knuckles cause arthritis?",
         [("cracked knuckles", "cause arthritis", "whether")]),
        ("Is it true that honey never spoils?", [("honey", "never spoils", "whether")]),
        ("喝咖啡真的会影响长高吗？", [("喝咖啡", "影响 长高", "whether")]),
        ("吃胡萝卜能改善视力是真的吗？", [("胡萝卜", "吃 改善 视力", "whether")]),
        ("蝙蝠真的是瞎子吗？", [("蝙蝠", "瞎子", "whether")]),
    ],
    # a claim checked, then asked about: "it" after a verb of saying is the claim
    "claim check and a follow-up": [
        ("Is it true that the Great Wall is visible from space, and who first claimed it?",
         [("Great Wall", "visible space", "whether"),
          ("Great Wall", "first claimed visible space", "who")]),
        ("Is it true that coffee stunts growth, and why do people believe it?",
         [("coffee", "stunts growth", "whether"),
          ("coffee", "people believe stunts growth", "why")]),
        ("Is it a myth that bats are blind, and who first said so?",
         [("bats", "blind", "whether"), ("bats", "first said blind", "who")]),
        ("Is it true that the Orvald Bridge was built without nails, and when was it built?",
         [("Orvald Bridge", "built nails", "whether"), ("Orvald Bridge", "built", "when")]),
        ("Is it true that goldfish have a three-second memory, and who tested it?",
         [("goldfish", "three-second memory", "whether"),
          ("goldfish", "tested three-second memory", "who")]),
        ("Do carrots really improve night vision, and who first claimed it?",
         [("carrots", "improve night vision", "whether"),
          ("carrots", "first claimed improve night vision", "who")]),
        ("蝙蝠是瞎子，是真的吗？谁最早提出的？",
         [("蝙蝠", "瞎子", "whether"), ("蝙蝠", "最早 提出", "who")]),
        ("喝咖啡真的会影响长高吗？最早由谁提出？",
         [("喝咖啡", "影响 长高", "whether"), ("喝咖啡", "最早 提出", "who")]),
    ],
}  # fmt: skip

READ = [(kind, question, parts) for kind, cases in READINGS.items() for question, parts in cases]
#: The words that ask whether a claim holds: no subject, facet or query word.
CHECKING = {"true", "myth", "really", "真的"}


@pytest.mark.parametrize(("kind", "question", "parts"), READ)
def test_each_part_is_read_for_its_subject_facets_and_kind(kind, question, parts) -> None:
    """A quantity asked of a thing is asked about that thing ("how many calories does rye
    bread have": rye bread, whose calories are asked); a claim checked is about what the
    claim names, and says the rest of it ("is it true that coffee stunts growth": coffee,
    stunting growth), the words that ask whether it holds being none of these; a part
    after a claim checked is a part of its own, and a pronoun its verb of saying takes
    stands for the claim ("who first claimed it")."""
    plan = offline_plan(question)
    assert len(plan.subquestions) == len(parts), (kind, [s.text for s in plan.subquestions])
    for sub, (about, asked, answer) in zip(plan.subquestions, parts, strict=True):
        focus = plan.focus(sub)
        read = (kind, sub.text, focus.subject, [f.term for f in focus.facets], focus.kind)
        # a Chinese name the question cuts as one word is one term (黑麦面包)
        assert set(focus.subject) in (set(terms(about)), {about}), read
        assert {f.term for f in focus.facets} == set(terms(asked)), read
        assert focus.kind == answer, read
        named = about.casefold().split()
        assert all(any(w in q.casefold() for w in named) for q in sub.queries), sub.queries
        said = {w for q in sub.queries for w in q.casefold().split()}
        assert not said & CHECKING and not set(focus.words) & {"true", "myth", "realli"}, read


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What river bordered the Ostel duchy when its duke died?", "what"),
        ("Who was mayor of Velmouth when the Orvald Bridge opened?", "who"),
        ("Where did the Harsk ferry sail when the harbour froze?", "where"),
        ("How many mills stood in Velmouth when the canal opened?", "number"),
        ("When did the Varn mill close, and who bought it?", "when"),
        ("What was the main reason for the Varn mill's closure?", "why"),
    ],
)
def test_the_first_question_word_asks_and_a_later_one_opens_a_clause(question, kind) -> None:
    """A "when" after the question's own question word opens a clause of it ("… when its
    duke died"): the question asks what its first question word asks."""
    assert Focus.build(question).kind == kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("为什么瓦恩桥用了几年才建成？", "why"),
        ("谁在几年前买下了瓦恩磨坊？", "who"),
        ("瓦恩桥用了几年建成？", "number"),
        ("瓦恩磨坊有几座水车？", "number"),
    ],
)
def test_a_chinese_ji_beside_another_question_word_is_a_few(question, kind) -> None:
    """几 asks a number by itself, but beside another question word it is "a few" (为什么
    用了*几*年才建成 asks why)."""
    assert Focus.build(question).kind == kind


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("瓦恩湖边的旧码头后来被称为什么？", "what"),
        ("人们把瓦恩桥称为什么？", "what"),
        ("瓦恩磨坊后来改称为什么？", "what"),
        ("王小明被青州知府任命为什么官职？", "what"),
        ("瓦恩桥被列为什么级别的文物？", "what"),
        ("瓦恩桥为什么被称为白桥？", "why"),
        ("人们为什么修建瓦恩桥？", "why"),
        ("瓦恩磨坊后来为什么停工？", "why"),
    ],
)
def test_a_chinese_wei_closing_a_verb_asks_as_what_not_why(question, kind) -> None:
    """为什么 asks why, but where its 为 closes the verb before it (称为, 改称为, 被任命为)
    the question asks "as what": what a thing is called, named or listed as."""
    assert Focus.build(question).kind == kind


def test_english_verbs_are_read_from_a_treebank_with_its_commit() -> None:
    """Whether the word after "what" is a verb is read from the English Web Treebank
    (``scripts/fit_verbs.py``, which records the commit read): a form it shows mostly as a
    verb, or a regular ending on a lemma it shows mostly as a verb, is one; a plural noun
    or a form it shows mostly otherwise is not."""
    raw = json.loads(VERBS.read_text(encoding="utf-8"))
    assert [len(c) for c in raw["read_from"].values()] == [40]
    assert all(finite_verb(w) for w in ("threatens", "caused", "happened", "carries"))
    assert not any(finite_verb(w) for w in ("years", "river", "crops", "towns"))


def test_there_are_five_questions_of_each_reading_in_english_and_two_in_chinese() -> None:
    for kind, cases in READINGS.items():
        chinese = [q for q, _ in cases if any("\u4e00" <= c <= "\u9fff" for c in q)]
        assert len(cases) - len(chinese) >= 5 and len(chinese) >= 2, kind


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        # a question word after a comma asks what it asks
        ("Is the Varn mill still used, and by whom?", ["who"]),
        # someone asked to tell what a question word asks
        ("Can you tell me when the Orvald Bridge opened?", ["when"]),
        # the question words inside a claim ask nothing
        ("Is it true that the man who built the Orvald Bridge was a sailor?", ["whether"]),
        # a name that opens with an auxiliary asks no yes/no question
        ("Will Harsk's first novel, when was it published?", ["when"]),
        ("石溪镇有没有图书馆？", ["whether"]),
        ("你知道谁修建了白鹭桥吗？", ["who"]),
    ],
)
def test_a_yes_no_question_is_told_from_one_asking_more(question: str, kinds: list[str]) -> None:
    plan = offline_plan(question)
    assert [plan.focus(s).kind for s in plan.subquestions] == kinds


def test_any_relevant_sentence_answers_a_yes_no_part() -> None:
    """A yes/no part wants no date, figure or name: any sentence relevant to it may answer
    it, and none is marked as its answer's span."""
    from research.answer import answer_span, explains, gives_answer, sure_span, wanted

    plan = offline_plan("Is it true that coffee stunts growth?")
    focus = plan.focus(plan.subquestions[0])
    sentence = "In 1999 a study of 400 children found that coffee does not stunt growth."
    assert focus.kind == "whether"
    assert wanted(focus) == "" and explains(focus) == ""
    assert gives_answer(focus, sentence)
    assert answer_span(focus, sentence) == "" and sure_span(focus, sentence) == ""


# --- two things of one owner, and a pronoun after a possessive -----------------------------

#: kind → (question, its parts, the owner every part is about: each part's subject holds
#: the owner's terms and each of its queries names one of the owner's words)
OWNED: dict[str, list[tuple[str, list[str], str]]] = {
    # "X's A and its B": two asks, each of X (not of A, the nearest noun)
    "a possessive and its, his, her or their": [
        ("What are the Orinoco Trading Company's origins and its main exports?",
         ["What are the Orinoco Trading Company's origins?",
          "What are the Orinoco Trading Company's main exports?"], "Orinoco Trading Company"),
        ("What was Mara Velt's early career and her later work?",
         ["What was Mara Velt's early career?", "What was Mara Velt's later work?"],
         "Mara Velt"),
        ("What were Tomas Brandt's first commission and his last building?",
         ["What were Tomas Brandt's first commission?",
          "What were Tomas Brandt's last building?"], "Tomas Brandt"),
        ("How long is the Varn Canal's main channel and its northern spur?",
         ["How long is the Varn Canal's main channel?",
          "How long is the Varn Canal's northern spur?"], "Varn Canal"),
        # the words after the second thing are asked of both
        ("When were the Harsk Mill's waterwheel and its dam built?",
         ["When were the Harsk Mill's waterwheel built?", "When were the Harsk Mill's dam built?"],
         "Harsk Mill"),
        ("What are the Quillon Society's aims, and its membership rules?",
         ["What are the Quillon Society's aims?",
          "What are the Quillon Society's membership rules?"], "Quillon Society"),
        ("What are the Velt brothers' origins and their later careers?",
         ["What are the Velt brothers' origins?", "What are the Velt brothers' later careers?"],
         "Velt brothers"),
    ],
    # "his A and his B": two asks of whoever the question names
    "his A and his B": [
        ("Tomas Brandt: what was his early career and his later work?",
         ["What was Tomas Brandt's early career?", "What was Tomas Brandt's later work?"],
         "Tomas Brandt"),
        ("Who was Ines Carvo? What was her childhood and her later career?",
         ["Who was Ines Carvo?", "What was Ines Carvo's childhood?",
          "What was Ines Carvo's later career?"], "Ines Carvo"),
        ("About the Varn Museum: what are its collections and its opening hours?",
         ["What are the Varn Museum's collections?", "What are the Varn Museum's opening hours?"],
         "Varn Museum"),
    ],
    # a possessive pronoun of a later ask stands for the owner, any other pronoun for the
    # nearest thing named: what the possessive heads
    "a later ask after a possessive": [
        ("What are the Orinoco Trading Company's origins, and what are its main exports?",
         ["What are the Orinoco Trading Company's origins?",
          "What are the Orinoco Trading Company's main exports?"], "Orinoco Trading Company"),
        ("What was Mara Velt's early career, and what was her later work?",
         ["What was Mara Velt's early career?", "What was Mara Velt's later work?"],
         "Mara Velt"),
        ("When did Tomas Brandt's studio open, and who ran his workshop?",
         ["When did Tomas Brandt's studio open?", "Who ran Tomas Brandt's workshop?"],
         "Tomas Brandt"),
        ("What is Port Aldane's harbour, and how deep is it?",
         ["What is Port Aldane's harbour?", "How deep is Port Aldane's harbour?"], "Port Aldane"),
        ("When was the Velt Museum's east wing built, and who designed it?",
         ["When was the Velt Museum's east wing built?",
          "Who designed the Velt Museum's east wing?"], "Velt Museum"),
    ],
    # the pronoun stands for the thing owned when that is a name of its own, or when it
    # is "their" beside a plural thing of one owner
    "the thing owned: a name, or a plural before their": [
        ("Who were Mara Velt's students and their teachers?",
         ["Who were Mara Velt's students?", "Who were Mara Velt's students' teachers?"],
         "Mara Velt"),
        ("What are Mara Velt's novels, and what are their themes?",
         ["What are Mara Velt's novels?", "What are Mara Velt's novels' themes?"], "Mara Velt"),
        ("What is Velmouth's Harsk Tower and its history?",
         ["What is Velmouth's Harsk Tower?", "What is Velmouth's Harsk Tower's history?"],
         "Harsk Tower"),
    ],
    # X的A及其B, X的A和她的B: Chinese joins two things of one owner so
    "Chinese: X的A及其B": [
        ("奥里诺科贸易公司的起源及其主要出口商品是什么？",
         ["奥里诺科贸易公司的起源是什么？", "奥里诺科贸易公司的主要出口商品是什么？"], "奥里诺科"),
        ("玛拉·维尔特的早期职业和她的后期作品有哪些？",
         ["玛拉·维尔特的早期职业有哪些？", "玛拉·维尔特的后期作品有哪些？"], "维尔特"),
        ("瓦恩运河的长度及其修建年代是多少？",
         ["瓦恩运河的长度是多少？", "瓦恩运河的修建年代是多少？"], "瓦恩运河"),
        ("王小梅在哪里出生？她的早期职业和她的后期作品是什么？",
         ["王小梅在哪里出生？", "王小梅的早期职业是什么？", "王小梅的后期作品是什么？"], "王小梅"),
    ],
}  # fmt: skip

OWNED_CASES = [(kind, *case) for kind, cases in OWNED.items() for case in cases]


@pytest.mark.parametrize(("kind", "question", "parts", "owner"), OWNED_CASES)
def test_two_things_of_one_owner_are_two_parts_each_about_the_owner(
    kind, question, parts, owner
) -> None:
    """ "X's A and its B" asks A and B of X, and each part says so; a pronoun of a later
    ask after a possessive stands for the owner when it is a possessive itself, else for
    the nearest thing named; each part's subject holds the owner, and every query of it
    names the owner."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions] == parts, kind
    named = owner.casefold().split()
    for sub in plan.subquestions:
        subject = set(plan.focus(sub).subject)
        assert set(terms(owner)) <= subject or owner in subject, (kind, sub.text, subject)
        assert all(any(w in q.casefold() for w in named) for q in sub.queries), sub.queries


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        # one noun phrase, with no pronoun of its own: one thing asked
        ("What are the Orinoco Trading Company's origins and main exports?",
         ["What are the Orinoco Trading Company's origins and main exports?"]),
        # after an ask of who someone not named is, "his" is that person's
        ("Who founded the Orinoco Trading Company, and what was his trade?",
         ["Who founded the Orinoco Trading Company?", "What was his trade?"]),
        ("Who designed the Velt Museum, and what was her first commission?",
         ["Who designed the Velt Museum?", "What was her first commission?"]),
        # "her" owns nothing at the end of an ask
        ("When did Mara Velt move to Kelm, and what did critics say about her?",
         ["When did Mara Velt move to Kelm?", "What did critics say about her?"]),
        # nobody named: two parts, each as asked
        ("What was his early career and his later work?",
         ["What was his early career?", "What was his later work?"]),
        # 其他 is no pronoun, and two owners (他, 她) are not one
        ("阿登港的港口和其他设施有哪些？", ["阿登港的港口和其他设施有哪些？"]),
        ("他的早期职业和她的后期作品是什么？", ["他的早期职业和她的后期作品是什么？"]),
    ],
)  # fmt: skip
def test_a_possessive_is_split_or_resolved_only_where_it_owns(question, parts) -> None:
    assert [s.text for s in offline_plan(question).subquestions] == parts


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("What are the causes of the Brenna valley floods?", "brenna"),
        ("Name one cause of the Tarrow mill fire.", "tarrow"),
        ("What was the main reason for the Orvel canal's closure?", "orvel"),
        ("What led to the Harsk strike?", "harsk"),
    ],
)
def test_a_cause_asked_for_by_its_name_asks_why(question: str, subject: str) -> None:
    """ "The causes of", "a reason for", "what led to" ask why: a sentence answers them by
    stating a cause in any words, not by the word "cause" or "reason"."""
    focus = Focus.build(question)
    assert focus.kind == "why"
    assert subject in focus.subject
    assert not {f.term for f in focus.facets} & {"caus", "reason"}


@pytest.mark.parametrize(
    "sentence",
    [
        "The floods were the result of three weeks of rain on frozen ground.",
        "Most of the damage stemmed from a broken weir upstream.",
    ],
)
def test_a_cause_stated_in_other_words_is_a_cause(sentence: str) -> None:
    assert states_cause(sentence)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How tall is the Varne lighthouse, and when was it built?",
            ["How tall is the Varne lighthouse?", "When was the Varne lighthouse built?"],
        ),
        (
            "When was the Kelby lighthouse first lit, and when was it last lit?",
            ["When was the Kelby lighthouse first lit?", "When was the Kelby lighthouse last lit?"],
        ),
    ],
)
def test_a_pronoun_stands_for_the_name_with_the_nouns_it_heads(question, parts) -> None:
    assert [s.text for s in offline_plan(question).subquestions] == parts


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("When did the Battle of Orvel take place?", {"battl", "orvel"}),
        ("When did the Harsk strike take place?", {"harsk", "strike"}),
        ("When did the Orvel treaty come into force?", {"orvel", "treati"}),
    ],
)
def test_a_verb_phrase_that_only_says_it_happened_asks_when(question, subject) -> None:
    """ "Take place" and "come into force" say only that something happened: neither
    "place" nor "force" is a word a sentence must say, and neither is searched."""
    plan = offline_plan(question)
    (part,) = plan.subquestions
    focus = plan.focus(part)
    assert (focus.kind, set(focus.subject), focus.facets) == ("when", subject, ())
    assert not any(
        {"take", "place", "come", "force"} & set(q.lower().split()) for q in part.queries
    )


@pytest.mark.parametrize(
    "question",
    [
        "Who is the economist Tam Varne? What does it take a town with high debt to recover?",
        "Why is the Selby mill famous? Is it said that ghosts walk there?",
    ],
)
def test_an_it_that_stands_for_nothing_is_not_replaced_by_the_subject(question: str) -> None:
    """An "it" that stands for nothing ("what does it take … to", "is it said that") is
    kept, not read as the first part's subject."""
    second = offline_plan(question).subquestions[1].text
    assert " it " in second, second


def test_a_quantity_asked_in_a_later_part_is_asked_of_that_parts_own_subject() -> None:
    """ "…, and how many eggs does a kiwi lay in a year?" asks the kiwi's eggs: the part's
    subject is what the quantity is asked of, not the thing counted."""
    plan = offline_plan(
        "Who founded the Orvald Guild, and how many eggs does a kiwi lay in a year?"
    )
    focus = plan.focus(plan.subquestions[1])
    assert focus.core == ("kiwi",), focus.core


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Who coined the word glimmerite in his notes?", "glimmerite"),
        ("What is the tallest, most slender tower of the abbey called?", "abbey"),
    ],
)
def test_a_word_asked_as_a_word_and_a_comma_between_adjectives_leave_the_subject(
    question: str, subject: str
) -> None:
    """ "the word glimmerite" asks about glimmerite, not about a word; a comma between two
    adjectives of one noun ("the tallest, most slender tower") cuts no clause."""
    assert entity(question) == subject


def test_what_it_takes_is_asked_of_the_thing_after_the_verb() -> None:
    """ "What does it take a town … to recover" asks about the town: the "it" points at
    nothing, so the part has a subject of its own and takes none from the question."""
    plan = offline_plan(
        "Who is the economist Tam Varne? What does it take a town with high debt to recover?"
    )
    focus = plan.focus(plan.subquestions[1])
    assert focus.core == ("town",), focus.core


@pytest.mark.parametrize(
    ("question", "second", "kind"),
    [
        ("Who built the Orvald mill, and when?", "When was the Orvald mill built?", "when"),
        (
            "Who wrote the Harsk Chronicle, and when?",
            "When was the Harsk Chronicle written?",
            "when",
        ),
        (
            "Who designed the Kelby lighthouse and why?",
            "Why was the Kelby lighthouse designed?",
            "why",
        ),
        ("Whom did Ana Petrescu marry, and when?", "When did Ana Petrescu marry?", "when"),
        (
            "¿Quién diseñó el puente de Orvald y cuándo?",
            "Cuándo diseñó el puente de Orvald?",
            "when",
        ),
        ("Qui a conçu le pont d'Orvald et quand ?", "Quand a conçu le pont d'Orvald?", "when"),
        ("Кто построил мост Орвальд и когда?", "Когда построил мост Орвальд?", "when"),
    ],
)
def test_a_question_word_trailing_an_ask_asks_it_of_what_that_ask_asks(question, second, kind):
    """ "…, and when?" is a part of its own that says what it asks, not a bare "When?"
    heading: in English of the first ask's object in the passive, elsewhere with the
    first ask's words."""
    plan = offline_plan(question)
    parts = [s.text for s in plan.subquestions]
    assert len(parts) == 2 and parts[1] == second, parts
    assert plan.focus(plan.subquestions[1]).kind == kind


@pytest.mark.parametrize(
    ("question", "second"),
    [
        (
            "How many bridges does Altdorf have, and when were they built?",
            "When were Altdorf's bridges built?",
        ),
        ("What mills stood in Harlow, and who owned them?", "Who owned Harlow's mills?"),
        (
            "Which towns lie on the Varn, and when were they founded?",
            "When were the Varn's towns founded?",
        ),
        # the subject is what "it", or "they" of a plural subject, stands for
        ("When was the Kelby lighthouse built, and who lit it?", "Who lit the Kelby lighthouse?"),
        ("What are the Orvald Alps, and how high are they?", "How high are the Orvald Alps?"),
    ],
)
def test_they_stands_for_the_things_the_ask_before_counts_not_the_place(question, second):
    """A later "they" stands for the plural things the ask before asks a count or a
    choice of (bridges, mills), not for the single place the question names."""
    assert [s.text for s in offline_plan(question).subquestions][1] == second
