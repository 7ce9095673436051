"""The extractive writer: from candidate evidence to a report that reads like one.

Given a draft whose sections hold candidate sentences (best first), :func:`shape` keeps
only full sentences, merges near-duplicates, takes the lead as the summary (and leaves
those sentences out of the sections), fits the whole to the length asked for — the
brief's "Length wanted: 2–3 pages", or 2–4 pages by default — giving every part at least
two sentences where it has them, and puts the sentences of a historical part in the
order of the dates they mention.
"""

from __future__ import annotations

import re

from subagents.relevance import Focus
from subagents.text import is_complete, plain

from .notes import Cite, Draft, Point, Section

#: Characters of body text (with the quotes and sources they bring) one PDF page holds.
CHARS_PER_PAGE = 3_800
#: Pages a report aims at when nothing is asked for (it must fit 2–4).
DEFAULT_PAGES = (2, 4)
#: Sentences a part keeps however short the report must be (when it has them).
MIN_PER_PART = 2
_PAGES = re.compile(
    r"(\d+)\s*(?:[-–—~到至]|to)\s*(\d+)\s*(?:pages?|页)|(\d+)\s*(?:pages?|页)", re.I
)
_YEAR = re.compile(r"\b(\d{1,4})\s*(BCE|BC)\b|\b(1\d{3}|20\d{2})\b|(\d{3,4})\s*年", re.I)


def pages_wanted(requirements: str) -> tuple[int, int]:
    """The page range the requirements ask for ("2–3 pages", "3 页"), else the default."""
    for line in requirements.splitlines():
        if not re.search(r"length|pages?|篇幅|页", line, re.I):
            continue
        match = _PAGES.search(line)
        if match and match.group(1):
            low, high = int(match.group(1)), int(match.group(2))
            return (min(low, high), max(low, high))
        if match and match.group(3):
            n = int(match.group(3))
            return (n, n)
    return DEFAULT_PAGES


def first_year(text: str) -> float | None:
    """The first year a sentence mentions (BCE as negative), or None."""
    match = _YEAR.search(text)
    if not match:
        return None
    if match.group(1):
        return -float(match.group(1))
    return float(match.group(3) or match.group(4))


def _cost(point: Point) -> int:
    """What a sentence costs on the page: itself, and its quote in the sources list."""
    return 2 * len(point.text) + 120


def _keys(point: Point) -> set[str]:
    return {c.key for c in point.cites()}


def _full(point: Point) -> bool:
    """Cited points must be full sentences; the Host's own statements stay as written."""
    return not point.cites() or is_complete(point.text)


def _near_repeat(point: Point, kept: list[Point]) -> bool:
    from rapidfuzz import fuzz

    text = plain(point.text).lower()
    return any(fuzz.token_set_ratio(text, plain(k.text).lower()) >= 88 for k in kept)


def chronological(points: list[Point]) -> list[Point]:
    """Dated sentences in the order of their first date; undated ones after, as ranked."""
    dated = [(first_year(p.text), i, p) for i, p in enumerate(points)]
    with_year = sorted((y, i, p) for y, i, p in dated if y is not None)
    return [p for _, _, p in with_year] + [p for y, _, p in dated if y is None]


def shape(draft: Draft, requirements: str, lang: str) -> Draft:
    """Fit a draft of candidate evidence to a report of the length asked for."""
    low, high = pages_wanted(requirements)
    budget = int((low + high) / 2 * CHARS_PER_PAGE)
    kept: list[Point] = []
    summary = [p for p in draft.lead if _full(p)][:6]
    kept.extend(summary)
    summary_keys = set().union(*(_keys(p) for p in summary)) if summary else set()
    parts = [s for s in draft.sections if s.kind == "part"]
    pools: dict[int, list[Point]] = {}
    for i, section in enumerate(parts):
        pool = []
        for point in section.points:
            if not _full(point) or (point.cites() and _keys(point) <= summary_keys):
                continue
            if _near_repeat(point, [*kept, *pool]):
                continue
            pool.append(point)
        pools[i] = pool
    spent = sum(_cost(p) for p in summary) + sum(
        300 + 60 * len(t.rows) for s in draft.sections for t in s.tables
    )
    chosen: dict[int, list[Point]] = {i: [] for i in pools}
    for rank in range(max((len(p) for p in pools.values()), default=0)):
        for i, pool in pools.items():
            if rank >= len(pool):
                continue
            cost = _cost(pool[rank])
            if rank >= MIN_PER_PART and spent + cost > budget:
                continue
            chosen[i].append(pool[rank])
            spent += cost
    for i, section in enumerate(parts):
        points = chosen[i]
        if points and Focus.build(section.heading).historical:
            points = chronological(points)
        section.points = points
    draft.lead = summary
    return draft


def uncited(point: Point) -> bool:
    return not any(isinstance(p, Cite) for p in point.parts)


__all__ = ["DEFAULT_PAGES", "Section", "chronological", "first_year", "pages_wanted", "shape"]
