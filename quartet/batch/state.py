"""The batch's own state: ``runs/batch-<id>/batch.json``.

The id is a hash of the questions and the options that change their runs (model,
formats, inputs, demo), so running the same command again finds the same batch and skips
the questions that finished. Each question's worker notes its run id, process and host
in ``jobs/<n>.json`` as soon as its run folder exists, so a question whose worker died
is resumed from that run's checkpoint. Only the coordinator writes ``batch.json``; each
write replaces the file atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .questions import Question

STATE = "batch.json"

#: A question's states: waiting to run, running, ended with a run record, or given up.
PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"


@dataclass
class Job:
    """One question of the batch and how far it got.

    Attributes:
        index: its row number in the batch, from 1.
        attempts: how many times a worker started it, over every run of the batch.
        seconds: wall time spent on it, over every attempt.
        result: what its worker returned (see :func:`quartet.batch.worker.outcome`).
        error: why the last attempt failed, when it did.
    """

    index: int
    question: str
    input_dir: str | None
    formats: list[str]
    status: str = PENDING
    attempts: int = 0
    seconds: float = 0.0
    run_id: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class BatchState:
    """The batch: where it lives, what it asks, and each question's state."""

    id: str
    folder: Path
    source: str
    model: str
    runs_dir: str
    demo: bool
    jobs: list[Job]
    options: dict[str, Any] = field(default_factory=dict)
    demo_ports: list[int] | None = None
    created: float = field(default_factory=time.time)

    @classmethod
    def prepare(
        cls,
        runs_dir: Path,
        source: Path,
        questions: list[Question],
        *,
        model: str,
        formats: tuple[str, ...],
        input_dir: str | None,
        demo: bool,
        options: dict[str, Any] | None = None,
    ) -> BatchState:
        """The batch for these questions: the saved one when it exists, else a new one."""
        jobs = [
            Job(
                index=i,
                question=q.question,
                input_dir=q.input_dir or input_dir,
                formats=list(q.formats or formats),
            )
            for i, q in enumerate(questions, start=1)
        ]
        asked = {
            "model": model,
            "demo": demo,
            "questions": [[j.question, j.input_dir, j.formats] for j in jobs],
        }
        digest = hashlib.sha256(json.dumps(asked, ensure_ascii=False).encode()).hexdigest()
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", source.stem).strip("-")[:40] or "questions"
        batch_id = f"{slug}-{digest[:8]}"
        folder = (runs_dir / f"batch-{batch_id}").resolve()
        saved = folder / STATE
        if saved.is_file():
            state = cls.load(saved)
            state.options = dict(options or {})
            return state
        return cls(
            id=batch_id,
            folder=folder,
            source=str(source.resolve()),
            model=model,
            runs_dir=str(runs_dir.resolve()),
            demo=demo,
            jobs=jobs,
            options=dict(options or {}),
        )

    @classmethod
    def load(cls, path: Path) -> BatchState:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["folder"] = path.parent
        data["jobs"] = [Job(**j) for j in data["jobs"]]
        return cls(**data)

    def save(self) -> None:
        """Write ``batch.json`` (a temporary file renamed into place)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        data = asdict(self)
        data.pop("folder")
        tmp = self.folder / f".{STATE}.{os.getpid()}"
        text = json.dumps(data, ensure_ascii=False, indent=1, default=str)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, self.folder / STATE)

    def marker(self, job: Job) -> Path:
        """Where the worker of ``job`` notes its run id, process and host."""
        return self.folder / "jobs" / f"{job.index:04d}.json"

    def payload(self, job: Job, demo_world: dict[str, Any] | None) -> dict[str, Any]:
        """What a worker needs to run ``job``: plain data, no secrets (keys stay in the
        worker's environment)."""
        return {
            "index": job.index,
            "question": job.question,
            "input_dir": job.input_dir,
            "formats": job.formats,
            "model": self.model,
            "runs_dir": self.runs_dir,
            "marker": str(self.marker(job)),
            "demo": demo_world,
            "max_pages": self.options.get("max_pages"),
            "max_rounds": self.options.get("max_rounds"),
        }

    def counts(self) -> dict[str, int]:
        found = {PENDING: 0, RUNNING: 0, DONE: 0, FAILED: 0}
        for job in self.jobs:
            found[job.status] = found.get(job.status, 0) + 1
        return found
