"""OpenDocument text files (.odt) as Markdown text, for read_text_file.

An .odt is a zip archive: its container is checked (:func:`~.safezip.require_office_zip`)
before odfpy opens it. The document body becomes Markdown in document order: headings
(and Title paragraphs) as ``#`` lines at their outline level, list items as ``- item``
lines, other paragraphs one per line with a blank line between, and tables as pipe tables
(the first row as header). Sections are read through; headers, footers, notes, frames and
tracked changes are left out.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from odf.namespaces import TABLENS, TEXTNS
from odf.opendocument import load
from odf.teletype import extractText

from .guard import ToolInputError
from .limits import clip
from .safezip import require_office_zip
from .word import one_line, pipe_table

#: What read_text_file's header says in place of an encoding for a converted document.
ODT_ENCODING = "text converted from an OpenDocument text"
#: The media type an OpenDocument text file declares.
ODT_MIMETYPE = "application/vnd.oasis.opendocument.text"

_HEADING, _PARAGRAPH = (TEXTNS, "h"), (TEXTNS, "p")
_LIST, _ITEM, _HEADER = (TEXTNS, "list"), (TEXTNS, "list-item"), (TEXTNS, "list-header")
_SECTION, _TABLE = (TEXTNS, "section"), (TABLENS, "table")
_ROW, _CELL = (TABLENS, "table-row"), (TABLENS, "table-cell")
_COVERED = (TABLENS, "covered-table-cell")
_ROW_GROUPS = {(TABLENS, n) for n in ("table-header-rows", "table-rows", "table-row-group")}


def odt_markdown(data: bytes, path: str) -> str:
    """The text of the OpenDocument text ``data`` (read from ``path``) as Markdown.

    Raises ToolInputError, naming ``path`` and the reason, when the archive is unsafe, is
    another kind of OpenDocument file, or cannot be parsed. CPU work: call it off the
    event loop.
    """
    require_office_zip(data, "odt", path)
    try:
        doc = load(io.BytesIO(data))
        mimetype = str(doc.mimetype or "")
        blocks = list(_render(doc.text)) if mimetype == ODT_MIMETYPE else []
    except Exception as exc:  # odfpy and its XML parser raise many kinds on damaged files
        reason = str(exc) or "its parts are not well formed"
        raise ToolInputError(
            f"Error: {path} is a damaged OpenDocument text that cannot be read "
            f"({clip(reason, 200)}). Ask for a complete or re-saved .odt copy."
        ) from None
    if mimetype != ODT_MIMETYPE:
        raise ToolInputError(
            f"Error: {path} is not an OpenDocument text (its type is "
            f"{clip(mimetype, 80) or 'not declared'}); read_text_file reads .odt text only."
        )
    return "".join(blocks).strip("\n") + "\n" if blocks else ""


def _render(body: Any) -> Iterator[str]:
    """Markdown pieces of the document body, each led by its line break: a blank line
    between blocks, none between the items of one list."""
    listing = False
    for block, is_item in _blocks(body, depth=-1):
        if not block:
            continue
        yield "\n" if is_item and listing else "\n\n"
        yield block
        listing = is_item


def _blocks(element: Any, depth: int) -> Iterator[tuple[str, bool]]:
    """``(markdown, is list item)`` for each block under ``element`` in order; ``depth``
    is the list nesting level of ``element`` (-1 outside any list)."""
    for child in element.childNodes:
        name = getattr(child, "qname", None)
        if name == _HEADING and depth < 0:
            level = _level(child.getAttribute("outlinelevel"))
            yield _prefixed("#" * level + " ", child), False
        elif name in (_HEADING, _PARAGRAPH):
            if depth >= 0:
                yield _prefixed("  " * min(depth, 8) + "- ", child), True
            elif str(child.getAttribute("stylename") or "").lower() == "title":
                yield _prefixed("# ", child), False
            else:
                yield one_line(extractText(child)), False
        elif name == _LIST:
            yield from _blocks(child, depth + 1)
        elif name in (_ITEM, _HEADER):
            yield from _item(child, depth)
        elif name == _SECTION:
            yield from _blocks(child, depth)
        elif name == _TABLE:
            yield pipe_table(list(_rows(child))), False


def _item(item: Any, depth: int) -> Iterator[tuple[str, bool]]:
    """A list item's paragraphs: its first as the item, later ones joined to it."""
    texts = [
        one_line(extractText(c))
        for c in item.childNodes
        if getattr(c, "qname", None) in (_HEADING, _PARAGRAPH)
    ]
    text = " ".join(t for t in texts if t)
    if text:
        yield "  " * min(depth, 8) + "- " + text, True
    for child in item.childNodes:
        if getattr(child, "qname", None) == _LIST:
            yield from _blocks(child, depth + 1)


def _level(value: object) -> int:
    """A heading's outline level as a Markdown level (1 to 6)."""
    text = str(value or "")
    return min(max(int(text), 1), 6) if text.isdigit() else 1


def _prefixed(prefix: str, element: Any) -> str:
    """``prefix`` and the element's text on one line; empty when it has no text."""
    text = one_line(extractText(element))
    return prefix + text if text else ""


def _rows(table: Any) -> Iterator[list[str]]:
    """The text of each row of a table, a repeated cell or row counted as often as the
    file says (up to a hundred times: spreadsheets repeat empty cells by the thousand)."""
    for child in table.childNodes:
        name = getattr(child, "qname", None)
        if name in _ROW_GROUPS:
            yield from _rows(child)
        elif name == _ROW:
            row: list[str] = []
            for cell in child.childNodes:
                if getattr(cell, "qname", None) in (_CELL, _COVERED):
                    text = one_line(extractText(cell)).replace("|", "\\|")
                    row.extend([text] * _repeats(cell.getAttribute("numbercolumnsrepeated")))
            for _ in range(_repeats(child.getAttribute("numberrowsrepeated"))):
                yield row


def _repeats(value: object) -> int:
    text = str(value or "")
    return min(int(text), 100) if text.isdigit() and int(text) > 0 else 1
