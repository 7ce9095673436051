"""Builders shared by the File subagent tests: call tools through a real Toolkit, make files."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from agentscope.message import ToolUseBlock
from agentscope.tool import Toolkit, ToolResponse
from odf.opendocument import OpenDocumentText
from odf.table import Table, TableCell, TableColumn, TableRow
from odf.text import H, List, ListItem, P

from subagents import build_toolkit
from subagents.results import text_of


class FileTools:
    """The File subagent's toolkit over one service, called the way an agent calls it."""

    def __init__(self, service: Any, read_only: bool = False, settings: Any = None) -> None:
        self.service = service
        deps = {} if settings is None else {"settings": settings}
        self.toolkit: Toolkit = build_toolkit("file", service=service, read_only=read_only, **deps)

    async def call(self, name: str, **kwargs: Any) -> ToolResponse:
        last = None
        call = ToolUseBlock(type="tool_use", id="t1", name=name, input=kwargs)
        async for chunk in await self.toolkit.call_tool_function(call):
            last = chunk
        assert last is not None
        return last

    async def text(self, name: str, **kwargs: Any) -> str:
        return text_of(await self.call(name, **kwargs))


def pdf_from_html(html: str) -> bytes:
    """A real PDF rendered by weasyprint."""
    from weasyprint import HTML

    return HTML(string=html).write_pdf()


def paged_html(pages: int, font: str = "WenQuanYi Zen Hei", words: int = 40) -> str:
    """HTML that renders to ``pages`` pages, each starting with 'Page N 第N页'."""
    body = "".join(
        f'<section style="page-break-after: always"><h1>Page {i} 第{i}页</h1>'
        f"<p>{' '.join(['研究报告 research'] * words)}</p></section>"
        for i in range(1, pages + 1)
    )
    return f"<html><body style=\"font-family: '{font}'\">{body}</body></html>"


def zip_bomb(kind: str, inflated: int = 64 * 1024 * 1024) -> bytes:
    """A small zip that poses as .xlsx/.pptx/.docx/.odt/.epub and declares one huge, highly
    compressed part."""
    main = {
        "xlsx": "xl/workbook.xml",
        "pptx": "ppt/presentation.xml",
        "docx": "word/document.xml",
        "odt": "content.xml",
        "epub": "META-INF/container.xml",
    }[kind]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("[Content_Types].xml", "<Types/>")
        zf.writestr(main, "<x/>")
        chunk = b"\x00" * (1024 * 1024)
        with zf.open("bomb.xml", "w", force_zip64=True) as fh:
            for _ in range(inflated // len(chunk)):
                fh.write(chunk)
    return buf.getvalue()


def pdf_with_nul_text(text: str = "N\\000U\\000L\\000s") -> bytes:
    """A one-page PDF whose text has NUL bytes between letters, as pypdf reports some fonts."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(200, 200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 10 100 Td ({text}) Tj ET".encode())
    page[NameObject("/Contents")] = writer._add_object(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def thread_spy(monkeypatch: Any, module: Any, name: str) -> list[bool]:
    """Wrap ``module.name`` so each call records whether it ran on the event loop's thread.

    The real function still does the work; the list says, per call, True when the call
    blocked the event loop (ran in the thread that runs it).
    """
    import asyncio
    import threading

    real = getattr(module, name)
    loop_thread = threading.get_ident()
    calls: list[bool] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        try:
            asyncio.get_running_loop()
            on_loop = threading.get_ident() == loop_thread
        except RuntimeError:
            on_loop = False
        calls.append(on_loop)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


async def assert_reads_back(
    tools: FileTools, folder: Any, name: str, data: bytes, converted: str, lines: list[str]
) -> str:
    """read_text_file reads the document ``data``, saved as ``name`` in the input
    ``folder``, as ``lines`` whole, its header saying ``converted``; the same bytes named
    ``.bin`` are recognised by their content and read the same. Returns get_file_info's
    text on the ``.bin`` copy."""
    (folder / name).write_bytes(data)
    resp = await tools.call("read_text_file", path=f"/userinput/{name}")
    n = len(lines)
    assert resp.content[0]["text"] == "\n".join(
        [f"/userinput/{name} — lines 1–{n} of {n} ({converted})", *lines]
    )
    assert resp.metadata["paths"] == [f"/userinput/{name}"]
    (folder / "copy.bin").write_bytes(data)
    info = await tools.text("get_file_info", path="/userinput/copy.bin")
    assert "read with: read_text_file" in info, info
    same = await tools.text("read_text_file", path="/userinput/copy.bin")
    assert same.split("\n", 1)[1] == "\n".join(lines)
    return info


def saved_odf(doc: object) -> bytes:
    buf = io.BytesIO()
    doc.write(buf)  # type: ignore[attr-defined]
    return buf.getvalue()


def odt_document() -> bytes:
    """A real .odt written by odfpy: two headings, paragraphs, a list and a table."""
    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="Tide mill at Wenlow"))
    doc.text.addElement(P(text="The Wenlow tide mill ground 30 sacks of flour a day in 1850."))
    doc.text.addElement(H(outlinelevel=2, text="Keepers"))
    keepers = List()
    for name in ("Ada Marsh", "Tom Reed"):
        item = ListItem()
        item.addElement(P(text=name))
        keepers.addElement(item)
    doc.text.addElement(keepers)
    table = Table()
    table.addElement(TableColumn(numbercolumnsrepeated=2))
    for cells in (("Year", "Sacks"), ("1850", "30")):
        row = TableRow()
        for text in cells:
            cell = TableCell()
            cell.addElement(P(text=text))
            row.addElement(cell)
        table.addElement(row)
    doc.text.addElement(table)
    return saved_odf(doc)


async def assert_refused(
    tools: FileTools, folder: Any, cases: dict[str, tuple[bytes, str]]
) -> None:
    """Each file ``name`` of ``cases``, saved with its bytes in the input ``folder``, is
    refused by read_text_file with an error naming it and saying ``words``, in plain
    words (no traceback, no exception names), and is left as it was."""
    for name, (data, words) in cases.items():
        (folder / name).write_bytes(data)
        text = await tools.text("read_text_file", path=f"/userinput/{name}")
        assert text.startswith(f"Error: /userinput/{name} "), (name, text)
        assert words in text, (name, text)
        assert "Traceback" not in text and "Error:" not in text[6:], (name, text)
        assert not re.search(r"\b\w+(Error|Exception)\b|object at 0x", text[6:]), (name, text)
        assert (folder / name).read_bytes() == data


def epub_book(chapters: list[tuple[str, str]]) -> bytes:
    """A real .epub written by EbookLib: one chapter per ``(heading, paragraph)``, with
    the navigation page first in its reading order."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("book-1")
    book.set_title("A test book")
    book.set_language("en")
    items = []
    for n, (heading, paragraph) in enumerate(chapters, 1):
        item = epub.EpubHtml(title=heading, file_name=f"c{n}.xhtml", lang="en")
        item.content = f"<html><body><h1>{heading}</h1><p>{paragraph}</p></body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = tuple(items)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    buf = io.BytesIO()
    epub.write_epub(buf, book)
    return buf.getvalue()
