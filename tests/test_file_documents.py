"""File subagent: PDF text and PowerPoint outlines on real files, hostile ones included."""

from __future__ import annotations

import io
import re

import pytest
from file_support import (
    FileTools,
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
