"""Why a sentence scored as it did: the top sentences of pages for a part, with every
feature the learned model weighed and what each added to the score's log-odds.

:func:`explain` ranks the sentences of some prepared pages for one part;
:func:`explained_text` lays them out for a terminal (``quartet explain RUN_ID``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .ranking import FEATURES, Features, model
from .relevance import ALONE, LEARNED, Document, Focus, assessed
from .retrieval import rankings_of, standing


@dataclass(frozen=True)
class Explained:
    """One sentence's score for a part and what it is made of."""

    source: str
    text: str
    #: its score as the run weighs it: the learned model's (``learned``) under
    #: ``QUARTET_RANKER=learned``, else the hand-set rules'
    score: float
    #: what the learned model gives it, its page standing among the pages read
    learned: float
    #: its own features and its page's standing among the pages read
    features: Features
    contributions: dict[str, float]


def explain(
    parts: Mapping[str, Focus], part: str, pages: Sequence[tuple[str, Document]], limit: int = 5
) -> list[Explained]:
    """The ``limit`` best sentences for the part ``part`` of ``parts`` over ``pages``
    (``(name, document)`` pairs), best first, each page standing among ``pages`` as a
    run ranks them for every part (see :func:`research.retrieval.standing`)."""
    rankings = rankings_of({k: f.words for k, f in parts.items()}, {n: d.counts for n, d in pages})
    stand = standing(rankings, part)
    found = []
    for name, doc in pages:
        for scored in assessed(parts[part], doc)[:limit]:
            features = scored.features | stand.get(name, ALONE)
            learned = model().score(features)
            found.append(
                Explained(
                    name,
                    scored.sentence.text,
                    learned if LEARNED else scored.score,
                    learned,
                    features,
                    model().contributions(features),
                )
            )
    found.sort(key=lambda e: -e.score)
    return found[:limit]


def explained_text(part: str, found: Sequence[Explained], threshold: float) -> str:
    """A part's explained sentences as lines of text: each sentence, its score (and
    whether it reaches ``threshold``, the part's evidence threshold: see
    :func:`~research.relevance.evidence_threshold`), then every feature's value and the
    log-odds the model gives it."""
    scorer = "the learned model" if LEARNED else "the hand-set rules"
    lines = [f"{part}  (scored by {scorer}; evidence from {threshold:.3f})"]
    if not found:
        lines.append("  no sentence scored")
    for rank, e in enumerate(found, 1):
        mark = "evidence" if e.score >= threshold else "under the threshold"
        lines.append(f"  {rank}. {e.score:.3f} {mark} · model {e.learned:.3f} · {e.source}")
        lines.append(f"     {' '.join(e.text.split())[:200]}")
        cells = [
            f"{name}={e.features.get(name, 0.0):.2f}({e.contributions[name]:+.2f})"
            for name in FEATURES
        ]
        lines.extend("     " + " ".join(cells[i : i + 6]) for i in range(0, len(cells), 6))
    return "\n".join(lines)


__all__ = ["Explained", "explain", "explained_text"]
