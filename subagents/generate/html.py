"""HTML rendering of a Report (one self-contained file), and the generate_html tool.

The body is the report's Markdown rendered by markdown-it-py with raw HTML and images
off, so text from the inputs is always escaped; ``[n]`` markers become superscript links
to the quote they cite in the Sources list. Tables are real ``<table>``s that scroll
sideways on a narrow screen; a table's chart is inline SVG (glyphs drawn as paths, so it
needs no font). All CSS is inline; the page loads nothing from anywhere. It reads on a
phone (viewport, fluid width), on a desk and in print (``@media print``, ``@page``); the
font stack names the installed CJK fonts (Noto Sans CJK SC, WenQuanYi Zen Hei) so the
same file renders Chinese in Chromium and in weasyprint. The page ends with a footer
saying when and how the report was made (its colophon).
"""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt

from .charts import chart_heading, chart_of, chart_svg, display_width, numeric_columns
from .citations import Citation
from .formats import Format
from .markdown import QUOTE_LIMIT, colon, inline, points_markdown, reading_order
from .notes import Chart, Point, Section, Table, parser
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

CSS = """
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;color:#1f2328;background:#fff;line-height:1.65;font-size:17px;
 font-family:"Liberation Sans","DejaVu Sans",Arial,"Helvetica Neue",Roboto,
 "Noto Sans CJK SC","WenQuanYi Zen Hei","PingFang SC","Microsoft YaHei",sans-serif}
html:lang(zh) body{font-family:"Noto Sans CJK SC","WenQuanYi Zen Hei","PingFang SC",
 "Hiragino Sans GB","Microsoft YaHei","Liberation Sans","DejaVu Sans",sans-serif;
 line-height:1.8}
.report{max-width:48rem;margin:0 auto;padding:1.5rem 1.1rem 3rem}
h1{font-size:1.9rem;line-height:1.25;margin:.4rem 0 1.2rem;overflow-wrap:break-word}
h2{font-size:1.3rem;line-height:1.3;margin:2rem 0 .7rem;padding-bottom:.3rem;
 border-bottom:1px solid #d0d7de;break-after:avoid}
p,li{overflow-wrap:break-word;word-wrap:break-word}
p{margin:.6rem 0}
ul,ol{padding-left:1.4rem}
li{margin:.3rem 0}
.summary{background:#f3f6fa;border-left:4px solid #0b62c4;border-radius:4px;
 padding:.6rem 1rem;margin:0 0 1.5rem}
.summary h2{font-size:.85rem;letter-spacing:.06em;text-transform:uppercase;color:#0b62c4;
 border:0;margin:.3rem 0 .2rem;padding:0}
.disagreements h2,.not_found h2{color:#6e4a00;border-bottom-color:#e5c07b}
p.status{font-style:italic;color:#6e4a00;margin:.2rem 0 .6rem}
sup.cite{font-size:.72em;line-height:0;white-space:nowrap}
sup.cite a{text-decoration:none;color:#0b62c4}
figure{margin:1.2rem 0 1.6rem}
figure.chart{break-inside:avoid}
figcaption.chart-title{margin:0 0 .4rem;color:#1f2328;font-weight:600}
figcaption{font-size:.9rem;color:#555f6a;margin-top:.45rem}
figcaption .label{font-weight:600;color:#1f2328}
p.table-note{font-size:.9rem;color:#3d444d;margin:.45rem 0 0}
.swipe{display:none}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid #d0d7de;
 border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.92rem;line-height:1.45}
th,td{padding:.45rem .7rem;text-align:left;vertical-align:top;border-bottom:1px solid #e4e8ec}
th{background:#0b62c4;color:#fff;font-weight:600}
tbody tr:nth-child(even){background:#f6f8fa}
tbody tr:last-child td{border-bottom:0}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.num{white-space:nowrap}
.scroll th,.scroll td{min-width:6.5em}.scroll .num{min-width:4em}.scroll .wide{min-width:13em}
figure.chart svg{display:block;width:100%;height:auto;max-width:38rem}
.sources .source-list{padding-left:0;list-style:none}
.sources .source{margin:0 0 1.1rem;break-inside:avoid;font-size:.95rem}
.sources .src-title{font-weight:600;display:block}
.sources .src-url,.sources .src-path{display:block;word-break:break-all;font-size:.86rem}
.sources .src-path{color:#555f6a;font-family:"DejaVu Sans Mono",monospace}
.sources .src-stored{font-size:.84rem}
.sources .sep{display:none}
.sources .quotes{list-style:none;padding-left:.9rem;margin:.3rem 0 0;
 border-left:3px solid #d0d7de}
.sources .quotes li{margin:.25rem 0;color:#3d444d;font-size:.9rem}
.sources .qn{font-weight:600;color:#0b62c4;margin-right:.25rem}
.sources .loc{color:#555f6a}
.sources li:target{background:#fff8c5}
.colophon{margin-top:2rem;padding-top:.6rem;border-top:1px solid #d0d7de;font-size:.85rem;
 color:#555f6a}
a{color:#0b62c4}
@media (max-width:480px){body{font-size:16px}
 .swipe{display:block;margin:0 0 .3rem;font-size:.85rem;color:#555f6a}
 .report{padding:1rem .8rem 2rem}
 h1{font-size:1.5rem}h2{font-size:1.15rem}table{font-size:.85rem}
 th,td{padding:.35rem .5rem}}
@page{size:A4;margin:18mm 16mm 20mm}
@media print{body{font-size:10.5pt;color:#000}.report{max-width:none;padding:0}
 .summary{background:none;border:1px solid #888;border-left:4px solid #444}
 a,sup.cite a,.sources .src-url{color:#000}h2{break-after:avoid}
 li,p{orphans:2;widows:2}.scroll{overflow:visible;border:0}
 table{font-size:9pt}th{background:#0b62c4;color:#fff}thead{display:table-header-group}
 tr{break-inside:avoid}figure.chart svg{max-width:9.5cm}
 .scroll th,.scroll td,.scroll .wide{min-width:0}th,td{padding:.2rem .45rem}
 h1{font-size:17pt;margin:0 0 .6rem}h2{font-size:12.5pt;margin:1.1rem 0 .4rem}
 body{line-height:1.45}li{margin:.15rem 0}p{margin:.4rem 0}figure{margin:.6rem 0 .9rem}
 .sources{font-size:8pt;line-height:1.3}.sources .source{margin:0 0 .35rem;font-size:8pt;
 break-inside:auto}.sources .src-title,.sources .src-url,.sources .src-path{display:inline}
 .sources .sep{display:inline}
 .sources .src-url,.sources .src-path{font-size:7.5pt}.sources .src-stored{display:none}
 .sources .quotes{padding-left:.5rem;border-left-width:1.5pt}
 .sources .quotes li{font-size:7.5pt;margin:.1rem 0;color:#222}
 p.table-note{font-size:8.5pt;margin:.3rem 0 0}
 .colophon{margin-top:.5rem;padding-top:.3rem;font-size:8pt;color:#333;break-inside:avoid}}
"""


