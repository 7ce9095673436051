"""A failure told to a person: what went wrong in words, never the class name of the
exception that said it.

An exception's class name (``RuntimeError``, ``JSONDecodeError``) means something to the
code that raised it, not to the person reading a run's page, the command line's closing
table or a report's "Limits" section. :func:`plain_reason` gives the message alone (the
class name goes to the debug log, where whoever reads a traceback finds it), and
:func:`without_class_names` takes such names out of text recorded before, or elsewhere
(a ``run.json`` from an older version). The module imports only the standard library.
"""

from __future__ import annotations

import re

#: The most characters of a reason kept.
MAX_REASON = 500
#: What a failure without a message says.
NO_REASON = "it failed without saying why"
#: An exception's class name before its message (``ValueError: ``, ``ReadTimeout: ``).
#: A match starts only at a word's first letter and stays in that word: each character
#: is looked at a bounded number of times, so its cost is linear in the text's length.
_CLASS_PREFIX = re.compile(
    r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Exit|Interrupt|Timeout|Failure|Warning)\b:\s*"
)
#: A character of a module's name (``json.decoder``) that may come before a class name.
_MODULE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def plain_reason(exc: BaseException, fallback: str = NO_REASON) -> str:
    """What ``exc`` says to a person: its message on one line, without the class name.

    Args:
        exc: the failure.
        fallback: what is said when it has no message.

    Returns:
        The reason, at most :data:`MAX_REASON` characters.
    """
    text = without_class_names(" ".join(str(exc).split()))
    if text and isinstance(exc, KeyError):  # its message is the missing key alone
        text = f"{text} is missing"
    return (text or fallback)[:MAX_REASON]


def without_class_names(text: str) -> str:
    """``text`` without the exception class names that lead its messages, with the
    modules they are named in (``browser (d3): RuntimeError: crashed`` reads
    ``browser (d3): crashed``, ``json.decoder.JSONDecodeError: Expecting value`` reads
    ``Expecting value``).

    Args:
        text: a recorded reason.

    Returns:
        The same text, each ``SomethingError: `` and ``module.SomethingError: `` taken
        out.
    """
    if ":" not in text:
        return text
    kept, end = [], 0
    for found in _CLASS_PREFIX.finditer(text):
        kept.append(text[end : _module_start(text, end, found.start())])
        end = found.end()
    return "".join(kept) + text[end:]


def _module_start(text: str, floor: int, at: int) -> int:
    """Where the module named before the class name at ``at`` starts (``at`` when there
    is none): the dotted name ending in the ``.`` just before it, not before ``floor``.
    Each character is looked at once, as no two class names share their module."""
    if at == floor or text[at - 1] != ".":
        return at
    start = at - 1
    while start > floor and text[start - 1] in _MODULE_CHARS:
        start -= 1
    while start < at - 1 and text[start] == ".":  # a sentence's full stop is no module
        start += 1
    return start if text[start].isalpha() or text[start] == "_" else at
