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
    """``text`` without the exception class names that lead its messages
    (``browser (d3): RuntimeError: crashed`` reads ``browser (d3): crashed``).

    Args:
        text: a recorded reason.

    Returns:
        The same text, each ``SomethingError: `` taken out.
    """
    return _CLASS_PREFIX.sub("", text) if ":" in text else text
