"""The runs the web app started: each in a worker process, a few at once, the rest queued.

A :class:`Job` keeps every event of its run in order, numbered from 1; a page watching it
asks for the events after the last one it has (``Last-Event-ID``), so a reload or a
dropped connection loses none and shows none twice. Questions the run asks (an approval,
the plan to review) wait in the job until one answer arrives: the first answer is passed
on, any later one is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from host.durability.runs import status_style, summary_of, told_status
from subagents.failures import plain_reason as failure_reason
from subagents.failures import without_class_names

from .live import TOOL_WORDS, VALUE_CHARS, readable_arguments

#: The project's root (where ``host`` and ``webapp`` are), for the workers' import path.
ROOT = Path(__file__).resolve().parent.parent
#: Seconds a stopped worker gets to write its partial report before it is killed.
STOP_GRACE = 120.0
#: Lines of a worker's standard error kept to explain a failure.
ERROR_LINES = 40


@dataclass
class Event:
    """One event of a job: its number, its kind, its data as JSON."""

    id: int
    kind: str
    data: str


def plain_reason(exc: BaseException) -> str:
    """What a failure says to the person on the page: its message (never the class name
    of the exception), or that the run failed when it has none."""
    return failure_reason(exc, "the run failed without saying why")


@dataclass
class Job:
    """One run started from the web app (a new run, a resume or a replay)."""

    id: str
    kind: str
    question: str
    job: dict[str, Any]
    state: str = "queued"
    run_id: str | None = None
    code: int | None = None
    created: float = field(default_factory=time.time)
    events: list[Event] = field(default_factory=list)
    pending: dict[int, dict[str, Any]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    proc: asyncio.subprocess.Process | None = None
    #: tools the user allowed for the rest of the run: their calls are approved unasked
    allowed: set[str] = field(default_factory=set)
    stop_asked: int = 0
    #: the worker's run has started (it takes a stop as Ctrl-C from then on)
    live: bool = False
    #: why it failed, in words (for a failed job; see :func:`plain_reason`)
    reason: str = ""
    #: once it ended, its status in its run's words and style (see :meth:`Runner.end`)
    ended_words: str = ""
    ended_style: str = ""
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def done(self) -> bool:
        return self.state in ("finished", "stopped", "failed", "cancelled")

    @property
    def waiting(self) -> bool:
        """Whether the run waits for the user: a plan to review or a call to approve."""
        return bool(self.pending) and not self.done

    @property
    def told(self) -> str:
        """The job's status in words: "waiting for you" while the run waits for the
        user; once it ended, what its run's page says (``finished: found nothing``,
        ``stopped, can be resumed``, ``failed: <why>``); else its state."""
        if self.waiting:
            return "waiting for you"
        return self.ended_words or told_status(self.state, reason=self.reason)

    @property
    def style(self) -> str:
        """The job's status as a style's name, as :attr:`told` tells it."""
        if self.waiting:
            return "waiting-for-you"
        return self.ended_style or status_style(self.state)

    def add(self, kind: str, data: dict[str, Any]) -> Event:
        """Keep one event and wake every page watching the job."""
        data = {**data, "at": time.time()}  # when it happened, for the page and the bench
        event = Event(len(self.events) + 1, kind, json.dumps(data, ensure_ascii=False))
        self.events.append(event)
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        return event

    def set_state(self, state: str, words: str = "", style: str = "", **extra: Any) -> None:
        """Move the job to ``state`` and tell every page watching it.

        Args:
            state: the job's new state.
            words: once it ended, its status as its run's page tells it (see
                :meth:`Runner.end`); its own words when empty.
            style: the style's name of ``words``.
            **extra: more for the event (a failed job's ``reason``).
        """
        self.state = state
        if state == "failed":
            self.reason = str(extra.get("reason") or "") or "the run failed without saying why"
        self.ended_words, self.ended_style = words, style
        told = {"told": self.told, "style": self.style}
        self.add(
            "state", {"state": state, "run_id": self.run_id, "code": self.code, **told, **extra}
        )

    async def follow(self, after: int) -> AsyncIterator[Event]:
        """The job's events after number ``after``, as they come, until the job ends."""
        while True:
            changed = self._changed
            while after < len(self.events):
                after += 1
                yield self.events[after - 1]
            if self.done:
                return
            await changed.wait()

    def answer(self, ask: int, answer: dict[str, Any]) -> bool:
        """Pass the user's answer to question ``ask`` to the run; False when it was
        answered already (another tab was first) or is no longer asked."""
        question = self.pending.pop(ask, None)
        if question is None or self.proc is None or self.proc.stdin is None:
            return False
        self.proc.stdin.write((json.dumps({**answer, "ask": ask}) + "\n").encode())
        told = {"ask": ask, "action": answer.get("action", "plan")}
        if answer.get("always"):
            told |= {"always": True, "tool": question.get("tool"), "words": question.get("words")}
        self.add("answered", told)
        return True

    def allow(self, ask: int) -> bool:
        """Approve call ``ask`` and every call of its tool after it in this run: those
        waiting now are answered too, and later ones are approved without asking (see
        :meth:`Runner.take_approval`). False when ``ask`` is not a waiting approval."""
        question = self.pending.get(ask)
        if question is None or question.get("type") != "approval":
            return False
        tool = str(question.get("tool"))
        self.allowed.add(tool)
        waiting = [a for a, q in self.pending.items() if a != ask and q.get("tool") == tool]
        answered = self.answer(ask, allowed_answer(question))
        for other in waiting:
            self.answer(other, allowed_answer(self.pending[other]))
        return answered


def allowed_answer(question: dict[str, Any]) -> dict[str, Any]:
    """The answer to an approval of a tool the user allowed for the rest of the run."""
    words = question.get("words") or question.get("tool")
    reason = f"the user allowed {words} for the rest of this run"
    return {"action": "approve", "always": True, "reason": reason}


#: Runs that may wait for a free slot; one more is refused (see :class:`QueueFull`).
MAX_QUEUED = 50
#: Ended jobs kept in memory for their pages; older ones are forgotten (their runs stay
#: in the runs folder, listed under Runs).
MAX_ENDED = 200


class QueueFull(RuntimeError):
    """Too many runs wait already: the new one is refused, not queued."""


class Runner:
    """Starts jobs in worker processes, at most ``limit`` at once.

    Args:
        runs_dir: where run folders are.
        limit: runs working at once; later ones wait, shown as queued.
        demo: the demo world's data for the workers, or a callable that starts it on
            first use and returns it.
    """

    def __init__(self, runs_dir: Path, limit: int = 2, demo: Any = None) -> None:
        self.runs_dir = Path(runs_dir)
        self.limit = max(1, limit)
        self.demo = demo
        self.jobs: dict[str, Job] = {}
        self.queue: list[Job] = []
        self.running: set[str] = set()
        self.tasks: set[asyncio.Task[None]] = set()

    @property
    def uploads(self) -> Path:
        """Where uploaded input folders are made, one per run."""
        return self.runs_dir / ".uploads"

    def new_id(self) -> str:
        while True:
            job_id = secrets.token_hex(4)
            if job_id not in self.jobs:
                return job_id

    def submit(self, kind: str, question: str, job: dict[str, Any], job_id: str = "") -> Job:
        """Queue a job; it starts as soon as a slot is free. QueueFull when
        :data:`MAX_QUEUED` jobs wait already."""
        if self.full:
            raise QueueFull(f"{len(self.queue)} runs are waiting already; try again later.")
        self._forget_ended()
        entry = Job(job_id or self.new_id(), kind, question, job)
        self.jobs[entry.id] = entry
        entry.set_state("queued")
        self.queue.append(entry)
        self._pump()
        return entry

    def _pump(self) -> None:
        while self.queue and len(self.running) < self.limit:
            job = self.queue.pop(0)
            self.running.add(job.id)
            task = asyncio.create_task(self._run(job))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    @property
    def full(self) -> bool:
        """Whether :data:`MAX_QUEUED` jobs wait already (a new one would be refused)."""
        return len(self.queue) >= MAX_QUEUED

    def _forget_ended(self) -> None:
        """Keep the :data:`MAX_ENDED` latest ended jobs, forgetting the older ones."""
        ended = [j for j in self.jobs.values() if j.done]
        for job in ended[: max(0, len(ended) - MAX_ENDED)]:
            del self.jobs[job.id]

    def positions(self) -> dict[str, int]:
        """Each queued job's place in the queue (1 is next), by job id."""
        return {job.id: i for i, job in enumerate(self.queue, 1)}

    def position(self, job: Job) -> int | None:
        """A queued job's place in the queue (1 is next)."""
        return self.positions().get(job.id)

    async def _run(self, job: Job) -> None:
        try:
            if job.stop_asked:  # stopped while it waited
                job.set_state("cancelled")
                return
            payload = {**job.job, "runs_dir": str(self.runs_dir)}
            payload["uploads_root"] = str(self.uploads)
            if payload.pop("use_demo", False):
                demo = self.demo  # started (its site built, once) off the event loop
                payload["demo"] = await asyncio.to_thread(demo) if callable(demo) else demo
            job.set_state("running")
            await self._work(job, payload)
        except Exception as exc:  # shown on the job's page
            job.errors.append(plain_reason(exc))
            await self.end(job, "failed", job.errors[-1])
        finally:
            self.running.discard(job.id)
            self._pump()

    async def _spawn(self, *args: str) -> asyncio.subprocess.Process:
        env = {**os.environ}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        return await asyncio.create_subprocess_exec(
            sys.executable,
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # the server's Ctrl-C is passed on by the server
            env=env,
            limit=2**24,
        )

    async def _work(self, job: Job, payload: dict[str, Any]) -> None:
        proc = job.proc = await self._spawn("-m", "webapp.worker")
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(payload, ensure_ascii=False) + "\n").encode())
        errors = asyncio.create_task(self._errors(job, proc))
        failed = ""
        async for raw in proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            failed = self._take(job, message) or failed
        await proc.wait()
        await errors
        job.code = proc.returncode
        job.pending.clear()
        if failed or job.code not in (0, 3, 130):
            # the worker's last line on stderr: a traceback's ends with the class name
            last = without_class_names(job.errors[-1]) if job.errors else ""
            reason = failed or last or f"exit {job.code}"
            await self.end(job, "failed", reason)
        else:
            await self.end(job, "stopped" if job.code == 130 else "finished")

    async def end(self, job: Job, state: str, reason: str = "") -> None:
        """End ``job`` in ``state`` (``reason``: why it failed), its status told in the
        words its run's page uses, read from the run's folder off the event loop; in its
        own when it has no run, or its run's folder says less than the job knows (it
        stopped before it began, cannot be read, or is a run a resume failed to go on
        with, which does not say that it failed)."""
        extra = {"reason": reason} if state == "failed" else {}
        found = None
        if job.run_id:
            found = await asyncio.to_thread(summary_of, self.runs_dir, job.run_id)
        if (
            found is None
            or found.status in ("incomplete", "broken")
            or found.failed != (state == "failed")
        ):
            job.set_state(state, **extra)
        else:
            job.set_state(state, words=found.told, style=found.state, **extra)

    def _take(self, job: Job, message: dict[str, Any]) -> str:
        """Take in one message of a worker; a failure's reason, or ``""``."""
        kind = message.get("type")
        if kind == "event":
            run = message.get("run")
            if isinstance(run, dict) and not job.live:
                job.live, job.run_id = True, str(run.get("id"))
                job.add("run", {"run_id": job.run_id})
                if job.stop_asked:
                    self._signal(job)
            job.add("progress", {k: v for k, v in message.items() if k != "type"})
        elif kind == "approval":
            self.take_approval(job, message)
        elif kind == "plan_review":
            ask = int(message.get("ask", 0))
            job.pending[ask] = message
            job.add(kind, {k: v for k, v in message.items() if k != "type"})
        elif kind == "replay":
            told = "reproduced" if message.get("reproduced") else "diverged"
            differences = message.get("differences")
            first = (
                [str(d)[:VALUE_CHARS] for d in differences[:1]]
                if isinstance(differences, list)
                else []
            )
            lines = [f"Replay {told}.", *(f"The first difference: {d}" for d in first)]
            job.add("progress", {"kind": "replay", "lines": lines})
        elif kind == "failed":
            return str(message.get("reason", "failed"))
        return ""

    @staticmethod
    def take_approval(job: Job, message: dict[str, Any]) -> None:
        """A call the run asks about: shown in the page with its tool in words and its
        arguments as name and value, or approved at once when the user allowed its tool
        for the rest of the run (a call asked before the worker heard of it)."""
        ask = int(message.get("ask", 0))
        tool = str(message.get("tool", ""))
        message = {**message, "words": TOOL_WORDS.get(tool, tool)}
        message["shown"] = readable_arguments(message.get("arguments"))
        job.pending[ask] = message
        if tool in job.allowed:
            job.answer(ask, allowed_answer(message))
            return
        job.add("approval", {k: v for k, v in message.items() if k != "type"})

    async def _errors(self, job: Job, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                job.errors = [*job.errors[-ERROR_LINES:], line]

    def stop(self, job: Job, now: bool = False) -> None:
        """Stop a job as one Ctrl-C stops a run: its report is written from what was
        found, and it can be resumed. A queued job is taken off the queue. Asking again
        changes nothing (two clicks, two tabs) unless ``now`` asks for the stop at once,
        as a second Ctrl-C does: the run ends without waiting for its report."""
        if job in self.queue:
            self.queue.remove(job)
            job.set_state("cancelled")
            return
        if job.done:
            return
        level = 2 if now else 1
        if job.stop_asked >= level:
            return
        job.stop_asked = level
        for ask in list(job.pending):  # nobody will answer now: the call is refused
            job.answer(ask, {"action": "reject", "reason": "the run was stopped"})
        job.add("stopping", {"count": job.stop_asked})
        if job.live:
            self._signal(job)

    @staticmethod
    def _signal(job: Job) -> None:
        if job.proc is not None and job.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(job.proc.pid, signal.SIGINT)

    async def close(self) -> None:
        """Stop every run (each writes its partial report), waiting a while for them."""
        self.queue.clear()
        live = [j for j in self.jobs.values() if j.proc is not None and not j.done]
        for job in live:
            self.stop(job)
        for job in live:
            assert job.proc is not None
            try:
                async with asyncio.timeout(STOP_GRACE):
                    await job.proc.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(job.proc.pid, signal.SIGKILL)
