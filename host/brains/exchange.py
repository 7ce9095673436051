"""The HTTP side of model requests: a body check, and what the body said about usage.

The OpenAI and Anthropic SDKs return a non-JSON body with a 200 status as plain text,
which agentscope then fails to read with an ``AttributeError`` that says nothing useful.
:func:`check_body` is an ``httpx`` response hook (the SDKs accept an ``http_client``; the
Ollama client passes ``event_hooks`` to httpx): a successful, non-streaming response
whose body is not JSON raises :class:`MalformedBody`, which
:func:`host.brains.faults.classify` recognises and the retry loop retries.

agentscope's usage record keeps only input and output tokens. The hook also hands the
body's ``usage`` object to the :class:`Exchange` of the model call in progress (a context
variable set by :func:`watch`), so prompt-cache reads and writes can be counted, and the
same parsed body to :func:`host.brains.arguments.keep_body` and
:func:`host.brains.output.note_stop`: each response is read and parsed once.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .arguments import keep_body
from .faults import MalformedBody
from .output import note_stop


@dataclass
class Exchange:
    """What the HTTP layer saw of one model call: the ``usage`` object of its last body."""

    usage: dict[str, Any] | None = None


_EXCHANGE: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "quartet_model_exchange", default=None
)


@contextmanager
def watch() -> Iterator[Exchange]:
    """Collect what the HTTP layer sees of the model call made inside this block."""
    exchange = Exchange()
    token = _EXCHANGE.set(exchange)
    try:
        yield exchange
    finally:
        _EXCHANGE.reset(token)


async def check_body(response: Any) -> None:
    """Response hook: a 2xx, non-streaming body must be JSON; note its ``usage``.

    Args:
        response: an ``httpx`` (or ``httpx2``) response whose body has not been read yet.

    Raises:
        MalformedBody: the status is 2xx and the body is not JSON.
    """
    if not 200 <= response.status_code < 300:
        return
    content_type = response.headers.get("content-type", "")
    if "event-stream" in content_type or "ndjson" in content_type:
        return
    body = await response.aread()
    try:
        data = json.loads(body)
    except ValueError:
        kind = content_type.split(";")[0].strip() or "no content type"
        raise MalformedBody(
            f"HTTP {response.status_code} with a body that is not JSON ({kind})"
        ) from None
    if not isinstance(data, dict):
        return
    exchange = _EXCHANGE.get()
    if exchange is not None and isinstance(data.get("usage"), dict):
        exchange.usage = data["usage"]
    keep_body(data)  # the arguments text, for the call in progress
    note_stop(data)  # why the reply stopped, for the attempt in progress


def event_hooks() -> dict[str, list[Any]]:
    """The ``event_hooks`` argument for an httpx client of a model provider: the body
    check, which reads each body once and also keeps the arguments text
    (:mod:`host.brains.arguments`) and the stop reason (:mod:`host.brains.output`)."""
    return {"response": [check_body]}
