"""Running ``quartet`` as a real subprocess against a demo world served by the test."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from demo.web import DemoWorld, demo_world

ROOT = Path(__file__).resolve().parents[1]


@cache
def shared_cache() -> Path:
    """A folder for the built demo site and inputs, shared by the whole test session (the
    site is built once, not once per test)."""
    folder = Path(tempfile.mkdtemp(prefix="quartet-demo-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def demo_runs_dir(runs: Path) -> Path:
    """``runs`` with the demo site already built (once per test session), as a user's runs
    folder has it after the first demo: a demo run there does not build the site again."""
    with demo_world(shared_cache()):
        pass
    shutil.copytree(shared_cache() / ".demo-cache", runs / ".demo-cache", symlinks=True)
    return runs


def quartet(*args: str) -> list[str]:
    """The command line of ``quartet ARGS`` in this interpreter."""
    return [sys.executable, "-m", "quartet", *args]


def world_env(world: DemoWorld) -> dict[str, str]:
    """The environment that points ``quartet run`` at a demo world, with no keys."""
    return world.run_env(os.environ)


def start_until(
    cmd: list[str], env: dict[str, str], seen: Callable[[str], bool]
) -> subprocess.Popen[str]:
    """Start ``cmd`` and read its progress (stderr) until a line satisfies ``seen``.

    The process keeps running; its stdout is captured. It fails the test when the process
    ends first.
    """
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if seen(line):
            return proc
    proc.kill()
    out, _ = proc.communicate(timeout=60)
    pytest.fail(f"the run ended (exit {proc.returncode}) before the awaited progress: {out[-500:]}")


def read_page(line: str) -> bool:
    """A progress line saying a page was read and stored."""
    return "✓ page read: " in line


def resume_run(runs: Path, run_id: str, env: dict[str, str], inputs: Path | None = None) -> dict:
    """``quartet resume RUN_ID --json [--input INPUTS]`` in a subprocess; its run record
    (exit 0 asserted)."""
    given = ["--input", str(inputs)] if inputs else []
    proc = subprocess.run(
        quartet("resume", run_id, "--runs-dir", str(runs), "--json", *given),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def named_reports(question: str, *formats: str) -> list[str]:
    """The report files a run of ``question`` lists, one per format: named after the
    question (see :func:`research.naming.report_name`)."""
    from research.naming import report_name

    return [f"/workspace/reports/{report_name(question)}.{fmt}" for fmt in formats]


def written_report(run_dir: Path, outputs: list[str], fmt: str = "md") -> Path:
    """Where on disk a run wrote the report in ``fmt`` that its ``outputs`` list."""
    (logical,) = [p for p in outputs if p.endswith(f".{fmt}")]
    return run_dir / logical.lstrip("/")
