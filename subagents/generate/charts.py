"""Bar charts of a report's tables: which tables get one, and the chart as PNG or SVG.

:func:`chart_for` reads a :class:`~.notes.Table` and returns a :class:`~.notes.Chart` when
a column is numeric (at least three numbers, thousands separators, percentages, currency
signs and ranges such as ``20–42`` understood; a range is drawn at its midpoint); a
"Total"/"Sum"/"合计" row is left out, the labels come from the first text column (or a
first column of years), and at most two series of one kind are drawn: one axis never
mixes units (a count beside a percentage) or magnitudes (values more than 5× apart).
When the columns cannot share an axis, the one the part is about is drawn — the column
whose header shares most words with the part's heading and the table's caption, a
sample-size column ("colonies surveyed", "respondents") last. A chart's title is its
table's caption when that says what the table shows, else what the chart shows in the
report's language, from its columns (:mod:`.chart_titles`): "Depth and width of each
well" (各水井的深度和宽度), "Length of each trail, low and high", its unit stated once
after it. :func:`attach_charts` fixes each table's chart from the section
it stands in, so every format draws the same, and moves a table whose chart does not
answer the part it stands under (:func:`research.placement.chart_answers`) to an appendix,
"Data from the sources".

:func:`chart_png` and :func:`chart_svg` draw it with matplotlib (Agg, imported on first
use) in the report's palette. Fonts are named by file path — DejaVu Sans (bundled with
matplotlib), then for Chinese WenQuanYi Zen Hei or Noto Sans CJK where Debian puts them,
else the Chinese fonts fontconfig knows (``fc-list :lang=zh``) — so the output does not
depend on matplotlib's font cache; every glyph DejaVu Sans lacks falls back to the CJK
font, in titles, ticks, value labels and the legend alike. Drawing is serialised (the rc
settings are process-wide) and matplotlib's warnings are logged, never printed into the
live display. A chart carries no date or software version, so the same chart always
gives the same bytes.
"""

from __future__ import annotations

import io
import logging
import math
import re
import shutil
import subprocess
import threading
import warnings
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

from research.labels import label
from research.placement import chart_answers
from research.text import CJK_CLASS, language

from .chart_titles import HEADER_UNIT, PERCENT_HEADER, shown_title, shown_unit
from .kept import CHART_LIBRARIES, digest_of, drawn_once, rendering_key
from .notes import Chart, Section, Table

#: Bar colours, in series order; the first is the report's accent colour.
PALETTE = ("#0B62C4", "#E07B00")
INK = "#1F2328"
GRID = "#D0D7DE"
#: CJK fonts tried in order; the first that exists is used for Chinese glyphs.
CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
)
#: How many CJK fonts join the fallback list after DejaVu Sans.
MAX_CJK_FONTS = 2
MIN_VALUES = 3
MAX_LABELS = 24
MAX_SERIES = 2
#: Two series share an axis only when their largest values are within this factor.
MAX_SCALE_RATIO = 5

_TOTAL = re.compile(
    r"^(?:grand\s+)?(?:total|sum|subtotal|overall)s?\b|^(?:合计|总计|总和|小计|共计)"
)
_NUM = r"[-−]?\d[\d,，\u00a0\u202f ]*(?:\.\d+)?"
_VALUE = re.compile(
    rf"^(?:[~≈约]|about\s+|c\.\s*)?[$€£¥￥]?\s*(?P<a>{_NUM})"
    rf"(?:\s*(?:[–—~～至到]|-|to)\s*[$€£¥￥]?\s*(?P<b>{_NUM}))?"
    r"\s*(?P<pct>[%％])?\s*(?:[*†‡]+)?$",
    re.I,
)
_GROUPS = re.compile(r"^[-−]?\d{1,3}(?:[,，\u00a0\u202f ]\d{3})+(?:\.\d+)?$|^[-−]?\d+(?:\.\d+)?$")
_YEAR = re.compile(r"^(?:1[5-9]|20|21)\d{2}(?:\s*[–—-]\s*(?:\d{2}|\d{4}))?\s*年?$")
_YEAR_HEADER = re.compile(
    r"^(?:year|years|fy|date|dates|period|年份|年度|年|日期|时间|年代)$", re.I
)
_INDEX_HEADER = re.compile(r"^(?:#|no\.?|rank|id|day|step|序号|排名|编号|天|第几天)$", re.I)
_SAMPLE_HEADER = re.compile(
    r"(?:\b|_)(?:surveyed|sampled|sample|respondents|observations|n)(?:\b|_)|样本|调查", re.I
)
_WORD = re.compile(rf"[a-z]+|[{CJK_CLASS}]", re.I)


