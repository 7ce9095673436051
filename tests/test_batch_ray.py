"""``quartet batch --engine ray`` on a real Ray cluster (two CPUs, on 127.0.0.1) started by
this module: a batch of demo questions where one question's worker process is killed
mid-question. The question is run again as a new task, resumes from its run's checkpoint
in the same run folder, and nothing that finished is run twice, even when the whole batch
is run again."""

from __future__ import annotations

import subprocess
import sys

import pytest
from batch_support import (
    QUESTIONS,
    batch_cmd,
    check_resumed_after_kill,
    check_summaries,
    env,
    run_batch,
    run_folders,
    run_killing_first_worker,
    write_questions,
)
from cli_support import ROOT

#: Starts a local cluster, prints its address, and keeps it until stdin closes.
CLUSTER = """
import ray, sys
context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
print(context.address_info["gcs_address"], flush=True)
sys.stdin.read()
ray.shutdown()
"""


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster with 2 CPUs whose services listen on 127.0.0.1; its address.

    It is owned by a process of its own, so that nothing this test process imported
    (agentscope imports Ray) decides how it listens.
    """
    # A cluster on loopback for this test only: no token (the batch's processes connect
    # without one). Set here, so the batches started by the test get it too.
    patch = pytest.MonkeyPatch()
    patch.setenv("RAY_AUTH_MODE", "disabled")
    # loopback only; the workers run this checkout
    cluster_env = {**env(), "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    proc = subprocess.Popen(
        [sys.executable, "-c", CLUSTER],
        cwd=ROOT,
        env=cluster_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = proc.stdout.readline().strip()
        assert address.startswith("127.0.0.1:"), address
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
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
