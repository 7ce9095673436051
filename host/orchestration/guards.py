"""Limits enforced by mechanism: tool-call caps, argument hygiene, eviction, depth.

``ToolGuard`` is an agentscope toolkit middleware. Per delegation it counts calls and
refuses the one over the cap before it reaches the tool; it drops arguments the schema
does not declare (so a model cannot override an injected dependency); it records every
call and how it ended for the Host (arguments past a few kilobytes as a summary, see
:func:`bounded_input`); and it moves oversized results to ``/internal/``,
leaving a preview and a reference.

How a call ended is read from structure, not wording: a tool the toolkit does not offer
is an ``unknown tool``; a failed call whose arguments do not match the tool's schema (or
the finish function's ``success: False``) has ``invalid arguments``; a result the toolkit
marks ``is_interrupted``, or a cancellation while the call runs, is ``interrupted``; a
call over the cap is ``refused``. Every status but ``ok`` is a failed call.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import itertools
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jsonschema
from agentscope.message import Msg, TextBlock, ToolResultBlock, ToolUseBlock
from agentscope.tool import Toolkit, ToolResponse

from subagents.failures import plain_reason
from subagents.file.guard import CONTENT_TOOLS, as_untrusted_file
from subagents.file.stage import read_path
from subagents.results import status_of
from subagents.secrets import scrub, scrub_data

from ..brains.tape import stream_scope
from ..config import DEFAULT_DEPTH_CAP, DEFAULT_TOOL_CALL_CAP
from ..core.records import ToolCallRecord

DEFAULT_EVICT_CHARS = 40_000
PREVIEW_CHARS = 4_000
INTERRUPTED = "Interrupted: the task stopped (timed out or cancelled) before this call finished."
#: Characters of arguments a call's record keeps whole, in all; past them, each further
#: value is kept as a summary (its start, or its size), so that a huge call, even a refused
#: one, costs the Host a few kilobytes.
RECORD_INPUT_CHARS = 32_768
#: Characters kept from the start of a summarised text value.
RECORD_HEAD_CHARS = 200
#: Arguments a record keeps (an unknown tool's arguments meet no schema that drops any).
RECORD_ARGUMENTS = 32
#: Deepest nesting of a value kept whole.
RECORD_DEPTH = 32


#: The structured-output tool an agent finishes with: it reports, it starts nothing.
FINISH = "generate_response"


def _size_within(value: object, limit: int) -> int | None:
    """About how many characters ``value`` takes as JSON; None past ``limit`` of them or
    past RECORD_DEPTH levels of nesting. Stops as soon as it knows, whatever the size."""
    total, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > RECORD_DEPTH:
            return None
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            if total > limit:
                return None
            for key, inner in item.items():
                total += len(str(key))
                stack.append((inner, depth + 1))
        elif isinstance(item, (list, tuple)):
            total += 2 + len(item)
            if total > limit:
                return None
            stack.extend((inner, depth + 1) for inner in item)
        else:
            total += 8
        if total > limit:
            return None
    return total


def _summary(value: object) -> str:
    """What a record keeps of a value too large to keep whole: its start, or its size."""
    if isinstance(value, str):
        # Scrubbed before it is cut, so that no part of a key survives at the cut.
        head = scrub(value[: RECORD_HEAD_CHARS + 1024])[:RECORD_HEAD_CHARS]
        return f"{head}… [{len(value):,} characters, not kept]"
    if isinstance(value, dict):
        return f"[an object of {len(value):,} fields, too large to keep]"
    if isinstance(value, (list, tuple)):
        return f"[a list of {len(value):,} items, too large to keep]"
    return f"[a {type(value).__name__} too large to keep]"


def bounded_input(args: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments as its record keeps them.

    Values are kept whole, in order, while they fit in RECORD_INPUT_CHARS together (and
    nest at most RECORD_DEPTH deep); any other is replaced by a short summary. At most
    RECORD_ARGUMENTS arguments are kept, with names of at most 100 characters.
    """
    kept: dict[str, Any] = {}
    room = RECORD_INPUT_CHARS
    for name, value in itertools.islice(args.items(), RECORD_ARGUMENTS):
        size = _size_within(value, room)
        if size is None:
            kept[str(name)[:100]] = _summary(value)
        else:
            kept[str(name)[:100]] = value
            room -= size
    if len(args) > RECORD_ARGUMENTS:
        kept["…"] = f"[{len(args) - RECORD_ARGUMENTS:,} more arguments, not kept]"
    return kept


