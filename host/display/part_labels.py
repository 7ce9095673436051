"""A short label for each part of a plan: what tells it apart from the other parts.

The parts of one question mostly share their words ("How was China's Beijing-Hangzhou
Grand Canal built?", "… kept supplied with water?"): cut to the width of a terminal's
row, they all read alike. A part's label is made of its own words that the others do not
share, in the order and the form the part writes them: the words of its facets (what it
asks about beyond the question's subject, see :class:`research.question.Focus`), else
its content words no other part has. Words written close together are shown as the part
writes them ("supplied with water"), others one after the other.

Nothing here depends on the language: the words, their stems and the facets are the
research's, which reads every language it can (Chinese: "修建", "水源"). A part with
nothing of its own, or whose label another part has too, has none (the row then shows
the part's text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from research.text import stem, terms, words

#: The most characters a label has.
LABEL_CHARS = 30
#: Words between two of a label's words that are still shown as the part writes them.
GAP_WORDS = 2


def part_labels(plan: Any) -> dict[str, str]:
    """Each part's label by its id (see the module's docstring); a part without one is
    left out.

    Args:
        plan: the run's plan (a :class:`research.plan.Plan`).
    """
    subs = list(plan.subquestions)
    if len(subs) < 2:
        return {}
    found = {sub.id: _label(sub.text, _telling(plan, sub, subs)) for sub in subs}
    seen = [label.casefold() for label in found.values()]
    return {k: v for k, v in found.items() if v and seen.count(v.casefold()) == 1}


def _telling(plan: Any, sub: Any, subs: Sequence[Any]) -> set[str]:
    """The stems that tell ``sub`` apart: those of its facets that no other part has,
    else of its content words that no other part has, else of any of its words."""
    others = {t for s in subs if s is not sub for t in terms(s.text)}
    said = {stem(w) for s in subs if s is not sub for w in words(s.text)}
    facets = {f.term for f in plan.focus(sub).facets}
    mine = {stem(w) for w in words(sub.text)}
    return (facets - others) or (set(terms(sub.text)) - others) or (mine - said)


def _label(text: str, telling: set[str]) -> str:
    """The words of ``text`` whose stem is ``telling``, as the text writes them: one
    stretch of it when they stand close together, else one after the other."""
    lowered = text.lower().replace("’", "'")
    spans: list[tuple[int, int]] = []
    cursor = 0
    for word in words(text):
        at = lowered.find(word, cursor)
        if at < 0:
            continue
        cursor = at + len(word)
        if stem(word) in telling or any(stem(p) in telling for p in word.split("-")):
            spans.append((at, cursor))
    if not spans:
        return ""
    stretch = text[spans[0][0] : spans[-1][1]]
    close = len(words(stretch)) <= len(spans) + GAP_WORDS and len(stretch) <= LABEL_CHARS
    label = stretch if close else " ".join(text[a:b] for a, b in spans)
    return _short(" ".join(label.split()))


def _short(label: str) -> str:
    """``label`` in at most :data:`LABEL_CHARS` characters, cut at a space when it can."""
    if len(label) <= LABEL_CHARS:
        return label
    head = label[: LABEL_CHARS - 1]
    space = head.rfind(" ")
    return (head[:space] if space > LABEL_CHARS // 2 else head).rstrip(" ,;:") + "…"
