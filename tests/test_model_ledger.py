"""The pure parts of the model path: Retry-After, backoff, fault classes, the retry loop
with a stand-in model, the token ledger and prices, and the settings that drive them."""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from agentscope.formatter import AnthropicChatFormatter, OllamaChatFormatter
from agentscope.message import TextBlock
from agentscope.model import ChatModelBase, ChatResponse

from host.brains import (
    ModelCallError,
    ModelCallStats,
    ModelPrice,
    RetryPolicy,
    TokenCounter,
    TokenLedger,
    make_brain,
    resilient_model,
)
from host.brains.faults import MalformedBody, classify, retry_after
from host.brains.ledger import Usage, describe, usage_of
from host.brains.resilience import ResilientModel
from host.config import ConfigError, load_settings
from subagents.models import formatter_for

CANARY = "sk-ledger-canary-91ab3c"
NOW = 1_700_000_000.0


def test_retry_after_reads_seconds_milliseconds_and_http_dates():
    assert retry_after({"Retry-After": "7"}) == 7.0
    assert retry_after({"retry-after": "1.5"}) == 1.5
    assert retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    date = email.utils.formatdate(NOW + 42, usegmt=True)
    assert retry_after({"Retry-After": date}, now=NOW) == pytest.approx(42, abs=1)
    past = email.utils.formatdate(NOW - 60, usegmt=True)
    assert retry_after({"Retry-After": past}, now=NOW) == 0.0
    assert retry_after({"Retry-After": "-3"}) == 0.0
    assert retry_after({"Retry-After": "soon"}) is None
    assert retry_after({}) is None and retry_after(None) is None


def test_backoff_doubles_with_jitter_and_retry_after_wins_up_to_its_cap():
    policy = RetryPolicy(base_delay=1.0, max_delay=8.0, max_retry_after=60.0)
    plain = classify(ConnectionError("reset"))
    assert [policy.delay(n, plain, rand=lambda: 0.0) for n in (1, 2, 3, 4, 5)] == [
        0.5,
        1.0,
        2.0,
        4.0,
        4.0,
    ]
    assert [policy.delay(n, plain, rand=lambda: 1.0) for n in (1, 2, 5)] == [1.0, 2.0, 8.0]
    asked = classify(_StatusError(429, {"Retry-After": "12"}))
    assert policy.delay(1, asked) == 12.0
    greedy = classify(_StatusError(503, {"Retry-After": "3600"}))
    assert policy.delay(1, greedy) == 60.0


class _StatusError(Exception):
    """Stands in for an SDK error with a status and response headers."""

    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.response = type("Response", (), {"headers": headers or {}})()


def test_faults_are_classified_by_cause_and_whether_a_retry_may_help():
    cases = {
        TimeoutError(): ("timeout", True),
        ConnectionError("refused"): ("connection", True),
        json.JSONDecodeError("Expecting value", '{"choices": [', 13): ("malformed_body", True),
        _StatusError(429): ("http_429", True),
        _StatusError(500): ("http_500", True),
        _StatusError(529): ("http_529", True),
        _StatusError(408): ("http_408", True),
        _StatusError(400): ("http_400", False),
        _StatusError(401): ("http_401", False),
        _StatusError(404): ("http_404", False),
        KeyError("choices"): ("error", False),
    }
    for exc, expected in cases.items():
        fault = classify(exc)
        assert (fault.cause, fault.retryable) == expected, exc
    try:
        try:
            raise MalformedBody("HTTP 200 with a body that is not JSON (text/html)")
        except MalformedBody as inner:
            raise ConnectionError("Connection error.") from inner
    except ConnectionError as wrapped:  # how the Anthropic SDK wraps a failing hook
        assert classify(wrapped).cause == "malformed_body"
    assert "401 (the key was refused)" in classify(_StatusError(401)).text


class StandIn(ChatModelBase):
    """A model that raises the given exceptions in turn, then answers."""

    def __init__(self, *failures: BaseException) -> None:
        super().__init__(model_name="stand-in", stream=False)
        self.failures, self.calls = list(failures), 0

    async def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        usage = SimpleNamespace(input_tokens=5, output_tokens=3)  # as ChatUsage
        return ChatResponse(content=[TextBlock(type="text", text="ok")], usage=usage)


def _resilient(inner: ChatModelBase, attempts: int = 3) -> tuple[ResilientModel, list[float]]:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    policy = RetryPolicy(timeout=30, attempts=attempts)
    return ResilientModel(inner, "stand", policy, ModelCallStats(), sleep=sleep), sleeps


