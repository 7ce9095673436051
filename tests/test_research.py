"""The planning Host on the bundled demo: parts answered with their facts, Chinese, an
honest "nothing found", one fetch per URL, isolated failures, budgets and the depth cap."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_support import demo_runs_dir, named_reports, written_report
from lxml import html as lxml_html
from research_support import (
    DEMO_FACTS,
    DEMO_FACTS_ZH,
    DEMO_KEY_FACTS,
    DEMO_KEY_FACTS_ZH,
    cited_sources,
    host_with,
    missing_key_facts,
    part_lines,
    run_demo,
    sections,
    sources,
)

from host.brains.offline import OfflinePolicy
from host.core.stages import find_context
from host.orchestration.guards import delegation_scope
from research.text import is_complete
from subagents.evidence import EvidenceItem, span_matches

ROOT = Path(__file__).resolve().parent.parent
PART_KEYS = ("built", "water", "decline", "today")


@pytest.fixture(scope="module")
def demo(demo_en):
    """The demo run on its English question (shared with the other modules reading it)."""
    return demo_en


@pytest.fixture(scope="module")
def demo_zh(demo_zh_run):
    """The demo run on its Chinese question (shared likewise)."""
    return demo_zh_run


def report(result, fmt: str = "md") -> str:
    """The run's report in ``fmt``, as its outputs list it."""
    return written_report(result.run.path, result.outputs, fmt).read_text(encoding="utf-8")


def test_each_part_of_the_demo_question_is_answered_with_its_facts(demo):
    _, result, _ = demo
    markdown = report(result)
    numbered = sources(markdown)
    headings = [h for h in sections(markdown) if h.endswith("?")]
    assert headings == [s.text for s in result.plan.subquestions]  # headings are the parts
    parts = part_lines(markdown, headings)
    for key, (heading, lines) in zip(PART_KEYS, parts.items(), strict=True):
        facts = DEMO_FACTS[key]
        with_facts = [ln for ln in lines if any(f.lower() in ln.lower() for f in facts)]
        found = {f for f in facts for ln in lines if f.lower() in ln.lower()}
        assert len(with_facts) >= 2, (heading, lines)
        # two sources answer it; its facts may all be one source's (a line of another that
        # points back to a sentence it does not quote is left out)
        assert len(cited_sources(lines, numbered)) >= 2, (heading, lines)
        assert len(found) >= 3, (heading, found)
        assert not missing_key_facts(lines, DEMO_KEY_FACTS[key]), (heading, lines)
    assert result.exit_code == 0 and result.answered == 4


def test_every_cited_span_is_exact_text_of_its_stored_source(demo):
    _, result, _ = demo
    items = [json.loads(line) for line in result.run.real_path("/internal/evidence.jsonl").open()]
    cited = set().union(*(s.evidence_ids for s in result.plan.subquestions))
    assert cited
    for raw in items:
        if raw["id"] in cited:
            item = EvidenceItem.from_dict(raw)
            text = result.run.real_path(item.page_path).read_text(encoding="utf-8")
            assert span_matches(text, item), raw


def test_the_plan_and_its_rounds_are_recorded(demo):
    _, result, _ = demo
    plan = json.loads(result.run.real_path("/internal/plan.json").read_text())
    assert set(plan) >= {"question", "language", "subquestions", "rounds"}
    assert plan["language"] == "en" and plan["planner"] == "offline"
    statuses = {s["id"]: s["status"] for s in plan["subquestions"]}
    assert set(statuses.values()) <= {"answered", "partly answered"}
    assert all(s["evidence_ids"] and s["queries"] for s in plan["subquestions"])
    assert {r["subagent"] for r in plan["rounds"]} == {"search", "browser"}
    for sid, status in statuses.items():  # a part left open got more rounds, with new queries
        steps = [r for r in plan["rounds"] if r["subquestion"] == sid]
        if status != "answered":
            assert max(r["round"] for r in steps) > 1, steps
            queries = [q for r in steps if r["subagent"] == "search" for q in r["queries"]]
            assert len(set(queries)) > len(steps[0]["queries"])
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert run["plan"] == plan and run["answered"] == 4 and run["exit_code"] == 0
    kinds = [d["subagent"] for d in run["delegations"]]
    assert kinds[0] == "file" and kinds[-1] == "generate"
    assert {r["subquestion"] for r in plan["rounds"] if r["subagent"] == "search"} == set(statuses)
    # Searches run at once and each reading task takes pages nobody has been handed yet,
    # so a part whose search ends last may find its pages taken; the pages read for the
    # other parts serve it (every part has evidence, above).
    browsed = {r["subquestion"] for r in plan["rounds"] if r["subagent"] == "browser"}
    assert len(browsed) >= len(statuses) - 1, plan["rounds"]


def test_no_url_is_fetched_twice_and_pages_serve_every_part(demo):
    host, result, world = demo
    pages = [p for p in world.site_requests if p.endswith(".html")]
    assert pages and len(pages) == len(set(pages)), collections.Counter(pages).most_common(3)
    docs = [p for p in world.site_requests if p.startswith("/docs/")]
    assert len(docs) == len(set(docs))
    assert result.pages_read <= host.settings.max_pages
    research = host.state.research
    shared = [s for s in research.sources.values() if len(s.relevant_to) >= 2]
    assert shared  # a page read for one part answers another too


