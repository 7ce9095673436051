"""The command line's words at 80 columns: paths printed whole on their own lines, counts
worded for one as for many, ``--approve``'s help saying what the command does, and no
token figures for a run that spent none. Each test reads what the CLI prints: its main,
its closing summary or its progress, on a console 80 columns wide."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest
from rich.console import Console
from runs_support import make_run, plan_of

from host.display.progress import Progress
from host.durability import replay
from quartet.cli import main
from quartet.cli.running import report
from research.plan import Plan, SubQuestion
from subagents.net.pagecache import CacheStats

RUN_ID = "20261203-042316-dd1326"
#: a runs folder deep enough that its paths are longer than 80 columns
DEEP = Path("/home/someone/research/projects/grand-canal-and-its-water-supply/runs")
QUIET = NS(json_output=False, quiet=False)


def _console() -> Console:
    """A console as the CLI's, 80 columns wide, that keeps what is printed."""
    return Console(file=io.StringIO(), width=80, color_system=None, highlight=False)


def _printed(console: Console) -> list[str]:
    return console.file.getvalue().splitlines()  # type: ignore[attr-defined]


def _plan(parts: int) -> Plan:
    """A plan of ``parts`` parts, none of them answered."""
    subs = [
        SubQuestion(f"q{n + 1}", f"How do heat pumps work, part {n + 1}?", ["heat pumps"])
        for n in range(parts)
    ]
    for sub in subs:
        sub.status = "not found"
    return Plan("How do heat pumps work?", "en", subs, planner="offline")


def _result(folder: Path, **given: Any) -> NS:
    """A finished run's result as :func:`report` reads it: its run folder ``folder``, one
    Markdown report, no citation (exit 3) unless ``given`` says otherwise."""
    outputs = ["/workspace/reports/heat-pumps-and-how-they-move-heat-from-outside.md"]
    fields: dict[str, Any] = {
        "question": "How do heat pumps work?",
        "status": "finished",
        "budget_stop": None,
        "plan": _plan(1),
        "pages_read": 0,
        "files": [],
        "evidence": 0,
        "citations": 0,
        "delegations": [],
        "seconds": 1.5,
        "tokens": {},
        "model_calls": {},
        "failed_stages": [],
        "failed_sources": [],
        "errors": [],
        "no_web": None,
        "outputs": outputs,
        "exit_code": 3,
        "run": NS(id=RUN_ID, path=folder, real_path=lambda p: folder / p.lstrip("/")),
    }
    return NS(**{**fields, **given})


def _report(capsys: pytest.CaptureFixture[str], result: NS) -> tuple[list[str], str]:
    """What the end of a run prints: standard output's lines and standard error."""
    report(result, QUIET)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return out.splitlines(), err