async def test_an_unknown_error_fails_at_once_and_its_message_is_scrubbed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    inner = StandIn(ValueError(f"the proxy said: bad key {CANARY}"))
    model, sleeps = _resilient(inner)
    with pytest.raises(ModelCallError) as info:
        await model([])
    assert str(info.value) == "stand model stand-in: the proxy said: bad key ***; not retried"
    assert inner.calls == 1 and sleeps == [] and info.value.__cause__ is None


async def test_retries_stop_at_the_attempt_budget_and_success_resets_nothing():
    inner = StandIn(ConnectionError("reset"), _StatusError(502))
    model, sleeps = _resilient(inner)
    response = await model([])
    assert response.content[0]["text"] == "ok" and len(sleeps) == 2
    assert model.stats.summary() == {
        "calls": 1,
        "attempts": 3,
        "retries": 2,
        "failed": 0,
        "faults": {"connection": 1, "http_502": 1},
        "failures": {},
    }
    once, _ = _resilient(StandIn(_StatusError(503)), attempts=1)
    with pytest.raises(ModelCallError, match=r"^stand model stand-in: HTTP 503 after 1 attempt$"):
        await once([])


async def test_a_cancelled_request_is_not_retried_or_counted_as_a_failure():
    inner = StandIn(asyncio.CancelledError())
    model, sleeps = _resilient(inner)
    with pytest.raises(asyncio.CancelledError):
        await model([])
    assert inner.calls == 1 and sleeps == [] and model.stats.failed == 0


async def test_the_counter_enters_usage_by_stage_and_tool_views_by_tool():
    ledger = TokenLedger({"stand:in": ModelPrice(input=1.0, output=2.0)})
    model, _ = _resilient(StandIn())
    counter = TokenCounter(model, ledger, "stand:in")
    await counter.for_stage("search")([])
    await counter.for_tools("browser")([])  # outside any tool: browser/tools
    summary = ledger.summary()
    assert set(summary["by_stage"]) == {"search", "browser/tools"}
    assert summary["input"] == 10 and summary["output"] == 6 and summary["calls"] == 2
    assert summary["cost"] == pytest.approx((10 * 1.0 + 6 * 2.0) / 1_000_000)


