"""Text as a report's reader sees it: without invisible format characters.

Unicode format characters (category Cf) change how the text around them is shown without
being shown themselves: a right-to-left override (U+202E) makes ``report‮fdp.exe`` read
as ``reportexe.pdf``, and zero-width spaces, joiners, the byte order mark and tag
characters hide text or split words. A page title or a quoted span may carry any of
them, so every text a report shows goes through :func:`visible`. Only what is shown
changes: the stored pages keep their text exactly, and quotes are checked against it.
"""

from __future__ import annotations

import unicodedata


def visible(text: str) -> str:
    """``text`` without its Unicode format characters (category Cf).

    Emoji sequences joined with ZWJ (U+200D) fall apart into their parts, and a soft
    hyphen is dropped; nothing else a reader sees changes.

    >>> visible("invoice\\u202efdp.exe")
    'invoicefdp.exe'
    """
    if text.isascii():
        return text
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf")


__all__ = ["visible"]
