"""What a person sees while a run works: one live row per part on a terminal, one event a
line (never wrapped) when piped, the tool calls only with ``--verbose``, and counts that
match the statuses shown, in the run's summary, ``quartet show`` and the batch."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from rich.console import Console
from runs_support import make_run, plan_of

from host.core.records import ToolCallRecord
from host.display.progress import Progress, summary_table
from host.durability.runs import read_run
from host.printable import printable
from quartet.batch.progress import BatchProgress
from quartet.batch.state import BatchState, Job
from quartet.batch.summary import write_summaries
from quartet.batch.worker import Stage
from quartet.cli import main
from research.plan import Plan, SubQuestion
from subagents.evidence import PageRegistry

LONG_PART = (
    "How was China's Beijing-Hangzhou Grand Canal built, by whom, and when was its first "
    "section dug under the Sui dynasty?"
)
PAGE = "https://en.wikipedia.org/wiki/Grand_Canal_(China)"
BUDGET_TEXT = (
    "Error: the run's page budget (24 pages) is spent; https://x.example/a was not fetched. "
    "Work with the pages already read."
)
RED = "\x1b[31m"


def _console(terminal: bool, width: int = 80) -> Console:
    return Console(
        file=io.StringIO(),
        force_terminal=terminal,
        color_system="standard" if terminal else None,
        width=width,
        highlight=False,
        record=True,
    )


def _plan() -> Plan:
    return Plan(
        question="How was the canal built and why did it decline?",
        language="en",
        subquestions=[
            SubQuestion("q1", LONG_PART, ["canal built"]),
            SubQuestion("q2", "Why did the Grand Canal decline?", ["canal decline"]),
        ],
        planner="offline",
    )


def _events(plan: Plan) -> Iterator[tuple[str, dict[str, Any]]]:
    """A short run: its files read, a page read for q1, the page budget reached, a report
    task that times out; q1 ends partly answered with 3 evidence kept."""
    registry = PageRegistry(budget=24)
    files = NS(id="d1", subagent="file", subquestion=None, status="ok", error=None,
               records=[], seconds=0.2)  # fmt: skip
    pages = NS(id="d2", subagent="browser", subquestion="q1", status="ok", error=None,
               records=[], seconds=9.0)  # fmt: skip
    report = NS(id="d3", subagent="generate", subquestion=None, status="timed out",
                error="timed out after 120 s; 2 calls kept", records=[], seconds=120.0)  # fmt: skip
    yield "run_start", {"run": NS(id="20261126-101010-abcdef", path="/runs/20261126-101010-abcdef"),
                        "pages": registry}  # fmt: skip
    yield "plan", {"plan": plan}
    yield "delegation_start", {"delegation": files, "title": "Reading files"}
    finish = ToolCallRecord("file", "generate_response", {}, "", seconds=0.0)
    yield "tool", {"record": finish, "task": "d1"}
    yield "delegation_end", {"delegation": files}
    yield "delegation_start", {"delegation": pages, "title": "Reading pages"}
    yield "tool_start", {"stage": "browser", "name": "viewer_fetch", "input": {"url": PAGE},
                         "task": "d2"}  # fmt: skip
    registry.take_page(PAGE)
    read = ToolCallRecord("browser", "viewer_fetch", {"url": PAGE}, "text", seconds=8.4)
    yield "tool", {"record": read, "task": "d2"}
    refused = ToolCallRecord(
        "browser", "viewer_fetch", {"url": "https://x.example/a"}, BUDGET_TEXT, status="error"
    )
    yield "tool", {"record": refused, "task": "d2"}
    yield "tool", {"record": ToolCallRecord("browser", "generate_response", {}, ""),
                   "task": "d2"}  # fmt: skip
    yield "delegation_end", {"delegation": pages}
    plan.subquestions[0].status = "partly answered"
    plan.subquestions[0].evidence_ids = ["e1", "e2", "e3"]
    yield "coverage", {"plan": plan, "research": NS()}
    yield "delegation_start", {"delegation": report, "title": "Writing the report"}
    yield "delegation_end", {"delegation": report}
    plan.subquestions[1].status = "not found"
    yield "run_end", {"result": NS(plan=plan, pages_read=5)}


def _lines(con: Console) -> list[str]:
    return printable(con.file.getvalue(), keep_lines=True).splitlines()  # type: ignore[attr-defined]


def test_piped_progress_is_one_event_a_line_without_ids_or_internal_steps():
    con = _console(terminal=False, width=80)
    progress = Progress(console=con)
    assert not progress.live  # a pipe is not a terminal
    for kind, data in _events(_plan()):
        progress(kind, data)
    lines = _lines(con)
    # never wrapped at 80 columns: the long part and the page address stay on their line
    assert f"  ○ q1 {LONG_PART}" in lines
    assert any(ln.startswith("▶ Reading pages for q1: How was China's") for ln in lines)
    assert "  reading en.wikipedia.org/wiki/Grand_Canal_(China) for q1" in lines
    assert any(
        ln.startswith("  ✓ page read: en.wikipedia.org/wiki/Grand_Canal_(China)") for ln in lines
    )
    assert "  ◑ q1 partly answered (3 evidence kept, 1 page read)" in lines
    assert "Writing the report timed out: timed out after 120 s; 2 calls kept" in lines
    assert lines[-1] == "Parts: 1 partly answered, 1 not found (2 parts)"
    text = "\n".join(lines)
    assert "generate_response" not in text and not re.search(r"\bd\d+\b", text)
    # spending the page budget is normal: said once, whole, and not as a failed call
    (budget,) = [ln for ln in lines if "page budget" in ln]
    assert budget.endswith("the report is written from the pages read.")
    assert "✗" not in text


def test_verbose_adds_each_task_and_tool_call_but_not_the_internal_finish():
    con = _console(terminal=False, width=80)
    progress = Progress(console=con, verbose=True, live=False)
    for kind, data in _events(_plan()):
        progress(kind, data)
    text = "\n".join(_lines(con))
    assert f"✓ browser: viewer_fetch {PAGE} 8.40s" in text
    assert "▶ Reading pages for q1" in text and " d2" in text
    assert "generate_response" not in text
    budget = next(ln for ln in _lines(con) if "browser: viewer_fetch https://x.example/a" in ln)
    assert budget.endswith("Work with the pages already read.")  # whole, not cut mid-word


def test_the_page_budget_is_not_shown_in_red_on_a_terminal():
    con = _console(terminal=True)
    progress = Progress(console=con, verbose=True, live=False)
    for kind, data in _events(_plan()):
        progress(kind, data)
    raw = con.file.getvalue()  # type: ignore[attr-defined]
    budget_lines = [ln for ln in raw.splitlines() if "page budget" in ln]
    assert budget_lines and not any(RED in ln for ln in budget_lines)


def test_the_live_view_shows_a_row_per_part_with_what_it_does_and_its_pages():
    con = _console(terminal=True, width=140)
    progress = Progress(console=con)
    assert progress.live
    events = _events(_plan())
    for kind, data in islice(events, 7):  # up to the page read under way
        progress(kind, data)
    assert progress._view is not None  # the live view runs
    progress.steps["d2"].since -= 9  # the page has been read for 9 s
    view = _console(terminal=False, width=140)
    view.print(progress.render())
    rows = _lines(view)
    q1 = next(r for r in rows if r.startswith("q1 "))
    assert "○ pending" in q1 and "reading en.wikipedia.org/wiki/Grand_Canal_(China) (9 s)" in q1
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] reading", q1)  # a spinner: the read is alive
    assert any(r.startswith("q2 decline ") for r in rows)  # labelled by its own word
    assert "d2" not in "\n".join(rows)
    for kind, data in events:
        progress(kind, data)
    assert progress._view is None  # stopped at the end, its last state left on screen
    view = _console(terminal=False, width=140)
    view.print(progress.render())
    rows = _lines(view)
    q1 = next(r for r in rows if r.startswith("q1 "))
    assert re.search(r"◑ partly answered\s+1\s+3$", q1.rstrip())  # 1 page, 3 evidence kept
    other = next(r for r in rows if r.startswith("other work"))
    assert other.rstrip().endswith(" 4")  # the rows add up to the total
    assert rows[-1].strip() == "5 of 24 pages read"
    # above the view, only what a reader needs: no tool call
    printed = "\n".join(_lines(con))
    assert "viewer_fetch" not in printed and "generate_response" not in printed


def test_the_live_view_leaves_the_terminal_while_a_question_is_asked():
    con = _console(terminal=True)
    asking = [False]
    progress = Progress(console=con, hold=lambda: asking[0])
    events = _events(_plan())
    for kind, data in [next(events), next(events)]:
        progress(kind, data)
    assert progress._view is not None
    answers = progress.quietly(lambda prompt: "a")
    assert answers("approve? ") == "a" and progress._view is None
    asking[0] = True
    progress(*next(events))  # held back while the question is open
    assert progress._held and progress._view is None
    asking[0] = False
    progress.flush()
    assert not progress._held and progress._view is not None
    progress.close()
    assert progress._view is None


def _result(statuses: list[str]) -> NS:
    subs = [SubQuestion(f"q{i + 1}", f"Part {i + 1}", ["q"], status=s) for i, s in
            enumerate(statuses)]  # fmt: skip
    plan = Plan(question="Q?", language="en", subquestions=subs, planner="offline")
    return NS(
        question="Q?", status="finished", budget_stop=None, plan=plan, answered=len(subs),
        pages_read=3, evidence=9, citations=4, delegations=[], seconds=1.0, tokens={},
        model_calls={}, failed_stages=[], failed_sources=[], errors=[],
        run=NS(path=Path("/runs/x")),
    )  # fmt: skip


def test_the_summary_counts_the_parts_by_the_statuses_it_shows():
    con = _console(terminal=False, width=120)
    con.print(summary_table(_result(["answered", "partly answered", "answered", "answered"])))
    text = "\n".join(_lines(con))
    assert "3 answered, 1 partly answered (4 parts)" in text
    assert "4 of 4" not in text


def test_the_run_folder_is_printed_whole_at_80_columns():
    """A long run folder is not cut inside the closing table's cell: it follows the table
    on a line of its own, whole, to be copied as it is."""
    from host.display.progress import folder_line

    result = _result(["answered"])
    deep = "/home/someone/research/projects/grand-canal/runs/20261203-042316-dd1326"
    result.run = NS(path=Path(deep))
    con = _console(terminal=False, width=80)
    con.print(summary_table(result))
    con.print(folder_line(result), highlight=False, soft_wrap=True, markup=False)
    text = con.export_text()
    assert f"Run folder: {deep}" in text.splitlines()
    assert text.count("dd1326") == 1


def test_the_summary_shows_tokens_only_when_a_model_used_some():
    offline = _result(["answered"])
    offline.tokens = {"input": 0, "output": 0, "by_stage": {}}
    used = _result(["answered"])
    used.tokens = {"input": 1200, "output": 80, "by_stage": {}}
    for result, shown_ in ((offline, False), (used, True)):
        con = _console(terminal=False, width=120)
        con.print(summary_table(result))
        text = "\n".join(_lines(con))
        assert ("tokens" in text) is shown_ and ("1200 in / 80 out" in text) is shown_


def test_show_and_runs_count_what_the_plan_says(tmp_path, capsys):
    runs = tmp_path / "runs"
    plan = plan_of("Why?", [3, 1, 0])
    plan["subquestions"][1]["status"] = "partly answered"
    record = {"question": "Why?", "plan": plan, "answered": 2, "exit_code": 0}
    folder = make_run(runs, "20260301-090000-aaaaaa", record)
    summary = read_run(folder).summary
    assert summary.answered == 1  # not the 2 parts with evidence run.json counted
    assert summary.counts == {"answered": 1, "partly answered": 1, "not found": 1}
    assert main(["show", "20260301", "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "Plan:      1 answered, 1 partly answered, 1 not found (3 parts)" in out
    assert main(["runs", "--runs-dir", str(runs)]) == 0
    assert " 1/3 " in capsys.readouterr().out


def test_a_batch_question_shows_its_stage_not_0_of_unknown(tmp_path):
    job = Job(index=1, question="How was the canal built?", input_dir=None, formats=["md"])
    state = BatchState("b", tmp_path, "q.txt", "offline", str(tmp_path), False, [job])
    stage = Stage()
    plan = _plan()
    assert stage.follow("plan", {"plan": plan}) and stage.text == "researching 2 parts"
    for d in (NS(id="d1", subagent="search", subquestion="q1"),
              NS(id="d2", subagent="search", subquestion="q2"),
              NS(id="d3", subagent="browser", subquestion="q1")):  # fmt: skip
        stage.follow("delegation_start", {"delegation": d})
    assert stage.text == "searching q1, q2; reading pages q1"
    marker = state.marker(job)
    marker.parent.mkdir(parents=True)
    marker.write_text('{"run": "r", "stage": "reading pages q1"}', encoding="utf-8")
    progress = BatchProgress(state, console=_console(terminal=False, width=120))
    with progress:
        progress("start", {"job": job, "try": 1, "tries": 3})
        progress.console.print(progress.bar.get_renderable())
    text = "\n".join(_lines(progress.console))
    row = next(ln for ln in text.splitlines() if "#1 How was the canal built?" in ln)
    assert "reading pages q1" in row and "?" not in row.replace("built?", "")
    assert "0/1" in text  # the batch's own row keeps its count


def _summary_page(tmp_path: Path, tokens: int) -> str:
    job = Job(index=1, question="How was the Grand Canal built and kept supplied with water?",
              input_dir=None, formats=["md"])  # fmt: skip
    job.status, job.run_id, job.seconds = "done", "20260101-000000-000001", 3.0
    job.result = {"status": "finished", "exit_code": 0, "answered": 3, "partly": 1,
                  "parts": 4, "citations": 9, "tokens_in": tokens, "tokens_out": tokens,
                  "report": str(tmp_path / "r" / "report.html")}  # fmt: skip
    state = BatchState("b1", tmp_path / "batch", "q.txt", "offline", str(tmp_path), False,
                       [job])  # fmt: skip
    write_summaries(state)
    return (tmp_path / "batch" / "summary.html").read_text(encoding="utf-8")


def test_the_batch_summary_page_reads_on_a_phone_and_hides_unused_token_columns(tmp_path):
    page = _summary_page(tmp_path / "offline", tokens=0)
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert '<div class="rows">' in page and "@media (max-width:700px)" in page
    assert 'data-label="question"' in page and 'data-label="partly answered">1<' in page
    assert "tokens in" not in page and "tokens out" not in page
    page = _summary_page(tmp_path / "model", tokens=1200)
    assert "<th>tokens in</th>" in page and 'data-label="tokens out">1200<' in page


def test_slow_steps_show_their_seconds():
    progress = Progress(console=_console(terminal=True), live=False)
    for kind, data in islice(_events(_plan()), 7):
        progress(kind, data)
    step = progress.steps["d2"]
    assert step.told(time.monotonic()) == "reading en.wikipedia.org/wiki/Grand_Canal_(China)"
    assert (
        step.told(step.since + 12.4) == "reading en.wikipedia.org/wiki/Grand_Canal_(China) (12 s)"
    )


async def test_the_host_says_which_task_a_tool_call_starts_in(tmp_path):
    from host.brains import make_brain
    from host.brains.tape import stream_scope
    from host.config import load_settings
    from host.orchestration.hub import Host

    events: list[tuple[str, dict[str, Any]]] = []
    settings = load_settings({"runs_dir": str(tmp_path)})
    host = Host(settings, make_brain("offline"), on_event=lambda k, d: events.append((k, d)))
    announce = host.workers.announcer("browser")

    async def handler(**kwargs: Any) -> Any:
        async def chunks() -> Any:
            assert events, "announced before the call runs"
            yield "done"

        return chunks()

    call = {"tool_call": {"name": "viewer_fetch", "input": {"url": PAGE}}}
    with stream_scope("d7"):
        got = [chunk async for chunk in announce(call, handler)]
    assert got == ["done"]
    assert events == [
        ("tool_start", {"stage": "browser", "name": "viewer_fetch", "input": {"url": PAGE},
                        "task": "d7"}),
    ]  # fmt: skip
