"""What a reader sees of charts and the PDF's layout: Chinese glyphs in every chart with
no library warning printed, one unit and one magnitude per chart axis, a legend that
covers no bar, page numbers, a caption on its table's page, short cells kept whole,
no stray spaces where a PDF's Chinese lines were joined, and readable CSV captions and
headers."""

from __future__ import annotations

import io
import logging
import shutil
import warnings
from typing import Any

import matplotlib
import pypdf
import pytest
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.ft2font import FT2Font

from demo.site import _join_cjk_lines
from host.sheets import header_words, sheet_markdown
from host.sources import extract_markdown, join_lines
from research.notes import table_caption
from subagents.generate import charts
from subagents.generate.charts import attach_charts, chart_for, chart_png, chart_svg
from subagents.generate.html import render_html
from subagents.generate.markdown import table_markdown
from subagents.generate.notes import Chart, Point, Section, Table
from subagents.generate.pdf import render_pdf
from subagents.generate.report import Report

LOSSES = Table(
    ["region", "colonies surveyed", "loss pct"],
    [["North", "412", "19.5"], ["South", "388", "31.2"], ["East", "401", "24.0"]],
    Point(["losses.csv."]),
)
LEGEND_ZH = Chart(
    "河段长度",
    ["通惠河", "北运河", "南运河", "鲁运河"],
    [("长度下限（公里）", [20, 146, 400, 500]), ("长度上限（公里）", [42, 186, 524, 500])],
    "公里",
)


@pytest.fixture
def fonts_found_anew():
    """Chart fonts looked up again for the test, and again after it."""
    charts._fonts.cache_clear()
    charts._charmap.cache_clear()
    yield
    charts._fonts.cache_clear()
    charts._charmap.cache_clear()


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="needs fontconfig")
def test_chart_fonts_have_the_chinese_glyphs_wherever_the_font_is(fonts_found_anew, monkeypatch):
    text = "".join(LEGEND_ZH.labels) + "".join(name for name, _ in LEGEND_ZH.series)
    assert charts.missing_glyphs(text, "zh") == charts.missing_glyphs(text, "en") == ""
    # Not where Debian puts it: fontconfig still knows one (the legend had empty boxes).
    charts._fonts.cache_clear()
    monkeypatch.setattr(charts, "CJK_FONTS", ("/nowhere/wqy-zenhei.ttc",))
    assert charts.cjk_font_files(), "no Chinese font known to fontconfig"
    assert charts.missing_glyphs(text, "en") == ""
    assert charts.missing_glyphs("长度\ue000", "zh") == "\ue000"


def test_drawing_a_chart_prints_no_library_warning(caplog):
    odd = Chart("x", ["a", "b"], [("通惠河\ue000", [1, 2]), ("北运河", [2, 3])])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with caplog.at_level(logging.DEBUG, logger="subagents.generate.charts"):
            chart_png(odd, "en")
            chart_svg(LEGEND_ZH, "zh")
    assert [str(w.message) for w in caught] == []
    assert any("missing from font" in r.getMessage() for r in caplog.records)


def _resolved_fonts(text: Any) -> list[str]:
    """The font files matplotlib draws ``text`` with, in the order it tries them."""
    fonts = font_manager.fontManager._find_fonts_by_props(text.get_fontproperties())
    return [str(path) for path in fonts]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_legend_is_drawn_with_a_font_that_has_its_chinese_glyphs(lang):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with matplotlib.rc_context(charts._rc(lang)):
            fig = charts._figure(LEGEND_ZH, lang, True)
            FigureCanvasAgg(fig).draw()
    (legend,) = fig.legends
    texts = legend.get_texts()
    assert [t.get_text() for t in texts] == [name for name, _ in LEGEND_ZH.series]
    for text in texts:
        fonts = _resolved_fonts(text)
        covered = set().union(*(FT2Font(path).get_charmap() for path in fonts))
        missing = [ch for ch in text.get_text() if ord(ch) not in covered]
        assert not missing, f"{text.get_text()!r} falls back to {fonts}, lacking {missing}"
    assert not [w for w in caught if "missing from font" in str(w.message)]


def test_the_legend_covers_no_bar():
    even = Chart("Even", ["a", "b", "c", "d"], [("s1", [9, 9, 9, 9]), ("s2", [9, 9, 9, 9])])
    fig = charts._figure(even, "en", True)
    FigureCanvasAgg(fig).draw()
    (legend,) = fig.legends
    box = legend.get_window_extent()
    bars = [p.get_window_extent() for p in fig.axes[0].patches]
    assert bars and not any(box.overlaps(bar) for bar in bars)


def test_one_axis_never_mixes_units_or_magnitudes():
    # A count (about 400) and a percentage (19–31): the part about losses gets the losses.
    chart = chart_for(LOSSES, about="How large were winter colony losses by region?")
    assert [name for name, _ in chart.series] == ["loss pct"] and chart.unit == "%"
    assert [name for name, _ in chart_for(LOSSES).series] == ["loss pct"]  # not the sample
    km = Table(["Canal", "Length (km)", "Width (km)"], [["A", "400", "31"], ["B", "380", "20"]])
    km.rows.append(["C", "420", "25"])
    assert [name for name, _ in chart_for(km).series] == ["Length (km)"]  # 13× apart
    assert [name for name, _ in chart_for(km, about="The width of each canal").series] == [
        "Width (km)"
    ]
    section = Section("What width has each canal?", [], [km])
    attach_charts([section])
    assert km.chart is not None and km.chart.series[0][0] == "Width (km)"


