"""A complete audit trail of an LLM run, through the OpenAI wire format on 127.0.0.1.

The Host's calls to a tool it does not have, a task for an unknown subagent type and the
tasks refused for a spent budget are in run.json and the transcript; evidence ids and
page paths an outcome makes up are flagged there; and a recorded run replays exactly.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import shared_cache
from openai_server import ScriptedOpenAI, _call

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.audit import arguments_summary
from host.orchestration.hub import Host
from quartet.cli import main

CANARY = "sk-audit-canary-5b1e7d"
MADE_UP_ID = "ev-123456789abc"
MADE_UP_PAGE = "/workspace/pages/never-stored.md"


def _task(kind: str, ctx: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "task", {"description": f"{kind} task", "subagent_type": kind, "context": ctx}


class AuditedOpenAI(ScriptedOpenAI):
    """A Host that calls a tool it lacks, asks for a "magic" subagent, and asks again
    once the page budget and the research rounds are spent; a browser whose outcome
    names an evidence id and a page that do not exist."""

    STEPS = (
        [("web_search", {"query": "Grand Canal"}), _task("magic", {"subquestion": "q1"})],
        [_task("file", {})],
        [_task("search", {"subquestion": "q1"}), _task("search", {"subquestion": "q2"})],
        [_task("browser", {"subquestion": "q1"})],
        [_task("browser", {"subquestion": "q2"})],  # the page budget is spent by now
        [_task("search", {"subquestion": "q1"})],  # the only round of q1 is used
        [_task("generate", {"formats": ["md"]})],
    )

    def _host(self, done: int, n: int) -> dict[str, Any]:
        taken = 0
        for step in self.STEPS:
            if done == taken:
                calls = [_call(name, args, n + i) for i, (name, args) in enumerate(step)]
                return {"content": None, "tool_calls": calls}
            taken += len(step)
        return {"content": "The research is done and the report is written."}

    def _browser(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        reply = super()._browser(ctx, results, n)
        for call in reply.get("tool_calls") or []:
            if call["function"]["name"] == "generate_response":
                args = json.loads(call["function"]["arguments"])
                args["evidence_ids"] = [*args.get("evidence_ids", []), MADE_UP_ID]
                args["pages"] = [*args.get("pages", []), MADE_UP_PAGE]
                call["function"]["arguments"] = json.dumps(args)
        return reply


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    runs = tmp_path_factory.mktemp("audit") / "runs"
    with pytest.MonkeyPatch.context() as monkeypatch, AuditedOpenAI(formats=("md",)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", CANARY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = Settings(runs_dir=runs, formats=("md",), quiet=True, max_rounds=1)
        with demo_world(shared_cache()) as world:
            settings = demo_settings(settings, world)
            host = Host(_with_pages(settings, 1), make_brain("openai:loopback-model"))
            result = asyncio.run(host.run(world.question))
    internal = result.run.path / "internal"
    record = json.loads((internal / "run.json").read_text())
    transcript = [
        json.loads(line) for line in (internal / "transcript.jsonl").read_text().split("\n") if line
    ]
    return result, record, transcript


def _with_pages(settings: Settings, pages: int) -> Settings:
    from dataclasses import replace

    return replace(settings, max_pages=pages)


def test_every_host_refusal_and_unknown_tool_is_in_run_json(audited):
    _, record, _ = audited
    refusals = record["host_refusals"]
    by_what = {(r["tool"], r["arguments"].get("subagent_type")): r for r in refusals}
    unknown = by_what[("web_search", None)]
    assert unknown["status"] == "unknown tool"
    assert unknown["arguments"] == {"query": "Grand Canal"}
    assert "web_search" in unknown["reason"]
    magic = by_what[("task", "magic")]
    assert magic["status"] == "error" and "unknown subagent_type 'magic'" in magic["reason"]
    reasons = [r["reason"] for r in refusals if r["tool"] == "task"]
    assert any(r.startswith("the page budget (1 pages) is spent") for r in reasons), reasons
    assert any(r.startswith("no research rounds left for q1") for r in reasons), reasons
    assert len(refusals) == 4, refusals


def test_every_host_refusal_is_in_the_transcript(audited):
    _, record, transcript = audited
    logged = [
        m["metadata"]["host_refusal"] for m in transcript if "host_refusal" in (m["metadata"] or {})
    ]
    assert logged == record["host_refusals"]
    assert all(m["name"] == "Host" for m in transcript if "host_refusal" in (m["metadata"] or {}))


def test_made_up_evidence_ids_and_pages_in_an_outcome_are_flagged(audited):
    result, record, transcript = audited
    evidence = (result.run.path / "internal" / "evidence.jsonl").read_text().splitlines()
    ledger = {json.loads(line)["id"] for line in evidence}
    assert MADE_UP_ID not in ledger
    browser = [d for d in record["delegations"] if d["subagent"] == "browser"]
    assert browser and all(d["status"] == "ok" for d in browser)
    for d in browser:
        assert d["unknown_evidence_ids"] == [MADE_UP_ID]
        assert d["unknown_paths"] == [MADE_UP_PAGE]
        real = [i for i in d["outcome"]["evidence_ids"] if i != MADE_UP_ID]
        assert real and set(real) <= ledger  # the real ids are not flagged
    others = [d for d in record["delegations"] if d["subagent"] != "browser"]
    assert others and all(not d["unknown_evidence_ids"] and not d["unknown_paths"] for d in others)
    ends = {
        m["metadata"]["delegation"]["id"]: m["metadata"]["delegation"]
        for m in transcript
        if "delegation" in (m["metadata"] or {})
    }
    for d in browser:
        assert ends[d["id"]]["unknown_evidence_ids"] == [MADE_UP_ID]
        assert ends[d["id"]]["unknown_paths"] == [MADE_UP_PAGE]


def test_an_arguments_summary_cuts_long_values():
    shown = arguments_summary({"description": "x" * 500, "context": {"a": 1}})
    assert shown["description"] == "x" * 200 + "…"
    assert shown["context"] == {"a": 1}


class NotesFolderWriter(ScriptedOpenAI):
    """A writer that hands every format the whole notes folder, where the prose the
    first format asked for is kept."""

    def _generate(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        return super()._generate({**ctx, "from_paths": ["/workspace/notes/"]}, results, n)


def test_a_recorded_model_run_replays_exactly_with_exit_0(tmp_path, monkeypatch, capsys):
    runs = tmp_path / "runs"
    formats = ("md", "html", "pdf")
    with NotesFolderWriter(formats=formats) as server:
        monkeypatch.setenv("OPENAI_API_KEY", CANARY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = Settings(runs_dir=runs, formats=formats, quiet=True, record=True)
        with demo_world(shared_cache()) as world:
            host = Host(demo_settings(settings, world), make_brain("openai:loopback-model"))
            result = asyncio.run(host.run(world.question))
        bodies = [json.dumps(b) for b in server.requests]
    assert result.exit_code == 0 and result.citations > 0
    assert server.prose_requests == 1  # every format rendered the prose asked for once
    assert not any(".prose-" in body for body in bodies)  # no kept file reaches a request
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name)
    before = {p.name for p in runs.iterdir()}
    code = main(["replay", result.run.id, "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    (new_id,) = {p.name for p in runs.iterdir() if not p.name.startswith(".")} - before
    new: Path = runs / new_id
    verdict = json.loads((new / "internal" / "replay.json").read_text())
    assert verdict == {"of": result.run.id, "reproduced": True, "divergences": [], "unused": []}
    for ext in formats[:2]:
        old = (result.run.path / "workspace" / "reports" / f"report.{ext}").read_text()
        again = (new / "workspace" / "reports" / f"report.{ext}").read_text()
        assert again.replace(new_id, result.run.id) == old, ext
    notes = sorted(p.name for p in (result.run.path / "workspace" / "notes").iterdir())
    assert any(n.startswith(".prose-") for n in notes)
    assert sorted(p.name for p in (new / "workspace" / "notes").iterdir()) == notes
