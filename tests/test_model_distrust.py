"""Model output is not trusted as it comes: empty replies and replies cut at the output
limit (``finish_reason: "length"`` / ``stop_reason: "max_tokens"``), through the real
OpenAI and Anthropic wire formats on loopback.

A cut reply is asked again with twice the limit, an empty one asked again; each role
sends its own output limit. When a reply still fails, the Host's failure is a failed
stage and the parts it never reached are "not researched", and the writer compiles the
whole report from the notes, says so in the report, and no cut-off text reaches it. A
plan cut off at the limit or written in other languages is replaced by the offline one,
in both wire formats, with the reason recorded.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from anthropic_server import ScriptedAnthropic
from faulty_openai_server import FaultyOpenAI
from wire_faults import Faults, host, planner, writer

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import (
    ModelCallError,
    ModelCallStats,
    RetryPolicy,
    TokenCounter,
    TokenLedger,
    make_brain,
    resilient_model,
)
from host.brains.output import LIMIT_FIELDS, OutputLimits, parse_limits, role_of
from host.config import Settings
from host.orchestration.hub import Host
from research.plan import offline_plan
from subagents.models import ask_text

CANARY = "sk-distrust-canary-41d2"
SERVERS: dict[str, Any] = {"openai": FaultyOpenAI, "anthropic": ScriptedAnthropic}
ENV = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
LIMITS = OutputLimits({"host": 1000, "writer": 3000, "tools": 500}, cap=5000)
PROMPT = "Say in one line what the Grand Canal is."


def connect(wire: str, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    key_var, url_var = ENV[wire]
    monkeypatch.setenv(key_var, CANARY)
    monkeypatch.setenv(url_var, server.base_url)


def counted(wire: str, stats: ModelCallStats, limits: OutputLimits | None) -> TokenCounter:
    """The Host's chain in front of the server; waits between attempts are recorded."""

    async def no_wait(seconds: float) -> None:
        raise AssertionError(f"a bad reply is asked again at once, not after {seconds} s")

    brain = make_brain(f"{wire}:loopback-model")
    model = resilient_model(brain, RetryPolicy(attempts=3), stats, sleep=no_wait, limits=limits)
    return TokenCounter(model, TokenLedger(), brain.spec)


def limits_sent(wire: str, server: Any) -> list[int]:
    return [body[LIMIT_FIELDS[wire]] for body in server.requests]


# -- one request -----------------------------------------------------------------------


@pytest.mark.parametrize("wire", sorted(SERVERS))
async def test_a_cut_reply_is_asked_again_with_twice_the_limit(wire, monkeypatch):
    faults = Faults().add("truncated")
    with SERVERS[wire](faults=faults) as server:
        connect(wire, server, monkeypatch)
        stats = ModelCallStats()
        text = await ask_text(counted(wire, stats, LIMITS).for_tools("generate"), PROMPT)
    assert faults.played == ["truncated"]
    assert limits_sent(wire, server) == [3000, 5000]  # twice the limit, capped
    cut = faults.served[0]
    cut_text = (cut.get("choices") or [{}])[0].get("message", {}).get("content") or "".join(
        b.get("text", "") for b in cut.get("content") or []
    )
    assert cut_text and text != cut_text and text.startswith(cut_text)
    summary = stats.summary()
    assert summary["faults"] == {"truncated": 1} and summary["failed"] == 0
    assert summary["attempts"] == 2 and summary["retries"] == 1


@pytest.mark.parametrize("wire", sorted(SERVERS))
async def test_a_reply_cut_twice_fails_naming_the_cut(wire, monkeypatch):
    faults = Faults().add("truncated", times=2)
    with SERVERS[wire](faults=faults) as server:
        connect(wire, server, monkeypatch)
        stats = ModelCallStats()
        with pytest.raises(ModelCallError) as info:
            await ask_text(counted(wire, stats, LIMITS).for_stage("host"), PROMPT)
    assert limits_sent(wire, server) == [1000, 2000]
    assert info.value.fault.cause == "truncated" and info.value.attempts == 2
    assert f"{wire} model loopback-model: the reply was cut at 2000 tokens" in str(info.value)
    assert CANARY not in str(info.value)
    assert stats.summary()["failures"] == {"truncated": 1}


