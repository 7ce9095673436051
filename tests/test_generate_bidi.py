"""Invisible format characters in page titles and spans never reach a report's reader.

A right-to-left override (U+202E) in a page's title or in a quoted span turns the text
after it around wherever the report shows it. Every format shows titles, headings and
quotes without Unicode format characters (category Cf), while the stored page keeps
them and every citation still verifies against its exact span.
"""

from __future__ import annotations

import io
import unicodedata
import zipfile

import pytest
from generate_samples import report_facts, write_page
from scripted import call_tool as call

from subagents import build_toolkit
from subagents.generate.visible import visible
from subagents.results import text_of

RLO, PDF_MARK, ZWSP, ZWJ = "\u202e", "\u202c", "\u200b", "\u200d"
TITLE = f"Ferry timetable {RLO}fdp.exe{PDF_MARK}"
PAGE = (
    "# Harbour ferries\n\n"
    f"The night ferry {RLO}leaves at 23:40{PDF_MARK} from pier four every day.\n"
    f"Tickets cost 3 euros{ZWSP} and are sold on board by the crew.\n"
    f"夜班渡轮每小时一班{ZWJ}，从四号码头出发。\n"
)
SPANS = [
    f"The night ferry {RLO}leaves at 23:40{PDF_MARK} from pier four every day.",
    f"Tickets cost 3 euros{ZWSP} and are sold on board by the crew.",
    f"夜班渡轮每小时一班{ZWJ}，从四号码头出发。",
]


def format_chars(text: str) -> list[str]:
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch) == "Cf"]


def test_visible_drops_format_characters_only():
    assert visible(f"a{RLO}b{PDF_MARK}c{ZWSP}d\ufeff") == "abcd"
    assert visible("龙井茶 — 西湖 «tea» café") == "龙井茶 — 西湖 «tea» café"
    assert visible("plain ascii text") == "plain ascii text"


@pytest.fixture
async def material(disk_service):
    svc = disk_service
    page = await write_page(
        svc, "/workspace/pages/ferries.md", "http://127.0.0.1:8765/ferries", TITLE, PAGE, SPANS
    )
    a, b, _ = page.ids()
    notes = (
        f"# Harbour ferries {RLO}today\n\n"
        f"The night ferry {RLO}leaves at 23:40 from pier four. [{a}]\n\n"
        f"## Tickets{ZWSP}\n\n- Tickets cost 3 euros and are sold on board. [{b}]\n"
    )
    await svc.write_text("/workspace/notes/ferries.md", notes)
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    return svc, toolkit, ["/workspace/notes/ferries.md", page.path]


async def _make(material, tool: str, ext: str) -> bytes:
    svc, toolkit, from_paths = material
    path = f"/workspace/reports/report.{ext}"
    res = await call(toolkit, tool, out_path=path, from_paths=from_paths, requirements="ferries")
    facts = report_facts(res)
    # Every quote verified against the stored page, format characters and all.
    assert facts["citations"] == 3 and facts["dropped"] == 0, text_of(res)
    assert RLO not in text_of(res).splitlines()[0]  # the title as the writer is told it
    return await svc.read_bytes(path)


async def test_markdown_html_and_slides_show_no_format_characters(material):
    svc = material[0]
    md = (await _make(material, "generate_markdown", "md")).decode()
    assert format_chars(md) == [], md
    assert "Ferry timetable fdp.exe" in md and "leaves at 23:40 from pier four every day" in md
    assert "夜班渡轮每小时一班，从四号码头出发。" in md

    page = (await _make(material, "generate_html", "html")).decode()
    assert format_chars(page) == [], page
    assert "Ferry timetable fdp.exe" in page and "leaves at 23:40 from pier four" in page

    deck = await _make(material, "generate_pptx", "pptx")
    with zipfile.ZipFile(io.BytesIO(deck)) as parts:
        xml = "\n".join(
            parts.read(n).decode("utf-8-sig") for n in parts.namelist() if n.endswith(".xml")
        )
    assert format_chars(xml) == []
    assert "Ferry timetable fdp.exe" in xml and "leaves at 23:40 from pier four" in xml

    # The stored page is evidence and stays exactly as it was read.
    assert await svc.read_text("/workspace/pages/ferries.md") == PAGE


async def test_a_report_read_back_still_verifies_its_quotes(material):
    """An earlier report names its quotes by offsets in the stored page; shown without
    format characters, they still verify when the report is the material of another."""
    svc, toolkit, _ = material
    await _make(material, "generate_markdown", "md")
    res = await call(
        toolkit,
        "generate_html",
        out_path="/workspace/reports/again.html",
        from_paths=["/workspace/reports/report.md"],
        requirements="ferries",
    )
    facts = report_facts(res)
    assert facts["citations"] >= 2 and facts["dropped"] == 0, text_of(res)
    assert format_chars((await svc.read_bytes("/workspace/reports/again.html")).decode()) == []
