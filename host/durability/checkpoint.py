"""Checkpoints: a run can be stopped at any moment and continued from its last task.

After every finished delegation the Host writes ``/internal/checkpoint.json``: the
question and settings, the plan, the research state, the evidence ledger and the page
registry, the delegations and their results, the Host agent's memory and the tool calls
so far. The file service writes it to a temporary file and renames it into place, so a
``kill -9`` at any moment leaves the previous checkpoint or the new one, never half of
one. Between checkpoints, every page or download stored is also noted in
``/internal/stored.json`` as soon as its tool call ends.

Resuming reads it back into a Host on the same run folder: pages and downloads already
stored (by the checkpoint, the notes or the pages' own sidecars) are served from their
stored copies, not fetched again. The Host agent's restored
memory can end in a message whose tool calls have no results (the run stopped while they
ran); each gets its result when its task had finished, and otherwise a "cancelled" result
(seed 004), so that every provider accepts the history and the brain can run it again.
"""

from __future__ import annotations

import json
from typing import Any

from agentscope.message import Msg, TextBlock, ToolResultBlock

from subagents.evidence import EvidenceItem, EvidenceLedger, PageRecord, PageRegistry
from subagents.failures import plain_reason, without_class_names
from subagents.secrets import scrub

from ..core.records import call_signature
from ..core.stages import CANCELLED

CHECKPOINT = "/internal/checkpoint.json"
STORED = "/internal/stored.json"
VERSION = 1


async def save(service: Any, state: dict[str, Any]) -> None:
    """Write a checkpoint atomically (temporary file, then rename)."""
    text = scrub(json.dumps({"version": VERSION, **state}, ensure_ascii=False, default=str))
    await service.write_text(CHECKPOINT, text)


async def load(service: Any) -> dict[str, Any]:
    """The run's last checkpoint, its reasons in words (see :func:`plain_reasons`);
    ValueError when there is none or it is unreadable."""
    try:
        state = json.loads(await service.read_text(CHECKPOINT))
    except Exception as exc:
        why = "it is not readable JSON" if isinstance(exc, ValueError) else plain_reason(exc)
        raise ValueError(f"this run has no usable checkpoint ({why})") from None
    if state.get("version") != VERSION:
        raise ValueError(f"the checkpoint has version {state.get('version')}, not {VERSION}")
    return plain_reasons(state)


def plain_reasons(state: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint's ``state`` with the reasons of its failures told without the
    exception class names an older version led them with (``RuntimeError: …``): the
    failed requests a report's limits name, the user's files a reader failed on, and the
    tasks that failed. Changed in place, and returned.

    Args:
        state: a loaded checkpoint.
    """
    research, delegator = state.get("research"), state.get("delegator")
    if isinstance(research, dict) and isinstance(research.get("failures"), list):
        research["failures"] = [without_class_names(str(f)) for f in research["failures"]]
    if not isinstance(delegator, dict):
        return state
    files_failed = delegator.get("files_failed")
    if isinstance(files_failed, dict):
        delegator["files_failed"] = {
            path: without_class_names(str(why)) for path, why in files_failed.items()
        }
    for delegation in delegator.get("delegations") or []:
        if isinstance(delegation, dict) and delegation.get("error"):
            delegation["error"] = without_class_names(str(delegation["error"]))
    return state


def ledger_state(ledger: EvidenceLedger) -> dict[str, Any]:
    return {"items": [i.to_dict() for i in ledger.items()], "pages": ledger.pages.state()}


def restore_ledger(ledger: EvidenceLedger, state: dict[str, Any]) -> None:
    for raw in state["items"]:
        ledger.add(EvidenceItem.from_dict(raw))
    ledger.pages.restore(state["pages"])


async def note_stored(service: Any, registry: PageRegistry) -> None:
    """Note the addresses stored so far (between checkpoints)."""
    await service.write_text(STORED, json.dumps(registry.state(), ensure_ascii=False))


async def recover_stored(service: Any, registry: PageRegistry) -> int:
    """Add to ``registry`` what the run stored after its last checkpoint: the noted
    addresses and every page whose sidecar is on disk. Returns how many were added."""
    before = len(registry.state()["stored"])
    try:
        noted = json.loads(await service.read_text(STORED))
    except Exception:  # never noted, or cut short: the sidecars still tell
        noted = {}
    for key, path in (noted.get("stored") or {}).items():
        registry.record(key, path)
    registry.pages = max(registry.pages, int(noted.get("pages", 0)))
    if len(noted.get("fetched") or []) > len(registry.fetched):
        registry.fetched = list(noted["fetched"])
    try:
        entries = await service.walk_files("/workspace/pages/")
    except Exception:
        entries = []
    for entry in entries:
        if not entry.path.endswith(".json"):
            continue
        try:
            record = PageRecord.from_json(await service.read_text(entry.path))
        except (ValueError, TypeError, KeyError, OSError):
            continue
        if record.markdown_path and await service.exists(record.markdown_path):
            registry.record(record.url, record.markdown_path, record.final_url)
    return len(registry.state()["stored"]) - before


def patch_dangling(content: list[Any], results: dict[str, str]) -> int:
    """Give every tool call without a result in a restored memory its result.

    ``content`` is an InMemoryMemory's ``[(Msg, marks), …]``; ``results`` maps a task's
    call signature to its result text. Returns how many results were added.
    """
    answered = {
        block.get("id")
        for msg, _ in content
        for block in (msg.content if isinstance(msg.content, list) else [])
        if block.get("type") == "tool_result"
    }
    added = 0
    patched: list[Any] = []
    for msg, marks in content:
        patched.append((msg, marks))
        if msg.role != "assistant" or not isinstance(msg.content, list):
            continue
        for block in msg.content:
            if block.get("type") != "tool_use" or block.get("id") in answered:
                continue
            args = block.get("input") or {}
            text = results.get(call_signature(args.get("subagent_type"), args.get("context")))
            result = Msg(
                "system",
                [
                    ToolResultBlock(
                        type="tool_result",
                        id=block["id"],
                        name=block.get("name", ""),
                        output=[TextBlock(type="text", text=text or CANCELLED)],
                    )
                ],
                "system",
            )
            patched.append((result, []))
            added += 1
    content[:] = patched
    return added