def _number(raw: str) -> float | None:
    """One number from its written form: ``1,234`` → 1234.0, ``−5`` → -5.0."""
    text = raw.strip().replace("−", "-")
    if not _GROUPS.match(text):
        return None
    return float(re.sub(r"[,，\u00a0\u202f ]", "", text))


def cell_number(cell: str) -> float | None:
    """The value a table cell states, or None when it is not a number.

    Thousands separators (``1,234``, ``1 234``), percentages (``40%``), a currency sign,
    an "about" prefix and a footnote mark are allowed; a range (``20–42``) gives its
    midpoint.
    """
    m = _VALUE.match(cell.strip())
    if m is None:
        return None
    a = _number(m.group("a"))
    b = _number(m.group("b")) if m.group("b") else None
    if a is None or (m.group("b") and b is None):
        return None
    return a if b is None else (a + b) / 2


def is_total(label: str) -> bool:
    """Whether a row label names a total (``Total``, ``Sum``, ``合计``, ``总计`` …)."""
    return bool(_TOTAL.match(label.strip().lower()))


def _column(rows: list[list[str]], j: int) -> list[str]:
    return [row[j].strip() if j < len(row) else "" for row in rows]


def _is_numeric(cells: list[str]) -> bool:
    """At least three numbers, and numbers in most of the filled cells."""
    filled = [c for c in cells if c and c not in ("-", "–", "—", "n/a", "N/A")]
    numbers = [c for c in filled if cell_number(c) is not None]
    return len(numbers) >= MIN_VALUES and len(numbers) * 4 >= len(filled) * 3


def numeric_columns(table: Table) -> set[int]:
    """The columns of ``table`` that hold numbers (three or more, in most filled cells)."""
    width = max([len(table.header), *(len(r) for r in table.rows)], default=0)
    return {j for j in range(width) if _is_numeric(_column(table.rows, j))}


def _is_years(header: str, cells: list[str]) -> bool:
    """A column of years or dates (by its header, or every filled cell a year)."""
    return bool(_YEAR_HEADER.match(header.strip())) or all(_YEAR.match(c) for c in cells if c)


def _is_ordinal(header: str, cells: list[str]) -> bool:
    """A column that numbers the rows (``#``, ``Day``, or exactly 1, 2, 3 … / 0, 1, 2 …)."""
    if _INDEX_HEADER.match(header.strip()):
        return True
    values = [cell_number(c) for c in cells if c]
    start = values[0] if values else None
    return start in (0, 1) and values == [start + i for i in range(len(values))]


def _is_measure(header: str, cells: list[str]) -> bool:
    """A numeric column worth drawing: not years or dates, not a row number."""
    return _is_numeric(cells) and not _is_years(header, cells) and not _is_ordinal(header, cells)


def _label_column(header: list[str], rows: list[list[str]], numeric: list[int]) -> int | None:
    """The first text column, or a first column of years, or None."""
    width = max([len(header), *(len(r) for r in rows)])
    if 0 in numeric and _is_years(header[0] if header else "", _column(rows, 0)):
        return 0
    for j in range(width):
        if j not in numeric and any(_column(rows, j)):
            return j
    return None


def _kind(cells: list[str]) -> str:
    return "%" if any(c.endswith(("%", "％")) for c in cells if cell_number(c) is not None) else ""


def _unit(header: str, cells: list[str]) -> str:
    """The column's unit: in brackets in its header, ``%`` on its cells or named in its
    header ("loss_pct", "share (percent)"), else none."""
    m = HEADER_UNIT.search(header)
    if m:
        return "%" if PERCENT_HEADER.search(m.group(1)) else m.group(1)
    return _kind(cells) or ("%" if PERCENT_HEADER.search(header) else "")


