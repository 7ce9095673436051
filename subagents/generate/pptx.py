"""PPTX rendering (python-pptx), and the generate_pptx tool.

A 16:9 deck in one simple theme: an accent-coloured title band, a clean sans font (Arial,
with Noto Sans CJK SC as the East Asian font of every run), dark text on white. Slides:
the title slide with the summary; for each section (in reading order) its points as at
most six bullets a slide, continuing on further slides, then a native table slide for
each table (long tables go on over several slides) and a native bar chart slide for each
chart; then the sources, one entry per source; the last slide's footer says when and how
the report was made (its colophon) where the others name the report. Font sizes are
picked from an estimate of the wrapped text so that it stays inside its box. Every
slide's speaker notes carry the exact quotes cited on it, with their numbers and sources.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from datetime import datetime

from lxml import etree
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE, XL_LEGEND_POSITION
from pptx.enum.shapes import MSO_SHAPE
from pptx.enum.text import MSO_ANCHOR, MSO_AUTO_SIZE, PP_ALIGN
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches, Pt

from .charts import PALETTE, chart_heading, chart_of, is_total, numeric_columns
from .formats import Format
from .markdown import answer_prefix, labelled, reading_order, tight
from .notes import Chart, Cite, Point, Table
from .report import (
    Report,
    SourceEntry,
    in_brackets,
    language_mark,
    locator_text,
    quote_shown,
    shown_place,
)

SLIDE_W, SLIDE_H = Inches(13.333), Inches(7.5)
MARGIN = Inches(0.6)
BAND_H = Inches(1.3)
BODY_TOP = Inches(1.6)
FOOTER_TOP = Inches(7.0)
BODY_W = SLIDE_W - 2 * MARGIN
BODY_H = FOOTER_TOP - BODY_TOP - Inches(0.1)

ACCENT = RGBColor(0x0B, 0x62, 0xC4)
INK = RGBColor(0x1F, 0x23, 0x28)
MUTED = RGBColor(0x5B, 0x64, 0x6E)
WHITE = RGBColor(0xFF, 0xFF, 0xFF)
STRIPE = RGBColor(0xF3, 0xF6, 0xFA)
LATIN_FONT = "Arial"
EA_FONT = "Noto Sans CJK SC"
LANG_TAGS = {"en": "en-US", "zh": "zh-CN"}

MAX_BULLETS = 6
BULLET_CHARS = 320
BODY_SIZES = (28, 24, 22, 20, 18, 16)
#: Bullets share a slide only while they fit at this size; a lone long one may go smaller.
CHUNK_SIZE = 20
TABLE_ROWS = 12
TABLE_SIZES = (18, 16, 14, 12)
CELL_PAD = 0.22  # inches a table cell's text loses to its margins
TABLE_SLIDES = 4
CELL_CHARS = 240  # a longer cell is cut; shorter ones wrap whole
SOURCES_PER_SLIDE = 5

#: The layouts of python-pptx's default template used here.
TITLE_LAYOUT, CONTENT_LAYOUT, TITLE_ONLY_LAYOUT = 0, 1, 5


@dataclass(frozen=True)
class Style:
    """How a run looks: size in points, weight, colour, superscript."""

    size: float
    bold: bool = False
    color: RGBColor = INK
    raised: bool = False


# --- text: fonts, measuring, fitting -----------------------------------------------------


def _set_fonts(rpr: etree._Element, lang: str) -> None:
    """Latin and East Asian typefaces (and the language) on a run's properties."""
    rpr.set("lang", LANG_TAGS.get(lang, "en-US"))
    for tag, face in (("a:latin", LATIN_FONT), ("a:ea", EA_FONT)):
        el = rpr.find(qn(tag))
        if el is None:
            el = etree.SubElement(rpr, qn(tag))
        el.set("typeface", face)
    latin, ea = rpr.find(qn("a:latin")), rpr.find(qn("a:ea"))
    latin.addnext(ea)  # the schema wants <a:ea> right after <a:latin>


