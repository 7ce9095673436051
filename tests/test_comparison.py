"""Comparison questions are planned as one part per side and the comparison itself, on
invented questions of every frame, in English and Chinese."""

from __future__ import annotations

import re

import pytest

from research.comparison import comparison
from research.plan import offline_plan
from research.question import Focus
from research.text import terms

#: (question, sides, what each side's part asks beyond its side)
EN = [
    ("Which is better for a small bakery, Crumbly or Doughnest?", ("Crumbly", "Doughnest"),
     "for a small bakery"),
    ("Which is better, Crumbly or Doughnest, for a small bakery?", ("Crumbly", "Doughnest"),
     "for a small bakery"),
    ("Which is longer, the Varn Canal or the Ostel Canal?", ("the Varn Canal", "the Ostel Canal"),
     "How long"),
    ("Which glacier is older, the Harsk Glacier or the Melvin Glacier?",
     ("the Harsk Glacier", "the Melvin Glacier"), "How old"),
    ("Is the Quillon ferry or the Brask bridge cheaper for commuters?",
     ("the Quillon ferry", "the Brask bridge"), "How cheap"),
    ("What is more expensive, Tallowmere or Grisby?", ("Tallowmere", "Grisby"), "How expensive"),
    ("Should I take Zorvex or Calmira for a sprained ankle?", ("Zorvex", "Calmira"),
     "for a sprained ankle"),
    ("Should I fit rain tanks versus a well pump in a dry garden?", ("rain tanks", "a well pump"),
     "in a dry garden"),
    ("Compare the population of Ardenport and Velmouth", ("Ardenport", "Velmouth"),
     "population"),
    ("Compare Ardenport with Velmouth", ("Ardenport", "Velmouth"), "What is"),
    ("What is the population of Ardenport compared to Velmouth?", ("Ardenport", "Velmouth"),
     "population"),
    ("What is the average rent of Ardenport compared with Velmouth's?",
     ("Ardenport", "Velmouth"), "average rent"),
    ("What is the difference between a sluice and a weir?", ("a sluice", "a weir"), "What is"),
    ("What is the difference between Quillon 3.11 and 3.12?", ("Quillon 3.11", "Quillon 3.12"),
     "What is"),
    ("How does a kettle grill differ from a drum smoker?", ("a kettle grill", "a drum smoker"),
     "What is"),
    ("How do solar kilns and steam kilns compare in drying time?",
     ("solar kilns", "steam kilns"), "in drying time"),
    ("Rooftop wind turbines versus solar panels for a farmhouse",
     ("Rooftop wind turbines", "solar panels"), "for a farmhouse"),
    ("Crumbly vs Doughnest for a small bakery?", ("Crumbly", "Doughnest"), "for a small bakery"),
    ("Are solar kilns better than steam kilns for a sawmill?", ("solar kilns", "steam kilns"),
     "for a sawmill"),
    ("Was the Harsk Colossus taller than the Ostel Tower?",
     ("the Harsk Colossus", "the Ostel Tower"), "How tall is"),
    ("Are steam kilns cheaper to run than solar kilns?", ("steam kilns", "solar kilns"),
     "How cheap are"),
    # the sides named first, then the ask
    ("Steam kilns versus solar kilns: which costs less to run?", ("steam kilns", "solar kilns"),
     "How much do"),
    ("Crumbly or Doughnest: which is better for a small bakery?", ("Crumbly", "Doughnest"),
     "for a small bakery"),
    ("Rye bread vs spelt bread - which is cheaper to bake?", ("rye bread", "spelt bread"),
     "How cheap"),
    # a verb's comparative
    ("Which lasts longer, the Varn bell or the Ostel bell?", ("the Varn bell", "the Ostel bell"),
     "How long does"),
    ("Which one uses more water, a drip line or a sprinkler?", ("a drip line", "a sprinkler"),
     "How much water does"),
    ("Which has fewer calories, rye bread or spelt bread?", ("rye bread", "spelt bread"),
     "How many calories does"),
    ("Which works better, Zorvex or Calmira?", ("Zorvex", "Calmira"), "How well does"),
    ("Which town has more people, Ardenport or Velmouth?", ("Ardenport", "Velmouth"),
     "How many people does"),
    ("Which club scored more goals, the Harsk Rovers or the Ostel Wanderers?",
     ("the Harsk Rovers", "the Ostel Wanderers"), "How many goals did"),
    # which happened first: a side's part asks when
    ("Which opened first, the Varn bridge or the Ostel tunnel?",
     ("the Varn bridge", "the Ostel tunnel"), "When did"),
    ("Which came earlier, the Harsk loom or the Melvin press?",
     ("the Harsk loom", "the Melvin press"), "When did"),
    ("Which was built first, the Varn lock or the Ostel weir?",
     ("the Varn lock", "the Ostel weir"), "When was"),
    # of people: who
    ("Who came first, the Harsk settlers or the Melvin traders?",
     ("the Harsk settlers", "the Melvin traders"), "When did"),
    ("Who was born first, Eda Varn or Tomas Ostel?", ("Eda Varn", "Tomas Ostel"), "When was"),
    ("Who scored more goals, Eda Varn or Tomas Ostel?", ("Eda Varn", "Tomas Ostel"),
     "How many goals did"),
    ("Who has the better record, the Harsk Rovers or the Ostel Wanderers?",
     ("the Harsk Rovers", "the Ostel Wanderers"), "record"),
    # "is it … to VERB PREP A or PREP B": the sides share the preposition
    ("Is it cheaper to live in Varnholt or in Ostelburg?", ("Varnholt", "Ostelburg"),
     "How cheap is it to live in"),
    ("Is it safer to cycle in Varnholt or Ostelburg?", ("Varnholt", "Ostelburg"),
     "How safe is it to cycle in"),
    ("Is it better to moor a barge at Harsk or at Melvin Quay?", ("Harsk", "Melvin Quay"),
     "What is it like to moor a barge at"),
    # a verb of having with "the better NOUN": a property of each side
    ("Quillon vs Brask: which has the better screen?", ("Quillon", "Brask"), "'s screen"),
    ("Which has the longer battery life, the Zephyr 3 or the Tamberline X?",
     ("the Zephyr 3", "the Tamberline X"), "How long is"),
    ("Which offers better value, Quillon or Brask?", ("Quillon", "Brask"), "'s value"),
    # a choice between the sides
    ("Which should I buy, Quillon or Brask?", ("Quillon", "Brask"), "What about"),
    ("Which would you recommend for a beginner, the Zephyr 3 or the Tamberline X?",
     ("the Zephyr 3", "the Tamberline X"), "for a beginner"),
    ("Which is better: Quillon or Brask?", ("Quillon", "Brask"), "What about"),
    ("Which is the better choice for a small farm, Quillon or Brask?", ("Quillon", "Brask"),
     "for a small farm"),
    ("Which is the cheaper option, Quillon or Brask?", ("Quillon", "Brask"), "How cheap is"),
    # a comparison is read before its clause is cut at "and" ("swinging" reads as a verb)
    ("What is the difference between sliding sluices and swinging weirs?",
     ("sliding sluices", "swinging weirs"), "What are"),
    ("What's the difference between a sluice and a weir?", ("a sluice", "a weir"), "What is"),
    ("How do sliding sluices and swinging weirs differ?", ("sliding sluices", "swinging weirs"),
     "What are"),
    ("Compare rolling kilns and drying sheds", ("rolling kilns", "drying sheds"), "What are"),
]  # fmt: skip

