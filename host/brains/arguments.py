"""Tool-call arguments as the provider sent them, kept beside agentscope's parsed ones.

agentscope parses a tool call's arguments with a JSON *repair*: arguments cut off
mid-string (``{"subquestions": [{"text": "How…", "queries": ["x``) become a valid but
damaged dict, and nothing downstream can tell. The body check of
:mod:`host.brains.exchange` hands each JSON body to :func:`keep_body`, which keeps it for
the model call in progress (a context variable set by :class:`RawArguments`); the
wrapper then stores each call's arguments text in its ``ToolUseBlock`` as
``raw_input``, where :func:`repaired` can judge them. The block is part of the
response, so a recorded run keeps it and its replay decides alike.

Only bodies in the OpenAI chat-completions shape carry arguments as text; other
providers send them as JSON objects that need no repair, and their blocks are left as
they are.
"""

from __future__ import annotations

import contextvars
import inspect
import json
from typing import Any

from .wrapping import ModelWrapper

_BODIES: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "quartet_model_bodies", default=None
)


def keep_body(data: dict[str, Any]) -> None:
    """Keep a 2xx JSON body for the model call in progress, if any."""
    bodies = _BODIES.get()
    if bodies is not None:
        bodies.append(data)


def arguments_text(body: dict[str, Any]) -> dict[str, str]:
    """The arguments text of each tool call of a chat-completions body, by call id."""
    found: dict[str, str] = {}
    for choice in body.get("choices") or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        for call in (message or {}).get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                found[str(call.get("id"))] = function["arguments"]
    return found


def repaired(raw_input: str | None) -> bool:
    """Whether arguments sent as ``raw_input`` are no complete JSON object (so the
    parsed ones are a repair). Arguments not sent as text (None) count as complete."""
    if raw_input is None:
        return False
    try:
        return not isinstance(json.loads(raw_input), dict)
    except ValueError:
        return True


class RawArguments(ModelWrapper):
    """A model whose tool-use blocks keep their arguments text as ``raw_input``."""

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bodies: list[dict[str, Any]] = []
        token = _BODIES.set(bodies)
        try:
            response = await self.model(*args, **kwargs)
        finally:
            _BODIES.reset(token)
        if inspect.isasyncgen(response) or not bodies:
            return response
        texts = arguments_text(bodies[-1])
        for block in getattr(response, "content", None) or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                text = texts.get(str(block.get("id")))
                if text is not None and "raw_input" not in block:
                    block["raw_input"] = text
        return response
