"""Recording the model's answers, and replaying a recorded run.

Every model request of a run belongs to a *stream*: the Host agent's (``host``), one
delegation's worker (``d7``), or one tool call inside it (``d7/call_…``). Within a
stream requests come one after another, so the n-th request of a stream gets the n-th
recorded answer however the concurrent tasks interleave. The stream is carried in a
context variable: :func:`stream_scope` names it for a delegation and for a tool call.

:class:`RecordingModel` keeps each answer on the run's tape (:mod:`subagents.tape`), with
a digest of the request that asked for it; :class:`ReplayModel` answers from a tape and
notes the first request that differs from the recorded one (a divergence).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

from agentscope.model import ChatModelBase, ChatResponse
from agentscope.model._model_usage import ChatUsage

from subagents.tape import Tape

from .wrapping import ModelWrapper

STREAM: contextvars.ContextVar[str] = contextvars.ContextVar("quartet_stream", default="host")
#: Durations and clock times: they differ between a run and its replay, and mean nothing
#: to the model's decisions.
_VOLATILE = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms)\b|\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-][\d:]+)?")


#: How much of a request's last message the tape keeps, to show where a replay differs.
LAST_TEXT_CHARS = 20_000


def where_differs(asked: str, recorded: str, width: int = 120) -> str:
    """The first place two texts differ, as a short excerpt of each."""
    start = next(
        (i for i, (a, b) in enumerate(zip(asked, recorded, strict=False)) if a != b),
        min(len(asked), len(recorded)),
    )
    lo = max(0, start - width // 3)
    return f"{asked[lo : lo + width]!r} where the recording has {recorded[lo : lo + width]!r}"


@contextlib.contextmanager
def stream_scope(name: str, nested: bool = False) -> Iterator[str]:
    """Name the model stream of the code inside (``nested``: below the current one)."""
    full = f"{STREAM.get()}/{name}" if nested else name
    token = STREAM.set(full)
    try:
        yield full
    finally:
        with contextlib.suppress(ValueError):  # closed in another context: nothing to undo
            STREAM.reset(token)


def request_digest(messages: list[dict[str, Any]], tools: list[dict] | None) -> dict[str, Any]:
    """What identifies a request: its last message (text, volatile figures removed) and the
    names of the tools it offers."""
    last = messages[-1] if messages else {}
    text = _VOLATILE.sub("#", json.dumps(last, ensure_ascii=False, sort_keys=True, default=str))
    return {
        "messages": len(messages),
        "last": hashlib.sha256(text.encode()).hexdigest()[:16],
        "last_text": text[:LAST_TEXT_CHARS],
        "tools": sorted(t.get("function", {}).get("name", "") for t in tools or []),
    }


class Streams:
    """The next request number of each stream."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def next(self) -> tuple[str, int]:
        stream = STREAM.get()
        n = self.counts.get(stream, 0)
        self.counts[stream] = n + 1
        return stream, n


class RecordingModel(ModelWrapper):
    """Calls the model and keeps each answer on the tape."""

    def __init__(self, model: Any, tape: Tape) -> None:
        super().__init__(model)
        self.tape, self.streams = tape, Streams()

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        stream, n = self.streams.next()
        response = await self.model(messages, tools, tool_choice, **kwargs)
        usage = response.usage
        entry = {
            "request": request_digest(messages, tools),
            "content": list(response.content),
            "metadata": response.metadata,
            "usage": [usage.input_tokens, usage.output_tokens] if usage else [0, 0],
        }
        await self.tape.save("model", f"{stream}#{n}", entry)
        return response


class ReplayModel(ChatModelBase):
    """Answers every request with the recorded answer of its stream.

    Args:
        tape: the recorded run's tape.
        model_name: the recorded model's name.
        chat_formatter: the formatter class of the recorded provider's single-agent
            format, which tools that ask the model use (:func:`subagents.models.formatter_for`).
    """

    def __init__(self, tape: Tape, model_name: str = "replay", chat_formatter: Any = None) -> None:
        super().__init__(model_name=model_name, stream=False)
        self.tape, self.streams = tape, Streams()
        self.chat_formatter = chat_formatter

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        stream, n = self.streams.next()
        entry = self.tape.take("model", f"{stream}#{n}")
        asked, recorded = request_digest(messages, tools), entry["request"]
        if (asked["last"], asked["tools"]) != (recorded["last"], recorded["tools"]):
            self.tape.diverge(
                f"model request {n + 1} of {stream} differs from the recording: it has "
                + where_differs(asked["last_text"], recorded["last_text"])
            )
        tokens_in, tokens_out = entry.get("usage") or [0, 0]
        return ChatResponse(
            content=entry["content"],
            metadata=entry.get("metadata"),
            usage=ChatUsage(input_tokens=tokens_in, output_tokens=tokens_out, time=0.0),
        )