ZH = [
    ("瓦恩运河和奥斯特运河哪个更长？", ("瓦恩运河", "奥斯特运河"), "有多长"),
    ("哈斯克冰川与梅尔文冰川哪个更古老？", ("哈斯克冰川", "梅尔文冰川"), "是否古老"),
    ("石窑和蒸汽窑哪个高？", ("石窑", "蒸汽窑"), "有多高"),
    ("Crumbly还是Doughnest更好？", ("Crumbly", "Doughnest"), "怎么样"),
    ("比较阿登港和维尔茅斯的人口", ("阿登港", "维尔茅斯"), "人口"),
    ("水闸与堰坝有什么区别？", ("水闸", "堰坝"), "是什么"),
    ("电热水器和燃气热水器之间的不同是什么？", ("电热水器", "燃气热水器"), "是什么"),
    ("石窑和蒸汽窑的区别", ("石窑", "蒸汽窑"), "是什么"),
    # a softener after 比较 is no part of the first side
    ("比较一下阿登港和维尔茅斯的气候", ("阿登港", "维尔茅斯"), "气候"),
    ("对比一番石窑与蒸汽窑的价格", ("石窑", "蒸汽窑"), "价格"),
    # 跟B比, and an adjective without 更 after 哪个, with the property it is said of
    ("石窑跟蒸汽窑比哪个便宜？", ("石窑", "蒸汽窑"), "便宜"),
    ("阿登港和维尔茅斯哪个人口多？", ("阿登港", "维尔茅斯"), "的人口有多少"),
    ("Zorvex和Calmira哪个副作用更少？", ("Zorvex", "Calmira"), "副作用"),
    ("阿登港和维尔茅斯哪个好？", ("阿登港", "维尔茅斯"), "怎么样"),
    # a measure word other than 个 after 哪, with the kind of the sides after it
    ("瓦恩河和奥斯特河哪条河更长？", ("瓦恩河", "奥斯特河"), "有多长"),
    ("阿登港和维尔茅斯哪座城市人口更多？", ("阿登港", "维尔茅斯"), "的人口有多少"),
    # the ask first, then the sides; the sides first, then the ask
    ("哪条河更长，瓦恩河还是奥斯特河？", ("瓦恩河", "奥斯特河"), "有多长"),
    ("哪座城市人口更多，阿登港还是维尔茅斯？", ("阿登港", "维尔茅斯"), "的人口有多少"),
    ("石窑还是蒸汽窑，哪个更便宜？", ("石窑", "蒸汽窑"), "便宜"),
]

