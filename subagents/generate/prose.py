"""The model's prose, requested once per run and shared by every format.

A report is written in four formats by four tool calls, possibly at once; each would
otherwise ask the model for its own prose, which costs four requests and may differ
between formats. The prose is keyed by the model and its prompt: the first call asks the
model and keeps the text in the workspace (``/workspace/notes/.prose-<key>.md``), calls
for the same key made meanwhile wait for that answer, and later calls read the kept text.
Every format therefore renders the same words.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import Any

from fs_service import FsError
from subagents.models import ask_text

PROSE_DIR = "/workspace/notes/"
#: Requests in flight, by key: concurrent calls for the same prose share one request.
_INFLIGHT: dict[str, asyncio.Future[str]] = {}


def prose_key(model: Any, system: str, prompt: str) -> str:
    """A key naming one model's answer to one prompt."""
    inner = getattr(model, "inner_model", model)
    name = f"{type(inner).__name__}:{getattr(inner, 'model_name', '')}"
    return hashlib.sha256(f"{name}\0{system}\0{prompt}".encode()).hexdigest()[:16]


async def prose_once(model: Any, system: str, prompt: str, svc: Any) -> str:
    """The model's answer to ``prompt``, asked at most once per run for that key."""
    key = prose_key(model, system, prompt)
    path = f"{PROSE_DIR}.prose-{key}.md"
    try:
        if await svc.exists(path):
            return await svc.read_text(path)
    except FsError:
        pass
    pending = _INFLIGHT.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    _INFLIGHT[key] = future
    try:
        text = await ask_text(model, prompt, system=system)
        with contextlib.suppress(FsError):  # a read-only workspace: still used for this format
            await svc.write_text(path, text)
        future.set_result(text)
        return text
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # retrieved here, so an unawaited failure is not logged
        raise
    finally:
        _INFLIGHT.pop(key, None)
