"""Markdown rendering of a Report, and the generate_markdown tool.

Text from the inputs is backslash-escaped, so nothing in a note or span can become a
link, image, HTML or a citation; the only markup is the report's own (headings, bullets,
pipe tables, chart images, ``[n]`` markers, the Sources list). The first line marks the
file as a report so that it can be read back as a from_path for another format.

Layout: the title, the summary, the sections (parts of the question first, then where the
sources disagree, then what could not be found, then the appendix of tables no part asks
about), each with its status when it has one (a
block quote: "Partly answered: …"), its points and its tables
(caption with its ``[n]`` under the table, then the chart image when the table has one),
and the Sources: one entry per source (title, live URL or file name, link to the stored
copy) with the quotes cited from it under it, each as ``[n] “quote” (locator)``; last, a
paragraph saying when and how the report was made (the colophon, after a marker comment
so that a report read back leaves it out).
"""

from __future__ import annotations

import re

from research.text import is_cjk

from .charts import chart_of, chart_png
from .citations import Citation
from .formats import Format, Rendered
from .notes import (
    COLOPHON_MARKER,
    REPORT_MARKER,
    Chart,
    Cite,
    Point,
    Section,
    Table,
    locator_comment,
)
from .report import (
    Report,
    SourceEntry,
    in_brackets,
    language_mark,
    locator_text,
    quote_shown,
    stored_link,
    text_fragment,
)

#: Markup characters escaped in literal text; ``_`` inside a word (``colonies_surveyed``)
#: cannot start emphasis in CommonMark, so it stays as written.
_SPECIAL = re.compile(r"([\\`*\[\]<>&|~]|_(?![^\W_])|(?<![^\W_])_)")
_LEADING_NUMBER = re.compile(r"^(\d+)([.)])")
_LEADING_BLOCK = re.compile(r"^([+\-=#])")
_WEB = re.compile(r"https?://[^\s<>]+")

#: The order of section kinds in every format.
KIND_ORDER = ("part", "other", "disagreements", "not_found", "appendix")
QUOTE_LIMIT = 300


def escape(text: str) -> str:
    """``text`` as literal Markdown: inline markup escaped, no block syntax at the start."""
    text = _SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", text))
    text = _LEADING_NUMBER.sub(r"\1\\\2", text)
    return _LEADING_BLOCK.sub(r"\\\1", text)


def escape_cell(text: str) -> str:
    """Text inside a line (a table cell, a bracket) as literal Markdown: inline markup
    (and ``|``) escaped; block syntax cannot start there, so it is left alone."""
    return _SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", text)).strip()


def tight(point: Point) -> list:
    """A point's parts with the spaces before its citation markers removed."""
    parts = list(point.parts)
    for i, part in enumerate(parts):
        if isinstance(part, str) and i + 1 < len(parts) and isinstance(parts[i + 1], Cite):
            parts[i] = part.rstrip()
    return parts


_WORD_END = re.compile(r"[A-Za-z0-9%]$")


def inline(point: Point, spaced: bool = True) -> str:
    """A point's text (escaped) with its ``[n]`` markers set right after the words: after
    punctuation or Chinese directly ("grain.[1]", "公里[2]"), after a Latin word with a
    space when ``spaced`` ("1,747 km [3], about …"), so that a marker inside a sentence
    reads apart in plain text (a superscript marker needs no space)."""
    out = [answer_prefix(point, markdown=True)] if point.answer else []
    for part in tight(point):
        if isinstance(part, Cite):
            gap = " " if spaced and out and _WORD_END.search(out[-1]) else ""
            out.append(f"{gap}[{part.key[1:]}]")
        else:
            out.append(escape(part))
    return "".join(out)


def answer_prefix(point: Point, markdown: bool = False) -> str:
    """An answer line's opening: its answer (in bold, escaped, when ``markdown``) and a
    dash, or the Chinese colon when the line is Chinese."""
    answer = f"**{escape(point.answer)}**" if markdown else point.answer
    return f"{answer}：" if is_cjk(point.text[:8]) else f"{answer} — "


def points_markdown(points: list[Point], spaced: bool = True) -> str:
    """Paragraphs and bullet lists; consecutive bullets form one list (``spaced``: see
    :func:`inline`)."""
    out: list[str] = []
    for i, point in enumerate(points):
        if point.bullet:
            prev_bullet = i > 0 and points[i - 1].bullet
            out.append(("\n" if prev_bullet else "\n\n") + "- " + inline(point, spaced))
        else:
            out.append("\n\n" + inline(point, spaced))
    return "".join(out).strip("\n")


def reading_order(sections: list[Section]) -> list[Section]:
    """Sections by kind (parts, other, disagreements, not found, the appendix), in order
    within a kind."""
    rank = {kind: i for i, kind in enumerate(KIND_ORDER)}
    return sorted(sections, key=lambda s: rank.get(s.kind, len(KIND_ORDER)))


def charted(report: Report) -> list[tuple[Table, Chart | None]]:
    """Every table of the report in reading order, with the chart drawn for it (or None)."""
    return [(t, chart_of(t)) for s in reading_order(report.sections) for t in s.tables]


def chart_name(n: int, stem: str = "report") -> str:
    """The file name of the report's ``n``-th chart image, written beside the report."""
    return f"{stem}-chart-{n}.png"


