"""The paraphrase feature: what a part asks beyond its subject, and how close a page's
sentences come to it by word embeddings (WordLlama, read from inside its wheel)."""

from __future__ import annotations

from research.document import Document
from research.features import features_of
from research.paraphrase import asked, similarities
from research.plan import offline_plan

TOWER = """# The Corvale tower

The Corvale tower was painted blue in 1950.
Its roof stands 312 metres above the street.
Visitors buy their tickets at the gate.
"""

VOLCANO = """# Mount Ambry

Mount Ambry is a stratovolcano above the town of Halden.
Its most recent eruption came in 1821 and buried two farms.
Hikers climb it in summer along a marked path.
"""


def _focus(question: str):
    plan = offline_plan(question)
    return plan.focus(plan.subquestions[0])


def test_what_a_part_asks_leaves_out_its_subject_and_function_words():
    assert asked("How tall is Mount Ambry?", ("mount", "ambri")) == "tall"
    assert asked("美联储如何设定利率？", ("联储", "美联储")) == "设定利率"
    # nothing but the subject: the question is embedded as it is
    assert asked("Mount Ambry?", ("mount", "ambri")) == "Mount Ambry?"


def test_a_sentence_saying_what_is_asked_in_other_words_comes_closest():
    """Neither answer shares a word with its question beyond the subject ("most recent
    eruption" for "last erupt"): the embedding still puts it above the sentences that say
    something else about the same thing."""
    for question, page, answer in (
        ("When did Mount Ambry last erupt?", VOLCANO, "most recent eruption"),
        ("How high is the Corvale tower's roof above the street?", TOWER, "312 metres"),
    ):
        focus = _focus(question)
        doc = Document.of(page, page.splitlines()[0][2:])
        sims, best = similarities(focus, doc)
        assert len(sims) == len(doc.sentences) and best == max(sims)
        by_text = dict(zip((s.text for s in doc.sentences), sims, strict=True))
        hit = next(v for t, v in by_text.items() if answer in t)
        hikers = next(v for t, v in by_text.items() if "Hikers" in t or "Visitors" in t)
        assert hit > hikers


def test_the_features_carry_the_closeness_and_its_gap_to_the_pages_closest():
    focus = _focus("When did Mount Ambry last erupt?")
    doc = Document.of(VOLCANO, "Mount Ambry")
    sims, best = similarities(focus, doc)
    for i in range(len(doc.sentences)):
        feats = features_of(focus, doc, i)
        assert feats["paraphrase"] == sims[i]
        assert feats["paraphrase_gap"] == sims[i] - best <= 0.0


def test_loading_the_embeddings_leaves_the_root_logger_as_it_was():
    """wordllama configures logging when imported; a run must not start printing every
    HTTP request at INFO because of it."""
    import logging
    import subprocess
    import sys

    code = (
        "import logging; from research.paraphrase import _model; _model(); "
        "root = logging.getLogger(); print(len(root.handlers), root.level)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    ).stdout.split()
    assert out == ["0", str(logging.WARNING)]
