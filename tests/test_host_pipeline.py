"""The whole pipeline on the bundled local web: hub, silence, records and failures."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from agentscope.message import ToolUseBlock
from agentscope.model import ChatResponse
from pptx import Presentation
from pypdf import PdfReader

from host.brains import make_brain
from host.brains.offline import OfflinePolicy, message_text
from host.config import Settings
from host.demo.web import demo_environment
from host.hub import Host
from host.stages import find_context
from subagents import PIPELINE_ORDER
from subagents.evidence import EvidenceItem, span_matches


def run_demo(tmp_path: Path, **overrides) -> tuple[Host, object]:
    settings = Settings(runs_dir=tmp_path / "runs", stage_timeout=120, quiet=True)
    for k, v in overrides.items():
        setattr(settings, k, v)
    with demo_environment(settings) as (question, env_settings):
        host = Host(env_settings, make_brain("offline"))
        result = asyncio.run(host.run(question))
    return host, result


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return run_demo(tmp_path_factory.mktemp("demo"))


def test_all_four_formats_are_written(demo):
    _, result = demo
    assert sorted(Path(p).suffix for p in result.outputs) == [".html", ".md", ".pdf", ".pptx"]
    for logical in result.outputs:
        assert result.run.real_path(logical).stat().st_size > 500
    pdf = result.run.real_path("/workspace/reports/report.pdf")
    assert len(PdfReader(pdf).pages) >= 1
    deck = Presentation(result.run.real_path("/workspace/reports/report.pptx"))
    assert len(deck.slides) >= 3


def test_every_citation_is_an_exact_span_of_a_stored_page(demo):
    _, result = demo
    lines = result.run.real_path("/internal/evidence.jsonl").read_text().splitlines()
    items = [EvidenceItem.from_dict(json.loads(line)) for line in lines]
    assert len(items) >= 3
    for item in items:
        text = result.run.real_path(item.page_path).read_text(encoding="utf-8")
        assert span_matches(text, item), item
    report = result.run.real_path("/workspace/reports/report.md").read_text(encoding="utf-8")
    assert "[1]" in report
    cited_urls = {i.url for i in items}
    assert any(url in report for url in cited_urls)
    assert result.citations >= 1


def test_stages_ran_in_order_and_each_did_work(demo):
    _, result = demo
    assert [s.name for s in result.stages] == list(PIPELINE_ORDER)
    for stage in result.stages:
        assert stage.error is None, stage
        assert stage.tool_calls > 0
    ctx = result.context
    assert ctx["urls"] and ctx["pages"] and ctx["downloads"] and ctx["notes"]


def test_subagents_cannot_reach_the_host_records(demo):
    _, result = demo
    for op in ("list", "read_binary", "write"):
        assert not result.run.subagent_service.can("/internal/run.json", op)
        assert result.run.host_service.can("/internal/run.json", op)
    assert not result.run.subagent_service.can("/userinput/research-brief.pdf", "write")
    assert "/internal/" not in result.run.subagent_service.describe_grants_markdown()


def test_transcript_and_run_json(demo):
    _, result = demo
    lines = result.run.real_path("/internal/transcript.jsonl").read_text().splitlines()
    msgs = [json.loads(line) for line in lines]
    assert msgs[0]["name"] == "Host"
    delegations = [m for m in msgs if m["name"] == "Host" and "<context>" in str(m["content"])]
    outcomes = [m for m in msgs if m["name"] in PIPELINE_ORDER]
    assert len(delegations) == 4 and [m["name"] for m in outcomes] == list(PIPELINE_ORDER)
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert [s["name"] for s in run["stages"]] == list(PIPELINE_ORDER)
    assert run["outputs"] == result.outputs and run["errors"] == []
    calls = run["tool_calls"]
    assert len(calls) == sum(s["tool_calls"] for s in run["stages"])
    assert {c["stage"] for c in calls} == set(PIPELINE_ORDER)
    assert all(c["ok"] for c in calls if c["tool"].startswith("generate_"))
    assert all(len(str(v)) <= 201 for c in calls for v in c["input"].values())


async def _memory_names(agent) -> list[str]:
    return [m.name for m in await agent.memory.get_memory()]


def test_each_subagent_observes_the_others_results(demo):
    host, _ = demo
    assert all(agent.compression_config is None for agent in host.agents.values())
    for name, agent in host.agents.items():
        seen = asyncio.run(_memory_names(agent))
        others = [n for n in PIPELINE_ORDER if n != name]
        for other in others:
            assert other in seen, f"{name} did not observe {other}"
    assert [m.name for m in host.host_agent.seen][-4:] == list(PIPELINE_ORDER)


def test_subagents_are_silent(tmp_path, capfd):
    run_demo(tmp_path, formats=("md",))
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_a_failed_source_does_not_sink_the_run(tmp_path, monkeypatch):
    from host.demo import web

    original = web.SearchWeb

    class FaultySearchWeb(original):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            super().start()
            self.fault("google-page", "error")
            self.fault("bing-page", "captcha")

    monkeypatch.setattr(web, "SearchWeb", FaultySearchWeb)
    _, result = run_demo(tmp_path, formats=("md",))
    search = result.stages[0]
    assert search.failed_calls == 2 and search.error is None
    assert result.outputs == ["/workspace/reports/report.md"]


class BrokenBrowserPolicy(OfflinePolicy):
    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if any(t["function"]["name"] == "viewer_fetch" for t in tools or []):
            raise RuntimeError("browser brain crashed")
        return await super().__call__(messages, tools, tool_choice, **kwargs)


class LeakyBrowserPolicy(OfflinePolicy):
    """A provider error that echoes the key it was sent."""

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if any(t["function"]["name"] == "viewer_fetch" for t in tools or []):
            raise PermissionError(f"401: bad Bearer {os.environ['OPENAI_API_KEY']}")
        return await super().__call__(messages, tools, tool_choice, **kwargs)


def test_a_key_echoed_in_a_stage_error_is_scrubbed(tmp_path, monkeypatch):
    canary = "sk-stage-canary-77f1e2"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    monkeypatch.setattr(Host, "_agent_model", lambda self, name, result: LeakyBrowserPolicy())
    _, result = run_demo(tmp_path, formats=("md",))
    assert "401: bad Bearer ***" in (result.stages[1].error or "")
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert canary.encode() not in path.read_bytes(), path


class HangingBrowserPolicy(OfflinePolicy):
    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if any(t["function"]["name"] == "viewer_fetch" for t in tools or []):
            await asyncio.Event().wait()
        return await super().__call__(messages, tools, tool_choice, **kwargs)


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (BrokenBrowserPolicy, "browser brain crashed"),
        (HangingBrowserPolicy, "timed out"),
    ],
)
def test_a_failed_stage_does_not_sink_the_run(tmp_path, monkeypatch, policy, expected):
    monkeypatch.setattr(Host, "_agent_model", lambda self, name, result: policy())
    _, result = run_demo(tmp_path, formats=("md",), stage_timeouts={"browser": 2.0})
    by_name = {s.name: s for s in result.stages}
    assert expected in (by_name["browser"].error or "")
    assert by_name["file"].error is None and by_name["generate"].error is None
    assert result.outputs == ["/workspace/reports/report.md"]
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert any(expected in e for e in run["errors"])


class NavigateThenCrash(OfflinePolicy):
    """Opens the real browser on the first browser step, then crashes."""

    def __init__(self) -> None:
        super().__init__()
        self.browser_turns = 0

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if any(t["function"]["name"] == "viewer_fetch" for t in tools or []):
            self.browser_turns += 1
            if self.browser_turns == 1:
                url = find_context([message_text(m) for m in messages])["urls"][0]["url"]
                call = ToolUseBlock(
                    type="tool_use", id="nav-1", name="browser_navigate", input={"url": url}
                )
                return ChatResponse(content=[call])
            raise RuntimeError("crashed after navigating")
        return await super().__call__(messages, tools, tool_choice, **kwargs)


def test_the_browser_is_closed_even_when_its_stage_crashes(tmp_path, monkeypatch):
    monkeypatch.setattr(Host, "_agent_model", lambda self, name, result: NavigateThenCrash())
    host, result = run_demo(tmp_path, formats=("md",))
    navigate = [r for r in host.guards["browser"].records if r.name == "browser_navigate"]
    assert len(navigate) == 1 and not navigate[0].failed, (navigate, result.stages[1])
    assert "crashed after navigating" in (result.stages[1].error or "")
    assert host.browser is not None and not host.browser.started
    assert result.outputs == ["/workspace/reports/report.md"]
