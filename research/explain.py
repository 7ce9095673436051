"""Why a sentence scored as it did: the top sentences of pages for a part, with every
feature the learned model weighed and what each added to the score's log-odds.

:func:`explain` ranks the sentences of some prepared pages for one part;
:func:`explained_text` lays them out for a terminal (``quartet explain RUN_ID``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .document import Document
from .features import paraphrase_of
from .question import Focus
from .ranking import (
    CANDIDATES,
    FEATURES,
    PAGE_QUOTES,
    Features,
    Part,
    answer_model,
    answers,
    chosen,
    model,
    question_rows,
)
from .relevance import LEARNED, UNSURE_MODEL, Scored, assessed
from .retrieval import link_words, rankings_of, standings
from .text import script


@dataclass(frozen=True)
class Explained:
    """One sentence's score for a part and what it is made of."""

    source: str
    text: str
    #: its score as the run weighs it: under ``QUARTET_RANKER=learned`` the answer
    #: model's (0 for a sentence it does not weigh), else the hand-set rules'
    score: float
    #: what the sentence model gives it, its page standing among the pages read
    learned: float
    #: what the answer model gives it (that its page answers the part), for one of the
    #: part's best sentences (else None)
    answer: float | None
    #: whether it is the part's evidence by the learned models' choice (under the rules,
    #: of a part no sentence answers over the threshold)
    evidence: bool
    #: its own features and its page's standing among the pages read
    features: Features
    #: what each feature adds to the sentence model's log-odds
    contributions: dict[str, float]


def explain(
    parts: Mapping[str, Focus], part: str, pages: Sequence[tuple[str, Document]], limit: int = 5
) -> list[Explained]:
    """The ``limit`` best sentences for the part ``part`` of ``parts`` over ``pages``
    (``(name, document)`` pairs, a page's name its address, against which its links are
    read), best first by the sentence model, each page standing
    among ``pages`` as a run ranks them for every part (see
    :func:`research.retrieval.standing`), with what the answer model makes of the
    part's best, weighing what the question's other parts quote (see
    :func:`research.ranking.evidence`)."""
    counts = {n: d.counts for n, d in pages}
    rankings = rankings_of({k: f.words for k, f in parts.items()}, counts)
    asked = rankings_of({k: f.asked for k, f in parts.items()}, counts)
    linking = {name: link_words(doc.text, name) for name, doc in pages}
    addresses = {name: name for name, _ in pages}
    asked_terms = {k: f.asked for k, f in parts.items()}
    places = standings(rankings, asked, asked_terms, linking, addresses)
    read: dict[str, Part] = {}
    found: list[tuple[str, Scored]] = []
    for sid, focus in parts.items():
        # each sentence with its own page: two pages read may share a name
        mine = [
            (name, doc, scored)
            for name, doc in pages
            for scored in assessed(focus, doc)[: max(limit, CANDIDATES, PAGE_QUOTES)]
        ]
        sentences = [(name, s.sentence.text, _full(focus, doc, s)) for name, doc, s in mine]
        read[sid] = Part.of(sentences, places[sid], script(focus.text))
        if sid == part:
            found = [(name, s) for name, _, s in mine]
    rows = question_rows(read)[part]
    weighed = dict(answers(rows, read[part].texts, answer_model()))
    picked = chosen(read[part], rows, answer_model())
    out = [
        Explained(
            name,
            scored.sentence.text,
            weighed.get(i, 0.0) if LEARNED else scored.score,
            model().score(features),
            weighed.get(i),
            i in picked,
            features,
            model().contributions(features),
        )
        for i, ((name, scored), features) in enumerate(zip(found, rows, strict=True))
    ]
    out.sort(key=lambda e: -e.learned)
    return out[:limit]


def _full(focus: Focus, doc: Document, scored: Scored) -> Features:
    """A sentence's features with the paraphrase ones, which a run under the rules does
    not compute (see :func:`research.features.paraphrase_of`)."""
    if "paraphrase" in scored.features:
        return scored.features
    index = next(i for i, s in enumerate(doc.sentences) if s is scored.sentence)
    return scored.features | paraphrase_of(focus, doc, index)


def explained_text(part: str, found: Sequence[Explained], threshold: float) -> str:
    """A part's explained sentences as lines of text: each sentence, its score (and
    whether it is evidence: under the rules, whether it reaches ``threshold``, and when
    none does, whether the learned models choose it as a lead), what the sentence and
    answer models give it, then every feature's value and the log-odds the sentence
    model gives it."""
    scorer = "the learned model" if LEARNED else "the hand-set rules"
    # under the rules, the leads of a part no sentence answers over the threshold are
    # what the learned models choose (see research.relevance.UNSURE_MODEL)
    unsure = not LEARNED and UNSURE_MODEL and not any(e.score >= threshold for e in found)
    chooser = "; none reaches it: the learned models choose its leads" if unsure else ""
    lines = [f"{part}  (scored by {scorer}; evidence from {threshold:.3f}{chooser})"]
    if not found:
        lines.append("  no sentence scored")
    for rank, e in enumerate(found, 1):
        taken = e.evidence if LEARNED else e.score >= threshold
        mark = "evidence" if taken else "lead" if unsure and e.evidence else "not evidence"
        answer = "" if e.answer is None else f" · answer {e.answer:.3f}"
        lines.append(f"  {rank}. {e.score:.3f} {mark} · model {e.learned:.3f}{answer} · {e.source}")
        lines.append(f"     {' '.join(e.text.split())[:200]}")
        cells = [
            f"{name}={e.features.get(name, 0.0):.2f}({e.contributions[name]:+.2f})"
            for name in FEATURES
        ]
        lines.extend("     " + " ".join(cells[i : i + 6]) for i in range(0, len(cells), 6))
    return "\n".join(lines)


__all__ = ["Explained", "explain", "explained_text"]
