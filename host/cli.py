"""The command line: ``quartet {run,demo,batch,resume,replay,runs,show,tools,mcp}``
(also ``python -m host``).

Start-up is kept fast: this module imports only the standard library and light modules
(settings, run records). The Host, the brains, the subagents' tools, agentscope and rich
are imported inside the commands that use them.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from demo.settings import demo_settings
from research.labels import label
from subagents.names import PIPELINE_ORDER
from subagents.secrets import scrubbed_output, secret_scope, secret_values

from .config import (
    ConfigError,
    Settings,
    load_settings,
    make_runs_dir,
    runs_dir_setting,
)
from .durability.resume import demo_ports, resumable, resumed_settings
from .printable import printable, printable_json
from .runs import (
    RunDetail,
    RunSummary,
    chosen_input,
    find_run,
    has_checkpoint,
    list_runs,
    read_run,
    told_counts,
)

#: The names the web app (``quartet serve``) imports these by.
_demo_ports, _resumable, _resumed_settings = demo_ports, resumable, resumed_settings

if TYPE_CHECKING:
    from .brains import Brain
    from .hub import Host, RunResult

QUESTION_WIDTH = 60
#: The exit status of a command whose output pipe was closed early (``quartet runs |
#: head -1``): 128 + SIGPIPE, as a Unix tool killed by that signal reports it.
BROKEN_PIPE_EXIT = 128 + 13


def _cmd_tools(args: argparse.Namespace) -> int:
    from subagents import SPECS, all_tool_schemas

    schemas = all_tool_schemas()
    if args.json:
        print(json.dumps(schemas, indent=2, ensure_ascii=False))
        return 0
    for name in PIPELINE_ORDER:
        spec = SPECS[name]
        print(f"{name}: {spec.description}")
        for schema in schemas[name]:
            fn = schema["function"]
            params = fn["parameters"].get("properties", {})
            required = set(fn["parameters"].get("required", []))
            sig = ", ".join(p if p in required else p + "?" for p in params)
            summary = fn.get("description", "").split("\n", 1)[0]
            print(f"  {fn['name']}({sig}) — {summary}")
    return 0


def _settings(args: argparse.Namespace) -> Settings:
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
        "quiet": getattr(args, "quiet", False),
        "verbose": getattr(args, "verbose", False),
        "json": getattr(args, "json", False),
    }
    return load_settings(flags)


def _report(result: RunResult, settings: Settings) -> int:
    """Print what the run produced; its exit status (0 answered, 3 nothing, 1 no report)."""
    from rich.console import Console

    from .budget import budget_sentence
    from .progress import output_lines, summary_table

    if settings.json_output:
        print(json.dumps(result.record(), ensure_ascii=False, indent=2, default=str))
    elif settings.quiet:
        for path in result.outputs:
            print(result.run.real_path(path))
    else:
        console = Console()
        console.print(summary_table(result))
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
        print(
            f"quartet: the report answers none of the question's {parts} parts: no relevant "
            "evidence was found (see the report for what was searched)",
            file=sys.stderr,
        )
    return code


def interrupted_message(run_id: str, folder: Path) -> str:
    """What an interrupted run's last line says: the report was written, and how to go on
    with the research when the run left a checkpoint."""
    told = "interrupted; the report was written from what had been found by then"
    if has_checkpoint(folder):
        told += f"; continue the research with: quartet resume {printable(run_id)}"
    return told


class RunStopped(Exception):
    """The user stopped a run at once (a second Ctrl-C); it can be resumed."""


async def _interruptible(host: Host, work: Awaitable[RunResult]) -> RunResult:
    """Run ``work`` with Ctrl-C going to the Host: once winds the run down, twice stops it."""
    import asyncio

    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, host.interrupt.request)
    except (NotImplementedError, RuntimeError):  # not the main thread: Ctrl-C stays default
        return await work
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


def _human(args: argparse.Namespace, settings: Settings, question: str) -> dict[str, Any]:
    """Who decides on approvals and the plan: the terminal, a plan file, or the defaults."""
    from .approval import (
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
    from .approval import has_terminal

    if getattr(args, "approve", None) and settings.approve_tools and not has_terminal():
        raise ConfigError(
            "--approve asks you before each call of "
            f"{', '.join(settings.approve_tools)}, and there is no interactive terminal to "
            "ask at; run the command in a terminal, or decide for unattended runs in "
            'quartet.toml: [quartet.approve] tools = [...] with default = "approve" or '
            '"deny"'
        )


def _run_async(work: Awaitable[RunResult]) -> RunResult:
    import asyncio

    return asyncio.run(work)  # type: ignore[arg-type]


def _brain(settings: Settings) -> Brain:
    from .brains import make_brain

    return make_brain(settings.model, access=settings.models)


async def _pipeline(
    question: str, settings: Settings, brain: Brain, human: dict[str, Any]
) -> RunResult:
    from .hub import Host
    from .progress import Progress

    quiet = settings.quiet or settings.json_output
    terminal = human.pop("terminal", None)
    progress = Progress(
        quiet=quiet,
        hold=lambda: terminal is not None and terminal.asking,
        verbose=settings.verbose,
    )
    if terminal is not None:  # the live view leaves the terminal while a question is asked
        terminal.after = progress.flush
        terminal.read = progress.quietly(terminal.read)
        terminal.write = progress.quietly(terminal.write)
    host = Host(settings, brain, on_event=progress, **human)
    try:
        return await _interruptible(host, host.run(question))
    finally:
        progress.close()


def _cmd_run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if not args.question.strip():
        raise ConfigError("the question is empty")
    check_approval_terminal(args, settings)
    human = _human(args, settings, args.question)
    brain = _brain(settings)
    make_runs_dir(settings.runs_dir)
    return _report(_run_async(_pipeline(args.question, settings, brain, human)), settings)


def _cmd_demo(args: argparse.Namespace) -> int:
    from demo.web import demo_world

    settings = _settings(args)
    check_approval_terminal(args, settings)
    brain = _brain(settings)
    make_runs_dir(settings.runs_dir)
    with demo_world(settings.runs_dir) as world:
        question = args.question or world.question
        human = _human(args, settings, question)
        result = _run_async(_pipeline(question, demo_settings(settings, world), brain, human))
    return _report(result, settings)


def _confirmer() -> Callable[[Path], bool] | None:
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


def _given_input(args: argparse.Namespace, settings: Settings) -> Path | None:
    """The input folder the user gave on the command line (``--input``), checked."""
    return settings.input_dir if getattr(args, "input", None) else None


def _cmd_resume(args: argparse.Namespace) -> int:
    from .run import RunFolder

    settings = _settings(args)
    folder, saved = resumable(settings, args.run_id)
    origin = saved.get("origin") if isinstance(saved.get("origin"), dict) else {}
    demo = origin.get("kind") == "demo"  # the demo world brings its own inputs
    inputs = None
    if not demo:
        given = _given_input(args, settings)
        inputs = chosen_input(folder.name, saved.get("input_dir"), given, _confirmer())
    settings = resumed_settings(settings, saved, args.model, inputs)
    brain = _brain(settings)

    async def resume(settings: Settings) -> RunResult:
        from .hub import Host
        from .progress import Progress

        quiet = settings.quiet or settings.json_output
        progress = Progress(quiet=quiet, verbose=settings.verbose)
        host = Host(settings, brain, on_event=progress)
        try:
            return await _interruptible(
                host, host.resume(RunFolder.open(folder, settings.input_dir))
            )
        finally:
            progress.close()

    if demo:
        from demo.web import demo_world

        with demo_world(settings.runs_dir, ports=demo_ports(origin)) as world:
            result = _run_async(resume(demo_settings(settings, world)))
    else:
        result = _run_async(resume(settings))
    return _report(result, settings)


def _cmd_replay(args: argparse.Namespace) -> int:
    from subagents.tape import Tape

    from .brains.providers import replay_brain
    from .durability.replay import compare, open_recording, replay_input, replay_settings
    from .run import RunFolder

    base = _settings(args)
    recording = open_recording(base.runs_dir, args.run_id)
    inputs = replay_input(base, recording, _given_input(args, base), _confirmer())
    settings = replay_settings(base, recording, inputs)

    async def replay() -> tuple[RunResult, Any]:
        from .hub import Host
        from .progress import Progress

        tape = await Tape.load(RunFolder.open(recording.folder, settings.input_dir).host_service)
        brain = replay_brain(settings.model, tape)
        quiet = settings.quiet or settings.json_output
        host = Host(settings, brain, on_event=Progress(quiet=quiet), tape=tape)
        result = await _interruptible(host, host.run(str(recording.record["question"])))
        verdict = compare(recording, result, tape)
        await result.run.host_service.write_text(
            "/internal/replay.json", json.dumps(verdict.to_dict(), ensure_ascii=False, indent=2)
        )
        return result, verdict

    result, verdict = _run_async(replay())  # type: ignore[arg-type]
    if settings.json_output:
        print(printable_json({**verdict.to_dict(), "run": result.run.id}, indent=None))
    elif not settings.quiet:
        print(f"Replayed run {recording.id} as {result.run.id} ({result.run.path}).")
    if verdict.reproduced:
        if not settings.json_output:
            print("Reproduced: the replay made the same requests and wrote the same report.")
        return 0
    print(f"quartet: the replay diverged: {printable(verdict.divergences[0])}", file=sys.stderr)
    if len(verdict.divergences) > 1:
        print(
            f"quartet: {len(verdict.divergences) - 1} more difference(s) in "
            f"{result.run.path / 'internal' / 'replay.json'}",
            file=sys.stderr,
        )
    return 1


def _cmd_batch(args: argparse.Namespace) -> int:
    from .batch.command import run_command

    return run_command(args)


def _cmd_mcp(args: argparse.Namespace) -> int:
    import asyncio

    from .mcp import serve_subagent

    asyncio.run(serve_subagent(args.subagent, _settings(args), args.workspace))
    return 0


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


def _status(run: RunSummary) -> str:
    return run.status if run.exit_code is None else f"{run.status} ({run.exit_code})"


def no_runs_message(runs_dir: Path) -> str:
    """What ``quartet runs`` says when it finds none: the folder it looked in (absolute),
    and how to point it at another."""
    where = printable(str(Path(runs_dir).absolute()))
    return (
        f"No runs in {where}. Runs are looked for in ./runs unless --runs-dir DIR or the "
        "QUARTET_RUNS_DIR environment variable names another folder."
    )


def _cmd_runs(args: argparse.Namespace) -> int:
    runs_dir = runs_dir_setting(args.runs_dir)
    runs = list_runs(runs_dir)
    if args.json:
        print(printable_json([r.to_dict() for r in runs]))
        return 0
    if not runs:
        print(no_runs_message(runs_dir))
        return 0
    header = ("ID", "STATUS (EXIT)", "ANSWERED", "TIME", "STARTED", "QUESTION")
    rows = [
        (
            printable(r.id),
            printable(_status(r)),
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
    exit_text = f", exit {run.exit_code}" if run.exit_code is not None else ""
    _line(f"Run {run.id}: {run.status}{exit_text}")
    _line(f"Question:  {run.question or '?'}")
    _line(f"Started:   {_local_time(run)}    Time: {_seconds(run.seconds)}")
    _line(f"Folder:    {run.path}")
    if run.status == "stopped":
        _line(f"It stopped before it finished; continue it with: quartet resume {run.id}")
    elif run.status == "incomplete":
        _line("It stopped before its first checkpoint: there is nothing to resume.")
    elif run.status == "interrupted" and run.resumable:
        _line(f"It was interrupted; continue its research with: quartet resume {run.id}")
    if detail.plan:
        _line(f"Plan:      {told_counts(s.status for s in detail.plan)}")
        width = max(len(s.status) for s in detail.plan)
        for sub in detail.plan:
            _line(f"  {sub.id}  {sub.status.ljust(width)}  {sub.text} ({sub.evidence} evidence)")
    else:
        _line("Plan:      none recorded")
    _line("Reports:" if detail.outputs else "Reports:   none")
    for path in detail.outputs:
        _line(f"  {path}")
    check = detail.citation_check
    accuracy = check.get("citation_accuracy")
    figures = [
        ("citations", detail.citations),
        ("citations dropped", check.get("dropped")),
        ("claims unsupported", check.get("unsupported")),
        ("citation accuracy", f"{accuracy:.0%}" if accuracy is not None else None),
        ("pages read", detail.pages_read),
        *((f"{kind} tokens", count) for kind, count in detail.tokens.items()),
    ]
    shown = [f"{name}: {value}" for name, value in figures if value is not None]
    if shown:
        _line(" · ".join(shown).capitalize())
    _line("Failed:" if detail.failures else "Failed:    nothing")
    for failure in detail.failures:
        _line(f"  {failure.where}: {_shorten(failure.reason, 200)}")


def _cmd_show(args: argparse.Namespace) -> int:
    detail = read_run(find_run(runs_dir_setting(args.runs_dir), args.run_id))
    if args.json:
        print(printable_json(detail.to_dict()))
    else:
        _print_run(detail)
    return 0


#: The examples ``quartet --help`` ends with.
EXAMPLES = """examples:
  quartet demo                      research the demo question offline, on a bundled web
  quartet demo --question "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"
  quartet run "How do heat pumps work?" --input myfiles/ --formats md,html
  quartet runs                      list past runs, newest first
  quartet show 20260101-120000      one run's summary (an id, or a prefix only it has)
  quartet resume 20260101-120000    continue a stopped or interrupted run

