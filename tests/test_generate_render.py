"""Generate: tables, charts, grouped sources and the deck's layout, in English and Chinese.

Every check reads a real file made by the generate tools: Markdown as text, HTML with
lxml, the PDF with pypdf, the deck with python-pptx.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re

import pypdf
import pytest
from generate_samples import pdf_fonts
from lxml import etree
from lxml import html as lxml_html
from pptx import Presentation
from pptx.enum.chart import XL_CHART_TYPE
from pptx.oxml.ns import qn
from pptx.util import Emu, Inches
from render_samples import SAMPLES, RenderSample
from scripted import call_tool as call

from research.labels import label
from subagents import build_toolkit
from subagents.generate import charts
from subagents.generate.charts import cell_number, chart_for, chart_png, chart_svg
from subagents.generate.html import SWIPE_COLUMNS
from subagents.generate.notes import Point, Table
from subagents.generate.report import Shown, in_brackets, quote_shown
from subagents.results import text_of

EXT = {"md": "generate_markdown", "html": "generate_html", "pdf": "generate_pdf"}
EXT["pptx"] = "generate_pptx"
WORDS = {
    "en": {
        "sources": "Sources",
        "parts": ["Growth", "Storage", "Rooftop notes"],
        "last": ["Where the sources disagree", "What could not be found"],
        "cells": ["United States", "1,200", "20–42%"],
        "caption": "Installed solar capacity by country, end of 2024.",
        "chart": "Chart 1",
        "locator": "Sheet Capacity",
        "continued": " (continued)",
    },
    "zh": {
        "sources": "来源",
        "parts": ["起源", "产量", "现状"],
        "last": ["来源之间的分歧", "未能找到的内容"],
        "cells": ["贵州", "48.1", "2,590"],
        "caption": "主要产茶省份的产量与茶园面积。",
        "chart": "图 1",
        "locator": "工作表 产量",
        "continued": "（续）",
    },
}


@pytest.fixture(params=["en", "zh"])
async def sample(request, disk_service) -> dict:
    svc = disk_service
    made: RenderSample = await SAMPLES[request.param](svc)
    notes = f"/workspace/notes/{request.param}.md"
    await svc.write_text(notes, made.notes)
    return {
        "svc": svc,
        "lang": request.param,
        "made": made,
        "from_paths": made.from_paths(notes),
        "toolkit": build_toolkit("generate", service=svc, evidence=None, model=None),
        "words": WORDS[request.param],
    }


async def _render(sample: dict, ext: str) -> bytes:
    out = f"/workspace/reports/report.{ext}"
    res = await call(
        sample["toolkit"],
        EXT[ext],
        requirements="brief",
        out_path=out,
        from_paths=sample["from_paths"],
    )
    assert res.metadata["status"] == "ok", text_of(res)
    assert "Dropped" not in text_of(res), text_of(res)
    return await sample["svc"].read_bytes(out)


def _citations(sample: dict) -> dict[str, Shown]:
    """By evidence id, what a reader sees for every item of the sample: the span's own
    words with its Markdown syntax removed, quoted; a table described by its header and
    rows, never quoted."""
    return {
        item.id: quote_shown(item.span, sample["lang"], limit=2000)
        for item in sample["made"].items()
    }


# --- charts ------------------------------------------------------------------------------


def test_cells_are_read_as_numbers():
    assert cell_number("1,200") == 1200
    assert cell_number("1 234") == 1234
    assert cell_number("20–42") == 31
    assert cell_number("20–42%") == 31
    assert cell_number("−5") == -5
    assert cell_number("$3.5") == 3.5
    assert cell_number("约 56.3") == 56.3
    for text in ("n/a", "", "Region 4", "1.2.3", "12,34"):
        assert cell_number(text) is None, text


def test_chart_for_picks_labels_series_and_leaves_totals_out():
    table = Table(
        ["Country", "Capacity (GW)", "Added (GW)", "Share", "Note"],
        [
            ["China", "1,200", "277", "9%", "a"],
            ["United States", "220", "39", "6%", "b"],
            ["India", "90", "20–28", "7%", "c"],
            ["Total", "1,510", "340", "22%", ""],
        ],
        Point(["Capacity by country."]),
    )
    chart = chart_for(table)
    assert chart is not None
    assert chart.labels == ["China", "United States", "India"]
    assert [name for name, _ in chart.series] == ["Capacity (GW)", "Added (GW)"]
    assert chart.series[1][1] == [277, 39, 24]
    assert chart.unit == "GW" and chart.title == "Capacity by country"
    years = Table(["Year", "Output"], [["2021", "5"], ["2022", "7"], ["2023", "9"], ["合计", "21"]])
    assert chart_for(years).labels == ["2021", "2022", "2023"]
    assert chart_for(Table(["A", "B"], [["x", "y"], ["z", "w"], ["u", "v"]])) is None
    days = Table(["Day", "City"], [["1", "Beijing"], ["2", "Tianjin"], ["3", "Jining"]])
    assert chart_for(days) is None  # row numbers are not a measure
    dates = [["breach", "1855"], ["war", "1850–1864"], ["tax", "1901"], ["rail", "1912"]]
    assert chart_for(Table(["Cause", "Date"], dates)) is None  # nor are dates
    assert chart_for(Table(["A", "B"], [["x", "1"], ["y", "2"]])) is None  # two numbers


def test_chart_images_are_stable_and_draw_chinese():
    chart = chart_for(
        Table(["省份", "产量（万吨）"], [["云南", "56.3"], ["贵州", "48.1"], ["四川", "40.5"]])
    )
    png = chart_png(chart, "zh")
    svg = chart_svg(chart, "zh", prefix="c1")
    charts._DRAWN.clear()  # drawn again, not taken from the charts drawn last
    assert png.startswith(b"\x89PNG") and png == chart_png(chart, "zh")
    assert b"Software" not in png and b"matplotlib" not in png.lower()
    assert svg.startswith("<svg") and svg == chart_svg(chart, "zh", prefix="c1")
    assert "dc:date" not in svg and "<text" not in svg  # glyphs are drawn as paths
    assert re.search(r'id="c1-(WenQuanYiZenHei|NotoSansCJK)', svg), "no CJK glyphs"
    ids = re.findall(r'\bid="([^"]+)"', svg)
    assert ids and all(i.startswith("c1-") for i in ids)
    assert all(ref.startswith("c1-") for ref in re.findall(r'href="#([^"]+)"', svg))


def test_a_chart_shown_in_two_formats_of_one_report_is_drawn_once(monkeypatch):
    """The HTML report and the PDF (made from the same HTML) show the same chart: it is
    drawn once; a chart that differs in a value is drawn anew."""
    table = Table(["Lock", "Lift (m)"], [["North", "4.5"], ["Middle", "3.2"], ["South", "2.8"]])
    chart = chart_for(table)
    drawn: list[str] = []
    draw = charts._draw

    def counting(*args: object) -> bytes:
        drawn.append(str(args[2]))
        return draw(*args)

    monkeypatch.setattr(charts, "_draw", counting)
    first = chart_svg(chart, "en", prefix="c1", titled=False)
    assert chart_svg(chart_for(table), "en", prefix="c2", titled=False) == first.replace(
        'id="c1-', 'id="c2-'
    ).replace('href="#c1-', 'href="#c2-').replace("url(#c1-", "url(#c2-")
    assert drawn == ["svg"]
    chart_png(chart, "en")
    assert drawn == ["svg", "png"]
    changed = chart_for(Table(["Lock", "Lift (m)"], [*table.rows[:2], ["South", "2.9"]]))
    assert chart_svg(changed, "en", titled=False) != chart_svg(chart, "en", titled=False)
    assert drawn == ["svg", "png", "svg"]


# --- Markdown ----------------------------------------------------------------------------


async def test_markdown_has_tables_charts_and_one_entry_per_source(sample):
    md = (await _render(sample, "md")).decode()
    words = sample["words"]
    body, sources = md.split(f"\n## {words['sources']}\n")
    headings = re.findall(r"^## (.+)$", body, re.M)
    assert headings[-2:] == words["last"]  # disagreements, then what was not found
    assert set(words["parts"]) <= set(headings[:-2])
    assert re.search(r"^\| .+ \|$\n^\|---\|", body, re.M), "no pipe table"
    for cell in words["cells"]:
        assert re.search(rf"^\|(.*\|)? {re.escape(cell)} \|", body, re.M), cell
    prefix = "表：" if sample["lang"] == "zh" else "Table: "
    assert re.search(rf"^{prefix}{re.escape(words['caption'])}\[\d\]$", body, re.M)
    ((alt, image),) = re.findall(r"^!\[([^\n]*)\]\(([^)]+)\)$", body, re.M)
    assert image == "report-chart-1.png"
    assert alt.startswith("图：" if sample["lang"] == "zh" else "Chart: "), alt
    png = await sample["svc"].read_bytes(f"/workspace/reports/{image}")
    assert png.startswith(b"\x89PNG")
    prose = "\n".join(x for x in body.splitlines() if not x.startswith("!["))
    assert "**" not in prose and "](" not in prose
    heads = [x for x in sources.splitlines() if x.startswith("- ")]
    assert len(heads) == len(sample["made"].pages())
    # every stored copy, of a page or a file, is linked beside the report
    assert all("— [stored copy](<copies/" in h or "— [存档副本](<copies/" in h for h in heads)
    quotes = [x for x in sources.splitlines() if x.startswith("  - [")]
    spans = _citations(sample)
    assert sorted(int(re.match(r"  - \[(\d+)\]", q).group(1)) for q in quotes) == list(
        range(1, len(quotes) + 1)
    )
    for quote in quotes:
        # The evidence id lives in the line's comment, out of the reader's sight.
        shown, comment = quote.split(" <!-- ")
        assert "ev-" not in shown
        ev = json.loads(comment.removesuffix(" -->"))["id"]
        # a quote from the web is a link to its page at the quote: its words are inside
        plain_quote = re.sub(r"^(\s*- \[\d+\] )\[(“.*”)\]\(<[^>]+>\)", r"\1\2", shown)
        unescaped = re.sub(r"\\(.)", r"\1", plain_quote)
        if spans[ev].quoted:
            assert "“" + spans[ev].text[:40] in unescaped  # the span's words, without markup
        else:  # a table is described in italics, the report's words: never in quotes
            assert f"] *{spans[ev].text[:40]}" in unescaped and "“" not in unescaped
        assert "**" not in unescaped and "](" not in unescaped and "|---" not in unescaped
    (sheet_quote,) = [q for q in quotes if sample["made"].sheet.ids()[0] in q]
    # The sheet is named in the report's language: "(Sheet Capacity)", "（工作表 产量）".
    assert in_brackets(words["locator"], sample["lang"]) in sheet_quote


# --- HTML --------------------------------------------------------------------------------


async def test_html_has_tables_charts_and_resolving_links(sample):
    doc = lxml_html.fromstring(await _render(sample, "html"))
    words = sample["words"]
    assert doc.get("lang") == sample["lang"]
    assert not doc.xpath("//script | //img | //link | //iframe | //object | //embed")
    (table,) = doc.xpath("//figure[@class='table']//table")
    assert len(table.xpath("./thead/tr/th")) >= 3
    cells = [c.text_content() for c in table.xpath(".//td")]
    assert all(cell in cells for cell in words["cells"])
    assert table.xpath(".//td[@class='num']"), "numeric cells are not aligned as numbers"
    caption = doc.xpath("//figure[@class='table']/figcaption")[0].text_content()
    assert words["caption"] in caption and re.search(r"\[\d\]$", caption)
    (svg,) = doc.xpath("//figure[@class='chart']/*[local-name()='svg']")
    assert svg.get("role") == "img" and words["chart"] in svg.get("aria-label")
    assert svg.get("viewbox") and len(svg.xpath(".//*[local-name()='path']")) > 10
    css = "".join(doc.xpath("//style/text()"))
    assert "overflow-x:auto" in css and "@media print" in css and "url(" not in css
    # A table wider than a phone says, on a phone only and in the report's language, that
    # it scrolls sideways.
    hints = doc.xpath("//figure[@class='table']/p[@class='swipe']")
    assert len(hints) == (len(table.xpath("./thead/tr/th")) >= SWIPE_COLUMNS)
    assert all(hint.text_content() == label(sample["lang"], "swipe") for hint in hints)
    phone = css[css.index("@media (max-width:480px)") :]
    assert ".swipe{display:none}" in css and ".swipe{display:block" in phone.split("}}")[0]
    (sources,) = doc.xpath("//section[@class='sources']")
    targets = set(sources.xpath(".//@id"))
    links = doc.xpath("//main//sup[@class='cite']/a/@href")
    assert links and {h[1:] for h in links} <= targets
    entries = sources.xpath("./ol/li[@class='source']")
    assert len(entries) == len(sample["made"].pages())
    for entry in entries:
        stored = entry.xpath("./a[@class='src-stored']/@href")
        assert stored and stored[0].startswith("copies/")
        assert entry.xpath("./ul[@class='quotes']/li[starts-with(@id, 'src-')]")
    spans = _citations(sample)
    for li in sources.xpath(".//ul[@class='quotes']/li"):
        shown = spans[li.get("data-ev")]
        assert shown.marked()[:60] in li.text_content()
        assert bool(li.xpath(".//em[@class='described']")) is not shown.quoted
    assert any(not shown.quoted for shown in spans.values())  # the sheet's table
    assert "ev-" not in doc.text_content()
    for section in sources.getparent().xpath("./section[not(@class='sources')]"):
        text = section.text_content()
        assert "**" not in text and "](" not in text
    kinds = doc.xpath("//main/section/@class")
    assert kinds[-3:] == ["disagreements", "not_found", "sources"]


# --- PDF ---------------------------------------------------------------------------------


async def test_pdf_has_table_chart_and_real_glyphs(sample):
    reader = pypdf.PdfReader(io.BytesIO(await _render(sample, "pdf")))
    words = sample["words"]
    text = "".join(p.extract_text() for p in reader.pages).replace("\x00", "")
    flat = re.sub(r"\s+", "", text)
    for cell in [*words["cells"], words["caption"], words["chart"]]:
        assert re.sub(r"\s+", "", cell) in flat, cell
    assert reader.pages[0].mediabox.width == pytest.approx(595.3, abs=1)  # A4
    content = "".join(p.get_contents().get_data().decode("latin-1") for p in reader.pages)
    assert "0.043137 0.384314 0.768627 rg" in content  # the accent, the first series
    if sample["lang"] == "en":  # the second series: four bars and the legend's key
        assert content.count("0.878431 0.482353 0 rg") >= 4
    fonts = pdf_fonts(reader)
    if sample["lang"] == "zh":
        assert any("CJK" in f or "WenQuanYi" in f or "ZenHei" in f for f in fonts), fonts


# --- PPTX --------------------------------------------------------------------------------


def _slide_text(slide) -> str:
    parts = []
    for shape in slide.shapes:
        if shape.has_text_frame:
            parts.append(shape.text_frame.text)
        if getattr(shape, "has_table", False) and shape.has_table:
            parts.extend(c.text for row in shape.table.rows for c in row.cells)
    return "\n".join(parts)


def _body_paragraphs(slide) -> list:
    return [
        p
        for shape in slide.placeholders
        if shape.placeholder_format.idx == 1
        for p in shape.text_frame.paragraphs
        if p.text.strip()
    ]


async def test_pptx_is_16_9_with_tables_charts_notes_and_cjk_fonts(sample):
    prs = Presentation(io.BytesIO(await _render(sample, "pptx")))
    words = sample["words"]
    assert (prs.slide_width, prs.slide_height) == (Inches(13.333), Inches(7.5))
    slides = list(prs.slides)
    spans = _citations(sample)
    by_number = {}
    tables = charts = 0
    for slide in slides:
        assert len(_body_paragraphs(slide)) <= 6
        for shape in slide.shapes:
            assert shape.left >= 0 and shape.top >= 0
            assert shape.left + shape.width <= prs.slide_width
            assert shape.top + shape.height <= prs.slide_height
            if shape.has_chart:
                charts += 1
                assert shape.chart.plots[0].categories and len(shape.chart.plots[0].series) >= 1
            if shape.has_table:
                tables += 1
                header = [c.text for c in shape.table.rows[0].cells]
                assert len(header) >= 3 and all(header)
        for run in slide.shapes._spTree.iter(qn("a:rPr")):
            ea = run.find(qn("a:ea"))
            assert ea is not None and ea.get("typeface"), etree.tostring(run)
            if sample["lang"] == "zh":
                assert run.get("lang") == "zh-CN"
        notes = slide.notes_slide.notes_text_frame.text if slide.has_notes_slide else ""
        assert "ev-" not in notes + _slide_text(slide)
        for n in set(re.findall(r"\[(\d+)\]", _slide_text(slide))):
            m = re.search(rf"^\[{n}\] .*\n(.*)$", notes, re.M)
            assert m, (n, notes)
            (ev,) = [k for k, shown in spans.items() if shown.marked() == m.group(1)]
            by_number[n] = ev
    assert tables == 1 and charts == 1
    assert sorted(by_number.values()) == sorted(spans)  # every quote is in some notes
    titles = [s.shapes.title.text for s in slides if s.shapes.title is not None]
    assert titles[-1] == words["sources"]
    assert len(_body_paragraphs(slides[-1])) == len(sample["made"].pages())
    assert any(words["caption"].rstrip(".。") in t for t in titles)  # the table slide


async def test_long_sections_continue_on_more_slides(disk_service):
    svc = disk_service
    made = await SAMPLES["en"](svc)
    a, b, c = made.text.ids()
    bullets = "\n".join(
        f"- Point {i} restates that solar capacity grew faster than any other source and "
        f"that module prices kept falling through the year. [{(a, b, c)[i % 3]}]"
        for i in range(15)
    )
    await svc.write_text(
        "/workspace/notes/long.md", f"# Long deck\n\n## Many points\n\n{bullets}\n"
    )
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    res = await call(
        toolkit,
        "generate_pptx",
        requirements="x",
        out_path="/workspace/reports/long.pptx",
        from_paths=["/workspace/notes/long.md", made.text.path],
    )
    assert res.metadata["status"] == "ok", text_of(res)
    prs = Presentation(io.BytesIO(await svc.read_bytes("/workspace/reports/long.pptx")))
    parts = [s for s in prs.slides if s.shapes.title.text.startswith("Many points")]
    assert len(parts) >= math.ceil(15 / 6)
    assert [s.shapes.title.text for s in parts[1:]] == ["Many points (continued)"] * (
        len(parts) - 1
    )
    shown = [p.text for s in parts for p in _body_paragraphs(s)]
    assert len(shown) == 15 and all(len(_body_paragraphs(s)) <= 6 for s in parts)
    assert all(Emu(s.shapes.title.width) <= prs.slide_width for s in parts)


async def test_a_markdown_report_with_a_table_converts_to_the_other_formats(sample):
    first = (await _render(sample, "md")).decode()
    res = await call(
        sample["toolkit"],
        "generate_html",
        requirements="",
        out_path="/workspace/reports/again.html",
        from_paths=["/workspace/reports/report.md"],
    )
    assert res.metadata["status"] == "ok" and "Dropped" not in text_of(res), text_of(res)
    doc = lxml_html.fromstring(await sample["svc"].read_bytes("/workspace/reports/again.html"))
    cells = [c.text_content() for c in doc.xpath("//figure[@class='table']//td")]
    assert all(cell in cells for cell in sample["words"]["cells"])
    assert doc.xpath("//figure[@class='chart']/*[local-name()='svg']")
    body = doc.xpath("string(//main)")
    assert "report-chart-1.png" not in body and "!" + sample["words"]["chart"] not in body
    quotes = doc.xpath("//section[@class='sources']//ul[@class='quotes']/li/@id")
    assert len(quotes) == len(re.findall(r"^  - \[\d+\] ", first, re.M))


SECTIONS = [
    [
        "Tonghui River",
        "通惠河",
        "Beijing",
        "Tongzhou",
        "20",
        "42",
        "Opened 1293 under the hydraulic engineer Guo Shoujing; fed by springs west of Beijing.",
    ],
    [
        "North Canal",
        "北运河",
        "Tongzhou",
        "Tianjin",
        "146",
        "186",
        "Follows the lower course of the Bai River; flows south to the Hai River at Tianjin.",
    ],
    [
        "South Canal",
        "南运河",
        "Tianjin",
        "Linqing",
        "400",
        "524",
        "Largely the Sui-era Yongji Canal and the Wei River; passes Cangzhou and Dezhou.",
    ],
    [
        "Shandong (Lu) Canal",
        "鲁运河",
        "Linqing",
        "Taierzhuang",
        "500",
        "500",
        "Includes the Huitong "
        "Canal summit at Nanwang; many locks; water from the Wen River and lakes.",
    ],
    [
        "Middle (Zhong) Canal",
        "中运河",
        "Taierzhuang",
        "Huai'an",
        "186",
        "196",
        "Built in stages (the "
        "Jia Canal about 1604, the Zhong He in the 1680s) so boats could avoid the Yellow River "
        "channel.",
    ],
    [
        "Li Canal (Huaiyang)",
        "里运河",
        "Huai'an",
        "Yangzhou / Guazhou",
        "170",
        "180",
        "Descends from the Han Gou of 486 BCE, the oldest part of the system.",
    ],
    [
        "Jiangnan Canal",
        "江南运河",
        "Zhenjiang",
        "Hangzhou",
        "330",
        "330",
        "Passes Changzhou, Wuxi, Suzhou and Jiaxing; busy with freight barges today.",
    ],
    ["Sum of the rows above", "合计", "", "", "1,752", "1,958", ""],
]


def test_a_table_that_fits_one_slide_is_set_on_one_whole_and_its_chart_reads_in_legend_order():
    """Seven rows and a total with long notes fit one slide (at a smaller size, not split
    4 + 4 with half of each slide empty), every note whole in its cell; the chart of its two columns
    stands in the legend's order; the caption's marker stays with its last word."""
    from subagents.evidence import EvidenceItem
    from subagents.generate.citations import Citation
    from subagents.generate.notes import Cite, Section
    from subagents.generate.pptx import render_pptx, table_layout
    from subagents.generate.report import Report

    header = ["Section", "Chinese name", "From", "To", "Low (km)", "High (km)", "Notes"]
    table = Table(header, SECTIONS, Point(["canal-sections.xlsx, sheet Sections.", Cite("#1")]))
    layout = table_layout(table)
    assert len(layout.pages) == 1 and layout.size >= 12
    table.chart = chart_for(table)
    item = EvidenceItem("https://example.org/sections.xlsx", "x", 0, 1, "/workspace/s.md", "ev-1")
    report = Report("Canal", [], [Section("Sections", [], [table])], [Citation(1, item, "")])
    prs = Presentation(io.BytesIO(render_pptx(report)))
    (grid,) = [sh.table for s in prs.slides for sh in s.shapes if sh.has_table]
    assert [c.text for c in grid.rows[5].cells] == SECTIONS[4]
    (chart,) = [sh.chart for s in prs.slides for sh in s.shapes if sh.has_chart]
    assert chart.has_legend and chart.chart_type == XL_CHART_TYPE.COLUMN_CLUSTERED
    assert [s.name for s in chart.plots[0].series] == ["Low (km)", "High (km)"]
    captions = [
        sh.text_frame.text for s in prs.slides for sh in s.shapes
        if sh.has_text_frame and sh.text_frame.text.startswith("Table 1")
    ]  # fmt: skip
    assert captions == ["Table 1 · canal-sections.xlsx, sheet Sections.\u00a0[1]"]


def _bottom(shape) -> int:
    """Where a shape ends on its slide (a table by the heights of its rows)."""
    if shape.has_table:
        return shape.top + sum(row.height for row in shape.table.rows)
    return shape.top + shape.height


def test_a_long_table_fills_each_slide_before_it_goes_on_to_the_next():
    """Rows past one slide's room go on to a second slide only once the first is full
    (not split into equal halves); every shape stays on its slide, none overlaps another,
    and every row is shown once, in order."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    from subagents.generate.notes import Section
    from subagents.generate.pptx import (
        FOOTER_TOP,
        TABLE_ROOM,
        TABLE_ROWS,
        render_pptx,
        table_layout,
    )
    from subagents.generate.report import Report

    rows = [row[:4] + row[6:] for row in SECTIONS[:7]] * 2
    rows = [[f"{i + 1}. {row[0]}", *row[1:]] for i, row in enumerate(rows[:11])]
    table = Table(["Section", "Chinese name", "From", "To", "Notes"], rows, Point(["Sections."]))
    layout = table_layout(table)
    first, *rest = layout.pages
    assert rest, "the test's table should need a second slide"
    used = layout.header_height + sum(layout.row_heights[i] for i in first)
    assert len(first) == TABLE_ROWS or used + layout.row_heights[first.stop] > TABLE_ROOM
    assert len(first) > len(rest[0]), [len(p) for p in layout.pages]

    report = Report("Canal", [], [Section("Sections", [], [table])], [])
    prs = Presentation(io.BytesIO(render_pptx(report)))
    shown = []
    for slide in prs.slides:
        grids = [sh for sh in slide.shapes if sh.has_table]
        if not grids:
            continue
        shown += [[c.text for c in row.cells] for row in list(grids[0].table.rows)[1:]]
        boxes = [sh for sh in slide.shapes if sh.shape_type != MSO_SHAPE_TYPE.AUTO_SHAPE]
        for sh in slide.shapes:  # the accent band is the only auto shape, behind the rest
            assert sh.left >= 0 and sh.left + sh.width <= prs.slide_width
            assert sh.top >= 0 and _bottom(sh) <= prs.slide_height
        assert _bottom(grids[0]) <= FOOTER_TOP
        spans = sorted((sh.top, _bottom(sh)) for sh in boxes)
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert end <= start, spans
    assert shown == rows
