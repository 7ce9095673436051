"""A subagent whose model never stops calling tools, through the real OpenAI and Anthropic
wire formats: its task ends at the call cap, recorded capped, and the run costs little
more than a normal one (no request resends the growing history past the cap)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic_server import ScriptedAnthropic
from cli_support import shared_cache
from openai_server import ScriptedOpenAI

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host, RunResult


class LoopingSearch(ScriptedOpenAI):
    """A search subagent that asks for ten more searches every turn and never finishes."""

    def _search(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        query = (ctx.get("queries") or ["Grand Canal"])[0]
        calls = [
            {
                "id": f"loop_{n}_{i}",
                "type": "function",
                "function": {
                    "name": "search_wiki",
                    "arguments": json.dumps({"query": f"{query} {i}"}),
                },
            }
            for i in range(10)
        ]
        return {"content": None, "tool_calls": calls}


class LoopingAnthropic(ScriptedAnthropic):
    """The looping search subagent behind the Anthropic messages API."""

    _search = LoopingSearch._search


#: wire → the normal server, the looping one, and the key and address variables
WIRES: dict[str, tuple[Any, Any, str, str]] = {
    "openai": (ScriptedOpenAI, LoopingSearch, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": (ScriptedAnthropic, LoopingAnthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}


def _server(kind: Any) -> ScriptedOpenAI:
    server = kind()
    server.formats = ("md",)
    return server


def _run(tmp_path, monkeypatch, server: ScriptedOpenAI, wire: str) -> RunResult:
    _, _, key_var, url_var = WIRES[wire]
    monkeypatch.setenv(key_var, "sk-loop-test-not-a-key")
    monkeypatch.setenv(url_var, server.base_url)
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True)
    with demo_world(shared_cache()) as world:
        host = Host(demo_settings(settings, world), make_brain(f"{wire}:loopback-model"))
        return asyncio.run(host.run(world.question))


def _bytes(server: ScriptedOpenAI) -> int:
    return sum(len(json.dumps(body)) for body in server.requests)


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_looping_subagent_is_capped_and_the_run_costs_under_three_normal_ones(
    wire, tmp_path, monkeypatch
):
    normal_kind, looping_kind, _, _ = WIRES[wire]
    with _server(normal_kind) as normal:
        base = _run(tmp_path / "normal", monkeypatch, normal, wire)
    with _server(looping_kind) as looping:
        result = _run(tmp_path / "looping", monkeypatch, looping, wire)
    searches = [d for d in result.delegations if d.subagent == "search"]
    assert searches and all(d.status == "capped" for d in searches), [d.status for d in searches]
    assert all(len(d.records) == 30 for d in searches)  # 24 run, 6 refused, then no request
    assert looping.invalid == [] and result.outputs == ["/workspace/reports/report.md"]
    assert result.tokens["input"] < 3 * base.tokens["input"]
    assert _bytes(looping) < 3 * _bytes(normal)
