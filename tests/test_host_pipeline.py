"""The whole pipeline on the bundled local web: formats, hub, silence, records and failures."""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from agentscope.message import ToolUseBlock
from agentscope.model import ChatResponse
from cli_support import named_reports, written_report
from lxml import html as lxml_html
from pptx import Presentation
from pypdf import PdfReader
from research_support import host_with, run_demo

from host.brains.offline import OfflinePolicy
from host.core.stages import HOST_NAME, find_context
from host.orchestration.hub import Host
from research.facts import leans_on_context
from research.labels import label
from subagents import PIPELINE_ORDER


@pytest.fixture(scope="module")
def demo(demo_en):
    """The demo run on its English question in every format (shared with the other
    modules reading it)."""
    return demo_en


def test_all_four_formats_are_written(demo):
    _, result, _ = demo
    assert [Path(p).suffix for p in result.outputs] == [".md", ".html", ".pdf", ".pptx"]
    for logical in result.outputs:
        assert result.run.real_path(logical).stat().st_size > 500
    # the brief in the demo's input folder asks for "2–3 pages with sources"
    assert 2 <= len(PdfReader(report(result, "pdf")).pages) <= 3
    assert len(Presentation(report(result, "pptx")).slides) >= 3


def test_subagents_cannot_reach_the_host_records(demo):
    _, result, _ = demo
    for op in ("list", "read_binary", "write"):
        assert not result.run.subagent_service.can("/internal/run.json", op)
        assert result.run.host_service.can("/internal/run.json", op)
    assert not result.run.subagent_service.can("/userinput/research-brief.pdf", "write")
    assert "/internal/" not in result.run.subagent_service.describe_grants_markdown()


def test_transcript_and_run_json(demo):
    _, result, _ = demo
    lines = result.run.real_path("/internal/transcript.jsonl").read_text().splitlines()
    msgs = [json.loads(line) for line in lines]
    assert msgs[0]["content"].startswith("Research request:")
    tasks = [m for m in msgs if m["name"] == HOST_NAME and "<context>" in str(m["content"])]
    outcomes = [m for m in msgs if m["name"] in PIPELINE_ORDER]
    assert len(tasks) == len(outcomes) == len(result.delegations)
    assert [m["name"] for m in outcomes] == [d.subagent for d in result.delegations]
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert run["outputs"] == result.outputs and run["errors"] == []
    calls = run["tool_calls"]
    assert len(calls) == sum(d["tool_calls"] for d in run["delegations"])
    assert {c["stage"] for c in calls} == set(PIPELINE_ORDER)
    assert all(c["ok"] for c in calls if c["tool"].startswith("generate_"))
    assert all(len(str(v)) <= 201 for c in calls for v in c["input"].values())


def test_the_host_sees_every_outcome_in_the_hub(demo):
    host, result, _ = demo
    seen = [m.name for m in host.state.host_agent.seen]
    assert seen[0] == "user"  # the announcement
    assert seen[1:] == [d.subagent for d in result.delegations]
    for msg in host.state.host_agent.seen[1:]:
        assert msg.metadata["delegation"]["status"] == "ok"


def test_subagents_are_silent(tmp_path, capfd):
    run_demo(tmp_path, formats=("md",))
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_a_failed_source_does_not_sink_the_run(tmp_path, monkeypatch):
    from demo import web

    original = web.SearchWeb

    class FaultySearchWeb(original):  # type: ignore[misc, valid-type]
        def start(self) -> None:
            super().start()
            self.fault("google-page", "error")
            self.fault("bing-page", "captcha")

    monkeypatch.setattr(web, "SearchWeb", FaultySearchWeb)
    _, result, _ = run_demo(tmp_path, formats=("md",))
    failed = [c for c in result.calls if c.failed]
    assert failed and {c.name for c in failed} == {"search_google", "search_bing"}
    assert all(d.status == "ok" for d in result.delegations)
    assert result.outputs == named_reports(result.question, "md") and result.exit_code == 0


