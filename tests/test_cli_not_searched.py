"""A part the research never reached is "not searched" on the command line: the live view
at 80 columns, the closing table and ``quartet show`` of a demo run stopped as its
first part's first task starts say so, never "pending" or "not found", and ``run.json`` records
the part as not researched."""

from __future__ import annotations

import re
from typing import Any

import pytest
from test_cli_live import demo_watched

import host.orchestration.hub as hub

#: Two parts; the demo's files say nothing of the second, which is never searched.
PLAN = "subquestions:\n  - How was the Grand Canal built?\n  - What do penguins eat?\n"


class StoppedHost(hub.Host):
    """A Host the user stops (a first Ctrl-C) once the first task on a part has started."""

    def _emit(self, kind: str, **data: Any) -> None:
        super()._emit(kind, **data)
        part = getattr(data.get("delegation"), "subquestion", None)
        if kind == "delegation_start" and part and not self.interrupt.requested:
            self.interrupt.request()


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``quartet demo`` stopped as its first part's task starts, one task at a time, on an
    80-column terminal: what it showed, its closing table, its record and ``show``."""
    from cli_support import demo_runs_dir

    runs = demo_runs_dir(tmp_path_factory.mktemp("stopped") / "runs")
    plan = runs.parent / "plan.yaml"
    plan.write_text(PLAN, encoding="utf-8")
    args = ["--formats", "md", "--concurrency", "1", "--plan", str(plan)]
    return demo_watched(StoppedHost, args, runs)


def _never_searched(record: dict[str, Any]) -> set[str]:
    return {s["id"] for s in record["plan"]["subquestions"] if s["status"] == "not researched"}


def test_the_stopped_run_left_parts_unsearched(stopped: dict[str, Any]):
    """What the other tests rely on: the run was stopped with parts never searched."""
    record = stopped["record"]
    assert record["status"] == "interrupted" and record["outputs"]
    never = _never_searched(record)
    assert never and len(never) < len(record["plan"]["subquestions"]), record["plan"]


def test_the_live_view_says_not_searched(stopped: dict[str, Any]):
    never = _never_searched(stopped["record"])
    last = stopped["frames"][-1]
    by_id = {label.split()[0]: status for label, (status, _, _) in last.rows.items()}
    for part in stopped["record"]["plan"]["subquestions"]:
        if part["id"] in never:
            assert by_id[part["id"]] == "∅ not searched", by_id
        else:
            assert by_id[part["id"]].split(" ", 1)[1] == part["status"], by_id
    assert "pending" not in by_id.values()


def test_the_closing_table_and_show_say_not_searched(stopped: dict[str, Any]):
    never = _never_searched(stopped["record"])
    closing, show = stopped["closing"], stopped["show"]
    for part in never:
        assert re.search(rf"∅ {part} not searched: ", closing), closing
        assert re.search(rf"  {part}  not searched ", show), show
        assert not re.search(rf"{part} not found", closing)
    assert f"{len(never)} not searched" in closing and f"{len(never)} not searched" in show
    assert "not researched" not in closing + show + stopped["printed"]
