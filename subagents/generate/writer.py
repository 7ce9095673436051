"""The extractive writer: from candidate evidence to a report that reads like one.

Given a draft whose sections hold candidate sentences (best first), :func:`shape` keeps
only full sentences, leaves out those that point back to what their source said before
them, or send their reader elsewhere in brackets ("(see …)"), while a part has enough
others (see :func:`research.facts.points_back`: "因此…", "… built a dam across it",
"From there …"), merges near-duplicates, takes the lead as the
summary (each part's answer line; the sections leave those sentences out), fits the
whole to the length asked for — the brief's "Length wanted: 2–3 pages", or 2–4 pages by
default — giving every part at least two sentences where it has them, and puts the
sentences of a historical part in the order of the dates they mention. It aims at the
middle of the range; a part's first :data:`ANSWER_ROOM` lines and the sections the brief
asks for may take the report to the most the range allows. Tables are costed as they
print (see :func:`table_cost`); one the length cannot hold whole keeps the columns that
fit a line (see :func:`narrowed`).

It follows the brief where the evidence allows: a section the brief asks for keeps its
table (or, with no room for it, the table's column on its topic as one line) after the
parts' least lines and before their further ones (see :func:`_fit_asked`), and a
candidate that gives a topic the brief asks for and the report would not say otherwise
is the next line of its part (see :func:`_asked_first`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from research.facts import first_year, points_back
from research.question import Focus, entity
from research.requirements import (
    DEFAULT_PAGES,
    TOPIC,
    ReportView,
    brief_requirements,
    covers,
    names_section,
    pages_wanted,
    read_requirement,
    same_language,
    section_topics,
    without_label,
)
from research.selection import near_duplicate
from research.text import (
    CJK_TEXT,
    CJK_TEXT_CLASS,
    is_complete,
    is_instruction,
    language,
    points_elsewhere,
    terms,
)
from research.topics import is_topic_heading

from .brief import brief_verdicts, limits_lines, verdict_lines
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
#: Characters of 9-point table text across the printed page, shared by the columns.
TABLE_WIDTH = 100
#: What one printed line of a table row costs, and a row's padding, in characters of
#: body text (measured on weasyprint's A4 layout: 17.4 px a table line, 7 px padding,
#: 20.3 px a line of body text holding LINE_CHARS).
TABLE_ROW_LINE = 81
TABLE_ROW_PAD = 34
#: A table's caption, its hint and the space around it.
TABLE_OVERHEAD = 500
#: A bar chart's height on the page, in characters of text it displaces.
CHART_COST = 1_400
#: The share of the length budget tables (with their charts) may take.
TABLE_SHARE = 0.35
#: Sentences a part keeps however short the report must be (when it has them).
MIN_PER_PART = 2
#: Section lines a part may take up to the most the length allows (the brief's "2–3
#: pages" gives three): its answer comes before the middle of the range is kept to.
ANSWER_ROOM = 3
_CJK_GAP = re.compile(rf"(?<=[{CJK_TEXT_CLASS}])\s+(?=[{CJK_TEXT_CLASS}])")


def close_cjk_gaps(text: str) -> str:
    """``text`` without the spaces a line break left between Chinese characters."""
    return _CJK_GAP.sub("", text)


def _width(text: str) -> int:
    """Printed width of ``text`` in Latin characters: a Chinese character is two."""
    return len(text) + len(CJK_TEXT.findall(text))


def _printed(line: str) -> int:
    """What a line of a list costs on the page: the printed lines it fills, whole."""
    return math.ceil(_width(line) / LINE_CHARS) * LINE_CHARS


def _tidy(point: Point) -> Point:
    point.parts = [close_cjk_gaps(p) if isinstance(p, str) else p for p in point.parts]
    return point


def _cost(point: Point) -> int:
    """What a sentence costs on the page: itself, and its quote in the sources list
    (cut at 300 characters there)."""
    width = _width(point.text)
    return width + min(width, 300) + SENTENCE_OVERHEAD


def column_widths(rows: list[list[str]], width: int = TABLE_WIDTH) -> list[int]:
    """The printed width each column gets when its cells share ``width``: a column
    whose longest cell fits its fair share keeps that width, and the wider columns
    share what the others leave, evenly (as a browser lays out a table of long notes
    beside short names)."""
    count = max((len(r) for r in rows), default=0)
    longest = [max((_width(r[j]) for r in rows if j < len(r)), default=0) for j in range(count)]
    widths = [0] * count
    left, open_ = width, sorted(range(count), key=lambda j: longest[j])
    while open_:
        share = left / len(open_)
        j = open_[0]
        if longest[j] > share:
            for k in open_:
                widths[k] = max(1, int(share))
            break
        widths[j] = max(1, longest[j])
        left -= longest[j]
        open_ = open_[1:]
    return widths


def table_cost(table: Table) -> int:
    """What a table costs on the page: its caption and notes, its rows (a row is as tall
    as its most wrapped cell in the column widths of :func:`column_widths`), and its chart
    when it gets one."""
    widths = column_widths(table.rows or [table.header])
    height = 0
    for row in [table.header, *table.rows]:
        lines = max(
            (math.ceil(_width(c) / w) for c, w in zip(row, widths, strict=False) if c),
            default=1,
        )
        height += TABLE_ROW_LINE * max(1, lines) + TABLE_ROW_PAD
    notes = sum(_printed(n) for n in table.notes)
    return TABLE_OVERHEAD + height + notes + (CHART_COST if chart_of(table) else 0)


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


def narrowed(table: Table) -> Table:
    """A table cut to its first columns that fit one printed line (two at least), so
    that each row takes one line: its other columns are left out, its rows kept whole."""
    rows = [table.header, *table.rows]
    keep = len(table.header)
    while keep > 2 and max(sum(_width(c) for c in row[:keep]) for row in rows) > TABLE_LINE:
        keep -= 1
    if keep == len(table.header):
        return table
    return replace(table, header=table.header[:keep], rows=[r[:keep] for r in table.rows])


def topic_column(table: Table, topic: str, lang: str) -> Point:
    """A table given as one line, for a section on ``topic`` with no room for the table
    itself: the name and values of the column that names the topic (else the first),
    with the table's citation ("Town: Ardon, Belis and Corra.")."""
    named = [j for j, cell in enumerate(table.header) if names_section(cell, topic)]
    j = named[0] if named else 0
    values = [row[j] for row in table.rows if len(row) > j and row[j].strip()]
    if lang == "zh":
        text = f"{table.header[j]}：{'、'.join(values)}。"
    else:
        listed = ", ".join(values[:-1]) + f" and {values[-1]}" if len(values) > 1 else values[0]
        text = f"{table.header[j]}: {listed}."
    return Point([text, *table.caption.cites()], bullet=True)


