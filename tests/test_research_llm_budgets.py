"""Run budgets (``--max-tokens``, ``--max-cost``) through the OpenAI wire format on
loopback: research stops once a budget is spent, the report is still written, and
run.json, the report and the CLI say which budget ended it."""

from __future__ import annotations

import asyncio
import json

import pytest
from cli_support import shared_cache
from openai_server import ScriptedOpenAI

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.brains.ledger import ModelPrice
from host.config import ConfigError, Settings, load_settings
from host.orchestration.hub import Host
from quartet.cli.running import report

MODEL = "openai:loopback-model"


def budget_run(tmp_path, monkeypatch, **budget):
    """A demo run with ``budget`` set, against the scripted OpenAI server."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test")
    with ScriptedOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True, **budget)
        with demo_world(shared_cache()) as world:
            host = Host(demo_settings(settings, world), make_brain(MODEL))
            result = asyncio.run(host.run(world.question))
        return server, settings, result


def _record(result) -> dict:
    return json.loads((result.run.path / "internal" / "run.json").read_text())


def _report_text(result) -> str:
    [md] = [p for p in result.outputs if p.endswith(".md")]
    return result.run.real_path(md).read_text()


def test_a_spent_token_budget_stops_research_and_the_report_says_so(tmp_path, monkeypatch, capsys):
    server, settings, result = budget_run(tmp_path, monkeypatch, max_tokens=100)
    record = _record(result)
    stop = record["budget_stop"]
    assert stop["budget"] == "tokens" and stop["limit"] == 100
    assert stop["used"] >= 100
    # every call reports 18 tokens: the call that spent the budget ended research; only
    # requests already in flight finished after it (a normal run makes about 49)
    total = record["tokens"]["input"] + record["tokens"]["output"]
    assert stop["used"] < 100 + 18 and stop["used"] <= total < 100 + 18 * 4
    assert len(server.requests) * 18 == total
    assert "generate" not in server.roles and "prose" not in server.roles  # written offline
    kinds = [d["subagent"] for d in record["delegations"]]
    assert kinds[-1] == "generate" and kinds.count("browser") < 2
    assert record["status"] == "finished" and record["exit_code"] == result.exit_code
    assert result.exit_code in (0, 3) and result.outputs
    assert "token budget (100 tokens) was spent" in _report_text(result)
    # tasks in flight end on a refused request that names the budget; the Host has no error
    assert all("token budget is spent" in e for e in record["errors"]), record["errors"]
    ended = {d["status"] for d in record["delegations"] if d["error"]}
    assert ended <= {"stopped"} and len(ended) == bool(record["errors"]), ended
    code = report(result, settings)
    assert code == result.exit_code
    assert "token budget (100 tokens) was spent" in capsys.readouterr().err


def test_a_spent_cost_budget_stops_research_like_the_token_budget(tmp_path, monkeypatch):
    prices = {MODEL: ModelPrice(input=1000.0, output=1000.0)}  # 18 tokens cost 0.018
    server, _, result = budget_run(tmp_path, monkeypatch, max_cost=0.05, prices=prices)
    stop = _record(result)["budget_stop"]
    assert stop["budget"] == "cost" and stop["limit"] == 0.05
    assert 0.05 <= stop["used"] < 0.05 + 0.018 * 4
    assert len(server.requests) < 10
    assert result.outputs and result.status == "finished"
    assert "cost budget (0.0500) was spent" in _report_text(result)


def test_an_unspent_budget_changes_nothing(tmp_path, monkeypatch):
    _, _, result = budget_run(tmp_path, monkeypatch, max_tokens=10_000_000)
    record = _record(result)
    assert record["budget_stop"] is None
    assert [d["subagent"] for d in record["delegations"]].count("browser") >= 2
    assert "budget" not in _report_text(result)


def test_a_cost_budget_needs_a_price_for_the_model(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test")
    settings = Settings(runs_dir=tmp_path, max_cost=1.0)
    with pytest.raises(ValueError, match="--max-cost needs a price for openai:loopback-model"):
        Host(settings, make_brain(MODEL))


def test_budgets_come_from_flags_then_environment_then_quartet_toml(tmp_path, monkeypatch):
    toml = tmp_path / "quartet.toml"
    toml.write_text("[quartet]\nmax_tokens = 5000\nmax_cost = 0.5\n")
    monkeypatch.delenv("QUARTET_MAX_TOKENS", raising=False)
    monkeypatch.delenv("QUARTET_MAX_COST", raising=False)
    flags = {"runs_dir": str(tmp_path)}
    s = load_settings(flags, toml)
    assert (s.max_tokens, s.max_cost) == (5000, 0.5)
    monkeypatch.setenv("QUARTET_MAX_TOKENS", "700")
    assert load_settings(flags, toml).max_tokens == 700
    assert load_settings({**flags, "max_tokens": 90}, toml).max_tokens == 90
    assert load_settings(flags, tmp_path / "none.toml").max_cost is None
    with pytest.raises(ConfigError, match="max_cost: must be positive"):
        load_settings({**flags, "max_cost": 0}, toml)
