"""A part no sentence read answers over the rules' threshold: its leads, the nearest
quotes it takes in, are what the learned models choose for it (see
:meth:`host.research.Research._unsure`)."""

from __future__ import annotations

import asyncio

import pytest

import host.research
from host.research import Judged, Research, judge
from research.document import Document
from research.explain import Explained, explained_text
from research.plan import offline_plan
from research.ranking import FEATURES
from research.relevance import THRESHOLD
from subagents.evidence import EvidenceLedger

QUESTION = "When was the Harrow Lighthouse built, and who lived in the cottages?"
TITLE = "Harrow Lighthouse — Coastal Heritage"
#: The tower's building is told in other words than the question's ("raised"), under the
#: rules' threshold.
HARROW = """# Harrow Lighthouse

The Harrow Lighthouse stands on a granite spur at the mouth of the Tamsel estuary. Its
lantern room was fitted with a Fresnel lens shipped from Paris. Keepers lived in two
cottages behind the tower until the light was automated. The tower was raised by the
engineer Edwin Marlowe between 1851 and 1854. A museum in the former oil store shows the
keepers' logbooks. Visitors reach the spur by a causeway at low tide.
"""
#: A page read later that says when the tower was built in the question's words.
BUILT = """# Building the Harrow Lighthouse

The Harrow Lighthouse was built between 1851 and 1854 to a design by Edwin Marlowe.
"""


def _read(service, *pages: tuple[str, str]) -> Research:
    research = Research(offline_plan(QUESTION), EvidenceLedger(), service, max_rounds=2)
    for n, (text, title) in enumerate(pages):
        research._score(f"/workspace/pages/{n}.md", text, f"http://127.0.0.1:9/{n}", title, "web")
    return research


def _spans(research: Research, sid: str) -> list[str]:
    ids = sorted(research.evidence[sid], key=lambda i: -research.evidence[sid][i])
    return [" ".join(research.ledger.get(i).span.split()) for i in ids]


def test_the_leads_of_a_part_under_the_threshold_are_what_the_learned_models_choose(
    memory_service,
):
    research = _read(memory_service, (HARROW, TITLE))
    chosen = research._choices()["q1"]
    kept = list(research.sentences["q1"].values())
    assert chosen and set(research.promoted["q1"]) == set(research.evidence["q1"])
    assert sorted(_spans(research, "q1")) == sorted(
        " ".join(kept[i]["span"].split()) for i in chosen
    )
    # each keeps its own score, under the threshold: the nearest quotes, not answers
    assert all(score < THRESHOLD for score in research.evidence["q1"].values())
    assert research.coverage("q1").strong == 0
    # the dated sentence is among the quotes the part's line is chosen from
    assert any("between 1851 and 1854" in s for s in _spans(research, "q1"))


def test_with_the_hand_set_tests_alone_the_part_takes_another_lead(memory_service, monkeypatch):
    monkeypatch.setattr(host.research, "UNSURE_MODEL", False)
    research = _read(memory_service, (HARROW, TITLE))
    assert research.sentences["q1"] == {}
    spans = _spans(research, "q1")
    assert spans and all(s < THRESHOLD for s in research.evidence["q1"].values())
    assert not any("1851" in s for s in spans)


def test_the_models_leads_give_way_to_a_page_that_answers_over_the_threshold(memory_service):
    research = _read(memory_service, (HARROW, TITLE), (BUILT, "Building the Harrow Lighthouse"))
    assert research.promoted.get("q1", []) == []
    assert all(score >= THRESHOLD for score in research.evidence["q1"].values())
    assert _spans(research, "q1")[0].startswith("The Harrow Lighthouse was built between 1851")
    # what it quoted before stays in the ledger, uncited
    assert len(research.ledger.items()) > sum(len(e) for e in research.evidence.values())


def test_the_models_leads_survive_a_checkpoint(memory_service):
    research = _read(memory_service, (HARROW, TITLE))
    state = research.state()
    again = Research(offline_plan(QUESTION), research.ledger, memory_service, max_rounds=2)
    asyncio.run(again.restore(state))
    assert again.promoted == research.promoted and again.evidence == research.evidence
    assert again.sentences == research.sentences


@pytest.mark.parametrize("unsure", [True, False])
def test_a_sources_judgement_keeps_its_sentences_by_the_sentence_model(monkeypatch, unsure):
    """What a part made of a source is kept with the prepared page (an earlier run's
    judgement is recalled): the sentences the learned models choose from go with it."""
    monkeypatch.setattr(host.research, "UNSURE_MODEL", unsure)
    plan = offline_plan(QUESTION)
    focus = plan.focus(plan.subquestions[0])
    doc = Document.of(HARROW, TITLE)
    judged = judge(focus, doc)
    assert bool(judged.weighed) is unsure
    assert Judged.from_dict(judged.to_dict()) == judged and judged.fits(len(doc.sentences))
    if unsure:
        texts = [doc.sentences[i].text for i, _, _ in judged.weighed]
        assert any("1851" in t for t in texts)
        assert all("paraphrase" in f and s < THRESHOLD for _, s, f in judged.weighed)


def test_explain_marks_the_leads_the_models_chose_for_a_part_under_the_threshold():
    def row(score: float, picked: bool) -> Explained:
        zero = dict.fromkeys(FEATURES, 0.0)
        return Explained("p", "A sentence.", score, 0.2, 0.8, picked, zero, zero)

    def ranks(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if ln.startswith("  ") and ln[2].isdigit()]

    under = explained_text("q1", [row(0.3, True), row(0.2, False)], THRESHOLD)
    assert "the learned models choose its leads" in under.splitlines()[0]
    marks = [ln.split(" · ")[0].split(" ", 4)[-1] for ln in ranks(under)]
    assert marks == ["lead", "not evidence"]
    over = explained_text("q1", [row(0.6, False), row(0.3, True)], THRESHOLD)
    assert "choose its leads" not in over
    marks = [ln.split(" · ")[0].split(" ", 4)[-1] for ln in ranks(over)]
    assert marks == ["evidence", "not evidence"]
