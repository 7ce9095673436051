"""The documents read_text_file converts to text, and how each is recognised.

A Word document (.docx), an OpenDocument text (.odt), an EPUB book (.epub), an RTF
document (.rtf) and an HTML page (.html, .htm) are read as text converted by a library,
not as their raw bytes or markup. A file is converted when its bytes say it is such a
document, or when its name does and its bytes are no other type a tool reads (so a
damaged .docx, .odt or .epub is reported as one, with the reason).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .ebook import EPUB_ENCODING, epub_markdown
from .markup import HTML_ENCODING, RTF_ENCODING, RTF_MAGIC, html_text, rtf_text
from .odt import ODT_ENCODING, odt_markdown
from .word import WORD_ENCODING, word_markdown


@dataclass(frozen=True)
class Converted:
    """One kind of document read_text_file converts to text."""

    #: What :func:`.sniff.binary_kind` calls a file of this kind ("" for text formats).
    kind: str
    #: File name endings of this kind, lower case.
    suffixes: tuple[str, ...]
    #: What read_text_file's header says in place of an encoding.
    encoding: str
    #: The conversion, ``convert(data, path) -> text``; raises ToolInputError.
    convert: Callable[[bytes, str], str]
    #: The distributions ``convert`` reads the file with.
    libraries: tuple[str, ...]
    #: Whether the file is a binary container (then it cannot be edited as text).
    binary: bool


WORD = Converted(
    "Word document (.docx)", (".docx",), WORD_ENCODING, word_markdown, ("python-docx",), True
)
ODT = Converted("OpenDocument text (.odt)", (".odt",), ODT_ENCODING, odt_markdown, ("odfpy",), True)
EPUB = Converted(
    "EPUB book (.epub)",
    (".epub",),
    EPUB_ENCODING,
    epub_markdown,
    ("ebooklib", "trafilatura", "markdownify", "beautifulsoup4", "lxml"),
    True,
)
RTF = Converted("", (".rtf",), RTF_ENCODING, rtf_text, ("striprtf",), False)
HTML = Converted(
    "",
    (".html", ".htm"),
    HTML_ENCODING,
    html_text,
    ("trafilatura", "markdownify", "beautifulsoup4", "lxml"),
    False,
)
CONVERTED = (WORD, ODT, EPUB, RTF, HTML)


def converted_for(path: str, data: bytes, kind: tuple[str, str] | None) -> Converted | None:
    """The conversion that reads ``path`` (its bytes ``data``, of the binary ``kind``
    :func:`.sniff.binary_kind` found), or None when it is read as plain text or not here."""
    for doc in CONVERTED:
        if doc.kind and kind is not None and kind[0] == doc.kind:
            return doc
    if kind is None and data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(RTF_MAGIC):
        return RTF
    name = path.lower()
    for doc in CONVERTED:
        if name.endswith(doc.suffixes) and (kind is None or not kind[1]):
            return doc
    return None