#: Questions that name two things or say "or" without comparing them: planned as before.
NOT_COMPARED = [
    "Did the settlers of Varn land at Ostel or at Harsk?",
    "Are there more than 100 kinds of kiln?",
    "Is it better to rent than to buy a kiln?",
    "What did Tallowmere sell, grain or timber?",
    "Which river flows into the lake, the Varn or the Ostel?",
    "How many goals did Ardenport score in the final versus Velmouth?",
    "How do the Varn ferry's fares compare with other ferries' fares?",
    "Ardenport or Velmouth: which has a harbour?",
    "Which runs the Varn ferry, Ardenport or Velmouth?",
    "瓦恩和奥斯特支持哪个政党？",
    "哈斯克冰川与其他冰川有什么不同？",
    "石窑的烟囱和蒸汽窑的炉膛有什么不同？",
    "Is it better to rent a flat in Varnholt or buy one?",
    "Which has a harbour, Ardenport or Velmouth?",
    "阿登港和维尔茅斯哪个有港口？",
    "阿登港和维尔茅斯哪个是首都？",
    "哪个是首都，阿登港还是维尔茅斯？",
]


def _subject_words(focus: Focus) -> set[str]:
    return set(focus.subject) | {f.term for f in focus.facets}


@pytest.mark.parametrize(("question", "sides", "asks"), EN + ZH)
def test_a_comparison_is_one_part_per_side_and_the_comparison(question, sides, asks) -> None:
    plan = offline_plan(question)
    texts = [s.text for s in plan.subquestions]
    assert len(texts) == 3, texts
    for side, part in zip(sides, plan.subquestions[:2], strict=True):
        assert side in part.text and asks in part.text, part.text
        other = sides[1] if side == sides[0] else sides[0]
        assert other not in part.text
        # the side is what the part is about; its queries name it
        focus = Focus.build(part.text, texts, question)
        assert set(terms(side)) & set(focus.subject), (part.text, focus)
        assert _names(part.queries[0], side), part.queries
        assert all(set(terms(q)) & set(terms(side)) for q in part.queries), part.queries
    assert plan.subquestions[2].text.rstrip("?？") == question.rstrip("?？")
    assert all(any(_names(q, side) for side in sides) for q in plan.subquestions[2].queries)


