"""Wall time and peak memory of the whole offline demo, as a user runs it.

Runs ``python -m quartet demo --quiet`` in a child process (default 3 times) and samples the
resident memory of its whole process tree (Python, the Playwright driver, Chromium, the
page workers) every 50 ms from /proc (PSS every 0.5 s). Prints the median and best wall
time, the peak tree RSS, the peak tree PSS (pages the processes share, such as the
page workers' modules, counted once), and how long the run's first page read took beside
its later ones (from the tool calls ``run.json`` records).

    .venv/bin/python bench/bench_demo.py [--runs 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: PSS is read at every this many samples (reading it walks each process's page tables).
PSS_EVERY = 10


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


def _kib(path: str, field: str) -> int:
    """The ``field`` line of a /proc file, in KiB (0 when it cannot be read)."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, IndexError, ValueError):
        pass
    return 0


def tree_memory_mib(root: int, pss: bool) -> tuple[float, float]:
    """Resident memory of ``root`` and all its descendants, in MiB: the sum of their
    RSS (pages several processes share counted in each) and, with ``pss``, of their PSS
    (a shared page divided among the processes that share it, so the sum is what the
    tree holds; slower to read, 0 without)."""
    tree, rss_kib, pss_kib, todo = _children(), 0, 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(tree.get(pid, []))
        rss_kib += _kib(f"/proc/{pid}/status", "VmRSS:")
        if pss:
            pss_kib += _kib(f"/proc/{pid}/smaps_rollup", "Pss:")
    return rss_kib / 1024, pss_kib / 1024


def one_run(runs_dir: str) -> tuple[float, float, float, int]:
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quartet", "demo", "--quiet", "--runs-dir", runs_dir],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = peak_pss = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        for tick in itertools.count():
            if done.is_set():
                break
            rss, pss = tree_memory_mib(proc.pid, pss=tick % PSS_EVERY == 0)
            peak, peak_pss = max(peak, rss), max(peak_pss, pss)
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"demo failed ({proc.returncode}):\n{err[-2000:]}")
    return wall, peak, peak_pss, len(out.split())


def page_seconds(runs_dir: str) -> tuple[float, float]:
    """The newest run's first page read (its first ``viewer_fetch``, which waits for what
    the reader needs to start) and the median of its later ones, in seconds, from the
    tool calls its ``run.json`` records."""
    folders = [p for p in Path(runs_dir).iterdir() if (p / "internal" / "run.json").is_file()]
    newest = max(folders, key=lambda p: p.name)
    record = json.loads((newest / "internal" / "run.json").read_text(encoding="utf-8"))
    reads = [c["seconds"] for c in record.get("tool_calls", []) if c["tool"] == "viewer_fetch"]
    if not reads:
        return 0.0, 0.0
    return reads[0], statistics.median(reads[1:]) if len(reads) > 1 else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    walls, peaks, shares, firsts, laters = [], [], [], [], []
    with tempfile.TemporaryDirectory(prefix="quartet-bench-") as runs_dir:
        for i in range(args.runs):
            wall, peak, pss, reports = one_run(runs_dir)
            first, later = page_seconds(runs_dir)
            walls.append(wall)
            peaks.append(peak)
            shares.append(pss)
            firsts.append(first)
            laters.append(later)
            print(
                f"run {i + 1}: {wall:.2f} s wall, peak tree RSS {peak:.0f} MiB, "
                f"PSS {pss:.0f} MiB, {reports} reports; first page read in {first:.2f} s, "
                f"later pages {later:.2f} s (median)"
            )
    print(
        f"demo wall time: median {statistics.median(walls):.2f} s, best {min(walls):.2f} s "
        f"({args.runs} runs, {os.cpu_count()} cores)"
    )
    print(
        f"demo peak memory (whole process tree RSS): max {max(peaks):.0f} MiB, "
        f"median {statistics.median(peaks):.0f} MiB"
    )
    print(
        f"demo peak memory (whole process tree PSS, shared pages counted once): "
        f"max {max(shares):.0f} MiB, median {statistics.median(shares):.0f} MiB"
    )
    print(
        f"first page read: median {statistics.median(firsts):.2f} s; later pages: median "
        f"{statistics.median(laters):.2f} s (a run reads several pages at once)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
