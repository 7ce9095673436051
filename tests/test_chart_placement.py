"""A chart says what it shows and stands under the part it answers, or in an appendix.

Titles are built from the data when a table's caption only names its file ("Depth and
width of each well", "各水井的深度和宽度"), the unit stated once. A table whose chart does not
answer the part it was placed under moves, with its chart, to "Data from the sources"
(附：资料中的数据), which every format shows. All tables and questions here are invented.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from generate_samples import SamplePage, make_items, write_page
from lxml import html as lxml_html
from pptx import Presentation
from pypdf import PdfReader
from scripted import call_tool as call

from research.labels import label
from research.placement import chart_answers
from subagents import build_toolkit
from subagents.evidence import EvidenceItem
from subagents.generate.chart_titles import shown_title
from subagents.generate.charts import attach_charts, chart_for, chart_heading
from subagents.generate.notes import Point, Section, Table
from subagents.results import text_of

WELLS = Table(
    ["Well", "Depth (m)", "Width (m)"],
    [["North well", "41", "12"], ["Mill well", "33", "9.5"], ["Chapel well", "27", "8"]],
    Point(["wells.xlsx, sheet Wells."]),
)
ZH_WELLS = Table(
    ["水井", "深度（米）", "宽度（米）"],
    [["北井", "41", "12"], ["磨坊井", "33", "9.5"], ["礼拜堂井", "27", "8"]],
    Point(["wells.xlsx，工作表 水井。"]),
)


def test_a_chart_of_a_file_table_says_what_it_shows_with_its_unit_once() -> None:
    chart = chart_for(WELLS)
    assert chart.title == "Depth and width of each well" and chart.unit == "m"
    assert chart_heading(chart, "en") == "Depth and width of each well (m)"
    zh = chart_for(ZH_WELLS)
    assert zh.title == "各水井的深度和宽度" and zh.unit == "米"
    assert chart_heading(zh, "zh") == "各水井的深度和宽度（米）"
    # the report's language words the title; a header in another language is quoted
    assert chart_for(WELLS, lang="zh").title == "各“Well”的“Depth”和“Width”"
    assert chart_for(ZH_WELLS, lang="en").title == "“深度” and “宽度” of each “水井”"
    assert chart_heading(chart_for(ZH_WELLS, lang="en"), "en").endswith(" (m)")
    # a caption that says what the table shows is the title
    described = Table(WELLS.header, WELLS.rows, Point(["Depths of the town wells."]))
    assert chart_for(described).title == "Depths of the town wells"


def test_a_title_keeps_names_as_written_and_reads_as_a_sentence() -> None:
    assert shown_title(["Ferries (n)"], "Ports", "en") == "Ferries of each port"
    assert (
        shown_title(["Norvik", "Halsa"], "Year", "en", ordered=True) == "Norvik and Halsa by year"
    )
    assert shown_title(["share_pct"], "region", "en", unit="%") == "Share of each region"
    assert shown_title(["Output (t)"], "", "en", unit="t") == "Output"
    assert shown_title(["Low (t)", "High (t)"], "", "en", unit="t") == "Weight, low and high"
    assert shown_title(["渡轮（艘）"], "港口", "zh", unit="艘") == "各港口的渡轮"


PARTS = ["How deep are the wells of Marrowdale?", "Who dug the wells of Marrowdale?"]
QUESTION = "How deep are the wells of Marrowdale, and who dug them?"
ZH_PARTS = ["马罗谷的引水渠有多长？", "马罗谷的引水渠是谁修建的？"]
ZH_QUESTION = "马罗谷的引水渠有多长？是谁修建的？"


def test_a_chart_answers_the_part_that_asks_what_it_shows() -> None:
    depths = "Depth of each well Depth (m) Well wells.xlsx, sheet Wells"
    assert chart_answers(PARTS[0], depths, PARTS, QUESTION)  # how deep: a quantity
    assert not chart_answers(PARTS[1], depths, PARTS, QUESTION)  # who dug: not a depth
    # a part that names what the chart shows, or the kind of thing it asks for
    parts = ["Which springs feed the Tolva basin?", "Who mapped the Tolva basin?"]
    flows = "Flow of each spring Flow (l/s) Spring"
    assert chart_answers(parts[0], flows, parts, "")
    assert not chart_answers(parts[1], flows, parts, "")
    parts = ["Where is the Tolva basin?", "How is the water of the Tolva basin used?"]
    uses = "Water use of each sector Water use (%) Sector"
    assert chart_answers(parts[1], uses, parts, "") and not chart_answers(parts[0], uses, parts, "")
    # a question of one part: the chart is about what it asks
    assert chart_answers(PARTS[1], depths, PARTS[1:], PARTS[1])
    zh_lengths = "各渠段的长度 长度（公里） 渠段 canals.xlsx，工作表 渠段"
    assert chart_answers(ZH_PARTS[0], zh_lengths, ZH_PARTS, ZH_QUESTION)
    assert not chart_answers(ZH_PARTS[1], zh_lengths, ZH_PARTS, ZH_QUESTION)


def _point(text: str) -> Point:
    return Point([text], bullet=True)


def _table(header: list[str], caption: str) -> Table:
    rows = [["North well", "41"], ["Mill well", "33"], ["Chapel well", "27"]]
    return Table(header, rows, Point([caption]))


def test_a_table_whose_chart_answers_another_thing_moves_to_the_appendix() -> None:
    depth = _table(["Well", "Depth (m)"], "wells.xlsx, sheet Depths.")
    heat = _table(["Well", "Water temperature (°C)"], "wells.xlsx, sheet Temperatures.")
    deep = Section(PARTS[0], [_point("The North well is the deepest.")], [depth])
    dug = Section(PARTS[1], [_point("The miners' guild dug them.")], [heat])
    limits = Section(label("en", "limits"), [_point("Nothing was missing.")], kind="not_found")
    placed = attach_charts([deep, dug, limits], "en", QUESTION)
    assert [s.heading for s in placed] == [*PARTS, label("en", "limits"), label("en", "appendix")]
    assert deep.tables == [depth] and depth.chart.title == "Depth of each well"
    assert dug.tables == [] and dug.points  # the part keeps what it says
    appendix = placed[-1]
    assert appendix.kind == "appendix" and appendix.tables == [heat]
    assert heat.chart is not None and heat.chart.title == "Water temperature of each well"
    # a report read back has its appendix already: a table moving there joins it
    again = Section(PARTS[1], [_point("The miners' guild dug them.")], [heat])
    placed = attach_charts([deep, again, appendix], "en", QUESTION)
    assert placed == [deep, again, appendix] and appendix.tables == [heat, heat]
    # nothing moves where the chart answers the part, and no appendix is added
    kept = Section(PARTS[1], [_point("The miners' guild dug them.")], [depth])
    depth.chart = None
    assert attach_charts([kept], "en", QUESTION) == [kept] and kept.tables == [depth]


def test_a_table_stays_when_it_is_all_its_part_shows_or_its_heading_asks_nothing() -> None:
    alone = Section(PARTS[1], [], [_table(["Well", "Water temperature (°C)"], "t.csv")])
    assert attach_charts([alone], "en", QUESTION) == [alone] and alone.tables
    topic = Section(
        "Temperatures", [_point("Wells stay cool.")], [_table(["Well", "Depth (m)"], "d.csv")]
    )
    assert attach_charts([topic], "en", QUESTION) == [topic] and topic.tables
    zh_heat = Table(["渠段", "水温（℃）"], [["北段", "12"], ["中段", "14"], ["南段", "15"]])
    zh_heat.caption = Point(["canals.xlsx，工作表 水温。"])
    built = Section(ZH_PARTS[1], [_point("引水渠由石匠行会修建。")], [zh_heat])
    long = Section(ZH_PARTS[0], [_point("引水渠长十二公里。")])
    placed = attach_charts([long, built], "zh", ZH_QUESTION)
    assert [s.heading for s in placed] == [*ZH_PARTS, "附：资料中的数据"]
    assert placed[-1].tables == [zh_heat] and zh_heat.chart.title == "各渠段的水温"


# --- every format shows the appendix --------------------------------------------------

PAGE = """# The wells of Marrowdale

