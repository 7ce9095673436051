"""Run folders as runs leave them, for the tests of ``quartet runs`` and ``show``."""

from __future__ import annotations

import json
from pathlib import Path


def plan_of(question: str, evidence: list[int]) -> dict:
    """A plan.json whose n-th sub-question has ``evidence[n]`` evidence items."""
    return {
        "question": question,
        "language": "en",
        "planner": "offline",
        "subquestions": [
            {
                "id": f"q{n + 1}",
                "text": f"Part {n + 1} of {question}",
                "queries": ["q"],
                "status": "answered" if count else "not found",
                "evidence_ids": [f"ev-{n}-{i}" for i in range(count)],
            }
            for n, count in enumerate(evidence)
        ],
        "rounds": [],
    }


def make_run(
    runs_dir: Path,
    run_id: str,
    record: dict | None = None,
    checkpoint: dict | None = None,
    plan: dict | None = None,
) -> Path:
    """A run folder as a run leaves it: internal/ (with what is given) and workspace/."""
    path = runs_dir / run_id
    (path / "internal").mkdir(parents=True)
    (path / "workspace" / "reports").mkdir(parents=True)
    for name, data in (("run.json", record), ("checkpoint.json", checkpoint), ("plan.json", plan)):
        if data is not None:
            (path / "internal" / name).write_text(json.dumps(data), encoding="utf-8")
    return path