def _run(paragraph, text: str, style: Style, lang: str) -> None:
    """Append one styled run to ``paragraph``."""
    run = paragraph.add_run()
    run.text = text
    font = run.font
    font.size = Pt(style.size)
    font.bold = style.bold
    font.color.rgb = style.color
    rpr = run._r.get_or_add_rPr()
    if style.raised:
        rpr.set("baseline", "30000")
    _set_fonts(rpr, lang)


def _em(text: str) -> float:
    """Width of ``text`` in ems: a CJK or full-width character is one, others about half."""
    return sum(1.0 if ord(ch) >= 0x2E80 else 0.5 for ch in text)


def _lines(text: str, size: float, width: int, indent: float = 0.45) -> int:
    """Estimated number of lines ``text`` wraps to at ``size`` points in ``width`` EMU
    (less the frame's insets and the bullet indent, in inches)."""
    per_line = (Emu(width).inches - 0.25 - indent) * 72 / size
    return max(1, math.ceil(_em(text) / per_line))


def _height(paragraphs: list[str], size: float, width: int) -> float:
    """Estimated height in inches of bulleted ``paragraphs`` wrapped at ``width`` EMU.

    CJK fonts set taller lines than Latin ones, so such text counts 1.45 lines per line.
    """
    points = 0.0
    for text in paragraphs:
        leading = 1.45 if any(ord(ch) >= 0x2E80 for ch in text) else 1.2
        points += _lines(text, size, width) * leading * size + 0.5 * size
    return points / 72


def _fits(paragraphs: list[str], size: float, width: int, height: int) -> bool:
    return _height(paragraphs, size, width) <= Emu(height).inches


def _fit_size(paragraphs: list[str], width: int, height: int, sizes=BODY_SIZES) -> float:
    """The largest size in ``sizes`` at which the text fits the box (else the smallest)."""
    return next((s for s in sizes if _fits(paragraphs, s, width, height)), sizes[-1])


def _shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, at a word end if one is near."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.7:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


#: Between Latin words and their citation markers: a space no line breaks at, so that a
#: marker never starts a line of its own ("cheaper.\u00a0[1]").
NO_BREAK = "\u00a0"
#: Between Chinese text and its markers: no space of any kind, only this zero-width mark
#: that no line breaks at ("第一。[1]" never breaks before "[1]").
WORD_JOINER = "\u2060"
#: Closing punctuation shared by both scripts: the text before it says which it ends.
_CLOSING = re.compile(r"[\s\"'”’»)\].,;:!?…—–-]+$")


def _ends_chinese(words: str) -> bool:
    """Whether ``words`` end in Chinese text or its punctuation (``。``, ``）``, or a
    ``”`` after a Chinese word)."""
    text = _CLOSING.sub("", words) or words
    return ord(text[-1]) >= 0x2E80


def glued(words: str) -> str:
    """``words`` held to the markers that follow them: after Chinese text by a word
    joiner, with no space ("第一。[1]"); after Latin words by a no-break space ("cheaper.
    [1]" never breaks before "[1]")."""
    stripped = words.rstrip()
    if not stripped:
        return words
    return stripped + (WORD_JOINER if _ends_chinese(stripped) else NO_BREAK)


def _bullet_parts(point: Point) -> tuple[str, str]:
    """A point as (words, markers); a long point keeps its start and all its markers."""
    words = "".join(p for p in tight(point) if isinstance(p, str))
    if point.answer:
        words = answer_prefix(point) + words
    words = _shorten(re.sub(r"\s+", " ", words).strip(), BULLET_CHARS)
    return words, "".join(f"[{c.key[1:]}]" for c in point.cites())


def _markers_inside(point: Point) -> bool:
    """Whether words follow one of the point's markers (markers cite parts of it)."""
    first = next((i for i, p in enumerate(point.parts) if isinstance(p, Cite)), None)
    after = point.parts[first + 1 :] if first is not None else []
    return any(isinstance(p, str) and p.strip(" .。;；") for p in after)