The North well of Marrowdale reaches 41 metres below the market square.

The wells of Marrowdale were dug by the miners' guild between 1610 and 1642.
"""
SPANS = [
    "The North well of Marrowdale reaches 41 metres below the market square.",
    "The wells of Marrowdale were dug by the miners' guild between 1610 and 1642.",
]
DEPTHS = """| Well | Depth (m) |
|---|---|
| North well | 41 |
| Mill well | 33 |
| Chapel well | 27 |"""
TEMPERATURES = """| Well | Water temperature (°C) |
|---|---|
| North well | 9 |
| Mill well | 11 |
| Chapel well | 12 |"""


async def _sheet(svc, name: str, table: str) -> SamplePage:
    """A spreadsheet's stored text, its one table cited by its sheet."""
    text = f"## Sheet {name}\n\n{table}\n"
    path, url = f"/workspace/sources/wells-{name.lower()}.md", "/userinput/wells.xlsx"
    items = [
        EvidenceItem(**{**i.to_dict(), "locator": f"Sheet {name}"})
        for i in make_items(text, [table], url, path)
    ]
    page = await write_page(svc, path, url, "wells.xlsx", text, [], [i.to_dict() for i in items])
    page.items = items
    return page


@pytest.fixture
async def wells(disk_service) -> dict:
    svc = disk_service
    page = await write_page(
        svc, "/workspace/pages/wells.md", "http://127.0.0.1:8765/wells", "Wells", PAGE, SPANS
    )
    depths, heat = (
        await _sheet(svc, "Depths", DEPTHS),
        await _sheet(svc, "Temperatures", TEMPERATURES),
    )
    (a, b), (d,), (t,) = page.ids(), depths.ids(), heat.ids()
    notes = (
        f"# {QUESTION}\n\n## {PARTS[0]}\n\n- {SPANS[0]} [{a}]\n\n{DEPTHS}\n\n"
        f"Table: wells.xlsx, sheet Depths. [{d}]\n\n## {PARTS[1]}\n\n- {SPANS[1]} [{b}]\n\n"
        f"{TEMPERATURES}\n\nTable: wells.xlsx, sheet Temperatures. [{t}]\n"
    )
    await svc.write_text("/workspace/notes/wells.md", notes)
    paths = ["/workspace/notes/wells.md", page.path, depths.path, heat.path]
    return {
        "svc": svc,
        "from_paths": paths,
        "toolkit": build_toolkit("generate", service=svc, evidence=None, model=None),
    }


