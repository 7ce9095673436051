"""The batch summaries hold a question as text, whatever it starts with or contains: never
a live formula, never a character that breaks the workbook (``summary.csv``,
``summary.xlsx``, ``summary.html``)."""

from __future__ import annotations

import csv
import json
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook

from host.config import FORMATS
from quartet.batch.questions import read_questions
from quartet.batch.state import DONE, BatchState
from quartet.batch.summary import write_summaries
from quartet.cli import main

#: Questions a spreadsheet program would run as formulas if stored as they are (OWASP
#: CSV injection), and questions holding control characters openpyxl refuses.
FORMULAS = [
    '=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")',
    "+1+1 is how much?",
    "-2+3 is how much?",
    "@SUM(A1:A2) is what?",
    "=cmd|' /C calc'!A0",
]
CONTROLS = ["What is \x1b[2J\x1b]8;;http://x\x07this?", "Why\x00 and\x08 how\x7f\x9b?"]
QUESTIONS = [*FORMULAS, *CONTROLS]


def _finished(state: BatchState, report: Path) -> None:
    """Every question of ``state`` ended with a report that answers it."""
    for job in state.jobs:
        job.status = DONE
        job.run_id = f"20260101-000000-{job.index:06d}"
        job.result = {
            "status": "finished",
            "exit_code": 0,
            "answered": 1,
            "parts": 1,
            "citations": 2,
            "tokens_in": 0,
            "tokens_out": 0,
            "report": str(report),
        }


def _prepared(tmp_path: Path) -> tuple[Path, Path, BatchState]:
    source = tmp_path / "questions.txt"
    source.write_text("\n".join(QUESTIONS) + "\n", encoding="utf-8")
    runs = tmp_path / "runs"
    state = BatchState.prepare(
        runs,
        source,
        read_questions(source),
        model="offline",
        formats=FORMATS,
        input_dir=None,
        demo=False,
    )
    report = runs / "20260101-000000-000001" / "workspace" / "reports" / "report.html"
    report.parent.mkdir(parents=True)
    report.write_text("<p>report</p>", encoding="utf-8")
    _finished(state, report)
    return source, runs, state


def _check_summaries(folder: Path) -> None:
    with (folder / "summary.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    questions = [r[1] for r in rows[1:]]
    assert questions[: len(FORMULAS)] == ["'" + q for q in FORMULAS]
    for shown in questions[len(FORMULAS) :]:
        assert "\ufffd" in shown and not any(c in shown for c in "\x1b\x00\x07\x08\x7f\x9b")

    book = folder / "summary.xlsx"
    sheet = load_workbook(book).active
    cells = [sheet.cell(row=i + 2, column=2) for i in range(len(QUESTIONS))]
    for cell, question in zip(cells[: len(FORMULAS)], FORMULAS, strict=True):
        assert (cell.value, cell.data_type, cell.quotePrefix) == (question, "s", True)
    assert all("\x1b" not in c.value and "\ufffd" in c.value for c in cells[len(FORMULAS) :])
    with zipfile.ZipFile(book) as zf:
        assert b"<f>" not in zf.read("xl/worksheets/sheet1.xml")  # no formula at all

    page = (folder / "summary.html").read_text(encoding="utf-8")
    assert "\x1b" not in page and "What is \ufffd[2J" in page


def test_summaries_keep_hostile_questions_as_text(tmp_path):
    _, _, state = _prepared(tmp_path)
    paths = write_summaries(state)
    assert [p.name for p in paths] == ["summary.csv", "summary.xlsx", "summary.html"]
    _check_summaries(state.folder)


@pytest.fixture
def batch_env(tmp_path, monkeypatch):
    """No batch setting of the machine running the tests; the working folder is tmp_path."""
    for name in ("QUARTET_MODEL", "QUARTET_FORMATS", "QUARTET_INPUT", "QUARTET_RUNS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


def test_a_batch_of_hostile_questions_writes_its_summaries_and_exits_by_its_runs(
    tmp_path, capsys, batch_env
):
    source, runs, state = _prepared(tmp_path)
    state.save()  # every question already ended: the command only writes the summaries
    code = main(["batch", str(source), "--runs-dir", str(runs), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0
    assert record["id"] == state.id and record["counts"]["done"] == len(QUESTIONS)
    _check_summaries(state.folder)


def test_the_exit_code_still_follows_the_runs(tmp_path, capsys, batch_env):
    source, runs, state = _prepared(tmp_path)
    state.jobs[-1].result = {**(state.jobs[-1].result or {}), "exit_code": 1}
    state.save()
    assert main(["batch", str(source), "--runs-dir", str(runs), "--json"]) == 1
    capsys.readouterr()
    _check_summaries(state.folder)


def test_a_question_holding_other_line_breaks_stays_one_question(tmp_path):
    inner = "How long is the canal\x0bin km\u2028and\x0cin miles?"
    (tmp_path / "q.csv").write_text(
        f'question,formats\n"{inner}",md\r\nWhat is second?,md\r\n', encoding="utf-8"
    )
    (tmp_path / "q.txt").write_text(f"{inner}\r\nWhat is second?\n", encoding="utf-8")
    for name in ("q.csv", "q.txt"):
        questions = read_questions(tmp_path / name)
        assert [q.question for q in questions] == [" ".join(inner.split()), "What is second?"]
