"""The user-side attack corpus: batch summaries, plan files and settings. What gets through?

    .venv/bin/python bench/bench_attacks_config.py

Classes, several variants each, every one through the real command line
(``quartet.cli.main``, in a child process):

- summary formula injection: a batch question starting with ``=``, ``+``, ``-``, ``@``, a
  tab or a carriage return, judged in ``summary.csv`` (a leading apostrophe) and
  ``summary.xlsx`` (a quote-prefixed text cell, no formula element in the sheet);
- summary control characters: a question holding ESC, NUL, BEL, DEL, CSI or other
  controls; the batch must still write all three summaries without them and exit 0;
- YAML alias bomb: ``quartet run --plan FILE`` with nested aliases (546 bytes that once
  cost 1.1 GB), merge keys, deep nesting, huge files, ``/dev/zero``, counts and lengths
  past the limits, Python tags;
- config numbers: non-finite, non-whole and out-of-range numbers in ``quartet.toml``, in
  the environment and in flags (``max_pages = inf``, ``stage_timeout = nan``, ...).

Each call is judged by its outcome:

- refused: the attack did not get through (plans and settings: exit 2 with one line
  naming the file or the setting, no traceback, no run folder; summaries: the files are
  written, their texts are text, and the exit code follows the runs);
- bypassed: it did, or the call's peak memory passed 512 MB;
- crashed/hung: an exception escaped the command (a traceback, exit 1), the child died,
  or it did not finish within its deadline.

Peak memory is the growth of the child's resident set during the call (the kernel's
high-water mark, reset just before it). Nothing leaves the machine: every search source
points at a closed port on 127.0.0.1, so a plan that got through would end quickly.
"""

from __future__ import annotations

import contextlib
import csv
import importlib
import io
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import traceback
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from attack_tally import MiB, Tally, print_table  # noqa: E402

MAX_CALL_MB = 512
#: Ceiling on a child's data segment: a runaway call fails with MemoryError instead of
#: exhausting the machine.
DATA_LIMIT_BYTES = 2 * 1024**3
#: Deadline of one call; a plan that got through runs the pipeline against dead sources.
CALL_DEADLINE_S = 120
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Quartet's variables of the machine running the bench, dropped from every child.
DROPPED = ("QUARTET_", "OPENAI_", "ANTHROPIC_", "DASHSCOPE_", "GEMINI_")
#: Where a search source or page would be fetched from if a hostile plan got through.
DEAD = "http://127.0.0.1:9"
SOURCES = ("GOOGLE", "BING", "SOGOU", "GITHUB", "WIKI")

FORMULAS = [
    '=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")',
    "=cmd|' /C calc'!A0",
    "+1+1 is how much?",
    "-2+3 is how much?",
    "@SUM(A1:A2) is what?",
    "\t=1+1 in a tab?",
    "\r=1+1 after a carriage return?",
]
CONTROLS = {
    "ESC clear screen": "What is \x1b[2J\x1b[H this?",
    "OSC 8 link": "Why \x1b]8;;http://127.0.0.1:9/\x07click\x1b]8;;\x07 here?",
    "NUL": "How\x00 was it built?",
    "BEL and backspace": "How\x07 was\x08 it built?",
    "DEL": "How was it built\x7f?",
    "C1 CSI": "How was \x9b31m it built?",
    "vertical tab, form feed": "How\x0bwas\x0cit built?",
    "every C0 control": "Q" + "".join(chr(c) for c in range(32) if c not in (9, 10, 13)) + "?",
}


# ---------------------------------------------------------------- the child


