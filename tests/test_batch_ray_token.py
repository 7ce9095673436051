"""``quartet batch --engine ray --address`` against a cluster started on its own, the way a
user starts one, with Ray's token authentication on: ``ray start --head --block`` with
``RAY_AUTH_MODE=token`` and a token in ``RAY_AUTH_TOKEN``, on 127.0.0.1 only.

With the token in its environment the batch runs; the token is written nowhere (summaries,
run folders, logs, output). Without it, or with a wrong one, the batch stops at once with
one line naming the variable to set, exit 2, before it writes anything. One cluster serves
the whole module and leaves no process behind.
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import ray  # noqa: F401  (puts the psutil that ships with Ray on the path)
from batch_support import (
    QUESTIONS,
    batch_cmd,
    check_summaries,
    env,
    run_batch,
    run_folders,
    write_questions,
)
from cli_support import ROOT, quartet
from ports import free_port

import psutil  # isort: skip

#: Ray's own variables for token authentication.
AUTH = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
LOOPBACK = {"127.0.0.1", "::ffff:127.0.0.1", "::1"}


def _session(sid: int) -> list[psutil.Process]:
    """The live processes of session ``sid``: the cluster and everything it started."""
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == sid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


class Cluster:
    """``ray start --head --block`` in a session of its own; its address and token."""

    def __init__(self, folder: Path) -> None:
        self.token = secrets.token_hex(32)
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []
        # no token in the test's own environment: the cluster gets it, batches get it only
        # when a test gives it
        base = {k: v for k, v in env().items() if k not in AUTH}
        cluster_env = base | {
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": self.token,
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # every service on 127.0.0.1
        }
        ports = {  # not Ray's fixed defaults: other clusters may run on this machine
            "--ray-client-server-port": free_port(),
            "--dashboard-port": free_port(),
            "--dashboard-agent-listen-port": free_port(),
        }
        cmd = [
            str(Path(sys.executable).with_name("ray")),
            "start",
            "--head",
            "--block",
            f"--port={self.port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={folder}",
            *(f"{flag}={port}" for flag, port in ports.items()),
        ]
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=cluster_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_started(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail("the cluster did not start:\n" + "".join(self.output))
            if line is None:
                pytest.fail("ray start ended before the cluster started:\n" + "".join(self.output))
            if "Ray runtime started" in line:
                return

    def processes(self) -> list[psutil.Process]:
        return _session(self.proc.pid)

    def stop(self) -> list[str]:
        """SIGTERM to ``ray start`` alone (it stops what it started); what is left after
        a minute is killed and named. Signalling its whole session instead makes it wait
        half a minute for children that are already gone."""
        with contextlib.suppress(ProcessLookupError, psutil.Error):
            os.kill(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=120)
        deadline = time.monotonic() + 60
        left = self.processes()
        while left and time.monotonic() < deadline:
            psutil.wait_procs(left, timeout=5)
            left = self.processes()
        names = []
        for proc in left:
            with contextlib.suppress(ProcessLookupError, psutil.Error):
                names.append(" ".join(proc.cmdline())[:120] or proc.name())
                proc.kill()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return names


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A Ray cluster with 2 CPUs and token authentication, started by ``ray start``."""
    found = Cluster(tmp_path_factory.mktemp("ray"))
    try:
        found.wait_started()
        yield found
    finally:
        left = found.stop()
    assert not left, f"Ray processes left after the cluster stopped: {left}"


def batch_env(**auth: str) -> dict[str, str]:
    """The batch's environment with only the given Ray authentication variables."""
    return {k: v for k, v in env().items() if k not in AUTH} | auth


def files_holding(folder: Path, secret: str) -> list[Path]:
    needle = secret.encode()
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_the_cluster_listens_on_loopback_only(cluster):
    listening = set()
    for proc in cluster.processes():
        with contextlib.suppress(ProcessLookupError, psutil.Error):
            for conn in proc.net_connections(kind="inet"):
                if conn.status == psutil.CONN_LISTEN:
                    listening.add((conn.laddr.ip, conn.laddr.port))
    assert cluster.port in {port for _, port in listening}, listening
    assert {ip for ip, _ in listening} <= LOOPBACK, listening


def test_a_batch_runs_with_the_token_from_the_environment_and_writes_it_nowhere(tmp_path, cluster):
    runs = tmp_path / "runs"
    questions = tmp_path / "questions.txt"
    asked = (QUESTIONS[0], QUESTIONS[2])  # one answered, one that finds nothing
    questions.write_text("\n".join(asked) + "\n", encoding="utf-8")
    cmd = batch_cmd(questions, runs, "--engine", "ray", "--address", cluster.address, "--json")
    # the token alone: the batch turns Ray's token mode on
    code, record, err = run_batch(cmd, environ=batch_env(RAY_AUTH_TOKEN=cluster.token))
    assert code == 0, err[-3000:]
    rows = record["rows"]
    assert [r["question"] for r in rows] == list(asked)
    assert [r["exit_code"] for r in rows] == [0, 3]
    assert [r["attempts"] for r in rows] == [1, 1]
    assert run_folders(runs) == {r["run_id"] for r in rows}
    check_summaries(record)
    # the workers ran on the cluster, whose processes hold the token; none of it is
    # written: not in a summary, the batch's state, logs or notes, nor any run folder
    assert (runs / rows[0]["run_id"] / "internal/run.json").is_file()
    assert files_holding(runs, cluster.token) == []
    assert cluster.token not in str(record) and cluster.token not in err


@pytest.mark.parametrize(
    ("case", "auth", "says"),
    [
        ("no token", {}, "the cluster requires a token"),
        ("wrong token", {"RAY_AUTH_TOKEN": "0" * 64}, "the cluster refused the token"),
        (
            "wrong token, token mode",
            {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "0" * 64},
            "the cluster refused the token",
        ),
        ("token mode, no token", {"RAY_AUTH_MODE": "token"}, "no token was found"),
        (
            "token file missing",
            {"RAY_AUTH_TOKEN_PATH": "/nonexistent/ray-token"},
            "RAY_AUTH_TOKEN_PATH names a file that cannot be read",
        ),
    ],
)
def test_a_missing_or_wrong_token_stops_the_batch_at_once_naming_the_variable(
    tmp_path, cluster, case, auth, says
):
    home = tmp_path / "home"  # no ~/.ray/auth_token to fall back on
    home.mkdir()
    runs = tmp_path / "runs"
    cmd = quartet(
        "batch",
        str(write_questions(tmp_path)),
        "--runs-dir",
        str(runs),
        "--engine",
        "ray",
        "--address",
        cluster.address,
    )
    environ = batch_env(**auth) | {"HOME": str(home)}
    # a hang fails here: Ray alone would retry for a long while
    proc = subprocess.run(cmd, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=180)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert len(lines) == 1, proc.stderr[-3000:]
    line = lines[0]
    assert line.startswith(f"quartet: error: the ray engine at {cluster.address} did not start")
    assert says in line and "set RAY_AUTH_TOKEN to the cluster's token" in line, line
    assert proc.stdout == ""
    assert cluster.token not in proc.stderr and "0" * 64 not in proc.stderr
    # stopped before the batch wrote anything
    assert not runs.exists() or not list(runs.glob("batch-*"))