class BrokenBrowserPolicy(OfflinePolicy):
    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        raise RuntimeError("browser brain crashed")


class LeakyBrowserPolicy(OfflinePolicy):
    """A provider error that echoes the key it was sent."""

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        raise PermissionError(f"401: bad Bearer {os.environ['OPENAI_API_KEY']}")


class HangingBrowserPolicy(OfflinePolicy):
    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        await asyncio.Event().wait()


def test_a_key_echoed_in_a_task_error_is_scrubbed(tmp_path, monkeypatch):
    canary = "sk-stage-canary-77f1e2"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    _, result, _ = run_demo(tmp_path, formats=("md",), host_cls=host_with(LeakyBrowserPolicy))
    browser = [d for d in result.delegations if d.subagent == "browser"]
    assert browser and all("401: bad Bearer ***" in (d.error or "") for d in browser)
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert canary.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(
    ("policy", "status", "expected"),
    [
        (BrokenBrowserPolicy, "failed", "browser brain crashed"),
        (HangingBrowserPolicy, "timed out", "timed out after 2 s"),
    ],
)
def test_failed_or_hung_tasks_do_not_sink_the_run(tmp_path, policy, status, expected):
    _, result, _ = run_demo(
        tmp_path, formats=("md",), stage_timeouts={"browser": 2.0}, host_cls=host_with(policy)
    )
    browser = [d for d in result.delegations if d.subagent == "browser"]
    assert browser and all(d.status == status and expected in d.error for d in browser)
    others = [d for d in result.delegations if d.subagent != "browser"]
    assert others and all(d.status == "ok" for d in others)
    assert result.outputs == named_reports(result.question, "md")
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert any(expected in e for e in run["errors"])


class NavigateThenCrash(OfflinePolicy):
    """Opens the real browser on its first step, then crashes."""

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if not any(m.get("role") == "tool" for m in messages):
            url = find_context(messages)["urls"][0]
            call = ToolUseBlock(
                type="tool_use", id="nav-1", name="browser_navigate", input={"url": url}
            )
            return ChatResponse(content=[call])
        raise RuntimeError("crashed after navigating")


def test_the_browser_is_closed_even_when_a_task_crashes(tmp_path):
    host, result, _ = run_demo(tmp_path, formats=("md",), host_cls=host_with(NavigateThenCrash))
    navigate = [r for r in result.calls if r.name == "browser_navigate"]
    assert navigate and not any(r.failed for r in navigate)
    browser = [d for d in result.delegations if d.subagent == "browser"]
    assert all("crashed after navigating" in (d.error or "") for d in browser)
    assert host.workers.browser is not None and not host.workers.browser.started
    assert result.outputs == named_reports(result.question, "md")


class FetchThenHang(OfflinePolicy):
    """Reads its pages as usual, then starts a download that never finishes."""

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        if not any(m.get("role") == "tool" for m in messages):
            return await super().__call__(messages, tools, tool_choice, **kwargs)
        call = ToolUseBlock(
            type="tool_use",
            id="hang-1",
            name="http_download",
            input={
                "url": "http://127.0.0.1:9/never.pdf",
                "save_path": "/workspace/downloads/n.pdf",
            },
        )
        return ChatResponse(content=[call])


async def _never_finish(**kwargs):
    await asyncio.Event().wait()  # never set: only the stage timeout ends this call


class FirstBrowserHangs(Host):
    """The first browser task reads pages and then hangs in a download."""

    hung = False

    async def make_worker(self, spec):  # type: ignore[no-untyped-def]
        agent, guard, extra = await super().make_worker(spec)
        if spec.name == "browser" and not self.hung:
            self.hung = True
            agent.model = FetchThenHang(spec)
            agent.toolkit.tools["http_download"].original_func = _never_finish
        return agent, guard, extra


