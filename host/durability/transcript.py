"""The Host's records in ``/internal/``: transcript, evidence ledger and run.json."""

from __future__ import annotations

import json
from typing import Any

from agentscope.message import Msg

from fs_service import FileDomainService, escape_name
from subagents.evidence import EvidenceLedger
from subagents.secrets import scrub, scrub_data

TRANSCRIPT = "/internal/transcript.jsonl"
EVIDENCE = "/internal/evidence.jsonl"
RUN_JSON = "/internal/run.json"
PLAN_JSON = "/internal/plan.json"


def msg_to_dict(msg: Msg) -> dict[str, Any]:
    """A JSON-ready form of a Msg."""
    return {
        "id": msg.id,
        "name": msg.name,
        "role": msg.role,
        "content": msg.content,
        "metadata": msg.metadata,
        "timestamp": msg.timestamp,
    }


class Transcript:
    """Appends every broadcast Msg to ``/internal/transcript.jsonl`` (one JSON per line)."""

    def __init__(self, service: FileDomainService) -> None:
        self.service = service
        self.lines: list[str] = []

    async def load(self) -> None:
        """Continue the transcript a stopped run left (when resuming it)."""
        try:
            text = await self.service.read_text(TRANSCRIPT)
        except Exception:  # no transcript yet: start one
            text = ""
        self.lines = [line for line in text.splitlines() if line.strip()]

    async def append(self, msg: Msg) -> None:
        # A name with undecodable bytes (the input folder's own, say) is kept as \xNN.
        line = json.dumps(scrub_data(msg_to_dict(msg)), ensure_ascii=False, default=str)
        self.lines.append(escape_name(line))
        await self.service.write_text(TRANSCRIPT, "\n".join(self.lines) + "\n")


async def save_evidence(service: FileDomainService, ledger: EvidenceLedger) -> None:
    """Write the ledger to ``/internal/evidence.jsonl``."""
    text = "".join(json.dumps(item.to_dict(), ensure_ascii=False) + "\n" for item in ledger.items())
    await service.write_text(EVIDENCE, scrub(text))


async def save_json(service: FileDomainService, path: str, data: Any) -> None:
    """Write ``data`` as indented JSON (credential values scrubbed) at ``path``.

    Undecodable bytes of a name (held as lone surrogates) are written as ``\\xNN``, so
    that the record is always written.
    """
    text = escape_name(json.dumps(scrub_data(data), ensure_ascii=False, indent=2, default=str))
    await service.write_text(path, text)


async def save_run_json(service: FileDomainService, record: dict[str, Any]) -> None:
    await save_json(service, RUN_JSON, record)


async def save_plan(service: FileDomainService, plan: dict[str, Any]) -> None:
    """Write the plan, the run's todo list, to ``/internal/plan.json``."""
    await save_json(service, PLAN_JSON, plan)


async def save_records(
    service: FileDomainService,
    ledger: EvidenceLedger,
    plan: dict[str, Any] | None,
    record: dict[str, Any],
) -> None:
    """Write what a run leaves at its end: the evidence ledger, the plan (if there is
    one) and ``run.json``."""
    await save_evidence(service, ledger)
    if plan is not None:
        await save_plan(service, plan)
    await save_run_json(service, record)
