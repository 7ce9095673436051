"""What the user sees while a run works: a line per stage and per item, then a summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .guards import ToolCallRecord

STAGE_TITLES = {
    "search": "Searching",
    "browser": "Reading pages",
    "file": "Reading files",
    "generate": "Writing the report",
}


def _target(rec: ToolCallRecord) -> str:
    for key in ("url", "path", "img_path", "out_path", "query"):
        if rec.input.get(key):
            return str(rec.input[key])[:90]
    return ""


class Progress:
    """An ``on_event`` callback for :class:`host.hub.Host` that prints with rich."""

    def __init__(self, quiet: bool = False, console: Console | None = None) -> None:
        self.quiet = quiet
        self.console = console or Console(stderr=True, highlight=False)

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        if self.quiet:
            return
        if kind == "run_start":
            self.console.print(f"[bold]Run[/bold] {data['run'].id} → {data['run'].path}")
        elif kind == "stage_start":
            self.console.print(f"[bold cyan]▶ {STAGE_TITLES.get(data['stage'], data['stage'])}")
        elif kind == "tool":
            rec: ToolCallRecord = data["record"]
            mark = "[red]✗[/red]" if rec.failed else "[green]✓[/green]"
            note = ""
            if rec.failed:
                note = " — " + rec.text.replace("\n", " ")[:120]
            self.console.print(
                f"  {mark} {rec.name} {_target(rec)} [dim]{rec.seconds:.2f}s[/dim]{note}"
            )
        elif kind == "stage_end":
            stage = data["result"]
            status = f"[red]{stage.error}[/red]" if stage.error else "[green]done[/green]"
            self.console.print(
                f"  {status} in {stage.seconds:.1f}s, {stage.tool_calls} tool calls"
                f" ({stage.failed_calls} failed)"
            )


def summary_table(result: Any) -> Table:
    """The closing table: sources, pages, files, citations, time, tokens and outputs."""
    ctx = result.context
    table = Table(title="Quartet run", show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("question", result.question)
    table.add_row("sources found", str(len(ctx.get("urls", []))))
    table.add_row("pages read", str(len(ctx.get("pages", []))))
    table.add_row("files downloaded", str(len(ctx.get("downloads", []))))
    table.add_row("evidence items", str(len(ctx.get("evidence_ids", []))))
    table.add_row("citations", str(result.citations))
    table.add_row("time", f"{result.seconds:.1f} s")
    table.add_row("tokens", f"{result.tokens['input']} in / {result.tokens['output']} out")
    errors = [f"{s.name}: {s.error}" for s in result.stages if s.error]
    if errors:
        table.add_row("errors", "\n".join(errors))
    table.add_row("run folder", str(result.run.path))
    return table


def output_lines(result: Any) -> list[str]:
    """One line per report: its format and where it is on disk."""
    return [f"{Path(p).suffix.lstrip('.'):>4}  {result.run.real_path(p)}" for p in result.outputs]
