"""Disagreements between sources: any quantity with a unit, count or date given
differently for the same thing, on several subjects and in English and Chinese — and
nothing where the values are about different things or agree."""

from __future__ import annotations

import pytest

from research.disagreements import Stored, find_disagreements, measure_name, value_text
from research.facts import (
    counted_in,
    first_year,
    has_count,
    has_date,
    has_quantity,
    has_span,
    quantities,
    states_cause,
    years,
)
from research.text import reading


def _found(*pages: str, lang: str = "en") -> list[tuple[str, list[str]]]:
    stored = [Stored(f"/p/{i}.md", f"http://s{i}.test/", text) for i, text in enumerate(pages)]
    return [
        (d.measure, [value_text(c, lang) for c in d.claims])
        for d in find_disagreements(stored, lang)
    ]


@pytest.mark.parametrize(
    ("pages", "lang", "expected"),
    [
        (
            (
                "The lighthouse was completed in 1874 after six years of work.",
                "Records say the lighthouse was completed in 1876.",
            ),
            "en",
            [("date", ["1874", "1876"])],
        ),
        (
            (
                "The town of Marrow Bay has about 12,000 inhabitants.",
                "Marrow Bay had 13,100 inhabitants at the last census.",
            ),
            "en",
            [("count", ["about 12,000 people", "13,100 people"])],
        ),
        (
            (
                "The expedition set out with 12 ships from the harbour.",
                "In the spring the expedition set out with 13 ships.",
            ),
            "en",
            [("count", ["12 ship", "13 ship"])],
        ),
        (
            (
                "青海湖湖面面积约4,400平方公里，是中国最大的咸水湖。",
                "据测量，青海湖湖面面积为4,200平方公里。",
            ),
            "zh",
            [("area", ["4,200平方公里", "约4,400平方公里"])],
        ),
        (
            ("这座桥建成于1937年，全长1,453米。", "这座桥于1937年建成，桥长1,480米。"),
            "zh",
            [("length", ["1,453米", "1,480米"])],  # the years agree
        ),
    ],
)
def test_values_given_differently_for_one_thing_are_a_disagreement(pages, lang, expected):
    found = _found(*pages, lang=lang)
    assert [m for m, _ in found] == [m for m, _ in expected]
    for (_, values), (_, wanted) in zip(found, expected, strict=True):
        assert sorted(values) == sorted(wanted)


@pytest.mark.parametrize(
    "pages",
    [
        # two dates of one project, not one date given twice
        (
            "Construction of the observatory began in 1901.",
            "The observatory was completed in 1905 and opened to the public.",
        ),
        # one source giving two values is not sources disagreeing
        ("The museum had 40,000 visitors in its first year and 42,000 visitors in its second.",),
        # shares of different things
        (
            "Rice makes up 40% of the province's exports.",
            "About 42% of the province's population lives in its capital.",
        ),
        # values that agree: a range and a value inside it
        ("The glacier is 14 to 15 km long.", "The glacier is 14.5 km long."),
        # far apart: not one quantity
        ("The river is 410 km long.", "Its largest tributary is 95 km long."),
    ],
)
def test_values_about_different_things_or_agreeing_are_not(pages):
    assert _found(*pages) == []


def test_a_disagreement_is_named_by_what_it_measures_in_both_languages():
    stored = [
        Stored("/p/a.md", "http://a.test/", "The fleet sailed with 12 ships that spring."),
        Stored("/p/b.md", "http://b.test/", "That spring the fleet sailed with 13 ships."),
    ]
    (found,) = find_disagreements(stored)
    assert measure_name(found, "en") == "the number of ships"
    assert measure_name(found, "zh") == "数量（ships）"  # no English word inside Chinese ones
    said = ["那年春天，船队带着12艘船出发。", "那年春天船队带着13艘船出发。"]
    zh = [Stored(f"/p/{i}.md", f"http://{i}.test/", t) for i, t in enumerate(said)]
    (found_zh,) = find_disagreements(zh, "zh")
    assert measure_name(found_zh, "zh") == "艘数"
    for claim in found.claims:  # each value keeps the exact sentence that gives it
        text = next(s.text for s in stored if s.path == claim.path)
        assert text[claim.start : claim.end].endswith("ships that spring.") or text[
            claim.start : claim.end
        ].startswith("That spring")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("about 1,800 km long", [("about 1,800 km", 1800, 1800, "km")]),
        ("约1,794至1,797公里", [("约1,794至1,797公里", 1794, 1797, "km")]),
        ("人口约1200万人", [("约1200万人", 12e6, 12e6, "people")]),
        ("3.2 million people", [("3.2 million people", 3.2e6, 3.2e6, "people")]),
        ("an area of 1,200 square kilometres", [("1,200 square kilometres", 1200, 1200, "km²")]),
        ("40% of the vote", [("40%", 40, 40, "%")]),
        ("In 1855 people left the valley.", []),  # a year, not a count
        ("Emperor Yang reigned 604–618.", []),
    ],
)
def test_quantities_are_read_with_their_units(text, found):
    assert [(q.text, q.low, q.high, q.unit) for q in quantities(text)] == found
    for q in quantities(text):
        assert text[q.start : q.end] == q.text


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("el", "Η Βέλτα θα λάμβανε 7 εκατομμύρια δραχμές.", "7 εκατομμύρια"),
        ("ru", "Мост Орвальд обошёлся в 4 миллиона рублей.", "4 миллиона"),
        ("vi", "Cầu Orvald có 9 nhịp đá.", "9 nhịp"),
        ("tr", "Orvald köprüsü 6 kemerden oluşur.", "6 kemerden"),
        ("de", "Die Gemeinde erhielt 3 Millionen Euro.", "3 Millionen"),
    ],
)
def test_a_number_counts_the_word_after_it_in_any_script(lang, text, said):
    """A number is a quantity with the noun after it in any script, as in English ("12
    ships"); a common word of the language read ("και", "der") counts nothing."""
    with reading(lang):
        assert has_quantity(text) and [q.text for q in quantities(text)] == [said]
    with reading("el"):
        assert quantities("Οι γέφυρες 3 και 4.") == []