def colon(report: Report) -> str:
    """The colon after a label in the report's language (``: `` or ``：``)."""
    return "：" if report.lang == "zh" else ": "


def labelled(report: Report, key: str) -> str:
    """A label followed by a colon in the report's language (``Table: ``, ``表：``)."""
    return report.label(key) + colon(report)


def caption_prefix(report: Report) -> str:
    """``Table: `` or ``表：``, the words that mark a paragraph as a table's caption."""
    return labelled(report, "table")


def table_markdown(table: Table) -> str:
    """A pipe table with every cell escaped; short rows are padded to the header."""
    width = max([len(table.header), *(len(r) for r in table.rows)])
    header = [*table.header, *[""] * (width - len(table.header))]
    lines = [
        "| " + " | ".join(escape_cell(c) for c in header) + " |",
        "|" + "|".join(["---"] * width) + "|",
    ]
    for row in table.rows:
        cells = [*row, *[""] * (width - len(row))]
        lines.append("| " + " | ".join(escape_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def _table_block(report: Report, table: Table, chart: Chart | None, image: str) -> str:
    """The table, its notes, its caption line and, when it has a chart, the chart image."""
    notes = [escape(note) for note in table.notes]
    blocks = [table_markdown(table), *notes, caption_prefix(report) + inline(table.caption)]
    if chart is not None:
        alt = escape(labelled(report, "chart") + chart.title)
        blocks.append(f"![{alt}]({image})")
    return "\n\n".join(blocks)


def quote_line(report: Report, c: Citation) -> str:
    """``- [n] “quote” (locator) <!-- provenance -->``: one quote under its source.

    The quote is the span's words (see :func:`.report.quote_shown`, cut at 300
    characters); a table is described instead, in italics and without quotation marks
    (the description is the report's text, not the source's). The trailing comment, which
    no reader sees, records its evidence id and where it lives so that the report can be
    read back.
    """
    shown = quote_shown(c.item.span, report.lang, QUOTE_LIMIT)
    place = escape_cell(locator_text(c.item.locator, report.lang))
    where = language_mark(shown.text, report.lang) if shown.quoted else ""
    where += in_brackets(place, report.lang) if c.item.locator else ""
    item = c.item
    comment = locator_comment(
        item.url, item.page_path, item.start, item.end, c.title, item.id, item.locator
    )
    quoted = f"“{escape(shown.text)}”" if shown.quoted else f"*{escape(shown.text)}*"
    if link := text_fragment(item.url, item.span, item.locator):
        quoted = f"[{quoted}](<{link}>)"
    return f"  - [{c.number}] {quoted}{where} {comment}"


def source_head(report: Report, entry: SourceEntry) -> str:
    """``- **Title** — <url> — [stored copy](copies/x.md)`` for one source, with a web
    page's own date where it gives one and the day its stored copy was fetched
    (``(published 2025-03-18; fetched 2026-12-01)``)."""
    web = entry.kind == "web" and _WEB.fullmatch(entry.url)
    where = f"<{entry.url}>" if web else escape(entry.where)
    parts = [f"**{escape(entry.title)}**" if entry.title else "", where]
    if entry.stored:
        stored = f"[{escape(report.label('stored'))}](<{stored_link(entry.stored)}>)"
        when = report.source_dates(entry)
        parts.append(f"{stored} ({when})" if when else stored)
    return "- " + " — ".join(p for p in parts if p)


def sources_markdown(report: Report) -> str:
    """The Sources list: one entry per source, its cited quotes under it."""
    lines: list[str] = []
    for entry in report.source_entries():
        lines.append(source_head(report, entry))
        lines.extend(quote_line(report, c) for c in entry.quotes)
    return "\n".join(lines)


def render_markdown(report: Report, marker: bool = True, stem: str = "report") -> str:
    """The whole report as Markdown; chart images are named by :func:`chart_name`."""
    blocks = [REPORT_MARKER] if marker else []
    blocks.append(f"# {escape(report.title)}")
    if report.summary:
        blocks.append(points_markdown(report.summary))
    charts = 0
    for section in reading_order(report.sections):
        blocks.append(f"## {escape(section.heading)}")
        if section.status:
            blocks.append(f"> {escape(section.status)}")
        if section.points:
            blocks.append(points_markdown(section.points))
        for table in section.tables:
            chart = chart_of(table)
            charts += chart is not None
            blocks.append(_table_block(report, table, chart, chart_name(charts, stem)))
    if report.citations:
        blocks.append(f"## {report.label('sources')}")
        blocks.append(sources_markdown(report))
    if colophon := report.colophon_line():
        blocks += [COLOPHON_MARKER, escape(colophon)]
    return "\n\n".join(blocks) + "\n"


def render_markdown_file(report: Report, stem: str = "report") -> Rendered:
    """The Markdown report and its chart images (PNG), to be written beside it."""
    images = {
        chart_name(n, stem): chart_png(chart, report.lang)
        for n, chart in enumerate((c for _, c in charted(report) if c is not None), 1)
    }
    return Rendered(render_markdown(report, stem=stem).encode("utf-8"), images)


MARKDOWN = Format("Markdown", (".md", ".markdown"), render_markdown_file)
