"""What the Host records of a tool call, and the name of a task request.

Part of the bottom floor of ``host/``: nothing here imports another module of ``host/``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: How a call ended. Every status but ``ok`` counts as a failed call.
CALL_STATUSES = (
    "ok",
    "error",
    "unavailable",
    "refused",
    "unknown tool",
    "invalid arguments",
    "interrupted",
    "rejected",
)


@dataclass
class ToolCallRecord:
    """One tool call as the Host saw it."""

    stage: str
    name: str
    input: dict[str, Any]
    text: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    status: str = "ok"  # one of CALL_STATUSES
    evicted_to: str | None = None
    call_id: str = ""

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
            "status": self.status,
            "refused": self.refused,
            "note": "" if not self.failed else self.text[:300],
            "evicted_to": self.evicted_to,
        }

    @property
    def failed(self) -> bool:
        return self.status != "ok"

    @property
    def refused(self) -> bool:
        return self.status == "refused"

    @classmethod
    def from_summary(cls, raw: dict[str, Any]) -> ToolCallRecord:
        """A record read back from its :meth:`summary` (a checkpoint's earlier calls)."""
        status = raw.get("status") or ("ok" if raw.get("ok", True) else "error")
        return cls(
            str(raw.get("stage", "")),
            str(raw.get("tool", "")),
            dict(raw.get("input") or {}),
            text=str(raw.get("note") or ""),
            seconds=float(raw.get("seconds") or 0.0),
            status=str(status),
            evicted_to=raw.get("evicted_to"),
        )


def call_signature(subagent_type: Any, context: Any) -> str:
    """A stable name for one task request (its subagent and context as the brain gave them)."""
    return json.dumps([str(subagent_type), context or {}], sort_keys=True, ensure_ascii=False)
