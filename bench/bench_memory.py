"""Memory across runs: the demo question twice, the second run reading what the first kept.

Serves the demo web once on 127.0.0.1 (so that both runs ask for the same addresses) and
researches the demo question twice against it with a fresh runs folder, each run in a
child process of its own as a user runs it, with experience on. Prints:

- the page fetches each run made over the network (the GETs the demo site answered,
  pages and downloads) and how many of the second run's pages and downloads came from the
  page cache (goal: 0 fetches within the freshness window);
- each run's wall time and the ratio second/first (goal: at most 0.5), for the whole
  process and for the run itself (``seconds`` in ``run.json``);
- the experience entries the first run wrote to the store, those the second run read
  there, and those it recorded again.

    .venv/bin/python bench/bench_memory.py [--formats md,html,pdf,pptx] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The store's database file in a runs folder (see host.config.STORE_NAME).
STORE = Path(".store") / "quartet.sqlite"


@dataclass
class RunFigures:
    """What one run showed."""

    wall: float
    seconds: float
    fetches: list[str]
    sources: list[dict[str, Any]]
    exit_code: int


def _child(job_file: str) -> int:
    """In a child process: research the job's question against the served demo world and
    print the run's folder and exit status as JSON."""
    from host.batch.worker import job_settings
    from host.brains import make_brain
    from host.orchestration.hub import Host

    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    settings = job_settings(job)
    host = Host(settings, make_brain(settings.model, access=settings.models))
    result = asyncio.run(host.run(job["question"]))
    print(json.dumps({"run": str(result.run.path), "exit_code": result.exit_code}))
    return 0


def _world_of(world: Any) -> dict[str, Any]:
    """The served demo world as plain data for a child's settings."""
    return {
        "endpoints": dict(world.endpoints),
        "hosts": list(world.hosts),
        "ports": list(world.ports),
        "input_dir": str(world.input_dir),
        "glossary": [{k: list(v) for k, v in group.items()} for group in world.glossary],
    }


def one_run(job_file: Path, world: Any, workdir: Path) -> RunFigures:
    """Run the job in a child process; its figures."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUARTET_EXPERIENCE": "true"}
    env.pop("QUARTET_STORE", None)
    before = len(world.site_requests)
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", str(job_file)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"the run failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    told = json.loads(proc.stdout.strip().splitlines()[-1])
    record = json.loads((Path(told["run"]) / "internal" / "run.json").read_text("utf-8"))
    return RunFigures(
        wall=wall,
        seconds=float(record.get("seconds") or 0.0),
        fetches=list(world.site_requests[before:]),
        sources=list(record.get("web_sources") or []),
        exit_code=int(told["exit_code"]),
    )


def memories(db: Path) -> dict[str, tuple[float, str]]:
    """Every memory file in the store: path → (last read or written, text)."""
    if not db.is_file():
        return {}
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT path, accessed, content FROM files WHERE path >= '/memories/' "
            "AND path < '/memories0'"
        ).fetchall()
    return {path: (accessed, bytes(content).decode("utf-8")) for path, accessed, content in rows}


def entries(text: str) -> int:
    """The experiences an experience log holds (core and recent)."""
    from subagents.experience import parse

    log = parse(text)
    return len(log.core) + len(log.recent)


def cache_size(db: Path) -> tuple[int, int]:
    """The page cache's entries and bytes in the store."""
    if not db.is_file():
        return 0, 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        count, size = conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM files WHERE path >= '/cache/' "
            "AND path < '/cache0'"
        ).fetchone()
    return int(count), int(size)


def _ratio(second: float, first: float) -> str:
    return f"{second / first:.2f}" if first > 0 else "n/a"


def report(first: RunFigures, second: RunFigures, db: Path, marks: dict[str, Any]) -> None:
    """Print the figures of the two runs."""
    cached = [s for s in second.sources if s.get("from_cache")]
    revalidated = [s for s in cached if s.get("revalidated")]
    count, size = cache_size(db)
    print(
        f"run 1: {len(first.fetches)} fetches over the network, {len(first.sources)} pages "
        f"and downloads stored, {first.wall:.1f} s wall ({first.seconds:.1f} s in the run), "
        f"exit {first.exit_code}"
    )
    print(
        f"run 2: {len(second.fetches)} fetches over the network, {len(second.sources)} pages "
        f"and downloads stored ({len(cached)} from the page cache, {len(revalidated)} of "
        f"them revalidated), {second.wall:.1f} s wall ({second.seconds:.1f} s in the run), "
        f"exit {second.exit_code}"
    )
    for path in second.fetches:
        print(f"  run 2 fetched {path}")
    print(f"second run's page fetches over the network: {len(second.fetches)} (goal 0)")
    print(
        f"wall time ratio second/first: {_ratio(second.wall, first.wall)} (process), "
        f"{_ratio(second.seconds, first.seconds)} (run) (goal <= 0.5)"
    )
    print(f"page cache after both runs: {count} entries, {size} bytes")
    print(
        f"experience entries written by run 1: {marks['written']} "
        f"(in {marks['logs']} logs); read by run 2: {marks['read']} "
        f"(in {marks['logs_read']} logs); recorded again by run 2: {marks['again']}"
    )


def _experience(after_first: dict, after_second: dict, second_started: float) -> dict:
    """The experience figures: written by run 1, read by run 2, recorded again by run 2."""
    written = sum(entries(text) for _, text in after_first.values())
    read_logs = [p for p, (accessed, _) in after_second.items() if accessed >= second_started]
    total_second = sum(entries(text) for _, text in after_second.values())
    return {
        "written": written,
        "logs": len(after_first),
        "read": sum(entries(after_first[p][1]) for p in read_logs if p in after_first),
        "logs_read": len([p for p in read_logs if p in after_first]),
        "again": total_second - written,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formats", default="md,html,pdf,pptx", help="the reports' formats")
    parser.add_argument(
        "--keep", metavar="DIR", help="work in DIR (a new folder) and keep it, to look at the runs"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return _child(args.child)
    from demo.web import demo_world

    with contextlib.ExitStack() as stack:
        if args.keep:
            base = Path(args.keep)
            base.mkdir(parents=True)
        else:
            base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="quartet-bench-")))
        runs = base / "runs"
        db = runs / STORE
        with demo_world(base) as world:
            job = {
                "question": world.question,
                "runs_dir": str(runs),
                "formats": args.formats.split(","),
                "demo": _world_of(world),
            }
            job_file = base / "job.json"
            job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
            first = one_run(job_file, world, base)
            after_first = memories(db)
            second_started = time.time()
            second = one_run(job_file, world, base)
            after_second = memories(db)
        report(first, second, db, _experience(after_first, after_second, second_started))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