def _chunks(points: list[Point], width: int, height: int) -> list[list[Point]]:
    """Points split into slides: at most six each, and each slide's text fits its box."""
    chunks: list[list[Point]] = [[]]
    for point in points:
        trial = [*chunks[-1], point]
        text = ["".join(_bullet_parts(p)) for p in trial]
        if chunks[-1] and (len(trial) > MAX_BULLETS or not _fits(text, CHUNK_SIZE, width, height)):
            chunks.append([point])
        else:
            chunks[-1] = trial
    return [c for c in chunks if c]


# --- slides ------------------------------------------------------------------------------


def _deck(report: Report) -> Presentation:
    prs = Presentation()
    prs.slide_width, prs.slide_height = SLIDE_W, SLIDE_H
    props = prs.core_properties
    props.title = _shorten(report.title, 250)
    props.language = LANG_TAGS.get(report.lang, "en-US")
    props.author = props.last_modified_by = ""
    if report.colophon and (made := _day(report.colophon.date)):
        props.created = props.modified = made  # not the template's own date
    props.revision = 1
    return prs


def _day(iso: str) -> datetime | None:
    """The day an ISO date names, at midnight (None when it names none)."""
    try:
        return datetime.fromisoformat(iso[:10])
    except ValueError:
        return None


def _place(shape, left: int, top: int, width: int, height: int) -> None:
    shape.left, shape.top, shape.width, shape.height = left, top, width, height


def _band(slide, height: int) -> None:
    """The accent band across the top of a slide, behind everything else."""
    band = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, 0, 0, SLIDE_W, height)
    band.fill.solid()
    band.fill.fore_color.rgb = ACCENT
    band.line.fill.background()
    band.shadow.inherit = False
    tree = slide.shapes._spTree
    tree.remove(band._element)
    tree.insert(2, band._element)


def _title(slide, text: str, lang: str, top: int = 0, height: int = BAND_H) -> None:
    """The slide's title, white on the band, shrunk to two lines at most."""
    shape = slide.shapes.title
    _place(shape, MARGIN, top, BODY_W, height)
    frame = shape.text_frame
    frame.word_wrap, frame.auto_size = True, MSO_AUTO_SIZE.NONE
    frame.vertical_anchor = MSO_ANCHOR.MIDDLE
    sizes, most = ((40, 34, 28), 3) if height > BAND_H else ((30, 26, 22), 2)
    size = next((s for s in sizes if _lines(text, s * 1.1, BODY_W, 0) <= most), 0)
    if not size:
        size = sizes[-1]
        while _lines(text, size * 1.1, BODY_W, 0) > most:
            text = _shorten(text, len(text) - 8)
    para = frame.paragraphs[0]
    para.alignment = PP_ALIGN.LEFT
    _run(para, text, Style(size, bold=True, color=WHITE), lang)


def _footer(slide, report: Report, number: int, text: str = "") -> None:
    """``text`` (the report's title when empty) and the slide number (none on the title
    slide), small, along the bottom edge."""
    box = slide.shapes.add_textbox(MARGIN, FOOTER_TOP, BODY_W, Inches(0.35))
    frame = box.text_frame
    frame.word_wrap = True
    left = frame.paragraphs[0]
    shown = _shorten(text, 200) if text else _shorten(report.title, 90)
    _run(left, shown, Style(10, color=MUTED), report.lang)
    if number > 1:
        _run(left, f"   {number}", Style(10, bold=True, color=ACCENT), report.lang)