@pytest.mark.parametrize("wire", sorted(SERVERS))
async def test_an_empty_reply_is_asked_again_with_the_same_limit(wire, monkeypatch):
    faults = Faults().add("empty")
    with SERVERS[wire](faults=faults) as server:
        connect(wire, server, monkeypatch)
        stats = ModelCallStats()
        text = await ask_text(counted(wire, stats, LIMITS).for_stage("browser"), PROMPT)
    assert faults.played == ["empty"] and "Grand Canal" in text
    assert limits_sent(wire, server) == [500, 500]  # a subagent not listed: the tools' limit
    assert stats.summary()["faults"] == {"empty": 1}


@pytest.mark.parametrize("wire", sorted(SERVERS))
async def test_each_role_sends_its_own_limit_from_the_environment(wire, monkeypatch):
    monkeypatch.setenv("QUARTET_OUTPUT_TOKENS", "writer=12000, host=3500")
    with SERVERS[wire](faults=Faults()) as server:
        connect(wire, server, monkeypatch)
        model = counted(wire, ModelCallStats(), None)
        await ask_text(model.for_stage("host"), PROMPT)
        await ask_text(model.for_tools("generate"), PROMPT)
        await ask_text(model.for_tools("browser"), PROMPT)
        await ask_text(model.for_stage("search"), PROMPT)
    assert limits_sent(wire, server) == [3500, 12000, 4096, 4096]


def test_roles_and_limits_are_read_strictly():
    assert [role_of(s) for s in ("host", "file", "generate/generate_pdf", "browser/x")] == [
        "host",
        "file",
        "writer",
        "tools",
    ]
    assert parse_limits(" writer=9000 ,host=10") == {"writer": 9000, "host": 10}
    for bad in ("writer", "writer=lots", "host=0", "=5"):
        with pytest.raises(ValueError, match="QUARTET_OUTPUT_TOKENS"):
            parse_limits(bad)
    assert OutputLimits().limit("writer") >= 8192 > OutputLimits().limit("host")
    assert LIMITS.raised(4000) == 5000 and LIMITS.raised(5000) == 5000


# -- whole runs ------------------------------------------------------------------------


def demo_run(tmp_path, monkeypatch, wire: str, faults: Faults, plan: Any = None):
    """The demo question with ``wire:loopback-model`` against a server playing ``faults``
    (its planner answering ``plan`` when one is given)."""
    with SERVERS[wire](plan=plan, faults=faults) as server:
        connect(wire, server, monkeypatch)
        settings = Settings(runs_dir=tmp_path / "runs", formats=("md", "html"), quiet=True)
        with demo_world(settings.runs_dir) as world:
            host_ = Host(demo_settings(settings, world), make_brain(f"{wire}:loopback-model"))
            result = asyncio.run(host_.run(world.question))
    record = json.loads(result.run.real_path("/internal/run.json").read_text())
    return result, record, server


def reports(result) -> dict[str, str]:
    return {
        fmt: result.run.real_path(f"/workspace/reports/report.{fmt}").read_text()
        for fmt in ("md", "html")
    }


def test_an_empty_host_reply_asked_again_lets_the_research_finish(tmp_path, monkeypatch):
    faults = Faults().add("empty", when=host)
    result, record, _ = demo_run(tmp_path, monkeypatch, "openai", faults)
    assert faults.played == ["empty"]
    assert record["failed_stages"] == [] and record["model_calls"]["faults"] == {"empty": 1}
    assert all(s["status"] != "not researched" for s in record["plan"]["subquestions"])
    assert record["exit_code"] == result.exit_code == 0


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_host_that_stays_empty_is_a_failed_stage_and_its_parts_not_researched(
    wire, tmp_path, monkeypatch
):
    faults = Faults().add("empty", times=2, when=host)
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults)
    assert faults.played == ["empty", "empty"]
    assert record["failed_stages"][0] == "host (empty reply)"
    assert [d["subagent"] for d in record["delegations"]] == ["generate"]
    statuses = {s["status"] for s in record["plan"]["subquestions"]}
    assert statuses == {"not researched"}
    assert any("the reply was empty after 2 attempts" in e for e in record["errors"])
    assert record["model_calls"]["failures"] == {"empty": 1}
    # a report is written, and it answers nothing: it says the parts were not researched
    assert result.outputs and record["exit_code"] == result.exit_code == 3
    report = result.run.real_path("/workspace/reports/report.md").read_text()
    assert report.count("Not researched: the research ended before") == 4


