"""Text made safe for a spreadsheet cell: never a live formula, never a character that
a workbook cannot hold.

Light on purpose (no agentscope, no openpyxl): the File subagent's table tools use it,
and so does the Host's batch summary, which must not import every tool to write a table.
"""

from __future__ import annotations

import re

#: A plain number, signed or not, with an optional fraction and exponent.
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
#: First characters that make a spreadsheet program read a cell as a formula (OWASP CSV
#: injection): ``= + - @``, and tab or carriage return, which some programs skip first.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: Control characters replaced by :func:`without_controls`: the C0 controls other than
#: tab, line feed and carriage return, which an .xlsx cell cannot hold (XML 1.0 refuses
#: them and openpyxl raises IllegalCharacterError), and DEL and the C1 controls, which
#: drive a terminal when a table is printed (CSI is U+009B).
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
REPLACEMENT = "\ufffd"


def formula_like(text: str) -> bool:
    """Whether a spreadsheet program would take ``text`` for a formula (a plain number not).

    Args:
        text: a cell's text.

    Returns:
        True when ``text`` starts with ``= + - @``, a tab or a carriage return and is not
        a plain number such as ``-3`` or ``+4.5``.
    """
    return text.startswith(FORMULA_START) and not NUMBER.fullmatch(text.strip())


def csv_field(text: str) -> str:
    """A CSV field that a spreadsheet program opens as the text it is, never as a formula.

    A leading apostrophe is what spreadsheet programs take to mean "this is text".

    Args:
        text: the field's text.

    Returns:
        ``text``, with an apostrophe in front when it is :func:`formula_like`.
    """
    return "'" + text if formula_like(text) else text


def without_controls(text: str) -> str:
    """``text`` with every control character but tab and line breaks replaced by U+FFFD.

    What is left can be stored in an .xlsx cell and printed without driving a terminal.

    Args:
        text: text that came from a user's file, a page or a model.

    Returns:
        ``text`` with each C0 control (tab, line feed and carriage return aside), DEL and
        C1 control replaced by the replacement character.
    """
    return _CONTROLS.sub(REPLACEMENT, text)
