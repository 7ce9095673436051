"""The research budgets take effect in a whole demo run through the command line: a
round budget and a concurrency other than their defaults (3 and 3).

The demo's offline Host sends the searches of every sub-question at once and keeps
researching a sub-question that is not answered: with the defaults, four tasks are
handed out together, three run at once, and one sub-question takes a third round.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import named_reports, shared_cache

from host.config import Settings
from quartet.cli import main

ROUNDS = 2
CONCURRENCY = 2


@pytest.fixture(scope="module")
def budget_run() -> Path:
    """One demo run with :data:`ROUNDS` rounds per sub-question and :data:`CONCURRENCY`
    tasks at once; its folder."""
    runs = shared_cache()
    before = set(runs.iterdir())
    code = main(
        [
            *("demo", "--formats", "md", "--max-rounds", str(ROUNDS)),
            *("--concurrency", str(CONCURRENCY), "--runs-dir", str(runs), "--quiet"),
        ]
    )
    assert code == 0
    (folder,) = [p for p in set(runs.iterdir()) - before if (p / "internal").is_dir()]
    return folder


def _internal(folder: Path, name: str) -> Any:
    text = (folder / "internal" / name).read_text(encoding="utf-8")
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def test_the_budgets_under_test_are_not_the_defaults():
    assert Settings().max_rounds != ROUNDS
    assert Settings().concurrency != CONCURRENCY


def test_the_round_budget_caps_the_rounds_of_every_sub_question(budget_run):
    record = _internal(budget_run, "run.json")
    assert record["settings"]["max_rounds"] == ROUNDS
    steps = record["plan"]["rounds"]
    assert steps and all(step["round"] <= ROUNDS for step in steps)
    assert max(step["round"] for step in steps) == ROUNDS  # one part wanted more rounds
    assert record["outputs"] == named_reports(record["question"], "md")


def test_no_more_tasks_run_at_once_than_the_concurrency(budget_run):
    record = _internal(budget_run, "run.json")
    assert record["settings"]["concurrency"] == CONCURRENCY
    # A task's request enters the transcript as it starts and its outcome as it ends,
    # both while it holds its place among the tasks running at once.
    running, most = 0, 0
    for msg in _internal(budget_run, "transcript.jsonl"):
        if msg["name"] == "Host":
            running += 1
        elif "delegation" in (msg.get("metadata") or {}):
            running -= 1
        most = max(most, running)
    assert running == 0
    assert most == CONCURRENCY
    assert len(record["delegations"]) > CONCURRENCY
