"""Lines of a text, found without splitting the whole text.

``str.splitlines`` on 64 MB of short lines builds twenty million strings (well over a
gigabyte). These helpers count and walk lines with C-level searches instead, so the cost
of reading a part of a file is the part, plus one pass of counting.

Lines end at ``\\r\\n``, ``\\n`` or ``\\r`` (as in the csv module and in editors).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: Characters counted at a time when skipping to a line.
_SKIP_CHUNK = 65_536


def _breaks(text: str, start: int, end: int) -> int:
    return (
        text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
    )


def count_lines(text: str) -> int:
    """How many lines ``text`` has (a last line without a line break counts)."""
    if not text:
        return 0
    return _breaks(text, 0, len(text)) + (0 if text.endswith(("\n", "\r")) else 1)


def line_of(text: str, offset: int) -> int:
    """The 1-based number of the line holding character ``offset``."""
    return _breaks(text, 0, offset) + 1


def line_start(text: str, line: int) -> int:
    """The offset where line ``line`` (1-based) starts; ``len(text)`` past the end."""
    pos, need = 0, line - 1
    while need > 0 and pos < len(text):
        end = min(pos + _SKIP_CHUNK, len(text))
        if text[end - 1 : end + 1] == "\r\n":
            end += 1  # never split a \r\n between two chunks
        found = _breaks(text, pos, end)
        if found < need and end < len(text):
            need, pos = need - found, end
            continue
        while need > 0:
            brk = LINE_BREAK.search(text, pos)
            if brk is None:
                return len(text)
            pos, need = brk.end(), need - 1
    return pos


def iter_lines(text: str, pos: int = 0, limit: int | None = None) -> Iterator[tuple[str, int]]:
    """``(line, extra)`` from offset ``pos`` on: each line without its break, cut at
    ``limit`` characters, and how many characters were cut from it."""
    while pos < len(text):
        brk = LINE_BREAK.search(text, pos)
        stop, nxt = (brk.start(), brk.end()) if brk else (len(text), len(text))
        end = stop if limit is None else min(stop, pos + limit)
        yield text[pos:end], stop - end
        pos = nxt