def _notes(slide, report: Report, numbers: list[int]) -> None:
    """The exact quotes cited on the slide, with their numbers and sources."""
    if not numbers:
        return
    lines = [labelled(report, "cited").rstrip()]
    for n in numbers:
        c = report.citations[n - 1]
        place = shown_place(c.item.url)
        named = [c.title, place] if c.title and c.title != place else [c.title or place]
        head = f"[{n}] " + " — ".join(named)
        if c.item.locator:
            head += in_brackets(locator_text(c.item.locator, report.lang), report.lang)
        shown = quote_shown(c.item.span, report.lang, limit=2000)
        mark = language_mark(shown.text, report.lang) if shown.quoted else ""
        lines.append(f"{head}\n{shown.marked()}{mark}")
    frame = slide.notes_slide.notes_text_frame
    frame.text = "\n".join(lines)
    for para in frame.paragraphs:
        for run in para.runs:
            _set_fonts(run._r.get_or_add_rPr(), report.lang)


def _cited(points: list[Point]) -> list[int]:
    seen: dict[int, None] = {}
    for p in points:
        for c in p.cites():
            seen.setdefault(int(c.key[1:]), None)
    return list(seen)


def _point_paragraphs(frame, points: list[Point], size: float, lang: str) -> None:
    """One paragraph per point: its words, then its markers in the accent colour."""
    frame.word_wrap, frame.auto_size = True, MSO_AUTO_SIZE.NONE
    for i, point in enumerate(points):
        para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        para.space_after = Pt(size * 0.5)
        words, markers = _bullet_parts(point)
        if _markers_inside(point) and not words.endswith("…"):
            # Each value keeps its own marker ("1,747 km [16], about 1,800 km [18]").
            parts = tight(point)
            for i, part in enumerate(parts):
                if isinstance(part, Cite):
                    _run(para, f"[{part.key[1:]}]", Style(size * 0.8, color=ACCENT), lang)
                elif part:
                    cited = i + 1 < len(parts) and isinstance(parts[i + 1], Cite)
                    _run(para, glued(part) if cited else part, Style(size), lang)
            continue
        _run(para, glued(words) if markers else words, Style(size), lang)
        if markers:
            _run(para, markers, Style(size * 0.8, color=ACCENT), lang)


def _title_slide(prs, report: Report, points: list[Point]) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_LAYOUT])
    band = Inches(3.1)
    _band(slide, band)
    _title(slide, report.title, report.lang, top=Inches(0.5), height=band - Inches(0.7))
    body = slide.placeholders[1]
    box_h = FOOTER_TOP - band - Inches(0.5)
    _place(body, MARGIN, band + Inches(0.35), BODY_W, box_h)
    body.text_frame.vertical_anchor = MSO_ANCHOR.TOP
    texts = ["".join(_bullet_parts(p)) for p in points]
    _point_paragraphs(body.text_frame, points, _fit_size(texts, BODY_W, box_h), report.lang)
    for para in body.text_frame.paragraphs:
        para.alignment = PP_ALIGN.LEFT
    _notes(slide, report, _cited(points))


def _bullet_slide(prs, report: Report, title: str, points: list[Point]) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[CONTENT_LAYOUT])
    _band(slide, BAND_H)
    _title(slide, title, report.lang)
    body = slide.placeholders[1]
    _place(body, MARGIN, BODY_TOP, BODY_W, BODY_H)
    texts = ["".join(_bullet_parts(p)) for p in points]
    _point_paragraphs(body.text_frame, points, _fit_size(texts, BODY_W, BODY_H), report.lang)
    _notes(slide, report, _cited(points))


def _continued(report: Report, title: str, i: int) -> str:
    if not i:
        return title
    return (
        f"{title}（{report.label('continued')}）"
        if report.lang == "zh"
        else (f"{title} ({report.label('continued')})")
    )


def _caption_line(
    slide, report: Report, label: str, caption: Point, top: int, note: str = ""
) -> None:
    """``Table 1 · caption [n]`` under a table or chart, and the table's ``note`` (its
    source's caveat) on a line below it."""
    box = slide.shapes.add_textbox(MARGIN, top, BODY_W, Inches(0.45))
    frame = box.text_frame
    frame.word_wrap = True
    para = frame.paragraphs[0]
    words, markers = _bullet_parts(caption)
    _run(para, f"{label} · ", Style(13, bold=True, color=MUTED), report.lang)
    words = _shorten(words, 150)
    _run(para, glued(words) if markers else words, Style(13, color=MUTED), report.lang)
    if markers:
        _run(para, markers, Style(11, color=ACCENT), report.lang)
    if note:
        _run(frame.add_paragraph(), _shorten(note, NOTE_CHARS), Style(11, color=INK), report.lang)


