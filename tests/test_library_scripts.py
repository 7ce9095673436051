"""A library user's script never runs again in the page-extraction worker processes:
one without ``if __name__ == "__main__":`` gets its pages extracted in threads and one
warning saying what to add (the worker processes themselves are tested under pytest,
whose script has the guard, in test_browser_speed.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from subagents.browser.workers import _has_main_guard

ROOT = Path(__file__).resolve().parent.parent

WORK = """
async def extract_pages():
    import asyncio
    from subagents.browser import workers

    body = "<p>" + "Locks raise boats over the summit of the canal. " * 40 + "</p>"
    pages = [f"<html><body><article><h1>Page {i}</h1>{body}</article></body></html>"
             for i in range(6)]
    done = await asyncio.gather(
        *(workers.extract_html(page, f"http://127.0.0.1/{i}") for i, page in enumerate(pages))
    )
    print(sum("summit" in page.markdown for page in done), workers._pool is not None)
"""

COUNT = """
import os, sys
with open(sys.argv[1], "a") as counter:
    counter.write(f"{os.getpid()}\\n")
"""

UNGUARDED = f"{WORK}\nimport asyncio\n{COUNT}\nasyncio.run(extract_pages())\n"
GUARDED = f"""{WORK}
if __name__ == "__main__":
    import asyncio
{"".join("    " + line + chr(10) for line in COUNT.strip().splitlines())}
    asyncio.run(extract_pages())
"""


def run_script(tmp_path: Path, source: str) -> tuple[list[str], str, str]:
    """Run ``source`` as a script; the lines it counted, its stdout and its stderr."""
    script, counter = tmp_path / "canal_study.py", tmp_path / "runs.txt"
    script.write_text(source, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, str(script), str(counter)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return counter.read_text().splitlines(), proc.stdout, proc.stderr


def test_a_script_without_the_guard_runs_once_and_is_told_what_to_add(tmp_path):
    runs, out, err = run_script(tmp_path, UNGUARDED)
    assert len(runs) == 1  # no worker process ran the script again
    assert out.split() == ["6", "False"]  # every page extracted, in threads
    assert err.count("has no 'if __name__ == \"__main__\":' guard") == 1, err
    assert "Put the script's top-level work under that guard" in err


def test_only_a_top_level_main_guard_counts():
    assert _has_main_guard(GUARDED)
    assert _has_main_guard("if '__main__' == __name__:\n    run()\n")
    assert not _has_main_guard(UNGUARDED)
    assert not _has_main_guard("def f():\n    if __name__ == '__main__':\n        run()\n")
    assert not _has_main_guard("if __name__ == '__mp_main__':\n    run()\n")
