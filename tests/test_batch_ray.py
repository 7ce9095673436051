"""``quartet batch --engine ray`` on a real Ray cluster (two CPUs, on 127.0.0.1) started by
this module: a batch of demo questions where one question's worker process is killed
mid-question. The question is run again as a new task, resumes from its run's checkpoint
in the same run folder, and nothing that finished is run twice, even when the whole batch
is run again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from batch_support import (
    QUESTIONS,
    batch_cmd,
    check_summaries,
    env,
    run_batch,
    run_folders,
    write_questions,
)
from cli_support import ROOT


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster with 2 CPUs whose services listen on 127.0.0.1; its address."""
    patch = pytest.MonkeyPatch()
    patch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only
    patch.setenv("PYTHONPATH", str(ROOT))  # the workers run this checkout
    import ray  # after the setting above: Ray reads it when it is imported

    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        address = context.address_info["gcs_address"]
        assert address.startswith("127.0.0.1:")
        yield address
    finally:
        ray.shutdown()
        patch.undo()


def wait_for(condition, timeout: float, proc: subprocess.Popen) -> object:
    """Poll ``condition`` until it returns something true; fail if ``proc`` ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"the batch ended (exit {proc.returncode}) before the awaited state")
        time.sleep(0.05)
    pytest.fail("the awaited state never came")


def researching(marker: Path, runs: Path) -> dict | None:
    """The worker's note, once its run has checkpointed research and not finished."""
    try:
        note = json.loads(marker.read_text(encoding="utf-8"))
        saved = json.loads((runs / note["run"] / "internal/checkpoint.json").read_text("utf-8"))
    except (OSError, ValueError, KeyError):
        return None
    done = (runs / note["run"] / "internal/run.json").exists()
    return note if saved.get("phase") == "research" and not done else None


def test_a_killed_worker_is_rescheduled_and_resumes_and_nothing_runs_twice(tmp_path, cluster):
    runs = tmp_path / "runs"
    cmd = batch_cmd(
        write_questions(tmp_path), runs, "--engine", "ray", "--address", cluster, "--json"
    )
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        batch = wait_for(lambda: next(runs.glob("batch-*/jobs"), None), 300, proc).parent
        note = wait_for(lambda: researching(batch / "jobs/0001.json", runs), 300, proc)
        os.kill(note["pid"], signal.SIGKILL)  # the Ray worker process running question 1
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    record = json.loads(out)
    rows = record["rows"]
    assert [r["exit_code"] for r in rows] == [0, 0, 3]
    assert [r["question"] for r in rows] == list(QUESTIONS)
    # question 1: a second task resumed the same run, in another worker process
    assert rows[0]["attempts"] == 2 and rows[0]["run_id"] == note["run"]
    assert [r["attempts"] for r in rows[1:]] == [1, 1]
    state = json.loads((batch / "batch.json").read_text(encoding="utf-8"))
    first = state["jobs"][0]
    assert first["result"]["resumed"] is True
    after = json.loads((batch / "jobs/0001.json").read_text(encoding="utf-8"))
    assert after["run"] == note["run"] and after["pid"] != note["pid"]
    run_json = json.loads((runs / note["run"] / "internal/run.json").read_text("utf-8"))
    assert run_json["resumed"] == 1 and run_json["exit_code"] == 0
    assert run_folders(runs) == {r["run_id"] for r in rows}
    check_summaries(record)

    # the whole batch again: every question had finished, none runs
    code, again, err = run_batch(cmd)
    assert code == 0, err[-2000:]
    assert again["rows"] == rows
    assert run_folders(runs) == {r["run_id"] for r in rows}
