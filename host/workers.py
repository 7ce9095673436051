"""The agent a delegation runs: agentscope's ReActAgent with a Host-side rule.

- **Interruption.** When its task times out or is cancelled, agentscope's reply would be
  "I noticed that you have interrupted me. What can I do for you?" — words meant for a
  user at a console. A worker ends with a plain note instead; the Host reports the
  timeout and what was kept (see :mod:`host.delegation`).
"""

from __future__ import annotations

from typing import Any

from agentscope.agent import ReActAgent
from agentscope.message import Msg
from pydantic import BaseModel

from .guards import ToolGuard

STOPPED = "[This task was stopped before it finished.]"


class WorkerAgent(ReActAgent):
    """A subagent for one delegation.

    Args:
        guard: the guard of the agent's toolkit.
        **kwargs: ReActAgent's arguments.
    """

    def __init__(self, guard: ToolGuard | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.guard = guard

    async def handle_interrupt(
        self, msg: Msg | list[Msg] | None = None, structured_model: type[BaseModel] | None = None
    ) -> Msg:
        stopped = Msg(self.name, STOPPED, "assistant", metadata={"_is_interrupted": True})
        await self.memory.add(stopped)
        return stopped


__all__ = ["STOPPED", "WorkerAgent"]