def _cell(cell, text: str, style: Style, right: bool, fill: RGBColor | None, lang: str) -> None:
    cell.margin_left = cell.margin_right = Inches(0.08)
    cell.margin_top = cell.margin_bottom = Inches(0.04)
    cell.vertical_anchor = MSO_ANCHOR.MIDDLE
    if fill is not None:
        cell.fill.solid()
        cell.fill.fore_color.rgb = fill
    else:
        cell.fill.background()
    frame = cell.text_frame
    frame.word_wrap = True
    para = frame.paragraphs[0]
    para.alignment = PP_ALIGN.RIGHT if right else PP_ALIGN.LEFT
    _run(para, _shorten(text, CELL_CHARS), style, lang)


@dataclass(frozen=True)
class TableLayout:
    """How a table is set on slides: its rows (ending in a "…" row when cut), font size,
    column widths, row heights, and which rows go on each slide."""

    rows: list[list[str]]
    size: int
    widths: list[int]
    header_height: int
    row_heights: list[int]
    pages: list[range]


def _column_cells(table: Table, rows: list[list[str]], j: int) -> list[str]:
    head = table.header[j] if j < len(table.header) else ""
    return [head, *(r[j] if j < len(r) else "" for r in rows)]


def _word_em(text: str) -> float:
    """Width in ems of the longest piece of ``text`` that cannot wrap (CJK wraps anywhere,
    but a short CJK name reads better whole)."""
    words = re.split(r"\s+", text.strip()) or [""]
    return max(min(_em(w), 4.0) if any(ord(ch) >= 0x2E80 for ch in w) else _em(w) for w in words)


#: The height a table's rows may take on a slide: the body down to the footer, less its
#: caption line (0.45 in) and the gap above it.
TABLE_ROOM = FOOTER_TOP - BODY_TOP - Inches(0.6)
#: How much of a table's notes its last slide shows under the caption: one line at 11 pt,
#: which the caption line's room holds.
NOTE_CHARS = 150
#: Rows of a table are laid out to wrap to at most this many lines before its columns
#: are only as wide as their longest words.
MAX_CELL_LINES = 6
#: Words do not fill a wrapped line: a cell needs this much more than its text's width.
WRAP_SLACK = 1.15


def _widths(table: Table, rows: list[list[str]], columns: int, size: int) -> list[int]:
    """Column widths filling the body, by content: the fewest lines every cell can wrap
    to (one, two, …) while all columns fit, each column as wide as its longest cell needs
    for that (never narrower than its longest word); the room left goes to the columns
    that still wrap. A long note gets the room, a short name stays on one line."""
    inch = size / 72 * 1.08  # inches per em, with room for bold headers
    cells = [
        [_shorten(c, CELL_CHARS) for c in _column_cells(table, rows, j)] for j in range(columns)
    ]
    longest = [max(map(_em, col)) for col in cells]
    least = [min(max(map(_word_em, col)) * inch, 2.5) + CELL_PAD for col in cells]
    room = Emu(BODY_W).inches
    inches = [m * room / sum(least) for m in least]  # words alone do not fit: squeeze them
    for lines in range(1, MAX_CELL_LINES + 1):
        slack = WRAP_SLACK if lines > 1 else 1.0
        need = [
            max(m, em / lines * slack * inch + CELL_PAD)
            for m, em in zip(least, longest, strict=True)
        ]
        if sum(need) <= room:
            whole = [em * inch + CELL_PAD for em in longest]
            wraps = [max(w - n, 0.0) for w, n in zip(whole, need, strict=True)]
            weights = wraps if sum(wraps) else need
            spare = room - sum(need)
            inches = [n + spare * w / sum(weights) for n, w in zip(need, weights, strict=True)]
            break
    widths = [Inches(w) for w in inches]
    widths[-1] += BODY_W - sum(widths)
    return widths


