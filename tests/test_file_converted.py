"""read_text_file on OpenDocument text, EPUB, RTF and HTML files: real files, read as text
with their headings and paragraphs, and damaged or hostile ones refused with the reason."""

from __future__ import annotations

import io
import random
import zipfile

import pytest
from file_support import (
    FileTools,
    assert_reads_back,
    assert_refused,
    epub_book,
    odt_document,
    saved_odf,
)
from odf.opendocument import OpenDocumentSpreadsheet

from fs_service import FileDomainService

ODT = "text converted from an OpenDocument text"
RTF = "text converted from an RTF document"
EPUB = "text converted from an EPUB book"
HTML = "text converted from an HTML page"


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


ODT_MARKDOWN = [
    "# Tide mill at Wenlow",
    "",
    "The Wenlow tide mill ground 30 sacks of flour a day in 1850.",
    "",
    "## Keepers",
    "",
    "- Ada Marsh",
    "- Tom Reed",
    "",
    "| Year | Sacks |",
    "| --- | --- |",
    "| 1850 | 30 |",
]


async def test_an_odt_reads_back_as_markdown_in_document_order(tools, input_dir):
    # an OpenDocument text with another name is recognised by its content
    info = await assert_reads_back(tools, input_dir, "mill.odt", odt_document(), ODT, ODT_MARKDOWN)
    assert "type: OpenDocument text (.odt)" in info
    part = await tools.text("read_text_file", path="/userinput/mill.odt", range=[5, 8])
    assert part.split("\n")[1:] == ODT_MARKDOWN[4:8]


