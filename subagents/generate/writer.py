"""The extractive writer: from candidate evidence to a report that reads like one.

Given a draft whose sections hold candidate sentences (best first), :func:`shape` keeps
only full sentences, leaves out those that point back to what their source said before
them while a part has enough others (see :func:`research.facts.points_back`: "因此…", "…
built a dam across it", "From there …"), merges near-duplicates, takes the lead as the
summary (each part's answer line; the sections leave those sentences out), fits the
whole to the length asked for — the brief's "Length wanted: 2–3 pages", or 2–4 pages by
default — giving every part at least two sentences where it has them, and puts the
sentences of a historical part in the order of the dates they mention.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from research.facts import first_year, points_back
from research.question import Focus
from research.requirements import DEFAULT_PAGES, brief_requirements, pages_wanted, without_label
from research.selection import near_duplicate
from research.text import CJK_CLASS, is_complete, is_instruction, language

from .charts import chart_of
from .notes import Cite, Draft, Point, Section, Table

#: Characters of body text (with the quotes and sources they bring) one PDF page holds.
CHARS_PER_PAGE = 3400
#: A sentence's cost beyond its characters: bullet spacing, its number, its source's name.
SENTENCE_OVERHEAD = 110
#: Characters in one line of body text, the cost of a table row that does not wrap.
LINE_CHARS = 95
#: Characters of a table row's cells that fit on one printed line before it wraps.
TABLE_LINE = 70
#: A table's caption and the space around it.
TABLE_OVERHEAD = 250
#: A bar chart's height on the page, in characters of text it displaces.
CHART_COST = 1_400
#: The share of the length budget tables (with their charts) may take.
TABLE_SHARE = 0.35
#: Sentences a part keeps however short the report must be (when it has them).
MIN_PER_PART = 2
_CJK_RANGE = rf"\u3000-\u303f{CJK_CLASS}\uff00-\uffef"
_CJK = re.compile(f"[{_CJK_RANGE}]")
_CJK_GAP = re.compile(rf"(?<=[{_CJK_RANGE}])\s+(?=[{_CJK_RANGE}])")


def close_cjk_gaps(text: str) -> str:
    """``text`` without the spaces a line break left between Chinese characters."""
    return _CJK_GAP.sub("", text)


def _width(text: str) -> int:
    """Printed width of ``text`` in Latin characters: a Chinese character is two."""
    return len(text) + len(_CJK.findall(text))


def _tidy(point: Point) -> Point:
    point.parts = [close_cjk_gaps(p) if isinstance(p, str) else p for p in point.parts]
    return point


def _cost(point: Point) -> int:
    """What a sentence costs on the page: itself, and its quote in the sources list
    (cut at 300 characters there)."""
    width = _width(point.text)
    return width + min(width, 300) + SENTENCE_OVERHEAD


def table_cost(table: Table) -> int:
    """What a table costs on the page: its caption, its rows (a long row wraps), and its
    chart when it gets one."""
    rows = [table.header, *table.rows]
    lines = sum(max(1, math.ceil(sum(_width(c) for c in row) / TABLE_LINE)) for row in rows)
    return TABLE_OVERHEAD + LINE_CHARS * lines + (CHART_COST if chart_of(table) else 0)


def _full(point: Point) -> bool:
    """Cited points must be full sentences stating something (not instructions); the
    Host's own statements stay as written."""
    return not point.cites() or (is_complete(point.text) and not is_instruction(point.text))


def _same_cites(a: Point, b: Point) -> bool:
    return {c.key for c in a.cites()} == {c.key for c in b.cites()}


def _near_repeat(point: Point, kept: list[Point]) -> bool:
    return near_duplicate(point.text, [k.text for k in kept])


def chronological(points: list[Point]) -> list[Point]:
    """Dated sentences in the order of their first date; undated ones after, as ranked."""
    dated = [(first_year(p.text), i, p) for i, p in enumerate(points)]
    with_year = sorted((y, i, p) for y, i, p in dated if y is not None)
    return [p for _, _, p in with_year] + [p for y, _, p in dated if y is None]


def _fit_tables(draft: Draft, allowance: int) -> int:
    """Keep the tables that fit in ``allowance`` (those with a chart first, then in reading
    order; the first always stays) so that the prose has room; returns their cost."""
    tables = [(s, t, table_cost(t)) for s in draft.sections for t in s.tables]
    ranked = sorted(tables, key=lambda x: chart_of(x[1]) is None)
    spent = 0
    kept: list[Table] = []
    for _, table, cost in ranked:
        if not kept or spent + cost <= allowance:
            kept.append(table)
            spent += cost
    for section, table, _ in tables:
        if not any(table is k for k in kept):
            section.tables.remove(table)
    return spent