@pytest.mark.parametrize(("question", "sides", "asks"), EN + ZH)
def test_the_comparison_part_is_about_both_sides_and_needs_no_comparing_word(
    question, sides, asks
) -> None:
    """A sentence answering the comparison names both sides; it need not say "better",
    "difference" or "区别"."""
    focus = Focus.build(question, [question], question)
    said = _subject_words(focus)
    for side in sides:
        assert set(terms(side)) & said, (side, focus)
    asked = {"better", "differ", "compar", "versus", "区别", "不同", "比较", "更长"}
    assert not (said & asked), focus


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("Which is the better choice for a small farm, Quillon or Brask?",
         ["What about Quillon for a small farm?", "What about Brask for a small farm?"]),
        ("Which is the cheaper option, Quillon or Brask?",
         ["How cheap is Quillon?", "How cheap is Brask?"]),
        ("Quillon vs Brask: which has the better screen?",
         ["What about Quillon's screen?", "What about Brask's screen?"]),
        # a side that is only a version is named as the other side names its own
        ("What is the difference between Quillon 3.11 and 3.12?",
         ["What is Quillon 3.11?", "What is Quillon 3.12?"]),
        # an advice frame before the sides, whatever joins them
        ("Should I fit rain tanks versus a well pump in a dry garden?",
         ["What about rain tanks in a dry garden?", "What about a well pump in a dry garden?"]),
        ("比较一下阿登港和维尔茅斯的气候", ["阿登港的气候怎么样？", "维尔茅斯的气候怎么样？"]),
        ("请对比一番石窑与蒸汽窑", ["石窑是什么？", "蒸汽窑是什么？"]),
    ],
)  # fmt: skip
def test_a_side_is_asked_only_what_the_comparison_asks_of_it(question, parts) -> None:
    """The noun a comparative qualifies ("the better *choice*"), a verb of having ("which
    *has* the better screen") and a softener after 比较 (一下, 一番) are no part of a side's
    part: it asks the side what the comparison asks of both."""
    assert [s.text for s in offline_plan(question).subquestions[:2]] == parts


@pytest.mark.parametrize("question", NOT_COMPARED)
def test_a_question_that_does_not_compare_is_planned_as_it_is(question) -> None:
    assert comparison(question) is None
    assert all("What about" not in s.text for s in offline_plan(question).subquestions)


def test_a_comparison_inside_a_longer_question_keeps_the_other_parts() -> None:
    question = (
        "When was the Varn Canal dug, and which is longer, the Varn Canal or the Ostel Canal?"
    )
    texts = [s.text for s in offline_plan(question).subquestions]
    assert texts[0] == "When was the Varn Canal dug?"
    assert texts[1:3] == ["How long is the Varn Canal?", "How long is the Ostel Canal?"]
    assert texts[3].startswith("Which is longer")


@pytest.mark.parametrize(("question", "sides", "asks"), EN + ZH)
def test_the_comparison_parts_first_query_names_both_sides(question, sides, asks) -> None:
    """The comparison's own part is searched for both sides at once: a page answering it
    names both."""
    first = offline_plan(question).subquestions[2].queries[0]
    assert all(_names(first, side) for side in sides), first


@pytest.mark.parametrize(
    ("question", "again"),
    [
        ("Which is healthier, Quillon tea or Brask tea, and which is cheaper?",
         "Which is cheaper, Quillon tea or Brask tea?"),
        ("Which is longer, the Varn Canal or the Ostel Canal? Which is older?",
         "Which is older, the Varn Canal or the Ostel Canal?"),
        ("阿登港和维尔茅斯哪个更大？哪个更古老？", "阿登港和维尔茅斯哪个更古老？"),
    ],
)  # fmt: skip
def test_a_later_comparison_without_its_sides_compares_the_same_sides(question, again) -> None:
    """A later "…, and which is cheaper?" after a comparison asks it of the same two sides: a
    part for each side, and the comparison with its sides written in."""
    plan = offline_plan(question)
    texts = [s.text for s in plan.subquestions]
    assert len(texts) == 6 and texts[5] == again, texts
    first = comparison(texts[2])
    assert first is not None and comparison(again) is not None
    for side, part in zip(first.sides, plan.subquestions[3:5], strict=True):
        assert side in part.text and _names(part.queries[0], side), part


