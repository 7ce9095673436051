"""The Host's refused and unknown tool calls, kept for run.json and the transcript.

The Host agent's toolkit offers ``task`` only. A call to any other tool, a ``task`` with
an unknown ``subagent_type``, and every ``task`` the delegator refuses (no research
rounds left, the page budget spent, a missing sub-question, a stopping run) come back to
the Host brain as an error; :class:`HostAudit`, a middleware of the Host's toolkit, also
records each of them with its arguments and its reason, and appends it to the transcript.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Any

from agentscope.message import Msg
from agentscope.tool import Toolkit, ToolResponse

from subagents.results import status_of

#: How much of one argument value an entry keeps.
ARGUMENT_CHARS = 200
#: How much of a reason an entry keeps.
REASON_CHARS = 300


def arguments_summary(arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a call, each value cut to :data:`ARGUMENT_CHARS` characters."""
    return {
        str(k): v if len(str(v)) <= ARGUMENT_CHARS else str(v)[:ARGUMENT_CHARS] + "…"
        for k, v in arguments.items()
    }


def _text(response: ToolResponse) -> str:
    return "".join(b.get("text", "") for b in response.content if b.get("type") == "text")


def refusal_entry(toolkit: Toolkit, call: dict[str, Any], last: ToolResponse) -> dict | None:
    """The audit entry of one finished Host call, or None when the call went through.

    Args:
        toolkit: the Host's toolkit (what it offers decides an unknown tool).
        call: the tool call block.
        last: the call's final response.
    """
    name = str(call.get("name") or "")
    if name not in toolkit.tools:
        status = "unknown tool"
    else:
        status = status_of(last)
        if status == "ok":
            return None
    reason = (last.metadata or {}).get("reason") or _text(last).removeprefix("Error: ")
    return {
        "tool": name,
        "arguments": arguments_summary(dict(call.get("input") or {})),
        "status": status,
        "reason": str(reason)[:REASON_CHARS],
    }


class HostAudit:
    """A middleware of the Host's toolkit recording every refused or unknown call.

    Args:
        toolkit: the Host's toolkit; the audit registers itself on it.
        entries: where entries go (the delegator's list, so checkpoints keep them).
        transcript: the run's transcript, or None.
    """

    def __init__(self, toolkit: Toolkit, entries: list[dict[str, Any]], transcript: Any) -> None:
        self.toolkit, self.entries, self.transcript = toolkit, entries, transcript
        toolkit.register_middleware(self)

    async def record(self, entry: dict[str, Any]) -> None:
        """Keep ``entry`` and append it to the transcript."""
        self.entries.append(entry)
        if self.transcript is not None:
            text = f"Host call {entry['tool']} {entry['status']}: {entry['reason']}"
            await self.transcript.append(
                Msg("Host", text, "assistant", metadata={"host_refusal": entry})
            )

    async def __call__(
        self, kwargs: dict[str, Any], next_handler: Callable[..., Any]
    ) -> AsyncGenerator[ToolResponse, None]:
        last: ToolResponse | None = None
        async for chunk in await next_handler(**kwargs):
            last = chunk
            yield chunk
        if last is not None:
            entry = refusal_entry(self.toolkit, kwargs["tool_call"], last)
            if entry is not None:
                await self.record(entry)


__all__ = ["HostAudit", "arguments_summary", "refusal_entry"]