def _row_height(cells: list[str], widths: list[int], size: int) -> int:
    """A row's height: that of its tallest cell, wrapped to its column's width."""
    tallest = 1.0
    for text, width in zip(cells, widths, strict=False):
        per_line = (Emu(width).inches - CELL_PAD) * 72 / (size * 1.08)
        lines = math.ceil(_em(_shorten(text, CELL_CHARS)) / max(per_line, 1.0))
        leading = 1.45 if any(ord(ch) >= 0x2E80 for ch in text) else 1.2
        tallest = max(tallest, max(lines, 1) * leading)
    return Inches(tallest * size / 72 + 0.12)


def _pages(header: int, heights: list[int], room: int) -> list[range]:
    """Rows grouped into slides: each slide takes as many rows as fit under the header (at
    most TABLE_ROWS) before the table goes on to the next, so no slide is left half empty
    while rows wait on the one after it."""
    pages: list[range] = []
    start, used = 0, header
    for i, height in enumerate(heights):
        if i > start and (used + height > room or i - start >= TABLE_ROWS):
            pages.append(range(start, i))
            start, used = i, header
        used += height
    pages.append(range(start, len(heights)))
    return pages


def table_layout(table: Table) -> TableLayout:
    """Lay ``table`` out for slides: on one slide at the largest size that fits, else over
    several at 14 pt; past four slides it is cut, with a row of "…"."""
    columns = max([len(table.header), *(len(r) for r in table.rows)])
    for size in TABLE_SIZES:
        layout = _layout_at(table, list(table.rows), columns, size)
        if len(layout.pages) == 1:
            return layout
    rows = list(table.rows)
    while True:
        layout = _layout_at(table, rows, columns, TABLE_SIZES[-2])
        if len(layout.pages) <= TABLE_SLIDES:
            return layout
        rows = [*rows[: layout.pages[TABLE_SLIDES - 1].stop - 1], ["…"] * columns]


def _layout_at(table: Table, rows: list[list[str]], columns: int, size: int) -> TableLayout:
    """The layout of ``rows`` at ``size`` points."""
    widths = _widths(table, rows, columns, size)
    header = _row_height(table.header, widths, size)
    heights = [_row_height(r, widths, size) for r in rows]
    room = TABLE_ROOM
    return TableLayout(rows, size, widths, header, heights, _pages(header, heights, room))


def _table_slide(
    prs, report: Report, title: str, table: Table, layout: TableLayout, page: range, n: int
) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT])
    _band(slide, BAND_H)
    _title(slide, title, report.lang)
    rows = [layout.rows[i] for i in page]
    height = layout.header_height + sum(layout.row_heights[i] for i in page)
    columns = len(layout.widths)
    shape = slide.shapes.add_table(len(rows) + 1, columns, MARGIN, BODY_TOP, BODY_W, height)
    grid = shape.table
    grid.first_row = True
    for j, width in enumerate(layout.widths):
        grid.columns[j].width = width
    numeric = numeric_columns(table)
    head = Style(layout.size, bold=True, color=WHITE)
    for j in range(columns):
        text = table.header[j] if j < len(table.header) else ""
        _cell(grid.cell(0, j), text, head, j in numeric, ACCENT, report.lang)
    grid.rows[0].height = layout.header_height
    for k, (i, row) in enumerate(zip(page, rows, strict=True), 1):
        fill = STRIPE if k % 2 == 0 else WHITE
        style = Style(layout.size, bold=bool(row) and is_total(row[0]))
        for j in range(columns):
            text = row[j] if j < len(row) else ""
            _cell(grid.cell(k, j), text, style, j in numeric, fill, report.lang)
        grid.rows[k].height = layout.row_heights[i]
    top = BODY_TOP + height + Inches(0.1)
    last = page.stop == len(layout.rows)
    note = " ".join(table.notes) if last else ""  # its source's notes, under its last rows
    _caption_line(slide, report, f"{report.label('table')} {n}", table.caption, top, note)
    _notes(slide, report, _cited([table.caption]))


