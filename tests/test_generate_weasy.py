"""weasyprint is imported without asking the system to search for its libraries."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COUNT_PROCESSES = textwrap.dedent(
    """
    import ctypes.util, json, subprocess, sys
    started = []
    opening = subprocess.Popen.__init__
    def counted(self, *args, **kwargs):
        started.append(args[0] if args else kwargs.get("args"))
        return opening(self, *args, **kwargs)
    subprocess.Popen.__init__ = counted
    searching = ctypes.util.find_library
    if sys.argv[1] == "weasy":
        from subagents.generate.weasy import weasyprint
        module = weasyprint()
    else:
        import weasyprint as module
    pdf = module.HTML(string="<p>Hello</p>").write_pdf()
    print(json.dumps({
        "processes": len(started),
        "restored": ctypes.util.find_library is searching,
        "pdf": pdf[:5].decode(),
    }))
    """
)


def _import(how: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", COUNT_PROCESSES, how],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_weasyprint_is_imported_without_starting_a_process_and_still_renders():
    plain, quiet = _import("plain"), _import("weasy")
    assert plain["pdf"] == quiet["pdf"] == "%PDF-"
    assert quiet["processes"] == 0 and quiet["restored"]
    # what it saves: a plain import searches for the libraries it cannot open by name
    assert plain["processes"] > 0
