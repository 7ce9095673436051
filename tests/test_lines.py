"""A part's answer line: the likelihood the Host keeps for each piece of evidence, the
candidates the writer offers the line's chooser, and the committed line model."""

from __future__ import annotations

import asyncio
import json

import pytest

from host.research import Research
from research.answer import asks_name
from research.lines import (
    LINE_FEATURES,
    LINE_PATH,
    asks_span,
    best_line,
    hand_set_line,
    line_features,
    line_model,
    line_pool,
    summary_choice,
)
from research.notes import summary_lines
from research.plan import offline_plan
from research.question import Focus
from research.selection import Quote
from subagents.evidence import EvidenceLedger

QUESTION = "When did the Harlow ferry first cross the Sallow estuary, and what did it carry?"
FERRY = """# The Harlow ferry

The Harlow ferry is a chain ferry on the Sallow estuary. The Harlow ferry first crossed the
Sallow estuary in 1884, pulled along two iron chains by a steam engine. It carried carts,
cattle and up to sixty passengers on each crossing. The landing stages were rebuilt in
1931.
"""
FERRY_TITLE = "The Harlow ferry — Sallow estuary crossings"


def _research(memory_service) -> Research:
    research = Research(offline_plan(QUESTION), EvidenceLedger(), memory_service, max_rounds=2)
    research._score("/workspace/pages/f.md", FERRY, "http://127.0.0.1:9/f", FERRY_TITLE, "web")
    return research


def test_each_piece_of_evidence_has_the_likelihood_it_holds_its_parts_answer(memory_service):
    research = _research(memory_service)
    assert any(research.evidence.values())
    for sid, ids in research.evidence.items():
        assert set(ids) == set(research.likelihood[sid])
        assert all(0.0 < research.likelihood[sid][i] < 1.0 for i in ids)


def test_a_checkpoint_keeps_the_likelihoods(memory_service):
    research = _research(memory_service)
    state = json.loads(json.dumps(research.state()))
    again = Research(offline_plan(QUESTION), EvidenceLedger(), memory_service, max_rounds=2)
    asyncio.run(again.restore(state))
    assert again.likelihood == research.likelihood


def test_the_writer_offers_each_answered_part_its_sections_quotes(memory_service):
    """The seam the training script records through: one call per answered part, with
    the ids its section quotes; the line a chooser returns is the part's summary line."""
    research = _research(memory_service)
    offered: dict[str, list[str]] = {}

    def first(findings, sub_id: str, ids: list[str]) -> str | None:
        offered[sub_id] = list(ids)
        return ids[0] if ids else None

    lines = summary_lines(research, choose=first)
    answered = [sid for sid, ids in research.evidence.items() if ids]
    assert set(offered) == set(answered)
    for sid, ids in offered.items():
        assert set(ids) <= set(research.evidence[sid])
    assert {sid for parts in lines.values() for sid in parts} == set(answered)
    assert set(lines) == {ids[0] for ids in offered.values()}


def test_the_committed_line_model_reads_the_features_the_code_gives():
    raw = json.loads(LINE_PATH.read_text(encoding="utf-8"))
    assert tuple(raw["features"]) == LINE_FEATURES
    assert raw["trees"], "the line model has no trees: run scripts/train_lines.py"
    assert raw["training"]["data"] and raw["figures"]["parts"] > 0
    focus = Focus.build("What did the Harlow ferry carry?")
    quotes = [
        (Quote("a", "http://a.test", "The Harlow ferry carried carts and cattle."), 0.7),
        (Quote("b", "http://b.test", "The landing stages were rebuilt in 1931."), 0.6),
    ]
    rows = line_features(focus, quotes, {"a": 0.4, "b": 0.1})
    assert [set(row) for row in rows] == [set(LINE_FEATURES)] * 2
    assert best_line(line_model(), rows, [0, 1]) in (0, 1)