def _words(side: str) -> list[str]:
    """A side's words that name it (not its article); a Chinese side is one word."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in side):
        return [side]
    return [w for w in side.split() if w.lower() not in {"a", "an", "the"}]


def _names(query: str, side: str) -> bool:
    words = _words(side)
    return any(w.casefold() in query.casefold() for w in words) or (
        len(words) == 1 and words[0][:4].casefold() in query.casefold()
    )


def test_a_comparison_runs_end_to_end_with_each_side_answered(tmp_path) -> None:
    """On the demo's web, each side of "the difference between" two kinds of lock is a
    part of its own, answered from the page that describes it."""
    from research_support import run_demo

    question = "What is the difference between a pound lock and a flash lock?"
    host, result, _ = run_demo(tmp_path, question=question, stage_timeout=120)
    assert result.exit_code == 0
    parts = result.plan.subquestions
    assert [p.text for p in parts] == ["What is a pound lock?", "What is a flash lock?", question]
    for part, side in zip(parts, ("pound lock", "flash lock"), strict=False):
        assert part.status in ("answered", "partly answered"), part
        spans = [host.state.research.item(i).span for i in part.evidence_ids]
        assert any(side in " ".join(s.split()).lower() for s in spans), spans


def test_a_comparison_of_two_canals_answers_each_side_from_its_own_page(tmp_path) -> None:
    """On the demo's web, "Which is longer, the Grand Canal or the Erie Canal?" asks each
    canal's length as a part of its own: the report cites, for each, a line of that part's
    evidence giving the canal's length from a page on that canal, never a line about the
    other canal alone; the comparison is answered, or said to be partly answered, by a
    line naming both."""
    from research_support import run_demo

    question = "Which is longer, the Grand Canal or the Erie Canal?"
    host, result, _ = run_demo(tmp_path, question, formats=("md",), stage_timeout=120)
    assert result.exit_code == 0
    parts = result.plan.subquestions
    assert [p.text for p in parts] == [
        "How long is the Grand Canal?",
        "How long is the Erie Canal?",
        question,
    ]
    (markdown,) = result.outputs
    report = result.run.real_path(markdown).read_text(encoding="utf-8")
    cited = [ln for ln in report.split("\n## Sources")[0].splitlines() if re.search(r"\[\d+\]", ln)]

    def evidence(part) -> list[tuple[str, str]]:
        items = [host.state.research.item(i) for i in part.evidence_ids]
        return [(" ".join(it.span.split()), it.url) for it in items]

    def cites(span: str) -> bool:
        return any(span[:80] in line for line in cited)

    grand, erie, both = (evidence(p) for p in parts)
    assert any(
        cites(span) and re.search(r"1,[78]\d\d\b.*km", span) and "/erie-canal" not in url
        for span, url in grand
    ), grand
    assert any(
        cites(span) and "584 km" in span and url.endswith("/en/erie-canal.html")
        for span, url in erie
    ), erie
    assert not [s for s, _ in grand if "Erie" in s and "Grand Canal" not in s], grand
    assert not [s for s, _ in erie if "Grand Canal" in s and "Erie" not in s], erie
    assert parts[2].status in ("answered", "partly answered"), parts[2]
    assert both and all("Grand Canal" in s and "Erie Canal" in s for s, _ in both), both
    assert any(cites(span) for span, _ in both), (both, cited)


@pytest.mark.parametrize(
    ("sentence", "first", "second"),
    [
        ("The Varn Canal runs for about 120 km; the Ostel Canal for about 85 km.",
         "about 120 km", "about 85 km"),
        ("The Ostel Canal, at about 85 km, is far shorter than the Varn Canal, which runs for "
         "about 120 km.", "about 120 km", "about 85 km"),
    ],
)  # fmt: skip
def test_a_sentence_giving_both_sides_figures_answers_each_side_with_its_own(
    sentence, first, second
) -> None:
    """A line naming both sides with a figure for each gives each side's part the figure
    said of that side, not the first or the nearest to the question's other words."""
    from research.answer import answer_span

    plan = offline_plan("Which is longer, the Varn Canal or the Ostel Canal?")
    varn, ostel = (plan.focus(s) for s in plan.subquestions[:2])
    assert answer_span(varn, sentence) == first
    assert answer_span(ostel, sentence) == second


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("瓦恩河和奥斯特河哪条河更长？", ["瓦恩河有多长？", "奥斯特河有多长？"]),
        ("阿登港和维尔茅斯哪座城市人口更多？", ["阿登港的人口有多少？", "维尔茅斯的人口有多少？"]),
        ("韦尔茅斯和阿登港哪个更大？", ["韦尔茅斯有多大？", "阿登港有多大？"]),
    ],
)
def test_a_chinese_comparison_asks_each_side_of_what_is_compared_not_of_its_kind(
    question, parts
) -> None:
    """The noun after 哪条, 哪座 names what the sides are (a river, a city), not what is
    compared; the sides are cut as whole words in every part's queries (韦尔茅斯, not
    韦尔茅斯有)."""
    plan = offline_plan(question)
    assert [s.text for s in plan.subquestions[:2]] == parts
    for sub in plan.subquestions:
        cut = {w for q in sub.queries for w in q.split()}
        assert not {w for w in cut if w.endswith("有") and len(w) > 1}, sub.queries
