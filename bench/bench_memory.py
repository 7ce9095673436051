"""Memory across runs: the demo question twice, the second run reading what the first kept.

Serves the demo web once on 127.0.0.1 (so that both runs ask for the same addresses) and
researches the demo question twice against it with a fresh runs folder, each run in a
child process of its own as a user runs it, with experience on. Prints:

- the page fetches each run made over the network (the GETs the demo site answered,
  pages and downloads) and how many of the second run's pages and downloads came from the
  page cache (goal: 0 fetches within the freshness window), and the requests the demo's
  search engines answered for each run (the second run's result lists come from the page
  cache too);
- each run's wall time and the ratio second/first (goal: at most 0.5), for the whole
  process and for the run itself (``seconds`` in ``run.json``);
- the experience entries the first run wrote to the store (with their titles), those the
  second run read there, and those it recorded again; and what the second run did with
  them: the pages it read in Chromium at once because their site is recorded as needing
  the browser (``browser_first`` in ``run.json``'s ``web_sources``), and the search tools
  it tried last because they are recorded as failing (``sources_moved_last``).

``--fail-source NAME`` points that search source at an address of the demo's engines
that answers 404 in the first run only, so that the first run records it as failing and
the second run tries it last (the second run may then fetch the pages it finds).

``--store postgresql://user:password@host:port/db`` keeps both runs' store on that
PostgreSQL server instead of the runs folder's SQLite file, in a project of the bench's
own (``bench-…``), removed from the server at the end.

``--batch N`` measures the page cache shared by a batch instead: ``N`` questions about
the demo web (those of ``bench_batch.py``) as one ``quartet batch``, two at a time on the
engine ``--engine`` (``ray``: a local Ray cluster, the default; ``local``: worker
processes), every run with the one store of the batch's runs folder (or ``--store``).
Prints, for each question, the pages it read and how many came from the page cache, and
for the batch the pages read, the fetches the demo site answered, and the addresses
fetched more than once (goal: none; two questions that ask for a page at the same moment
fetch it once, the second waiting for the first's copy in the store).

    .venv/bin/python bench/bench_memory.py [--formats md,html,pdf,pptx] [--keep DIR]
        [--fail-source bing] [--store URL]
    .venv/bin/python bench/bench_memory.py --batch 10 [--engine ray|local] [--store URL]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The store's database file in a runs folder (see host.config.STORE_NAME).
STORE = Path(".store") / "quartet.sqlite"


@dataclass
class BenchStore:
    """Where both runs keep their store: the runs folder's SQLite file, or the project
    ``project`` of the PostgreSQL database at ``url``."""

    file: Path
    url: str | None = None
    project: str | None = None

    def env(self) -> dict[str, str]:
        """The environment that points a run at this store."""
        if self.url is None:
            return {}
        return {"QUARTET_STORE": self.url, "QUARTET_PROJECT": self.project or "default"}

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """The rows of a read-only ``sql`` whose ``WHERE`` clause ends it, in this store."""
        if self.url is None:
            if not self.file.is_file():
                return []
            with sqlite3.connect(f"file:{self.file}?mode=ro", uri=True) as conn:
                return conn.execute(sql).fetchall()
        import psycopg

        with psycopg.connect(self.url) as conn:
            return conn.execute(sql + " AND project = %s", (self.project,)).fetchall()

    def clear(self) -> None:
        """Remove the bench's project from the server (nothing to do for a file)."""
        if self.url is not None:
            import psycopg

            with psycopg.connect(self.url) as conn:
                conn.execute("DELETE FROM files WHERE project = %s", (self.project,))


@dataclass
class RunFigures:
    """What one run showed."""

    wall: float
    seconds: float
    fetches: list[str]
    searches: int
    sources: list[dict[str, Any]]
    exit_code: int
    moved_last: dict[str, int]


def _child(job_file: str) -> NoReturn:
    """In a child process: research the job's question against the served demo world and
    print the run's folder and exit status as JSON, in a process that starts and ends as
    the ``quartet`` script's does (the agent framework loaded without Ray, the process
    left without taking every module apart)."""
    from quartet.cli.entry import leave
    from quartet.cli.running import brain_of, load_framework

    load_framework()  # before anything imports agentscope, as the command line does
    from demo.settings import job_settings
    from host.orchestration.hub import Host

    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    settings = job_settings(job)
    host = Host(settings, brain_of(settings))
    result = asyncio.run(host.run(job["question"]))
    print(json.dumps({"run": str(result.run.path), "exit_code": result.exit_code}))
    leave(0)


def _world_of(world: Any) -> dict[str, Any]:
    """The served demo world as plain data for a child's settings."""
    return {
        "endpoints": dict(world.endpoints),
        "hosts": list(world.hosts),
        "ports": list(world.ports),
        "input_dir": str(world.input_dir),
        "glossary": [{k: list(v) for k, v in group.items()} for group in world.glossary],
    }


