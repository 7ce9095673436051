"""A scripted chat model and a tool caller, for driving real toolkits and agent loops in tests."""

from __future__ import annotations

from typing import Any

from agentscope.message import TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import ToolResponse


def tool_call(name: str, call_id: str, **args: Any) -> ToolUseBlock:
    return ToolUseBlock(type="tool_use", id=call_id, name=name, input=args)


class ScriptedModel(ChatModelBase):
    """Returns the planned content blocks in order, then a plain "done"."""

    def __init__(self, plan: list[list[Any]]) -> None:
        super().__init__(model_name="scripted", stream=False)
        self.plan = list(plan)
        self.calls: list[dict[str, Any]] = []

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        self.calls.append(
            {"messages": messages, "tools": [t["function"]["name"] for t in tools or []]}
        )
        content = self.plan.pop(0) if self.plan else [TextBlock(type="text", text="done")]
        return ChatResponse(content=content)


async def call_tool(toolkit: Any, name: str, **kwargs: Any) -> ToolResponse | None:
    """Call one tool through the toolkit as an agent would; the final ToolResponse."""
    last = None
    async for chunk in await toolkit.call_tool_function(
        ToolUseBlock(type="tool_use", id=f"c-{name}", name=name, input=kwargs)
    ):
        last = chunk
    return last