def _render_citation(self, tokens, idx, options, env) -> str:
    links = "".join(
        f'<a href="#src-{int(k[1:])}">[{int(k[1:])}]</a>' for k in tokens[idx].meta["keys"]
    )
    return f'<sup class="cite">{links}</sup>'


def _md() -> MarkdownIt:
    md = parser()
    md.disable("image", ignoreInvalid=True)
    md.add_render_rule("citation", _render_citation)
    return md


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _column_classes(table: Table, width: int) -> list[str]:
    """Per column: ``num`` (numbers, aligned right), ``wide`` (long text), ``short`` (no
    cell wider than :data:`SHORT_CELL`, kept on one line in print) or nothing."""
    numeric = numeric_columns(table)
    classes = []
    for j in range(width):
        longest = max((len(r[j]) for r in [table.header, *table.rows] if j < len(r)), default=0)
        short = max((display_width(r[j]) for r in table.rows if j < len(r)), default=0)
        kind = "wide" if longest > WIDE_CELL else "short" if short <= SHORT_CELL else ""
        classes.append("num" if j in numeric else kind)
    return classes


def _row(tag: str, cells: list[str], classes: list[str]) -> str:
    """One table row, padded to the table's width, each cell with its column's class."""
    scope = ' scope="col"' if tag == "th" else ""
    out = []
    for text, css in zip([*cells, *[""] * (len(classes) - len(cells))], classes, strict=False):
        attr = f' class="{css}"' if css else ""
        out.append(f"<{tag}{scope}{attr}>{_e(text)}</{tag}>")
    return "<tr>" + "".join(out) + "</tr>"