def _same_scale(a: list[float], b: list[float]) -> bool:
    """Whether two series can share one axis (their largest values within 5×)."""
    top_a = max((abs(v) for v in a if not math.isnan(v)), default=0.0)
    top_b = max((abs(v) for v in b if not math.isnan(v)), default=0.0)
    small, big = sorted((top_a, top_b))
    return small > 0 and big / small <= MAX_SCALE_RATIO


def _stem(word: str) -> str:
    """A word without its plural ending: ``losses`` → ``loss``, ``colonies`` → ``colony``."""
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _words(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text)]


def _aboutness(header: str, about: list[str]) -> int:
    """How often the words of ``about`` name the column ``header``; a sample-size column
    ("colonies surveyed") counts less than any other."""
    words = set(_words(header))
    score = sum(1 for w in about if w in words)
    return score - 100 if _SAMPLE_HEADER.search(header) else score


def _values(cells: list[str]) -> list[float]:
    return [v if (v := cell_number(c)) is not None else math.nan for c in cells]


_FILE_NAME = re.compile(r"\.(?:xlsx|xls|csv|tsv|ods|pdf|pptx)\b", re.I)


def _title(table: Table, shown: Chart, ordered: bool, lang: str) -> str:
    """The caption when it says what the table shows; what the chart shows, from its
    columns (:func:`.chart_titles.shown_title`), when the caption only names a file and
    sheet ("wells.xlsx, sheet Depths")."""
    caption = table.caption.text.strip().rstrip(".。")
    if caption and not _FILE_NAME.search(caption):
        return caption if len(caption) <= 90 else caption[:89].rstrip() + "…"
    series = [name for name, _ in shown.series]
    return shown_title(series, shown.by, lang, unit=shown.unit, ordered=ordered)


def chart_for(table: Table, about: str = "", lang: str = "") -> Chart | None:
    """A bar chart of ``table``'s numeric columns, or None when it has none to draw.

    Rows whose label is a total are left out; labels come from the first text column
    (or a first column of years); a series is a column of measures (not years or dates,
    not row numbers); at most two series, the second only when it has the same unit and
    a comparable scale (largest values within 5×). The first series is the column
    ``about`` (the part's heading) and the caption name most, in table order on a tie. A
    table with more than 24 rows gets no chart. Its title is worded in ``lang`` (by
    default the language of the table's header).
    """
    header = [h.strip() for h in table.header]
    rows = [r for r in table.rows if any(c.strip() for c in r)]
    numeric = sorted(numeric_columns(Table(header, rows)))
    label_j = _label_column(header, rows, numeric)
    if label_j is None:
        return None
    rows = [r for r in rows if not is_total(_column([r], label_j)[0])]
    if not 2 <= len(rows) <= MAX_LABELS:
        return None
    picked: list[tuple[int, str, list[float], str]] = []
    names = {j: header[j] if j < len(header) and header[j] else f"#{j + 1}" for j in numeric}
    topic = _words(f"{about} {table.caption.text}")
    for j in sorted(numeric, key=lambda j: -_aboutness(names[j], topic)):
        cells, name = _column(rows, j), names[j]
        if j == label_j or not _is_measure(name, cells):
            continue
        values, unit = _values(cells), _unit(name, cells)
        first = picked[0] if picked else None
        if first and (unit != first[3] or not _same_scale(first[2], values)):
            continue
        picked.append((j, name, values, unit))
        if len(picked) == MAX_SERIES:
            break
    if not picked:
        return None
    unit = picked[0][3]
    picked = [(name, values, u) for _, name, values, u in sorted(picked)]  # table order
    label_header = header[label_j] if label_j < len(header) else ""
    labels = _column(rows, label_j)
    chart = Chart("", labels, [(name, values) for name, values, _ in picked], unit, label_header)
    ordered = _is_years(label_header, labels)
    chart.title = _title(table, chart, ordered, lang or language(" ".join(header)))
    return chart


def chart_of(table: Table) -> Chart | None:
    """The table's own chart when it has one, else the one :func:`chart_for` finds."""
    return table.chart if table.chart is not None else chart_for(table)