"quartet COMMAND --help" lists a command's options."""

#: ``--runs-dir``'s help, in every command that takes it.
RUNS_DIR_HELP = (
    "where run folders are (default: runs, in the current folder; the QUARTET_RUNS_DIR "
    "environment variable sets it too)"
)

#: Each command's examples, at the end of its ``--help``.
COMMAND_EXAMPLES = {
    "demo": """examples:
  quartet demo
  quartet demo --question "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"
  quartet demo --question "How do locks on the Grand Canal work?" --formats md,html""",
    "run": """examples:
  quartet run "How do heat pumps work?"
  quartet run "Why did colony losses rise?" --input myfiles/ --formats md,pdf
  quartet run "How was the Grand Canal built?" --model openai:gpt-4o-mini --max-pages 12""",
    "resume": """examples:
  quartet resume 20260101-120000
  quartet resume 20260101-120000-ab12cd --input myfiles/ --runs-dir /data/runs""",
    "replay": """examples:
  quartet run "How do heat pumps work?" --record
  quartet replay 20260101-120000""",
    "batch": """examples:
  quartet batch questions.txt --demo
  quartet batch questions.csv --formats md,html --concurrency 2""",
    "runs": """examples:
  quartet runs
  quartet runs --runs-dir /data/runs --json""",
    "show": """examples:
  quartet show 20260101-120000
  quartet show 20260101 --json""",
    "tools": """examples:
  quartet tools
  quartet tools --json""",
    "mcp": """examples:
  quartet mcp search
  quartet mcp file --input myfiles/""",
}