@pytest.fixture
def columns_80(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's consoles are 80 columns wide, as in a terminal of that width."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


# -- paths -------------------------------------------------------------------------------


def test_the_run_folder_and_report_paths_are_printed_whole_on_their_own_lines(capsys, columns_80):
    folder = DEEP / RUN_ID
    result = _result(folder, citations=3, exit_code=0)
    lines, _ = _report(capsys, result)
    report_path = folder / result.outputs[0].lstrip("/")
    assert len(str(report_path)) > 80
    assert f"Run folder: {folder}" in lines
    assert f"  md  {report_path}" in lines
    assert sum(RUN_ID in line for line in lines) == 2  # neither is cut and continued


# -- counts --------------------------------------------------------------------------------


def test_a_report_that_answers_nothing_says_so_for_one_part_many_or_none(capsys, columns_80):
    told = {}
    for parts in (1, 3, 0):
        plan = _plan(parts) if parts else None
        _, told[parts] = _report(capsys, _result(Path("/runs") / RUN_ID, plan=plan))
    assert "the report does not answer its one part: no relevant" in told[1]
    assert "the report answers none of the question's 3 parts: no relevant" in told[3]
    assert "the report answers nothing: no relevant evidence was found" in told[0]
    assert not any(re.search(r"\b[01] parts\b", err) for err in told.values())


def test_a_budget_of_one_token_is_one_token(capsys, columns_80):
    stop = {"budget": "tokens", "limit": 1, "used": 1}
    result = _result(Path("/runs") / RUN_ID, budget_stop=stop, citations=1, exit_code=0)
    lines, err = _report(capsys, result)
    assert "the run's token budget (1 token) was spent (1 token used)" in err
    assert "1 tokens" not in err and "1 tokens" not in " ".join(lines)


def test_the_model_calls_row_counts_one_call_and_one_retry(capsys, columns_80):
    calls = {"calls": 1, "attempts": 2, "retries": 1, "failed": 0, "faults": {"timeout": 1}}
    lines, _ = _report(capsys, _result(Path("/runs") / RUN_ID, model_calls=calls))
    row = next(line for line in lines if "model calls" in line)
    assert "1 call, 2 attempts, 1 retry (timeout ×1)" in row


def test_the_resume_line_counts_one_task_and_one_tool_call():
    console = _console()
    progress = Progress(console=console, live=False)
    progress("run_start", {"run": NS(id=RUN_ID, path=f"/runs/{RUN_ID}"), "pages": None})
    progress("resume", {"delegations": 1, "calls": 1})
    assert (
        "Resuming from the last checkpoint: 1 task and 1 tool call were done before the stop."
        in _printed(console)
    )


def test_a_verbose_task_end_counts_one_tool_call():
    console = _console()
    progress = Progress(console=console, live=False, verbose=True)
    task = NS(id="d1", subagent="search", subquestion=None, status="ok", error=None,
              records=[NS(failed=False)], seconds=0.4)  # fmt: skip
    progress("delegation_start", {"delegation": task, "title": "Searching"})
    progress("delegation_end", {"delegation": task})
    assert any(line.endswith("d1 ok in 0.4s, 1 tool call (0 failed)") for line in _printed(console))


def test_one_page_read_without_a_page_budget_is_one_page():
    console = _console()
    progress = Progress(console=console, live=False)
    pages = NS(pages=1, budget=None, fetched=[])
    progress("run_start", {"run": NS(id=RUN_ID, path=f"/runs/{RUN_ID}"), "pages": pages})
    progress("plan", {"plan": _plan(1)})
    console.print(progress.render())
    assert _printed(console)[-1].strip() == "1 page read"


@contextmanager
def _cache_of(stats: CacheStats) -> Iterator[NS]:
    """A page cache as ``quartet cache stats`` opens it, holding what ``stats`` says."""
    yield NS(stats=lambda: stats)


@pytest.mark.parametrize(
    ("rendered", "said"),
    [
        (1, "entries: 3 (1 of them a page as Chromium rendered it)"),
        (2, "entries: 3 (2 of them pages as Chromium rendered them)"),
    ],
)
def test_cache_stats_count_one_rendered_page(rendered, said, tmp_path, monkeypatch, capsys):
    stats = CacheStats(3, rendered, 2048, None, None)
    monkeypatch.setattr("quartet.cli.cache._cache", lambda settings: _cache_of(stats))
    assert main(["cache", "stats", "--runs-dir", str(tmp_path / "runs")]) == 0
    assert said in capsys.readouterr().out.splitlines()


def test_cache_stats_count_search_lists_and_what_was_computed(tmp_path, monkeypatch, capsys):
    stats = CacheStats(9, 2, 2048, None, None, searches=1, derived=4)
    monkeypatch.setattr("quartet.cli.cache._cache", lambda settings: _cache_of(stats))
    assert main(["cache", "stats", "--runs-dir", str(tmp_path / "runs")]) == 0
    said = (
        "entries: 9 (2 of them pages as Chromium rendered them; 1 of them a search result "
        "list; 4 of them computed from pages, files and reports)"
    )
    assert said in capsys.readouterr().out.splitlines()


def test_a_replay_one_line_short_says_one_item():
    """The divergence ``quartet replay`` prints when the replay has fewer tasks or report
    lines than the recording."""
    told = replay._first_difference(["# Heat pumps", "They move heat."], ["# Heat pumps"])
    assert told == "1 item where the recording has 2"


# -- --approve -----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run", "How do heat pumps work?"], ["demo"]])
def test_approve_does_what_its_help_says_without_a_terminal(
    command, tmp_path, monkeypatch, capsys, columns_80
):
    with pytest.raises(SystemExit):
        main([command[0], "--help"])
    text = " ".join(capsys.readouterr().out.split())
    told = text[text.index("--approve TOOL[,TOOL] ask") :]
    assert "needs a terminal (without one the command stops with exit 2" in told
    assert "set [quartet.approve] tools and default in quartet.toml instead)" in told
    monkeypatch.setattr("host.orchestration.approval.has_terminal", lambda: False)
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as stopped:
        main([*command, "--approve", "http_download", "--runs-dir", str(runs)])
    assert stopped.value.code == 2
    assert "no interactive terminal" in capsys.readouterr().err and not runs.exists()


# -- quartet show ----------------------------------------------------------------------------


def test_show_prints_no_token_figures_for_a_run_that_spent_none(tmp_path, capsys, columns_80):
    runs = tmp_path / "runs"
    record = {
        "id": RUN_ID,
        "question": "How do heat pumps work?",
        "plan": plan_of("How do heat pumps work?", [2]),
        "answered": 1,
        "exit_code": 0,
        "seconds": 3.0,
        "brain": "offline",
        "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0, "by_stage": {}},
        "pages_read": 4,
        "citations": 2,
        "outputs": ["/workspace/reports/heat-pumps.md"],
    }
    make_run(runs, RUN_ID, record)
    assert main(["show", RUN_ID, "--runs-dir", str(runs)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Citations: 2 · pages read: 4" in lines  # the figures' line, with no tokens
    assert not any(re.search(r"\btokens?\b", line) for line in lines if str(runs) not in line)
