"""Property: every File reader's result stays within MAX_TEXT_CHARS, whatever the shape
of its input — one huge line or a million short ones, wide rows, giant cells, hundreds
of slides or sheets, long names — and the reader bounds itself (the last-resort cut in
``file_tool`` is never what keeps it short).

Run with more examples: QUARTET_CAP_EXAMPLES=500 pytest tests/test_file_caps.py
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import tempfile
from pathlib import Path

import openpyxl
from file_support import FileTools
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pptx import Presentation
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService
from subagents.file.limits import MAX_TEXT_CHARS

EXAMPLES = int(os.environ.get("QUARTET_CAP_EXAMPLES", "30"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
BACKSTOP = "[… result cut at"

#: Pieces a line is made of: plain, CJK, astral, separators, quotes, breaks, controls.
TOKENS = ["a", "长", "😀", ",", ";", "\t", "|", '"', "'", " ", "=", "\r", "\x0c", "\x1b", "é"]
BREAKS = ["\n", "\r\n", "\r", ""]

#: A text file as blocks of identical lines: (lines, characters per line, token, break).
blocks = st.lists(
    st.tuples(
        st.sampled_from([0, 1, 2, 50, 3_000, 60_000]),
        st.sampled_from([0, 1, 7, 300, 5_000, 70_000]),
        st.sampled_from(TOKENS),
        st.sampled_from(BREAKS),
    ).filter(lambda b: b[0] * (b[1] + 2) <= 400_000),
    min_size=1,
    max_size=4,
)


def text_of_blocks(shape: list[tuple[int, int, str, str]]) -> str:
    return "".join((token * width + brk) * lines for lines, width, token, brk in shape)


class Folder:
    """A fresh input folder and a File toolkit over it, for one example."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="caps-"))
        self.input = self.tmp / "input"
        self.input.mkdir()
        fs = DiskFileSystem(self.tmp / "run", mounts={"/userinput/": self.input})
        grants = [
            {"prefix": "/workspace/", "ops": set(ALL_OPS)},
            {"prefix": "/userinput/", "ops": set(READ_OPS)},
        ]
        self.tools = FileTools(FileDomainService(fs.create_handle(grants)))

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, tool: str, **args: object) -> str:
        resp = asyncio.run(self.tools.call(tool, **args))
        text = resp.content[0]["text"]
        assert len(text) <= MAX_TEXT_CHARS, (tool, len(text), text[-300:])
        assert BACKSTOP not in text, (tool, text[-300:])
        assert resp.metadata["status"] in ("ok", "error"), resp.metadata
        assert " failed on " not in text, text[:500]  # no unexpected exception
        return text


@SETTINGS
@given(shape=blocks, name=st.sampled_from(["t.txt", "t.csv", "t.tsv"]))
def test_text_and_csv_readers_stay_within_the_cap(shape, name):
    with Folder() as f:
        (f.input / name).write_bytes(text_of_blocks(shape).encode("utf-8"))
        path = f"/userinput/{name}"
        f.check("read_text_file", path=path)
        f.check("read_text_file", path=path, range=[-3_000, -1])
        f.check("csv_read", path=path)
        f.check("get_file_info", path=path)


@SETTINGS
@given(
    rows=st.sampled_from([1, 3, 400]),
    cols=st.sampled_from([1, 5, 90]),
    cell=st.sampled_from([0, 1, 40, 2_000]),
    sheets=st.sampled_from([1, 3, 40]),
    name_len=st.sampled_from([1, 31]),
    corner=st.booleans(),
    rng=st.sampled_from(["A1:ZZ500", "S0!", "A:C", "1:2", "B2", "S0!A1:XFD1048576"]),
)
def test_xlsx_reader_stays_within_the_cap(rows, cols, cell, sheets, name_len, corner, rng):
    assume(rows * cols * max(cell, 1) <= 400_000)
    wb = openpyxl.Workbook(write_only=True)
    for s in range(sheets):
        ws = wb.create_sheet(f"S{s}" if s == 0 else f"{s}{'表' * (name_len - len(str(s)))}")
        for r in range(rows if s == 0 else 1):
            ws.append([("长" * cell) or r * c for c in range(cols)])
        if corner and s == 0:
            ws.append([None] * 3 + ["far"])
    if corner:
        wb.worksheets[0].sheet_dimension = "A1:XFD1048576"  # type: ignore[attr-defined]
    buf = io.BytesIO()
    wb.save(buf)
    with Folder() as f:
        (f.input / "t.xlsx").write_bytes(buf.getvalue())
        f.check("xlsx_read_cells", path="/userinput/t.xlsx", range=rng)


@SETTINGS
@given(
    slides=st.sampled_from([1, 40, 150]),
    bullets=st.sampled_from([0, 3, 40]),
    width=st.sampled_from([0, 10, 3_000]),
    title=st.sampled_from([1, 500]),
)
def test_pptx_reader_stays_within_the_cap(slides, bullets, width, title):
    assume(slides * max(bullets, 1) * max(width, 1) <= 200_000)
    prs = Presentation()
    for i in range(slides):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = f"{i} " + "题" * title
        frame = slide.placeholders[1].text_frame
        for j in range(bullets):
            para = frame.paragraphs[0] if j == 0 else frame.add_paragraph()
            para.text = f"{j} " + "长" * width
    buf = io.BytesIO()
    prs.save(buf)
    with Folder() as f:
        (f.input / "t.pptx").write_bytes(buf.getvalue())
        f.check("pptx_read_outline", path="/userinput/t.pptx")


def pdf_pages(pages: int, lines: int, width: int) -> bytes:
    """A PDF of ``pages`` pages, each with ``lines`` lines of ``width`` letters."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    font_ref = writer._add_object(font)
    for p in range(pages):
        page = writer.add_blank_page(600, 800)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font_ref})}
        )
        body = "".join(f"({p} {'w' * width}) Tj T* " for _ in range(lines))
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 2 Tf 2 TL 10 790 Td {body} ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


@settings(max_examples=max(EXAMPLES // 4, 5), deadline=None)
@given(
    pages=st.sampled_from([1, 6, 30]),
    lines=st.sampled_from([0, 1, 400]),
    width=st.sampled_from([1, 200]),
    ask=st.sampled_from([None, [1], "all"]),
)
def test_pdf_reader_stays_within_the_cap(pages, lines, width, ask):
    with Folder() as f:
        (f.input / "t.pdf").write_bytes(pdf_pages(pages, lines, width))
        wanted = list(range(1, pages + 1)) if ask == "all" else ask
        f.check("pdf_read_text", path="/userinput/t.pdf", pages=wanted)


@settings(max_examples=max(EXAMPLES // 4, 5), deadline=None)
@given(files=st.sampled_from([0, 1, 700]), name_len=st.sampled_from([1, 80]))
def test_list_directory_stays_within_the_cap(files, name_len):
    with Folder() as f:
        for i in range(files):
            (f.input / f"{i}{'长' * name_len}"[:84]).write_bytes(b"x")
        f.check("list_directory", path="/userinput/")
