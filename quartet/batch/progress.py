"""What the user sees while a batch works: a bar over the whole batch, a line per running
question with its attempt, the stage its run is at (``searching q1, q2``, ``writing the
report``: its worker notes it, see :class:`quartet.batch.worker.Stage`) and its time, and a
line as each question ends or is retried.

Questions (from the user's file) and errors (from the runs) are shown with
:func:`host.printable.shown`: no terminal controls, markup escaped.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from host.durability.runs import told_counts
from host.printable import plural, printable, shown

from .state import BatchState, Job
from .worker import read_note

WIDTH = 60
#: Seconds a question's noted stage is shown before its note is read again.
STAGE_SECONDS = 1.0


class _OnTotal(ProgressColumn):
    """A column shown on the batch's own row only (a question's row has no total: no
    bar, no ``0/?``)."""

    def __init__(self, column: ProgressColumn) -> None:
        super().__init__()
        self.column = column

    def render(self, task: Task) -> RenderableType:
        return self.column.render(task) if task.total is not None else Text("")


class StageColumn(ProgressColumn):
    """The stage a question's run is at, read from its worker's note (at most once a
    second)."""

    def __init__(self) -> None:
        super().__init__()
        self._read: dict[str, tuple[float, str]] = {}

    def stage(self, marker: str) -> str:
        now = time.monotonic()
        seen = self._read.get(marker)
        if seen is None or now - seen[0] >= STAGE_SECONDS:
            stage = read_note(Path(marker)).get("stage")
            seen = self._read[marker] = (now, str(stage) if stage else "starting")
        return seen[1]

    def render(self, task: Task) -> RenderableType:
        marker = task.fields.get("marker")
        if not marker:
            return Text("")
        return Text(_short(self.stage(str(marker)), 40), style="cyan")


def _short(text: str, width: int = WIDTH) -> str:
    """``text`` printable, on one line, cut to ``width`` characters."""
    text = " ".join(printable(text).split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def per_minute(done: int, seconds: float) -> float:
    return 60.0 * done / seconds if seconds > 0 else 0.0


class BatchProgress:
    """An ``on_event`` callback for :func:`quartet.batch.coordinator.run_batch` (rich, on
    stderr); ``quiet`` shows nothing."""

    def __init__(
        self, state: BatchState, quiet: bool = False, console: Console | None = None
    ) -> None:
        self.state = state
        self.quiet = quiet
        self.console = console or Console(stderr=True, highlight=False)
        self.started = time.perf_counter()
        self.ended = 0
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            _OnTotal(BarColumn()),
            _OnTotal(MofNCompleteColumn()),
            StageColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
            disable=quiet,
        )
        self.total: TaskID | None = None
        self.running: dict[int, TaskID] = {}

    def __enter__(self) -> BatchProgress:
        done = self.state.counts()["done"]
        self.bar.start()
        self.total = self.bar.add_task("[bold]batch[/bold]", total=len(self.state.jobs))
        self.bar.update(self.total, completed=done)
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def say(self, text: str) -> None:
        if not self.quiet:
            self.console.print(text, soft_wrap=True)

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.quiet:
            return
        job: Job = data["job"]
        label = f"#{job.index} {shown(_short(job.question))}"
        if kind == "start":
            more = ""
            if data["try"] > 1:
                more = f" [dim](attempt {data['try']} of {data['tries']})[/dim]"
            task = self.running.pop(job.index, None)
            if task is not None:
                self.bar.remove_task(task)
            marker = str(self.state.marker(job))
            self.running[job.index] = self.bar.add_task(label + more, total=None, marker=marker)
            return
        task = self.running.pop(job.index, None)
        if task is not None:
            self.bar.remove_task(task)
        if kind == "retry":
            self.say(f"[yellow]↻[/yellow] {label}: {shown(data['error'])}; trying again")
            return
        self.ended += 1
        if self.total is not None:
            self.bar.advance(self.total)
        if kind == "failed":
            self.say(
                f"[red]✗[/red] {label}: gave up after {plural(job.attempts, 'attempt')}: "
                f"{shown(data['error'])}"
            )
        else:
            self.say(f"{self._mark(job)} {label} [dim]{shown(self._figures(job))}[/dim]")

    @staticmethod
    def _mark(job: Job) -> str:
        code = (job.result or {}).get("exit_code")
        return {0: "[green]✓[/green]", 3: "[yellow]∅[/yellow]"}.get(code, "[red]✗[/red]")

    @staticmethod
    def _figures(job: Job) -> str:
        r = job.result or {}
        parts = [f"exit {r.get('exit_code')}"]
        if r.get("counts"):  # the statuses of the run's plan, as `quartet show` counts them
            parts.append(told_counts(Counter(r["counts"]).elements()))
        elif r.get("parts"):
            parts.append(f"{r.get('answered') or 0}/{r['parts']} answered")
        parts.append(plural(r.get("citations") or 0, "citation"))
        parts.append(f"{job.seconds:.1f} s")
        if r.get("resumed"):
            parts.append("resumed from its checkpoint")
        if r.get("reused"):
            parts.append("had finished before")
        if r.get("report"):
            parts.append(str(r["report"]))
        return " · ".join(parts)
