"""``quartet runs`` (past runs, newest first) and ``quartet show`` (one run's summary),
all of it read from the run folders and printed without control characters."""

from __future__ import annotations

import argparse
from pathlib import Path

from host.config import runs_dir_setting
from host.durability.runs import (
    RunDetail,
    RunSummary,
    find_run,
    list_runs,
    read_run,
    report_archive,
    status_word,
    told_counts,
)
from host.printable import printable, printable_json
from research.inputs import told_uses

QUESTION_WIDTH = 60
#: The most characters of a status shown (a failed run's reason is cut there).
STATUS_WIDTH = 60


def _shorten(text: str, width: int) -> str:
    """``text`` on one line, printable, cut to ``width`` characters with an ellipsis."""
    text = " ".join(printable(text).split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _local_time(run: RunSummary) -> str:
    """When ``run`` started, in local time; ``-`` when unknown."""
    return run.started.astimezone().strftime("%Y-%m-%d %H:%M") if run.started else "-"


def _answered(run: RunSummary) -> str:
    if run.parts is None:
        return "-"
    return f"{run.answered or 0}/{run.parts}"


def no_runs_message(runs_dir: Path) -> str:
    """What ``quartet runs`` says when it finds none: the folder it looked in (absolute),
    and how to point it at another."""
    where = printable(str(Path(runs_dir).absolute()))
    return (
        f"No runs in {where}. Runs are looked for in ./runs unless --runs-dir DIR or the "
        "QUARTET_RUNS_DIR environment variable names another folder."
    )


def cmd_runs(args: argparse.Namespace) -> int:
    """``quartet runs``: the past runs, newest first, as a table or JSON."""
    runs_dir = runs_dir_setting(args.runs_dir)
    runs = list_runs(runs_dir)
    if args.json:
        print(printable_json([r.to_dict() for r in runs]))
        return 0
    if not runs:
        print(no_runs_message(runs_dir))
        return 0
    header = ("ID", "STATUS", "ANSWERED", "TIME", "STARTED", "QUESTION")
    rows = [
        (
            printable(r.id),
            _shorten(r.told, STATUS_WIDTH),  # in words, as the web app shows it: no exit codes
            _answered(r),
            _seconds(r.seconds),
            _local_time(r),
            _shorten(r.question or "?", QUESTION_WIDTH)
            + (f"  — resume with: quartet resume {printable(r.id)}" if r.resumable else ""),
        )
        for r in runs
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]))
    return 0


def _line(text: str) -> None:
    """Print one line of text read from a run folder, without its control characters."""
    print(printable(text))


def _print_run(detail: RunDetail) -> None:
    """Print a run's summary (all of it read from its folder, each line printable)."""
    run = detail.summary
    exit_text = f" (exit status {run.exit_code})" if run.exit_code is not None else ""
    _line(f"Run {run.id}: {run.told}{exit_text}")
    _line(f"Question:  {run.question or '?'}")
    _line(f"Started:   {_local_time(run)}    Time: {_seconds(run.seconds)}")
    _line(f"Folder:    {run.path}")
    if run.status == "stopped" and run.resumable:
        _line(f"It stopped before it finished; continue it with: quartet resume {run.id}")
    elif run.status in ("stopped", "incomplete"):
        _line("It stopped before its first checkpoint: there is nothing to resume.")
    elif run.status == "interrupted" and run.resumable:
        _line(f"It was interrupted; continue its research with: quartet resume {run.id}")
    if detail.plan:
        _line(f"Plan:      {told_counts(s.status for s in detail.plan)}")
        width = max(len(status_word(s.status)) for s in detail.plan)
        for sub in detail.plan:
            status = status_word(sub.status).ljust(width)
            _line(f"  {sub.id}  {status}  {sub.text} ({sub.evidence} evidence)")
    else:
        _line("Plan:      none recorded")
    _line("Reports:" if detail.outputs else "Reports:   none")
    for path in detail.outputs:
        _line(f"  {path}")
    if (archive := report_archive(detail.outputs)) is not None:
        _line(f"  {archive}")
    check = detail.citation_check
    accuracy = check.get("citation_accuracy")
    figures = [
        ("citations", detail.citations),
        ("citations dropped", check.get("dropped")),
        ("claims unsupported", check.get("unsupported")),
        ("citation accuracy", f"{accuracy:.0%}" if accuracy is not None else None),
        ("pages read", detail.pages_read),
        # the offline brain spends none: zeros say nothing
        *((f"{kind} tokens", count) for kind, count in detail.tokens.items() if count),
    ]
    shown = [f"{name}: {value}" for name, value in figures if value is not None]
    if shown:
        _line(" · ".join(shown).capitalize())
    if detail.files:
        _line(f"Your files: {told_uses(detail.files)}")
    _line("Failed:" if detail.failures else "Failed:    nothing")
    for failure in detail.failures:
        _line(f"  {failure.where}: {_shorten(failure.reason, 200)}")


def cmd_show(args: argparse.Namespace) -> int:
    """``quartet show RUN_ID``: one run's summary, as text or JSON."""
    detail = read_run(find_run(runs_dir_setting(args.runs_dir), args.run_id))
    if args.json:
        print(printable_json(detail.to_dict()))
    else:
        _print_run(detail)
    return 0
