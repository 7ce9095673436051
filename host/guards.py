"""Limits enforced by mechanism: tool-call caps, argument hygiene, eviction, depth.

``ToolGuard`` is an agentscope toolkit middleware. Per delegation it counts calls and
refuses the one over the cap before it reaches the tool; it drops arguments the schema
does not declare (so a model cannot override an injected dependency); it records every
call and result for the Host; and it moves oversized results to ``/internal/``, leaving a
preview and a reference.
"""

from __future__ import annotations

import contextvars
import hashlib
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agentscope.message import TextBlock, ToolUseBlock
from agentscope.tool import Toolkit, ToolResponse

from subagents.results import status_of

DEFAULT_TOOL_CALL_CAP = 80
DEFAULT_DEPTH_CAP = 3
DEFAULT_EVICT_CHARS = 40_000
PREVIEW_CHARS = 4_000


#: The structured-output tool an agent finishes with: it reports, it starts nothing.
FINISH = "generate_response"


@dataclass
class ToolCallRecord:
    """One tool call as the Host saw it."""

    stage: str
    name: str
    input: dict[str, Any]
    text: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    refused: bool = False
    evicted_to: str | None = None

    def summary(self) -> dict[str, Any]:
        """A JSON-ready line for run.json: what was called, how long, how it ended."""
        shown = {
            k: (v if len(str(v)) <= 200 else str(v)[:200] + "…") for k, v in self.input.items()
        }
        return {
            "stage": self.stage,
            "tool": self.name,
            "input": shown,
            "seconds": round(self.seconds, 3),
            "ok": not self.failed,
            "refused": self.refused,
            "note": "" if not self.failed else self.text[:300],
            "evicted_to": self.evicted_to,
        }

    @property
    def failed(self) -> bool:
        return self.refused or self.metadata.get("status", "ok") != "ok"

    @classmethod
    def from_summary(cls, raw: dict[str, Any]) -> ToolCallRecord:
        """A record read back from its :meth:`summary` (a checkpoint's earlier calls)."""
        return cls(
            str(raw.get("stage", "")),
            str(raw.get("tool", "")),
            dict(raw.get("input") or {}),
            text=str(raw.get("note") or ""),
            metadata={"status": "ok" if raw.get("ok", True) else "error"},
            seconds=float(raw.get("seconds") or 0.0),
            refused=bool(raw.get("refused")),
            evicted_to=raw.get("evicted_to"),
        )


def _text(resp: ToolResponse) -> str:
    return "".join(b.get("text", "") for b in resp.content if b.get("type") == "text")


