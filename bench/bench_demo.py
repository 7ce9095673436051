"""Wall time and peak memory of the whole offline demo, as a user runs it.

Runs ``python -m quartet demo --quiet`` in a child process (default 3 times) and samples the
resident memory of its whole process tree (Python, the Playwright driver, Chromium) every
50 ms from /proc. Prints the median and best wall time and the peak tree RSS.

    .venv/bin/python bench/bench_demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def tree_rss_mib(root: int) -> float:
    """Resident memory of ``root`` and all its descendants, in MiB."""
    tree, total, todo = _children(), 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        try:
            with open(f"/proc/{pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def one_run(runs_dir: str) -> tuple[float, float, int]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quartet", "demo", "--quiet", "--runs-dir", runs_dir],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_mib(proc.pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"demo failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, peak, len(out.split())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    walls, peaks = [], []
    with tempfile.TemporaryDirectory(prefix="quartet-bench-") as runs_dir:
        for i in range(args.runs):
            wall, peak, reports = one_run(runs_dir)
            walls.append(wall)
            peaks.append(peak)
            print(
                f"run {i + 1}: {wall:.2f} s wall, peak tree RSS {peak:.0f} MiB, {reports} reports"
            )
    print(
        f"demo wall time: median {statistics.median(walls):.2f} s, best {min(walls):.2f} s "
        f"({args.runs} runs, {os.cpu_count()} cores)"
    )
    print(
        f"demo peak memory (whole process tree RSS): max {max(peaks):.0f} MiB, "
        f"median {statistics.median(peaks):.0f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
