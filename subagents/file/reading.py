"""What a file reader computes from a file's exact bytes, kept across runs.

Parsing a PDF, a workbook, a deck or a Word document, and reading the text of a picture
by OCR, give the same result for the same bytes, arguments and code. The result of such a
computation is kept in the run's page cache (a :data:`~subagents.net.pagecache.DERIVED`
entry, in the user's and project's namespace) under a key naming all of it: the bytes'
SHA-256, the file's logical path and the arguments (both appear in the result), and a
:func:`~subagents.net.pagecache.fingerprint` of the reader's code and the libraries it
calls. A later run within the freshness window that reads the same bytes the same way
gets the same result without parsing them again; a run with ``--fresh`` parses them
again. The bytes themselves are always read through the file service, so every grant
and check applies as before. Only results with status ``ok`` are kept, and nothing of a
download its site said not to keep (``no-store``; see
:meth:`~subagents.net.pagecache.RunCache.withhold`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from typing import Any, TypeVar

from agentscope.message import TextBlock
from agentscope.tool import ToolResponse

from ..net.pagecache import DERIVED, fingerprint, remember, reuse

R = TypeVar("R", ToolResponse, str)

#: The code every reader's result depends on besides its libraries: this package (the
#: readers, their limits, the archive and encoding checks) and the modules it uses.
READER_CODE = (
    "subagents.file",
    "subagents.results",
    "subagents.cells",
    "subagents.untrusted",
    "subagents.browser.extract",
)


def reading_key(
    compute: Callable[..., Any],
    path: str,
    digest: str,
    args: tuple[Any, ...],
    libraries: tuple[str, ...],
) -> str:
    """The page cache's key of ``compute(data, path, *args)``.

    Args:
        compute: the reader's function of the bytes.
        path: the file's logical path.
        digest: the SHA-256 (hex) of the file's bytes.
        args: the reader's other arguments (JSON-ready).
        libraries: the distributions ``compute`` reads the file with.
    """
    code = fingerprint(READER_CODE, libraries)
    named = json.dumps([path, *args], ensure_ascii=False, sort_keys=True, default=str)
    return f"read {compute.__module__}.{compute.__qualname__} {digest} {code} {named}"


def _encoded(result: ToolResponse | str) -> bytes | None:
    """What is kept of a reader's result: its text (a converted document), or the
    tool's result when its status is ``ok`` (None: not kept)."""
    if isinstance(result, str):
        raw: dict[str, Any] = {"text": result}
    elif (result.metadata or {}).get("status") == "ok":
        raw = {"content": list(result.content), "metadata": result.metadata}
    else:
        return None
    return json.dumps(raw, ensure_ascii=False).encode("utf-8")


def _decoded(body: bytes) -> ToolResponse | str | None:
    """The result a cache entry holds; None when it is not one."""
    try:
        raw = json.loads(body)
        if "text" in raw:
            return str(raw["text"])
        blocks = [TextBlock(type="text", text=str(b["text"])) for b in raw["content"]]
        metadata = dict(raw["metadata"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return ToolResponse(content=blocks, metadata=metadata)


async def read_once(
    compute: Callable[..., R],
    path: str,
    data: bytes,
    *args: Any,
    libraries: tuple[str, ...] = (),
) -> R:
    """``compute(data, path, *args)`` in a thread, or its result as the run's page cache
    holds it from an earlier run.

    Args:
        compute: the reader's function of the bytes; it returns the tool's result (kept
            when its status is ``ok``) or a document's text (kept), or raises (nothing
            kept).
        path: the file's logical path.
        data: the file's bytes, as the file service read them.
        *args: the reader's other arguments (JSON-ready).
        libraries: the distributions ``compute`` reads the file with.

    Returns:
        What ``compute`` returns.
    """
    digest = await asyncio.to_thread(lambda: hashlib.sha256(data).hexdigest())
    key = await asyncio.to_thread(reading_key, compute, path, digest, args, libraries)
    kept = await reuse(DERIVED, key)
    found = _decoded(kept) if kept is not None else None
    if found is not None:
        return found  # type: ignore[return-value]  # what compute returned before
    result = await asyncio.to_thread(compute, data, path, *args)
    body = _encoded(result)
    if body is not None:
        await remember(DERIVED, key, body, source=digest)
    return result


__all__ = ["READER_CODE", "read_once", "reading_key"]