def _kib(name: str) -> int:
    status = Path("/proc/self/status").read_text()
    found = re.search(rf"^{name}:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) if found else 0


def _call(call: dict[str, Any]) -> dict[str, Any]:
    """Run ``quartet ARGV`` in this process; its exit status, output and peak memory."""
    from quartet.cli import main

    saved = {k: os.environ.get(k) for k in call["env"]}
    os.environ.update(call["env"])
    os.chdir(call["cwd"])
    out, err = io.StringIO(), io.StringIO()
    escaped = None
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak to the current RSS
    before = _kib("VmRSS")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(call["argv"])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # what would be a traceback and exit 1
        code, escaped = 1, traceback.format_exc(limit=3)[-600:]
    peak = _kib("VmHWM") - before
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    return {
        "code": code,
        "stdout": out.getvalue()[-2000:],
        "stderr": err.getvalue()[-2000:],
        "escaped": escaped,
        "peak_mb": round(peak / 1024, 1),
    }


def child(calls_file: str, results_file: str) -> None:
    """Run every call of ``calls_file``, one JSON line of result each in ``results_file``."""
    resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT_BYTES, DATA_LIMIT_BYTES))
    # imported before any call, so that no call's memory counts what importing costs
    for module in (
        "openpyxl",
        "host.orchestration.approval",
        "quartet.batch.command",
        "quartet.batch.engines",
        "quartet.batch.progress",
        "quartet.batch.summary",
        "quartet.cli",
    ):
        importlib.import_module(module)

    calls = json.loads(Path(calls_file).read_text(encoding="utf-8"))
    with open(results_file, "a", encoding="utf-8") as fh:
        for call in calls:
            fh.write(json.dumps(_call(call), ensure_ascii=False) + "\n")
            fh.flush()


# ---------------------------------------------------------------- the parent


@dataclass
class Attack:
    kind: str
    tool: str
    note: str
    argv: list[str]
    cwd: Path
    #: Judges a finished call: True when the attack was refused.
    refused: Callable[[dict[str, Any]], bool]
    env: dict[str, str] = field(default_factory=dict)


def refusal(*named: str, runs: Path | None = None) -> Callable[[dict[str, Any]], bool]:
    """Exit 2 with one line naming each of ``named``; no traceback, no run folder."""

    def judge(r: dict[str, Any]) -> bool:
        lines = r["stderr"].strip().splitlines()
        return (
            r["code"] == 2
            and len(lines) == 1
            and lines[0].startswith("quartet: error: ")
            and all(n in lines[0] for n in named)
            and "Traceback" not in r["stderr"]
            and not (runs is not None and runs.exists())
        )

    return judge