def _examples(command: str) -> dict[str, Any]:
    """The keyword arguments that give a command's parser its examples in ``--help``."""
    return {
        "epilog": COMMAND_EXAMPLES[command],
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


INPUT_AGAIN_HELP = (
    "folder of input files mounted read-only as /userinput/; the run folder only says "
    "where its inputs were: without --input, mounting that folder again needs your "
    "confirmation at a terminal (elsewhere it is an error)"
)


class Parser(argparse.ArgumentParser):
    """An argument parser that takes no abbreviations (``--max-page`` is not
    ``--max-pages``) and suggests the nearest name for a misspelled command or option.

    Its sub-commands' parsers are of the same class (argparse makes them so), so each one
    reports its own errors with its own usage.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        """Print the usage and ``message`` with a "did you mean" when one fits; exit 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}{self._suggestion(message)}\n")

    def _suggestion(self, message: str) -> str:
        """``; did you mean demo?`` for an invalid choice or an unknown option."""
        choice = _INVALID_CHOICE.search(message)
        if choice:
            names = [a.choices for a in self._actions if isinstance(a.choices, dict)]
            known = [name for choices in names for name in choices]
            return _did_you_mean(choice.group(1), known)
        if message.startswith("unrecognized arguments:"):
            options = [o for a in self._actions for o in a.option_strings]
            words = message.removeprefix("unrecognized arguments:").split()
            for word in (w.split("=", 1)[0] for w in words if w.startswith("--")):
                hint = _did_you_mean(word, options)
                if hint:
                    return hint
        return ""


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)'")


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    """``; did you mean NAME?`` for the name in ``known`` nearest to ``word``, or ``""``."""
    near = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {near[0]}?" if near else ""


