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
