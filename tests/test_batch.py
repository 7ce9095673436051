"""``quartet batch`` on the local engine: the questions file, a batch of demo questions in
worker processes, the summaries, a rerun that skips finished questions, and a time-out
(the worker is killed and the question tried again).

The Ray engine and a worker killed mid-question are in tests/test_batch_ray.py.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
from pathlib import Path

import pytest
from batch_support import (
    QUESTIONS,
    batch_cmd,
    check_summaries,
    env,
    run_batch,
    run_folders,
)
from batch_support import write_questions as write_text_questions
from cli_support import ROOT, quartet
from openpyxl import Workbook

from quartet.batch.questions import read_questions
from quartet.cli import main


def test_questions_come_from_text_csv_and_xlsx(tmp_path):
    (tmp_path / "inputs").mkdir()
    text = tmp_path / "q.txt"
    text.write_text("\ufeff# a comment\n  What is A?  \n\nWhat is B?\n", encoding="utf-8")
    assert [q.question for q in read_questions(text)] == ["What is A?", "What is B?"]

    table = tmp_path / "q.csv"
    table.write_text(
        "Question,Input,Formats,notes\nWhat is A?,inputs,md;html,x\n,,,\n京杭大运河？,,,y\n",
        encoding="utf-8",
    )
    rows = read_questions(table)
    assert [(q.question, q.formats) for q in rows] == [
        ("What is A?", ("md", "html")),
        ("京杭大运河？", ()),
    ]
    assert rows[0].input_dir == str((tmp_path / "inputs").resolve())
    assert rows[1].input_dir is None

    book = Workbook()
    book.active.append(["id", "question", "formats"])
    book.active.append([1, "What is A?", "pdf"])
    book.active.append([2, "What is B?", None])
    book.save(tmp_path / "q.xlsx")
    rows = read_questions(tmp_path / "q.xlsx")
    assert [(q.question, q.formats) for q in rows] == [("What is A?", ("pdf",)), ("What is B?", ())]


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("none.txt", None, "no such questions file"),
        ("empty.txt", "# nothing\n\n", "no questions in it"),
        ("cols.csv", "title,input\nWhat?,\n", "no 'question' column in the first row"),
        ("fmt.csv", "question,formats\nA?,md\nB?,docx\n", "row 3: unknown docx"),
        ("inp.csv", "question,input\nA?,missing\n", "row 2: input missing is not a folder"),
        ("blank.csv", "question,formats\n,md\n", "row 2: the question is empty"),
        ("old.xls", "x", "save it as .xlsx"),
        ("bad.xlsx", "not a workbook", "not a readable XLSX workbook"),
        ("latin.txt", b"caf\xe9?\n", "not UTF-8 text"),
    ],
)
def test_bad_questions_files_are_one_line_errors(tmp_path, capsys, name, content, says):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["batch", str(path), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith(f"quartet: error: {path}: ") and says in err
    assert err.count("\n") == 1
    assert not (tmp_path / "runs").exists()


class _QuietHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_bad_batch_options_are_one_line_errors(tmp_path, capsys):
    questions = write_text_questions(tmp_path)
    for args, says in (
        (["--address", "127.0.0.1:1"], "--address is the address of a Ray cluster"),
        (["--concurrency", "0"], "--concurrency: must be positive"),
        (["--formats", "doc"], "--formats: unknown doc"),
        (["--retries", "-1"], "--retries: must be 0 or more"),
        (["--timeout", "nan"], "--timeout: must be more than 0 and at most 86400 seconds"),
        (["--timeout", "inf"], "--timeout: must be more than 0 and at most 86400 seconds"),
    ):
        with pytest.raises(SystemExit) as stop:
            main(["batch", str(questions), "--runs-dir", str(tmp_path / "runs"), *args])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and says in err and err.count("\n") == 1, err
    # an unreachable cluster is refused at once, not waited for
    with pytest.raises(SystemExit) as stop:
        main(["batch", str(questions), "--runs-dir", str(tmp_path / "runs"), "--engine", "ray",
              "--address", "127.0.0.1:1", "--quiet"])  # fmt: skip
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert err.splitlines() == [
        "quartet: error: the ray engine at 127.0.0.1:1 did not start: nothing answers at "
        "127.0.0.1:1 ([Errno 111] Connection refused)"
    ]
    # so is an address where something other than a Ray cluster answers
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), _QuietHandler) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        address = f"127.0.0.1:{web.server_address[1]}"
        with pytest.raises(SystemExit) as stop:
            main(["batch", str(questions), "--runs-dir", str(tmp_path / "runs"), "--engine",
                  "ray", "--address", address, "--quiet"])  # fmt: skip
        web.shutdown()
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert err.splitlines() == [
        f"quartet: error: the ray engine at {address} did not start: no Ray cluster answers at "
        f"{address} (UNAVAILABLE)"
    ]
    assert not (tmp_path / "runs").exists()  # refused before the batch wrote anything


def test_a_batch_of_demo_questions_runs_in_worker_processes_and_reruns_nothing(tmp_path):
    runs = tmp_path / "runs"
    cmd = batch_cmd(write_text_questions(tmp_path), runs, "--concurrency", "2", "--json")
    code, record, err = run_batch(cmd)
    assert code == 0, err[-3000:]
    rows = record["rows"]
    assert [r["question"] for r in rows] == list(QUESTIONS)
    assert [r["exit_code"] for r in rows] == [0, 0, 3]
    assert [r["status"] for r in rows] == ["finished"] * 3
    # the parts counted by the statuses the plan shows: each answered, or partly answered
    assert all(r["answered"] + r["partly"] == r["parts"] > 0 for r in rows[:2])
    assert all(r["answered"] > 0 and r["citations"] > 0 for r in rows[:2])
    assert rows[2]["answered"] == rows[2]["partly"] == 0 and rows[2]["citations"] == 0
    assert [r["attempts"] for r in rows] == [1, 1, 1]
    # each question is an ordinary run folder, as `quartet show` reads it
    folders = run_folders(runs)
    assert folders == {r["run_id"] for r in rows}
    for r in rows:
        show = json.loads(_show(runs, r["run_id"]))
        assert show["exit_code"] == r["exit_code"] and show["question"] == r["question"]
        assert r["report"] in show["outputs"]
    # the Chinese run wrote its report in Chinese
    zh = Path(rows[1]["report"]).with_suffix(".md").read_text(encoding="utf-8")
    assert sum("\u4e00" <= c <= "\u9fff" for c in zh) > 100
    check_summaries(record)

    code, again, err = run_batch(cmd)
    assert code == 0, err[-2000:]
    assert again["id"] == record["id"] and again["rows"] == rows
    assert run_folders(runs) == folders


def test_a_question_that_times_out_is_retried_then_given_up(tmp_path):
    questions = tmp_path / "one.txt"
    questions.write_text(QUESTIONS[0] + "\n", encoding="utf-8")
    runs = tmp_path / "runs"
    cmd = quartet("batch", str(questions), "--runs-dir", str(runs), "--timeout", "0.5")
    code, record, err = run_batch([*cmd, "--retries", "1", "--json"])
    assert code == 1, err[-2000:]
    (row,) = record["rows"]
    assert row["status"] == "failed" and row["attempts"] == 2
    assert row["error"] == "timed out: no result after 0.5 s"
    assert record["counts"]["failed"] == 1
    check_summaries_without_reports(record)


def check_summaries_without_reports(record: dict) -> None:
    for path in record["summaries"]:
        assert Path(path).is_file()
    text = Path(record["summaries"][2]).read_text(encoding="utf-8")
    assert 'class="failed"' in text and "timed out" in text


def _show(runs: Path, run_id: str) -> str:
    proc = subprocess.run(
        quartet("show", run_id, "--runs-dir", str(runs), "--json"),
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout
