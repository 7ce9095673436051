"""Research on the bundled demo: wall time, pages read, rounds and evidence per part.

Runs ``python -m quartet demo --json`` in a child process for the English and the Chinese
demo questions (and an off-topic one), and prints, per run: the wall time of the whole
command, pages read, tasks, research rounds, and for each sub-question its status, the
evidence items and the distinct sources behind them.

    .venv/bin/python bench/bench_research.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from demo.site import DEMO_QUESTION, DEMO_QUESTION_ZH  # noqa: E402

QUESTIONS = {
    "demo (en)": DEMO_QUESTION,
    "demo (zh)": DEMO_QUESTION_ZH,
    "off-topic": "How do heat pumps work?",
}


def run_once(question: str, runs: Path) -> tuple[float, int, dict]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "quartet", "demo", "--question", question, "--json",
         "--runs-dir", str(runs)],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 3):
        raise SystemExit(f"demo failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return seconds, proc.returncode, json.loads(proc.stdout)


def evidence_by_part(record: dict) -> list[tuple[str, str, int, int]]:
    """(id, status, evidence items, distinct sources) per sub-question, from the last round."""
    last: dict[str, dict] = {}
    for step in record["plan"]["rounds"]:
        last[step["subquestion"]] = step
    out = []
    for sub in record["plan"]["subquestions"]:
        step = last.get(sub["id"], {})
        out.append((sub["id"], sub["status"], step.get("evidence", 0), step.get("sources", 0)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp)
        run_once(DEMO_QUESTION, runs)  # builds the demo cache; not measured
        print(f"{'question':<11} {'wall s':>7} {'exit':>4} {'pages':>5} {'tasks':>5} "
              f"{'rounds':>6}  evidence per sub-question (items/sources)")  # fmt: skip
        for name, question in QUESTIONS.items():
            for _ in range(args.repeat):
                seconds, code, record = run_once(question, runs)
                rounds = max((s["round"] for s in record["plan"]["rounds"]), default=0)
                parts = "  ".join(
                    f"{sid} {status[:8]} {items}/{sources}"
                    for sid, status, items, sources in evidence_by_part(record)
                )
                print(
                    f"{name:<11} {seconds:>7.1f} {code:>4} {record['pages_read']:>5} "
                    f"{len(record['delegations']):>5} {rounds:>6}  {parts}"
                )


if __name__ == "__main__":
    main()