def _fit_tables(draft: Draft, allowance: int, asked: frozenset[str] = frozenset()) -> int:
    """Keep the tables that fit in ``allowance`` (those with a chart first, then in reading
    order; the first always stays), each whole or else cut to the columns that fit a line
    (see :func:`narrowed`), so that the prose has room; returns their cost. The tables of
    the sections the brief asks for (headed in ``asked``) are left to :func:`_fit_asked`."""
    tables = [(s, t) for s in draft.sections if s.heading not in asked for t in s.tables]
    ranked = sorted(tables, key=lambda x: chart_of(x[1]) is None)
    spent = 0
    kept: dict[int, Table] = {}
    for _, table in ranked:
        shapes = (table, narrowed(table))
        for n, shown in enumerate(shapes):
            cost = table_cost(shown)
            if spent + cost <= allowance or (not kept and n == len(shapes) - 1):
                kept[id(table)] = shown
                spent += cost
                break
    for section, table in tables:
        index = section.tables.index(table)
        if id(table) in kept:
            section.tables[index] = kept[id(table)]
        else:
            del section.tables[index]
    return spent


def _fit_asked(
    draft: Draft, asked: frozenset[str], room: int, tables_room: int, lang: str
) -> tuple[int, list[tuple[Section, Point]]]:
    """Give each section the brief asks for (headed in ``asked``) what the length leaves
    ``room`` for once every part has its least lines: its table cut to the columns that
    fit a line (see :func:`narrowed`) while the tables' share leaves ``tables_room``,
    else the table's column on its topic as one line (see :func:`topic_column`), else
    nothing (the section is left out, and the report's brief section says so).

    Returns:
        What they cost, and the lines with their sections.
    """
    spent = 0
    lines: list[tuple[Section, Point]] = []
    for section in draft.sections:
        if section.heading not in asked:
            continue
        tables = [narrowed(t) for t in section.tables if t.header and t.rows]
        section.tables = []
        for table in tables:
            cost = table_cost(table)
            if spent + cost <= min(room, tables_room):
                section.tables.append(table)
                spent += cost
                continue
            line = topic_column(table, section.heading, lang)
            if spent + _cost(line) <= room:
                lines.append((section, line))
                spent += _cost(line)
    return spent, lines


