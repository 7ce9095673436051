"""EPUB books (.epub) as Markdown text, for read_text_file.

An .epub is a zip archive: its container is checked (:func:`~.safezip.require_office_zip`)
before EbookLib opens it. The chapters are read in the book's reading order (its spine),
each converted from XHTML to Markdown by the Browser's own HTML conversion
(:func:`subagents.browser.extract.html_to_markdown`), so a chapter's headings stay ``#``
lines; the book's own table of contents, images, styles and fonts are left out.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from ebooklib.epub import EpubHtml, EpubNav, read_epub

from ..browser.extract import html_to_markdown
from .guard import ToolInputError
from .limits import clip
from .safezip import require_office_zip

#: What read_text_file's header says in place of an encoding for a converted book.
EPUB_ENCODING = "text converted from an EPUB book"


def epub_markdown(data: bytes, path: str) -> str:
    """The text of the EPUB book ``data`` (read from ``path``) as Markdown, chapter by
    chapter in reading order.

    Raises ToolInputError, naming ``path`` and the reason, when the archive is unsafe or
    the book cannot be parsed. CPU work: call it off the event loop.
    """
    require_office_zip(data, "epub", path)
    try:
        book = read_epub(io.BytesIO(data), {"ignore_ncx": True})
        chapters = [text for text in _chapters(book) if text]
    except Exception as exc:  # EbookLib and lxml raise many kinds on damaged books
        reason = str(exc) or "its parts are not well formed"
        raise ToolInputError(
            f"Error: {path} is a damaged EPUB book that cannot be read "
            f"({clip(reason, 200)}). Ask for a complete or re-saved .epub copy."
        ) from None
    return "\n\n".join(chapters) + "\n" if chapters else ""


def _chapters(book: Any) -> Iterator[str]:
    """The Markdown of each chapter in the spine, the navigation page left out."""
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if not isinstance(item, EpubHtml) or isinstance(item, EpubNav):
            continue
        html = item.get_content().decode("utf-8", errors="replace")
        yield html_to_markdown(html).markdown.strip()
