"""The agent a delegation runs: agentscope's ReActAgent with two Host-side rules.

- **Interruption.** When its task times out or is cancelled, agentscope's reply would be
  "I noticed that you have interrupted me. What can I do for you?" — words meant for a
  user at a console. A worker ends with a plain note instead; the Host reports the
  timeout and what was kept (see :mod:`host.orchestration.delegation`).
- **Compression keeps the task.** agentscope summarises every message it does not keep
  as recent once the history passes the threshold, and when a task has fewer recent
  messages than ``keep_recent`` it summarises all of them: the task message and the
  results just returned, which the model then fetches again. A worker pins the
  message it was given (the Host's delegation) and the latest round of tool calls and
  results: they are hidden from agentscope's compression while it runs, so they are
  neither counted nor summarised. A latest round larger than half the threshold is
  shrunk by size instead: its largest results are evicted to ``/internal/`` with a
  preview (:meth:`host.orchestration.guards.ToolGuard.fit_round`).
- **Compression counts characters of messages.** agentscope's own trigger counts only
  the messages it would summarise and keeps ``keep_recent`` rounds (not messages) out of
  the count, so a history of large rounds grew far past the threshold before it fired.
  A worker measures its whole history (the summary so far, the pinned messages and the
  rest) in characters of the messages' content; once that passes the threshold, it keeps
  the pinned messages and as many recent whole rounds as fit in half the threshold, and
  has everything older summarised. The history sent then stays under the threshold.
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

import json
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
        limit = config.trigger_threshold
        current = await self.memory.get_memory(
            exclude_mark=_MemoryMark.COMPRESSED, prepend_summary=False
        )
        last_round = latest_round(current)
        if last_round and self.guard is not None:
            await self.guard.fit_round(last_round[1:], limit // 2)
        history = await self.memory.get_memory(exclude_mark=_MemoryMark.COMPRESSED)
        if history_chars(history) <= limit:
            return
        pinned = {m.id for m in current if m.id in self.task_ids} | {m.id for m in last_round}
        loose = [m for m in current if m.id not in pinned]
        room = limit // 2 - history_chars([m for m in current if m.id in pinned])
        kept = recent_rounds(loose, room)
        older = loose[: len(loose) - kept]
        if older:
            summary = history[: len(history) - len(current)]  # the summary so far, if any
            await self._summarise([*summary, *older])

    async def _summarise(self, older: list[Msg]) -> None:
        """Replace ``older`` (and the summary so far) by a new summary of them."""
        config = self.compression_config
        assert config is not None
        formatter = config.compression_formatter or self.formatter
        prompt = await formatter.format(
            [
                Msg("system", self.sys_prompt, "system"),
                *older,
                Msg("user", config.compression_prompt, "user"),
            ]
        )
        model = config.compression_model or self.model
        response = await model(prompt, structured_model=config.summary_schema)
        last = None
        if model.stream:
            async for chunk in response:
                last = chunk
        else:
            last = response
        if last is None or not last.metadata:
            return  # no summary: the history is kept as it is
        await self.memory.update_compressed_summary(config.summary_template.format(**last.metadata))
        # the summary so far is not a stored message: marking its id changes nothing
        await self.memory.update_messages_mark(
            _MemoryMark.COMPRESSED, msg_ids=[m.id for m in older]
        )


def message_chars(msg: Msg) -> int:
    """The characters of a message's content: its text, tool calls and tool results."""
    if isinstance(msg.content, str):
        return len(msg.content)
    return sum(len(json.dumps(block, ensure_ascii=False, default=str)) for block in msg.content)


def history_chars(messages: list[Msg]) -> int:
    """The characters of ``messages``' content, added up."""
    return sum(message_chars(m) for m in messages)


def recent_rounds(messages: list[Msg], room: int) -> int:
    """How many of the last ``messages`` to keep: whole rounds (a tool call with all its
    results), newest first, while they fit in ``room`` characters."""
    kept, size, waiting = 0, 0, set()
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        size += message_chars(msg)
        if size > room:
            break
        waiting |= {b["id"] for b in msg.get_content_blocks("tool_result")}
        waiting -= {b["id"] for b in msg.get_content_blocks("tool_use")}
        if not waiting:  # messages[i:] holds every call with its results
            kept = len(messages) - i
    return kept


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


__all__ = ["CAPPED", "STOPPED", "WorkerAgent", "history_chars", "latest_round", "recent_rounds"]
