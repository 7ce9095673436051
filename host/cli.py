"""The command line: ``python -m host {demo,run,tools}``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from subagents import PIPELINE_ORDER, SPECS, all_tool_schemas


def _cmd_tools(args: argparse.Namespace) -> int:
    schemas = all_tool_schemas()
    if args.json:
        print(json.dumps(schemas, indent=2, ensure_ascii=False))
        return 0
    for name in PIPELINE_ORDER:
        if name not in schemas:
            print(f"{name}: not built yet")
            continue
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


def _cmd_pending(args: argparse.Namespace) -> int:
    built = [n for n in PIPELINE_ORDER if n in SPECS]
    missing = [n for n in PIPELINE_ORDER if n not in SPECS]
    print(
        f"'{args.command}' needs the Host pipeline, which is not built yet.\n"
        f"Subagents built: {', '.join(built) or 'none'}; not yet: {', '.join(missing) or 'none'}.\n"
        "See what exists with: python -m host tools",
        file=sys.stderr,
    )
    return 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quartet",
        description="Search → Browser → File → Generate: a question in, a cited report out.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tools = sub.add_parser("tools", help="list each subagent's tools and schemas")
    tools.add_argument("--json", action="store_true", help="print {subagent: [schema, ...]}")
    tools.set_defaults(func=_cmd_tools)

    demo = sub.add_parser("demo", help="run the whole pipeline offline on a bundled local web")
    demo.set_defaults(func=_cmd_pending)

    run = sub.add_parser("run", help="research QUESTION on the web")
    run.add_argument("question")
    run.add_argument("--input", metavar="DIR", help="folder of input files (read-only)")
    run.add_argument("--formats", default="md,html,pdf,pptx", help="comma-separated formats")
    run.add_argument("--model", help="brain: offline (default) or provider:NAME")
    run.set_defaults(func=_cmd_pending)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m host`` and the ``quartet`` script."""
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)