#: A table of this many columns or more is wider than a phone: there it says it scrolls.
SWIPE_COLUMNS = 4


def table_html(md: MarkdownIt, report: Report, table: Table, n: int) -> str:
    """A table in a sideways-scrolling box, with its numbered, cited caption."""
    classes = _column_classes(table, max([len(table.header), *(len(r) for r in table.rows)]))
    head = _row("th", table.header, classes)
    body = "".join(_row("td", row, classes) for row in table.rows)
    label = f"{report.label('table')} {n}"
    caption = md.renderInline(inline(table.caption, spaced=False))
    swipe = len(classes) >= SWIPE_COLUMNS
    hint = f'<p class="swipe" aria-hidden="true">{_e(report.label("swipe"))}</p>' if swipe else ""
    notes = "".join(f'<p class="table-note">{_e(note)}</p>' for note in table.notes)
    return (
        f'<figure class="table" id="table-{n}">{hint}'
        f'<div class="scroll" role="region" aria-label="{_e(label)}" tabindex="0">'
        f"<table><thead>{head}</thead><tbody>{body}</tbody></table></div>{notes}"
        f'<figcaption><span class="label">{_e(label)}</span> {caption}</figcaption></figure>'
    )


#: A column whose longest cell is longer than this gets room to wrap on a phone.
WIDE_CELL = 30
#: A column whose cells are no wider than this (a Chinese character counts two) is short.
SHORT_CELL = 12
_SVG_SIZE = re.compile(r'^<svg\b([^>]*?)\s+width="[^"]*"\s+height="[^"]*"')


def chart_html(report: Report, chart: Chart, n: int) -> str:
    """A chart as an inline, scalable SVG figure; its title is the figure's caption."""
    svg = chart_svg(chart, report.lang, prefix=f"chart-{n}", titled=False)
    label = f"{report.label('chart')} {n}"
    heading = chart_heading(chart, report.lang, limit=200)
    name = _e(f"{label}{colon(report)}{heading}")
    svg = _SVG_SIZE.sub(rf'<svg\1 role="img" aria-label="{name}"', svg, count=1)
    return (
        f'<figure class="chart" id="chart-{n}"><figcaption class="chart-title">'
        f'<span class="label">{_e(label)}</span> {_e(heading)}</figcaption>{svg}</figure>'
    )


def _points_html(md: MarkdownIt, points: list[Point]) -> str:
    return md.render(points_markdown(points, spaced=False)) if points else ""


def _section_html(
    md: MarkdownIt,
    report: Report,
    section: Section,
    tables: Iterator[int],
    charts: Iterator[int],
) -> str:
    """One section: heading, points, then each table (numbered) with its chart."""
    status = f'<p class="status">{_e(section.status)}</p>' if section.status else ""
    parts = [f"<h2>{_e(section.heading)}</h2>", status, _points_html(md, section.points)]
    for table in section.tables:
        parts.append(table_html(md, report, table, next(tables)))
        chart = chart_of(table)
        if chart is not None:
            parts.append(chart_html(report, chart, next(charts)))
    return f'<section class="{_e(section.kind)}">{"".join(parts)}</section>'