def _cost_of_lists(draft: Draft, requirements: str, lang: str) -> int:
    """What the report's own lists cost on the page: the sections on disagreements and
    limits, and the brief's requirements with their verdicts and, for those not met, their
    lines in the limits (see :func:`subagents.generate.brief.answer_brief`), judged on the
    candidates the draft holds, each the printed lines it fills."""
    listed = [p.text for s in draft.sections if s.kind != "part" for p in s.points]
    cost = sum(_width(text) for text in listed)
    verdicts = brief_verdicts(requirements, draft, lang)
    lines = [*verdict_lines(verdicts, lang), *limits_lines(verdicts, lang)]
    return cost + sum(_printed(line) for line in lines)


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
    draft: Draft,
    requirements: str,
    lang: str,
    source_of: Callable[[str], str] = str,
    room: float = 1.0,
) -> Draft:
    """Fit a draft of candidate evidence to a report of the length asked for;
    ``source_of`` names the source of an evidence id (to cite several in a short part).
    The length is estimated at :data:`CHARS_PER_PAGE`; ``room`` scales that estimate
    down for a report whose printed pages showed it too generous."""
    low, high = pages_wanted(requirements)
    budget = int((low + high) / 2 * CHARS_PER_PAGE * room)
    most = int(high * CHARS_PER_PAGE * room)
    summary = [_tidy(p) for p in draft.lead if _full(p)][:6]
    parts = [s for s in draft.sections if s.kind == "part"]
    pools: dict[int, list[Point]] = {}
    # The summary gives each part's answer line; a part's section does not repeat it.
    # When that line is all the section has, the section gives it instead (no line is
    # shown twice), unless the line answers several parts ("When and by whom …"): then
    # it stays in the summary, said once for all of them. A part's own summary line is
    # the first of its section's lines the summary gives that no earlier part has
    # taken; a part whose every such line is taken shares the first one.
    leads: dict[int, Point] = {}
    for i, section in enumerate(parts):
        pool = []
        saids: list[Point] = []
        for point in section.points:
            if not _full(point):
                continue
            said = next((p for p in summary if p.cites() and _same_cites(p, point)), None)
            said = said or next((p for p in summary if _near_repeat(point, [p])), None)
            if said is not None:
                saids.append(said)
                continue
            if _near_repeat(point, pool):
                continue
            pool.append(_tidy(point))
        if saids:
            taken = list(leads.values())
            leads[i] = next((p for p in saids if not any(p is t for t in taken)), saids[0])
        # A sentence in another language than the report's is kept only when the part
        # would otherwise have too little to say.
        own = [p for p in pool if not p.cites() or language(p.text) == lang]
        candidates = own if len(own) >= MIN_PER_PART else pool
        # A sentence that points back to the one before it in its source ("因此…",
        # "These …", "After the closure it grew …", "… built a weir across it", "From there
        # …") and does not quote it would follow a sentence from elsewhere here, and one
        # that sends its reader elsewhere in brackets ("(see locks and gates)") points at
        # a page the report does not give: each is left out while the part has enough
        # others, unless it is the part's best answer (the first candidate), which no
        # other stands in for.
        alone = [
            p
            for rank, p in enumerate(candidates)
            if rank == 0 or not p.cites() or not (points_back(p.text) or points_elsewhere(p.text))
        ]
        candidates = alone if len(alone) >= MIN_PER_PART else candidates
        pools[i] = diversified(candidates, source_of, [leads[i]] if i in leads else [])
    topics = section_topics(brief_requirements(requirements))
    asked = frozenset(s.heading for s in parts if any(names_section(s.heading, t) for t in topics))
    allowance = int(budget * TABLE_SHARE)
    tabled = _fit_tables(draft, allowance, asked)
    spent = sum(_cost(p) for p in summary) + tabled + _cost_of_lists(draft, requirements, lang)
    # the part's line in the summary is one of the lines it keeps; a section on a topic
    # the brief asks for beside the question's parts keeps one
    topical = _topic_headings(requirements, lang, draft.title, [s.heading for s in parts])
    least = {
        i: 1 if parts[i].heading in topical else MIN_PER_PART - (1 if i in leads else 0)
        for i in pools
    }
    _asked_first(draft, parts, pools, least, summary, requirements, lang, topical)
    sure = sum(_cost(p) for i, pool in pools.items() for p in pool[: least[i]])
    given, table_lines = _fit_asked(draft, asked, most - spent - sure, allowance - tabled, lang)
    spent += given
    chosen: dict[int, list[Point]] = {i: [] for i in pools}
    # a part that shows a table says more already: past its least, it takes a next line
    # only once every part without one has taken theirs
    order = sorted(pools, key=lambda i: bool(parts[i].tables))
    for rank in range(max((len(p) for p in pools.values()), default=0)):
        limit = most if rank < ANSWER_ROOM else budget
        waiting = False
        for i in order:
            pool = pools[i]
            if rank >= len(pool):
                continue
            cost = _cost(pool[rank])
            extra = rank >= least[i]
            if extra and (spent + cost > limit or (waiting and parts[i].tables)):
                waiting = waiting or not parts[i].tables
                continue
            chosen[i].append(pool[rank])
            spent += cost
    for i, section in enumerate(parts):
        if not chosen[i] and not section.tables and i in leads:
            # all the section has is its summary line: it is given here, not twice; a
            # line that answers several parts stays in the summary, said once for all
            line = leads[i]
            if not any(lead is line for j, lead in leads.items() if j != i):
                chosen[i] = [_without_status(line, section.status)]
                summary = [p for p in summary if p is not line]
    for i, section in enumerate(parts):
        points = chosen[i]
        if points and Focus.build(section.heading).historical:
            points = chronological(points)
        section.points = points
    for section, line in table_lines:
        section.points.append(line)
    draft.sections = [s for s in draft.sections if s.heading not in asked or s.points or s.tables]
    draft.lead = summary
    return draft


