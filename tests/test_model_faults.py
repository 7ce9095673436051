"""Model requests under faults, through the real wire formats on loopback: the OpenAI
chat-completions API, the Anthropic messages API and Ollama's chat API.

Each test builds the chain the Host builds (provider model → resilient wrapper → token
counter), makes a real HTTP request to a scripted server that plays the fault, and checks
the outcome: an answer after the retries, or one clear error that names the provider.
Waits between attempts go to a recorder, so the tests assert the waits asked for
without sleeping through them.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from agentscope.formatter import AnthropicChatFormatter
from agentscope.message import Msg
from anthropic_server import CACHED_PREFIX_TOKENS, ScriptedAnthropic
from faulty_openai_server import FaultyOpenAI
from ollama_server import ScriptedOllama
from ports import free_port
from wire_faults import Faults

from host.brains import (
    ModelCallError,
    ModelCallStats,
    RetryPolicy,
    TokenCounter,
    TokenLedger,
    make_brain,
    resilient_model,
)
from subagents.models import ask_text

CANARY = "sk-fault-canary-7f3e21"
WIRES: dict[str, tuple[Any, str | None, str]] = {
    "openai": (FaultyOpenAI, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": (ScriptedAnthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "ollama": (ScriptedOllama, None, "OLLAMA_HOST"),
}
HTTP_WIRES = ["openai", "anthropic"]  # their SDKs surface the response headers
PROMPT = "Say in one line what the Grand Canal is."


@dataclass
class Rig:
    """A scripted server and the Host's model chain in front of it."""

    server: Any
    model: TokenCounter
    stats: ModelCallStats
    ledger: TokenLedger
    sleeps: list[float] = field(default_factory=list)

    async def ask(self) -> str:
        return await ask_text(self.model, PROMPT, system="Answer briefly.")


@contextmanager
def rig(
    wire: str, monkeypatch: pytest.MonkeyPatch, faults: Faults, timeout: float = 60.0
) -> Iterator[Rig]:
    server_cls, key_var, url_var = WIRES[wire]
    with server_cls(faults=faults) as server:
        if key_var:
            monkeypatch.setenv(key_var, CANARY)
        monkeypatch.setenv(url_var, server.base_url)
        brain = make_brain(f"{wire}:loopback-model", timeout=timeout)
        stats, ledger, sleeps = ModelCallStats(), TokenLedger(), []

        async def sleep(seconds: float) -> None:
            sleeps.append(seconds)

        policy = RetryPolicy(timeout=timeout, attempts=3)
        model = TokenCounter(resilient_model(brain, policy, stats, sleep=sleep), ledger, brain.spec)
        yield Rig(server, model, stats, ledger, sleeps)


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_hung_request_times_out_and_the_retry_answers(wire, monkeypatch):
    with rig(wire, monkeypatch, Faults().add("hang"), timeout=1.0) as r:
        text = await r.ask()
    assert "Grand Canal" in text
    # The hung attempt timed out; the retry answered (on a loaded machine a retry may
    # also miss the 1 s limit, so the counts are checked against each other).
    stats = r.stats.summary()
    assert stats["faults"].keys() == {"timeout"} and stats["failed"] == 0
    assert stats["attempts"] == 1 + stats["retries"] == 1 + stats["faults"]["timeout"]
    assert len(r.server.requests) == stats["attempts"] >= 2


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_request_that_always_hangs_fails_with_the_timeout_named(wire, monkeypatch):
    with (
        rig(wire, monkeypatch, Faults().add("hang", times=3), timeout=1.0) as r,
        pytest.raises(ModelCallError) as info,
    ):
        await r.ask()
    assert str(info.value) == (
        f"{wire} model loopback-model: no answer within 1 s after 3 attempts"
    )
    assert r.stats.failures == {"timeout": 1}