class ToolGuard:
    """The per-subagent middleware: cap, hygiene, recording and eviction.

    Args:
        stage: the subagent's name, recorded on each call.
        toolkit: the subagent's toolkit (for the declared parameters of each tool).
        cap: tool calls allowed per delegation.
        evict: ``async (name, text) -> path`` storing an oversized result, or None.
        evict_chars: results longer than this are evicted.
        on_call: called with each finished record (progress display, run.json).
        stopped: says whether the run is stopping, so that no new call starts.
        approval: the tools whose calls a person decides on, and who asks.
    """

    def __init__(
        self,
        stage: str,
        toolkit: Toolkit,
        cap: int = DEFAULT_TOOL_CALL_CAP,
        evict: Callable[[str, str], Any] | None = None,
        evict_chars: int = DEFAULT_EVICT_CHARS,
        on_call: Callable[[ToolCallRecord], None] | None = None,
        stopped: Callable[[], bool] | None = None,
        approval: Any = None,
    ) -> None:
        self.stage, self.toolkit, self.cap = stage, toolkit, cap
        self.stopped, self.approval = stopped, approval
        self.evict, self.evict_chars, self.on_call = evict, evict_chars, on_call
        self.calls_this_delegation = 0
        self.records: list[ToolCallRecord] = []
        toolkit.register_middleware(self)

    def reset(self) -> None:
        """Start a new delegation: the call count goes back to zero."""
        self.calls_this_delegation = 0

    def delegation_records(self, since: int) -> list[ToolCallRecord]:
        return self.records[since:]

    def _declared(self, name: str) -> set[str] | None:
        tool = self.toolkit.tools.get(name)
        if tool is None:
            return None
        schema = tool.extended_json_schema  # with a structured-output model's fields
        props = schema.get("function", {}).get("parameters", {}).get("properties", {})
        return set(props)

    async def __call__(
        self, kwargs: dict, next_handler: Callable[..., Any]
    ) -> AsyncGenerator[ToolResponse, None]:
        call: ToolUseBlock = kwargs["tool_call"]
        declared = self._declared(call["name"])
        raw_input = dict(call.get("input") or {})
        clean = (
            raw_input if declared is None else {k: v for k, v in raw_input.items() if k in declared}
        )
        record = ToolCallRecord(self.stage, call["name"], clean)
        self.calls_this_delegation += 1
        if self.stopped is not None and self.stopped() and call["name"] != FINISH:
            record.refused = True
            record.metadata = {"status": "interrupted"}
            record.text = (
                "Not run: the user interrupted the run, so no new tool call starts. Give "
                "your final answer now from what you already have."
            )
            self._finish(record)
            yield ToolResponse(content=[TextBlock(type="text", text=record.text)])
            return
        if self.calls_this_delegation > self.cap:
            record.refused = True
            record.text = (
                f"Error: tool-call limit reached ({self.cap} calls in this task). This call "
                "was not run. Stop calling tools and give your final answer now from what "
                "you already have."
            )
            self._finish(record)
            yield ToolResponse(content=[TextBlock(type="text", text=record.text)])
            return
        if self.approval is not None and self.approval.needs(call["name"]):
            decision = await self.approval.decide(self.stage, call["name"], clean)
            if decision.action == "reject":
                record.refused = True
                record.metadata = {"status": "rejected"}
                record.text = (
                    f"Rejected by the user: {decision.reason}. This call was not run; do "
                    "without it or try something else."
                )
                self._finish(record)
                yield ToolResponse(content=[TextBlock(type="text", text=record.text)])
                return
            if decision.action == "edit" and decision.arguments is not None:
                edited = decision.arguments
                clean = (
                    edited
                    if declared is None
                    else {k: v for k, v in edited.items() if k in declared}
                )
                record.input = clean
        kwargs = {**kwargs, "tool_call": ToolUseBlock(**{**call, "input": clean})}
        started = time.perf_counter()
        last: ToolResponse | None = None
        async for chunk in await next_handler(**kwargs):
            last = chunk
            if not chunk.is_last and chunk.stream:
                yield chunk
        record.seconds = time.perf_counter() - started
        if last is None:
            last = ToolResponse(content=[TextBlock(type="text", text="Error: no result")])
        record.text = _text(last)
        record.metadata = {**dict(last.metadata or {}), "status": status_of(last)}
        if self.evict is not None and len(record.text) > self.evict_chars:
            record.evicted_to = await self.evict(call["name"], record.text)
            preview = record.text[:PREVIEW_CHARS]
            last = ToolResponse(
                content=[
                    TextBlock(
                        type="text",
                        text=f"{preview}\n\n[Result of {len(record.text)} characters shortened "
                        f"to its first {PREVIEW_CHARS}; the Host keeps the whole text as "
                        f"{record.evicted_to}. Ask for a narrower range if you need more.]",
                    )
                ],
                metadata=last.metadata,
            )
        self._finish(record)
        yield last

    def _finish(self, record: ToolCallRecord) -> None:
        self.records.append(record)
        if self.on_call is not None:
            self.on_call(record)


def evicted_name(tool: str, text: str) -> str:
    """A stable file name for an evicted result."""
    return f"{tool}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.txt"


# -- delegation depth -----------------------------------------------------------------

_DEPTH: contextvars.ContextVar[int] = contextvars.ContextVar("quartet_delegation_depth", default=0)


class DelegationDepthError(RuntimeError):
    """A delegation would nest deeper than the cap."""


def current_depth() -> int:
    """How many delegations enclose the running code."""
    return _DEPTH.get()


@contextmanager
def delegation_scope(cap: int = DEFAULT_DEPTH_CAP) -> Iterator[int]:
    """Enter one level of delegation; refuse past ``cap``."""
    depth = _DEPTH.get() + 1
    if depth > cap:
        raise DelegationDepthError(
            f"delegation depth {depth} is over the cap of {cap}; finish this task directly"
        )
    token = _DEPTH.set(depth)
    try:
        yield depth
    finally:
        _DEPTH.reset(token)
