"""``quartet tools`` (each subagent's tools and schemas) and ``quartet mcp`` (one
subagent's toolkit served as an MCP server)."""

from __future__ import annotations

import argparse
import json

from subagents.names import PIPELINE_ORDER

from .running import settings_of


def cmd_tools(args: argparse.Namespace) -> int:
    """``quartet tools``: each subagent's tools (of the current registry), as a list or as
    their JSON schemas."""
    from subagents import all_tool_schemas, current

    schemas, specs = all_tool_schemas(), current().specs
    if args.json:
        print(json.dumps(schemas, indent=2, ensure_ascii=False))
        return 0
    for name in PIPELINE_ORDER:
        spec = specs[name]
        print(f"{name}: {spec.description}")
        for schema in schemas[name]:
            fn = schema["function"]
            params = fn["parameters"].get("properties", {})
            required = set(fn["parameters"].get("required", []))
            sig = ", ".join(p if p in required else p + "?" for p in params)
            summary = fn.get("description", "").split("\n", 1)[0]
            print(f"  {fn['name']}({sig}) — {summary}")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    """``quartet mcp SUBAGENT``: serve the subagent's toolkit over stdio until closed."""
    import asyncio

    from host.mcp.serving import serve_subagent

    asyncio.run(serve_subagent(args.subagent, settings_of(args), args.workspace))
    return 0