class Corpus:
    """The hostile inputs, made under one temporary folder."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.count = 0

    def folder(self, name: str) -> Path:
        self.count += 1
        path = self.base / f"{self.count:03d}-{name}"
        path.mkdir()
        return path

    def warm_up(self, name: str) -> Attack:
        """A harmless call down the same path as the attacks of class ``name``: a batch
        whose question ended, an empty plan, settings without a file."""
        where = self.folder("warm-up")
        runs = where / "runs"
        if name == "summaries":
            source, runs, _, _ = self.batch("How was it built?")
            argv = ["batch", str(source), "--runs-dir", str(runs), "--json"]
        elif name == "plans":
            (where / "plan.yaml").write_text("[]\n", encoding="utf-8")
            argv = ["run", "q", "--plan", str(where / "plan.yaml"), "--runs-dir", str(runs)]
        else:
            argv = ["run", "q", "--runs-dir", str(runs), "--review-plan"]
        return Attack("warm-up", "", "", argv, where, lambda r: True)

    # -- batch summaries

    def batch(self, question: str, exit_code: int = 0) -> tuple[Path, Path, Path, str]:
        """A questions file of one question whose run already ended with ``exit_code``:
        ``quartet batch`` then only writes the summaries.

        Returns the questions file, the runs folder, the batch folder and the question as
        the batch read it (the reader strips a line's ends, and ends a CSV line at a
        vertical tab or form feed)."""
        from host.config import FORMATS
        from quartet.batch.questions import read_questions
        from quartet.batch.state import DONE, BatchState

        where = self.folder("batch")
        source = where / "questions.csv"
        with source.open("w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows([["question"], [question]])
        runs = where / "runs"
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
        for job in state.jobs:
            job.status, job.run_id = DONE, "20260101-000000-000001"
            job.result = {"status": "finished", "exit_code": exit_code, "report": str(report)}
        state.save()
        return source, runs, state.folder, state.jobs[0].question

    def summary_attacks(self) -> list[Attack]:
        a: list[Attack] = []
        for question in FORMULAS:
            source, runs, folder, read = self.batch(question)
            argv = ["batch", str(source), "--runs-dir", str(runs), "--json"]
            a.append(
                Attack(
                    "summary formula",
                    "quartet batch → summary.csv",
                    repr(question[:24]),
                    argv,
                    source.parent,
                    csv_text(folder, read),
                )
            )
            a.append(
                Attack(
                    "summary formula",
                    "quartet batch → summary.xlsx",
                    repr(question[:24]),
                    argv,
                    source.parent,
                    xlsx_text(folder, read),
                )
            )
        for note, question in CONTROLS.items():
            source, runs, folder, read = self.batch(question)
            a.append(
                Attack(
                    "summary control chars",
                    "quartet batch → 3 summaries",
                    note,
                    ["batch", str(source), "--runs-dir", str(runs), "--json"],
                    source.parent,
                    no_controls(folder, read, exit_code=0),
                )
            )
        # the exit code still follows the runs: one that wrote no report makes it 1
        source, runs, folder, read = self.batch(CONTROLS["ESC clear screen"], exit_code=1)
        a.append(
            Attack(
                "summary control chars",
                "quartet batch → 3 summaries",
                "ESC, a run that failed",
                ["batch", str(source), "--runs-dir", str(runs), "--json"],
                source.parent,
                no_controls(folder, read, exit_code=1),
            )
        )
        return a

    # -- plan files

    def plan_attacks(self) -> list[Attack]:
        from test_plan_file import alias_bomb

        def part(text: str = "How was it built?", queries: Any = None) -> dict[str, Any]:
            return {"text": text, "queries": ["built", "canal"] if queries is None else queries}

        aliases = "aliases (*name) are not accepted"
        merge = (
            "base: &b {text: 'How was it built', queries: [a, b]}\n"
            "subquestions:\n  - <<: *b\n  - <<: *b\n    text: Why did it decline\n"
        )
        repeated = "subquestions:\n  - &p {text: 'How was it built', queries: [a]}\n  - *p\n"
        flow = '{"a": &a ["x", "x"], "subquestions": [{"text": "How?", "queries": *a}]}'
        #: variant → (the plan file, what its refusal must say)
        plans: dict[str, tuple[str | bytes, str]] = {
            "546-byte aliases 9×9": (alias_bomb(), aliases),
            "aliases 12×12": (alias_bomb(levels=12, width=12), aliases),
            "aliases in JSON flow": (flow, aliases),
            "one repeated part": (repeated, aliases),
            "merge keys <<: *b": (merge, aliases),
            "nesting [×5000": ("[" * 5000 + "]" * 5000, "nested too deeply"),
            "nesting {a: ×3000": ("{a: " * 3000 + "x" + "}" * 3000, "nested too deeply"),
            "1 MB file": ("- " + "x" * (1 << 20) + "\n", "larger than 64 KiB"),
            "30,000 parts": ("[" + "a," * 30_000 + "a]", "a plan has at most 6"),
            "10,000 queries": (json.dumps([part(queries=["q"] * 10_000)]), "at most 4 queries"),
            "60 KB part": (json.dumps([part("x" * 60_000)]), "longer than 400 characters"),
            "query of 60 KB": (
                json.dumps([part(queries=["q" * 60_000])]),
                "a query is longer than 200",
            ),
            "nested query lists": (
                json.dumps([part(queries=[[["x"] * 50] * 50] * 4)]),
                "'queries' must be a list of texts",
            ),
            "python tag": (
                "!!python/object/apply:os.system ['echo pwned']\n",
                "could not determine a constructor",
            ),
            "not UTF-8": (b"- caf\xe9?\n", "not UTF-8 text"),
        }
        a: list[Attack] = []
        for note, (content, says) in plans.items():
            where = self.folder("plan")
            plan = where / "plan.yaml"
            if isinstance(content, bytes):
                plan.write_bytes(content)
            else:
                plan.write_text(content, encoding="utf-8")
            runs = where / "runs"
            argv = ["run", "How was it built?", "--plan", str(plan), "--runs-dir", str(runs)]
            a.append(
                Attack(
                    "YAML alias bomb",
                    "quartet run --plan",
                    note,
                    argv,
                    where,
                    refusal(f"--plan {plan}: ", says, runs=runs),
                )
            )
        if Path("/dev/zero").exists():
            where = self.folder("plan")
            runs = where / "runs"
            a.append(
                Attack(
                    "YAML alias bomb",
                    "quartet run --plan",
                    "/dev/zero",
                    ["run", "How?", "--plan", "/dev/zero", "--runs-dir", str(runs)],
                    where,
                    refusal("--plan /dev/zero: larger than 64 KiB", runs=runs),
                )
            )
        return a

    # -- settings

    def config_attacks(self) -> list[Attack]:
        from host.config import MOST

        a: list[Attack] = []

        def run_with(tool: str, note: str, named: str, toml: str = "", **kw: Any) -> None:
            where = self.folder("config")
            if toml:
                (where / "quartet.toml").write_text(f"[quartet]\n{toml}\n", encoding="utf-8")
            runs = where / "runs"
            # --review-plan without a terminal is refused only after the settings are
            # read: a setting that got through is named nowhere, and nothing runs
            argv = ["run", "q", "--runs-dir", str(runs), "--review-plan", *kw.get("flags", [])]
            a.append(
                Attack(
                    "config numbers",
                    tool,
                    note,
                    argv,
                    where,
                    refusal(named, runs=runs),
                    env=kw.get("env", {}),
                )
            )

        for name in sorted(MOST):
            for value in ("inf", "nan"):
                run_with("quartet.toml", f"{name} = {value}", f"{name}: ", f"{name} = {value}")
        for line, named in (
            ("max_pages = -inf", "max_pages: "),
            ("stage_timeout = 1e400", "stage_timeout: "),
            ("max_pages = 2.5", "max_pages: expected a whole number"),
            ("tool_call_cap = true", "tool_call_cap: expected a number"),
            ("concurrency = 1000000", "concurrency: must be positive and at most"),
            ("history_chars = 9223372036854775807", "history_chars: must be positive"),
            ("model_attempts = 0", "model_attempts: must be positive"),
            ("[quartet.stage_timeouts]\nbrowser = nan", "stage_timeouts.browser: "),
            ("[quartet.stage_timeouts]\nsearch = inf", "stage_timeouts.search: "),
            ('[quartet.prices."openai:m"]\ninput = nan\noutput = 1', 'prices."openai:m".input'),
            ('[quartet.prices."openai:m"]\ninput = 1\noutput = inf', 'prices."openai:m".output'),
            ('spreadsheet_formulas = "yes please"', "spreadsheet_formulas: expected true"),
        ):
            run_with("quartet.toml", line.replace("\n", " "), named, line)
        for var, value, named in (
            ("QUARTET_STAGE_TIMEOUT", "nan", "stage_timeout: "),
            ("QUARTET_MAX_PAGES", "inf", "max_pages: "),
            ("QUARTET_MODEL_TIMEOUT", "1e999", "model_timeout: "),
            ("QUARTET_CONCURRENCY", "-5", "concurrency: "),
            ("QUARTET_MAX_COST", "nan", "max_cost: "),
            ("QUARTET_MAX_TOKENS", "1e30", "max_tokens: "),
            ("QUARTET_SEARCH_TIMEOUT", "nan", "QUARTET_SEARCH_TIMEOUT"),
            ("QUARTET_SEARCH_TIMEOUT", "inf", "QUARTET_SEARCH_TIMEOUT"),
            ("QUARTET_SPREADSHEET_FORMULAS", "maybe", "QUARTET_SPREADSHEET_FORMULAS"),
        ):
            run_with("environment", f"{var}={value}", named, env={var: value})
        for flags, named in (
            (["--max-cost", "nan"], "max_cost: "),
            (["--max-cost", "inf"], "max_cost: "),
            (["--max-tokens", str(10**13)], "max_tokens: "),
            (["--concurrency", "100000"], "concurrency: "),
            (["--max-pages", "0"], "max_pages: "),
        ):
            run_with("flags", " ".join(flags), named, flags=flags)
        where = self.folder("config")
        questions = where / "questions.txt"
        questions.write_text("How was it built?\n", encoding="utf-8")
        for value in ("nan", "inf", "-inf"):
            runs = where / "runs"
            a.append(
                Attack(
                    "config numbers",
                    "flags",
                    f"batch --timeout {value}",
                    ["batch", str(questions), "--runs-dir", str(runs), f"--timeout={value}"],
                    where,
                    refusal("--timeout: must be more than 0", runs=runs),
                )
            )
        return a


def _summary_ok(r: dict[str, Any], exit_code: int = 0) -> bool:
    return r["code"] == (0 if exit_code in (0, 3) else 1) and r["escaped"] is None


def csv_text(folder: Path, question: str) -> Callable[[dict[str, Any]], bool]:
    def judge(r: dict[str, Any]) -> bool:
        path = folder / "summary.csv"
        if not (_summary_ok(r) and path.is_file()):
            return False
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        return rows[1][1] == "'" + question

    return judge


def xlsx_text(folder: Path, question: str) -> Callable[[dict[str, Any]], bool]:
    def judge(r: dict[str, Any]) -> bool:
        from openpyxl import load_workbook

        path = folder / "summary.xlsx"
        if not (_summary_ok(r) and path.is_file()):
            return False
        cell = load_workbook(path).active.cell(row=2, column=2)
        with zipfile.ZipFile(path) as zf:
            formula = b"<f>" in zf.read("xl/worksheets/sheet1.xml")
        found = (cell.value, cell.data_type, cell.quotePrefix, formula)
        return found == (question, "s", True, False)

    return judge


def no_controls(folder: Path, question: str, exit_code: int) -> Callable[[dict[str, Any]], bool]:
    """All three summaries written, the exit code that of the runs, no control character
    anywhere, and each of the question's replaced by U+FFFD."""
    shown = CONTROL.sub("\ufffd", question)

    def judge(r: dict[str, Any]) -> bool:
        from openpyxl import load_workbook

        paths = [folder / n for n in ("summary.csv", "summary.xlsx", "summary.html")]
        if not (_summary_ok(r, exit_code) and all(p.is_file() for p in paths)):
            return False
        texts = [paths[0].read_text(encoding="utf-8"), paths[2].read_text(encoding="utf-8")]
        sheet = load_workbook(paths[1]).active
        texts += [str(c.value) for row in sheet.iter_rows() for c in row if c.value is not None]
        cell = sheet.cell(row=2, column=2).value
        return not any(CONTROL.search(t) for t in texts) and cell == shown

    return judge


