"""Schedules a batch's questions on an engine: a bounded number at once, each retried a
bounded number of times when its attempt fails, is killed or times out.

A retried question resumes from its run's checkpoint (see :mod:`quartet.batch.worker`).
The state file is written after every change, so a batch stopped at any moment, and run
again, skips what finished.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .engines import AttemptFailed, Engine
from .state import DONE, FAILED, PENDING, RUNNING, BatchState, Job
from .worker import read_note

Event = Callable[[str, dict[str, Any]], None]


async def run_batch(
    state: BatchState,
    engine: Engine,
    *,
    concurrency: int,
    retries: int,
    timeout: float,
    demo_world: dict[str, Any] | None = None,
    on_event: Event | None = None,
) -> None:
    """Run every question of ``state`` that has not finished.

    Args:
        state: the batch; saved after every change.
        engine: where attempts run (already started).
        concurrency: questions running at once.
        retries: further attempts a question gets, in this run of the batch, after its
            first one fails, is killed or times out.
        timeout: seconds an attempt may take before its worker is killed.
        demo_world: where the demo world serves, when the batch researches it.
        on_event: ``(kind, data)`` progress callback: ``start``, ``retry``, ``done``,
            ``failed``.
    """
    emit = on_event or (lambda kind, data: None)
    slots = asyncio.Semaphore(max(1, concurrency))
    for job in state.jobs:
        if job.status == RUNNING:  # the last run of the batch stopped while it ran
            job.status = PENDING
    state.save()

    async def one(job: Job) -> None:
        async with slots:
            for tries in range(1, retries + 2):
                if await _attempt(state, engine, job, tries, retries, timeout, demo_world, emit):
                    return

    await asyncio.gather(*(one(job) for job in state.jobs if job.status != DONE))


async def _attempt(
    state: BatchState,
    engine: Engine,
    job: Job,
    tries: int,
    retries: int,
    timeout: float,
    demo_world: dict[str, Any] | None,
    emit: Event,
) -> bool:
    """One attempt at ``job`` (its ``tries``-th); whether it ended the job with a result.

    A failed attempt leaves the job running when it may be retried, failed when not; an
    attempt stopped by anything else (a Ctrl-C) leaves it pending and is raised again.
    """
    job.status, job.attempts = RUNNING, job.attempts + 1
    state.save()
    emit("start", {"job": job, "try": tries, "tries": retries + 1})
    started = time.perf_counter()
    try:
        result = await engine.attempt(state.payload(job, demo_world), timeout)
    except AttemptFailed as exc:
        job.seconds += time.perf_counter() - started
        job.error = str(exc)
        job.run_id = _noted_run(state, job) or job.run_id
        last = tries > retries
        job.status = FAILED if last else RUNNING
        state.save()
        emit("failed" if last else "retry", {"job": job, "error": exc})
        return False
    except BaseException:
        job.status = PENDING
        job.seconds += time.perf_counter() - started
        state.save()
        raise
    job.seconds += time.perf_counter() - started
    job.status, job.result, job.error = DONE, result, None
    job.run_id = result.get("run_id")
    state.save()
    emit("done", {"job": job})
    return True


def _noted_run(state: BatchState, job: Job) -> str | None:
    return read_note(state.marker(job)).get("run")
