"""The model's prose, requested once per run and shared by every format.

A report is written in four formats by four tool calls, possibly at once; each would
otherwise ask the model for its own prose, which costs four requests and may differ
between formats. The prose is keyed by the model and its prompt: the first call asks the
model and keeps the text in the workspace (``/workspace/notes/.prose-<key>.md``), calls
for the same key made meanwhile wait for that answer, and later calls read the kept text.
Every format therefore renders the same words.

Nothing run-specific goes into the file's name: the key depends on the model's name and
the prompt only, so a replay of a recorded run (whose model is a replay model of the same
name) keeps the prose under the same name. The kept prose is never material for a report:
a folder in ``from_paths`` is read without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import Any

from fs_service import FsError
from subagents.models import ask_text

PROSE_DIR = "/workspace/notes/"
PROSE_PREFIX = ".prose-"
#: Requests in flight, by key: concurrent calls for the same prose share one request.
_INFLIGHT: dict[str, asyncio.Future[str]] = {}


def prose_key(model: Any, system: str, prompt: str) -> str:
    """A key naming one model's answer to one prompt: the model's name and the prompt,
    never the class answering it (a recorded provider's and its replay's differ)."""
    inner = getattr(model, "inner_model", model)
    name = str(getattr(inner, "model_name", ""))
    return hashlib.sha256(f"{name}\0{system}\0{prompt}".encode()).hexdigest()[:16]


def is_prose_cache(path: str) -> bool:
    """Whether ``path`` is a kept prose file (see :func:`prose_once`)."""
    return path.rsplit("/", 1)[-1].startswith(PROSE_PREFIX)


async def prose_once(model: Any, system: str, prompt: str, svc: Any) -> str:
    """The model's answer to ``prompt``, asked at most once per run for that key."""
    key = prose_key(model, system, prompt)
    path = f"{PROSE_DIR}{PROSE_PREFIX}{key}.md"
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
