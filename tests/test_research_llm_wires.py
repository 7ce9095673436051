"""The whole research pipeline with an LLM brain behind each wire format (OpenAI,
Anthropic, Ollama) on loopback, healthy and under faults: a hung page answer inside
viewer_fetch, a rate limit with Retry-After, a malformed body, a provider that only
answers 503. run.json and the CLI summary carry the model calls, tokens and cost."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic_server import ScriptedAnthropic
from faulty_openai_server import FaultyOpenAI
from ollama_server import ScriptedOllama
from rich.console import Console
from wire_faults import Faults, host, page_answer, planner

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import ModelPrice, make_brain
from host.config import Settings
from host.display.progress import summary_table
from host.orchestration.hub import Host

CANARY = "sk-wire-canary-5c81d0"
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
URLS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL", "ollama": "OLLAMA_HOST"}
STAGES = {"host", "file", "search", "browser", "browser/viewer_fetch", "generate"}
DELEGATIONS = ["file", "search", "search", "browser", "browser", "generate"]
OPENAI_PRICE = ModelPrice(input=0.15, output=0.6, cache_read=0.075)
ANTHROPIC_PRICE = ModelPrice(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)


def wire_run(tmp_path, monkeypatch, wire: str, server: Any, **overrides: Any):
    """Run the demo question with ``wire:loopback-model`` against ``server``."""
    if wire in KEYS:
        monkeypatch.setenv(KEYS[wire], CANARY)
    monkeypatch.setenv(URLS[wire], server.base_url)
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md", "html"), quiet=True)
    for name, value in overrides.items():
        setattr(settings, name, value)
    with demo_world(settings.runs_dir) as world:
        host_ = Host(demo_settings(settings, world), make_brain(f"{wire}:loopback-model"))
        result = asyncio.run(host_.run(world.question))
    return result, json.loads(result.run.real_path("/internal/run.json").read_text())


def assert_researched(result) -> None:
    assert result.plan.planner == "model"
    assert [d.subagent for d in result.delegations] == DELEGATIONS
    assert all(d.status == "ok" for d in result.delegations), [
        d.summary() for d in result.delegations
    ]
    assert result.outputs == ["/workspace/reports/report.md", "/workspace/reports/report.html"]
    assert result.exit_code == 0


def assert_ledger_adds_up(tokens: dict[str, Any], calls: int) -> None:
    """Totals equal the sums by stage and by model; every answered request is counted."""
    assert tokens["calls"] == calls
    for key in ("input", "output", "cache_read", "cache_write", "calls"):
        assert sum(s[key] for s in tokens["by_stage"].values()) == tokens[key], key
        assert sum(m[key] for m in tokens["by_model"].values()) == tokens[key], key


def assert_key_stays_out(result) -> None:
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path


# -- OpenAI, with a hung page answer, a rate limit and a malformed body ------------------


@pytest.fixture(scope="module")
def openai_faults(tmp_path_factory):
    faults = (
        Faults()
        .add("hang", when=page_answer)
        .add("status", status=429, headers={"Retry-After": "1"}, when=planner)
        .add("malformed", when=host)
    )
    with pytest.MonkeyPatch.context() as monkeypatch, FaultyOpenAI(faults=faults) as server:
        result, record = wire_run(
            tmp_path_factory.mktemp("openai-faults"),
            monkeypatch,
            "openai",
            server,
            model_timeout=1.0,
            prices={"openai:loopback-model": OPENAI_PRICE},
        )
        yield server, result, record


def test_a_hung_page_answer_times_out_and_viewer_fetch_still_answers_with_the_model(
    openai_faults,
):
    server, result, record = openai_faults
    assert_researched(result)
    assert server.faults.played == ["429", "malformed", "hang"]  # in the order played
    pages = [c for c in result.calls if c.name == "viewer_fetch"]
    assert pages and all("Answer (model):" in c.text for c in pages), [c.text for c in pages]
    assert record["model_calls"]["faults"]["timeout"] >= 1
    assert record["model_calls"]["failed"] == 0


def test_model_calls_in_run_json_count_attempts_retries_and_faults(openai_faults):
    server, _, record = openai_faults
    calls = record["model_calls"]
    assert calls["faults"].keys() >= {"timeout", "http_429", "malformed_body"}
    assert calls["faults"]["http_429"] == calls["faults"]["malformed_body"] == 1
    assert calls["attempts"] == calls["calls"] + calls["retries"]
    assert calls["retries"] == sum(calls["faults"].values()) >= 3
    assert calls["failures"] == {} and calls["failed"] == 0
    assert calls["attempts"] == len(server.requests)


def test_tokens_by_stage_and_model_with_cost_in_run_json(openai_faults):
    server, result, record = openai_faults
    tokens = record["tokens"]
    answered = len(server.requests) - len(server.faults.played)
    assert_ledger_adds_up(tokens, answered)
    assert tokens["input"] == 11 * answered and tokens["output"] == 7 * answered
    assert set(tokens["by_stage"]) >= STAGES
    assert {s for s in tokens["by_stage"] if s.startswith("generate/")}  # the report's prose
    assert set(tokens["by_model"]) == {"openai:loopback-model"}
    expected = (tokens["input"] * 0.15 + tokens["output"] * 0.6) / 1_000_000
    assert tokens["cost"] == pytest.approx(expected, abs=1e-6)
    assert tokens["by_model"]["openai:loopback-model"]["cost"] == tokens["cost"]
    # each stage's cost and the total are rounded to a millionth of a dollar: the stages
    # add up to the total within that rounding
    rounding = 5e-7 * (len(tokens["by_stage"]) + 1)
    stages = sum(s["cost"] for s in tokens["by_stage"].values())
    assert stages == pytest.approx(tokens["cost"], abs=rounding)
    assert result.tokens == tokens


def test_the_cli_summary_shows_tokens_cost_stages_and_retries(openai_faults):
    _, result, _ = openai_faults
    console = Console(record=True, width=200)
    console.print(summary_table(result))
    text = console.export_text()
    tokens = result.tokens
    assert f"{tokens['input']} in / {tokens['output']} out" in text
    assert f"cost {tokens['cost']:.4f}" in text
    assert "browser/viewer_fetch" in text
    assert "retries" in text and "http_429 ×1" in text


# -- OpenAI, a provider that answers only 503 ----------------------------------------------


def test_a_provider_that_only_answers_503_fails_the_run_naming_it(tmp_path, monkeypatch):
    faults = Faults().add("status", status=503, times=1000)
    with FaultyOpenAI(faults=faults) as server:
        result, record = wire_run(tmp_path, monkeypatch, "openai", server, model_attempts=2)
    message = "openai model loopback-model: HTTP 503 after 2 attempts"
    assert f"Host: {message}" in result.errors  # no class name: the reason alone
    assert any(message in e for e in result.errors if e.startswith("generate"))
    assert result.plan.planner == f"offline (fallback: the planning call failed ({message}))"
    calls = record["model_calls"]
    assert calls["failed"] == calls["calls"] >= 3
    assert calls["failures"] == {"http_503": calls["calls"]}
    assert calls["attempts"] == 2 * calls["calls"] == len(server.requests)
    assert record["tokens"]["input"] == 0 and record["tokens"]["by_stage"] == {}
    assert not any("JSONDecodeError" in e or "APIStatusError" in e for e in result.errors)
    assert_key_stays_out(result)


# -- Anthropic: prompt caching and cache tokens in the ledger ------------------------------


@pytest.fixture(scope="module")
def anthropic_run(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch, ScriptedAnthropic() as server:
        result, record = wire_run(
            tmp_path_factory.mktemp("anthropic"),
            monkeypatch,
            "anthropic",
            server,
            prices={"anthropic:loopback-model": ANTHROPIC_PRICE},
        )
        yield server, result, record


def test_the_pipeline_runs_end_to_end_over_the_anthropic_wire(anthropic_run):
    server, result, _ = anthropic_run
    assert_researched(result)
    assert {"host", "search", "browser", "file", "generate", "page-answer", "prose"} <= set(
        server.roles
    )
    assert server.auth and all(h == CANARY for h in server.auth)
    assert CANARY not in json.dumps(server.requests)
    assert_key_stays_out(result)


def test_an_unsupported_claim_from_an_anthropic_writer_is_dropped_and_counted(anthropic_run):
    server, result, record = anthropic_run
    assert server.prose_requests == 1  # its prose cites a real id for the planted claim
    for fmt in ("md", "html"):
        path = result.run.real_path(f"/workspace/reports/report.{fmt}")
        text = " ".join(path.read_text().split())
        assert "moon bonds" not in text and server.verified_claim in text, fmt
    check = record["citation_check"]
    assert check["unsupported"] >= 1 and 0 < check["citation_accuracy"] < 1


def test_anthropic_requests_mark_the_system_prompt_and_the_last_tool(anthropic_run):
    server, _, _ = anthropic_run
    ephemeral = {"type": "ephemeral"}
    with_tools = [b for b in server.requests if b.get("tools")]
    with_system = [b for b in server.requests if b.get("system")]
    assert with_tools and with_system
    for body in with_tools:
        assert body["tools"][-1]["cache_control"] == ephemeral
        assert all("cache_control" not in t for t in body["tools"][:-1])
    for body in with_system:
        assert body["system"][-1]["cache_control"] == ephemeral


def test_cache_reads_and_writes_reach_run_json_and_the_cost(anthropic_run):
    server, _, record = anthropic_run
    tokens = record["tokens"]
    assert_ledger_adds_up(tokens, len(server.requests))
    assert tokens["cache_write"] > 0 and tokens["cache_read"] > 0
    assert (
        tokens["input"] == 11 * len(server.requests) + tokens["cache_read"] + tokens["cache_write"]
    )
    assert set(tokens["by_stage"]) >= STAGES
    fresh = tokens["input"] - tokens["cache_read"] - tokens["cache_write"]
    expected = (fresh * 3.0 + tokens["cache_read"] * 0.3 + tokens["cache_write"] * 3.75) + tokens[
        "output"
    ] * 15.0
    assert tokens["cost"] == pytest.approx(expected / 1_000_000, abs=1e-6)
    assert record["model_calls"]["retries"] == 0


# -- Ollama ----------------------------------------------------------------------------------


def test_the_pipeline_runs_end_to_end_over_the_ollama_wire_through_a_fault(tmp_path, monkeypatch):
    faults = Faults().add("html", when=host).add("status", status=503, when=page_answer)
    with ScriptedOllama(faults=faults) as server:
        result, record = wire_run(tmp_path, monkeypatch, "ollama", server)
    assert_researched(result)
    assert server.faults.played == ["html", "503"]
    assert record["model_calls"]["faults"] == {"malformed_body": 1, "http_503": 1}
    assert_ledger_adds_up(record["tokens"], len(server.requests) - 2)
    assert set(record["tokens"]["by_model"]) == {"ollama:loopback-model"}
    assert "cost" not in record["tokens"]  # no price for this model


def test_a_long_history_is_marked_cacheable_at_its_last_block(anthropic_run):
    """Once an agent's history is long enough to cache, its last block carries a
    breakpoint, so the agent's next request reads that history from the cache; a short
    one carries none (at most four breakpoints: tools, system, history)."""
    from host.brains.caching import HISTORY_CACHE_CHARS

    server, _, _ = anthropic_run
    ephemeral = {"type": "ephemeral"}

    def size(body: dict) -> int:
        return len(json.dumps(body.get("messages") or [], ensure_ascii=False))

    def marked(body: dict) -> list:
        return [
            b
            for m in body.get("messages") or []
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and "cache_control" in b
        ]

    long = [b for b in server.requests if size(b) > 3 * HISTORY_CACHE_CHARS]
    short = [b for b in server.requests if size(b) < HISTORY_CACHE_CHARS // 2]
    assert long and short
    for body in long:
        last = body["messages"][-1]["content"]
        assert isinstance(last, list) and last[-1].get("cache_control") == ephemeral
        assert len(marked(body)) == 1
    assert not any(marked(body) for body in short)