def chart_words(table: Table, chart: Chart) -> str:
    """What a chart names: its title, its series, its label column and its table's
    caption."""
    return " ".join(
        [chart.title, *(name for name, _ in chart.series), chart.by, table.caption.text]
    )


def _asks(heading: str) -> bool:
    """Whether a section's heading is a question (a part of the one asked)."""
    return heading.rstrip().endswith(("?", "？"))


def appendix(tables: list[Table], lang: str) -> Section:
    """The section that holds the tables no part asks about, with their charts ("Data
    from the sources")."""
    return Section(label(lang, "appendix"), tables=tables, kind="appendix")


def _unanswered(section: Section, parts: list[str], question: str) -> list[Table]:
    """The tables of a part whose charts do not answer it (see
    :func:`research.placement.chart_answers`)."""
    return [
        t
        for t in section.tables
        if t.chart is not None
        and not chart_answers(section.heading, chart_words(t, t.chart), parts, question)
    ]


def attach_charts(sections: list[Section], lang: str = "en", question: str = "") -> list[Section]:
    """The sections with each table's chart drawn and placed where it answers.

    A table without a chart gets the one drawn for the section it stands in (its heading
    says which column the part is about), so that every format draws it. A charted table
    in a part of the question (a section headed by a question: a heading the notes chose,
    such as "Costs", places its tables as their writer meant) whose question the chart
    does not answer (see :func:`research.placement.chart_answers`) moves, with its chart,
    to an appendix after the other sections, unless it is all its section shows.

    Args:
        sections: the report's sections (changed in place: tables get their charts and
            lose those that move).
        lang: the report's language, for the charts' titles and the appendix.
        question: the whole question (the report's title), which sets each part's
            subject apart from what it asks.

    Returns:
        The sections, with the appendix last when a table moved there (the one they have
        already, for a report read back).
    """
    parts = [s.heading for s in sections if s.kind == "part" and _asks(s.heading)]
    moved: list[Table] = []
    for section in sections:
        for table in section.tables:
            if table.chart is None:
                table.chart = chart_for(table, about=section.heading, lang=lang)
        if section.heading in parts and section.points:
            away = _unanswered(section, parts, question)
            section.tables = [t for t in section.tables if not any(t is a for a in away)]
            moved += away
    kept = next((s for s in sections if s.kind == "appendix"), None)  # a report read back
    if kept is not None:
        kept.tables += moved
    return [*sections, appendix(moved, lang)] if moved and kept is None else sections


# --- drawing ----------------------------------------------------------------------------

log = logging.getLogger(__name__)
#: matplotlib's rc settings and warning filters are process-wide: one chart at a time.
_DRAWING = threading.Lock()
#: The project's modules a chart is drawn by.
CHART_CODE = ("subagents.generate.charts", "subagents.generate.chart_titles")
#: The charts drawn last, as (chart, language, format, titled) → bytes, oldest first.
_DRAWN: OrderedDict[tuple[str, str, str, bool], bytes] = OrderedDict()
#: How many drawn charts are kept (a report rarely has more than a few).
DRAWN_KEPT = 16
_FONT_FILE = re.compile(r"\.(?:ttf|ttc|otf)$", re.I)


def _fontconfig_cjk() -> list[str]:
    """Font files fontconfig lists for Chinese, regular sans faces first (none without
    ``fc-list``)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return []
    try:
        out = subprocess.run(
            [fc_list, ":lang=zh", "file"], capture_output=True, text=True, timeout=20
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    files = sorted({line.strip().rstrip(":") for line in out.splitlines()} - {""})

    def rank(path: str) -> tuple[bool, bool, bool, str]:
        name = Path(path).name.lower()
        serif = "sans" not in name and "hei" not in name
        weight = any(w in name for w in ("bold", "black", "light", "thin", "medium"))
        return serif, "mono" in name, weight, path

    return sorted((f for f in files if _FONT_FILE.search(f)), key=rank)


def cjk_font_files() -> list[str]:
    """The CJK font files charts fall back to: the known Debian paths that exist, then
    those fontconfig lists; at most :data:`MAX_CJK_FONTS`."""
    found = [p for p in CJK_FONTS if Path(p).exists()]
    if len(found) < MAX_CJK_FONTS:
        found += [p for p in _fontconfig_cjk() if p not in found]
    return found[:MAX_CJK_FONTS]


@cache
def _fonts() -> tuple[str, ...]:
    """Font family names to use, registered from their files: Latin first, then CJK."""
    from matplotlib import font_manager

    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    families = ["DejaVu Sans"]
    for path in cjk_font_files():
        try:
            font_manager.fontManager.addfont(path)
            name = font_manager.FontProperties(fname=path).get_name()
        except (OSError, RuntimeError, ValueError):
            continue
        if name not in families:
            families.append(name)
    if len(families) == 1:
        log.warning("no CJK font found for charts; install fonts-noto-cjk or fonts-wqy-zenhei")
    return tuple(families)


@cache
def _charmap(family: str) -> frozenset[int]:
    """The code points the font registered as ``family`` has glyphs for."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    props = font_manager.FontProperties(family=family)
    path = font_manager.fontManager.findfont(props, fallback_to_default=False)
    return frozenset(FT2Font(path).get_charmap())