def test_a_csv_table_reads_well_in_caption_and_header():
    assert table_caption("Table", "losses.csv", "en") == "losses.csv"
    assert table_caption("Table", "losses.csv", "zh") == "losses.csv"
    assert header_words("colonies_surveyed") == "colonies surveyed"
    assert header_words("__init__") == "__init__" and header_words("2024_q1") == "2024_q1"
    text = "/userinput/losses.csv — 3 rows\n1: region,colonies_surveyed,loss_pct\n2: North,412,19.5"
    assert sheet_markdown("csv_read", text).splitlines()[0] == (
        "| region | colonies surveyed | loss pct |"
    )
    md = table_markdown(Table(["colonies_surveyed", "a*b"], [["1", "2"]]))
    assert md.splitlines()[0] == "| colonies_surveyed | a\\*b |"


def test_joined_pdf_lines_leave_no_space_between_chinese_runs():
    assert join_lines(["1283年开济州河，", "1289年开会通河，", "新线缩短了", "数百公里。"]) == (
        "1283年开济州河，1289年开会通河，新线缩短了数百公里。"
    )
    assert join_lines(["A canal was", "dug in 1283."]) == "A canal was dug in 1283."
    pdf = "/userinput/r.pdf — 1 page\n--- page 1 ---\n山东：1283年开济州河，\n1289年开会通河。"
    assert "1283年开济州河，1289年开会通河。" in extract_markdown("pdf_read_text", pdf)
    # pypdf may put spaces between the words of a wrapped Chinese line: a line as wide as
    # the page's full lines is still no title, while the short title above them is one
    spaced = (
        "/userinput/s.pdf — 1 page\n--- page 1 ---\n石溪镇渡口\n"
        "石溪镇的 渡口 建于1890年前后 由镇上的 几户人家 和过往的\n"
        "船户 集资修建，后来 又 两次扩建 码头和 候船的 凉亭 都是\n"
        "那时 留下的，如今 每天 仍有 六班 渡船 往返 于两岸 之间\n"
        "成为 全县最大的 渡口。"
    )
    body = extract_markdown("pdf_read_text", spaced)
    assert body.count("### ") == 1 and "### 石溪镇渡口" in body
    assert "和过往的船户 集资修建，后来 又 两次扩建 码头和 候船的 凉亭 都是那时" in body
    # The demo's own PDF is written without them: a wrapped line before a number joins.
    wrapped = "开会通河，\n1293年由\n12. 列表\n完成"
    assert _join_cjk_lines(wrapped) == "开会通河，1293年由\n12. 列表完成"


def test_a_wrapped_pdf_line_after_a_joining_mark_is_no_heading():
    """A line ending on a comma or a colon runs on into the next one: a short capitalised
    line after it is the rest of its sentence, not a heading, and a sentence does not
    open with the words after the break; the page's title stays a heading."""
    pdf = (
        "/userinput/f.pdf — 1 page\n--- page 1 ---\nFerries on the Sallow\n"
        "The ferry ran from the north bank to the towns of Alder,\n"
        "Tolby and Mirn; the west bank had:\n"
        "Selby and Orm, both closed in 1961.\n"
    )
    body = extract_markdown("pdf_read_text", pdf)
    assert body.count("### ") == 1 and "### Ferries on the Sallow" in body
    assert (
        "The ferry ran from the north bank to the towns of Alder, Tolby and Mirn; the west "
        "bank had: Selby and Orm, both closed in 1961."
    ) in body
    zh = (
        "/userinput/z.pdf — 1 page\n--- page 1 ---\n石溪镇渡口\n"
        "渡口建于1890年前后，船户把这条河称为：\nSallow河，全县最长。"
    )
    assert "船户把这条河称为：Sallow河，全县最长。" in extract_markdown("pdf_read_text", zh)


SECTIONS = [
    ["通惠河", "北京", "通州", "20", "1293年郭守敬主持开凿通惠河，引昌平白浮泉等西山泉水，"
     "沿途设闸，漕船可直达大都积水潭。"],
    ["北运河", "通州", "天津", "146", "利用白河下游河道修建，南流至天津汇入海河。"],
    ["鲁运河", "临清", "台儿庄", "500", "包括元代1289年开凿的会通河；明代1411年宋礼筑戴村坝，"
     "引汶水至南旺分水，沿线密布船闸。"],
    ["里运河", "淮安", "扬州／瓜洲", "170", "源于公元前486年吴国开凿的邗沟，是全线最古老的河段；"
     "隋代605年疏浚山阳渎。"],
]  # fmt: skip


POINTS = 24


def _long_report() -> Report:
    """A Chinese report whose table ends at the foot of page 1 (its caption, alone, would
    open page 2)."""
    line = "元朝定都大都后，放弃绕道洛阳的旧线，在山东境内截弯取直，使漕船可以直达大都积水潭。"
    points = [Point([f"第{i}条：{line}"], bullet=True) for i in range(POINTS)]
    table = Table(["河段", "起点", "终点", "长度（公里）", "说明"], SECTIONS, Point(["运河各段。"]))
    section = Section("京杭大运河是如何修建的？", points, [table])
    return Report("京杭大运河", [], [section], [], lang="zh")


def test_the_pdf_numbers_its_pages_keeps_captions_and_short_cells_whole():
    report = _long_report()
    assert '<td class="short">通惠河</td>' in render_html(report)
    pages = [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(render_pdf(report))).pages]
    assert len(pages) >= 2
    for n, text in enumerate(pages, 1):
        assert text.rstrip().endswith(f"{n} / {len(pages)}"), text[-80:]
    (captioned,) = [t for t in pages if "表 1" in t]
    assert any(row[0] in captioned for row in SECTIONS), "the caption left its table"
    lines = "\n".join(pages).splitlines()
    for row in SECTIONS:  # each row's first cells on one line, none cut ("通惠/河")
        assert any(line.startswith(" ".join(row[:3])) for line in lines), row[:3]
