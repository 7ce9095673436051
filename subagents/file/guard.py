"""What every file tool shares: turning failures into ``Error:`` results."""

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agentscope.tool import ToolResponse

from fs_service import FsError

from ..failures import plain_reason
from ..results import error
from ..untrusted import neutralise, wrap
from .limits import MAX_TEXT_CHARS
from .stage import read_path

logger = logging.getLogger(__name__)


class ToolInputError(ValueError):
    """Bad input or an unusable file; the message starts with ``Error:`` and says what to do."""


ToolFunc = Callable[..., Awaitable[ToolResponse]]


def within_cap(response: ToolResponse, limit: int = MAX_TEXT_CHARS) -> ToolResponse:
    """``response`` with its text cut to ``limit`` characters (a note says so).

    Every tool bounds its own output and says how to read on; this is the last line, so
    that no input shape, however odd, makes a result longer than the cap.
    """
    blocks = response.content
    total = sum(len(b.get("text", "")) for b in blocks if b.get("type") == "text")
    if total <= limit:
        return response
    note = f"\n[… result cut at {limit:,} characters.]"
    room = limit - len(note)
    for block in blocks:
        if block.get("type") != "text":
            continue
        text = block.get("text", "")
        block["text"] = text[: max(room, 0)]
        room -= len(block["text"])
    last = next(b for b in reversed(blocks) if b.get("type") == "text")
    last["text"] += note
    return response


#: Tools whose results show what a file says: below their header line, a model is shown
#: the file's text as an ``<untrusted_file>`` block (:func:`as_untrusted_file`).
CONTENT_TOOLS = frozenset(
    {"read_text_file", "pdf_read_text", "pptx_read_outline", "csv_read", "xlsx_read_cells",
     "image_qa"}
)  # fmt: skip


def as_untrusted_file(text: str, path: str) -> str:
    """A reader's result as a model is shown it: the header line, then the file's text as
    an ``<untrusted_file>`` block (the Host applies it to every reader result)."""
    header, _, body = text.partition("\n")
    return f"{header}\n{wrap(body, 'file', path)}" if body else text


def _neutralised(response: ToolResponse) -> ToolResponse:
    """A file's text cannot open or close a delimiter block (see :mod:`subagents.untrusted`)."""
    for block in response.content:
        if block.get("type") == "text":
            block["text"] = neutralise(block.get("text", ""))
    return response


def file_tool(func: ToolFunc) -> ToolFunc:
    """Make ``func`` return an ``Error:`` result instead of raising.

    FsError and ToolInputError carry messages written for the model and pass through as
    they are; anything else is reported with the tool's name and the failure's type.
    The wrapper keeps the signature and docstring, which the tool schema is built from.
    """

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> ToolResponse:
        try:
            return within_cap(_neutralised(await func(*args, **kwargs)))
        except (FsError, ToolInputError) as exc:
            return within_cap(error(str(exc)))
        except Exception as exc:
            logger.debug("%s failed", func.__name__, exc_info=True)
            where = read_path(kwargs)
            on = f" on {where}" if where else ""
            return within_cap(
                error(
                    f"Error: {func.__name__} failed{on}: {plain_reason(exc)}. "
                    "The file may be damaged or of another type; check it with get_file_info."
                )
            )

    wrapper.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    return wrapper
