"""The command line: ``python -m host {demo,run,tools}``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.console import Console

from subagents import PIPELINE_ORDER, SPECS, all_tool_schemas
from subagents.settings import Keys, NetworkPolicy

from .brains import ModelSpecError, make_brain
from .config import ConfigError, Settings, load_settings
from .hub import Host, RunResult
from .progress import Progress, output_lines, summary_table


def _cmd_tools(args: argparse.Namespace) -> int:
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


async def _pipeline(question: str, settings: Settings) -> RunResult:
    brain = make_brain(settings.model)
    host = Host(settings, brain, on_event=Progress(quiet=settings.quiet or settings.json_output))
    return await host.run(question)


def _cmd_run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    if not args.question.strip():
        raise ConfigError("the question is empty")
    return _report(asyncio.run(_pipeline(args.question, settings)), settings)


def demo_settings(settings: Settings, world: Any) -> Settings:
    """``settings`` pointed at a running demo world: its engines, inputs and hosts only.

    Fetching is limited to the ``host:port`` of each demo server (and ``localhost`` on
    the same ports), not to every port of the machine. API keys are left out, so none can
    travel even to the local engines.
    """
    ports = [h.rsplit(":", 1)[1] for h in world.hosts]
    allowed = [*world.hosts, *(f"localhost:{port}" for port in ports)]
    tools = replace(
        settings.tools,
        endpoints=dict(world.endpoints),
        network=NetworkPolicy.parse(",".join(allowed), only=True),
        keys=Keys(),
    )
    return replace(settings, input_dir=world.input_dir, tools=tools)


def _cmd_demo(args: argparse.Namespace) -> int:
    from demo.web import demo_world

    settings = _settings(args)
    with demo_world(settings.runs_dir) as world:
        question = args.question or world.question
        result = asyncio.run(_pipeline(question, demo_settings(settings, world)))
    return _report(result, settings)


def _cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp import serve_subagent

    asyncio.run(serve_subagent(args.subagent, args.workspace, args.input))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quartet",
        description="Search → Browser → File → Generate: a question in, a cited report out.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="list each subagent's tools and schemas")
    tools.add_argument("--json", action="store_true", help="print {subagent: [schema, ...]}")
    tools.set_defaults(func=_cmd_tools)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--formats", help="comma-separated: md,html,pdf,pptx (default: all)")
        p.add_argument(
            "--model",
            help="brain: offline (default) or PROVIDER:NAME, e.g. "
            "openai:gpt-4o-mini; also QUARTET_MODEL",
        )
        p.add_argument("--runs-dir", dest="runs_dir", help="where run folders go (default: runs)")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m host`` and the ``quartet`` script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ConfigError, ModelSpecError, ValueError) as exc:
        parser.exit(2, f"quartet: error: {exc}\n")
    except KeyboardInterrupt:
        parser.exit(130, "quartet: interrupted; the run folder keeps what was done\n")
