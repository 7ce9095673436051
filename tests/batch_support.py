"""Running ``quartet batch`` as a real subprocess on demo questions, and reading what it
wrote: the state file, the workers' notes, and the three summaries."""

from __future__ import annotations

import csv
import html.parser
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from cli_support import ROOT, demo_runs_dir, quartet
from openpyxl import load_workbook

from demo.site import DEMO_QUESTION, DEMO_QUESTION_ZH

#: English, Chinese, and off-topic (the demo web has nothing on it: exit 3).
QUESTIONS = (DEMO_QUESTION, DEMO_QUESTION_ZH, "How do heat pumps work?")
#: Small budgets keep each run short; the pipeline is the same.
SMALL = ("--formats", "md,html", "--max-pages", "6", "--max-rounds", "1")


def env() -> dict[str, str]:
    """The batch's environment: no keys, this checkout on the path."""
    found = {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}
    return found | {"PYTHONPATH": str(ROOT)}


def write_questions(folder: Path) -> Path:
    path = folder / "questions.txt"
    path.write_text("# demo questions\n" + "\n\n".join(QUESTIONS) + "\n", encoding="utf-8")
    return path


def batch_cmd(questions: Path, runs: Path, *args: str) -> list[str]:
    """``quartet batch QUESTIONS --demo`` with small budgets (the demo site prebuilt)."""
    if not (runs / ".demo-cache").exists():
        demo_runs_dir(runs)
    return quartet("batch", str(questions), "--demo", "--runs-dir", str(runs), *SMALL, *args)


def run_batch(
    cmd: list[str], timeout: float = 600, environ: dict[str, str] | None = None
) -> tuple[int, dict, str]:
    """Run ``cmd`` (with ``--json``) in ``environ`` (default :func:`env`); its exit status,
    record and stderr."""
    proc = subprocess.run(
        cmd, cwd=ROOT, env=environ or env(), capture_output=True, text=True, timeout=timeout
    )
    assert proc.stdout.strip(), proc.stderr[-3000:]
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def run_folders(runs: Path) -> set[str]:
    return {p.name for p in runs.iterdir() if (p / "internal").is_dir()}


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [v for k, v in attrs if tag == "a" and k == "href" and v]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def check_summaries(record: dict) -> None:
    """The three summaries hold one row per question, as the record says, and their
    report links open the reports."""
    folder = Path(record["folder"])
    csv_path, xlsx_path, html_path = (Path(p) for p in record["summaries"])
    assert [p.parent for p in (csv_path, xlsx_path, html_path)] == [folder] * 3
    rows = record["rows"]
    with csv_path.open(encoding="utf-8", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [r["question"] for r in table] == [r["question"] for r in rows]
    assert [r["exit code"] for r in table] == [str(r["exit_code"]) for r in rows]
    assert [r["citations"] for r in table] == [str(r["citations"]) for r in rows]
    assert [r["report"] for r in table] == [r["report"] for r in rows]

    sheet = load_workbook(xlsx_path).active
    header = [c.value for c in sheet[1]]
    col = header.index("report") + 1
    questions = [sheet.cell(row=i, column=header.index("question") + 1).value for i in
                 range(2, len(rows) + 2)]  # fmt: skip
    assert questions == [r["question"] for r in rows]
    for i in range(2, len(rows) + 2):
        link = sheet.cell(row=i, column=col).hyperlink
        assert link is not None and (folder / link.target).resolve().is_file()

    parser = _Links()
    parser.feed(html_path.read_text(encoding="utf-8"))
    assert len(parser.links) == len(rows)
    for link in parser.links:
        assert (folder / link).resolve().is_file()
    text = "".join(parser.text)
    assert all(r["question"] in text for r in rows)


def wait_for(condition, timeout: float, proc: subprocess.Popen) -> object:
    """Poll ``condition`` until it returns something true; fail if ``proc`` ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"the batch ended (exit {proc.returncode}) before the awaited state")
        time.sleep(0.05)
    pytest.fail("the awaited state never came")


def researching(marker: Path, runs: Path) -> dict | None:
    """The worker's note, once its run has checkpointed research and not finished."""
    try:
        note = json.loads(marker.read_text(encoding="utf-8"))
        saved = json.loads((runs / note["run"] / "internal/checkpoint.json").read_text("utf-8"))
    except (OSError, ValueError, KeyError):
        return None
    done = (runs / note["run"] / "internal/run.json").exists()
    return note if saved.get("phase") == "research" and not done else None


def run_killing_first_worker(cmd: list[str], runs: Path) -> tuple[int, dict, str, dict, Path]:
    """Run the batch ``cmd`` (with ``--json``); once question 1's run has checkpointed its
    research, SIGKILL the worker process running it. Returns the batch's exit status,
    record and stderr, the worker's note from before the kill, and the batch folder."""
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        batch = wait_for(lambda: next(runs.glob("batch-*/jobs"), None), 300, proc).parent
        note = wait_for(lambda: researching(batch / "jobs/0001.json", runs), 300, proc)
        os.kill(note["pid"], signal.SIGKILL)
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert out.strip(), err[-3000:]
    return proc.returncode, json.loads(out), err, note, batch


def check_resumed_after_kill(record: dict, note: dict, batch: Path, runs: Path) -> None:
    """Question 1 was tried again by another worker process, which resumed the same run
    from its checkpoint; every other question ran once; one run folder per question."""
    rows = record["rows"]
    assert rows[0]["attempts"] == 2 and rows[0]["run_id"] == note["run"]
    assert [r["attempts"] for r in rows[1:]] == [1] * (len(rows) - 1)
    state = json.loads((batch / "batch.json").read_text(encoding="utf-8"))
    assert state["jobs"][0]["result"]["resumed"] is True
    after = json.loads((batch / "jobs/0001.json").read_text(encoding="utf-8"))
    assert after["run"] == note["run"] and after["pid"] != note["pid"]
    run_json = json.loads((runs / note["run"] / "internal/run.json").read_text("utf-8"))
    assert run_json["resumed"] == 1 and run_json["exit_code"] == 0
    assert run_folders(runs) == {r["run_id"] for r in rows}
