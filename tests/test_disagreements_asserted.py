"""Disagreements a source asserts: a figure a sentence gives as others give it is no
citation for it as the source's own, and such a sentence is shown whole, once; values
are compared only when they are the same measure of the same thing, and a disagreement
is never named after a subject that is no thing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from research.disagreements import Stored, find_disagreements, value_text
from research.facts import reports_others
from research.notes import _disagreement_lines, _subject

#: A sentence that favours one length and reports two others' figures.
ACCOUNT = (
    "The causeway crosses the marsh for a distance usually given as about 42 to 43 km "
    "— round figures of 45 km are common, and some older survey maps give 39 km."
)


def _stored(*pages: str) -> list[Stored]:
    return [Stored(f"/p/{i}.md", f"http://s{i}.test/", text) for i, text in enumerate(pages)]


def _values(found) -> list[tuple[str, str]]:
    return [(value_text(c, "en"), c.path) for c in found.claims]


@pytest.mark.parametrize(
    "sentence",
    [
        ACCOUNT,
        "The pier is sometimes given as 310 m long.",
        "According to the harbour board, the pier is 310 m long.",
        "Others say the mill opened in 1761.",
        "有人认为这座塔高88米。",
        "塔高约86米，也有资料记为88米。",
        "塔高约86米，一说88米。",
        "据《县志》记载，塔建于1102年。",
    ],
)
def test_a_sentence_that_gives_others_figures_is_told_apart(sentence):
    assert reports_others(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The whole causeway is usually given as about 42 to 43 km.",
        "Some 3,000 workers built the pier.",
        "Other sources of water include two springs.",
        "Records show the mill opened in 1761.",
        "据测量，塔高86米。",
        "这一说法并不准确。",
    ],
)
def test_a_sentence_that_gives_its_own_figures_is_not(sentence):
    assert not reports_others(sentence)


def test_a_source_reporting_others_figures_is_not_cited_for_them():
    """The source that reports "some older survey maps give 39 km" is no citation for 39
    km: the values are the other sources' own, and its sentence is kept whole."""
    pages = _stored(
        ACCOUNT,
        "The causeway is about 42.5 km long.",
        "The causeway measures 46 km from shore to shore.",
    )
    (found,) = find_disagreements(pages, "en", "causeway")
    assert _values(found) == [("about 42.5 km", "/p/1.md"), ("46 km", "/p/2.md")]
    (account,) = found.accounts
    assert account.path == "/p/0.md"
    assert ACCOUNT.startswith(pages[0].text[account.start : account.end][:40])


def test_an_account_alone_is_a_disagreement_with_no_value_split_from_it():
    """When the sources' own figures agree, the disagreement is the account's: it is kept
    whole, and no figure of it is cited as the source's own."""
    (found,) = find_disagreements(_stored(ACCOUNT, "The causeway is 42.6 km long."), "en")
    assert found.claims == []
    assert [a.path for a in found.accounts] == ["/p/0.md"]
    # one source giving two figures as its own is no disagreement: they are two things
    assert not find_disagreements(_stored("The old road was 42 km long and the new 45 km."))


def test_a_chinese_account_is_kept_whole():
    pages = _stored("塔高约86米，也有资料记为88米。", "塔高86米。")
    (found,) = find_disagreements(pages, "zh")
    assert found.claims == [] and [a.path for a in found.accounts] == ["/p/0.md"]


def _research(texts: dict[str, str], lang: str, question: str) -> SimpleNamespace:
    """A run's findings as the notes read them, each cited span an item of its own."""
    items: dict[str, SimpleNamespace] = {}

    def cite(path: str, start: int, end: int, locator: str = "") -> SimpleNamespace:
        ev_id = f"ev-{len(items):012x}"
        items[ev_id] = SimpleNamespace(
            id=ev_id, span=texts[path][start:end], page_path=path, start=start, end=end
        )
        return items[ev_id]

    return SimpleNamespace(
        plan=SimpleNamespace(language=lang, question=question),
        item=items.get,
        cite=cite,
    )


def test_an_account_is_shown_once_as_the_source_says_it():
    research = _research({"/p/0.md": ACCOUNT}, "en", "How long is the causeway?")
    (found,) = find_disagreements(_stored(ACCOUNT, "The causeway is 42.6 km long."), "en")
    account = found.accounts[0]
    account.ev_id = research.cite(account.path, account.start, account.end).id
    subject = _subject(research, "en")
    (line,) = _disagreement_lines(research, found, [], subject)
    assert line == f"- On the causeway's length, one source says: “{ACCOUNT}” [{account.ev_id}]"
    # a part's section quotes it already: it is cited, not shown a second time
    quoted = [research.item(account.ev_id)]
    (line,) = _disagreement_lines(research, found, quoted, subject)
    assert line == (
        f"- On the causeway's length, one source reports how others give it [{account.ev_id}]."
    )
    assert "“" not in line


def test_unrelated_close_dates_on_one_long_page_are_not_a_disagreement():
    """A long page gives many dates a few years apart; another page gives one between
    them. None of them is one date given twice: a date a source gives as its own is one
    thing, another it gives is another, and a value close to two others does not join
    them."""
    long_page = " ".join(
        [
            "The reef survey was repeated in 2003 with a larger team of divers.",
            "Bleaching was recorded on the reef in 2005 after a warm summer.",
            "The reef survey was repeated in 2012 with new sonar equipment.",
            "Most of the reef had recovered by 2016.",
        ]
    )
    other = "The reef survey was repeated in 2007 by volunteer divers."
    assert find_disagreements(_stored(long_page, other), "en", "reef") == []


def test_two_values_of_one_clause_belong_to_what_each_names():
    """ "The North Quay (1801) and the South Quay (1806)": 1801 is the North Quay's, and
    another source's 1806 for the South Quay agrees with it, not with 1801."""
    pages = _stored(
        "The North Quay (1801) and the South Quay (1806) were rebuilt after the flood.",
        "The South Quay was rebuilt after the flood in 1806.",
    )
    assert find_disagreements(pages, "en", "harbour") == []


def test_a_disagreement_never_names_a_subject_that_is_no_thing():
    """A date is not the subject's ("the reef's date"), and a question whose last named
    word is a verb form names no subject ("the assumed's length")."""
    pages = _stored(
        "The harbour wall was completed in 1874 after six years of work.",
        "Records say the harbour wall was completed in 1876.",
    )
    (found,) = find_disagreements(pages, "en")
    for claim in found.claims:
        claim.ev_id = f"ev-{claim.path[3]:0>12}"
    research = _research({}, "en", "Which value was assumed?")
    assert _subject(research, "en") == ""
    (line,) = _disagreement_lines(research, found, [], "harbour")
    assert line.startswith("- Sources give the date as 1874 [")
    research.plan.question = "How long is the causeway?"
    assert _subject(research, "en") == "causeway"


def test_a_value_whose_sentence_points_back_is_cited_with_the_sentence_it_points_to() -> None:
    """ "It runs 37 km" is quoted with the sentence naming what "it" is."""
    first = "The Mirren causeway is the oldest road across the marsh. It runs 37 km to Osk."
    other = "The Mirren causeway is 39 km long from end to end."
    [found] = find_disagreements(_stored(first, other))
    claim = next(c for c in found.claims if c.low == 37)
    assert first[claim.start : claim.end] == first