def one_run(job_file: Path, world: Any, workdir: Path, store: BenchStore) -> RunFigures:
    """Run the job in a child process with its store at ``store``; its figures."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QUARTET_EXPERIENCE": "true"}
    env.pop("QUARTET_STORE", None)
    env.update(store.env())
    before, searched = len(world.site_requests), len(world.search_requests)
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
        searches=len(world.search_requests) - searched,
        sources=list(record.get("web_sources") or []),
        exit_code=int(told["exit_code"]),
        moved_last=dict(record.get("sources_moved_last") or {}),
    )


def memories(db: BenchStore) -> dict[str, tuple[float, str]]:
    """Every memory file in the store: path → (last read or written, text)."""
    rows = db.rows(
        "SELECT path, accessed, content FROM files WHERE path >= '/memories/' "
        "AND path < '/memories0'"
    )
    return {path: (accessed, bytes(content).decode("utf-8")) for path, accessed, content in rows}


def entries(text: str) -> int:
    """The experiences an experience log holds (core and recent)."""
    return len(titles(text))


def titles(text: str) -> list[str]:
    """The titles of an experience log's entries (core, then recent)."""
    from subagents.experience import parse

    log = parse(text)
    return [e.title for e in log.entries]


def cache_size(db: BenchStore) -> tuple[int, int]:
    """The page cache's entries and bytes in the store."""
    rows = db.rows(
        "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM files WHERE path >= '/cache/' "
        "AND path < '/cache0'"
    )
    count, size = rows[0] if rows else (0, 0)
    return int(count), int(size)


def _ratio(second: float, first: float) -> str:
    return f"{second / first:.2f}" if first > 0 else "n/a"