def missing_glyphs(text: str, lang: str) -> str:
    """The characters of ``text`` that no font of a chart in ``lang`` can draw."""
    maps = [_charmap(f) for f in _family(lang)]
    seen = dict.fromkeys(ch for ch in text if not ch.isspace())
    return "".join(ch for ch in seen if not any(ord(ch) in m for m in maps))


def _family(lang: str) -> list[str]:
    """Latin glyphs from DejaVu Sans, Chinese from the CJK font (first for Chinese)."""
    families = list(_fonts())
    return families[::-1] if lang == "zh" and len(families) > 1 else families


def _short(label: str, limit: int = 28) -> str:
    return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"


def display_width(text: str) -> float:
    """Rough width of ``text`` in Latin characters (a CJK character counts two)."""
    return sum(2.0 if ord(ch) > 0x2E80 else 1.0 for ch in text)


def _format(value: float, unit: str) -> str:
    """A bar's value label: thousands separated, at most two decimals, ``%`` kept."""
    if math.isnan(value):
        return ""
    text = f"{value:,.2f}".rstrip("0").rstrip(".")
    return text + ("%" if unit == "%" else "")


def _horizontal(chart: Chart) -> bool:
    """Long or many labels read better on horizontal bars."""
    widest = max((display_width(x) for x in chart.labels), default=0)
    return len(chart.labels) > 8 or widest > 14


def _rc(lang: str) -> dict[str, Any]:
    """matplotlib settings for one chart: fonts, sizes, fixed SVG ids, glyphs as paths."""
    return {
        "font.family": _family(lang),
        "font.size": 11,
        "axes.unicode_minus": False,
        "svg.hashsalt": "quartet-chart",
        "svg.fonttype": "path",
    }


