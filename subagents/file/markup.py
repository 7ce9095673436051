"""HTML pages and RTF documents from the user's folders as text, for read_text_file.

An HTML file becomes Markdown by the Browser's own conversion
(:func:`subagents.browser.extract.html_to_markdown`: the main text by trafilatura, the
cleaned page by markdownify when that finds little), so headings stay ``#`` lines, lists
``- item`` lines and tables pipe tables, as for a page read on the web. An RTF document
becomes plain text by striprtf, one paragraph per block with a blank line between; RTF
marks no headings a reader can rely on, so a heading is a paragraph of its own.
"""

from __future__ import annotations

from striprtf.striprtf import rtf_to_text

from ..browser.extract import html_to_markdown
from .guard import ToolInputError
from .limits import clip
from .sniff import decode_text

#: What read_text_file's header says in place of an encoding for a converted page.
HTML_ENCODING = "text converted from an HTML page"
#: What read_text_file's header says in place of an encoding for a converted RTF file.
RTF_ENCODING = "text converted from an RTF document"
#: How every RTF document begins.
RTF_MAGIC = b"{\\rtf"


def _text(data: bytes, path: str, kind: str) -> str:
    """``data`` decoded as text; ToolInputError naming ``path`` when it is not text."""
    try:
        return decode_text(data)[0]
    except UnicodeDecodeError as exc:
        raise ToolInputError(
            f"Error: {path} is not a readable {kind} (undecodable byte at offset "
            f"{exc.start}); it is probably binary. Check it with get_file_info."
        ) from None


def html_text(data: bytes, path: str) -> str:
    """The HTML page ``data`` (read from ``path``) as Markdown; empty when it shows no
    text. CPU work: call it off the event loop."""
    markdown = html_to_markdown(_text(data, path, "HTML page")).markdown
    return markdown.strip("\n") + "\n" if markdown.strip() else ""


def rtf_text(data: bytes, path: str) -> str:
    """The RTF document ``data`` (read from ``path``) as plain paragraphs.

    Raises ToolInputError, naming ``path`` and the reason, when ``data`` is not RTF or
    cannot be parsed. CPU work: call it off the event loop.
    """
    if not data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(RTF_MAGIC):
        raise ToolInputError(
            f"Error: {path} is not an RTF document (it does not begin with {{\\rtf); it may "
            "be another kind of file renamed. Check the file type with get_file_info."
        )
    # RTF is 7-bit text: other characters are escapes the document's code page decodes.
    try:
        plain = rtf_to_text(data.decode("latin-1"), errors="replace")
    except Exception as exc:  # striprtf raises assorted errors on damaged control words
        raise ToolInputError(
            f"Error: {path} is a damaged RTF document that cannot be read "
            f"({clip(str(exc) or type(exc).__name__, 200)}). Ask for a re-saved copy."
        ) from None
    paragraphs = [" ".join(line.split()) for line in plain.splitlines()]
    text = "\n\n".join(p for p in paragraphs if p)
    return text + "\n" if text else ""
