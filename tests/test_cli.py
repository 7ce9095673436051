"""The command line as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from host.cli import main
from subagents import PIPELINE_ORDER, SPECS, all_tool_schemas

ROOT = Path(__file__).resolve().parent.parent


def test_tools_json_prints_the_builders_schemas():
    out = subprocess.run(
        [sys.executable, "-m", "host", "tools", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    printed = json.loads(out.stdout)
    assert printed == all_tool_schemas()
    assert list(printed) == [n for n in PIPELINE_ORDER if n in SPECS]


def test_tools_text_lists_every_subagent(capsys):
    assert main(["tools"]) == 0
    out = capsys.readouterr().out
    for name in PIPELINE_ORDER:
        assert f"{name}:" in out


def test_console_script_is_the_same_as_python_m_host():
    script = Path(sys.executable).parent / "quartet"
    assert script.exists()
    a = subprocess.run(
        [str(script), "tools", "--json"], capture_output=True, text=True, timeout=120, check=True
    )
    b = subprocess.run(
        [sys.executable, "-m", "host", "tools", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert a.stdout == b.stdout


def test_bad_arguments_exit_2_with_usage():
    proc = subprocess.run(
        [sys.executable, "-m", "host", "fly"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def _run_cli(
    args: list[str], env_extra: dict[str, str] | None = None, timeout: int = 300
) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "host", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_demo_command_runs_the_pipeline_and_prints_a_json_record(tmp_path):
    proc = _run_cli(["demo", "--json", "--formats", "md,html", "--runs-dir", str(tmp_path)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    record = json.loads(proc.stdout)
    assert record["outputs"] == ["/workspace/reports/report.md", "/workspace/reports/report.html"]
    assert record["errors"] == [] and record["citations"] >= 1
    run_dir = tmp_path / record["id"]
    assert (run_dir / "workspace/reports/report.html").stat().st_size > 1000
    assert (run_dir / "internal/run.json").exists()


def test_run_reports_and_skips_unreachable_sources(tmp_path):
    closed = "http://127.0.0.1:9"
    env = {f"QUARTET_{s}_URL": closed for s in ("GOOGLE", "BING", "SOGOU", "GITHUB", "WIKI")}
    env["QUARTET_SEARCH_TIMEOUT"] = "2"
    proc = _run_cli(
        [
            "run",
            "What is the Grand Canal?",
            "--formats",
            "md",
            "--json",
            "--runs-dir",
            str(tmp_path),
        ],
        env,
    )
    # Every source is down, so nothing is found: a report that says so, and exit 3.
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "answers none" in proc.stderr
    record = json.loads(proc.stdout)
    searches = [d for d in record["delegations"] if d["subagent"] == "search"]
    assert searches and all(d["status"] == "ok" for d in searches)
    calls = [c for c in record["tool_calls"] if c["tool"].startswith("search_")]
    assert len(calls) >= 5 and not any(c["ok"] for c in calls)
    assert record["outputs"] == ["/workspace/reports/report.md"] and record["citations"] == 0


def test_bad_arguments_get_clear_errors(tmp_path):
    cases = [
        (["run", "q", "--formats", "md,docx"], "unknown docx"),
        (["run", "q", "--model", "gpt-4"], "PROVIDER:NAME"),
        (["run", "q", "--input", str(tmp_path / "missing")], "is not a folder"),
        (["run", "   "], "the question is empty"),
        (["run", "q", "--model", "openai:gpt-4o-mini"], "OPENAI_API_KEY"),
    ]
    for args, message in cases:
        proc = _run_cli([*args, "--runs-dir", str(tmp_path)], {"OPENAI_API_KEY": ""})
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())  # nothing was started