def _table_slides(prs, report: Report, table: Table, n: int, heading: str = "") -> None:
    """A table over as many slides as it needs (at most four; a cut is shown by a … row),
    titled by ``heading`` when given, else by its caption."""
    layout = table_layout(table)
    caption = _shorten(table.caption.text.strip().rstrip(".。"), 120)
    title = heading or caption or report.label("table")
    for i, page in enumerate(layout.pages):
        _table_slide(prs, report, _continued(report, title, i), table, layout, page, n)


def _number_format(chart: Chart, axis: bool = False) -> str:
    """Excel number format of the values (labels) or of the value axis (whole numbers
    unless the values are small)."""
    values = [v for _, vs in chart.series for v in vs if not math.isnan(v)]
    whole = all(v == int(v) for v in values) or (axis and max(map(abs, values)) >= 10)
    return ("#,##0" if whole else "#,##0.0") + ('"%"' if chart.unit == "%" else "")


def _chart_fonts(chart_shape, lang: str) -> None:
    """Chart text in the deck's fonts (Latin and East Asian), 14 pt, dark."""
    font = chart_shape.chart.font
    font.size = Pt(14)
    font.color.rgb = INK
    rpr = chart_shape.chart._chartSpace.find(".//" + qn("a:defRPr"))
    _set_fonts(rpr, lang)
    rpr.attrib.pop("lang", None)  # defRPr takes no language


def _chart_slide(prs, report: Report, chart: Chart, table: Table, n: int) -> None:
    slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT])
    _band(slide, BAND_H)
    _title(slide, chart_heading(chart, report.lang, limit=120), report.lang)
    data = CategoryChartData(number_format=_number_format(chart))
    data.categories = [_shorten(x, 40) for x in chart.labels]
    for name, values in chart.series:
        data.add_series(_shorten(name, 60), [None if math.isnan(v) else v for v in values])
    # Bars across the slide read well for many or long labels, but a viewer may stack a
    # group's bars against the order of its legend; columns of several series stand left
    # to right in the legend's order everywhere.
    long_labels = len(chart.labels) > 8 or max(len(x) for x in chart.labels) > 14
    horizontal = long_labels and len(chart.series) == 1
    kind = XL_CHART_TYPE.BAR_CLUSTERED if horizontal else XL_CHART_TYPE.COLUMN_CLUSTERED
    height = BODY_H - Inches(0.6)
    shape = slide.shapes.add_chart(kind, MARGIN, BODY_TOP, BODY_W, height, data)
    plot = shape.chart.plots[0]
    plot.gap_width = 60
    plot.has_data_labels = True
    plot.data_labels.number_format = _number_format(chart)
    plot.data_labels.number_format_is_linked = False
    plot.data_labels.font.size = Pt(12)
    for i, series in enumerate(plot.series):
        series.format.fill.solid()
        series.format.fill.fore_color.rgb = RGBColor.from_string(PALETTE[i % len(PALETTE)][1:])
    shape.chart.has_title = False
    shape.chart.has_legend = len(chart.series) > 1
    if shape.chart.has_legend:
        shape.chart.legend.position = XL_LEGEND_POSITION.TOP
        shape.chart.legend.include_in_layout = False
    value_axis = shape.chart.value_axis
    value_axis.has_major_gridlines = True
    value_axis.major_gridlines.format.line.color.rgb = RGBColor(0xD0, 0xD7, 0xDE)
    value_axis.format.line.fill.background()
    value_axis.tick_labels.number_format = _number_format(chart, axis=True)
    value_axis.tick_labels.number_format_is_linked = False
    if horizontal:
        shape.chart.category_axis.reverse_order = True
    _chart_fonts(shape, report.lang)
    top = BODY_TOP + height + Inches(0.1)
    _caption_line(slide, report, f"{report.label('chart')} {n}", table.caption, top)
    _notes(slide, report, _cited([table.caption]))


