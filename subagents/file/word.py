"""Word documents (.docx) as Markdown text, for read_text_file.

A .docx is a zip archive: its container is checked (:func:`~.safezip.require_office_zip`)
before python-docx opens it. The document body becomes Markdown in document order:
Title and Heading N paragraphs as ``#`` lines, list paragraphs as ``- item`` lines,
other paragraphs one per line with a blank line between, and tables as pipe tables
(the first row as header). Headers, footers, footnotes, comments and text boxes are left
out.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

from docx import Document
from docx.oxml.ns import qn
from docx.text.paragraph import Paragraph

from research.text import CJK_CLASS

from .guard import ToolInputError
from .limits import clip
from .safezip import require_office_zip

#: What read_text_file's header says in place of an encoding for a converted document.
WORD_ENCODING = "text converted from a Word document"

_HEADING = re.compile(r"^(?:heading|标题)\s*(\d)$", re.I)
_LIST_STYLE = re.compile(r"^list(?: (?:bullet|number|continue|paragraph))?(?: (\d))?$", re.I)
#: Chinese, Japanese and Korean characters and full-width punctuation.
_WIDE = re.compile(rf"[\u2e80-\u303f{CJK_CLASS}\ufe30-\ufe4f\uff00-\uffef]")
_OBJECT_REPR = re.compile(r"'?<[\w.]+ object at 0x[0-9a-f]+>'? ?")
_PARAGRAPH, _TABLE, _SDT = qn("w:p"), qn("w:tbl"), qn("w:sdt")
_BODY_TAGS = (_PARAGRAPH, _TABLE, _SDT)


def word_markdown(data: bytes, path: str) -> str:
    """The text of the Word document ``data`` (read from ``path``) as Markdown.

    Raises ToolInputError, naming ``path`` and the reason, when the archive is unsafe or
    the document cannot be parsed. CPU work: call it off the event loop.
    """
    require_office_zip(data, "docx", path)
    try:
        doc = Document(io.BytesIO(data))
        blocks = list(_render(_body_items(doc.element.body), doc))
    except Exception as exc:  # python-docx and lxml raise many kinds on damaged files
        said = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        reason = _OBJECT_REPR.sub("", str(said)) or "its parts are not well formed"
        raise ToolInputError(
            f"Error: {path} is a damaged Word document that cannot be read "
            f"({clip(reason, 200)}). Ask for a complete or re-saved .docx copy."
        ) from None
    return "".join(blocks).strip("\n") + "\n" if blocks else ""


def _body_items(element: Any) -> Iterator[Any]:
    """The paragraph (``w:p``) and table (``w:tbl``) elements under ``element`` in
    document order, those inside content controls (``w:sdt``, as on cover pages and
    tables of contents) included."""
    for child in element.iterchildren(*_BODY_TAGS):
        if child.tag == _SDT:
            for content in child.iterchildren(qn("w:sdtContent")):
                yield from _body_items(content)
        else:
            yield child


def _render(items: Iterator[Any], doc: Any) -> Iterator[str]:
    """Markdown pieces of the body elements of ``doc``, each led by its line break: a
    blank line between blocks, none between the items of one list."""
    listing = False
    for item in items:
        if item.tag == _TABLE:
            block, is_item = table_markdown(item, doc), False
        else:
            block, is_item = paragraph_markdown(Paragraph(item, doc))
        if not block:
            continue
        yield "\n" if is_item and listing else "\n\n"
        yield block
        listing = is_item


def _style_name(paragraph: Paragraph) -> str:
    style = paragraph.style
    return str(getattr(style, "name", "") or "")


def _list_level(paragraph: Paragraph, style: str) -> int | None:
    """The nesting level (0 for the top) of a list paragraph, None for another."""
    element = paragraph._element
    levels = element.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
    if levels or element.xpath("./w:pPr/w:numPr"):
        return int(levels[0]) if levels and str(levels[0]).isdigit() else 0
    found = _LIST_STYLE.match(style)
    if found is None:
        return None
    return int(found.group(1)) - 1 if found.group(1) else 0


def one_line(text: str) -> str:
    """``text`` on one line: runs of spaces as one space, and a line break as a space
    between words but as nothing beside a Chinese character or full-width mark."""
    out = ""
    for line in text.splitlines():
        part = re.sub(r"\s+", " ", line).strip()
        if part:
            wide = out and (_WIDE.match(out[-1]) or _WIDE.match(part[0]))
            out += part if not out or wide else " " + part
    return out


def paragraph_markdown(paragraph: Paragraph) -> tuple[str, bool]:
    """One paragraph as a Markdown line, and whether it is a list item."""
    text = one_line(paragraph.text)
    if not text:
        return "", False
    style = _style_name(paragraph)
    heading = _HEADING.match(style)
    if style.lower() == "title" or heading:
        level = min(max(int(heading.group(1)), 1), 6) if heading else 1
        return f"{'#' * level} {text}", False
    level = _list_level(paragraph, style)
    if level is not None:
        return f"{'  ' * min(level, 8)}- {text}", True
    return text, False


def _cell_text(tc: Any, doc: Any) -> str:
    """A cell's text on one line (a nested table's text included), ``|`` escaped."""
    lines = [Paragraph(p, doc).text for p in tc.iter(_PARAGRAPH)]
    return one_line("\n".join(lines)).replace("|", "\\|")


def _rows(tbl: Any, doc: Any) -> Iterator[list[str]]:
    """The text of each row of a table, one entry per grid column: a cell spanning
    columns, or continuing a vertical merge, repeats its merged area's text.

    The cells are walked once, row by row (python-docx looks a merge's first cell up
    anew from every cell under it, which costs a tall merged column dear)."""
    above: dict[int, str] = {}
    for tr in tbl.tr_lst:
        row = [""] * tr.grid_before
        for tc in tr.tc_lst:
            col = len(row)
            merged = tc.vMerge == "continue"
            text = above.get(col, "") if merged else _cell_text(tc, doc)
            for k in range(max(tc.grid_span, 1)):
                above[col + k] = text
                row.append(text)
        yield row


def table_markdown(tbl: Any, doc: Any) -> str:
    """A table element as a Markdown pipe table, its first row as the header; empty
    when the table holds no text."""
    return pipe_table(list(_rows(tbl, doc)))


def pipe_table(rows: list[list[str]]) -> str:
    """Rows of cell text as a Markdown pipe table, the first row with text as the header;
    empty when no row holds text."""
    rows = [r for r in rows if any(r)]
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    lines = [f"| {' | '.join(r)} |" for r in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)