def run_class(
    warm_up: Attack, attacks: list[Attack], env: dict[str, str], tallies: dict[Any, Tally]
) -> None:
    """Run a harmless ``warm_up`` call and then ``attacks`` in one child; tally each attack
    by its outcome. The warm-up loads what the command imports on first use, so that no
    attack's peak memory counts it."""
    with tempfile.TemporaryDirectory() as tmp:
        calls_file, results_file = Path(tmp) / "calls.json", Path(tmp) / "results.jsonl"
        calls = [{"argv": x.argv, "cwd": str(x.cwd), "env": x.env} for x in [warm_up, *attacks]]
        calls_file.write_text(json.dumps(calls), encoding="utf-8")
        results_file.touch()
        timeout = 60 + CALL_DEADLINE_S * len(attacks)
        try:
            subprocess.run(
                [sys.executable, __file__, "--child", str(calls_file), str(results_file)],
                env=env,
                cwd=tmp,
                capture_output=True,
                timeout=timeout,
            )
            died = "crashed"
        except subprocess.TimeoutExpired:
            died = "hung"
        lines = results_file.read_text(encoding="utf-8").splitlines()[1:]
    for i, attack in enumerate(attacks):
        tally = tallies.setdefault((attack.kind, attack.tool), Tally())
        tally.tried += 1
        if i >= len(lines):
            tally.crashed += 1
            tally.notes.append(f"{attack.tool} {attack.note}: {died}")
            continue
        result = json.loads(lines[i])
        tally.rss = max(tally.rss, int(result["peak_mb"] * MiB))
        if result["escaped"]:
            tally.crashed += 1
            tally.notes.append(f"{attack.tool} {attack.note}: {result['escaped'][-200:]!r}")
        elif attack.refused(result) and result["peak_mb"] < MAX_CALL_MB:
            tally.refused += 1
        else:
            tally.bypassed += 1
            said = (result["stderr"] or result["stdout"])[-200:]
            tally.notes.append(f"{attack.tool} {attack.note}: exit {result['code']}, {said!r}")


def child_env() -> dict[str, str]:
    """The children's environment: no keys or Quartet settings of this machine, every
    source at a closed local port, and small budgets for a plan that got through."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROPPED)}
    env |= {f"QUARTET_{s}_URL": DEAD for s in SOURCES}
    env |= {"QUARTET_NETWORK": "allowlist", "QUARTET_ALLOW_HOSTS": "127.0.0.1:9"}
    env |= {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    return env


def main() -> None:
    tallies: dict[tuple[str, str], Tally] = {}
    env = child_env()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus(Path(tmp))
        print("making the hostile inputs…", file=sys.stderr)
        classes = {
            "summaries": corpus.summary_attacks(),
            "plans": corpus.plan_attacks(),
            "settings": corpus.config_attacks(),
        }
        for name, attacks in classes.items():
            print(f"  {name}: {len(attacks)} attacks", file=sys.stderr)
            run_class(corpus.warm_up(name), attacks, env, tallies)
    print_table(tallies, python=False)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
    else:
        main()
