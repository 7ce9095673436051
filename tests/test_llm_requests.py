"""Every model request as the real providers check it.

The loopback servers (``openai_server.py``, ``anthropic_server.py``) refuse a request that
breaks the OpenAI or Anthropic rules with HTTP 400, the provider's error body and its
message text. Here: the rules on their own, over histories in the exact shapes
agentscope's formatters send (news between tool calls and their results, a result
missing, results after text, ids that match nothing); a whole LLM run through each wire
format that sends not one invalid request; and a refusal whose explanation reaches the
error the user sees (the model call's error, run.json and the closing summary), on one
bounded line, scrubbed of the key.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agentscope.formatter import AnthropicChatFormatter, OpenAIChatFormatter
from agentscope.message import Msg, TextBlock, ToolResultBlock, ToolUseBlock
from anthropic_server import ScriptedAnthropic, anthropic_violation
from faulty_openai_server import FaultyOpenAI
from openai_server import ScriptedOpenAI, openai_violation
from rich.console import Console
from wire_faults import Faults, tool_names

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import ModelCallError, ModelCallStats, RetryPolicy, make_brain, resilient_model
from host.brains.faults import MAX_EXPLANATION_CHARS, classify
from host.config import Settings
from host.display.progress import summary_table
from host.orchestration.hub import Host

CANARY = "sk-requests-canary-93b1e7"
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
URLS = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
SERVERS = {"openai": ScriptedOpenAI, "anthropic": ScriptedAnthropic}
NEWS = "<history>Task d2 (search) finished: found 3 pages.</history>"
MISSING_RESULT = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding "
    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
)
ORPHAN_TOOL = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
    "message with 'tool_calls'."
)
TOOL_USE_UNANSWERED = (
    "`tool_use` ids were found without `tool_result` blocks immediately after: {ids}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)


# -- histories in agentscope's own message form ---------------------------------------------


def _calls(*ids: str) -> Msg:
    blocks = [
        ToolUseBlock(type="tool_use", id=i, name="search_wiki", input={"query": i}) for i in ids
    ]
    return Msg("search", blocks, "assistant")


def _result(call_id: str) -> Msg:
    output = [TextBlock(type="text", text=f"results for {call_id}")]
    block = ToolResultBlock(type="tool_result", id=call_id, name="search_wiki", output=output)
    return Msg("system", [block], "system")


def _news() -> Msg:
    return Msg("host", NEWS, "user")


def _history(*rest: Msg) -> list[Msg]:
    return [Msg("system", "You search.", "system"), Msg("user", "Find the canal.", "user"), *rest]


async def _openai_body(msgs: list[Msg]) -> dict[str, Any]:
    return {"model": "m", "messages": await OpenAIChatFormatter().format(msgs)}


async def _anthropic_body(msgs: list[Msg]) -> dict[str, Any]:
    """The body the Anthropic model sends: the system prompt as a top-level field."""
    formatted = await AnthropicChatFormatter().format(msgs)
    return {
        "model": "m",
        "max_tokens": 1024,
        "system": [b for m in formatted if m["role"] == "system" for b in m["content"]],
        "messages": [m for m in formatted if m["role"] != "system"],
    }


def _openai_said(body: dict[str, Any]) -> tuple[str, str | None]:
    error = openai_violation(body)
    assert error is not None and error["error"]["type"] == "invalid_request_error", error
    return error["error"]["message"], error["error"]["param"]


def _anthropic_said(body: dict[str, Any]) -> str:
    error = anthropic_violation(body)
    assert error is not None, body
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    return error["error"]["message"]


# -- the rules, each wire ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "history",
    [
        _history(_calls("call_a", "call_b"), _result("call_a"), _result("call_b"), _news()),
        _history(_calls("call_a"), _result("call_a"), _calls("call_b"), _result("call_b")),
        _history(_news(), _calls("call_a"), _result("call_a")),
    ],
    ids=["news-after-results", "two-rounds", "news-first"],
)
async def test_histories_with_news_at_a_turn_boundary_are_valid_on_both_wires(history):
    assert openai_violation(await _openai_body(history)) is None
    assert anthropic_violation(await _anthropic_body(history)) is None


async def test_openai_refuses_news_between_tool_calls_and_their_results():
    # system, user, assistant(2 tool_calls), tool, user, tool: the shape of issue 20
    body = await _openai_body(
        _history(_calls("call_a", "call_b"), _result("call_a"), _news(), _result("call_b"))
    )
    assert [m["role"] for m in body["messages"]][2:] == ["assistant", "tool", "user", "tool"]
    assert _openai_said(body) == (MISSING_RESULT + "call_b", "messages.[2].role")


async def test_openai_refuses_a_missing_tool_result_naming_every_id():
    body = await _openai_body(_history(_calls("call_a", "call_b", "call_c"), _result("call_b")))
    assert _openai_said(body) == (MISSING_RESULT + "call_a, call_c", "messages.[2].role")


async def test_openai_refuses_a_tool_message_that_answers_no_call():
    body = await _openai_body(_history(_result("call_a")))
    assert _openai_said(body) == (ORPHAN_TOOL, "messages.[2].role")


async def test_openai_refuses_a_tool_result_for_another_call_id():
    body = await _openai_body(_history(_calls("call_a"), _result("call_z")))
    assert _openai_said(body) == (
        "Invalid parameter: 'tool_call_id' of 'call_z' not found in 'tool_calls' of "
        "previous message.",
        "messages.[3].tool_call_id",
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "m"}, "Missing required parameter: 'messages'."),
        (
            {"model": "m", "messages": [{"role": "robot", "content": "hi"}]},
            "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', "
            "'function', 'tool', and 'developer'.",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": None}]},
            "Invalid value for 'content': expected a string, got null.",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tool_choice": "auto"},
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
            "specified.",
        ),
    ],
    ids=["no-messages", "unknown-role", "null-content", "tool-choice-without-tools"],
)
def test_openai_refuses_malformed_fields(body, message):
    assert _openai_said(body)[0] == message


async def test_anthropic_refuses_news_between_tool_use_and_its_results():
    body = await _anthropic_body(
        _history(_calls("call_a", "call_b"), _result("call_a"), _news(), _result("call_b"))
    )
    # user, assistant(2 tool_use), user[tool_result], user[text], user[tool_result]: the
    # three user messages are one turn that does not begin with both results
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "user", "user"]
    assert _anthropic_said(body) == "messages.1: " + TOOL_USE_UNANSWERED.format(ids="call_b")


async def test_anthropic_refuses_a_turn_that_puts_text_before_the_tool_results():
    body = await _anthropic_body(_history(_calls("call_a")))
    result = (await _anthropic_body(_history(_result("call_a"))))["messages"][-1]["content"][0]
    body["messages"].append({"role": "user", "content": [{"type": "text", "text": NEWS}, result]})
    assert _anthropic_said(body) == "messages.1: " + TOOL_USE_UNANSWERED.format(ids="call_a")
    body["messages"][-1]["content"].reverse()  # the result first, then the text
    assert anthropic_violation(body) is None


async def test_anthropic_refuses_an_unanswered_tool_use_at_the_end():
    body = await _anthropic_body(_history(_calls("call_a", "call_b")))
    assert _anthropic_said(body) == "messages.1: " + TOOL_USE_UNANSWERED.format(
        ids="call_a, call_b"
    )


async def test_anthropic_refuses_a_tool_result_whose_id_matches_no_tool_use():
    body = await _anthropic_body(_history(_calls("call_a"), _result("call_a"), _result("call_z")))
    assert _anthropic_said(body) == (
        "messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
        "call_z. Each `tool_result` block must have a corresponding `tool_use` block in "
        "the previous message."
    )
    orphan = await _anthropic_body(_history(_result("call_a")))
    assert _anthropic_said(orphan).startswith("messages.1.content.0: unexpected `tool_use_id`")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.pop("max_tokens"), "max_tokens: Field required"),
        (
            lambda b: b["messages"].insert(0, {"role": "assistant", "content": "Hello."}),
            'messages: first message must use the "user" role',
        ),
        (
            lambda b: b["messages"].insert(0, {"role": "system", "content": "You search."}),
            'messages: Unexpected role "system". The Messages API accepts a top-level '
            '`system` parameter, not "system" as an input message role.',
        ),
        (
            lambda b: b["messages"].append({"role": "user", "content": []}),
            "messages.1: all messages must have non-empty content except for the optional "
            "final assistant message",
        ),
    ],
    ids=["no-max-tokens", "assistant-first", "system-role", "empty-content"],
)
async def test_anthropic_refuses_malformed_fields(change, message):
    body = await _anthropic_body(_history())
    assert anthropic_violation(body) is None
    change(body)
    assert _anthropic_said(body) == message


# -- a whole run through each wire sends only valid requests ---------------------------------


def _run(tmp_path, monkeypatch, wire: str, server: Any):
    """The demo question with ``wire:loopback-model`` against ``server``."""
    monkeypatch.setenv(KEYS[wire], CANARY)
    monkeypatch.setenv(URLS[wire], server.base_url)
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md", "html"), quiet=True)
    with demo_world(settings.runs_dir) as world:
        host = Host(demo_settings(settings, world), make_brain(f"{wire}:loopback-model"))
        result = asyncio.run(host.run(world.question))
    return result, json.loads(result.run.real_path("/internal/run.json").read_text())


def _tool_rounds(body: dict[str, Any]) -> int:
    """The assistant messages with tool calls in a request (either wire)."""
    rounds = 0
    for message in body.get("messages", []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        uses = [b for b in blocks if b.get("type") == "tool_use"]
        rounds += bool(message.get("tool_calls") or uses)
    return rounds


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_full_llm_run_sends_no_invalid_request(wire, tmp_path, monkeypatch):
    with SERVERS[wire]() as server:
        result, record = _run(tmp_path, monkeypatch, wire, server)
    assert server.invalid == []
    assert record["model_calls"]["faults"] == {} and record["model_calls"]["failed"] == 0
    # the rules had tool histories to check, from every kind of subagent
    assert sum(_tool_rounds(b) > 0 for b in server.requests) >= 10
    assert {"host", "search", "browser", "file", "generate"} <= set(server.roles)
    assert result.plan.planner == "model"
    assert all(d.status == "ok" for d in result.delegations), [
        d.summary() for d in result.delegations
    ]
    assert result.answered == len(result.plan.subquestions)


# -- a refusal's explanation reaches the user ------------------------------------------------


@pytest.mark.parametrize("wire", sorted(SERVERS))
async def test_a_refused_request_fails_at_once_with_the_providers_explanation(wire, monkeypatch):
    history = _history(_calls("call_a", "call_b"), _result("call_a"), _news(), _result("call_b"))
    with SERVERS[wire]() as server:
        monkeypatch.setenv(KEYS[wire], CANARY)
        monkeypatch.setenv(URLS[wire], server.base_url)
        brain = make_brain(f"{wire}:loopback-model")
        stats = ModelCallStats()
        model = resilient_model(brain, RetryPolicy(attempts=3), stats)
        with pytest.raises(ModelCallError) as info:
            await model(await brain.formatter.format(history))
    message = str(info.value)
    expected = {
        "openai": MISSING_RESULT + "call_b",
        "anthropic": "messages.1: " + TOOL_USE_UNANSWERED.format(ids="call_b"),
    }[wire]
    assert message == (
        f"{wire} model loopback-model: HTTP 400 (the request was rejected): {expected}; not retried"
    )
    assert len(server.invalid) == len(server.requests) == 1
    assert stats.failures == {"http_400": 1}


def _browsing(body: dict[str, Any]) -> bool:
    return "viewer_fetch" in tool_names(body)


def test_a_refusal_in_a_run_is_explained_in_run_json_and_the_summary(tmp_path, monkeypatch):
    # The fault server's 400 body echoes the key it was sent, as some proxies do.
    faults = Faults().add("status", status=400, times=100, when=_browsing)
    with FaultyOpenAI(faults=faults) as server:
        result, record = _run(tmp_path, monkeypatch, "openai", server)
    explained = (
        "HTTP 400 (the request was rejected): request failed with 400 "
        "(credential seen: Bearer ***); not retried"
    )
    browser = [d for d in result.delegations if d.subagent == "browser"]
    assert browser and all(explained in (d.error or "") for d in browser), [
        d.summary() for d in browser
    ]
    assert sum(explained in e for e in record["errors"]) == len(browser)
    console = Console(record=True, width=400)
    console.print(summary_table(result))
    assert explained in console.export_text()
    assert server.invalid == []  # the 400s were the server's choice, not broken rules
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path


class _Refusal(Exception):
    """Stands in for an SDK's status error: a status and the parsed error body."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code, self.body = status, body


