"""What the user sees while a run works: the plan as a todo list, each task and tool call,
status changes as they happen, then a summary.

Text that comes from the user, a plan file, the model or a page (the question, the
sub-questions, titles, addresses, error messages) goes through
:func:`host.printable.shown`: its terminal controls removed and its rich markup escaped,
so that ``[/b]`` in a question is text, never a tag that ends the run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .brains.ledger import describe as describe_tokens
from .brains.resilience import describe as describe_calls
from .budget import budget_sentence
from .guards import ToolCallRecord
from .printable import printable, shown

MARKS = {
    "pending": "[dim]○[/dim]",
    "in progress": "[yellow]◐[/yellow]",
    "partly answered": "[yellow]◑[/yellow]",
    "answered": "[green]●[/green]",
    "not found": "[red]✗[/red]",
    "not researched": "[red]∅[/red]",
}


def _target(rec: ToolCallRecord) -> str:
    for key in ("url", "path", "img_path", "out_path", "query"):
        if rec.input.get(key):
            return str(rec.input[key])[:90]
    return ""


class Progress:
    """An ``on_event`` callback for :class:`host.hub.Host` that prints with rich."""

    def __init__(
        self,
        quiet: bool = False,
        console: Console | None = None,
        hold: Callable[[], bool] | None = None,
    ) -> None:
        self.quiet = quiet
        self.console = console or Console(stderr=True, highlight=False)
        self.statuses: dict[str, str] = {}
        self.hold = hold or (lambda: False)
        self._held: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.quiet:
            return
        if self.hold():  # a question is open on the terminal: show this after it
            self._held.append((kind, data))
            return
        self.flush()
        self._show(kind, data)

    def flush(self) -> None:
        """Show what was held back while a question was open."""
        held, self._held = self._held, []
        for kind, data in held:
            self._show(kind, data)

    def _show(self, kind: str, data: dict[str, Any]) -> None:
        handler = getattr(self, f"_on_{kind}", None)
        if handler is not None:
            handler(data)

    def _on_run_start(self, data: dict[str, Any]) -> None:
        run = data["run"]
        self.console.print(f"[bold]Run[/bold] {shown(run.id)} → {shown(run.path)}")

    def _on_resume(self, data: dict[str, Any]) -> None:
        self.console.print(
            f"[bold]Resuming[/bold] from the last checkpoint: {data['delegations']} tasks and "
            f"{data['calls']} tool calls were done before the stop."
        )

    def _on_interrupt(self, data: dict[str, Any]) -> None:
        if data["count"] == 1:
            self.console.print(
                "[bold yellow]Interrupted:[/bold yellow] no new task or call starts; the tasks "
                f"in flight get {data['grace']:g} s, then the report is written from what was "
                "found. Press Ctrl-C again to stop at once."
            )
        else:
            self.console.print("[bold red]Stopping at once.[/bold red]")

    def _on_plan(self, data: dict[str, Any]) -> None:
        plan = data["plan"]
        parts = len(plan.subquestions)
        self.console.print(f"[bold]Plan[/bold] ({shown(plan.planner)}): {parts} parts")
        for sub in plan.subquestions:
            self.statuses[sub.id] = sub.status
            queries = shown("; ".join(sub.queries))
            self.console.print(
                f"  {MARKS.get(sub.status, '?')} {shown(sub.id)} {shown(sub.text)} "
                f"[dim]({queries})[/dim]"
            )

    def _on_delegation_start(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        part = f" {shown(d.subquestion)}" if d.subquestion else ""
        self.console.print(
            f"[bold cyan]▶ {shown(data['title'])}{part}[/bold cyan] [dim]{shown(d.id)}[/dim]"
        )

    def _on_tool(self, data: dict[str, Any]) -> None:
        rec: ToolCallRecord = data["record"]
        mark = "[red]✗[/red]" if rec.failed else "[green]✓[/green]"
        text = shown(rec.text[:120])  # a path like [/workspace/…] is no tag
        note = f" — {shown(rec.status)}: {text}" if rec.failed else ""
        target = shown(_target(rec))
        self.console.print(
            f"  {mark} {shown(rec.stage)}: {shown(rec.name)} {target} "
            f"[dim]{rec.seconds:.2f}s[/dim]{note}"
        )

    def _on_delegation_end(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        failed = sum(r.failed for r in d.records)
        status = (
            "[green]done[/green]"
            if d.status == "ok"
            else f"[red]{shown(d.status)}: {shown(d.error)}[/red]"
        )
        self.console.print(
            f"  {status} {shown(d.id)} in {d.seconds:.1f}s, {len(d.records)} tool calls "
            f"({failed} failed)"
        )

    def _on_coverage(self, data: dict[str, Any]) -> None:
        for sub in data["plan"].subquestions:
            if self.statuses.get(sub.id) != sub.status:
                self.statuses[sub.id] = sub.status
                cov = data["research"].coverage(sub.id)
                self.console.print(
                    f"  {MARKS.get(sub.status, '?')} {shown(sub.id)} {shown(sub.status)} "
                    f"[dim]({cov.items} evidence, {cov.sources} sources)[/dim]"
                )


def summary_table(result: Any) -> Table:
    """The closing table: plan status, pages, evidence, citations, time, tokens, errors."""
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
            f"{MARKS.get(s.status, '?')} {shown(s.id)} {shown(s.status)}: {shown(s.text)}"
            for s in result.plan.subquestions
        ]
        table.add_row("answered", f"{result.answered} of {len(result.plan.subquestions)} parts")
        table.add_row("plan", "\n".join(lines))
    table.add_row("pages read", str(result.pages_read))
    table.add_row("evidence items", str(result.evidence))
    table.add_row("citations", str(result.citations))
    table.add_row("tasks", str(len(result.delegations)))
    table.add_row("time", f"{result.seconds:.1f} s")
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
    table.add_row("run folder", shown(result.run.path))
    return table


def output_lines(result: Any) -> list[str]:
    """One line per report: its format and where it is on disk (plain text, not markup)."""
    return [
        printable(f"{Path(p).suffix.lstrip('.'):>4}  {result.run.real_path(p)}")
        for p in result.outputs
    ]
