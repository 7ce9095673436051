"""What the user sees while a run works.

On a terminal, one live view: a row per part of the plan, labelled by what tells it
apart from the other parts (see :mod:`host.display.part_labels`), with its status, what it
is doing now (with a spinner and the seconds it has taken so far), the pages read for it
and the evidence kept for it; a row for the work on no single part (the user's files, the
report) and the pages no part's task read; and the pages read in all below. What a
reader needs to know at once (the plan's parts, a resume, an interrupt, a budget reached,
a task that failed, the browser starting and ready) is printed above the view; while the
browser starts (its first use takes seconds), a "browser" row says so. A part the research
never reached (the run stopped, failed or spent its budget first) is "not searched".

Piped (not a terminal), the same events are written one a line, never wrapped, so that a
log or ``grep`` reads them. ``--verbose`` adds every task and tool call (their ids, tools
and times), as the transcript records them.

The statuses and their counts come from the plan, as ``quartet show`` reads them (see
:func:`host.durability.runs.told_counts`): the numbers printed always match the statuses
shown. The figures (pages read, in all and per part, and the evidence kept per part) are
counted from the run's events by :class:`host.orchestration.live.Tally`, as the web app's
live page counts them: what is shown while the run works is what the closing table,
``run.json`` and ``quartet show`` say afterwards. A page read again from its stored copy
is no page read.

Text that comes from the user, a plan file, the model or a page (the question, the
sub-questions, titles, addresses, error messages) goes through
:func:`host.printable.shown`: its terminal controls removed and its rich markup escaped,
so that ``[/b]`` in a question is text, never a tag that ends the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from research.inputs import told_uses as describe_files

from ..brains.ledger import describe as describe_tokens
from ..core.records import ToolCallRecord
from ..durability.runs import report_archive, status_word, told_counts
from ..orchestration.budget import budget_sentence
from ..orchestration.live import FINISH, PartState, Tally
from ..printable import plural, printable, shown
from .part_labels import part_labels

MARKS = {
    "pending": "[dim]○[/dim]",
    "in progress": "[yellow]◐[/yellow]",
    "partly answered": "[yellow]◑[/yellow]",
    "answered": "[green]●[/green]",
    "not found": "[red]✗[/red]",
    "not researched": "[yellow]∅[/yellow]",
}
#: What each subagent's task is doing, in words.
DOING = {
    "search": "searching the web",
    "browser": "reading pages",
    "file": "reading your files",
    "generate": "writing the report",
}
#: The tools that open one page (said when piped; a page read is counted by the tally).
READING_TOOLS = frozenset({"viewer_fetch", "browser_navigate"})
#: How many characters of a page address or a file name the live view shows.
TARGET_CHARS = 60
#: The least characters the live view gives a part's label (a quarter of the width else).
PART_CHARS = 24
#: Seconds a step runs before the live view shows how long it has taken.
SLOW = 2.0

T = TypeVar("T")


def _target(rec: ToolCallRecord) -> str:
    for key in ("url", "path", "img_path", "out_path", "query"):
        if rec.input.get(key):
            return str(rec.input[key])[:90]
    return ""


def cut(text: str, width: int) -> str:
    """``text`` on one line, printable, at most ``width`` characters: cut at a word
    boundary when there is one in its last third, with an ellipsis; never mid-word."""
    text = " ".join(printable(text).split())
    if len(text) <= width:
        return text
    head = text[: width - 1]
    space = head.rfind(" ")
    if space > width * 2 // 3:
        head = head[:space]
    return head.rstrip(" ,;:") + "…"


def short_address(url: str, width: int = TARGET_CHARS) -> str:
    """A page address as a reader recognises it: host and path, no scheme or query."""
    parts = urlsplit(url)
    if not parts.netloc:
        return cut(url, width)
    host = parts.netloc.rsplit("@", 1)[-1].removeprefix("www.")
    return cut(f"{host}{parts.path.rstrip('/')}", width)


def step_words(stage: str, name: str, arguments: dict[str, Any]) -> str:
    """What one tool call is doing, in words: ``reading example.org/page``."""
    url, path = str(arguments.get("url") or ""), str(arguments.get("path") or "")
    out = str(arguments.get("out_path") or "")
    if name == "http_download" and url:
        return f"downloading {short_address(url)}"
    if url:
        return f"reading {short_address(url)}"
    if name.startswith("search_"):
        query = cut(str(arguments.get("query") or ""), TARGET_CHARS)
        return f"searching {name.removeprefix('search_')}: {query}".rstrip(": ")
    if name.startswith("generate_"):
        fmt = name.removeprefix("generate_")
        return f"writing the {fmt.upper() if fmt != 'markdown' else 'Markdown'} report"
    if path or out:
        return f"reading {cut(Path(path or out).name or path or out, TARGET_CHARS)}"
    return DOING.get(stage, stage)


@dataclass
class Step:
    """What one task is doing now."""

    part: str | None
    subagent: str
    words: str
    since: float = field(default_factory=time.monotonic)
    spinner: Spinner = field(default_factory=lambda: Spinner("dots", style="cyan"))

    def told(self, now: float) -> str:
        """The step in words, with the seconds it has taken once it is slow."""
        seconds = now - self.since
        return self.words + (f" ({seconds:.0f} s)" if seconds >= SLOW else "")


class Progress:
    """An ``on_event`` callback for :class:`host.orchestration.hub.Host` that shows the run
    with rich.

    Args:
        quiet: show nothing.
        console: where to show it (default: standard error).
        hold: true while a question is open on the terminal; what happens meanwhile is
            shown once it is answered (see :meth:`flush`).
        verbose: show every task and tool call too.
        live: show the live view (default: when the console is a terminal); otherwise
            one event a line.
        stop_hint: what the first stop tells the user to do to stop at once (the web
            page has a button for it, the terminal a second Ctrl-C).
        folder_named: the command already named the run's folder; the run's start
            does not name it again.
    """

    def __init__(
        self,
        quiet: bool = False,
        console: Console | None = None,
        hold: Callable[[], bool] | None = None,
        verbose: bool = False,
        live: bool | None = None,
        stop_hint: str = "Press Ctrl-C again to stop at once.",
        folder_named: bool = False,
    ) -> None:
        self.quiet, self.verbose = quiet, verbose
        #: the command named the run's folder before the run started: its start says it
        #: again only where nothing did
        self.folder_named = folder_named
        #: what the first stop says the user can do to stop at once
        self.stop_hint = stop_hint
        self.console = console or Console(stderr=True, highlight=False)
        self.live = self.console.is_terminal if live is None else live
        self.statuses: dict[str, str] = {}
        self.hold = hold or (lambda: False)
        self._held: list[tuple[str, dict[str, Any]]] = []
        #: the run's figures: its parts, pages read and evidence kept
        self.tally = Tally()
        #: each part's short label, by its id (a part without one shows its text)
        self.labels: dict[str, str] = {}
        #: what each running task is doing, by task id
        self.steps: dict[str, Step] = {}
        #: the browser being started (its first use), while it starts
        self.launch: Step | None = None
        self._told: set[str] = set()
        self._view: Live | None = None
        self._paused = False

    # -- events --------------------------------------------------------------------------

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.quiet:
            return
        if self.hold():  # a question is open on the terminal: show this after it
            self.pause()
            self._held.append((kind, data))
            return
        self.flush()
        self._show(kind, data)

    def flush(self) -> None:
        """Show what was held back while a question was open, and the live view again."""
        held, self._held = self._held, []
        for kind, data in held:
            self._show(kind, data)
        if self._paused:
            self._paused = False
            self._start_view()

    def pause(self) -> None:
        """Take the live view off the terminal (a question is about to be asked there);
        :meth:`flush` brings it back."""
        if self._view is not None:
            self._paused = True
            self._stop_view()

    def quietly(self, write: Callable[..., T]) -> Callable[..., T]:
        """``write`` (a prompt's read or write) after the live view is taken off."""

        def wrapped(*args: Any, **kwargs: Any) -> T:
            self.pause()
            return write(*args, **kwargs)

        return wrapped

    def close(self) -> None:
        """Stop the live view, leaving its last state on the terminal."""
        self._paused = False
        self._stop_view()

    @property
    def parts(self) -> dict[str, PartState]:
        """The plan's parts as the tally counts them, by id."""
        return self.tally.parts

    def _show(self, kind: str, data: dict[str, Any]) -> None:
        self.tally(kind, data)
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(data)

    def say(self, text: str) -> None:
        """Print one line (rich markup) above the live view, or as one line of the log:
        never wrapped."""
        self.console.print(text, soft_wrap=True)

    def _once(self, key: str, text: str) -> None:
        if key not in self._told:
            self._told.add(key)
            self.say(text)

    def _on_run_start(self, data: dict[str, Any]) -> None:
        run = data["run"]
        if not self.folder_named:
            self.say(f"[bold]Run[/bold] {shown(run.id)} → {shown(run.path)}")

    def _on_resume(self, data: dict[str, Any]) -> None:
        self.say(
            f"[bold]Resuming[/bold] from the last checkpoint: "
            f"{plural(data['delegations'], 'task')} and {plural(data['calls'], 'tool call')} "
            "were done before the stop."
        )

    def _on_interrupt(self, data: dict[str, Any]) -> None:
        if data["count"] == 1:
            self.say(
                "[bold yellow]Interrupted:[/bold yellow] no new task or call starts; the tasks "
                f"in flight get {data['grace']:g} s, then the report is written from what was "
                f"found. {self.stop_hint}"
            )
        else:
            self.say("[bold red]Stopping at once.[/bold red]")

    def _on_budget(self, data: dict[str, Any]) -> None:
        self._once("budget", f"[yellow]{shown(budget_sentence(data['stop']))}[/yellow]")

    def _on_plan(self, data: dict[str, Any]) -> None:
        plan = data["plan"]
        parts = len(plan.subquestions)
        self.say(f"[bold]Plan[/bold] ({shown(plan.planner)}): {parts} part{'s' * (parts != 1)}")
        self.labels = part_labels(plan) if self.live else {}
        for sub in plan.subquestions:
            self.statuses[sub.id] = sub.status
            queries = f" [dim]({shown('; '.join(sub.queries))})[/dim]" if self.verbose else ""
            self.say(f"  {mark(sub.status)} {shown(sub.id)} {shown(sub.text)}{queries}")
        self._start_view()

    def _on_delegation_start(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        part = d.subquestion if d.subquestion in self.parts else None
        self.steps[d.id] = Step(part, d.subagent, DOING.get(d.subagent, d.subagent))
        if self.live and not self.verbose:
            return
        about = f" for {shown(part)}: {shown(self.parts[part].text)}" if part else ""
        task = f" [dim]{shown(d.id)}[/dim]" if self.verbose else ""
        self.say(f"[bold cyan]▶ {shown(data['title'])}[/bold cyan]{about}{task}")

    def _on_tool_start(self, data: dict[str, Any]) -> None:
        step = self.steps.get(str(data.get("task")))
        name, arguments = str(data.get("name", "")), data.get("input") or {}
        if step is None or name == FINISH or not isinstance(arguments, dict):
            return
        step.words = step_words(step.subagent, name, arguments)
        step.since = time.monotonic()
        if not self.live and name in READING_TOOLS | {"http_download"}:
            self.say(f"  {shown(step.words)}{self._for(step.part)}")

    def _on_tool(self, data: dict[str, Any]) -> None:
        rec: ToolCallRecord = data["record"]
        if rec.name == FINISH:
            return
        step = self.steps.get(str(data.get("task")))
        part = step.part if step is not None else None
        if step is not None:
            step.words, step.since = DOING.get(step.subagent, step.subagent), time.monotonic()
        read = self.tally.read is not None and not rec.failed  # not a stored copy read again
        if rec.failed and "page budget" in rec.text:
            self._once(
                "pages",
                "[dim]The page budget is reached: no more pages are read; the report is "
                "written from the pages read.[/dim]",
            )
        if self.verbose:
            self._tool_line(rec)
        elif read and not self.live:
            address = short_address(str(rec.input.get("url", "")))
            self.say(
                f"  [green]✓[/green] page read: {shown(address)}{self._for(part)} "
                f"[dim]{rec.seconds:.1f} s[/dim]"
            )

    def _tool_line(self, rec: ToolCallRecord) -> None:
        mark = "[red]✗[/red]" if rec.failed else "[green]✓[/green]"
        note = f" — {shown(rec.status)}: {shown(cut(rec.text, 160))}" if rec.failed else ""
        if rec.failed and "page budget" in rec.text:  # expected once the pages are read
            mark, note = "[dim]–[/dim]", f" [dim]— {shown(cut(rec.text, 160))}[/dim]"
        self.say(
            f"  {mark} {shown(rec.stage)}: {shown(rec.name)} {shown(_target(rec))} "
            f"[dim]{rec.seconds:.2f}s[/dim]{note}"
        )

    def _on_delegation_end(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        step = self.steps.pop(d.id, None)
        part = step.part if step is not None else None
        if self.verbose:
            failed = sum(r.failed for r in d.records)
            self.say(
                f"  [dim]{shown(d.id)} {shown(d.status)} in {d.seconds:.1f}s, "
                f"{plural(len(d.records), 'tool call')} ({failed} failed)[/dim]"
            )
        if d.status in ("failed", "timed out"):  # stopped, capped, interrupted: expected
            what = DOING.get(d.subagent, d.subagent).capitalize()
            why = f": {shown(cut(d.error or '', 160))}" if d.error else ""
            self.say(f"[yellow]{what}{self._for(part)} {shown(d.status)}[/yellow]{why}")

    def _on_browser(self, data: dict[str, Any]) -> None:
        """The browser starts (its first use takes seconds), is ready, or failed to start
        (the failure is said by the task that needed it)."""
        state = data.get("state")
        if state == "starting":
            self.launch = Step(None, "browser", "starting the browser")
            self.say("[dim]Starting the browser (Chromium): the first pages wait for it.[/dim]")
            return
        launch, self.launch = self.launch, None
        if state == "ready":
            took = f" in {time.monotonic() - launch.since:.0f} s" if launch is not None else ""
            self.say(f"[dim]The browser is ready{took}.[/dim]")

    def _on_coverage(self, data: dict[str, Any]) -> None:
        for sub in data["plan"].subquestions:
            if self.statuses.get(sub.id) == sub.status:
                continue
            self.statuses[sub.id] = sub.status
            if not self.live or self.verbose:
                part = self.parts[sub.id]
                self.say(
                    f"  {mark(sub.status)} {shown(sub.id)} {shown(status_word(sub.status))} "
                    f"[dim]({part.evidence} evidence kept, {plural(part.pages, 'page')} "
                    "read)[/dim]"
                )

    def _on_run_end(self, data: dict[str, Any]) -> None:
        result = data["result"]
        plan = getattr(result, "plan", None)
        for sub in plan.subquestions if plan is not None else []:
            self.statuses[sub.id] = sub.status
        if plan is not None and (not self.live or self.verbose):
            self.say(f"[bold]Parts:[/bold] {told_counts(s.status for s in plan.subquestions)}")
        self.steps.clear()
        self.launch = None
        self.close()

    def _for(self, part: str | None) -> str:
        return f" for {shown(part)}" if part else ""

    # -- the live view -------------------------------------------------------------------

    def _start_view(self) -> None:
        if not self.live or self._view is not None or self._paused or not self.parts:
            return
        self._view = Live(
            get_renderable=self.render,
            console=self.console,
            refresh_per_second=8,
            transient=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._view.start()

    def _stop_view(self) -> None:
        view, self._view = self._view, None
        if view is not None:
            view.stop()

    def render(self) -> RenderableType:
        """The live view: a row per part, a row for the work on no part, then the pages
        read in all (the rows' pages add up to it)."""
        now, clock = time.monotonic(), self.console.get_time()
        table = Table(box=None, expand=True, pad_edge=False, show_edge=False)
        part_width = max(PART_CHARS, self.console.width // 4)
        table.add_column("part", max_width=part_width, no_wrap=True, overflow="ellipsis")
        table.add_column("status", no_wrap=True)
        table.add_column("doing now", ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column("pages", justify="right", no_wrap=True)
        table.add_column("evidence", justify="right", no_wrap=True)
        for part in self.parts.values():
            steps = [s for s in self.steps.values() if s.part == part.id]
            table.add_row(
                Text.from_markup(f"[bold]{shown(part.id)}[/bold] {shown(self._label(part))}"),
                Text.from_markup(f"{mark(part.status)} {shown(status_word(part.status))}"),
                self._doing(steps[-1], now, clock) if steps else Text(""),
                str(part.pages or ""),
                str(part.evidence or ""),
            )
        if self.launch is not None:
            table.add_row(Text("browser", style="dim"), "", self._doing(self.launch, now, clock))
        elsewhere = [s for s in self.steps.values() if s.part is None]
        if elsewhere or self.tally.other:
            doing = self._doing(elsewhere[-1], now, clock) if elsewhere else Text("")
            table.add_row(Text("other work", style="dim"), "", doing, str(self.tally.other or ""))
        return Group(table, Text(self.pages_read(), style="dim", justify="right"))

    def pages_read(self) -> str:
        """The pages read in all, of the budget: ``5 of 24 pages read``."""
        if not self.tally.budget:
            return f"{plural(self.tally.pages, 'page')} read"
        return f"{self.tally.pages} of {self.tally.budget} pages read"

    def _label(self, part: PartState) -> str:
        """A part's short label, else its text."""
        return self.labels.get(part.id) or part.text

    @staticmethod
    def _doing(step: Step, now: float, clock: float) -> Text:
        """A step with its spinner: ``⠋ reading example.org/page (9 s)``."""
        cell = step.spinner.render(clock)
        cell = cell if isinstance(cell, Text) else Text(str(cell))
        cell.append(" " + printable(step.told(now)))
        return cell


def mark(status: str) -> str:
    """A part's status as its mark (rich markup): ``●`` answered, ``∅`` not searched.

    Args:
        status: the status the plan records.
    """
    return MARKS.get(status, "?")


def describe_calls(calls: dict[str, Any]) -> str:
    """A run's ``model_calls`` summary in one line of the closing table: ``1 call,
    2 attempts, 1 retry (timeout ×1)``, then the causes of the calls that failed.

    Args:
        calls: the summary (``calls``, ``attempts``, ``retries``, ``faults``,
            ``failures``) the run's model calls left.
    """
    counts = ", ".join(
        [
            plural(int(calls.get("calls") or 0), "call"),
            plural(int(calls.get("attempts") or 0), "attempt"),
            plural(int(calls.get("retries") or 0), "retry", "retries"),
        ]
    )
    faults = ", ".join(f"{cause} ×{n}" for cause, n in (calls.get("faults") or {}).items())
    failed = ", ".join(f"{cause} ×{n}" for cause, n in (calls.get("failures") or {}).items())
    return counts + (f" ({faults})" if faults else "") + (f"; failed: {failed}" if failed else "")


#: What the closing table says of a question in a language with no word lists here.
GENERIC_READ = "read by the generic path (no word lists for it): parts may be cut less well"


def summary_table(result: Any) -> Table:
    """The closing table: plan status, pages, evidence, citations, time, tokens, errors
    (the run folder follows it on a line of its own, see :func:`folder_line`)."""
    table = Table(title="Quartet run", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("question", shown(result.question))
    if result.status != "finished":
        table.add_row("status", f"[yellow]{result.status}[/yellow]")
    stop = getattr(result, "budget_stop", None)
    if stop:
        table.add_row("budget", f"[yellow]{shown(budget_sentence(stop))}[/yellow]")
    if result.plan is not None:
        lines = [
            f"{mark(s.status)} {shown(s.id)} {shown(status_word(s.status))}: {shown(s.text)} "
            f"[dim]({len(s.evidence_ids or [])} evidence kept)[/dim]"
            for s in result.plan.subquestions
        ]
        table.add_row("parts", told_counts(s.status for s in result.plan.subquestions))
        table.add_row("plan", "\n".join(lines))
        read = result.plan.read_as
        if read["read"] == "generic":
            table.add_row("language", f"{shown(read['name'])}: {GENERIC_READ}")
    table.add_row("pages read", str(result.pages_read))
    files = getattr(result, "files", None)
    if files:
        table.add_row("your files", shown(describe_files(files)))
    table.add_row("evidence found", str(result.evidence))  # the parts keep the best
    table.add_row("citations", str(result.citations))
    table.add_row("tasks", str(len(result.delegations)))
    table.add_row("time", f"{result.seconds:.1f} s")
    if any(result.tokens.get(k) for k in ("input", "output")):  # none with the offline brain
        table.add_row("tokens", describe_tokens(result.tokens))
    calls = getattr(result, "model_calls", None) or {}
    if calls.get("retries") or calls.get("failed"):
        table.add_row("model calls", describe_calls(calls))
    if result.failed_stages:
        table.add_row("failed tasks", "\n".join(shown(f) for f in result.failed_stages[:8]))
    if result.failed_sources:
        table.add_row("failed sources", ", ".join(shown(f) for f in result.failed_sources))
    if result.errors:
        table.add_row("errors", "\n".join(shown(e) for e in result.errors[:8]))
    return table


def folder_line(result: Any) -> str:
    """The run folder's line under the closing table: printed whole (``soft_wrap``), so
    that a long path is never cut in a table cell, and can be copied as it is."""
    return printable(f"Run folder: {result.run.path}")


def output_lines(result: Any) -> list[str]:
    """One line per report, its format and where it is on disk, then the zip that holds
    them for reading elsewhere (plain text, not markup)."""
    paths = [Path(result.run.real_path(p)) for p in result.outputs]
    archive = report_archive(paths)
    return [
        printable(f"{p.suffix.lstrip('.'):>4}  {p}") for p in [*paths, *filter(None, [archive])]
    ]
