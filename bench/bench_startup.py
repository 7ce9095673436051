"""Start-up time of the command line and of a served subagent, in real subprocesses.

Usage: .venv/bin/python bench/bench_startup.py [--runs 7]

Prints the median wall time of each command over ``--runs`` runs, and its ratio to a bare
``python -c pass``:

- ``quartet --help``, ``quartet --version`` and ``quartet runs`` on an empty folder (the
  ``quartet`` script next to this Python, else ``python -m quartet``);
- ``quartet run QUESTION``, ``quartet demo`` and ``quartet serve``: from start to their
  first line (the question they research; where the server serves), where they are
  stopped;
- ``python -m quartet mcp search``: from start to the answer to an MCP ``initialize``
  request sent over stdin (JSON-RPC, one message a line), and on to the answer to the
  following ``tools/list`` (where the toolkit is built);
- for reference, ``python -c "import mcp.server.lowlevel, mcp.server.stdio"``: the floor
  of any server built on the mcp library.

This checkout is put first on ``PYTHONPATH``, so its code is measured whatever is
installed. Targets: ``--help`` within 1 s, a first line within 0.3 s, ``initialize`` within
2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from ports import free_port  # noqa: E402

PATHS = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(PATHS)}
SCRIPT = Path(sys.executable).parent / "quartet"
QUARTET = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "quartet"]
PROTOCOL = "2025-06-18"


def timed(argv: list[str]) -> float:
    """Seconds ``argv`` takes to run to its end (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(argv, env=ENV, cwd=ROOT, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - start


def first_line(argv: list[str]) -> float:
    """Seconds until ``argv`` writes its first line to standard error (it is then
    stopped): what a user waits before the command says anything."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=ENV, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        seconds = time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait(timeout=60)
    if not line:
        raise RuntimeError(f"{' '.join(argv[-3:])} wrote nothing to standard error")
    return seconds


def _send(proc: subprocess.Popen, message: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen, request_id: int) -> dict:
    """The next response to request ``request_id`` on the server's stdout."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            errors = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"the server closed its output: {errors[-2000:]}")
        message = json.loads(line)
        if message.get("id") == request_id:
            if "error" in message:
                raise RuntimeError(f"the server answered with an error: {message['error']}")
            return message


def mcp_times(subagent: str, workspace: str) -> tuple[float, float]:
    """Seconds from start to the ``initialize`` answer, and to the ``tools/list`` answer."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quartet", "mcp", subagent, "--workspace", workspace],
        env=ENV,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": "bench", "version": "0"},
                },
            },
        )
        _answer(proc, 1)
        initialized = time.perf_counter() - start
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = _answer(proc, 2)["result"]["tools"]
        assert tools, "the server lists no tools"
        listed = time.perf_counter() - start
    finally:
        if proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return initialized, listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (default 7)")
    parser.add_argument("--subagent", default="search", help="subagent to serve (default search)")
    args = parser.parse_args()
    mcp = f"mcp {args.subagent}"

    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp, "runs")
        empty.mkdir()
        stopped = Path(tmp, "stopped")  # the runs stopped after their first line
        workspace = str(Path(tmp, "workspace"))
        floor = [sys.executable, "-c", "import mcp.server.lowlevel, mcp.server.stdio"]
        measures: dict[str, Callable[[], dict[str, float]]] = {
            "pass": lambda: {"python -c pass": timed([sys.executable, "-c", "pass"])},
            "help": lambda: {"quartet --help": timed([*QUARTET, "--help"])},
            "version": lambda: {"quartet --version": timed([*QUARTET, "--version"])},
            "runs": lambda: {
                "quartet runs (empty folder)": timed([*QUARTET, "runs", "--runs-dir", str(empty)])
            },
            "first": lambda: {
                "quartet run: first line": first_line(
                    [*QUARTET, "run", "How do locks work?", "--runs-dir", str(stopped)]
                ),
                "quartet demo: first line": first_line(
                    [*QUARTET, "demo", "--runs-dir", str(stopped)]
                ),
                "quartet serve: first line": first_line(
                    [*QUARTET, "serve", "--port", str(free_port()), "--runs-dir", str(stopped)]
                ),
            },
            "floor": lambda: {"import of the mcp library": timed(floor)},
            "mcp": lambda: dict(
                zip(
                    (f"{mcp}: initialize answered", f"{mcp}: tools/list answered"),
                    mcp_times(args.subagent, workspace),
                    strict=True,
                )
            ),
        }
        timed([*QUARTET, "--help"])  # warm the file cache once before measuring
        load = os.getloadavg()[0]
        samples: dict[str, list[float]] = {}
        failed: dict[str, str] = {}
        # Round-robin, so that a change in the machine's load weighs on every figure alike.
        for _ in range(args.runs):
            for key, measure in measures.items():
                if key in failed:
                    continue
                try:
                    results = measure()
                except (subprocess.CalledProcessError, RuntimeError) as exc:
                    failed[key] = str(exc).splitlines()[0][:120]  # e.g. an older checkout
                    continue
                for name, seconds in results.items():
                    samples.setdefault(name, []).append(seconds)

    figures = {name: statistics.median(values) for name, values in samples.items()}
    base = figures["python -c pass"]
    print(
        f"quartet = {' '.join(QUARTET)}; median of {args.runs} runs; {os.cpu_count()} CPUs; "
        f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    width = max(map(len, figures))
    for name, seconds in figures.items():
        print(f"{name.ljust(width)}  {seconds:7.3f} s  {seconds / base:6.1f}× baseline")
    for key, reason in failed.items():
        print(f"{key}: not measured: {reason}")


if __name__ == "__main__":
    main()