def test_wrappers_share_the_stream_switch_and_expose_the_provider_model(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    brain = make_brain("anthropic:m")
    chain = TokenCounter(
        resilient_model(brain, RetryPolicy(), ModelCallStats()), TokenLedger(), brain.spec
    )
    assert chain.inner_model is brain.model
    assert isinstance(formatter_for(chain.for_tools("browser")), AnthropicChatFormatter)
    chain.stream = True
    assert brain.model.stream is True and chain.for_stage("host").stream is True
    chain.stream = False
    assert chain.model_name == "m"
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    ollama = make_brain("ollama:m")
    wrapped = resilient_model(ollama, RetryPolicy(), ModelCallStats())
    assert isinstance(formatter_for(wrapped), OllamaChatFormatter)
    assert wrapped.request_kwargs == {}  # Ollama's client has the timeout; its API takes none


def test_usage_counts_cache_reads_and_writes_the_same_way_for_each_provider():
    response = ChatResponse(content=[], usage=SimpleNamespace(input_tokens=20, output_tokens=4))
    anthropic = usage_of(
        response,
        {"input_tokens": 20, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 50},
    )
    assert anthropic == Usage(input=370, output=4, cache_read=300, cache_write=50, calls=1)
    openai = usage_of(
        response, {"prompt_tokens": 20, "prompt_tokens_details": {"cached_tokens": 16}}
    )
    assert openai == Usage(input=20, output=4, cache_read=16, cache_write=0, calls=1)
    assert usage_of(response) == Usage(input=20, output=4, calls=1)
    assert usage_of(ChatResponse(content=[])) == Usage(calls=1)


def test_prices_cost_cache_tokens_at_their_own_price_or_as_input():
    usage = Usage(input=1_000_000, output=1_000_000, cache_read=400_000, cache_write=100_000)
    full = ModelPrice(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)
    assert full.cost(usage) == pytest.approx(0.5 * 3.0 + 0.4 * 0.3 + 0.1 * 3.75 + 15.0)
    plain = ModelPrice(input=1.0, output=2.0)
    assert plain.cost(usage) == pytest.approx(1.0 + 2.0)


def test_the_ledger_sums_by_stage_and_model_and_prices_only_what_it_knows():
    ledger = TokenLedger({"openai:a": ModelPrice(input=1.0, output=1.0)})
    ledger.add("host", "openai:a", Usage(input=100, output=10, calls=1))
    ledger.add("search", "openai:a", Usage(input=50, output=5, calls=1))
    ledger.add("search", "ollama:b", Usage(input=7, output=1, calls=1))
    summary = ledger.summary()
    assert (summary["input"], summary["output"], summary["calls"]) == (157, 16, 3)
    assert summary["by_stage"]["search"]["input"] == 57
    assert summary["by_model"]["ollama:b"] == {
        "input": 7,
        "output": 1,
        "cache_read": 0,
        "cache_write": 0,
        "calls": 1,
    }
    assert summary["cost"] == pytest.approx(165 / 1_000_000)
    assert summary["by_stage"]["search"]["cost"] == pytest.approx(55 / 1_000_000)
    assert summary["unpriced"] == ["ollama:b"]
    assert "cost" not in TokenLedger().summary()
    text = describe(summary)
    assert text.startswith("157 in / 16 out · cost 0.0002") and "search 57/6" in text


def test_model_settings_resolve_flags_then_environment_then_toml(tmp_path, monkeypatch):
    toml = tmp_path / "quartet.toml"
    toml.write_text(
        "[quartet]\nmodel_timeout = 45\nmodel_attempts = 5\n"
        '[quartet.prices."openai:gpt-4o-mini"]\ninput = 0.15\noutput = 0.6\ncache_read = 0.075\n',
        encoding="utf-8",
    )
    monkeypatch.delenv("QUARTET_MODEL_TIMEOUT", raising=False)
    monkeypatch.delenv("QUARTET_MODEL_ATTEMPTS", raising=False)
    settings = load_settings({}, toml)
    assert (settings.model_timeout, settings.model_attempts) == (45.0, 5)
    assert settings.prices == {"openai:gpt-4o-mini": ModelPrice(0.15, 0.6, 0.075)}
    monkeypatch.setenv("QUARTET_MODEL_TIMEOUT", "20")
    assert load_settings({}, toml).model_timeout == 20.0
    assert load_settings({"model_timeout": 5}, toml).model_timeout == 5.0
    assert load_settings({}, tmp_path / "absent.toml").model_attempts == 5 - 2  # the default


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[quartet.prices."openai:m"]\ninput = 1\n', "output price missing"),
        ('[quartet.prices."openai:m"]\ninput = 1\noutput = -2\n', "non-negative number"),
        ('[quartet.prices."openai:m"]\ninput = 1\noutput = 2\nextra = 1\n', "unknown key 'extra'"),
        ("[quartet]\nprices = 3\n", "must be a table"),
        ("[quartet]\nmodel_timeout = 0\n", "model_timeout: must be positive"),
        ('[quartet]\nmodel_attempts = "many"\n', "model_attempts: expected a number"),
    ],
)
def test_bad_model_settings_are_explained(tmp_path, monkeypatch, table, message):
    monkeypatch.delenv("QUARTET_MODEL_TIMEOUT", raising=False)
    monkeypatch.delenv("QUARTET_MODEL_ATTEMPTS", raising=False)
    toml = tmp_path / "quartet.toml"
    toml.write_text(table, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings({}, toml)


def test_the_example_configuration_loads_once_uncommented(monkeypatch, tmp_path):
    for var in ("QUARTET_MODEL", "QUARTET_MODEL_TIMEOUT", "QUARTET_MODEL_ATTEMPTS"):
        monkeypatch.delenv(var, raising=False)
    example = Path(__file__).resolve().parent.parent / "quartet.example.toml"
    text = example.read_text(encoding="utf-8")
    model_part = text[: text.index("[quartet.approve]")]
    lines = [
        line[1:] if re.match(r"#[\[\w]", line) and not line.startswith('#input = "') else line
        for line in model_part.splitlines()
    ]
    uncommented = tmp_path / "quartet.toml"
    uncommented.write_text(
        "\n".join(line.replace('"offline"', '"openai:gpt-4o-mini"') for line in lines)
    )
    settings = load_settings({"runs_dir": str(tmp_path / "runs")}, uncommented)
    assert settings.model == "openai:gpt-4o-mini"
    assert (settings.model_timeout, settings.model_attempts) == (120.0, 3)
    assert settings.prices["openai:gpt-4o-mini"] == ModelPrice(0.15, 0.6, 0.075)
