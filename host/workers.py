"""The agent a delegation runs: agentscope's ReActAgent with two Host-side rules.

- **Interruption.** When its task times out or is cancelled, agentscope's reply would be
  "I noticed that you have interrupted me. What can I do for you?" — words meant for a
  user at a console. A worker ends with a plain note instead; the Host reports the
  timeout and what was kept (see :mod:`host.delegation`).
- **Compression keeps the task.** agentscope summarises every message it does not keep
  as recent once the history passes the threshold, and when a task has fewer recent
  messages than ``keep_recent`` it summarises all of them: the task message and the
  results just returned, which the model then fetches again. A worker pins the
  message it was given (the Host's delegation) and the latest round of tool calls and
  results: they are hidden from agentscope's compression while it runs, so they are
  neither counted nor summarised. A latest round larger than half the threshold is
  shrunk by size instead: its largest results are evicted to ``/internal/`` with a
  preview (:meth:`host.guards.ToolGuard.fit_round`).
- **The call cap ends the task.** Once the guard refuses a call over the task's tool-call
  cap, the worker makes no further model request: its task ends at that turn with a
  plain note, and the Host records it as "capped" with what it stored.
- **Hub news at a turn boundary.** A worker is a participant of the run's MsgHub while it
  works, so another task's outcome may be broadcast to it at any moment, also while it
  waits for the results of its own tool calls. Added to its memory then, the news would
  stand between its tool calls and their results, a history providers reject ("an
  assistant message with 'tool_calls' must be followed by tool messages"). News that
  arrives during a reply waits, and joins the memory when the worker next reasons, after
  every result of its last round.
"""

from __future__ import annotations

from typing import Any

from agentscope.agent import ReActAgent
from agentscope.agent._react_agent import _MemoryMark
from agentscope.message import Msg
from pydantic import BaseModel

from .guards import ToolGuard

STOPPED = "[This task was stopped before it finished.]"
CAPPED = "[This task was ended at its tool-call limit; what it stored is kept.]"


class _Capped(Exception):
    """The worker's guard refused a call over the cap: the task ends now."""


class WorkerAgent(ReActAgent):
    """A subagent for one delegation.

    Args:
        guard: the toolkit's guard, which evicts the results of an oversized round.
        **kwargs: ReActAgent's arguments.
    """

    def __init__(self, guard: ToolGuard | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.guard = guard
        self.task_ids: set[str] = set()
        self.replying = False
        #: hub news received during a reply, for the next turn
        self.news: list[Msg] = []

    async def reply(
        self, msg: Msg | list[Msg] | None = None, structured_model: type[BaseModel] | None = None
    ) -> Msg:
        given = msg if isinstance(msg, list) else [msg] if msg is not None else []
        self.task_ids = {m.id for m in given}
        self.replying = True
        try:
            return await super().reply(msg, structured_model)
        except _Capped:
            capped = Msg(self.name, CAPPED, "assistant", metadata={"_is_capped": True})
            await self.memory.add(capped)
            return capped
        finally:
            self.replying, self.news = False, []

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        """Take in hub news: at once between replies, at the next turn during one."""
        given = msg if isinstance(msg, list) else [msg] if msg is not None else []
        if self.replying:
            self.news.extend(given)
        elif given:
            await super().observe(given)

    async def _reasoning(self, tool_choice: Any = None) -> Msg:
        if self.guard is not None and self.guard.capped:
            # a round of calls went over the cap: another request would only resend the
            # growing history, so the task ends here with what it stored
            raise _Capped
        if self.news:  # every result of the last round is in memory: a turn boundary
            news, self.news = self.news, []
            await self.memory.add(news)
        return await super()._reasoning(tool_choice)

    async def handle_interrupt(
        self, msg: Msg | list[Msg] | None = None, structured_model: type[BaseModel] | None = None
    ) -> Msg:
        stopped = Msg(self.name, STOPPED, "assistant", metadata={"_is_interrupted": True})
        await self.memory.add(stopped)
        return stopped

    async def _compress_memory_if_needed(self) -> None:
        config = self.compression_config
        if config is None or not config.enable:
            return
        current = await self.memory.get_memory(
            exclude_mark=_MemoryMark.COMPRESSED, prepend_summary=False
        )
        last_round = latest_round(current)
        if last_round and self.guard is not None:
            await self.guard.fit_round(last_round[1:], config.trigger_threshold // 2)
        pinned = [m.id for m in current if m.id in self.task_ids] + [m.id for m in last_round]
        await self.memory.update_messages_mark(_MemoryMark.COMPRESSED, msg_ids=pinned)
        try:
            await super()._compress_memory_if_needed()
        finally:
            await self.memory.update_messages_mark(
                None, old_mark=_MemoryMark.COMPRESSED, msg_ids=pinned
            )


def latest_round(messages: list[Msg]) -> list[Msg]:
    """The last message with tool calls, then the messages holding their results."""
    for i in range(len(messages) - 1, -1, -1):
        ids = {b["id"] for b in messages[i].get_content_blocks("tool_use")}
        if ids:
            results = [
                m
                for m in messages[i + 1 :]
                if any(b["id"] in ids for b in m.get_content_blocks("tool_result"))
            ]
            return [messages[i], *results]
    return []


__all__ = ["CAPPED", "STOPPED", "WorkerAgent", "latest_round"]