TOOLS = {"md": "generate_markdown", "html": "generate_html", "pdf": "generate_pdf"}
TOOLS["pptx"] = "generate_pptx"


async def _write(wells: dict, ext: str) -> bytes:
    out = f"/workspace/reports/marrowdale-wells.{ext}"
    res = await call(
        wells["toolkit"],
        TOOLS[ext],
        requirements=QUESTION,
        out_path=out,
        from_paths=wells["from_paths"],
    )
    assert res.metadata["status"] == "ok", text_of(res)
    return await wells["svc"].read_bytes(out)


async def test_every_format_shows_the_appendix_with_its_chart(wells) -> None:
    appendix = label("en", "appendix")
    md = (await _write(wells, "md")).decode()
    body = md.split("\n## Sources\n")[0]
    assert re.findall(r"^## (.+)$", body, re.M) == [*PARTS, appendix]
    deep, dug, extra = body.split("\n## ")[1:]
    assert (
        "| Depth (m) |" in deep
        and "![Chart: Depth of each well](marrowdale-wells-chart-1.png)" in deep
    )
    assert "|" not in dug and "Water temperature" in extra
    assert "![Chart: Water temperature of each well](marrowdale-wells-chart-2.png)" in extra
    png = await wells["svc"].read_bytes("/workspace/reports/marrowdale-wells-chart-2.png")
    assert png.startswith(b"\x89PNG")

    doc = lxml_html.fromstring(await _write(wells, "html"))
    (section,) = doc.xpath("//section[@class='appendix']")
    assert section.xpath("string(h2)") == appendix
    assert section.xpath("string(.//figure[@class='chart']/figcaption)").endswith(
        "Water temperature of each well (°C)"
    )
    pdf = PdfReader(io.BytesIO(await _write(wells, "pdf")))
    flat = " ".join(p.extract_text() for p in pdf.pages)
    assert appendix in flat and "Water temperature of each well (°C)" in flat

    deck = Presentation(io.BytesIO(await _write(wells, "pptx")))
    titled = [
        (slide.shapes.title.text if slide.shapes.title is not None else "",
         any(s.has_table for s in slide.shapes), any(s.has_chart for s in slide.shapes))
        for slide in deck.slides
    ]  # fmt: skip
    assert (appendix, True, False) in titled
    assert ("Water temperature of each well (°C)", False, True) in titled
    # the zip beside the reports holds them and their charts under the same name
    data = await wells["svc"].read_bytes("/workspace/reports/marrowdale-wells.zip")
    names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    assert {"marrowdale-wells.md", "marrowdale-wells-chart-2.png", "marrowdale-wells.pptx"} <= names
