"""Ctrl-C on a real ``quartet run``: once winds the run down to a report marked
"interrupted", twice stops it at once and leaves it resumable. Both exit with 130."""

from __future__ import annotations

import json
import signal

from cli_support import (
    named_reports,
    quartet,
    resume_run,
    shared_cache,
    start_until,
    world_env,
    written_report,
)

from demo.web import demo_world
from research.labels import label


def reading(line: str) -> bool:
    """A progress line saying a browser task started (pages are being read)."""
    return line.startswith("▶ Reading pages")


def test_one_ctrl_c_writes_the_report_from_what_was_found_and_leaves_a_resumable_run(
    tmp_path,
):
    runs = tmp_path / "runs"
    with demo_world(shared_cache()) as world:
        cmd = quartet(
            "run", world.question, "--input", str(world.input_dir), "--runs-dir", str(runs)
        )
        proc = start_until([*cmd, "--formats", "md"], world_env(world), reading)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)

    assert proc.returncode == 130, err[-3000:]
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert "interrupted; the report was written" in err
    assert f"continue the research with: quartet resume {run_dir.name}" in err
    record = json.loads((run_dir / "internal/run.json").read_text(encoding="utf-8"))
    assert record["status"] == "interrupted"
    assert record["outputs"] == named_reports(world.question, "md")
    # No task started after the interrupt but the report.
    later = [d for d in record["delegations"] if int(d["id"][1:]) > record["interrupted_after"]]
    assert [d["subagent"] for d in later] == ["generate"]
    report = written_report(run_dir, record["outputs"]).read_text(encoding="utf-8")
    assert label("en", "interrupted") in report
    # The checkpoint is the one written at the stop: the tasks it cut short are still to
    # do, and the report written from what was found is not taken as the answer, so a
    # resume continues the research (test_two_ctrl_c_… resumes from such a checkpoint).
    saved = json.loads((run_dir / "internal/checkpoint.json").read_text(encoding="utf-8"))
    assert saved["delegator"]["outputs"] == []
    assert saved["delegator"]["count"] <= record["interrupted_after"]


def test_two_ctrl_c_stop_at_once_and_the_run_can_be_resumed(tmp_path):
    runs = tmp_path / "runs"
    with demo_world(shared_cache()) as world:
        env = world_env(world)
        cmd = quartet(
            "run", world.question, "--input", str(world.input_dir), "--runs-dir", str(runs)
        )
        proc = start_until([*cmd, "--formats", "md"], env, reading)
        proc.send_signal(signal.SIGINT)
        # Two signals sent back to back may reach the process as one (a pending signal
        # is not queued twice), so the second is sent once the first has been seen, as a
        # person would press Ctrl-C again.
        assert proc.stderr is not None
        for line in proc.stderr:
            if line.startswith("Interrupted:"):
                break
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 130, err[-3000:]
        assert "quartet resume" in err and "Traceback" not in err
        (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
        assert json.loads((run_dir / "internal/run.json").read_text())["status"] == "stopped"
        assert not list((run_dir / "workspace/reports").glob("*.md"))

        record = resume_run(runs, run_dir.name, env, inputs=world.input_dir)
    assert record["status"] == "finished" and record["resumed"] == 1
    assert record["answered"] == len(record["plan"]["subquestions"])
    assert written_report(run_dir, record["outputs"]).exists()