def _quote_html(report: Report, c: Citation) -> str:
    """One quote under its source; a table is described instead, in italics and without
    quotation marks (see :func:`.report.quote_shown`)."""
    shown = quote_shown(c.item.span, report.lang, QUOTE_LIMIT)
    place = language_mark(shown.text, report.lang) if shown.quoted else ""
    place += (
        in_brackets(locator_text(c.item.locator, report.lang), report.lang)
        if c.item.locator
        else ""
    )
    where = f'<span class="loc">{_e(place)}</span>' if place else ""
    quoted = (
        f"“{_e(shown.text)}”" if shown.quoted else f'<em class="described">{_e(shown.text)}</em>'
    )
    # a quote from a web page links the live page, opened at the quote
    if link := text_fragment(c.item.url, c.item.span, c.item.locator):
        quoted = f'<a class="at-quote" href="{_e(link)}">{quoted}</a>'
    # The evidence id is machine provenance: kept as data for tools, never shown.
    return (
        f'<li id="src-{c.number}" data-ev="{_e(c.item.id)}"><span class="qn">[{c.number}]</span>'
        f'<span class="quote">{quoted}</span>{where}</li>'
    )


def _source_html(report: Report, entry: SourceEntry, n: int) -> str:
    """One source: its title, live link (or file path), stored copy, and its quotes."""
    place = entry.where
    shown = place if len(place) <= 90 else place[:89] + "…"
    if entry.kind == "web" and re.fullmatch(r"https?://\S+", entry.url):
        where = f'<a class="src-url" href="{_e(entry.url)}">{_e(shown)}</a>'
    else:
        where = f'<span class="src-path">{_e(shown)}</span>' if shown else ""
    title = f'<span class="src-title">{_e(entry.title)}</span>' if entry.title else ""
    if title and where:  # shown in print, where the title and the address share a line
        title += '<span class="sep" aria-hidden="true"> · </span>'
    stored = ""
    if entry.stored:
        href = _e(stored_link(entry.stored))
        stored = f'<a class="src-stored" href="{href}">{_e(report.label("stored"))}</a>'
        if when := report.source_dates(entry):  # the page's own day, the day it was fetched
            stored += f' <span class="src-fetched">({_e(when)})</span>'
    quotes = "".join(_quote_html(report, c) for c in entry.quotes)
    return (
        f'<li class="source" id="source-{n}">{title}{where}{stored}'
        f'<ul class="quotes">{quotes}</ul></li>'
    )


def sources_html(report: Report) -> str:
    """The Sources section: one entry per source, the quotes cited from it under it."""
    entries = "".join(
        _source_html(report, entry, n) for n, entry in enumerate(report.source_entries(), 1)
    )
    return (
        f'<section class="sources" id="sources"><h2>{_e(report.label("sources"))}</h2>'
        f'<ol class="source-list">{entries}</ol></section>'
    )


def render_html(report: Report) -> str:
    """The report as one self-contained HTML document."""
    md = _md()
    parts = [f"<h1>{_e(report.title)}</h1>"]
    if report.summary:
        parts.append(
            f'<section class="summary"><h2>{_e(report.label("summary"))}</h2>'
            f"{_points_html(md, report.summary)}</section>"
        )
    tables, charts = itertools.count(1), itertools.count(1)
    parts.extend(
        _section_html(md, report, s, tables, charts) for s in reading_order(report.sections)
    )
    if report.citations:
        parts.append(sources_html(report))
    if colophon := report.colophon_line():
        parts.append(f'<footer class="colophon"><p>{_e(colophon)}</p></footer>')
    lang = "zh" if report.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(report.title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body>\n<main class="report">\n{chr(10).join(parts)}\n</main>\n</body>\n</html>\n'
    )


HTML = Format("HTML", (".html", ".htm"), lambda r, _stem: render_html(r).encode("utf-8"))