def test_a_refusals_explanation_is_one_bounded_line_with_the_key_cut_out(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    # the key straddles the length limit: scrubbed before the cut, no part of it is left
    said = "x" * (MAX_EXPLANATION_CHARS - 24) + f" bad\n key {CANARY} " + "y" * 500
    fault = classify(_Refusal(400, {"error": {"message": said, "type": "invalid_request_error"}}))
    kept = fault.text.removeprefix("HTTP 400 (the request was rejected): ")
    assert kept != fault.text and len(kept) == MAX_EXPLANATION_CHARS and kept.endswith("y…")
    assert " bad key *** y" in kept and CANARY[:8] not in kept
    assert not fault.retryable


def test_explanations_are_read_from_each_providers_error_body():
    anthropic = {"type": "error", "error": {"type": "invalid_request_error", "message": "m1"}}
    assert classify(_Refusal(400, anthropic)).text.endswith("rejected): m1")
    assert classify(_Refusal(404, {"message": "m2"})).text == (
        "HTTP 404 (no such model or endpoint): m2"
    )
    assert classify(_Refusal(422, "plain words")).text == "HTTP 422: plain words"
    assert classify(_Refusal(400, None)).text == "HTTP 400 (the request was rejected)"
    # a retryable status keeps its short form: the server's words do not change the cause
    assert classify(_Refusal(503, {"error": {"message": "busy"}})).text == "HTTP 503"
