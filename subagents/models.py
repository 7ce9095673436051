"""Asking a chat model for plain text from inside a tool (page answers, report prose).

Tools receive the run's model as an injected ``model`` (an agentscope ``ChatModelBase``,
or None offline). Wrappers may stand in front of it (token counting, timeouts and
retries); each exposes the provider's model as ``inner_model``, which is what picks the
message format.
"""

from __future__ import annotations

import inspect
from typing import Any

from agentscope.message import Msg


def formatter_for(model: Any) -> Any:
    """The agentscope formatter that speaks ``model``'s message format."""
    from agentscope import formatter as fm
    from agentscope import model as md

    inner = model
    for _ in range(8):  # wrappers of wrappers: follow the chain to the provider's model
        deeper = getattr(inner, "inner_model", inner)
        if deeper is inner:
            break
        inner = deeper
    named = getattr(inner, "chat_formatter", None)  # a stand-in model says which format
    if named is not None:
        return named()
    pairs = [
        (md.DashScopeChatModel, fm.DashScopeChatFormatter),
        (md.AnthropicChatModel, fm.AnthropicChatFormatter),
        (md.GeminiChatModel, fm.GeminiChatFormatter),
        (md.OllamaChatModel, fm.OllamaChatFormatter),
    ]
    for model_cls, formatter_cls in pairs:
        if isinstance(inner, model_cls):
            return formatter_cls()
    return fm.OpenAIChatFormatter()


async def ask_text(model: Any, prompt: str, system: str | None = None) -> str:
    """One call without tools; the text of the response (the last chunk of a stream)."""
    msgs = ([Msg("system", system, "system")] if system else []) + [Msg("user", prompt, "user")]
    result = await model(await formatter_for(model).format(msgs))
    if inspect.isasyncgen(result):
        last = None
        async for chunk in result:
            last = chunk
        result = last
    blocks = getattr(result, "content", None) or []
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