def _figure(chart: Chart, lang: str, titled: bool) -> Any:
    """The chart as a matplotlib ``Figure`` (drawn under the caller's rc settings)."""
    from matplotlib.figure import Figure

    horizontal = _horizontal(chart)
    height = max(3.4, 0.32 * len(chart.labels) + 1.2) if horizontal else 3.4
    fig = Figure(figsize=(5.6, height), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    _draw_bars(ax, chart, horizontal)
    _style_axes(ax, chart, horizontal)
    if titled:
        ax.set_title(chart_heading(chart, lang), loc="left", fontsize=12, color=INK, pad=8)
    if len(chart.series) > 1:  # below the plot, where it covers no bar
        fig.legend(loc="outside lower center", ncols=len(chart.series), frameon=False, fontsize=10)
    return fig


def _draw_bars(ax: Any, chart: Chart, horizontal: bool) -> None:
    """One bar per label and series, side by side, with its value written at its end."""
    count = len(chart.series)
    width = 0.8 / count
    for i, (name, values) in enumerate(chart.series):
        offset = (i - (count - 1) / 2) * width
        where = [p + offset for p in range(len(chart.labels))]
        heights = [0.0 if math.isnan(v) else v for v in values]
        draw = ax.barh if horizontal else ax.bar
        bars = draw(where, heights, width * 0.92, color=PALETTE[i % len(PALETTE)])
        bars.set_label(_short(name, 40))
        ax.bar_label(bars, [_format(v, chart.unit) for v in values], padding=3, fontsize=9.5)


def _style_axes(ax: Any, chart: Chart, horizontal: bool) -> None:
    """Category ticks, a light value grid, no top or right frame."""
    labels = [_short(x) for x in chart.labels]
    ticks = list(range(len(labels)))
    if horizontal:
        ax.set_yticks(ticks, labels)
        ax.invert_yaxis()
        ax.margins(x=0.12)
    else:
        slanted = len(labels) > 5 or max(map(display_width, labels)) > 10
        ax.set_xticks(
            ticks, labels, rotation=30 if slanted else 0, ha="right" if slanted else "center"
        )
        ax.margins(y=0.12)
    value_axis = ax.xaxis if horizontal else ax.yaxis
    value_axis.set_major_formatter(_tick_formatter(chart.unit))
    ax.grid(axis="x" if horizontal else "y", color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(GRID)
    ax.tick_params(colors=INK, labelsize=10)
    (ax.yaxis if horizontal else ax.xaxis).set_tick_params(length=0)


def chart_heading(chart: Chart, lang: str, limit: int = 70) -> str:
    """The chart's title, with its unit in brackets (as ``lang`` writes it: a Chinese unit
    in an English report by its symbol) unless the title or ticks show it."""
    title = _short(chart.title, limit)
    unit = shown_unit(chart.unit, lang)
    if unit and unit != "%" and unit not in title:
        title += f"（{unit}）" if lang == "zh" else f" ({unit})"
    return title


def _tick_formatter(unit: str) -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _pos: f"{v:,.10g}" + ("%" if unit == "%" else ""))


def _save(chart: Chart, lang: str, fmt: str, titled: bool = True) -> bytes:
    """The chart in ``fmt`` (png or svg), without a date or software version in it; a
    chart drawn before in the same way is not drawn again (the HTML report and the PDF,
    made from the same HTML, show the same charts), nor one the run's page cache keeps
    from an earlier run (see :mod:`.kept`)."""
    key = (repr(chart), lang, fmt, titled)
    with _DRAWING:
        drawn = _DRAWN.get(key)
        if drawn is None:
            digest = digest_of(*map(str, key))
            kept = rendering_key(f"chart {fmt}", digest, CHART_CODE, CHART_LIBRARIES)
            drawn = drawn_once(kept, lambda: _draw(chart, lang, fmt, titled))
            _DRAWN[key] = drawn
            while len(_DRAWN) > DRAWN_KEPT:
                _DRAWN.popitem(last=False)
        else:
            _DRAWN.move_to_end(key)
    return drawn


def _draw(chart: Chart, lang: str, fmt: str, titled: bool) -> bytes:
    """The chart drawn by matplotlib in ``fmt``; called under :data:`_DRAWING`."""
    import matplotlib

    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    metadata = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with matplotlib.rc_context(_rc(lang)):
            fig = _figure(chart, lang, titled)
            fig.savefig(buf, format=fmt, metadata=metadata, facecolor="white", dpi=150)
    for message in dict.fromkeys(str(w.message) for w in caught):
        log.debug("chart %r: %s", chart.title, message)
    return buf.getvalue()


def chart_png(chart: Chart, lang: str) -> bytes:
    """The chart as a PNG image (1200 px wide), the same bytes for the same chart."""
    return _save(chart, lang, "png")


_SVG_HEAD = re.compile(r"^.*?(?=<svg\b)", re.S)
_SVG_ID = re.compile(r'\bid="([^"]+)"')
_SVG_REF = re.compile(r'(href="#|url\(#)([^")]+)')


def chart_svg(chart: Chart, lang: str, prefix: str = "chart", titled: bool = True) -> str:
    """The chart as an ``<svg>`` element to inline in HTML (glyphs drawn as paths).

    Every id is prefixed with ``prefix`` so that several charts can share one page;
    ``titled=False`` leaves the title out (for a page that sets it as text beside it).
    """
    svg = _save(chart, lang, "svg", titled).decode("utf-8")
    svg = _SVG_HEAD.sub("", svg, count=1)
    svg = _SVG_ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    return _SVG_REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)
