"""The shapes every tool returns, and the fixed metadata envelope they share.

Business results go in ``content``: one text block a model can read (Markdown or plain
text, with a fenced JSON block where structure helps). ``metadata`` is the same small
envelope for every tool, reserved for the framework and read by the Host for audit only:

- ``status``: ``ok`` | ``error`` | ``unavailable`` | ``refused``;
- ``paths``: logical paths the call wrote or read;
- ``evidence_ids``: evidence ledger items the call added;
- ``reason``: why, for a status other than ``ok`` (empty otherwise).

No brain decides anything from metadata: the offline policy reads the same ``content``
a model reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Literal

from agentscope.message import TextBlock
from agentscope.tool import ToolResponse

Status = Literal["ok", "error", "unavailable", "refused"]
STATUSES: tuple[Status, ...] = ("ok", "error", "unavailable", "refused")
#: The keys of every tool result's metadata, no more and no fewer.
ENVELOPE_KEYS = ("status", "paths", "evidence_ids", "reason")


def envelope(
    status: Status,
    paths: Iterable[str] = (),
    evidence_ids: Iterable[str] = (),
    reason: str = "",
) -> dict[str, Any]:
    """The fixed metadata of a tool result."""
    return {
        "status": status,
        "paths": list(dict.fromkeys(str(p) for p in paths)),
        "evidence_ids": list(dict.fromkeys(str(i) for i in evidence_ids)),
        "reason": reason,
    }


def _response(text: str, meta: dict[str, Any]) -> ToolResponse:
    return ToolResponse(content=[TextBlock(type="text", text=text)], metadata=meta)


def ok(text: str, paths: Iterable[str] = (), evidence_ids: Iterable[str] = ()) -> ToolResponse:
    """A successful result: ``text`` for the model; the paths and evidence it touched."""
    return _response(text, envelope("ok", paths, evidence_ids))


def error(message: str, paths: Iterable[str] = ()) -> ToolResponse:
    """Bad input the model can fix, or a refusal of the file domain: text starts ``Error:``."""
    text = message if message.startswith("Error:") else f"Error: {message}"
    return _response(text, envelope("error", paths, reason=text.removeprefix("Error: ")[:300]))


def unavailable(reason: str, advice: str = "") -> ToolResponse:
    """An outside dependency (network, provider, browser) failed; the run goes on.

    ``advice`` (what the model may do instead) follows the reason in the text the model
    reads; the envelope's ``reason``, which people read in reports, leaves it out.
    """
    text = reason if reason.startswith("Error:") else f"Error: unavailable: {reason}"
    told = f"{text.rstrip('.')}; {advice}" if advice else text
    return _response(told, envelope("unavailable", reason=reason.removeprefix("Error: ")[:300]))


def refused(reason: str) -> ToolResponse:
    """A guard refused the call before it ran (a cap, a budget, a policy)."""
    text = reason if reason.startswith("Error:") else f"Error: {reason}"
    return _response(text, envelope("refused", reason=text.removeprefix("Error: ")[:300]))


def status_of(response: ToolResponse | None) -> Status:
    """The status of a tool result; a result without an envelope is judged by its text.

    Results that do not come from this project's tools (agentscope's own errors for an
    unknown tool or bad arguments, MCP tools) have no envelope: their text decides.
    """
    meta = (response.metadata if response is not None else None) or {}
    status = meta.get("status")
    if status in STATUSES:
        return status
    text = text_of(response) if response is not None else ""
    failed = (
        not text
        or text.startswith(("Error", "FunctionNotFoundError", "FunctionInactiveError"))
        or "Arguments Validation Error" in text[:80]
        or bool(meta.get("isError") or meta.get("is_error"))
    )
    return "error" if failed else "ok"


def text_of(response: ToolResponse) -> str:
    """The concatenated text blocks of a response."""
    return "".join(
        block.get("text", "") for block in response.content if block.get("type") == "text"
    )


def json_block(data: Any) -> str:
    """A fenced JSON block for the structured part of a result's text."""
    return "```json\n" + json.dumps(data, ensure_ascii=False, indent=1, default=str) + "\n```"


def bounded(text: str, limit: int, how_to_continue: str) -> str:
    """Cut ``text`` at ``limit`` characters and say so, with how to read the rest."""
    if len(text) <= limit:
        return text
    return (
        text[:limit] + f"\n\n[… {len(text) - limit} more characters not shown. {how_to_continue}]"
    )