def report(first: RunFigures, second: RunFigures, db: BenchStore, marks: dict[str, Any]) -> None:
    """Print the figures of the two runs."""
    cached = [s for s in second.sources if s.get("from_cache")]
    revalidated = [s for s in cached if s.get("revalidated")]
    count, size = cache_size(db)
    print(
        f"run 1: {len(first.fetches)} fetches over the network, {first.searches} search "
        f"requests, {len(first.sources)} pages and downloads stored, {first.wall:.1f} s wall "
        f"({first.seconds:.1f} s in the run), exit {first.exit_code}"
    )
    print(
        f"run 2: {len(second.fetches)} fetches over the network, {second.searches} search "
        f"requests, {len(second.sources)} pages and downloads stored ({len(cached)} from the "
        f"page cache, {len(revalidated)} of them revalidated), {second.wall:.1f} s wall "
        f"({second.seconds:.1f} s in the run), exit {second.exit_code}"
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
    for path, title in marks["titles"]:
        print(f"  run 1 wrote {path.removeprefix('/memories/skills/')}: {title}")
    first_hand = [s for s in second.sources if s.get("browser_first")]
    from_cache = [s for s in first_hand if s.get("from_cache")]
    moved = ", ".join(f"{tool} in {n} tasks" for tool, n in sorted(second.moved_last.items()))
    print(
        f"experience used by run 2: {len(first_hand)} pages read in the browser at once "
        f"({len(from_cache)} of them from the page cache); search sources tried last: "
        f"{moved or 'none'}"
    )


def _experience(after_first: dict, after_second: dict, second_started: float) -> dict:
    """The experience figures: written by run 1, read by run 2, recorded again by run 2."""
    written = sum(entries(text) for _, text in after_first.values())
    read_logs = [p for p, (accessed, _) in after_second.items() if accessed >= second_started]
    total_second = sum(entries(text) for _, text in after_second.values())
    return {
        "written": written,
        "titles": [(p, t) for p, (_, text) in sorted(after_first.items()) for t in titles(text)],
        "logs": len(after_first),
        "read": sum(entries(after_first[p][1]) for p in read_logs if p in after_first),
        "logs_read": len([p for p in read_logs if p in after_first]),
        "again": total_second - written,
    }


def failing_job(job: dict[str, Any], source: str) -> dict[str, Any]:
    """``job`` with the search source ``source`` pointed at an address of the demo's
    engines that answers 404."""
    endpoints = dict(job["demo"]["endpoints"])
    if source not in endpoints:
        raise SystemExit(f"unknown search source {source!r}; one of {', '.join(endpoints)}")
    endpoints[source] = endpoints[source].rstrip("/") + "-out-of-service"
    return {**job, "demo": {**job["demo"], "endpoints": endpoints}}


async def _run_batch(state: Any, engine: Any, world: dict[str, Any]) -> None:
    """Start ``engine`` and run the batch's questions on it, two at a time."""
    from quartet.batch.coordinator import run_batch

    await engine.start()
    try:
        await run_batch(state, engine, concurrency=2, retries=0, timeout=900, demo_world=world)
    finally:
        await engine.close()


def batch_runs(base: Path, store: BenchStore, count: int, engine_name: str, formats: str) -> None:
    """Research ``count`` demo questions as one batch on ``engine_name``, sharing the store
    at ``store``, and print what each read and what the demo site was asked for."""
    from bench_batch import QUESTIONS

    from demo.web import demo_world
    from quartet.batch.engines import LocalEngine, RayEngine
    from quartet.batch.questions import Question
    from quartet.batch.state import DONE, BatchState

    if not 1 <= count <= len(QUESTIONS):
        raise SystemExit(f"--batch takes 1 to {len(QUESTIONS)} questions")
    os.environ.update({"PYTHONPATH": str(ROOT), **store.env()})
    runs = base / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    source = base / "questions.txt"
    source.write_text("\n".join(QUESTIONS[:count]) + "\n", encoding="utf-8")
    questions = [Question(q) for q in QUESTIONS[:count]]
    state = BatchState.prepare(
        runs, source, questions, model="offline", formats=tuple(formats.split(",")),
        input_dir=None, demo=True,
    )  # fmt: skip
    engine = RayEngine(None) if engine_name == "ray" else LocalEngine(state.folder / "logs")
    with demo_world(base) as world:
        started = time.perf_counter()
        asyncio.run(_run_batch(state, engine, _world_of(world)))
        wall = time.perf_counter() - started
        fetched = list(world.site_requests)
    read = cached = 0
    for job in state.jobs:
        if job.status != DONE or not job.run_id:
            print(f"question {job.index}: {job.status} {job.error or ''}".rstrip())
            continue
        record = json.loads((runs / job.run_id / "internal" / "run.json").read_text("utf-8"))
        sources = list(record.get("web_sources") or [])
        hits = sum(1 for s in sources if s.get("from_cache"))
        read, cached = read + len(sources), cached + hits
        print(
            f"question {job.index}: {len(sources)} pages and downloads read, {hits} from the "
            f"page cache, exit {record.get('exit_code')}, {job.seconds:.1f} s: {job.question[:60]}"
        )
    times = collections.Counter(fetched)
    again = sorted(p for p, n in times.items() if n > 1)
    print(
        f"batch of {len(state.jobs)} on the {engine.name} engine, two at a time, {wall:.1f} s: "
        f"{read} pages and downloads read, {cached} of them from the page cache; the demo "
        f"site answered {len(fetched)} fetches of {len(times)} addresses"
    )
    print(f"addresses fetched more than once: {len(again)} (goal 0)")
    for path in again:
        print(f"  {path}: {times[path]} times")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--formats", default="md,html,pdf,pptx", help="the reports' formats")
    parser.add_argument(
        "--keep", metavar="DIR", help="work in DIR (a new folder) and keep it, to look at the runs"
    )
    parser.add_argument(
        "--fail-source",
        metavar="NAME",
        help="make this search source (google, bing, sogou, github, wiki) fail in run 1",
    )
    parser.add_argument(
        "--store",
        metavar="URL",
        help="keep both runs' store on this PostgreSQL server (postgresql://…)",
    )
    parser.add_argument(
        "--batch", type=int, metavar="N", help="run N demo questions as one batch instead"
    )
    parser.add_argument(
        "--engine", choices=("ray", "local"), default="ray", help="the batch's engine"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
    if args.batch:
        return _batch_main(args)
    from demo.web import demo_world

    with contextlib.ExitStack() as stack:
        base, db = workplace(args, stack)
        runs = base / "runs"
        with demo_world(base) as world:
            job = {
                "question": world.question,
                "runs_dir": str(runs),
                "formats": args.formats.split(","),
                "demo": _world_of(world),
            }
            job_file = base / "job.json"
            job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
            first_job = base / "job-1.json"
            failing = failing_job(job, args.fail_source) if args.fail_source else job
            first_job.write_text(json.dumps(failing, ensure_ascii=False), encoding="utf-8")
            first = one_run(first_job, world, base, db)
            after_first = memories(db)
            second_started = time.time()
            second = one_run(job_file, world, base, db)
            after_second = memories(db)
        report(first, second, db, _experience(after_first, after_second, second_started))
    return 0


def workplace(args: argparse.Namespace, stack: contextlib.ExitStack) -> tuple[Path, BenchStore]:
    """The bench's folder (``--keep DIR``, else a temporary one removed with ``stack``) and
    the store its runs share (the folder's SQLite file, or ``--store``'s project, removed
    from the server with ``stack``)."""
    if args.keep:
        base = Path(args.keep)
        base.mkdir(parents=True)
    else:
        base = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="quartet-bench-")))
    db = BenchStore(base / "runs" / STORE, args.store, f"bench-{uuid.uuid4().hex[:12]}")
    if args.store:
        stack.callback(db.clear)
    return base, db


def _batch_main(args: argparse.Namespace) -> int:
    """``--batch N``: the batch's figures."""
    with contextlib.ExitStack() as stack:
        base, db = workplace(args, stack)
        batch_runs(base, db, args.batch, args.engine, args.formats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
