"""File subagent: PDF text and PowerPoint outlines on real files, hostile ones included."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import zipfile

import docx
import pytest
from cli_support import ROOT, named_reports, quartet
from file_support import (
    FileTools,
    assert_reads_back,
    assert_refused,
    epub_book,
    odt_document,
    paged_html,
    pdf_from_html,
    pdf_with_nul_text,
    thread_spy,
    zip_bomb,
)
from pptx import Presentation
from pypdf import PdfReader, PdfWriter

from fs_service import FileDomainService


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


@pytest.fixture(scope="module")
def cjk_pdf() -> bytes:
    return pdf_from_html(paged_html(3, font="WenQuanYi Zen Hei"))


def pages_of(text: str) -> list[dict]:
    """The ``--- page N ---`` blocks of a pdf_read_text result, in order."""
    parts = re.split(r"^--- page (\d+) ---\n", text, flags=re.M)
    return [
        {"page": int(n), "text": body.split("\n[")[0].rstrip("\n")}
        for n, body in zip(parts[1::2], parts[2::2], strict=True)
    ]


def _encrypt(data: bytes, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-pw", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


# ---------------------------------------------------------------- PDF


@pytest.mark.parametrize("font", ["WenQuanYi Zen Hei", "Noto Sans CJK SC"])
async def test_pdf_read_text_round_trips_chinese_in_both_font_kinds(tools, input_dir, font):
    data = pdf_from_html(paged_html(2, font=font, words=5))
    fonts = PdfReader(io.BytesIO(data)).pages[0]["/Resources"]["/Font"].values()
    subtypes = {f.get_object()["/DescendantFonts"][0].get_object()["/Subtype"] for f in fonts}
    assert subtypes == ({"/CIDFontType0"} if font.startswith("Noto") else {"/CIDFontType2"})
    (input_dir / "r.pdf").write_bytes(data)
    resp = await tools.call("pdf_read_text", path="/userinput/r.pdf")
    text = resp.content[0]["text"]
    assert "\x00" not in text
    assert "Page 1 第1页" in text and "Page 2 第2页" in text and "研究报告 research" in text
    assert [p["page"] for p in pages_of(text)] == [1, 2]
    assert text.startswith("/userinput/r.pdf — 2 pages")
    assert resp.metadata["paths"] == ["/userinput/r.pdf"]


async def test_pdf_text_has_nul_bytes_stripped(tools, input_dir):
    data = pdf_with_nul_text()
    assert "\x00" in PdfReader(io.BytesIO(data)).pages[0].extract_text()
    (input_dir / "nul.pdf").write_bytes(data)
    resp = await tools.call("pdf_read_text", path="/userinput/nul.pdf")
    assert pages_of(resp.content[0]["text"]) == [{"page": 1, "text": "NULs"}]
    assert "\x00" not in resp.content[0]["text"]


async def test_pdf_pages_parameter_and_bad_page_numbers(tools, input_dir, cjk_pdf):
    (input_dir / "r.pdf").write_bytes(cjk_pdf)
    resp = await tools.call("pdf_read_text", path="/userinput/r.pdf", pages=[3, 1])
    assert [p["page"] for p in pages_of(resp.content[0]["text"])] == [3, 1]
    assert "第3页" in resp.content[0]["text"] and "第2页" not in resp.content[0]["text"]
    bad = await tools.text("pdf_read_text", path="/userinput/r.pdf", pages=[4])
    assert bad.startswith("Error:") and "has 3 pages" in bad


async def test_pdf_long_document_names_the_next_pages(tools, input_dir):
    data = pdf_from_html(paged_html(12, words=400))
    (input_dir / "long.pdf").write_bytes(data)
    resp = await tools.call("pdf_read_text", path="/userinput/long.pdf")
    text = resp.content[0]["text"]
    assert len(text) <= 31_000
    total = int(re.match(r"/userinput/long\.pdf — (\d+) pages", text).group(1))
    assert total == len(PdfReader(io.BytesIO(data)).pages)
    m = re.search(
        rf"\[Pages (\d+)–{total} not shown\. To read on, call pdf_read_text with "
        r"pages=\[([\d, ]+)\]\.\]",
        text,
    )
    assert m, text[-300:]
    first = int(m.group(1))
    assert f"--- page {first - 1} ---" in text and f"--- page {first} ---" not in text
    nxt = [int(x) for x in m.group(2).split(", ")]
    assert nxt[0] == first
    more = await tools.call("pdf_read_text", path="/userinput/long.pdf", pages=nxt)
    expected = PdfReader(io.BytesIO(data)).pages[first - 1].extract_text().strip()
    assert pages_of(more.content[0]["text"])[0] == {"page": first, "text": expected}
    assert f"--- page {first} ---\n{expected}\n" in more.content[0]["text"]


async def test_pdf_hostile_files_get_clear_errors(tools, input_dir, cjk_pdf):
    cases = {
        "trunc.pdf": (cjk_pdf[: len(cjk_pdf) // 2], "truncated"),
        "garbage.pdf": (b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n", "damaged PDF"),
        "notpdf.pdf": (b"hello, I am text" * 20, "not a PDF"),
        "locked.pdf": (_encrypt(cjk_pdf, "secret-pw"), "encrypted PDF"),
    }
    for name, (data, words) in cases.items():
        (input_dir / name).write_bytes(data)
        text = await tools.text("pdf_read_text", path=f"/userinput/{name}")
        assert text.startswith("Error:") and words in text, (name, text)
        assert (input_dir / name).read_bytes() == data
    (input_dir / "open.pdf").write_bytes(_encrypt(cjk_pdf, ""))
    opened = await tools.text("pdf_read_text", path="/userinput/open.pdf", pages=[2])
    assert "第2页" in opened and "empty password" in opened


# ---------------------------------------------------------------- PPTX

SLIDES = [
    {
        "title": "研究概览",
        "bullets": ["背景：市场规模", "  细分：华东地区", "结论"],
        "notes": "讲稿：先讲背景",
    },
    {"title": "Data 数据", "bullets": ["增长 12%"]},
    {"title": "空白页", "bullets": []},
]


async def test_pptx_write_then_read_round_trips_chinese(tools, input_dir):
    resp = await tools.call("pptx_write", path="/workspace/deck.pptx", slides_spec=SLIDES)
    assert resp.content[0]["text"].startswith("Created /workspace/deck.pptx: 3 slides")
    prs = Presentation(io.BytesIO(await tools.service.read_bytes("/workspace/deck.pptx")))
    assert prs.slide_width > prs.slide_height
    out = await tools.call("pptx_read_outline", path="/workspace/deck.pptx")
    text = out.content[0]["text"]
    assert text == (
        "/workspace/deck.pptx — 3 slides\n"
        "Slide 1: 研究概览\n"
        "  - 背景：市场规模\n"
        "    - 细分：华东地区\n"
        "  - 结论\n"
        "  Notes: 讲稿：先讲背景\n"
        "Slide 2: Data 数据\n"
        "  - 增长 12%\n"
        "Slide 3: 空白页"
    )
    assert out.metadata["paths"] == ["/workspace/deck.pptx"]
    refused = await tools.text("pptx_write", path="/userinput/deck.pptx", slides_spec=SLIDES)
    assert refused.startswith("Error: writing is not allowed under /userinput/")
    assert not (input_dir / "deck.pptx").exists()
    bad = await tools.text("pptx_write", path="/workspace/d2.pptx", slides_spec=[{"bullets": []}])
    assert bad.startswith("Error: slides_spec must be") and "title" in bad
    assert not await tools.service.exists("/workspace/d2.pptx")


async def test_pptx_outline_of_a_long_deck_shows_every_slide(tools):
    slides = [
        {
            "title": f"第{i}页 Slide {i}",
            "bullets": [f"要点 {i}-{j} " + "内容" * 60 for j in range(8)],
        }
        for i in range(1, 151)
    ]
    await tools.call("pptx_write", path="/workspace/long.pptx", slides_spec=slides)
    out = await tools.call("pptx_read_outline", path="/workspace/long.pptx")
    text = out.content[0]["text"]
    assert len(text) <= 30_000
    assert "Slide 150: 第150页 Slide 150" in text and "lines are shortened" in text
    titles = re.findall(r"^Slide (\d+): 第\1页 Slide \1$", text, flags=re.M)
    assert titles == [str(i) for i in range(1, 151)]
    assert text.count("    [+8 more lines]") == 150
    # the shortened outline leaves the deck whole: the last bullet of the last slide
    deck = Presentation(io.BytesIO(await tools.service.read_bytes("/workspace/long.pptx")))
    last = deck.slides[149].placeholders[1].text_frame.paragraphs[7].text
    assert last == "要点 150-7 " + "内容" * 60


async def test_pptx_zip_bomb_and_garbage_are_refused(tools, input_dir):
    (input_dir / "bomb.pptx").write_bytes(zip_bomb("pptx"))
    bomb = await tools.text("pptx_read_outline", path="/userinput/bomb.pptx")
    assert bomb.startswith("Error:") and "zip bomb" in bomb
    (input_dir / "junk.pptx").write_bytes(b"PK\x03\x04 but not really a zip" * 5)
    junk = await tools.text("pptx_read_outline", path="/userinput/junk.pptx")
    assert junk.startswith("Error:") and ".pptx" in junk
    xlsx_like = zip_bomb("xlsx", inflated=1024 * 1024)
    (input_dir / "wrong.pptx").write_bytes(xlsx_like)
    wrong = await tools.text("pptx_read_outline", path="/userinput/wrong.pptx")
    assert wrong.startswith("Error:") and "not a .pptx file" in wrong


async def test_parsing_and_building_run_off_the_event_loop(tools, input_dir, cjk_pdf, monkeypatch):
    from subagents.file import documents

    (input_dir / "p.pdf").write_bytes(cjk_pdf)
    pdf_calls = thread_spy(monkeypatch, documents, "PdfReader")
    assert "Page 1" in await tools.text("pdf_read_text", path="/userinput/p.pdf")
    pptx_calls = thread_spy(monkeypatch, documents, "Presentation")
    spec = [{"title": "概览", "bullets": ["要点一"]}]
    written = await tools.text("pptx_write", path="/workspace/d.pptx", slides_spec=spec)
    assert written.startswith("Created"), written
    assert "概览" in await tools.text("pptx_read_outline", path="/workspace/d.pptx")
    assert pdf_calls == [False] and pptx_calls == [False, False]


# ---------------------------------------------------------------- DOCX (read_text_file)

WORD = "text converted from a Word document"


def word_document() -> bytes:
    """A real .docx: a title, headings, paragraphs (one with a line break), a bulleted
    list with a nested item, and a table, in English and Chinese."""
    doc = docx.Document()
    doc.add_heading("大运河 Grand Canal notes", level=0)
    doc.add_paragraph("The Sui dynasty opened the Tongji Canal in 605.")
    doc.add_heading("修建 Construction", level=1)
    doc.add_paragraph("隋炀帝下令开凿通济渠，\n连接黄河与淮河。")
    doc.add_paragraph("Workers dug channels", style="List Bullet")
    doc.add_paragraph("and built locks", style="List Bullet 2")
    doc.add_paragraph("元代截弯取直", style="List Bullet")
    doc.add_heading("Dates 年代", level=2)
    table = doc.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, [("Year", "Event"), ("605", "通济渠 | Tongji"),
                                       ("1289", "Huitong Canal")], strict=True):  # fmt: skip
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    doc.add_paragraph("")  # an empty paragraph adds no line
    doc.add_paragraph("The canal was listed as World Heritage in 2014.")
    buf = io.BytesIO()
    doc.save(buf)
    return buf.getvalue()


WORD_MARKDOWN = [
    "# 大运河 Grand Canal notes",
    "",
    "The Sui dynasty opened the Tongji Canal in 605.",
    "",
    "# 修建 Construction",
    "",
    "隋炀帝下令开凿通济渠，连接黄河与淮河。",
    "",
    "- Workers dug channels",
    "  - and built locks",
    "- 元代截弯取直",
    "",
    "## Dates 年代",
    "",
    "| Year | Event |",
    "| --- | --- |",
    "| 605 | 通济渠 \\| Tongji |",
    "| 1289 | Huitong Canal |",
    "",
    "The canal was listed as World Heritage in 2014.",
]


async def test_docx_reads_back_as_markdown_in_document_order(tools, input_dir):
    # a Word document with another name is recognised by its content
    data = word_document()
    info = await assert_reads_back(tools, input_dir, "notes.docx", data, WORD, WORD_MARKDOWN)
    assert "type: Word document (.docx)" in info


async def test_docx_line_ranges_work_on_the_converted_text(tools, input_dir):
    (input_dir / "notes.docx").write_bytes(word_document())
    n = len(WORD_MARKDOWN)
    part = await tools.text("read_text_file", path="/userinput/notes.docx", range=[13, 16])
    assert part.split("\n") == [
        f"/userinput/notes.docx — lines 13–16 of {n} ({WORD})",
        *WORD_MARKDOWN[12:16],
    ]
    last = await tools.text("read_text_file", path="/userinput/notes.docx", range=[-1, -1])
    assert last.endswith(f"lines {n}–{n} of {n} ({WORD})\n{WORD_MARKDOWN[-1]}")
    bad = await tools.text("read_text_file", path="/userinput/notes.docx", range=[99, 100])
    assert bad == f"Error: the file has {n} lines; start must be at most {n}."


def _zip(parts: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _with_part(data: bytes, name: str, body: bytes) -> bytes:
    """The .docx ``data`` with the part ``name`` replaced by ``body``."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        parts = {i.filename: zf.read(i) for i in zf.infolist()}
    return _zip(parts | {name: body})


