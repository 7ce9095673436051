"""What the research commands share: their settings, the brain, who is asked (approvals,
the plan), the run with Ctrl-C going to the Host, and the summary printed at the end."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from host.config import ConfigError, Settings, load_settings
from host.durability.runs import has_checkpoint
from host.printable import printable
from research.labels import label

if TYPE_CHECKING:
    from host.brains import Brain
    from host.orchestration.hub import Host, RunResult


def settings_of(args: argparse.Namespace) -> Settings:
    flags = {
        "model": getattr(args, "model", None),
        "formats": getattr(args, "formats", None),
        "input": getattr(args, "input", None),
        "runs_dir": getattr(args, "runs_dir", None),
        "max_rounds": getattr(args, "max_rounds", None),
        "max_pages": getattr(args, "max_pages", None),
        "concurrency": getattr(args, "concurrency", None),
        "max_tokens": getattr(args, "max_tokens", None),
        "max_cost": getattr(args, "max_cost", None),
        "approve": getattr(args, "approve", None),
        "record": getattr(args, "record", False),
        "fresh": getattr(args, "fresh", False),
        "quiet": getattr(args, "quiet", False),
        "verbose": getattr(args, "verbose", False),
        "json": getattr(args, "json", False),
    }
    return load_settings(flags)


def announce(question: str, settings: Settings) -> None:
    """Say the question being researched and the folder its run goes to on standard
    error at once, before the Host and its agents are imported (seconds): the command's
    first lines. The run's id is chosen here (``settings.run_id``), so that the folder
    named is the one the run makes. Nothing is said with ``--quiet`` or ``--json``.

    A model its provider's key is missing for is refused first (one line, no folder
    named): the brain would refuse it only after the Host is loaded.

    Args:
        question: the question, as the user gave it.
        settings: the run's settings (its ``run_id`` is set).
    """
    from host.brains.access import check_spec
    from host.durability.run_folder import new_run_id

    check_spec(settings.model, settings.models)
    settings.run_id = settings.run_id or new_run_id()
    if settings.quiet or settings.json_output:
        return
    folder = printable(str(settings.runs_dir / settings.run_id))
    print(f"Researching: {' '.join(printable(question).split())}", file=sys.stderr)
    print(f"Run folder: {folder}", file=sys.stderr, flush=True)


def report(result: RunResult, settings: Settings) -> int:
    """Print what the run produced; its exit status (0 answered, 3 nothing, 1 no report)."""
    from rich.console import Console

    from host.display.progress import folder_line, output_lines, summary_table
    from host.orchestration.budget import budget_sentence

    if settings.json_output:
        print(json.dumps(result.record(), ensure_ascii=False, indent=2, default=str))
    elif settings.quiet:
        for path in result.outputs:
            print(result.run.real_path(path))
    else:
        console = Console()
        console.print(summary_table(result))
        console.print(folder_line(result), highlight=False, soft_wrap=True, markup=False)
        lines = output_lines(result)
        console.print("[bold]Reports:[/bold]" if lines else "[red]No report was written.[/red]")
        for line in lines:
            console.print(line, highlight=False, soft_wrap=True, markup=False)
    code = result.exit_code
    if result.no_web:
        print(f"quartet: {label('en', result.no_web)}", file=sys.stderr)
    if result.status == "interrupted":
        print(f"quartet: {interrupted_message(result.run.id, result.run.path)}", file=sys.stderr)
    if result.budget_stop:
        print(f"quartet: {budget_sentence(result.budget_stop)}", file=sys.stderr)
    if code == 3:
        parts = len(result.plan.subquestions) if result.plan else 0
        print(f"quartet: {unanswered_message(parts)}", file=sys.stderr)
    return code


def unanswered_message(parts: int) -> str:
    """What a run whose report answers nothing (exit 3) says last, worded for its count
    of parts: ``its one part``, ``none of the question's 4 parts``.

    Args:
        parts: the parts of the run's plan (0 when it has none).
    """
    if parts == 1:
        what = "does not answer its one part"
    elif parts:
        what = f"answers none of the question's {parts} parts"
    else:
        what = "answers nothing"
    return (
        f"the report {what}: no relevant evidence was found (see the report for what was searched)"
    )


def interrupted_message(run_id: str, folder: Path) -> str:
    """What an interrupted run's last line says: the report was written, and how to go on
    with the research when the run left a checkpoint."""
    told = "interrupted; the report was written from what had been found by then"
    if has_checkpoint(folder):
        told += f"; continue the research with: quartet resume {printable(run_id)}"
    return told


class RunStopped(Exception):
    """The user stopped a run at once (a second Ctrl-C); it can be resumed."""


class StoppedBeforeStart(Exception):
    """The user pressed Ctrl-C before the run began: no run folder was made."""


#: A Ctrl-C came while the command got ready (see :func:`note_early_interrupts`).
_EARLY = threading.Event()
#: The run began: its folder exists, and Ctrl-C goes to its Host (see :func:`interruptible`).
_BEGAN = threading.Event()
#: What an interrupted ``run`` or ``demo`` says when no run began.
NOT_STARTED = "interrupted before the run started; nothing was kept"


def note_early_interrupts() -> None:
    """Until the run handles Ctrl-C itself, note each Ctrl-C besides raising
    KeyboardInterrupt as usual. Python prints and ignores a KeyboardInterrupt raised
    inside a finaliser (a library object's ``__del__`` running while modules load), so
    without the note such a Ctrl-C would be lost and the run would start regardless.
    Nothing outside the main thread."""

    def noted(signum: int, frame: object) -> None:
        _EARLY.set()
        raise KeyboardInterrupt

    _EARLY.clear()
    _BEGAN.clear()

    with contextlib.suppress(ValueError):  # not the main thread: Ctrl-C stays as it is
        signal.signal(signal.SIGINT, noted)


def interrupted_line(command: str) -> str:
    """What a command stopped by a Ctrl-C that reached it says last (after the question,
    where it was said)."""
    if command in ("run", "demo") and not _BEGAN.is_set():
        return NOT_STARTED
    return "interrupted; the run folder keeps what was done"


async def interruptible(host: Host, work: Coroutine[Any, Any, RunResult]) -> RunResult:
    """Run ``work`` with Ctrl-C going to the Host: once winds the run down, twice stops it."""
    import asyncio

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, host.interrupt.request)
    except (NotImplementedError, RuntimeError):  # not the main thread: Ctrl-C stays default
        return await work
    if _EARLY.is_set():  # a Ctrl-C while getting ready that Python did not raise
        loop.remove_signal_handler(signal.SIGINT)
        work.close()  # never started
        raise StoppedBeforeStart(NOT_STARTED)
    _BEGAN.set()
    try:
        return await work
    except asyncio.CancelledError:
        if host.interrupt.count < 2:
            raise
        run_id = host.run_folder.id if host.run_folder else "?"
        raise RunStopped(
            f"stopped; the run can be continued with: quartet resume {run_id}"
        ) from None
    finally:
        loop.remove_signal_handler(signal.SIGINT)


def human_of(args: argparse.Namespace, settings: Settings, question: str) -> dict[str, Any]:
    """Who decides on approvals and the plan: the terminal, a plan file, or the defaults."""
    from host.orchestration.approval import (
        Terminal,
        has_terminal,
        plan_from_file,
        terminal_approver,
        terminal_plan_review,
    )

    terminal = Terminal() if has_terminal() else None
    found: dict[str, Any] = {"terminal": terminal}
    if settings.approve_tools and terminal is not None:
        found["ask"] = terminal_approver(terminal)
    if getattr(args, "plan", None):
        found["plan"] = plan_from_file(Path(args.plan), question)
    if getattr(args, "review_plan", False):
        if terminal is None:
            raise ConfigError(
                "--review-plan needs a terminal; without one, give the plan with --plan FILE"
            )
        found["review_plan"] = terminal_plan_review(terminal)
    return found


def check_approval_terminal(args: argparse.Namespace, settings: Settings) -> None:
    """ConfigError when ``--approve`` names tools and there is nobody to ask.

    ``--approve`` asks the person at the terminal before each call; without a terminal a
    run would go on with every such call refused in their name, so the command stops
    before the run starts. An unattended run takes its decision from ``quartet.toml``
    (``[quartet.approve]`` with ``tools`` and ``default``), where it is written down.
    """
    if not (getattr(args, "approve", None) and settings.approve_tools):
        return
    from host.orchestration.approval import has_terminal

    if not has_terminal():
        raise ConfigError(
            "--approve asks you before each call of "
            f"{', '.join(settings.approve_tools)}, and there is no interactive terminal to "
            "ask at; run the command in a terminal, or decide for unattended runs in "
            'quartet.toml: [quartet.approve] tools = [...] with default = "approve" or '
            '"deny"'
        )


def run_async(work: Awaitable[RunResult]) -> RunResult:
    import asyncio

    return asyncio.run(work)  # type: ignore[arg-type]


def load_framework() -> None:
    """Import agentscope, without the Ray it would load for nothing.

    agentscope 1.x imports Ray when it is imported, only to make its Ray evaluator a
    Ray actor, and goes on without it when Ray is missing. A research run never uses
    that evaluator, and Ray would hold about 56 MB of the run and 0.15 s of its start,
    so Ray is hidden while agentscope is imported, and only then: a batch, which runs
    on Ray, imports it itself. Nothing is done when either is imported already.
    """
    if "agentscope" in sys.modules or "ray" in sys.modules:
        return
    sys.modules["ray"] = None  # type: ignore[assignment]  # `import ray` fails as if missing
    try:
        import agentscope  # noqa: F401
    finally:
        if sys.modules.get("ray", 0) is None:
            del sys.modules["ray"]


def brain_of(settings: Settings) -> Brain:
    load_framework()
    from host.brains import make_brain

    return make_brain(settings.model, access=settings.models)


async def pipeline(
    question: str, settings: Settings, brain: Brain, human: dict[str, Any]
) -> RunResult:
    from host.display.progress import Progress
    from host.orchestration.hub import Host

    quiet = settings.quiet or settings.json_output
    terminal = human.pop("terminal", None)
    progress = Progress(
        quiet=quiet,
        hold=lambda: terminal is not None and terminal.asking,
        verbose=settings.verbose,
        folder_named=True,  # the command's first lines named it (see announce)
    )
    if terminal is not None:  # the live view leaves the terminal while a question is asked
        terminal.after = progress.flush
        terminal.read = progress.quietly(terminal.read)
        terminal.write = progress.quietly(terminal.write)
    host = Host(settings, brain, on_event=progress, **human)
    try:
        return await interruptible(host, host.run(question))
    finally:
        progress.close()


def confirmer() -> Callable[[Path], bool] | None:
    """Asks at the terminal whether to mount a run's recorded input folder again; None
    when there is no terminal to ask at."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def confirm(folder: Path) -> bool:
        sys.stderr.write(
            f"The run read its input files from {printable(str(folder))} (the run folder "
            "names it, not you). Mount that folder again, read-only, as /userinput/? [y/N] "
        )
        sys.stderr.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return confirm


def given_input(args: argparse.Namespace, settings: Settings) -> Path | None:
    """The input folder the user gave on the command line (``--input``), checked."""
    return settings.input_dir if getattr(args, "input", None) else None