def _cost_of_lists(draft: Draft, requirements: str) -> int:
    """What the report's own lists cost on the page: the sections on disagreements and
    limits, and the brief's requirements with their verdicts (see
    :func:`subagents.generate.report.brief_section`)."""
    listed = [p.text for s in draft.sections if s.kind != "part" for p in s.points]
    listed += [f"{without_label(r)} — partly covered" for r in brief_requirements(requirements)]
    return sum(_width(text) for text in listed)


def diversified(
    points: list[Point], source_of: Callable[[str], str], given: list[Point] = ()
) -> list[Point]:
    """The points with the first ones (up to ``MIN_PER_PART`` with the part's lines
    ``given`` elsewhere, its summary line) from different sources where the candidates
    allow it, the rest in their order: a short part still cites two sources."""
    first: list[Point] = []
    seen = {source_of(c.key) for p in given for c in p.cites()}
    for point in points:
        where = {source_of(c.key) for c in point.cites()}
        if len(first) + len(given) < MIN_PER_PART and not where & seen:
            first.append(point)
            seen |= where
    return first + [p for p in points if p not in first]


def shape(
    draft: Draft, requirements: str, lang: str, source_of: Callable[[str], str] = str
) -> Draft:
    """Fit a draft of candidate evidence to a report of the length asked for;
    ``source_of`` names the source of an evidence id (to cite several in a short part)."""
    low, high = pages_wanted(requirements)
    budget = int((low + high) / 2 * CHARS_PER_PAGE)
    summary = [_tidy(p) for p in draft.lead if _full(p)][:6]
    parts = [s for s in draft.sections if s.kind == "part"]
    pools: dict[int, list[Point]] = {}
    # The summary gives each part's answer line; a part's section does not repeat it.
    # When that line is all the section has, the section gives it instead (a part is
    # never left without its section, and no line is shown twice).
    leads: dict[int, list[Point]] = {}
    for i, section in enumerate(parts):
        pool = []
        for point in section.points:
            if not _full(point):
                continue
            said = next((p for p in summary if p.cites() and _same_cites(p, point)), None)
            said = said or next((p for p in summary if _near_repeat(point, [p])), None)
            if said is not None:
                leads.setdefault(i, []).append(said)
                continue
            if _near_repeat(point, pool):
                continue
            pool.append(_tidy(point))
        # A sentence in another language than the report's is kept only when the part
        # would otherwise have too little to say.
        own = [p for p in pool if not p.cites() or language(p.text) == lang]
        candidates = own if len(own) >= MIN_PER_PART else pool
        # A sentence that points back to the one before it in its source ("因此…",
        # "These …", "After the closure it grew …", "… built a weir across it", "From there
        # …") and does not quote it would follow a sentence from elsewhere here: it is left
        # out while the part has enough others, unless it is the part's best answer (the
        # first candidate), which no other stands in for.
        alone = [
            p
            for rank, p in enumerate(candidates)
            if rank == 0 or not p.cites() or not points_back(p.text)
        ]
        candidates = alone if len(alone) >= MIN_PER_PART else candidates
        pools[i] = diversified(candidates, source_of, leads.get(i, [])[:1])
    spent = sum(_cost(p) for p in summary) + _fit_tables(draft, int(budget * TABLE_SHARE))
    spent += _cost_of_lists(draft, requirements)
    chosen: dict[int, list[Point]] = {i: [] for i in pools}
    for rank in range(max((len(p) for p in pools.values()), default=0)):
        for i, pool in pools.items():
            if rank >= len(pool):
                continue
            cost = _cost(pool[rank])
            # the part's line in the summary is one of the lines it keeps
            least = MIN_PER_PART - (1 if leads.get(i) else 0)
            if rank >= least and spent + cost > budget:
                continue
            chosen[i].append(pool[rank])
            spent += cost
    for i, section in enumerate(parts):
        points = chosen[i]
        if not points and not section.tables and leads.get(i):
            # all the section has is its summary line: it is given here, not twice
            points = leads[i][:1]
            summary = [p for p in summary if p is not points[0]]
        if points and Focus.build(section.heading).historical:
            points = chronological(points)
        section.points = points
    draft.lead = summary
    return draft


def uncited(point: Point) -> bool:
    return not any(isinstance(p, Cite) for p in point.parts)


__all__ = [
    "DEFAULT_PAGES",
    "Section",
    "chronological",
    "pages_wanted",
    "shape",
]