def test_a_timed_out_task_keeps_the_pages_it_stored(tmp_path):
    host, result, _ = run_demo(
        tmp_path, formats=("md",), stage_timeouts={"browser": 6.0}, host_cls=FirstBrowserHangs
    )
    browser = [d for d in result.delegations if d.subagent == "browser"]
    [hung] = [d for d in browser if d.status == "timed out"]  # only the first one hangs
    stored = [r for r in hung.records if r.name == "viewer_fetch" and not r.failed]
    pages = {p for r in stored for p in r.metadata["paths"]}
    evidence = {e for r in stored for e in r.metadata["evidence_ids"]}
    assert pages and evidence
    kept = f"timed out after 6 s; {len(pages)} page{'s' if len(pages) > 1 else ''}"
    assert hung.error.startswith(kept) and hung.error.endswith("stored before that were kept")
    # the pages and evidence are in the run and were scored like a finished task's
    assert pages <= set(host.state.research.sources)
    assert evidence <= {item.id for item in host.ledger.items()}
    # the interrupted download is a failed call everywhere calls are counted
    download = [r for r in hung.records if r.name == "http_download"]
    assert [r.status for r in download] == ["interrupted"]
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    line = next(d for d in run["delegations"] if d["id"] == hung.id)
    assert line["status"] == "timed out" and line["failed_calls"] >= 1
    calls = [c for c in run["tool_calls"] if c["tool"] == "http_download"]
    assert any(c["status"] == "interrupted" and not c["ok"] for c in calls)
    # the hub and the transcript get the timeout, never the framework's interruption text
    seen = host.state.host_agent.seen
    outcome = next(m for m in seen if m.metadata.get("delegation", {}).get("id") == hung.id)
    assert outcome.get_text_content().startswith(f"[browser] {kept}")
    transcript = result.run.real_path("/internal/transcript.jsonl").read_text()
    assert "interrupted me" not in transcript
    assert not any("interrupted me" in (m.get_text_content() or "") for m in seen)
    assert result.outputs == named_reports(result.question, "md")


def report(result, fmt: str = "md") -> Path:
    """Where the run wrote its report in ``fmt`` (named after the question)."""
    return written_report(result.run.path, result.outputs, fmt)


@dataclass(frozen=True)
class Sheet:
    """What the report of one language shows of the canal-sections workbook: the sheet in
    its language, and never the other language's sheet, in the appendix of data from the
    sources (the part it was found for, on building, asks for no lengths), its chart
    titled by what it shows."""

    lang: str
    heading: str  # the part the table was found for
    chart: str  # the chart's title, with its unit
    caption: str
    other_caption: str  # the other language's sheet, which this report must not show
    header: list[str]
    total: list[str]  # the SUM row, its formulas computed
    sections: list[str]  # the chart's categories
    caption_line: str  # the Markdown caption line, ``{}`` for the caption and its number
    quote: str  # the source entry: the table described (never quoted) by rows and columns
    note: str  # how the sheet's caveat row under the SUM row begins


SHEETS = {
    "en": Sheet(
        lang="en",
        heading="How was China's Beijing-Hangzhou Grand Canal built?",
        chart="Length of each section, low and high (km)",
        caption="canal-sections.xlsx, sheet Sections",
        other_caption="canal-sections.xlsx, sheet 各段",
        # the sheet's notes column is left out: whole, the table would take the length the
        # brief asks for from the answers (its rows are kept whole)
        header=["Section", "Chinese name", "From", "To", "Low (km)", "High (km)"],
        total=["Sum of the rows above", "合计", "", "", "1,752", "1,958"],
        sections=[
            "Tonghui River", "North Canal", "South Canal", "Shandong (Lu) Canal",
            "Middle (Zhong) Canal", "Li Canal (Huaiyang)", "Jiangnan Canal",
        ],
        caption_line=r"Table: {}\.\[(\d+)\]",
        quote=r"\*Table of 8 rows with the columns Section, .*, and a note under it\* "
        r"\(Sheet Sections\)",
        note="The section ranges do not add up exactly",
    ),
    "zh": Sheet(
        lang="zh",
        heading="京杭大运河是如何修建的？",
        chart="各河段长度的下限和上限（公里）",
        caption="canal-sections.xlsx，工作表 各段",
        other_caption="canal-sections.xlsx，工作表 Sections",
        header=["河段", "起点", "终点", "长度下限（公里）", "长度上限（公里）"],
        total=["合计", "", "", "1,752", "1,958"],
        sections=["通惠河", "北运河", "南运河", "鲁运河", "中运河", "里运河", "江南运河"],
        caption_line=r"表：{}。\[(\d+)\]",
        quote=r"\*表格（8 行），列为河段、起点、.*，表下附注一条\*（工作表 各段）",
        note="表中各段长度为常见参考资料给出的区间",
    ),
}  # fmt: skip