def test_a_cut_writer_reply_is_asked_again_with_a_larger_limit(tmp_path, monkeypatch):
    faults = Faults().add("truncated", when=writer)
    result, record, server = demo_run(tmp_path, monkeypatch, "anthropic", faults)
    prose = [b["max_tokens"] for b in server.requests if writer(server.normalised(b))]
    assert prose == [8192, 16384]
    host_limits = {b["max_tokens"] for b in server.requests if host(server.normalised(b))}
    assert host_limits == {4096}
    texts = reports(result)
    assert "About this report" not in texts["md"]
    assert server.verified_claim in texts["md"]  # the model's prose, from the second reply
    assert record["model_calls"]["faults"] == {"truncated": 1}
    assert record["failed_stages"] == [] and record["exit_code"] == result.exit_code == 0


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_writer_cut_twice_gives_a_compiled_report_that_says_so(wire, tmp_path, monkeypatch):
    faults = Faults().add("truncated", times=2, when=writer)
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults)
    assert faults.played == ["truncated", "truncated"]
    served = faults.served[-1]
    cut = (served.get("choices") or [{}])[0].get("message", {}).get("content") or "".join(
        b.get("text", "") for b in served.get("content") or []
    )
    unfinished = re.split(r"(?<=[.\]])\s+", cut.strip())[-1]
    assert len(unfinished) > 8
    for fmt, text in reports(result).items():
        assert unfinished not in text, fmt
        assert "About this report" in text, fmt
        assert "cut off at its output limit" in text, fmt
    assert record["model_calls"]["failures"] == {"truncated": 1}
    assert record["citations"] > 0 and record["exit_code"] == result.exit_code == 0


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_host_cut_twice_is_a_failed_stage_and_its_parts_not_researched(
    wire, tmp_path, monkeypatch
):
    faults = Faults().add("truncated", times=2, when=host)
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults)
    assert faults.played == ["truncated", "truncated"]
    assert record["failed_stages"][0] == "host (reply cut at the output limit)"
    assert {s["status"] for s in record["plan"]["subquestions"]} == {"not researched"}
    assert record["model_calls"]["failures"] == {"truncated": 1}
    for fmt, text in reports(result).items():
        assert text.count("Not researched: the research ended before") == 4, fmt
    assert record["exit_code"] == result.exit_code == 3


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_host_cut_once_is_asked_again_and_the_research_finishes(wire, tmp_path, monkeypatch):
    faults = Faults().add("truncated", when=host)
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults)
    assert faults.played == ["truncated"]
    assert record["failed_stages"] == [] and record["model_calls"]["faults"] == {"truncated": 1}
    assert all(s["status"] != "not researched" for s in record["plan"]["subquestions"])
    assert record["exit_code"] == result.exit_code == 0


#: A plan for the English demo question written in German and Chinese.
FOREIGN_PLAN = {
    "subquestions": [
        {"text": "Wie wurde der Große Kanal gebaut?", "queries": ["Großer Kanal Bau"]},
        {"text": "大运河为何衰落？", "queries": ["大运河 衰落"]},
    ]
}


@pytest.mark.parametrize("wire", sorted(SERVERS))
@pytest.mark.parametrize("bad", ["wrong-language", "cut"])
def test_a_refused_plan_falls_back_to_the_offline_one_with_its_reason(
    wire, bad, tmp_path, monkeypatch
):
    faults = Faults()
    if bad == "cut":
        faults.add("truncated", times=2, when=planner)
    plan = FOREIGN_PLAN if bad == "wrong-language" else None
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults, plan)
    planner_ = record["plan"]["planner"]
    assert planner_.startswith("offline (fallback: "), planner_
    if bad == "wrong-language":
        assert "in German, not in the question's language (English)" in planner_
    else:
        assert faults.played == ["truncated", "truncated"]
    assert [f["action"] for f in record["plan"]["fallbacks"]] == ["plan replaced"]
    offline = [s.text for s in offline_plan(result.question).subquestions]
    assert [s["text"] for s in record["plan"]["subquestions"]] == offline
    assert len(offline) == 4 and record["plan"]["language"] == "en"
    assert "大运河 衰落" not in json.dumps(record["delegations"], ensure_ascii=False)
    assert record["exit_code"] == result.exit_code == 0


@pytest.mark.parametrize("wire", sorted(SERVERS))
def test_a_writer_that_stays_empty_gives_a_compiled_report_that_says_so(
    wire, tmp_path, monkeypatch
):
    faults = Faults().add("empty", times=2, when=writer)
    result, record, _ = demo_run(tmp_path, monkeypatch, wire, faults)
    assert faults.played == ["empty", "empty"]
    for fmt, text in reports(result).items():
        assert "About this report" in text, fmt
        assert "The model returned no report text" in text, fmt
    assert record["model_calls"]["failures"] == {"empty": 1}
    assert record["citations"] > 0 and record["exit_code"] == result.exit_code == 0
