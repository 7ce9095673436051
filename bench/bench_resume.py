"""Resume after a kill against a fresh run, on the bundled demo world.

For each repetition it runs the demo question fresh (``quartet run`` in a subprocess),
then runs it again, kills it with SIGKILL once ``--after`` pages have been read, and
continues it with ``quartet resume``. It prints the fresh run's time, the time before the
kill, the resume's time, and the ratio of the resume to a fresh run, with the pages the
site served before the kill, after the resume, and fetched twice.

    python bench/bench_resume.py [--after 3] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from demo.web import DemoWorld, demo_world  # noqa: E402


def command(world: DemoWorld, runs: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "quartet",
        "run",
        world.question,
        "--input",
        str(world.input_dir),
        "--runs-dir",
        str(runs),
        "--formats",
        "md,html",
    ]


def fresh(world: DemoWorld, runs: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [*command(world, runs), "--quiet"], env=env, cwd=ROOT, check=True, capture_output=True
    )
    return time.perf_counter() - started


def killed_then_resumed(
    world: DemoWorld, runs: Path, env: dict[str, str], after: int
) -> tuple[float, float, int, int, int]:
    """Seconds before the kill, seconds of the resume, pages served before the kill and
    after the resume, and pages served twice after the resume."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        command(world, runs),
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    read = 0
    for line in proc.stderr:
        if "browser: viewer_fetch" in line and "✓" in line:
            read += 1
            if read >= after:
                break
    proc.kill()
    proc.wait(timeout=60)
    before_kill = time.perf_counter() - started
    if read < after:
        raise SystemExit(f"the run ended after {read} pages, before the kill; lower --after")
    served_before = len(world.site_requests)
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    started = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "quartet", "resume", run_dir.name, "--runs-dir", str(runs)),
            *("--input", str(world.input_dir), "--quiet"),
        ],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    resumed = time.perf_counter() - started
    after_resume = world.site_requests[served_before:]
    twice = sum(1 for n in Counter(after_resume).values() if n > 1)
    return before_kill, resumed, served_before, len(after_resume), twice


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--after", type=int, default=3, help="pages read before the kill")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, demo_world(Path(tmp) / "cache") as world:
        env = world.run_env(os.environ)
        fresh(world, Path(tmp) / "warm", env)  # warm the caches once
        for n in range(args.repeat):
            full = fresh(world, Path(tmp) / f"fresh{n}", env)
            world.site_requests.clear()
            rows.append(
                (full, *killed_then_resumed(world, Path(tmp) / f"kill{n}", env, args.after))
            )
    print(
        f"{'fresh s':>8} {'to kill s':>9} {'resume s':>9} {'resume/fresh':>12} "
        f"{'pages before':>12} {'pages after':>11} {'twice':>5}"
    )
    for full, before, resumed, served, after, twice in rows:
        print(
            f"{full:8.1f} {before:9.1f} {resumed:9.1f} {resumed / full:12.2f} "
            f"{served:12d} {after:11d} {twice:5d}"
        )
    ratio = statistics.median(r[2] / r[0] for r in rows)
    print(
        f"median resume/fresh: {ratio:.2f} (kill after {args.after} pages, "
        f"{args.repeat} repetitions)"
    )


if __name__ == "__main__":
    main()
