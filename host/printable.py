"""Text from files and pages made safe to print on a terminal.

A run's question, its plan, a page title or an error message read back from a run folder
can carry terminal control sequences: an OSC 8 link that hides its address, a
clear-screen, a carriage return that overwrites the line, a title change. Everything the
command line prints that came from a file or a page passes through :func:`printable`,
which drops:

- whole escape sequences, 7-bit (``ESC [ … m``, ``ESC ] … BEL``, ``ESC P … ESC \\``) and
  8-bit (CSI ``U+009B``, OSC ``U+009D``, …);
- the remaining C0 controls, DEL and the C1 controls (newlines and tabs become spaces,
  or stay when the text is printed as several lines);
- the bidirectional controls (``U+202A``–``U+202E``, ``U+2066``–``U+2069``, the marks),
  which reorder what the terminal shows.

:func:`printable_json` is for ``--json`` output: the data stays the same, and those
characters are written as ``\\uXXXX`` escapes rather than raw.

:func:`shown` also escapes rich markup, for the live displays. The module imports only
the standard library (rich when :func:`shown` is first called): ``quartet runs`` and
``show`` stay light. :func:`plural` words a count for the same displays.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: A string-type sequence (OSC, DCS, SOS, PM, APC) runs to its terminator (BEL or ST) or,
#: cut short, to the end of the text.
_STRING_SEQUENCE = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
#: CSI: parameters, intermediates and a final byte.
_CSI = r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
#: Any other escape: ESC, intermediates, a final byte.
_OTHER_ESCAPE = r"\x1b[\x20-\x2f]*[\x30-\x7e]?"
_SEQUENCE = re.compile(f"{_STRING_SEQUENCE}|{_CSI}|{_OTHER_ESCAPE}")
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROLS = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]) + _BIDI
_DROP: dict[int, str | None] = {ord(c): None for c in _CONTROLS}
#: On one line, the line and tab controls are a space (words stay apart).
_ONE_LINE = {**_DROP, **{ord(c): " " for c in "\t\n\v\f\r\x85"}}
_KEEP_LINES = {k: v for k, v in _DROP.items() if chr(k) not in "\n\t"}
_ESCAPED_IN_JSON = re.compile(f"[\\x7f-\\x9f{_BIDI}]")


def printable(text: str, keep_lines: bool = False) -> str:
    """``text`` without terminal escape sequences and control characters.

    Args:
        text: text that came from a file or a page.
        keep_lines: keep newlines and tabs (for text printed as several lines); by
            default they and the other line controls become spaces, so that the text
            stays on its one line.

    Returns:
        The text a terminal shows as it is.
    """
    if text.isprintable():  # no control, format or separator character but space
        return text
    return _SEQUENCE.sub("", text).translate(_KEEP_LINES if keep_lines else _ONE_LINE)


def shown(text: object) -> str:
    """``text`` ready to go into a rich markup string: :func:`printable`, on one line, its
    markup escaped (``[/b]`` in a question is text, not a tag).

    For the live displays, which use rich; rich is imported only when this is called.
    """
    from rich.markup import escape

    return escape(printable(str(text)))


def printable_json(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON whose control characters are all ``\\uXXXX`` escapes.

    ``json.dumps`` escapes the C0 controls itself; this escapes DEL, the C1 controls and
    the bidirectional controls too. The JSON decodes to the same data.
    """
    text = json.dumps(data, indent=indent, ensure_ascii=False, default=str)
    return _ESCAPED_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 page``, ``2 pages``; ``1 retry``, ``2 retries`` with ``many="retries"``.

    Args:
        count: how many.
        word: the word for one.
        many: the word for several or none, when it is not ``word`` with an ``s``.
    """
    return f"{count} {word if count == 1 else many or word + 's'}"
