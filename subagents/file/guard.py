"""What every file tool shares: turning failures into ``Error:`` results."""

import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from agentscope.tool import ToolResponse

from fs_service import FsError

from ..results import error

logger = logging.getLogger(__name__)


class ToolInputError(ValueError):
    """Bad input or an unusable file; the message starts with ``Error:`` and says what to do."""


ToolFunc = Callable[..., Awaitable[ToolResponse]]


def file_tool(func: ToolFunc) -> ToolFunc:
    """Make ``func`` return an ``Error:`` result instead of raising.

    FsError and ToolInputError carry messages written for the model and pass through as
    they are; anything else is reported with the tool's name and the failure's type.
    The wrapper keeps the signature and docstring, which the tool schema is built from.
    """

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> ToolResponse:
        try:
            return await func(*args, **kwargs)
        except (FsError, ToolInputError) as exc:
            return error(str(exc))
        except Exception as exc:
            logger.debug("%s failed", func.__name__, exc_info=True)
            where = kwargs.get("path") or kwargs.get("img_path") or ""
            on = f" on {where}" if where else ""
            return error(
                f"Error: {func.__name__} failed{on}: {type(exc).__name__}: {exc}. "
                "The file may be damaged or of another type; check it with get_file_info."
            )

    wrapper.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    return wrapper
