"""What the live displays show of text they do not control: a question, a plan file, a
page. Rich markup in it is text, never a tag (``[/b]`` once ended a run with a
MarkupError), and its terminal controls are not passed to the terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from host.display.progress import Progress, folder_line, summary_table
from host.printable import printable, printable_json, shown
from quartet.batch.progress import BatchProgress
from quartet.batch.state import BatchState, Job
from research.plan import Plan, SubQuestion

MARKUP = "How was it built [/b]? [bold red]loud[/] [link=https://evil.example]x[/link] \\"
CONTROLS = "a \x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\ \x1b[2J\x1b[Hb\x9b2J\rc\u202ed"


def console() -> Console:
    """A console as on a colour terminal, writing to a string."""
    return Console(file=io.StringIO(), force_terminal=True, width=200, highlight=False)


def plain(con: Console) -> str:
    """What ``con`` printed, without its styling (escape sequences)."""
    return printable(con.file.getvalue(), keep_lines=True)  # type: ignore[attr-defined]


def test_printable_drops_escape_sequences_and_controls_but_keeps_the_words():
    assert printable(CONTROLS) == "a link b cd"
    assert printable("line one\nline\ttwo\r\n", keep_lines=True) == "line one\nline\ttwo\n"
    assert printable("中文 naïve — ok") == "中文 naïve — ok"
    data = {"q": CONTROLS}
    text = printable_json(data)
    assert json.loads(text) == data and not any(c in text for c in "\x1b\x9b\r\u202e")
    con = console()
    con.print(shown(MARKUP + CONTROLS))
    assert plain(con) == MARKUP + "a link b cd\n"


def test_markup_in_the_question_and_the_plan_is_shown_as_text():
    plan = Plan(
        question=MARKUP,
        language="en",
        subquestions=[SubQuestion("q1", MARKUP, [MARKUP, CONTROLS], status="answered")],
        planner="file [/i]",
    )
    con = console()
    progress = Progress(console=con, live=False)
    progress("plan", {"plan": plan})
    delegation = SimpleNamespace(
        id="d1", subagent="browser", subquestion="q1", status="failed",
        error=f"page said {MARKUP}", records=[], seconds=1.0,
    )  # fmt: skip
    progress("delegation_start", {"delegation": delegation, "title": f"Reading {MARKUP}"})
    progress("delegation_end", {"delegation": delegation})
    result = SimpleNamespace(
        question=MARKUP + CONTROLS, status="finished", budget_stop=None, plan=plan,
        answered=1, pages_read=0, evidence=0, citations=0, delegations=[], seconds=1.0,
        tokens={}, model_calls={}, failed_stages=[MARKUP], failed_sources=[MARKUP],
        errors=[CONTROLS], run=SimpleNamespace(path=Path("/runs/[/b]")),
    )  # fmt: skip
    con.print(summary_table(result))
    con.print(folder_line(result), highlight=False, soft_wrap=True, markup=False)
    out = con.file.getvalue()  # type: ignore[attr-defined]
    assert "How was it built [/b]? [bold red]loud[/]" in out
    assert "file [/i]" in out and "/runs/[/b]" in out
    assert "\x1b]" not in out and "\x1b[2J" not in out and "\x9b" not in out


def test_the_batch_progress_shows_questions_without_controls_or_markup(tmp_path):
    job = Job(index=1, question=MARKUP + " " + CONTROLS, input_dir=None, formats=["md"])
    state = BatchState("b", tmp_path, "q.txt", "offline", str(tmp_path), False, [job])
    progress = BatchProgress(state)
    progress.console = console()
    progress("retry", {"job": job, "error": f"a page said {CONTROLS}"})
    job.attempts = 1
    progress("failed", {"job": job, "error": MARKUP})
    out = progress.console.file.getvalue()  # type: ignore[attr-defined]
    assert "How was it built [/b]?" in out and "a link b cd" in out
    assert "\x1b]" not in out and "\x1b[2J" not in out and "\x9b" not in out and "\r" not in out
