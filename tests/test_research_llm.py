"""The same research pipeline with an LLM brain, through the OpenAI wire format on loopback:
a structured plan, task-driven delegation, structured outcomes, and a fallback plan."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from cli_support import shared_cache
from generate_samples import pdf_text, pptx_text
from openai_server import FABRICATED, UNSUPPORTED_CLAIM, ScriptedOpenAI

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host
from subagents.generate.report import Colophon, colophon_text

CANARY = "sk-llm-canary-4d2a9c"


ALL_FORMATS = ("md", "html", "pdf", "pptx")


def llm_run(tmp_path, monkeypatch, server: ScriptedOpenAI, formats=("md", "html")):
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    settings = Settings(runs_dir=tmp_path / "runs", formats=formats, quiet=True)
    with demo_world(shared_cache()) as world:
        host = Host(demo_settings(settings, world), make_brain("openai:loopback-model"))
        result = asyncio.run(host.run(world.question))
    return host, result


@pytest.fixture(scope="module")
def scripted(tmp_path_factory):
    with pytest.MonkeyPatch.context() as monkeypatch, ScriptedOpenAI(formats=ALL_FORMATS) as server:
        host, result = llm_run(tmp_path_factory.mktemp("llm"), monkeypatch, server, ALL_FORMATS)
        yield server, host, result


def test_the_model_plans_and_the_plan_is_used(scripted):
    server, _, result = scripted
    assert result.plan.planner == "model"
    texts = [s.text for s in result.plan.subquestions]
    assert texts[:2] == ["How was the Grand Canal built?", "Why did the Grand Canal decline?"]
    # the two parts of the question the model's plan leaves out come from the offline plan
    assert [t.split("Grand Canal ")[-1] for t in texts[2:]] == [
        "kept supplied with water?",
        "play today?",
    ]
    assert [(f["action"], f["part"]) for f in result.plan.fallbacks] == [
        ("part added", "q3"),
        ("part added", "q4"),
    ]
    assert server.roles.count("planner") >= 1


def test_the_host_model_drives_every_subagent_through_task(scripted):
    server, _, result = scripted
    kinds = [d.subagent for d in result.delegations]
    assert kinds == ["file", "search", "search", "browser", "browser", "generate"]
    assert all(d.status == "ok" for d in result.delegations), [
        d.summary() for d in result.delegations
    ]
    assert {"host", "search", "browser", "file", "generate", "page-answer", "prose"} <= set(
        server.roles
    )
    for d in result.delegations:  # every delegation ended with its structured outcome
        assert d.outcome is not None and d.outcome["summary"], d.summary()
    browser = [d for d in result.delegations if d.subagent == "browser"]
    assert all(d.outcome["evidence_ids"] for d in browser)
    assert result.tokens["input"] > 0 and result.tokens["output"] > 0


def test_subagents_see_their_own_tools_and_never_task(scripted):
    server, _, _ = scripted
    for body in server.requests:
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        if "task" in tools:
            assert tools <= {"task", "generate_response"}
        else:
            assert "task" not in tools
        assert not any(
            "delegator" in json.dumps(t) or "service" in json.dumps(t)
            for t in body.get("tools") or []
        )


def _texts(result) -> dict[str, str]:
    """The words of every format as a reader gets them: Markdown and HTML as text, the
    PDF's text layer, and the deck's text including its tables and speaker notes."""
    read = {"md": bytes.decode, "html": bytes.decode, "pdf": pdf_text, "pptx": pptx_text}
    path = result.run.real_path
    return {
        ext: get(path(f"/workspace/reports/report.{ext}").read_bytes()) for ext, get in read.items()
    }


def test_prose_is_requested_once_and_a_fabricated_claim_leaves_every_format(scripted):
    server, _, result = scripted
    assert server.prose_requests == 1  # the four formats render the same prose
    assert result.outputs == [f"/workspace/reports/report.{ext}" for ext in ALL_FORMATS]
    texts = _texts(result)
    for ext, text in texts.items():
        flat = " ".join(text.split())
        assert FABRICATED not in flat and "aliens" not in flat, ext
        assert "Quixotic" not in flat and "moon bonds" not in flat, ext  # a real id, unsupported
    assert re.search(r"\[1\]", texts["md"])
    for ext, text in texts.items():  # the model's verified sentence is in every format
        assert server.verified_claim in " ".join(text.split()), ext
    check = result.citation_check  # the unsupported claim is counted, with the accuracy
    assert check["unsupported"] >= 1 and 0 < check["citation_accuracy"] < 1
    assert UNSUPPORTED_CLAIM not in json.dumps(check)


def test_every_format_ends_with_the_colophon_naming_the_model(scripted):
    """The model's run gets the offline run's colophon, with the model named: the run's
    date, the version, and the counts run.json records (no key, no base URL)."""
    server, _, result = scripted
    record = json.loads(result.run.real_path("/internal/run.json").read_text(encoding="utf-8"))
    date = f"{result.run.id[:4]}-{result.run.id[4:6]}-{result.run.id[6:8]}"
    pages, files = record["pages_read"], record["files_read"]
    line = colophon_text(Colophon(date, record["version"], record["brain"], pages, files))
    assert line.startswith(f"Made by Quartet {record['version']} on {date} with the model ")
    assert "openai:loopback-model;" in line and pages > 0 and files > 0
    for ext, text in _texts(result).items():
        flat = " ".join(text.split())
        assert line in flat, ext
        assert CANARY not in flat and server.base_url not in flat, ext


def test_the_key_travels_only_in_the_authorization_header(scripted):
    server, _, result = scripted
    assert server.auth and all(h == f"Bearer {CANARY}" for h in server.auth)
    assert CANARY not in json.dumps(server.requests)
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path


def test_an_invalid_plan_falls_back_to_the_offline_planner_and_says_so(tmp_path, monkeypatch):
    with ScriptedOpenAI(plan={"subquestions": "not a list"}) as server:
        _, result = llm_run(tmp_path, monkeypatch, server)
    assert result.plan.planner.startswith("offline (fallback: the model gave no valid plan")
    assert len(result.plan.subquestions) == 4  # the offline decomposition of the demo question
    plan = json.loads(result.run.real_path("/internal/plan.json").read_text())
    assert plan["planner"] == result.plan.planner
