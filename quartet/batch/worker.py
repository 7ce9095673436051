"""One question of a batch, run to its end in a worker (a local process or a Ray task).

:func:`run_job` decides from the question's note (``jobs/<n>.json``) and its run folder:

- the run already finished (its ``run.json`` exists): nothing runs again, its record is
  read back;
- the run stopped with a checkpoint (its worker died or timed out): it is resumed in the
  same folder, as ``quartet resume`` does;
- otherwise a new run starts, and its id is noted as soon as its folder exists.

``python -m quartet.batch.worker`` runs the jobs it reads on stdin, one after another (see
:func:`serve`): the local engine's worker process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from demo.settings import job_settings
from host.durability.runs import CHECKPOINT_JSON, RUN_JSON, read_run
from host.printable import plural
from subagents.failures import plain_reason


def read_note(marker: Path) -> dict[str, Any]:
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_note(marker: Path, note: dict[str, Any]) -> None:
    marker.parent.mkdir(parents=True, exist_ok=True)
    tmp = marker.with_name(f".{marker.name}.{os.getpid()}")
    tmp.write_text(json.dumps(note, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, marker)


#: What a run's tasks do, in words, in the order the stage names them.
DOING = {
    "file": "reading files",
    "search": "searching",
    "browser": "reading pages",
    "generate": "writing the report",
}


class Stage:
    """The stage a run is at, in words (``searching q1, q2; reading pages q3``), followed
    from the run's events; the batch's progress shows it beside the question."""

    def __init__(self) -> None:
        self.text = "planning"
        self.parts = 0
        self.running: dict[str, tuple[str, str | None]] = {}

    def follow(self, kind: str, data: dict[str, Any]) -> bool:
        """Take in one event of the run; whether the stage changed."""
        before = self.text
        if kind == "plan":
            self.parts = len(data["plan"].subquestions)
        elif kind == "delegation_start":
            d = data["delegation"]
            self.running[d.id] = (d.subagent, d.subquestion)
        elif kind == "delegation_end":
            self.running.pop(data["delegation"].id, None)
        else:
            return False
        self.text = self._told()
        return self.text != before

    def _told(self) -> str:
        if not self.running:
            return f"researching {plural(self.parts, 'part')}" if self.parts else "planning"
        told = []
        for subagent, words in DOING.items():
            parts = [p or "" for s, p in self.running.values() if s == subagent]
            if parts:
                named = ", ".join(dict.fromkeys(p for p in parts if p))
                told.append(f"{words} {named}".strip())
        return "; ".join(told) or "working"


def outcome(folder: Path, resumed: bool = False) -> dict[str, Any]:
    """What the batch's summary needs from a finished run folder."""
    detail = read_run(folder)
    run = detail.summary
    reports = [str(p) for p in detail.outputs]
    html = [p for p in reports if p.endswith(".html")]
    return {
        "run_id": run.id,
        "path": str(run.path),
        "status": run.status,
        "exit_code": run.exit_code,
        "answered": run.answered,
        "partly": run.counts.get("partly answered", 0),
        "counts": run.counts,
        "parts": run.parts,
        "citations": detail.citations,
        "run_seconds": run.seconds,
        "tokens_in": detail.tokens.get("input", 0),
        "tokens_out": detail.tokens.get("output", 0),
        "reports": reports,
        "report": (html or reports or [None])[0],
        "resumed": resumed,
        "host": socket.gethostname(),
    }


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Run one question of a batch to its end: new, resumed from its checkpoint, or, when
    its run already finished, only read back.

    Args:
        job: a payload from :meth:`quartet.batch.state.BatchState.payload`.

    Returns:
        The run's :func:`outcome`, plus ``reused`` (it had finished before).
    """
    marker = Path(job["marker"])
    runs_dir = Path(job["runs_dir"])
    note = read_note(marker)
    folder = runs_dir / note["run"] if note.get("run") else None
    if folder is not None and (folder / RUN_JSON).is_file():
        return {**outcome(folder), "reused": True}
    note = {**note, "pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    _write_note(marker, note)
    resume = folder is not None and (folder / CHECKPOINT_JSON).is_file()
    path = asyncio.run(_run(job, folder if resume else None, marker, note))
    return {**outcome(path, resumed=resume), "reused": False}


async def _run(
    job: dict[str, Any], folder: Path | None, marker: Path, note: dict[str, Any]
) -> Path:
    from host.brains import make_brain
    from host.durability.run_folder import RunFolder
    from host.orchestration.hub import Host

    settings = job_settings(job)
    stage = Stage()

    def on_event(kind: str, data: dict[str, Any]) -> None:
        if kind == "run_start":  # the folder exists: note it before any work is done
            note["run"] = data["run"].id
        if kind == "run_start" or stage.follow(kind, data):
            _write_note(marker, {**note, "stage": stage.text})

    host = Host(settings, make_brain(settings.model, access=settings.models), on_event=on_event)
    if folder is not None:
        result = await host.resume(RunFolder.open(folder, settings.input_dir))
    else:
        result = await host.run(job["question"])
    return result.run.path


def serve() -> int:
    """Run jobs one after another, for as long as the batch sends them.

    Each line on stdin is a job (JSON, with ``log``: the question's log file, which then
    receives this process's stderr). For each, one line on stdout: ``{"ok": outcome}``
    or ``{"error": reason}``. Anything else the run prints goes to the log.
    """
    out = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        log = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 2)  # this question's log, for this process and what it starts
        os.close(log)
        print(f"--- attempt at {time.strftime('%Y-%m-%d %H:%M:%S')}", file=sys.stderr)
        with contextlib.redirect_stdout(sys.stderr):
            try:
                reply: dict[str, Any] = {"ok": run_job(job)}
            except Exception as exc:
                traceback.print_exc()  # the class name and the traceback: this question's log
                reply = {"error": plain_reason(exc)[:300]}
        out.write(json.dumps(reply, ensure_ascii=False) + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve())