def test_dates_causes_and_quantities_are_read_one_way_everywhere():
    assert years("It was founded in 793 and rebuilt in 1410.") == [793, 1410]
    assert years("公元前221年，秦统一六国；605年开工。") == [-221, 605]
    assert years("It ran from 186 to 196 km.") == []
    assert first_year("Emperor Yang reigned 604–618.") == 604
    assert has_date("**800** — the first bridge") and not has_date("800 men worked there")
    assert states_cause("The harbour silted up because the river changed course.")
    assert states_cause("由于战乱，城市衰落。") and not states_cause("使用新的方法。")
    assert has_quantity("三座桥") and has_quantity("12,000") and not has_quantity("in 1990")
    # a span of years is a quantity, a year is not
    assert has_quantity("战争持续了六年") and has_quantity("持续了6年") and has_quantity("50多年")
    assert not has_quantity("它在1987年被评为名校") and not has_quantity("成立于1862年")
    assert not any(has_quantity(t) for t in ("同一年", "一九九八年", "五年级"))
    # a count in words, and a Chinese count with any measure word
    assert has_quantity("The town has three schools.") and has_quantity("该镇有三所中学")
    assert not has_quantity("One of the schools is old.")
    assert counted_in("有多少所中学？") == "所" and counted_in("持续了多久？") == ""
    assert has_count("约有5万至6万只蜜蜂", "只") and has_count("数字是5000万。", "人")
    assert not has_count("只存在一年", "只") and not has_count("1918年的病毒", "人")
    said = [(q.text, q.unit) for q in quantities("体长可达58公分，收诗98首，面积12平方英里。")]
    assert said == [("58公分", "cm"), ("98首", "首"), ("12平方英里", "mi²")]


def test_a_value_is_cited_in_the_reports_language_when_a_source_gives_it_so():
    """A Chinese report cites the Chinese sentence for a value, even one that gives other
    values too and opens with bold text, before an English sentence that gives it alone."""
    stored = [
        Stored(
            "/p/zh.md",
            "http://zh.test/",
            "**青海湖**湖面面积约4,400平方公里，流域面积约29,660平方公里。",
        ),
        Stored(
            "/p/en.md", "http://en.test/", "The lake covers an area of 4,200 square kilometres."
        ),
        Stored(
            "/p/en2.md", "http://en2.test/", "Lake Qinghai covers about 4,400 square kilometres."
        ),
    ]
    (found,) = find_disagreements(stored, "zh")
    assert [(value_text(c, "zh"), c.lang, c.path) for c in found.claims] == [
        ("4,200平方公里", "en", "/p/en.md"),
        ("约4,400平方公里", "zh", "/p/zh.md"),
    ]
    (found,) = find_disagreements(stored, "en")
    assert {c.path for c in found.claims} == {"/p/en.md", "/p/en2.md"}


def test_the_chinese_disagreement_names_its_subject_by_its_nouns():
    """Questions that open alike ("京杭大运河今天发挥着…，京杭大运河今天发挥着…") share
    more than their subject: the sentence names the canal, not a run of the question."""
    from types import SimpleNamespace

    from research.notes import _subject

    question = "京杭大运河今天发挥着什么作用？京杭大运河今天发挥着的航运功能有多大？"
    research = SimpleNamespace(plan=SimpleNamespace(question=question))
    assert _subject(research, "zh") == "京杭大运河"


def test_only_the_sources_a_report_cites_give_its_disagreements():
    """A page the report passed over for every part (one that names the subject in
    passing) gives values of other things: another station's floor area is no second
    value of this one's."""
    from types import SimpleNamespace

    from research.notes import _disagreements

    def source(url: str) -> SimpleNamespace:
        return SimpleNamespace(url=url, relevant_to={"q1"}, kind="web")

    research = SimpleNamespace(
        plan=SimpleNamespace(question="石溪站的站房有多大？", language="zh"),
        sources={"/a.md": source("http://a.test/"), "/b.md": source("http://b.test/")},
        texts={"/a.md": "石溪站站房面积3,870平方米。", "/b.md": "青桥站站房面积3,915平方米。"},
        cite=lambda path, start, end, locator="": SimpleNamespace(id=f"{path}:{start}"),
    )
    (found,) = _disagreements(research, {"http://a.test/", "http://b.test/"})
    assert found.measure == "area"
    assert _disagreements(research, {"http://a.test/"}) == []


def test_a_span_of_time_is_neither_a_year_nor_a_date():
    """多久 is answered by 六年, 三个月, 50多年 or 10天; not by 1996年5月14日 or 于605年."""
    for span in ["在六年内结束", "三个月后", "50多年", "10天", "两个世纪", "持续了 12 年"]:
        assert has_span(span), span
    for other in ["1996 年 5 月 14 日", "于605年建成", "第二年", "同一年", "三月", "1990年代"]:
        assert not has_span(other), other
