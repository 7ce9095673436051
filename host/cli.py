"""The command line: ``quartet {run,demo,runs,show,tools,mcp}`` (also ``python -m host``).

Start-up is kept fast: this module imports only the standard library and light modules
(settings, run records). The Host, the brains, the subagents' tools, agentscope and rich
are imported inside the commands that use them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from subagents.names import PIPELINE_ORDER
from subagents.settings import Keys, NetworkPolicy

from .config import ConfigError, Settings, load_settings, make_runs_dir, runs_dir_setting
from .runs import RunDetail, RunSummary, find_run, list_runs, read_run

if TYPE_CHECKING:
    from .brains import Brain
    from .hub import RunResult

QUESTION_WIDTH = 60


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
        "quiet": getattr(args, "quiet", False),
        "json": getattr(args, "json", False),
    }
    return load_settings(flags)


def _report(result: RunResult, settings: Settings) -> int:
    """Print what the run produced; its exit status (0 answered, 3 nothing, 1 no report)."""
    from rich.console import Console

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
            console.print(line, highlight=False, soft_wrap=True)
    code = result.exit_code
    if code == 3:
        parts = len(result.plan.subquestions) if result.plan else 0
        print(
            f"quartet: the report answers none of the question's {parts} parts: no relevant "
            "evidence was found (see the report for what was searched)",
            file=sys.stderr,
        )
    return code


def _brain(settings: Settings) -> Brain:
    from .brains import make_brain

    return make_brain(settings.model)


def _pipeline(question: str, settings: Settings, brain: Brain) -> RunResult:
    import asyncio

    from .hub import Host
    from .progress import Progress

    host = Host(settings, brain, on_event=Progress(quiet=settings.quiet or settings.json_output))
    return asyncio.run(host.run(question))


def _cmd_run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if not args.question.strip():
        raise ConfigError("the question is empty")
    brain = _brain(settings)
    make_runs_dir(settings.runs_dir)
    return _report(_pipeline(args.question, settings, brain), settings)


def demo_settings(settings: Settings, world: Any) -> Settings:
    """``settings`` pointed at a running demo world: its engines, inputs and hosts only.

    API keys are left out, so none can travel even to the local engines.
    """
    tools = replace(
        settings.tools,
        endpoints=dict(world.endpoints),
        network=NetworkPolicy.parse(
            ",".join(h.rsplit(":", 1)[0] for h in world.hosts) + ",localhost", only=True
        ),
        keys=Keys(),
    )
    return replace(settings, input_dir=world.input_dir, tools=tools)


def _cmd_demo(args: argparse.Namespace) -> int:
    from demo.web import demo_world

    settings = _settings(args)
    brain = _brain(settings)
    make_runs_dir(settings.runs_dir)
    with demo_world(settings.runs_dir) as world:
        question = args.question or world.question
        result = _pipeline(question, demo_settings(settings, world), brain)
    return _report(result, settings)


def _cmd_mcp(args: argparse.Namespace) -> int:
    import asyncio

    from .mcp import serve_subagent

    asyncio.run(serve_subagent(args.subagent, args.workspace, args.input))
    return 0


def _shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
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


def _cmd_runs(args: argparse.Namespace) -> int:
    runs_dir = runs_dir_setting(args.runs_dir)
    runs = list_runs(runs_dir)
    if args.json:
        print(json.dumps([r.to_dict() for r in runs], indent=2, ensure_ascii=False))
        return 0
    if not runs:
        print(f"No runs in {runs_dir}.")
        return 0
    header = ("ID", "STATUS (EXIT)", "ANSWERED", "TIME", "STARTED", "QUESTION")
    rows = [
        (
            r.id,
            _status(r),
            _answered(r),
            _seconds(r.seconds),
            _local_time(r),
            _shorten(r.question or "?", QUESTION_WIDTH)
            + (f"  — resume with: quartet resume {r.id}" if r.resumable else ""),
        )
        for r in runs
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        print("  ".join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]]))
    return 0


def _print_run(detail: RunDetail) -> None:
    run = detail.summary
    exit_text = f", exit {run.exit_code}" if run.exit_code is not None else ""
    print(f"Run {run.id}: {run.status}{exit_text}")
    print(f"Question:  {run.question or '?'}")
    print(f"Started:   {_local_time(run)}    Time: {_seconds(run.seconds)}")
    print(f"Folder:    {run.path}")
    if run.status == "stopped":
        print(f"It stopped before it finished; continue it with: quartet resume {run.id}")
    elif run.status == "incomplete":
        print("It stopped before its first checkpoint: there is nothing to resume.")
    if detail.plan:
        print(f"Plan:      {_answered(run)} sub-questions answered")
        width = max(len(s.status) for s in detail.plan)
        for sub in detail.plan:
            print(f"  {sub.id}  {sub.status.ljust(width)}  {sub.text} ({sub.evidence} evidence)")
    else:
        print("Plan:      none recorded")
    print("Reports:" if detail.outputs else "Reports:   none")
    for path in detail.outputs:
        print(f"  {path}")
    figures = [
        ("citations", detail.citations),
        ("pages read", detail.pages_read),
        *((f"{kind} tokens", count) for kind, count in detail.tokens.items()),
    ]
    shown = [f"{name}: {value}" for name, value in figures if value is not None]
    if shown:
        print(" · ".join(shown).capitalize())
    print("Failed:" if detail.failures else "Failed:    nothing")
    for failure in detail.failures:
        print(f"  {failure.where}: {_shorten(failure.reason, 200)}")


def _cmd_show(args: argparse.Namespace) -> int:
    detail = read_run(find_run(runs_dir_setting(args.runs_dir), args.run_id))
    if args.json:
        print(json.dumps(detail.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_run(detail)
    return 0


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from .version import quartet_version

        print(f"quartet {quartet_version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quartet",
        description="Search → Browser → File → Generate: a question in, a cited report out.",
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="list each subagent's tools and schemas")
    tools.add_argument("--json", action="store_true", help="print {subagent: [schema, ...]}")
    tools.set_defaults(func=_cmd_tools)

    def runs_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--runs-dir",
            dest="runs_dir",
            metavar="DIR",
            help="where run folders are (default: runs; also QUARTET_RUNS_DIR)",
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
        p.add_argument("--quiet", action="store_true", help="print only the report paths")
        p.add_argument("--json", action="store_true", help="print the run record as JSON")

    demo = sub.add_parser("demo", help="run the whole pipeline offline on a bundled local web")
    demo.add_argument("--question", help="ask something else of the bundled web")
    common(demo)
    demo.set_defaults(func=_cmd_demo, input=None)

    run = sub.add_parser("run", help="research QUESTION on the web")
    run.add_argument("question")
    run.add_argument("--input", metavar="DIR", help="folder of input files (read-only)")
    common(run)
    run.set_defaults(func=_cmd_run)
    mcp = sub.add_parser("mcp", help="serve one subagent's toolkit as an MCP server (stdio)")
    mcp.add_argument("subagent", choices=PIPELINE_ORDER)
    mcp.add_argument("--workspace", default=".", help="folder behind /workspace/ (default: .)")
    mcp.add_argument("--input", help="folder mounted read-only as /userinput/")
    mcp.set_defaults(func=_cmd_mcp)

    runs = sub.add_parser("runs", help="list past runs, newest first")
    runs_dir(runs)
    runs.add_argument("--json", action="store_true", help="print the list as JSON")
    runs.set_defaults(func=_cmd_runs)

    show = sub.add_parser("show", help="print one run's summary")
    show.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    runs_dir(show)
    show.add_argument("--json", action="store_true", help="print the summary as JSON")
    show.set_defaults(func=_cmd_show)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m host`` and the ``quartet`` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:  # ConfigError, a bad --model, an unknown run id
        parser.exit(2, f"quartet: error: {exc}\n")
    except KeyboardInterrupt:
        parser.exit(130, "quartet: interrupted; the run folder keeps what was done\n")