@pytest.mark.parametrize("wire", HTTP_WIRES)
@pytest.mark.parametrize("header", ["2", "http-date"])
async def test_a_429_waits_as_long_as_retry_after_says_then_succeeds(wire, header, monkeypatch):
    value = header
    if header == "http-date":
        value = email.utils.formatdate(time.time() + 30, usegmt=True)
    faults = Faults().add("status", status=429, headers={"Retry-After": value})
    with rig(wire, monkeypatch, faults) as r:
        text = await r.ask()
    assert "Grand Canal" in text
    assert r.stats.faults == {"http_429": 1} and r.stats.retries == 1
    assert len(r.sleeps) == 1
    if header == "2":
        assert r.sleeps == [2.0]
    else:  # an HTTP date about 30 s ahead (the clock moves on a little)
        assert 20 <= r.sleeps[0] <= 30


@pytest.mark.parametrize("wire", HTTP_WIRES)
async def test_a_500_with_retry_after_waits_as_long_as_it_says_then_succeeds(wire, monkeypatch):
    faults = Faults().add("status", status=500, headers={"Retry-After": "3"})
    with rig(wire, monkeypatch, faults) as r:
        text = await r.ask()
    assert "Grand Canal" in text
    assert r.stats.faults == {"http_500": 1} and r.stats.retries == 1
    assert r.sleeps == [3.0]


@pytest.mark.parametrize("wire", HTTP_WIRES)
async def test_a_very_long_retry_after_is_capped(wire, monkeypatch):
    faults = Faults().add("status", status=429, headers={"Retry-After": "86400"})
    with rig(wire, monkeypatch, faults) as r:
        await r.ask()
    assert r.sleeps == [RetryPolicy().max_retry_after]


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_503_every_time_fails_after_three_attempts_naming_the_provider(wire, monkeypatch):
    with (
        rig(wire, monkeypatch, Faults().add("status", status=503, times=5)) as r,
        pytest.raises(ModelCallError) as info,
    ):
        await r.ask()
    assert str(info.value) == f"{wire} model loopback-model: HTTP 503 after 3 attempts"
    assert len(r.server.requests) == 3
    assert r.stats.summary()["failures"] == {"http_503": 1}
    assert r.stats.faults == {"http_503": 3}
    policy = RetryPolicy()
    assert len(r.sleeps) == 2  # exponential backoff with jitter: half fixed, half random
    assert policy.base_delay / 2 <= r.sleeps[0] <= policy.base_delay
    assert policy.base_delay <= r.sleeps[1] <= 2 * policy.base_delay


@pytest.mark.parametrize("wire", sorted(WIRES))
@pytest.mark.parametrize("body", ["malformed", "html"])
async def test_a_malformed_200_body_is_retried_then_recovered(wire, body, monkeypatch):
    with rig(wire, monkeypatch, Faults().add(body)) as r:
        text = await r.ask()
    assert "Grand Canal" in text
    assert r.stats.faults == {"malformed_body": 1} and r.stats.retries == 1
    assert len(r.server.requests) == 2


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_malformed_body_every_time_fails_naming_the_provider(wire, monkeypatch):
    with (
        rig(wire, monkeypatch, Faults().add("html", times=3)) as r,
        pytest.raises(ModelCallError) as info,
    ):
        await r.ask()
    message = str(info.value)
    assert message.startswith(f"{wire} model loopback-model: a malformed response body")
    assert message.endswith("after 3 attempts")


@pytest.mark.parametrize("wire", sorted(WIRES))
@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_a_refused_request_fails_at_once_without_the_key(wire, status, monkeypatch):
    with (
        rig(wire, monkeypatch, Faults().add("status", status=status, times=3)) as r,
        pytest.raises(ModelCallError) as info,
    ):
        await r.ask()
    message = str(info.value)
    assert message.startswith(f"{wire} model loopback-model: HTTP {status} (")
    assert message.endswith("; not retried")
    assert CANARY not in message and CANARY not in repr(info.value.__cause__)
    assert len(r.server.requests) == 1 and r.sleeps == []
    assert r.stats.failures == {f"http_{status}": 1}