def _joined(blocks: list[Any]) -> str:
    return "".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def _text(resp: ToolResponse) -> str:
    return _joined(resp.content)


def _output_text(block: ToolResultBlock) -> str:
    output = block.get("output")
    return output if isinstance(output, str) else _joined(output or [])


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
        self.capped = False
        self.records: list[ToolCallRecord] = []
        toolkit.register_middleware(self)

    def reset(self) -> None:
        """Start a new delegation: the call count goes back to zero."""
        self.calls_this_delegation = 0
        self.capped = False

    def _declared(self, name: str) -> set[str] | None:
        params = self._parameters(name)
        return None if params is None else set(params.get("properties", {}))

    def _parameters(self, name: str) -> dict[str, Any] | None:
        """The JSON schema of a tool's parameters (with a structured-output model's fields)."""
        tool = self.toolkit.tools.get(name)
        if tool is None:
            return None
        return tool.extended_json_schema.get("function", {}).get("parameters", {})

    def _offered(self, name: str) -> bool:
        """Whether the toolkit offers ``name`` now: registered, and in an active group."""
        tool = self.toolkit.tools.get(name)
        if tool is None:
            return False
        group = self.toolkit.groups.get(tool.group)
        return tool.group == "basic" or group is None or group.active

    def _invalid(self, name: str, args: dict[str, Any]) -> bool:
        """Whether ``args`` break the tool's declared schema (missing or mistyped)."""
        params = self._parameters(name)
        if not params:
            return False
        try:
            return not jsonschema.Draft202012Validator(params).is_valid(args)
        except jsonschema.SchemaError:
            return False

    def _status(self, name: str, args: dict[str, Any], last: ToolResponse) -> str:
        """How a call that ran ended (see CALL_STATUSES)."""
        if last.is_interrupted:
            return "interrupted"
        status = status_of(last)
        if status == "ok":
            return "ok"
        if (last.metadata or {}).get("success") is False or self._invalid(name, args):
            return "invalid arguments"  # the finish function's own shape, or the schema's
        return status

    async def __call__(
        self, kwargs: dict, next_handler: Callable[..., Any]
    ) -> AsyncGenerator[ToolResponse, None]:
        call: ToolUseBlock = kwargs["tool_call"]
        declared = self._declared(call["name"])
        raw_input = dict(call.get("input") or {})
        clean = (
            raw_input if declared is None else {k: v for k, v in raw_input.items() if k in declared}
        )
        record = ToolCallRecord(self.stage, call["name"], clean, call_id=str(call.get("id", "")))
        self.calls_this_delegation += 1
        refused, clean = await self._before(call["name"], record, declared, clean)
        if refused:
            self._finish(record)
            yield ToolResponse(content=[TextBlock(type="text", text=record.text)])
            return
        offered = self._offered(call["name"])
        kwargs = {**kwargs, "tool_call": ToolUseBlock(**{**call, "input": clean})}
        started = time.perf_counter()
        last: ToolResponse | None = None
        try:
            with stream_scope(record.call_id or call["name"], nested=True):
                async for chunk in await next_handler(**kwargs):
                    last = chunk
                    if not chunk.is_last and chunk.stream:
                        yield chunk
            last = await self._settle(record, last, offered)
        except (asyncio.CancelledError, GeneratorExit):
            # the task was cancelled while the call ran: the call ends here, and so does the task
            record.status, record.text = "interrupted", INTERRUPTED
            raise
        except Exception as exc:
            record.status, record.text = "error", f"Error: {plain_reason(exc)}"
            raise
        finally:
            record.seconds = time.perf_counter() - started
            self._finish(record)
        yield last

    async def _before(
        self, name: str, record: ToolCallRecord, declared: set[str] | None, clean: dict
    ) -> tuple[bool, dict]:
        """Whether the call is refused before it runs (the user stopped the run, the call
        cap is reached, the user rejected it), its status and text then set on
        ``record``; and its arguments, as the user may have edited them."""
        if self.stopped is not None and self.stopped() and name != FINISH:
            record.status = "interrupted"
            record.text = (
                "Not run: the user interrupted the run, so no new tool call starts. Give "
                "your final answer now from what you already have."
            )
            return True, clean
        if self.calls_this_delegation > self.cap:
            self.capped = True  # the worker ends its task at its next turn
            record.status = "refused"
            record.text = (
                f"Error: tool-call limit reached ({self.cap} calls in this task). This call "
                "was not run. Stop calling tools and give your final answer now from what "
                "you already have."
            )
            return True, clean
        if self.approval is not None and self.approval.needs(name):
            decision = await self.approval.decide(self.stage, name, clean)
            if decision.action == "reject":
                record.status = "rejected"
                record.text = (
                    f"Rejected by the user: {decision.reason}. This call was not run; do "
                    "without it or try something else."
                )
                return True, clean
            if decision.action == "edit" and decision.arguments is not None:
                edited = decision.arguments
                clean = (
                    edited
                    if declared is None
                    else {k: v for k, v in edited.items() if k in declared}
                )
                record.input = clean
        return False, clean

    async def _settle(
        self, record: ToolCallRecord, last: ToolResponse | None, offered: bool
    ) -> ToolResponse:
        """Record how a call that ran ended; evict an oversized result. The response to give."""
        if last is None:
            last = ToolResponse(content=[TextBlock(type="text", text="Error: no result")])
        record.text = _text(last)
        record.metadata = {**dict(last.metadata or {}), "status": status_of(last)}
        if record.name in CONTENT_TOOLS and record.metadata["status"] == "ok":
            path = read_path(record.input)
            record.text = as_untrusted_file(record.text, path)
            others = [b for b in last.content if b.get("type") != "text"]
            last = ToolResponse(
                content=[TextBlock(type="text", text=record.text), *others],
                metadata=last.metadata,
            )
        record.status = self._status(record.name, record.input, last) if offered else "unknown tool"
        if record.status == "interrupted":
            record.text = INTERRUPTED
        elif self.evict is not None and len(record.text) > self.evict_chars:
            record.evicted_to = await self.evict(record.name, record.text)
            text = preview(record, PREVIEW_CHARS)
            last = ToolResponse(content=[TextBlock(type="text", text=text)], metadata=last.metadata)
        return last

    async def fit_round(self, results: list[Msg], budget: int) -> None:
        """Shrink one round of tool results to about ``budget`` characters.

        The round's largest results are evicted to ``/internal/`` (or, when the guard
        evicted them already, pointed to there again) and replaced by a preview, largest
        first, until the round fits. ``results`` are the agent's own memory messages: their
        tool-result blocks are changed in place.
        """
        if self.evict is None:
            return
        records = {r.call_id: r for r in self.records if r.call_id}
        blocks = [b for m in results for b in m.get_content_blocks("tool_result")]
        sizes = [len(_output_text(b)) for b in blocks]
        total = sum(sizes)
        if total <= budget:
            return
        chars = max(200, min(PREVIEW_CHARS, budget // (2 * len(blocks))))
        for size, block in sorted(zip(sizes, blocks, strict=True), key=lambda p: -p[0]):
            if total <= budget:
                break
            record = records.get(block["id"])
            if record is None or len(record.text) <= chars:
                continue
            if record.evicted_to is None:
                record.evicted_to = await self.evict(record.name, record.text)
            text = preview(record, chars)
            block["output"] = [TextBlock(type="text", text=text)]
            total -= size - len(text)

    def _finish(self, record: ToolCallRecord) -> None:
        record.input = scrub_data(bounded_input(record.input))  # type: ignore[assignment]
        record.text = scrub(record.text)
        self.records.append(record)
        if self.on_call is not None:
            self.on_call(record)


def preview(record: ToolCallRecord, chars: int) -> str:
    """The start of an evicted result and where the Host keeps the whole text."""
    return (
        f"{record.text[:chars]}\n\n[Result of {len(record.text)} characters shortened to its "
        f"first {chars}; the Host keeps the whole text as {record.evicted_to}. Ask for a "
        "narrower range if you need more.]"
    )


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
