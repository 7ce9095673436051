"""Where a table's chart belongs: under the part of the question it answers, or apart.

A table is chosen for a part by how well its words meet the part (see
:mod:`research.tables`); a chart of it says one thing — a measure by a label ("depth by
well") — and is worth a place under a part only when that is what the part asks about.
:func:`chart_answers` says so when the question has no other part, when the part asks for
a quantity (how many, how long, what is the population of …:
:func:`research.answer.wanted` is ``"figure"``), or when what it asks about besides its
subject — a facet in its own word, an equivalent or a synonym, or the kind of thing it
asks for ("which *wells*") — is among the chart's words (its title, series, label column
and caption); a part that asks nothing beyond its subject ("What is X?") is answered by a
chart that names the subject. A chart of well depths answers "How deep are the wells?"
and "Which wells are deepest?", not "Who dug the wells?".
"""

from __future__ import annotations

from collections.abc import Sequence

from .answer import wanted
from .question import Facet, Focus
from .text import terms


def _named(facet: Facet, said: set[str]) -> bool:
    """Whether ``said`` (terms) names ``facet``: its word, an equivalent or a synonym."""
    return bool(({facet.term} | facet.equivalents | facet.synonyms) & said)


def chart_answers(part: str, shown: str, parts: Sequence[str] = (), question: str = "") -> bool:
    """Whether a chart showing ``shown`` answers ``part`` of a question.

    Args:
        part: the part (a sub-question, as its section's heading words it).
        shown: the chart's words: its title, series and label column names, and its
            table's caption.
        parts: every part of the question (``part`` among them), which set its facets
            apart from its subject.
        question: the whole question.

    Returns:
        True when the question has no other part, the part asks for a quantity, or it
        asks about something the chart's words name (its subject, for a part that asks
        nothing more).
    """
    if len(set(parts) - {part}) == 0:
        return True
    focus = Focus.build(part, list(parts), question)
    if wanted(focus) == "figure":
        return True
    said = set(terms(shown))
    if not focus.facets:  # "What is X?", "Where is X?": a chart of X itself
        return bool(set(focus.subject) & said)
    return bool(focus.kinds & said) or any(_named(facet, said) for facet in focus.facets)


__all__ = ["chart_answers"]