def _source_paragraph(frame, report: Report, entry: SourceEntry, first: bool) -> None:
    """One source as one bullet of three lines: its title, its URL (or file path), and
    the numbers of the quotes cited from it with its stored copy."""
    para = frame.paragraphs[0] if first else frame.add_paragraph()
    para.space_after = Pt(10)
    if entry.title:
        _run(para, _shorten(entry.title, 80), Style(18, bold=True), report.lang)
        para.add_line_break()
    link = entry.kind == "web" and re.fullmatch(r"https?://\S+", entry.url)
    if entry.where:
        # Only a live address looks like a link; a file is named, in the text's colour.
        style = Style(14, color=ACCENT if link else MUTED)
        _run(para, _shorten(entry.where, 110), style, report.lang)
        if link:
            para.runs[-1].hyperlink.address = entry.url
        para.add_line_break()
    numbers = " ".join(f"[{c.number}]" for c in entry.quotes)
    if when := report.source_dates(entry):  # the page's own day, the day it was fetched
        numbers += " · " + when
    _run(para, _shorten(numbers, 140), Style(12, color=MUTED), report.lang)


def _sources_slides(prs, report: Report) -> None:
    entries = report.source_entries()
    for i in range(0, len(entries), SOURCES_PER_SLIDE):
        batch = entries[i : i + SOURCES_PER_SLIDE]
        slide = prs.slides.add_slide(prs.slide_layouts[CONTENT_LAYOUT])
        _band(slide, BAND_H)
        _title(slide, _continued(report, report.label("sources"), i), report.lang)
        body = slide.placeholders[1]
        _place(body, MARGIN, BODY_TOP, BODY_W, BODY_H)
        frame = body.text_frame
        frame.word_wrap, frame.auto_size = True, MSO_AUTO_SIZE.NONE
        for k, entry in enumerate(batch):
            _source_paragraph(frame, report, entry, k == 0)
        _notes(slide, report, [c.number for e in batch for c in e.quotes])


def _section_slides(prs, report: Report) -> None:
    tables, charts = 0, 0
    for section in reading_order(report.sections):
        status = [Point([section.status])] if section.status else []
        chunks = _chunks([*status, *section.points], BODY_W, BODY_H)
        for i, chunk in enumerate(chunks):
            _bullet_slide(prs, report, _continued(report, _shorten(section.heading, 90), i), chunk)
        # a section of tables alone (the appendix) is named on its tables' slides
        heading = "" if chunks else _shorten(section.heading, 90)
        for table in section.tables:
            tables += 1
            _table_slides(prs, report, table, tables, heading)
            chart = chart_of(table)
            if chart is not None:
                charts += 1
                _chart_slide(prs, report, chart, table, charts)


def render_pptx(report: Report) -> bytes:
    """The report as PPTX bytes."""
    prs = _deck(report)
    box_h = FOOTER_TOP - Inches(3.1) - Inches(0.5)
    summary = _chunks(report.summary, BODY_W, box_h) or [[]]
    _title_slide(prs, report, summary[0])
    for i, chunk in enumerate(summary[1:], 1):
        _bullet_slide(prs, report, _continued(report, report.label("summary"), i), chunk)
    _section_slides(prs, report)
    if report.citations:
        _sources_slides(prs, report)
    slides = list(prs.slides)
    colophon = report.colophon_line()
    for number, slide in enumerate(slides, 1):
        if number == len(slides) and colophon:
            # The last slide says when and how the report was made, where a reader looks.
            _footer(slide, report, number, colophon)
        elif number > 1:
            _footer(slide, report, number)
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


PPTX = Format("PPTX", (".pptx",), lambda r, _stem: render_pptx(r))
