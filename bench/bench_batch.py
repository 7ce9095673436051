"""Batch throughput: questions per minute on the same demo questions, three ways.

1. **Sequential** (the baseline): ``python -m quartet demo --question Q`` once per question,
   one after another, as a user without ``quartet batch`` would.
2. **Local engine**: ``quartet batch --demo`` with worker processes on this machine.
3. **Ray engine**: ``quartet batch --demo --engine ray``, on a local Ray cluster started
   on demand (its start-up is counted, and also printed on its own).

Every run gets a fresh runs folder with the demo site already built, so the figures
compare research, not the site's first build.

    .venv/bin/python bench/bench_batch.py [--questions 10] [--concurrency N] [--formats md]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from demo.site import DEMO_QUESTION, DEMO_QUESTION_ZH  # noqa: E402
from demo.web import demo_world  # noqa: E402

QUESTIONS = [
    DEMO_QUESTION,
    DEMO_QUESTION_ZH,
    "How do heat pumps work?",
    "When and by whom was the Grand Canal first built?",
    "How was the Grand Canal kept supplied with water?",
    "Why did the Beijing-Hangzhou Grand Canal decline?",
    "What role does the Grand Canal play today?",
    "京杭大运河今天发挥着什么作用？",
    "How do locks on the Grand Canal work?",
    "What is the eastern route of the South-North Water Transfer Project?",
]


def fresh_runs(root: Path, name: str, cache: Path) -> Path:
    runs = root / name
    shutil.copytree(cache / ".demo-cache", runs / ".demo-cache", symlinks=True)
    return runs


def sequential(questions: list[str], runs: Path, formats: str) -> tuple[float, list[int]]:
    started, codes = time.perf_counter(), []
    for question in questions:
        proc = subprocess.run(
            [sys.executable, "-m", "quartet", "demo", "--question", question, "--quiet",
             "--formats", formats, "--runs-dir", str(runs)],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        codes.append(proc.returncode)
    return time.perf_counter() - started, codes


def batch(questions: Path, runs: Path, formats: str, *args: str) -> tuple[float, dict]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "quartet", "batch", str(questions), "--demo", "--json",
         "--formats", formats, "--runs-dir", str(runs), *args],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if not proc.stdout.strip():
        raise SystemExit(f"batch failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--concurrency", type=int, help="questions at once (default: cores)")
    parser.add_argument("--formats", default="md")
    args = parser.parse_args()
    questions = QUESTIONS[: args.questions]
    extra = ["--concurrency", str(args.concurrency)] if args.concurrency else []
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        root = Path(tmp)
        with demo_world(root):  # build the demo site once
            pass
        listing = root / "questions.txt"
        listing.write_text("\n".join(questions) + "\n", encoding="utf-8")
        n = len(questions)

        seq, seq_codes = sequential(questions, fresh_runs(root, "seq", root), args.formats)
        local_wall, local = batch(listing, fresh_runs(root, "local", root), args.formats, *extra)
        ray_wall, ray = batch(
            listing, fresh_runs(root, "ray", root), args.formats, "--engine", "ray", *extra
        )

    def codes(record: dict) -> list[int | None]:
        return [r["exit_code"] for r in record["rows"]]

    def line(name: str, wall: float, exits: list, note: str = "") -> None:
        print(f"{name:<22} {wall:7.1f} s  {60 * n / wall:6.2f} questions/min  "
              f"x{seq / wall:4.2f}  exits {exits}{note}")  # fmt: skip

    print(f"{n} demo questions, formats {args.formats}")
    line("sequential (baseline)", seq, seq_codes)
    line("local engine", local_wall, codes(local))
    start = ray["engine_start_seconds"]
    line("ray engine", ray_wall, codes(ray), f"  (cluster start {start:.1f} s)")
    after = ray_wall - start
    print(f"{'ray, after start-up':<22} {after:7.1f} s  {60 * n / after:6.2f} questions/min  "
          f"x{seq / after:4.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