VERBOSE_HELP = (
    "show every task and tool call while the run works (the transcript in the run folder "
    "keeps them too)"
)


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from .version import quartet_version

        print(f"quartet {quartet_version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="quartet",
        description="Search → Browser → File → Generate: a question in, a cited report out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="one of the commands below"
    )

    tools = sub.add_parser(
        "tools", help="list each subagent's tools and schemas", **_examples("tools")
    )
    tools.add_argument("--json", action="store_true", help="print {subagent: [schema, ...]}")
    tools.set_defaults(func=_cmd_tools)

    def runs_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--runs-dir",
            dest="runs_dir",
            metavar="DIR",
            help=RUNS_DIR_HELP,
        )

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--formats", help="comma-separated: md,html,pdf,pptx (default: all)")
        p.add_argument(
            "--model",
            help="brain: offline (default) or PROVIDER:NAME, e.g. "
            "openai:gpt-4o-mini; also QUARTET_MODEL",
        )
        runs_dir(p)
        p.add_argument(
            "--max-rounds",
            dest="max_rounds",
            type=int,
            metavar="N",
            help="research rounds per sub-question (default 3)",
        )
        p.add_argument(
            "--max-pages",
            dest="max_pages",
            type=int,
            metavar="N",
            help="pages read in the whole run (default 24)",
        )
        p.add_argument(
            "--concurrency",
            type=int,
            metavar="N",
            help="tasks running at once (default 3)",
        )
        p.add_argument(
            "--max-tokens",
            dest="max_tokens",
            type=int,
            metavar="N",
            help="model tokens (read and written) the run may use; once spent, research "
            "stops and the report is written from what was found (also QUARTET_MAX_TOKENS)",
        )
        p.add_argument(
            "--max-cost",
            dest="max_cost",
            type=float,
            metavar="AMOUNT",
            help="model cost the run may reach, in the currency of the price table in "
            "quartet.toml; once spent, research stops as with --max-tokens "
            "(also QUARTET_MAX_COST)",
        )
        p.add_argument(
            "--approve",
            metavar="TOOL[,TOOL]",
            help="ask before each call of these tools (e.g. http_download): approve, reject "
            "with a reason, or edit the arguments; without a terminal the configured default "
            "applies (deny unless set)",
        )
        p.add_argument(
            "--review-plan",
            dest="review_plan",
            action="store_true",
            help="show the plan and let you edit it before research starts (needs a terminal)",
        )
        p.add_argument(
            "--plan",
            metavar="FILE",
            help="research this plan (YAML or JSON list of sub-questions) instead of planning",
        )
        p.add_argument(
            "--record",
            action="store_true",
            help="keep every model answer and HTTP response in the run folder, so that "
            "quartet replay RUN_ID can run it again with no network and no keys",
        )
        p.add_argument("--quiet", action="store_true", help="print only the report paths")
        p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
        p.add_argument("--json", action="store_true", help="print the run record as JSON")

    demo = sub.add_parser(
        "demo", help="run the whole pipeline offline on a bundled local web", **_examples("demo")
    )
    demo.add_argument("--question", help="ask something else of the bundled web")
    common(demo)
    demo.set_defaults(func=_cmd_demo, input=None)

    run = sub.add_parser("run", help="research QUESTION on the web", **_examples("run"))
    run.add_argument(
        "question",
        metavar="QUESTION",
        help="what to research, in English or Chinese; quote it as one argument",
    )
    run.add_argument("--input", metavar="DIR", help="folder of input files (read-only)")
    common(run)
    run.set_defaults(func=_cmd_run)
    resume = sub.add_parser(
        "resume",
        help="continue a stopped or interrupted run from its last checkpoint",
        **_examples("resume"),
    )
    resume.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    resume.add_argument("--model", help="brain (default: the one the run started with)")
    runs_dir(resume)
    resume.add_argument("--input", metavar="DIR", help=INPUT_AGAIN_HELP)
    resume.add_argument("--quiet", action="store_true", help="print only the report paths")
    resume.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    resume.add_argument("--json", action="store_true", help="print the run record as JSON")
    resume.set_defaults(func=_cmd_resume)

    replay = sub.add_parser(
        "replay",
        help="run a recorded run (--record) again from its recording, with no network and "
        "no keys; exit 0 when it is reproduced, 1 at the first divergence",
        **_examples("replay"),
    )
    replay.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    runs_dir(replay)
    replay.add_argument("--input", metavar="DIR", help=INPUT_AGAIN_HELP)
    replay.add_argument("--quiet", action="store_true", help="print only the verdict")
    replay.add_argument("--json", action="store_true", help="print the verdict as JSON")
    replay.set_defaults(func=_cmd_replay)
    batch = sub.add_parser(
        "batch",
        help="research many questions, each its own run, several at once",
        **_examples("batch"),
    )
    batch.add_argument(
        "questions",
        metavar="QUESTIONS",
        help="a text file (one question a line), or a CSV or XLSX file with a question "
        "column and optional input and formats columns",
    )
    batch.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: worker processes on this machine (default); ray: Ray tasks",
    )
    batch.add_argument(
        "--address",
        metavar="ADDR",
        help="the Ray cluster to use (default: start a local one on 127.0.0.1)",
    )
    batch.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="questions running at once (default: the cores, or the cluster's CPUs)",
    )
    batch.add_argument(
        "--input", metavar="DIR", help="input folder for rows that name none (read-only)"
    )
    batch.add_argument("--formats", help="report formats for rows that name none: md,html,pdf,pptx")
    batch.add_argument("--model", help="brain of every run: offline (default) or PROVIDER:NAME")
    batch.add_argument(
        "--demo",
        action="store_true",
        help="research the bundled demo web, served once for the whole batch",
    )
    batch.add_argument(
        "--retries",
        type=int,
        metavar="N",
        help="further attempts for a question that fails, dies or times out (default 2)",
    )
    batch.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="time an attempt may take before its worker is killed (default 3600)",
    )
    batch.add_argument(
        "--max-rounds", dest="max_rounds", type=int, metavar="N", help="rounds per sub-question"
    )
    batch.add_argument(
        "--max-pages", dest="max_pages", type=int, metavar="N", help="pages read per question"
    )
    runs_dir(batch)
    batch.add_argument("--quiet", action="store_true", help="print only the summaries' paths")
    batch.add_argument("--json", action="store_true", help="print the batch's rows as JSON")
    batch.set_defaults(func=_cmd_batch)

    mcp = sub.add_parser(
        "mcp", help="serve one subagent's toolkit as an MCP server (stdio)", **_examples("mcp")
    )
    mcp.add_argument(
        "subagent",
        choices=PIPELINE_ORDER,
        help=f"the subagent whose tools are served: {', '.join(PIPELINE_ORDER)}",
    )
    mcp.add_argument(
        "--workspace",
        metavar="DIR",
        help="folder behind /workspace/, read, write and delete (default: a fresh folder "
        "under the runs folder)",
    )
    mcp.add_argument("--input", metavar="DIR", help="folder mounted read-only as /userinput/")
    runs_dir(mcp)
    mcp.set_defaults(func=_cmd_mcp)

    runs = sub.add_parser("runs", help="list past runs, newest first", **_examples("runs"))
    runs_dir(runs)
    runs.add_argument("--json", action="store_true", help="print the list as JSON")
    runs.set_defaults(func=_cmd_runs)

    show = sub.add_parser("show", help="print one run's summary", **_examples("show"))
    show.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    runs_dir(show)
    show.add_argument("--json", action="store_true", help="print the summary as JSON")
    show.set_defaults(func=_cmd_show)

    from webapp.command import add_parser as add_serve_parser  # the web app: quartet serve

    add_serve_parser(sub, RUNS_DIR_HELP)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m host`` and the ``quartet`` script."""
    try:
        try:
            return _command(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:
        return _pipe_closed()


def _command(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; its exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # told by the command's own parser, with its usage, not the top-level one
        _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    # no credential value reaches the terminal; the environment is read for them once
    with secret_scope(secret_values()), scrubbed_output():
        try:
            return int(args.func(args) or 0)
        except ValueError as exc:  # ConfigError, a bad --model, an unknown run id
            parser.exit(2, f"quartet: error: {printable(str(exc))}\n")
        except RunStopped as exc:
            parser.exit(130, f"quartet: {exc}\n")
        except KeyboardInterrupt:
            parser.exit(130, "quartet: interrupted; the run folder keeps what was done\n")


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of sub-command ``command`` (``parser`` itself when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    return parser


def _pipe_closed() -> int:
    """The reader of stdout went away (``quartet runs | head -1``): end quietly.

    As the Python documentation recommends (signal module, "Note on SIGPIPE"), stdout is
    pointed at the null device, so that the interpreter's own flush at exit finds no
    broken pipe; the status is the one a Unix tool killed by SIGPIPE has.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file (a test's capture): nothing to flush
        pass
    finally:
        os.close(devnull)
    return BROKEN_PIPE_EXIT
