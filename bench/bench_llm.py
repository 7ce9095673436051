"""The LLM path as a provider sees it: the demo question run through a scripted model
behind the real OpenAI and Anthropic wire formats, on 127.0.0.1.

The scripted servers are the test suite's (``tests/openai_server.py``,
``tests/anthropic_server.py``): they validate every request against the provider's rules
and answer 400 with the provider's text when one is broken. Printed per wire format:
requests, invalid requests and request bytes by role (the Host, its planner, each
subagent, the tools' own model calls), the tokens the run's ledger counted by stage, the
report's citation check (citations, dropped, unsupported claims, citation accuracy) and
the wall time::

    .venv/bin/python bench/bench_llm.py [--wire openai|anthropic|both]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from anthropic_server import ScriptedAnthropic
from openai_server import ScriptedOpenAI

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host

KEYS = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
SERVERS = {"openai": ScriptedOpenAI, "anthropic": ScriptedAnthropic}
FORMATS = ("md", "html", "pdf", "pptx")


def run(wire: str, folder: Path) -> tuple[Any, dict[str, Any], float]:
    """One demo run against the scripted ``wire`` server: the server, run.json, seconds."""
    key, url = KEYS[wire]
    server = SERVERS[wire]() if wire == "anthropic" else SERVERS[wire](formats=FORMATS)
    with server:
        os.environ[key] = "bench-key-not-a-secret"
        os.environ[url] = server.base_url
        settings = Settings(runs_dir=folder / "runs", formats=FORMATS, quiet=True)
        started = time.perf_counter()
        with demo_world(folder / "site") as world:
            host = Host(demo_settings(settings, world), make_brain(f"{wire}:loopback-model"))
            result = asyncio.run(host.run(world.question))
        seconds = time.perf_counter() - started
    record = json.loads(result.run.real_path("/internal/run.json").read_text())
    return server, record, seconds


def by_role(server: Any) -> dict[str, tuple[int, int]]:
    """``role → (requests, bytes)`` of the requests the server answered, in order."""
    counts: Counter[str] = Counter()
    sizes: defaultdict[str, int] = defaultdict(int)
    for role, body in zip(server.roles, server.requests, strict=False):
        counts[role] += 1
        sizes[role] += len(json.dumps(body, ensure_ascii=False).encode())
    return {role: (counts[role], sizes[role]) for role in counts}


def report(wire: str, server: Any, record: dict[str, Any], seconds: float) -> None:
    print(f"\n== {wire} wire: {len(server.requests)} requests, {len(server.invalid)} invalid, "
          f"{seconds:.1f} s, exit {record.get('exit_code')}")  # fmt: skip
    print(f"{'role':14} {'requests':>8} {'KB sent':>9}")
    for role, (n, size) in sorted(by_role(server).items()):
        print(f"{role:14} {n:>8} {size / 1024:>9.1f}")
    tokens = record.get("tokens") or {}
    print(f"{'stage':22} {'input':>9} {'output':>8} {'calls':>6}")
    for stage, used in sorted((tokens.get("by_stage") or {}).items()):
        print(f"{stage:22} {used.get('input', 0):>9,} {used.get('output', 0):>8,} "
              f"{used.get('calls', 0):>6}")  # fmt: skip
    print(f"{'total':22} {tokens.get('input', 0):>9,} {tokens.get('output', 0):>8,} "
          f"{tokens.get('calls', 0):>6}")  # fmt: skip
    check = record.get("citation_check") or {}
    accuracy = check.get("citation_accuracy")
    shown = f"{accuracy:.0%}" if isinstance(accuracy, (int, float)) else "—"
    checked = check.get("claims_checked", "—")
    print(f"citations {record.get('citations')}, dropped {check.get('dropped', '—')}, "
          f"unsupported claims {check.get('unsupported', '—')} of {checked} checked, "
          f"citation accuracy {shown}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--wire", choices=["openai", "anthropic", "both"], default="both")
    args = parser.parse_args()
    wires = ["openai", "anthropic"] if args.wire == "both" else [args.wire]
    with tempfile.TemporaryDirectory(prefix="bench-llm-") as tmp:
        for wire in wires:
            server, record, seconds = run(wire, Path(tmp) / wire)
            report(wire, server, record, seconds)


if __name__ == "__main__":
    main()
