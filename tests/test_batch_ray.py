"""``quartet batch --engine ray`` on a real Ray cluster (two CPUs, on 127.0.0.1) started by
this module: a batch of demo questions where one question's worker process is killed
mid-question. The question is run again as a new task, resumes from its run's checkpoint
in the same run folder, and nothing that finished is run twice, even when the whole batch
is run again."""

from __future__ import annotations

import pytest
from batch_support import (
    QUESTIONS,
    batch_cmd,
    check_resumed_after_kill,
    check_summaries,
    run_batch,
    run_folders,
    run_killing_first_worker,
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


def test_a_killed_worker_is_rescheduled_and_resumes_and_nothing_runs_twice(tmp_path, cluster):
    runs = tmp_path / "runs"
    cmd = batch_cmd(
        write_questions(tmp_path), runs, "--engine", "ray", "--address", cluster, "--json"
    )
    code, record, err, note, batch = run_killing_first_worker(cmd, runs)
    assert code == 0, err[-3000:]
    rows = record["rows"]
    assert [r["exit_code"] for r in rows] == [0, 0, 3]
    assert [r["question"] for r in rows] == list(QUESTIONS)
    check_resumed_after_kill(record, note, batch, runs)
    check_summaries(record)

    # the whole batch again: every question had finished, none runs
    code, again, err = run_batch(cmd)
    assert code == 0, err[-2000:]
    assert again["rows"] == rows
    assert run_folders(runs) == {r["run_id"] for r in rows}