def assert_sheet_in_every_format(result, sheet: Sheet) -> None:
    """The workbook's sheet in the report's language is shown in the appendix, as a table
    with its chart and the caveat row under it, cited by file and sheet, in all four
    formats."""
    markdown = report(result).read_text(encoding="utf-8")
    sections = markdown.split("\n## ")
    built = next(s for s in sections if s.startswith(sheet.heading))
    assert "| " not in built  # the part on building asks for no lengths
    (data,) = [s for s in sections if s.startswith(label(sheet.lang, "appendix") + "\n")]
    assert "| " + " | ".join(sheet.header) + " |" in data
    assert "| " + " | ".join(sheet.total) + " |" in data.splitlines()
    # the caveat row under the SUM row stays with the table, before its caption
    (note,) = [ln for ln in data.splitlines() if ln.startswith(sheet.note)]
    assert data.index("| " + " | ".join(sheet.total)) < data.index(note)
    assert sheet.other_caption not in markdown
    caption = sheet.caption_line.format(re.escape(sheet.caption))
    (number,) = re.findall(rf"^{caption}$", data, re.M)
    stem = re.escape(report(result).stem)
    (image,) = re.findall(rf"^!\[[^\n]*\]\(({stem}-chart-\d+\.png)\)$", data, re.M)
    assert (report(result).parent / image).read_bytes().startswith(b"\x89PNG")
    assert re.search(rf"^  - \[{number}\] {sheet.quote}", markdown, re.M)  # with its sheet

    doc = lxml_html.fromstring(report(result, "html").read_bytes())
    assert doc.get("lang") == sheet.lang
    tables = doc.xpath("//figure[@class='table'][contains(figcaption, $c)]", c=sheet.caption)
    assert len(tables) == 1
    assert [th.text_content() for th in tables[0].xpath(".//thead//th")] == sheet.header
    assert tables[0].xpath("./p[@class='table-note']")[0].text_content() == note
    charts = doc.xpath("//section[@class='appendix']//figure[@class='chart']/*[local-name()='svg']")
    assert any(svg.get("aria-label", "").endswith(sheet.chart) for svg in charts)

    reader = PdfReader(report(result, "pdf"))
    flat = re.sub(r"\s+", "", "".join(p.extract_text() for p in reader.pages))
    for words in [sheet.caption, *sheet.header[-2:], sheet.sections[0], "1,958", sheet.chart]:
        assert re.sub(r"\s+", "", words) in flat, words

    deck = Presentation(report(result, "pptx"))
    headers, charted = [], []
    for slide in deck.slides:
        for shape in slide.shapes:
            if shape.has_table:
                headers.append([c.text for c in shape.table.rows[0].cells])
            if shape.has_chart:
                plot = shape.chart.plots[0]
                charted.append(([s.name for s in plot.series], list(plot.categories)))
    assert sheet.header in headers
    assert (sheet.header[-2:], sheet.sections) in charted


def test_the_spreadsheet_table_and_its_chart_are_in_every_format(demo):
    """The English report shows the workbook's English sheet (not its Chinese one) in its
    appendix, with its chart, in all four formats."""
    _, result, _ = demo
    assert_sheet_in_every_format(result, SHEETS["en"])


@pytest.fixture(scope="module")
def demo_zh(demo_zh_run):
    """The demo run on its Chinese question in every format (shared likewise)."""
    return demo_zh_run


