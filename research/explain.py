"""Why a sentence scored as it did: the top sentences of pages for a part, with every
feature the learned model weighed and what each added to the score's log-odds.

:func:`explain` ranks the sentences of some prepared pages for one part;
:func:`explained_text` lays them out for a terminal (``quartet explain RUN_ID``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .ranking import FEATURES, Features, model
from .relevance import LEARNED, THRESHOLD, Document, Focus, assessed


@dataclass(frozen=True)
class Explained:
    """One sentence's score for a part and what it is made of."""

    source: str
    text: str
    score: float
    #: what the learned model gives it (the same as ``score`` when the model scores)
    learned: float
    features: Features
    contributions: dict[str, float]


def explain(focus: Focus, pages: Sequence[tuple[str, Document]], limit: int = 5) -> list[Explained]:
    """The ``limit`` best sentences for ``focus`` over ``pages`` (``(name, document)``
    pairs), best first."""
    found = [
        Explained(
            name,
            scored.sentence.text,
            scored.score,
            model().score(scored.features),
            scored.features,
            model().contributions(scored.features),
        )
        for name, doc in pages
        for scored in assessed(focus, doc)[:limit]
    ]
    found.sort(key=lambda e: -e.score)
    return found[:limit]


def explained_text(part: str, found: Sequence[Explained]) -> str:
    """A part's explained sentences as lines of text: each sentence, its score (and
    whether it reaches the evidence threshold) and the learned model's, then every
    feature's value and the log-odds the model gives it."""
    scorer = "the learned model" if LEARNED else "the hand-set rules"
    lines = [f"{part}  (scored by {scorer}; evidence from {THRESHOLD:.3f})"]
    if not found:
        lines.append("  no sentence scored")
    for rank, e in enumerate(found, 1):
        mark = "evidence" if e.score >= THRESHOLD else "under the threshold"
        lines.append(f"  {rank}. {e.score:.3f} {mark} · model {e.learned:.3f} · {e.source}")
        lines.append(f"     {' '.join(e.text.split())[:200]}")
        cells = [
            f"{name}={e.features.get(name, 0.0):.2f}({e.contributions[name]:+.2f})"
            for name in FEATURES
        ]
        lines.extend("     " + " ".join(cells[i : i + 6]) for i in range(0, len(cells), 6))
    return "\n".join(lines)


__all__ = ["Explained", "explain", "explained_text"]