def test_input_files_are_sources_and_the_brief_is_requirements_and_facts(demo):
    """The brief's instructions are requirements; its one statement of fact is its text as
    a source, and no requirement."""
    host, result, _ = demo
    research = host.state.research
    files = {s.url for s in research.sources.values() if s.kind == "file"}
    assert "/userinput/reading-notes.md" in files
    assert "/userinput/research-brief.pdf" in research.briefs
    (brief,) = [p for p, s in research.sources.items() if s.url == "/userinput/research-brief.pdf"]
    stored = research.texts[brief]
    assert "The photo of the museum placard is from the Yangzhou visit." in stored
    assert "Give ranges" not in stored and "Length wanted" not in stored
    assert any("Length wanted: 2–3 pages" in r for r in result.requirements)
    assert any("Give ranges where sources disagree" in r for r in result.requirements)
    assert not any("placard" in r for r in result.requirements)
    assert "What the report should cover" not in report(result)


def test_the_chinese_question_finds_chinese_sources_and_is_answered_in_chinese(demo_zh):
    _, result, _ = demo_zh
    assert result.plan.language == "zh" and result.answered == 4
    markdown = report(result)
    headings = [h for h in sections(markdown) if h.endswith("？")]
    assert len(headings) == 4
    parts = part_lines(markdown, headings)
    for key, lines in zip(PART_KEYS, parts.values(), strict=True):
        chinese = [ln for ln in lines if sum("\u4e00" <= c <= "\u9fff" for c in ln) > 10]
        assert len(chinese) >= 2, lines
        assert any(f in ln for f in DEMO_FACTS_ZH[key] for ln in lines), (key, lines)
        assert not missing_key_facts(lines, DEMO_KEY_FACTS_ZH[key]), (key, lines)


def test_an_off_topic_question_gets_the_honest_nothing_report_and_exit_3(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "quartet", "demo", "--question", "How do heat pumps work?",
         "--runs-dir", str(demo_runs_dir(tmp_path)), "--formats", "md", "--json"],
        capture_output=True, text=True, env=env, timeout=240, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1
    assert "the report does not answer its one part: no relevant evidence" in proc.stderr
    record = json.loads(proc.stdout)
    assert record["citations"] == 0 and record["answered"] == 0
    assert all(s["status"] == "not found" for s in record["plan"]["subquestions"])
    run = next(p for p in tmp_path.iterdir() if not p.name.startswith("."))
    text = written_report(run, record["outputs"]).read_text()
    assert "No relevant evidence was found" in text and "What was searched" in text
    assert "heat pumps" in text and "[1]" not in text
    # the pages read answer nothing: the documents they link to are not downloaded
    assert not list((run / "workspace" / "downloads").glob("*"))


class BrokenForQ2(OfflinePolicy):
    """A browser brain that fails on the second sub-question only."""

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if find_context(messages).get("subquestion_id") == "q2":
            raise RuntimeError("browser brain crashed on q2")
        return await super().__call__(messages, tools, tool_choice, **kwargs)


def test_a_failing_browser_task_leaves_the_other_parts_evidence_intact(tmp_path):
    host, result, _ = run_demo(tmp_path, formats=("md",), host_cls=host_with(BrokenForQ2))
    browser = [d for d in result.delegations if d.subagent == "browser"]
    failed = [d for d in browser if d.status == "failed"]
    assert failed and {d.subquestion for d in failed} == {"q2"}
    assert "crashed on q2" in failed[0].error
    research = host.state.research
    for sub in ("q1", "q3", "q4"):
        assert research.coverage(sub).items >= 2, sub
        assert any(d.subquestion == sub and d.status == "ok" for d in browser)
    assert result.outputs == named_reports(result.question, "md")


def test_the_depth_cap_refuses_a_delegation_nested_too_deep(demo):
    host, _, _ = demo
    cap = host.settings.depth_cap
    before = len(host.state.delegator.delegations)

    async def nested():
        with delegation_scope(cap), delegation_scope(cap), delegation_scope(cap):
            return await host.state.delegator.task("nested", "search", {"subquestion": "q1"})

    response = asyncio.run(nested())
    assert response.metadata["status"] == "refused"
    assert "over the cap" in response.content[0]["text"]
    assert len(host.state.delegator.delegations) == before


def test_only_the_host_can_delegate(demo):
    host, _, _ = demo
    from subagents import SPECS

    assert all("task" not in spec.allowlist() for spec in SPECS.values())
    assert set(host.state.host_agent.toolkit.tools) <= {"task", "generate_response"}


@pytest.mark.parametrize("which", ["demo", "demo_zh"])
def test_the_report_body_is_whole_sentences_without_markup(which, request):
    """Every bullet of the summary and the parts, in Markdown and HTML, is a full sentence
    (no trailing colon or conjunction, no list-item fragment) and shows no Markdown."""
    _, result, _ = request.getfixturevalue(which)
    markdown = report(result)
    body = re.split(r"^## (?:Sources|来源)$", markdown, flags=re.M)[0]
    bullets = [re.sub(r"\s?\[\d+\]", "", ln[2:]) for ln in body.splitlines() if ln[:2] == "- "]
    disagreement = ("Sources give", "关于")
    prose = [b for b in bullets if not b.startswith(disagreement)]
    assert len(prose) >= 10, bullets
    assert [b for b in prose if not is_complete(b)] == []
    assert [b for b in bullets if "**" in b or "](" in b or "`" in b] == []
    doc = lxml_html.fromstring(report(result, "html"))
    items = [
        re.sub(r"\s?\[?\d+\]?$", "", li.text_content().strip())
        for li in doc.xpath("//main//li[not(ancestor::*[@id='sources'])]")
    ]
    html_prose = [t for t in items if t and not t.startswith(disagreement)]
    assert len(html_prose) >= len(prose), items
    assert [t for t in html_prose if "**" in t or "](" in t] == []