def _without_status(line: Point, status: str) -> Point:
    """A part's answer line without the status it opens with when its section, which
    shows the status under its heading, gives it ("Partly answered: …" said once)."""
    first = line.parts[0] if line.parts else None
    if not status or not isinstance(first, str) or not first.startswith(status):
        return line
    rest = first[len(status) :].lstrip()
    return replace(line, parts=[rest, *line.parts[1:]] if rest else line.parts[1:])


def _topic_headings(
    requirements: str, lang: str, question: str, headings: Sequence[str]
) -> frozenset[str]:
    """Which of ``headings`` head the sections the notes give the topics a brief asks the
    report to cover beside the question's parts (see
    :func:`research.topics.is_topic_heading`)."""
    asked = [read_requirement(r) for r in brief_requirements(requirements)]
    topics = [t for r in asked if r.kind == TOPIC and same_language(r.text, lang) for t in r.topics]
    return frozenset(h for h in headings if any(is_topic_heading(h, t, question) for t in topics))


def _asked_first(
    draft: Draft,
    parts: list[Section],
    pools: dict[int, list[Point]],
    least: dict[int, int],
    summary: list[Point],
    requirements: str,
    lang: str,
    topical: frozenset[str] = frozenset(),
) -> None:
    """Follow the brief where the evidence allows: for each topic it asks for (see
    :func:`research.requirements.read_requirement`) that neither the summary, the
    tables nor the lines each part surely keeps say, the first candidate that says it
    becomes the next line of the part the requirement is about (see :func:`_home`), taken
    before the parts' other extra lines while the length allows.

    Args:
        draft: the draft (its title names the report's subject).
        parts: the draft's part sections, in order.
        pools: each part's candidates, best first; changed in place.
        least: the lines each part keeps whatever the length.
        summary: the summary's lines.
        requirements: what the writer was asked for.
        lang: the report's language.
        topical: the headings of the sections on the brief's topics (see
            :func:`_topic_headings`), home to no other requirement's line.
    """
    asked = [read_requirement(r) for r in brief_requirements(requirements)]
    wanted = [
        (r.text, t)
        for r in asked
        if r.kind == TOPIC and same_language(r.text, lang)
        for t in r.topics
    ]
    if not wanted or not pools:
        return
    subject = entity(draft.title) if draft.title else ""
    rows = [" ".join(row) for s in parts for t in s.tables for row in [t.header, *t.rows]]
    sure = [*(p.text for p in summary), *rows]
    sure += [p.text for i, pool in pools.items() for p in pool[: least[i]]]
    # a topic with a section of its own is said there, under its heading
    headed = {parts[i].heading for i, pool in pools.items() if pool}
    for requirement, topic in wanted:
        if any(is_topic_heading(h, topic, draft.title) for h in headed):
            continue
        if covers(topic, ReportView(tuple(sure), subject=subject)):
            continue
        found = next(
            (
                (i, k)
                for i, pool in pools.items()
                for k, point in enumerate(pool)
                if covers(topic, ReportView((point.text,), subject=subject))
            ),
            None,
        )
        if found is None:
            continue
        point = pools[found[0]].pop(found[1])
        home = _home(requirement, parts, found[0], subject, topical)
        pools[home].insert(least[home], point)
        least[home] += 1 if found[0] == home and found[1] < least[home] else 0
        sure.append(point.text)


def _home(
    requirement: str,
    parts: list[Section],
    fallback: int,
    subject: str,
    topical: frozenset[str] = frozenset(),
) -> int:
    """The part a requirement is about: the one whose heading shares most of its words
    (the subject's aside), else part ``fallback`` (where its candidate was). A section on
    one of the brief's topics (headed in ``topical``: see :func:`_topic_headings`) is
    about that topic alone and is home to no other."""
    said = set(terms(without_label(requirement))) - set(terms(subject))
    shared = [0 if s.heading in topical else len(said & set(terms(s.heading))) for s in parts]
    best = max(range(len(parts)), key=lambda i: shared[i])
    return best if shared[best] else fallback


def uncited(point: Point) -> bool:
    return not any(isinstance(p, Cite) for p in point.parts)


__all__ = [
    "DEFAULT_PAGES",
    "Section",
    "chronological",
    "pages_wanted",
    "shape",
]
