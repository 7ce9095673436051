"""One tool call in a child process: its outcome, result size, time and peak memory.

A call that hangs, crashes or runs out of memory must not take the test run (or the
benchmark) with it, so it runs in a child with a memory ceiling and a deadline. The child
builds the subagent's toolkit (no browser, no model) over a disk service (``/workspace/``
read-write under ``root``, ``input`` read-only as ``/userinput/``), resets the kernel's
peak-RSS mark,
makes the call and reports the peak growth of its resident memory during the call.

Parent side: ``probe("file", "csv_read", {"path": "/userinput/a.csv"}, root, input_dir)``.
Child side: ``python tests/tool_probe.py SPEC_JSON``.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Ceiling on the child's data segment: a runaway call fails with MemoryError instead of
#: exhausting the machine.
DATA_LIMIT_BYTES = 3 * 1024**3


def _kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))  # type: ignore[union-attr]


def _reset_peak() -> None:
    """Reset VmHWM (the peak resident set) to the current resident set (Linux ≥ 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


async def _call(spec: dict[str, Any]) -> dict[str, Any]:
    from agentscope.message import ToolUseBlock

    from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService
    from subagents import build_toolkit, get_spec
    from subagents.evidence import EvidenceLedger
    from subagents.results import text_of

    mounts = {"/userinput/": spec["input"]} if spec.get("input") else {}
    fs = DiskFileSystem(spec["root"], mounts=mounts)
    deps: dict[str, Any] = {"evidence": EvidenceLedger(), "model": None, "browser": None}
    if spec.get("areas"):
        # the grants of a run: pages, downloads and screenshots written by their tools only
        from host.durability.run_folder import area_services, subagent_grants

        grants = subagent_grants(None, userinput=bool(mounts))
        deps["areas"] = area_services(fs, userinput=bool(mounts))
    else:
        grants = [{"prefix": "/workspace/", "ops": set(ALL_OPS)}]
        if mounts:
            grants.append({"prefix": "/userinput/", "ops": set(READ_OPS)})
    deps["service"] = FileDomainService(fs.create_handle(grants))
    wanted = get_spec(spec["subagent"]).requires
    toolkit = build_toolkit(
        spec["subagent"],
        **{k: v for k, v in deps.items() if k in wanted or k == "areas"},
    )
    call = ToolUseBlock(type="tool_use", id="probe", name=spec["tool"], input=spec["args"])
    _reset_peak()
    before = _kib("VmRSS")
    started = time.perf_counter()
    last = None
    async for chunk in await toolkit.call_tool_function(call):
        last = chunk
    seconds = time.perf_counter() - started
    peak = _kib("VmHWM") - before
    text = text_of(last) if last is not None else ""
    return {
        "status": (last.metadata or {}).get("status", "none") if last is not None else "none",
        "chars": len(text),
        "text": text[:4000],
        "seconds": round(seconds, 3),
        "peak_mb": round(peak / 1024, 1),
    }


def probe(
    subagent: str,
    tool: str,
    args: dict[str, Any],
    root: Path,
    input_dir: Path | None = None,
    timeout: float = 300,
    areas: bool = False,
) -> dict[str, Any]:
    """Run one tool call in a child; ``outcome`` is ``done``, ``hung`` or ``crashed``.

    With ``areas`` the service has a run's grants (stored pages, downloads and
    screenshots written only by the tool that makes them); else ``/workspace/`` is
    read-write for every tool.
    """
    spec = {
        "subagent": subagent,
        "tool": tool,
        "args": args,
        "root": str(root),
        "input": str(input_dir) if input_dir else None,
        "areas": areas,
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    try:
        proc = subprocess.run(
            [sys.executable, __file__, json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=str(ROOT),
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "hung", "seconds": timeout}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"outcome": "crashed", "stderr": proc.stderr[-2000:], "code": proc.returncode}
    return {"outcome": "done", **json.loads(lines[-1])}


def main() -> None:
    import asyncio

    resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT_BYTES, DATA_LIMIT_BYTES))
    spec = json.loads(sys.argv[1])
    result = asyncio.run(_call(spec))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
