"""Prompt caching for Anthropic: the system prompt and the tool schemas are cacheable.

Anthropic caches a request's prefix (tools, then system, then messages) up to each block
marked ``cache_control: {"type": "ephemeral"}``. agentscope's ``AnthropicChatModel``
sends the formatter's first message (role ``system``, a list of text blocks) as
``system``, and builds ``tools`` as ``{name, description, input_schema}`` without a way to
add a field. :class:`AnthropicPromptCache` marks the last system block in the formatted
messages, and sends the same tool list with the last tool marked through the SDK's
documented ``extra_body`` (which replaces ``tools`` in the request body). Once the
history is long enough to be worth caching (:data:`HISTORY_CACHE_CHARS`), the last block
of the last message is marked too: the next request of the same agent, which repeats
that history and adds to it, reads it from the cache (a third breakpoint of the four
Anthropic allows). The cache reads and writes the provider reports are counted by the
token ledger.
"""

from __future__ import annotations

from typing import Any

from .wrapping import ModelWrapper

EPHEMERAL = {"type": "ephemeral"}
#: Characters of history (after the system prompt) from which it is marked cacheable:
#: about 1,024 tokens, the least Anthropic caches for most models.
HISTORY_CACHE_CHARS = 4_096


def _marked(message: dict[str, Any]) -> dict[str, Any] | None:
    """``message`` with the last block of its content marked cacheable (text content
    becomes one text block), or None when it has no block to mark."""
    content = message.get("content")
    if isinstance(content, str):
        blocks = [{"type": "text", "text": content}]
    elif isinstance(content, list) and content and isinstance(content[-1], dict):
        blocks = [dict(block) for block in content]
    else:
        return None
    blocks[-1]["cache_control"] = dict(EPHEMERAL)
    return {**message, "content": blocks}


def mark_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with the last block of a leading system message marked cacheable."""
    if not messages or messages[0].get("role") != "system":
        return messages
    marked = _marked(messages[0])
    return messages if marked is None else [marked, *messages[1:]]


def _chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(
            _chars(b.get("text") or b.get("content") or b.get("input") or "")
            if isinstance(b, dict)
            else len(str(b))
            for b in content
        )
    return len(str(content or ""))


def mark_history(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with the last block of the last message marked cacheable, once the
    history after the system prompt holds :data:`HISTORY_CACHE_CHARS` characters."""
    history = [m for m in messages if m.get("role") != "system"]
    if not history or sum(_chars(m.get("content")) for m in history) < HISTORY_CACHE_CHARS:
        return messages
    marked = _marked(messages[-1])
    return messages if marked is None else [*messages[:-1], marked]


def cached_tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic tool definitions from agentscope's JSON schemas, the last one cacheable."""
    tools = [
        {
            "name": schema["function"]["name"],
            "description": schema["function"].get("description", ""),
            "input_schema": schema["function"].get("parameters", {}),
        }
        for schema in schemas
    ]
    if tools:
        tools[-1]["cache_control"] = dict(EPHEMERAL)
    return tools


class AnthropicPromptCache(ModelWrapper):
    """Marks the system prompt, the last tool and a long history cacheable."""

    async def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        structured_model: Any = None,
        **kwargs: Any,
    ) -> Any:
        if tools and structured_model is None:
            extra = dict(kwargs.get("extra_body") or {})
            kwargs["extra_body"] = {**extra, "tools": cached_tools(tools)}
        return await self.model(
            mark_history(mark_system(messages)),
            tools=tools,
            tool_choice=tool_choice,
            structured_model=structured_model,
            **kwargs,
        )