def test_a_line_is_never_a_quote_that_cannot_stand_alone_while_another_can():
    focus = Focus.build("What did the Harlow ferry carry?")
    quotes = [
        (Quote("a", "http://a.test", "It carried carts, cattle and sixty passengers."), 0.9),
        (Quote("b", "http://b.test", "The Harlow ferry carried carts across the Sallow."), 0.5),
    ]
    assert line_pool(focus, quotes, "en") == [1]
    assert summary_choice(focus, quotes, "en", {"a": 0.9, "b": 0.1}) == "b"


def test_a_how_asked_of_the_past_is_answered_by_an_event():
    """ "How was it built?" is answered by its events, dates and names: of two quotes
    scored alike, the line is the one stating a dated event, not a description of what
    the thing is now."""
    focus = Focus.build("How was the Harlow canal built?")
    assert focus.kind == "how" and focus.historical
    quotes = [
        (
            Quote(
                "a",
                "http://a.test",
                "The Harlow canal runs for about 40 km from the harbour to the lake.",
            ),
            0.7,
        ),
        (
            Quote(
                "b",
                "http://b.test",
                "Between 1791 and 1796 gangs of navvies dug the Harlow canal by hand.",
            ),
            0.65,
        ),
    ]
    assert summary_choice(focus, quotes, "en") == "b"


def test_a_why_parts_line_is_the_hand_set_weighings_which_counts_a_stated_cause(monkeypatch):
    """A part asking why is answered by a sentence that explains, which the line model's
    training questions (each answered by a span) do not teach: its line is the hand-set
    weighing's, which counts a stated cause, not the model's. Among the candidates the
    model is fitted on, a *why* part's are only those stating a cause."""
    focus = Focus.build("Why did the Harlow ferry stop running?")
    assert not asks_span(focus)
    quotes = [
        (Quote("a", "http://a.test", "The Harlow ferry stopped running in 1956."), 0.6),
        (
            Quote(
                "b",
                "http://b.test",
                "The Harlow ferry stopped because a road bridge opened upstream in 1956.",
            ),
            0.6,
        ),
    ]
    assert line_pool(focus, quotes, "en") == [1]
    monkeypatch.setattr(
        "research.lines.best_line", lambda *a: pytest.fail("the model chose a why part's line")
    )
    assert summary_choice(focus, quotes, "en", {"a": 0.9, "b": 0.1}) == "b"


def test_a_part_asking_for_a_span_has_its_line_chosen_by_the_line_model(monkeypatch):
    """A part asking for a date, a figure, a person or a place: its line is the one the
    line model scores highest among those a line may be, whatever the hand-set weighing
    would take; with ``QUARTET_LINES=rules`` the hand-set weighing's."""
    focus = Focus.build("Who built the Harlow ferry?")
    assert asks_span(focus)
    quotes = [
        (Quote("a", "http://a.test", "The Harlow ferry was built by Joseph Marsh in 1884."), 0.5),
        (Quote("b", "http://b.test", "The Harlow ferry is a chain ferry on the Sallow."), 0.9),
    ]
    pool = line_pool(focus, quotes, "en")
    rows = line_features(focus, quotes, {"a": 0.2, "b": 0.2})
    picked = {"a": 0, "b": 1}
    for wanted in ("a", "b"):
        monkeypatch.setattr("research.lines.best_line", lambda j, r, p, w=wanted: picked[w])
        assert summary_choice(focus, quotes, "en", {"a": 0.2, "b": 0.2}) == wanted
    monkeypatch.undo()
    chosen = summary_choice(focus, quotes, "en", {"a": 0.2, "b": 0.2})
    assert chosen == quotes[best_line(line_model(), rows, pool)][0].key
    monkeypatch.setattr("research.lines.LINES_LEARNED", False)
    hand_set = summary_choice(focus, quotes, "en", {"a": 0.2, "b": 0.2})
    monkeypatch.setattr("research.lines.best_line", lambda *a: pytest.fail("model consulted"))
    assert summary_choice(focus, quotes, "en", {"a": 0.2, "b": 0.2}) == hand_set


