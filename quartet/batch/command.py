"""``quartet batch QUESTIONS``: read the questions, prepare or find the batch, run it on
the chosen engine with live progress, and write the summaries."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

from host.config import MAX_SECONDS, ConfigError, load_settings, make_runs_dir
from host.printable import plural, shown

from .questions import read_questions
from .state import DONE, BatchState

DEFAULT_RETRIES = 2
DEFAULT_TIMEOUT = 3600.0


def _check(args: argparse.Namespace) -> None:
    if args.engine == "ray" and importlib.util.find_spec("ray") is None:
        raise ConfigError("--engine ray needs Ray: pip install 'quartet[ray]'")
    if args.address and args.engine != "ray":
        raise ConfigError("--address is the address of a Ray cluster: use it with --engine ray")
    if args.concurrency is not None and args.concurrency <= 0:
        raise ConfigError(f"--concurrency: must be positive, got {args.concurrency}")
    if args.retries is not None and args.retries < 0:
        raise ConfigError(f"--retries: must be 0 or more, got {args.retries}")
    if args.timeout is not None and not 0 < args.timeout <= MAX_SECONDS:  # NaN too
        raise ConfigError(
            f"--timeout: must be more than 0 and at most {MAX_SECONDS:g} seconds, "
            f"got {args.timeout:g}"
        )


def _ray_engine(args: argparse.Namespace) -> Any:
    """The Ray engine, prepared before anything imports Ray; a cluster at ``--address`` is
    asked at once whether it answers and takes the token (ConfigError when not), before
    the batch writes anything."""
    from .engines import RayEngine

    engine = RayEngine(args.address)
    engine.prepare()
    try:
        engine.check()
    except ConnectionError as exc:
        raise ConfigError(_not_started(engine, args, exc)) from None
    return engine


def _not_started(engine: Any, args: argparse.Namespace, exc: BaseException) -> str:
    where = f" at {args.address}" if args.address else ""
    reason = " ".join(str(exc).split())[:300]
    return f"the {engine.name} engine{where} did not start: {reason}"


@contextlib.contextmanager
def _demo(args: argparse.Namespace, state: BatchState, runs_dir: Path):
    """The demo world for the whole batch (where the last run of the batch served it, when
    those ports are free), as plain data for the workers; None without ``--demo``."""
    if not args.demo:
        yield None
        return
    from demo.web import demo_world

    with contextlib.ExitStack() as stack:
        world = None
        if state.demo_ports:
            with contextlib.suppress(OSError):
                world = stack.enter_context(demo_world(runs_dir, ports=tuple(state.demo_ports)))
        if world is None:
            world = stack.enter_context(demo_world(runs_dir))
        state.demo_ports = list(world.ports)
        yield {
            "endpoints": dict(world.endpoints),
            "hosts": list(world.hosts),
            "ports": list(world.ports),
            "input_dir": str(world.input_dir),
            "glossary": [dict(group) for group in world.glossary],
        }


async def _go(
    args: argparse.Namespace,
    state: BatchState,
    engine: Any,
    world: Any,
    progress: Any,
    timing: dict[str, float],
) -> None:
    from .coordinator import run_batch

    progress.say(f"[dim]Starting the {engine.name} engine…[/dim]")
    started = time.perf_counter()
    try:
        await engine.start()
    except (ConnectionError, RuntimeError, TimeoutError) as exc:
        raise ConfigError(_not_started(engine, args, exc)) from None
    timing["engine_start"] = time.perf_counter() - started
    try:
        concurrency = args.concurrency or engine.slots()
        progress.say(
            f"[bold]Batch[/bold] {state.id}: {plural(len(state.jobs), 'question')}"
            f" ({state.counts()['done']} done before), {concurrency} at once on the "
            f"{engine.name} engine → {shown(state.folder)}"
        )
        await run_batch(
            state,
            engine,
            concurrency=concurrency,
            retries=DEFAULT_RETRIES if args.retries is None else args.retries,
            timeout=args.timeout or DEFAULT_TIMEOUT,
            demo_world=world,
            on_event=progress,
        )
    finally:
        await engine.close()


def run_command(args: argparse.Namespace) -> int:
    """Run the batch ``args`` describes; 0 when every question ended with a report, 1 when
    one failed or wrote none, 130 when interrupted (run it again to continue)."""
    state, runs_dir, ray_engine = _prepare(args)
    from .progress import BatchProgress
    from .summary import write_summaries

    started = time.perf_counter()
    before = state.counts()[DONE]
    interrupted = False
    timing: dict[str, float] = {}
    progress = BatchProgress(state, quiet=args.quiet or args.json)
    try:
        with progress:
            if before < len(state.jobs):  # something to run: serve the demo, start the engine
                _execute(args, state, runs_dir, ray_engine, progress, timing)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        state.save()
        paths = write_summaries(state)
    ran = state.counts()[DONE] - before
    _tell(args, state, progress, paths, ran, time.perf_counter() - started, timing)
    codes = [(j.result or {}).get("exit_code") for j in state.jobs if j.status == DONE]
    if interrupted:
        print(
            "quartet: interrupted; run the same command again to continue the batch "
            "(finished questions are skipped, stopped ones resume)",
            file=sys.stderr,
        )
        return 130
    if state.counts()[DONE] < len(state.jobs) or any(c not in (0, 3) for c in codes):
        return 1
    return 0


def _prepare(args: argparse.Namespace) -> tuple[BatchState, Path, Any]:
    """The batch's state (new, or the one of the same questions to continue), the runs
    folder, and the Ray engine when one is asked for (checked before anything runs)."""
    questions = read_questions(Path(args.questions))
    _check(args)
    ray_engine = _ray_engine(args) if args.engine == "ray" else None
    settings = load_settings(
        {
            "model": args.model,
            "formats": args.formats,
            "input": args.input,
            "runs_dir": args.runs_dir,
            "max_pages": args.max_pages,
            "max_rounds": args.max_rounds,
        }
    )
    from host.brains import parse_spec

    parse_spec(settings.model)
    runs_dir = make_runs_dir(settings.runs_dir)
    state = BatchState.prepare(
        runs_dir,
        Path(args.questions),
        questions,
        model=settings.model,
        formats=settings.formats,
        input_dir=str(settings.input_dir.resolve()) if settings.input_dir else None,
        demo=bool(args.demo),
        options={"max_pages": args.max_pages, "max_rounds": args.max_rounds},
    )
    return state, runs_dir, ray_engine


def _execute(
    args: argparse.Namespace,
    state: BatchState,
    runs_dir: Path,
    ray_engine: Any,
    progress: Any,
    timing: dict[str, float],
) -> None:
    """Serve the demo web if asked, start the engine and run the questions still to run."""
    from .engines import LocalEngine

    # Ray prints its workers' failures on stdout: keep stdout for the result
    with _demo(args, state, runs_dir) as world, contextlib.redirect_stdout(sys.stderr):
        state.save()
        engine = ray_engine or LocalEngine(state.folder / "logs")
        asyncio.run(_go(args, state, engine, world, progress, timing))


def _tell(
    args: argparse.Namespace,
    state: BatchState,
    progress: Any,
    paths: list[Path],
    ran: int,
    seconds: float,
    timing: dict[str, float],
) -> None:
    """Print the batch's outcome: its record as JSON, the summaries' paths, or a line of
    counts and the paths."""
    from .progress import per_minute

    counts = state.counts()
    rate = per_minute(ran, seconds)
    if args.json:
        from .summary import row

        record = {
            "id": state.id,
            "folder": str(state.folder),
            "engine": args.engine,
            "summaries": [str(p) for p in paths],
            "counts": counts,
            "seconds": round(seconds, 3),
            "engine_start_seconds": round(timing.get("engine_start", 0.0), 3),
            "questions_per_minute": round(rate, 3),
            "rows": [row(j) for j in state.jobs],
        }
        print(json.dumps(record, ensure_ascii=False, indent=2))
        return
    if not args.quiet:
        codes = [(j.result or {}).get("exit_code") for j in state.jobs if j.status == DONE]
        answered = sum(1 for c in codes if c == 0)
        progress.console.print(
            f"[bold]Batch {state.id}[/bold]: {counts[DONE]} of {len(state.jobs)} questions "
            f"ended ({answered} answered at least in part, {codes.count(3)} found nothing), "
            f"{counts['failed']} failed; {ran} ran in {seconds:.1f} s ({rate:.2f} per minute).",
            soft_wrap=True,
        )
    for path in paths:
        print(path)