def test_the_chinese_report_shows_the_chinese_sheet_and_its_chart_in_every_format(demo_zh):
    """The Chinese report (``lang="zh"``) shows the workbook's Chinese sheet, captioned in
    Chinese, in its appendix, with its chart, in all four formats."""
    _, result, _ = demo_zh
    assert [Path(p).suffix for p in result.outputs] == [".md", ".html", ".pdf", ".pptx"]
    assert_sheet_in_every_format(result, SHEETS["zh"])


def test_each_summary_line_stands_alone_and_answers_its_part(demo):
    """One summary line per part, none leaning on a sentence the reader has not seen, and
    the decline's line says what caused it."""
    _, result, _ = demo
    markdown = report(result).read_text(encoding="utf-8")
    head = markdown.split("\n## ", 1)[0]
    lines = [re.sub(r"\[\d+\]", "", ln[2:]) for ln in head.splitlines() if ln.startswith("- ")]
    assert len(lines) == len(result.plan.subquestions)
    assert not [ln for ln in lines if leans_on_context(ln)]
    decline = lines[[s.text for s in result.plan.subquestions].index(
        "Why did China's Beijing-Hangzhou Grand Canal decline?"
    )]  # fmt: skip
    assert "1855" in decline and "Yellow River" in decline, decline


def test_the_chinese_pdf_keeps_to_the_briefs_length(demo_zh):
    _, result, _ = demo_zh
    assert 2 <= len(PdfReader(report(result, "pdf")).pages) <= 3


class LoopingReader(OfflinePolicy):
    """Asks for the same ten pages every turn, never giving its outcome."""

    turns = 0

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        urls = find_context(messages).get("urls") or []
        if not urls:  # nothing left to read: as the offline brain would
            return await super().__call__(messages, tools, tool_choice, **kwargs)
        LoopingReader.turns += 1
        url = urls[0]
        calls = [
            ToolUseBlock(type="tool_use", id=f"loop-{LoopingReader.turns}-{i}", name="viewer_fetch",
                         input={"url": url})
            for i in range(10)
        ]  # fmt: skip
        return ChatResponse(content=calls)


def test_a_subagent_at_its_call_cap_ends_its_task_at_once(tmp_path):
    LoopingReader.turns = 0
    _, result, _ = run_demo(
        tmp_path, formats=("md",), host_cls=host_with(LoopingReader), tool_call_cap=15
    )
    browser = [d for d in result.delegations if d.subagent == "browser" and d.context.get("urls")]
    assert browser and all(d.status == "capped" for d in browser), [
        (d.status, d.error) for d in browser if d.status != "capped"
    ]
    assert all("15-call cap" in (d.error or "") for d in browser)
    # each task asked the model twice (10 calls, then 10 more of which 5 were refused)
    # and never again: no request resends the growing history after the cap
    assert LoopingReader.turns == 2 * len(browser)
    assert all(len(d.records) == 20 for d in browser)
    assert result.outputs == named_reports(result.question, "md")


def test_a_topic_the_brief_asks_for_beside_the_parts_is_quoted_from_a_page_read(demo):
    """The demo's brief asks how the locks worked, which no part of the question asks:
    the report gives it a section quoting the page on locks that was read for another
    part, and its list of the brief's requirements counts the requirement covered."""
    _, result, _ = demo
    markdown = report(result).read_text(encoding="utf-8")
    sections = dict([*chunk.split("\n", 1), ""][:2] for chunk in markdown.split("\n## ")[1:])
    locks = next(text for heading, text in sections.items() if "locks worked" in heading)
    cited = re.findall(r"\[(\d+)\]", locks)
    assert cited
    sources = sections["Sources"]
    for n in cited:
        entry = next(line for line in sources.splitlines() if f"[{n}]" in line)
        assert "locks-and-gates" in entry
    asked = next(line for line in sections["What the brief asked"].splitlines() if "locks" in line)
    assert asked.endswith("— covered.")
