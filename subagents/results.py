"""The three shapes every tool returns: ok, error and unavailable ToolResponses."""

from __future__ import annotations

from typing import Any

from agentscope.message import TextBlock
from agentscope.tool import ToolResponse


def ok(text: str, metadata: dict[str, Any] | None = None) -> ToolResponse:
    """A successful result: one text block for the model, structured data in metadata."""
    return ToolResponse(content=[TextBlock(type="text", text=text)], metadata=metadata)


def error(message: str, metadata: dict[str, Any] | None = None) -> ToolResponse:
    """A refusal or bad input the model can fix: the text starts with ``Error:``."""
    text = message if message.startswith("Error:") else f"Error: {message}"
    return ToolResponse(content=[TextBlock(type="text", text=text)], metadata=metadata)


def unavailable(reason: str, metadata: dict[str, Any] | None = None) -> ToolResponse:
    """An outside dependency (network, provider, browser) failed; the run goes on."""
    meta = {**(metadata or {}), "unavailable": True, "reason": reason}
    text = reason if reason.startswith("Error:") else f"Error: unavailable: {reason}"
    return ToolResponse(content=[TextBlock(type="text", text=text)], metadata=meta)


def text_of(response: ToolResponse) -> str:
    """The concatenated text blocks of a response."""
    return "".join(
        block.get("text", "") for block in response.content if block.get("type") == "text"
    )


def bounded(text: str, limit: int, how_to_continue: str) -> str:
    """Cut ``text`` at ``limit`` characters and say so, with how to read the rest."""
    if len(text) <= limit:
        return text
    return (
        text[:limit] + f"\n\n[… {len(text) - limit} more characters not shown. {how_to_continue}]"
    )