async def test_anthropic_requests_mark_the_system_prompt_and_last_tool_cacheable(monkeypatch):
    tools = [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": f"The {name} tool.",
                "parameters": {
                    "type": "object",
                    "properties": {"query": {"type": "string"}},
                    "required": ["query"],
                },
            },
        }
        for name in ("search_wiki", "search_bing")
    ]
    msgs = await AnthropicChatFormatter().format(
        [Msg("system", "You search.", "system"), Msg("user", "Find the canal.", "user")]
    )
    with rig("anthropic", monkeypatch, Faults()) as r:
        await r.model(msgs, tools=tools)
        await r.model(msgs, tools=tools)
        await r.ask()  # no tools: the system prompt alone is marked
    first, _, plain = r.server.requests
    ephemeral = {"type": "ephemeral"}
    assert first["system"][-1] == {
        "type": "text",
        "text": "You search.",
        "cache_control": ephemeral,
    }
    assert [t["name"] for t in first["tools"]] == ["search_wiki", "search_bing"]
    assert first["tools"][-1]["cache_control"] == ephemeral
    assert "cache_control" not in first["tools"][0]
    assert first["tools"][0]["input_schema"] == tools[0]["function"]["parameters"]
    assert plain["system"][-1]["cache_control"] == ephemeral and "tools" not in plain
    tokens = r.ledger.summary()
    assert tokens["cache_write"] == 2 * CACHED_PREFIX_TOKENS  # the tool prefix, then the plain
    assert tokens["cache_read"] == CACHED_PREFIX_TOKENS
    assert tokens["input"] == 3 * 11 + 3 * CACHED_PREFIX_TOKENS
    assert tokens["by_model"]["anthropic:loopback-model"]["calls"] == 3


@pytest.mark.parametrize("wire", sorted(WIRES))
async def test_a_model_server_that_is_not_there_is_told_in_words(wire, monkeypatch):
    """Nothing listens at the model's address: the message says the connection was
    refused, as the error beneath each SDK's means, not a bare "a connection error"."""
    _, key_var, url_var = WIRES[wire]
    if key_var:
        monkeypatch.setenv(key_var, CANARY)
    suffix = "/v1" if wire == "openai" else ""
    monkeypatch.setenv(url_var, f"http://127.0.0.1:{free_port()}{suffix}")
    brain = make_brain(f"{wire}:loopback-model", timeout=60)
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    policy = RetryPolicy(timeout=60, attempts=2)
    model = resilient_model(brain, policy, ModelCallStats(), sleep=sleep)
    with pytest.raises(ModelCallError) as info:
        await ask_text(model, PROMPT, system="Answer briefly.")
    assert str(info.value) == (
        f"{wire} model loopback-model: could not reach the model's server: the connection "
        "was refused (nothing listens at its address) after 2 attempts"
    )


def test_a_failure_is_told_by_what_it_or_the_error_beneath_it_says(monkeypatch):
    """Without the class names that once led them, a fault still says what happened: a
    body that is not JSON says where the parser stopped, an error with no message of
    its own says what the error it was raised from said (never a key), and one with
    none says so."""
    import json

    from host.brains.faults import SAID_NOTHING, classify

    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    try:
        json.loads("<html>")
    except ValueError as exc:
        malformed = classify(exc)
    assert malformed.text == "a malformed response body (Expecting value: line 1 column 1 (char 0))"
    try:
        try:
            raise ValueError(f"the reply had no choices (key {CANARY})")
        except ValueError as inner:
            raise RuntimeError() from inner
    except RuntimeError as exc:
        chained = classify(exc)
    assert chained.cause == "error" and chained.text.startswith("the reply had no choices")
    assert CANARY not in chained.text
    assert classify(KeyError("choices")).text == "'choices' is missing"
    assert classify(RuntimeError()).text == SAID_NOTHING