def _with_content(data: bytes, body: bytes) -> bytes:
    """The .odt ``data`` with its content.xml replaced by ``body``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(buf, "w") as new:
        for info in old.infolist():
            part = body if info.filename == "content.xml" else old.read(info)
            new.writestr(info.filename, part)
    return buf.getvalue()


async def test_a_damaged_odt_gets_a_clear_error_naming_the_file(tools, input_dir):
    good = odt_document()
    cases = {
        "random.odt": (random.Random(7).randbytes(4096), "is not a valid .odt file (it is not"),
        "cut.odt": (good[: len(good) // 2], "is not a valid .odt file"),
        "badxml.odt": (
            _with_content(good, b"<office:document-content><oops"),
            "is a damaged OpenDocument text that cannot be read (",
        ),
        "sheet.odt": (
            saved_odf(OpenDocumentSpreadsheet()),
            "is not an OpenDocument text (its type is application/vnd.oasis.opendocument.sp",
        ),
    }
    await assert_refused(tools, input_dir, cases)


CHAPTERS = [
    ("Locks of the Kennet", "The Kennet canal climbed through 105 locks."),
    ("Boats", "Narrow boats on the Kennet were 70 feet long."),
]


async def test_an_epub_reads_back_chapter_by_chapter_in_reading_order(tools, input_dir):
    lines = [
        "# Locks of the Kennet",
        "",
        "The Kennet canal climbed through 105 locks.",
        "",
        "# Boats",
        "",
        "Narrow boats on the Kennet were 70 feet long.",
    ]
    info = await assert_reads_back(tools, input_dir, "canal.epub", epub_book(CHAPTERS), EPUB, lines)
    assert "type: EPUB book (.epub)" in info


async def test_a_damaged_epub_gets_a_clear_error_naming_the_file(tools, input_dir):
    good = epub_book(CHAPTERS)
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        parts = {i.filename: zf.read(i) for i in zf.infolist()}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, part in parts.items():
            zf.writestr(name, b"<package><oops" if name.endswith(".opf") else part)
    cases = {
        "cut.epub": (good[: len(good) // 2], "is not a valid .epub file (it is not"),
        "badopf.epub": (buf.getvalue(), "is a damaged EPUB book that cannot be read ("),
    }
    await assert_refused(tools, input_dir, cases)


RTF_TEXT = (
    r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}}"
    "\n"
    r"\f0\fs32\b Ferry tolls at Carrow\b0\par"
    "\n"
    r"\fs24 A foot passenger paid 2 pence; a cart paid 1 shilling at the caf\'e9 landing.\par"
    "\n"
    r"\par Tolls were set by the parish in 1902 \u8212? and kept until 1931.\par}"
)


async def test_rtf_reads_as_plain_paragraphs(tools, input_dir):
    (input_dir / "tolls.rtf").write_text(RTF_TEXT, encoding="ascii")
    text = await tools.text("read_text_file", path="/userinput/tolls.rtf")
    assert text.split("\n") == [
        f"/userinput/tolls.rtf — lines 1–5 of 5 ({RTF})",
        "Ferry tolls at Carrow",
        "",
        "A foot passenger paid 2 pence; a cart paid 1 shilling at the café landing.",
        "",
        "Tolls were set by the parish in 1902 — and kept until 1931.",
    ]
    # RTF under another name is recognised by how it begins
    (input_dir / "tolls.txt").write_text(RTF_TEXT, encoding="ascii")
    same = await tools.text("read_text_file", path="/userinput/tolls.txt")
    assert same.split("\n", 1) == [
        f"/userinput/tolls.txt — lines 1–5 of 5 ({RTF})",
        text.split("\n", 1)[1],
    ]
    (input_dir / "fake.rtf").write_text("Just a note, not RTF.\n", encoding="utf-8")
    fake = await tools.text("read_text_file", path="/userinput/fake.rtf")
    assert fake.startswith("Error: /userinput/fake.rtf is not an RTF document")
    # an RTF file in the workspace is still edited as the text it is
    await tools.service.write_bytes("/workspace/t.rtf", RTF_TEXT.encode("ascii"))
    edits = [{"old_text": "Carrow", "new_text": "Carrow Ferry"}]
    done = await tools.text("edit_file", path="/workspace/t.rtf", edits=edits)
    assert not done.startswith("Error"), done
    edited = await tools.service.read_bytes("/workspace/t.rtf")
    assert edited == RTF_TEXT.replace("Carrow", "Carrow Ferry").encode("ascii")


HTML_PAGE = """<!doctype html>
<html><head><title>Lamp survey</title><style>p { color: red }</style>
<script>var tracker = "do not show";</script></head>
<body><nav><a href="/">Home</a></nav>
<h1>Street lamps of Hollin</h1>
<p>Hollin lit its high street with 24 gas lamps in 1868.</p>
<h2>Costs</h2>
<p>Each lamp cost the town 3 pounds a year to light.</p>
</body></html>
"""


async def test_html_reads_as_markdown_not_markup(tools, input_dir):
    (input_dir / "lamps.html").write_text(HTML_PAGE, encoding="utf-8")
    text = await tools.text("read_text_file", path="/userinput/lamps.html")
    header, body = text.split("\n", 1)
    assert header.endswith(f"({HTML})"), header
    assert body.split("\n") == [
        "# Street lamps of Hollin",
        "",
        "Hollin lit its high street with 24 gas lamps in 1868.",
        "",
        "## Costs",
        "",
        "Each lamp cost the town 3 pounds a year to light.",
    ]
    # HTML one may edit is read and edited as the markup it is
    await tools.service.write_bytes("/workspace/p.htm", HTML_PAGE.encode("utf-8"))
    page = await tools.text("read_text_file", path="/workspace/p.htm")
    assert f"({HTML})" not in page and "Costs" in page
    edits = [{"old_text": "h2>Costs</h2>", "new_text": "h2>Running costs</h2>"}]
    done = await tools.text("edit_file", path="/workspace/p.htm", edits=edits)
    assert not done.startswith("Error"), done
    raw = (await tools.service.read_bytes("/workspace/p.htm")).decode("utf-8")
    assert "<h2>Running costs</h2>" in raw