def test_a_figure_only_a_pages_standing_makes_evidence_is_not_a_parts_line(monkeypatch):
    """A page that answers one part lends every part its best sentences. A part asking
    how many is answered by a sentence without a digit ("many times"); a weak sentence
    of the same page that gives a number must not become its line for giving the kind of
    answer asked, by the hand-set weighing: under the learned core by the sentence
    model's own probability, under the rules by the sentence's score. The line model
    reads it as a feature."""
    focus = Focus.build("How many times did the Harlow ferry cross the Sallow each day?")
    monkeypatch.setattr("research.lines.LINES_LEARNED", False)  # the hand-set weighing
    quotes = [
        (
            Quote(
                "a",
                "http://a.test",
                "The Harlow ferry crossed the Sallow many times each day, from dawn to dusk.",
            ),
            0.9,
        ),
        (Quote("b", "http://a.test", "The landing stages were rebuilt in 1931 for 40 carts."), 0.2),
    ]
    assert summary_choice(focus, quotes, "en") == "a"
    monkeypatch.setattr("research.lines.LEARNED", True)
    scored_alike = [(quote, 0.9) for quote, _ in quotes]
    assert summary_choice(focus, scored_alike, "en", {"a": 0.8, "b": 0.05}) == "a"
    assert summary_choice(focus, scored_alike, "en", {"a": 0.05, "b": 0.05}) == "b"
    rows = line_features(focus, scored_alike, {"a": 0.8, "b": 0.05})
    assert [row["on_its_own"] for row in rows] == [1.0, 0.0]
    monkeypatch.setattr("research.lines.LINES_LEARNED", True)  # the line model weighs it
    assert summary_choice(focus, scored_alike, "en", {"a": 0.8, "b": 0.05}) == "a"


def test_a_quote_under_the_threshold_may_be_a_span_parts_line_when_the_model_ranks_it_first():
    """The line model weighs whether a candidate is evidence by itself, as it weighs the
    kind of answer given: a dated sentence whose relevance alone stays under the
    threshold (it says "first carried passengers", not "open") stays among the
    candidates it may choose, beside a strong one that gives no date, and it takes the
    dated one the sentence model finds likelier. The hand-set weighing requires
    evidence by itself first."""
    focus = Focus.build("When did the Harlow ferry open?")
    quotes = [
        (
            Quote(
                "a",
                "http://a.test",
                "The Harlow ferry is a chain ferry on the Sallow, run by the county council.",
            ),
            0.8,
        ),
        (
            Quote(
                "b",
                "http://b.test",
                "The Harlow ferry first carried passengers across the Sallow in May 1884.",
            ),
            0.35,
        ),
    ]
    likely = {"a": 0.3, "b": 0.6}
    assert line_pool(focus, quotes, "en", likely) == [0, 1]
    assert summary_choice(focus, quotes, "en", likely) == "b"
    assert hand_set_line(focus, quotes, "en", likely) == 0


def test_a_part_asking_what_a_thing_is_called_takes_the_line_the_line_model_ranks_first():
    """A part asking what a thing is called is answered by a name, a span of a sentence,
    as a part asking who or where is: the line model chooses its line, weighing the
    sentence model's likelihood, where the hand-set weighing takes the quote it scores
    higher, which names the thing but not what it is called. A part asking what a thing
    is used for stays with the hand-set weighing."""
    quotes = [
        (
            Quote(
                "a",
                "http://a.test",
                "The Harlow ferry's chain runs in a long groove cut across the river bed.",
            ),
            0.8,
        ),
        (
            Quote(
                "b",
                "http://a.test",
                "The groove under the Harlow ferry is called the slack trench by its crews.",
            ),
            0.5,
        ),
    ]
    likely = {"a": 0.1, "b": 0.8}
    focus = Focus.build("What is the groove under the Harlow ferry called?")
    assert asks_name(focus)
    assert hand_set_line(focus, quotes, "en", likely) == 0
    assert summary_choice(focus, quotes, "en", likely) == "b"
    used = Focus.build("What is the groove under the Harlow ferry used for?")
    assert not asks_name(used)
    assert summary_choice(used, quotes, "en", likely) == "a"