def _macro_enabled(data: bytes) -> bytes:
    """The .docx ``data`` declared a macro-enabled document (.docm), which python-docx
    does not open."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        types = zf.read("[Content_Types].xml")
    main = b"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
    assert main in types
    macro = b"application/vnd.ms-word.document.macroEnabled.main+xml"
    return _with_part(data, "[Content_Types].xml", types.replace(main, macro))


async def test_a_damaged_docx_gets_a_clear_error_naming_the_file(tools, input_dir):
    cases = {
        "random.docx": (
            random.Random(7).randbytes(4096),
            "is not a valid .docx file (it is not a zip",
        ),
        "nodoc.docx": (_zip({"word/other.xml": b"<x/>"}), "no word/document.xml"),
        "badxml.docx": (
            _with_part(word_document(), "word/document.xml", b"<w:document><oops"),
            "is a damaged Word document that cannot be read (",
        ),
        "notypes.docx": (_zip({"word/document.xml": b"<x/>"}), "damaged Word document"),
        "macros.docx": (_macro_enabled(word_document()), "is not a Word file, content type"),
    }
    await assert_refused(tools, input_dir, cases)
    # a workbook named .docx is named as what it is, with the tool that reads it
    (input_dir / "sheet.docx").write_bytes(zip_bomb("xlsx", inflated=1024 * 1024))
    sheet = await tools.text("read_text_file", path="/userinput/sheet.docx")
    assert sheet.startswith("Error:") and "Use xlsx_read_cells" in sheet


@pytest.mark.parametrize(
    ("name", "document", "said"),
    [
        ("w.docx", word_document, "a Word document (.docx)"),
        ("m.odt", odt_document, "an OpenDocument text (.odt)"),
    ],
)
async def test_a_docx_or_odt_is_never_edited_as_text(tools, name, document, said):
    data = document()
    await tools.service.write_bytes(f"/workspace/{name}", data)
    edits = [{"old_text": "Grand Canal", "new_text": "canal"}]
    text = await tools.text("edit_file", path=f"/workspace/{name}", edits=edits)
    assert text.startswith(f"Error: /workspace/{name} is {said}"), text
    assert await tools.service.read_bytes(f"/workspace/{name}") == data


@pytest.mark.parametrize(
    ("kind", "module", "opener", "document", "words"),
    [
        ("docx", "word", "Document", word_document, "Grand Canal"),
        ("odt", "odt", "load", odt_document, "Tide mill"),
        ("epub", "ebook", "read_epub", lambda: epub_book([("Tide", "A tide mill.")]), "A tide"),
    ],
)
async def test_a_zip_bomb_posing_as_a_document_is_refused_before_its_library_opens_it(
    tools, input_dir, monkeypatch, kind, module, opener, document, words
):
    import importlib

    opened = thread_spy(monkeypatch, importlib.import_module(f"subagents.file.{module}"), opener)
    (input_dir / f"bomb.{kind}").write_bytes(zip_bomb(kind))
    bomb = await tools.text("read_text_file", path=f"/userinput/bomb.{kind}")
    assert bomb.startswith(f"Error: /userinput/bomb.{kind} ") and "zip bomb" in bomb
    assert opened == []
    # a real document goes through the same guard, then is parsed off the event loop
    (input_dir / f"ok.{kind}").write_bytes(document())
    assert words in await tools.text("read_text_file", path=f"/userinput/ok.{kind}")
    assert opened == [False]


def test_the_offline_plan_reads_a_docx_with_read_text_file():
    from subagents.file.offline import reader_call

    assert reader_call("/userinput/Notes.DOCX") == (
        "read_text_file",
        {"path": "/userinput/Notes.DOCX"},
    )
    assert reader_call("/userinput/old.doc") is None


def test_an_offline_run_cites_the_docx_that_answers_the_question(tmp_path):
    """The whole pipeline with no web: the .docx in the input folder is read, stored as a
    source with its heading as locator and cited; a damaged one is recorded with why."""
    files = tmp_path / "myfiles"
    files.mkdir()
    doc = docx.Document()
    doc.add_heading("Reading notes: Grand Canal", level=0)
    doc.add_heading("Length and course", level=1)
    doc.add_paragraph(
        "The Grand Canal is a waterway of about 1,794 kilometres that links Beijing in the "
        "north with Hangzhou in the south of China."
    )
    doc.save(files / "canal-notes.docx")
    (files / "broken.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 300)
    closed = "http://127.0.0.1:9"
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}
    env |= {"PYTHONPATH": str(ROOT), "QUARTET_SEARCH_TIMEOUT": "2"}
    env |= {"QUARTET_NETWORK": "allowlist", "QUARTET_ALLOW_HOSTS": "127.0.0.1,localhost"}
    env |= {f"QUARTET_{s}_URL": closed for s in ("GOOGLE", "BING", "SOGOU", "GITHUB", "WIKI")}
    runs = tmp_path / "runs"
    args = ["run", "What is the Grand Canal?", "--input", str(files), "--formats", "md"]
    proc = subprocess.run(
        quartet(*args, "--runs-dir", str(runs)),
        capture_output=True, text=True, env=env, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = [p for p in runs.iterdir() if not p.name.startswith(".")]
    (md,) = named_reports("What is the Grand Canal?", "md")
    report = (run_dir / md.lstrip("/")).read_text(encoding="utf-8")
    stored = re.search(r"\*\*canal-notes\.docx\*\* — \[stored copy\]\(<copies/([^>]+)>\)", report)
    assert stored, report
    source = (run_dir / "workspace/sources" / stored.group(1)).read_text(encoding="utf-8")
    beside = run_dir / "workspace/reports/copies" / stored.group(1)
    assert beside.read_text(encoding="utf-8") == source
    assert source.startswith("# Reading notes: Grand Canal\n\n# Length and course\n\n")
    assert "1,794 kilometres" in source
    cited = re.search(r"- \[1\] “([^”]+)” \(Length and course\)", report)
    assert cited and "1,794 kilometres" in cited.group(1), report
    assert re.search(r"1,794 kilometres[^\n]*\[1\]", report.split("## Sources")[0])
    record = json.loads((run_dir / "internal/run.json").read_text(encoding="utf-8"))
    (broken,) = [
        c for c in record["tool_calls"] if c["input"].get("path") == "/userinput/broken.docx"
    ]
    assert not broken["ok"] and "/userinput/broken.docx is not a valid .docx file" in broken["note"]
