"""Past runs: ``quartet runs`` and ``quartet show`` over fabricated run folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runs_support import make_run, plan_of

from host.durability.runs import RunNotFound, find_run, list_runs, read_run
from quartet.cli import main

FINISHED = "20260301-090000-aaaaaa"
INTERRUPTED = "20260302-090000-bbbbbb"
STOPPED = "20260303-090000-cccccc"
INCOMPLETE = "20260304-090000-dddddd"


@pytest.fixture
def runs_dir(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    long_question = "How did the Grand Canal shape trade " + "and culture " * 10 + "?"
    make_run(
        runs,
        FINISHED,
        {
            "id": FINISHED,
            "question": long_question,
            "plan": plan_of(long_question, [3, 2, 0]),
            "answered": 2,
            "exit_code": 0,
            "seconds": 12.25,
            "tokens": {"input": 1200, "output": 340, "cache_read": 0},
            "pages_read": 7,
            "delegations": [
                {
                    "id": "d1",
                    "subagent": "search",
                    "subquestion": "q1",
                    "status": "ok",
                    "unknown_evidence_ids": ["ev-000000000000"],
                    "unknown_paths": [],
                },
                {
                    "id": "d4",
                    "subagent": "browser",
                    "subquestion": "q3",
                    "status": "timeout",
                    "error": "the browser stage timed out after 300 s",
                },
            ],
            "outputs": ["/workspace/reports/report.md", "/workspace/reports/report.html"],
            "citations": 9,
            "tool_calls": [
                {"tool": "search_bing", "ok": False},
                {"tool": "search_bing", "ok": False},
                {"tool": "search_wiki", "ok": True},
            ],
            "errors": ["sogou: connection refused"],
            "host_refusals": [
                {"tool": "task", "arguments": {"subagent_type": "magic"}, "status": "error",
                 "reason": "unknown subagent_type 'magic'"},
            ],
        },
    )  # fmt: skip
    make_run(
        runs,
        INTERRUPTED,
        {
            "question": "Why did the canal decline?",
            "status": "interrupted",
            "plan": plan_of("Why did the canal decline?", [1, 0]),
            "answered": 1,
            "exit_code": 130,
            "seconds": 3.5,
            "outputs": ["/workspace/reports/report.md"],
        },
    )
    make_run(
        runs,
        STOPPED,
        checkpoint={"version": 1, "question": "What is the canal used for today?"},
        plan=plan_of("What is the canal used for today?", [2, 0, 0]),
    )
    make_run(runs, INCOMPLETE)
    # Not run folders: the demo's cache, a stray folder and a file.
    (runs / ".demo-cache" / "internal").mkdir(parents=True)
    (runs / ".demo-cache" / "workspace").mkdir()
    (runs / "notes").mkdir()
    (runs / "README.txt").write_text("not a run", encoding="utf-8")
    return runs


def test_runs_are_listed_newest_first_with_their_status(runs_dir):
    runs = list_runs(runs_dir)
    assert [r.id for r in runs] == [INCOMPLETE, STOPPED, INTERRUPTED, FINISHED]
    by_id = {r.id: r for r in runs}
    finished = by_id[FINISHED]
    assert (finished.status, finished.exit_code, finished.answered, finished.parts) == (
        "finished",
        0,
        2,
        3,
    )
    assert finished.seconds == 12.25 and finished.started.year == 2026
    assert (by_id[INTERRUPTED].status, by_id[INTERRUPTED].exit_code) == ("interrupted", 130)
    stopped = by_id[STOPPED]
    assert (stopped.status, stopped.answered, stopped.parts) == ("stopped", 1, 3)
    assert stopped.question == "What is the canal used for today?" and stopped.resumable
    incomplete = by_id[INCOMPLETE]
    assert (incomplete.status, incomplete.question, incomplete.parts) == ("incomplete", "", None)
    assert not incomplete.resumable


def test_no_runs_folder_means_no_runs(tmp_path):
    assert list_runs(tmp_path / "missing") == []


def test_a_run_is_found_by_its_id_or_a_unique_prefix(runs_dir):
    assert find_run(runs_dir, FINISHED) == runs_dir / FINISHED
    assert find_run(runs_dir, "20260302") == runs_dir / INTERRUPTED
    with pytest.raises(RunNotFound, match="starts more than one run id"):
        find_run(runs_dir, "202603")
    with pytest.raises(RunNotFound, match=f"did you mean {FINISHED}"):
        find_run(runs_dir, FINISHED[:-1] + "x")
    with pytest.raises(RunNotFound, match=r"no run '\.demo-cache'"):
        find_run(runs_dir, ".demo-cache")


def test_a_run_detail_has_its_plan_outputs_and_failures(runs_dir):
    detail = read_run(runs_dir / FINISHED)
    assert [(s.id, s.status, s.evidence) for s in detail.plan] == [
        ("q1", "answered", 3),
        ("q2", "answered", 2),
        ("q3", "not found", 0),
    ]
    assert detail.outputs == [
        runs_dir / FINISHED / "workspace/reports/report.md",
        runs_dir / FINISHED / "workspace/reports/report.html",
    ]
    assert (detail.citations, detail.pages_read) == (9, 7)
    assert detail.tokens == {"input": 1200, "output": 340, "cache_read": 0}
    assert [(f.where, f.reason) for f in detail.failures] == [
        ("browser d4 (q3)", "the browser stage timed out after 300 s"),
        ("search d1", "its outcome named what does not exist: ev-000000000000"),
        ("host", "task refused: unknown subagent_type 'magic'"),
        ("search_bing", "2 failed calls"),
        ("run", "sogou: connection refused"),
    ]


def test_quartet_runs_prints_one_line_per_run(runs_dir, capsys):
    assert main(["runs", "--runs-dir", str(runs_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["ID", "STATUS", "ANSWERED"]
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == [INCOMPLETE, STOPPED, INTERRUPTED, FINISHED]
    # statuses in words, as the web app shows them: no exit codes
    assert "finished " in rows[FINISHED] and " 2/3 " in rows[FINISHED]
    assert "12.2 s" in rows[FINISHED] and "…" in rows[FINISHED]
    assert all("(0)" not in row and "(130)" not in row for row in rows.values())
    assert list_runs(runs_dir)[2].told in rows[INTERRUPTED]
    assert "can be resumed" in rows[STOPPED] and f"quartet resume {STOPPED}" in rows[STOPPED]
    assert "stopped before it began" in rows[INCOMPLETE] and "resume" not in rows[INCOMPLETE]


def test_quartet_runs_json_and_an_empty_folder(runs_dir, tmp_path, capsys):
    assert main(["runs", "--runs-dir", str(runs_dir), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["status"] for r in listed] == ["incomplete", "stopped", "interrupted", "finished"]
    assert listed[-1]["answered"] == 2 and listed[-1]["parts"] == 3
    empty = tmp_path / "empty"
    assert main(["runs", "--runs-dir", str(empty)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"No runs in {empty}. ") and "--runs-dir DIR" in out
    assert not empty.exists()  # listing creates nothing


def test_quartet_show_prints_a_runs_summary(runs_dir, capsys):
    assert main(["show", FINISHED[:10], "--runs-dir", str(runs_dir)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Run {FINISHED}: finished (exit status 0)\n")
    assert "How did the Grand Canal shape trade" in out
    assert "Plan:      2 answered, 1 not found (3 parts)" in out and "q3  not found" in out
    assert str(runs_dir / FINISHED / "workspace/reports/report.html") in out
    assert "Citations: 9" in out and "pages read: 7" in out and "input tokens: 1200" in out
    assert "cache_read tokens" not in out  # none spent: nothing to say
    assert "browser d4 (q3): the browser stage timed out" in out
    assert "search_bing: 2 failed calls" in out
    assert main(["show", STOPPED, "--runs-dir", str(runs_dir), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "stopped" and shown["resumable"]
    assert [s["status"] for s in shown["plan"]] == ["answered", "not found", "not found"]


def test_quartet_show_of_an_unknown_run_is_a_one_line_error(runs_dir, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["show", FINISHED[:-1] + "x", "--runs-dir", str(runs_dir)])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        f"quartet: error: no run '{FINISHED[:-1]}x' in {runs_dir}; did you mean {FINISHED}?\n"
    )


#: A question as a hostile run folder could carry it: an OSC 8 link hiding its address, a
#: clear-screen and cursor-home, an 8-bit CSI, a title change, a carriage return and a
#: right-to-left override.
HOSTILE = (
    "How \x1b]8;;https://evil.example/\x1b\\was\x1b]8;;\x1b\\ it \x1b[2J\x1b[Hbuilt"
    "\x9b2J\x1b]0;pwned\x07\rand \u202eused?"
)


def test_show_and_runs_print_no_terminal_controls_from_a_run_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    plan = plan_of(HOSTILE, [1])
    record = {
        "question": HOSTILE,
        "status": "finished\x1b[31m",
        "plan": plan,
        "answered": 1,
        "errors": [f"a page said {HOSTILE}"],
        "outputs": ["/workspace/reports/\x1b[2Jr.md"],
    }
    make_run(runs, FINISHED, record)
    assert main(["runs", "--runs-dir", str(runs)]) == 0
    assert main(["show", FINISHED, "--runs-dir", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "How was it built and used?" in out  # the words are kept
    assert not any(c in out for c in "\x1b\x9b\x07\r\u202e"), repr(out)
    for argv in (["runs", "--json"], ["show", FINISHED, "--json"]):
        assert main([*argv, "--runs-dir", str(runs)]) == 0
        out = capsys.readouterr().out
        assert not any(c in out for c in "\x1b\x9b\x07\r\u202e"), repr(out)
        listed = json.loads(out)  # the data itself is unchanged, escaped as JSON
        assert (listed[0] if isinstance(listed, list) else listed)["question"] == HOSTILE


def test_an_interrupted_run_with_a_checkpoint_is_resumable_in_every_listing(runs_dir, capsys):
    """The list, ``show`` and ``runs --json`` agree on what ``quartet resume`` can take."""
    assert not read_run(find_run(runs_dir, INTERRUPTED)).summary.resumable
    checkpoint = runs_dir / INTERRUPTED / "internal" / "checkpoint.json"
    checkpoint.write_text(json.dumps({"version": 1}), encoding="utf-8")
    assert main(["runs", "--runs-dir", str(runs_dir), "--json"]) == 0
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed[INTERRUPTED]["resumable"] and listed[STOPPED]["resumable"]
    assert not listed[FINISHED]["resumable"] and not listed[INCOMPLETE]["resumable"]
    assert main(["runs", "--runs-dir", str(runs_dir)]) == 0
    assert f"resume with: quartet resume {INTERRUPTED}" in capsys.readouterr().out


def test_a_run_stopped_before_its_first_checkpoint_is_listed_with_its_question(tmp_path):
    """A new run folder says its question at once, so a run stopped in its first moments
    is listed with it, as one that stopped before it began and cannot be resumed."""
    from host.durability.run_folder import RunFolder

    question = "How deep is the Kelvar canal?"
    folder = RunFolder.create(tmp_path, question=question)
    (run,) = list_runs(tmp_path)
    assert (run.id, run.status, run.question) == (folder.id, "incomplete", question)
    assert not run.resumable and run.told == "stopped before it began"
    assert read_run(folder.path).summary.question == question
