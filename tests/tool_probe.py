"""One tool call in a child process: its outcome, result size, time and peak memory.

A call that hangs, crashes or runs out of memory must not take the test run (or the
benchmark) with it, so it runs in a child with a memory ceiling and a deadline. The child
builds the subagent's toolkit (no browser, no model) over a disk service (``/workspace/``
read-write under ``root``, ``input`` read-only as ``/userinput/``), resets the kernel's
peak-RSS mark,
makes the call and reports the peak growth of its resident memory during the call.

Parent side: ``probe("file", "csv_read", {"path": "/userinput/a.csv"}, root, input_dir)``.
Child side: ``python tests/tool_probe.py SPEC_JSON``.

The children are forked from a zygote, ``python tests/tool_probe.py --zygote``, that has
imported the toolkits once: a child then starts in a fraction of a second instead of
importing them again. The zygote is started with the caller's environment and replaced
when that changes (but for pytest's note of the current test, which a child is given as
it is), so a child sees what a fresh process would.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from contextlib import suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Ceiling on the child's data segment: a runaway call fails with MemoryError instead of
#: exhausting the machine.
DATA_LIMIT_BYTES = 3 * 1024**3
#: How long a zygote may take to import a subagent's toolkit and fork a child.
START_TIMEOUT = 300.0


def _kib(field: str) -> int:
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1))  # type: ignore[union-attr]


def _reset_peak() -> None:
    """Reset VmHWM (the peak resident set) to the current resident set (Linux ≥ 4.0)."""
    Path("/proc/self/clear_refs").write_text("5")


def _toolkit(spec: dict[str, Any]) -> Any:
    """The toolkit of ``spec``'s subagent over a disk service rooted at ``spec["root"]``."""
    from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService
    from subagents import build_toolkit, get_spec
    from subagents.evidence import EvidenceLedger

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
    return build_toolkit(
        spec["subagent"],
        **{k: v for k, v in deps.items() if k in wanted or k == "areas"},
    )


async def _call(spec: dict[str, Any]) -> dict[str, Any]:
    from agentscope.message import ToolUseBlock

    from subagents.results import text_of

    toolkit = _toolkit(spec)
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
    with _LOCK, tempfile.TemporaryDirectory(prefix="tool-probe-") as folder:
        out, err = Path(folder) / "out.json", Path(folder) / "err.txt"
        code = _zygote(env).run(
            {"spec": spec, "env": env, "out": str(out), "err": str(err)}, timeout
        )
        if code is None:
            return {"outcome": "hung", "seconds": timeout}
        lines = out.read_text(encoding="utf-8").strip().splitlines() if out.exists() else []
        if code != 0 or not lines:
            stderr = err.read_text(encoding="utf-8", errors="replace") if err.exists() else ""
            return {"outcome": "crashed", "stderr": stderr[-2000:], "code": code}
        return {"outcome": "done", **json.loads(lines[-1])}


class _Zygote:
    """``tool_probe.py --zygote``: forks one child per request; tells its pid, then how it
    ended (as ``subprocess`` gives a return code)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = _lasting(env)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=str(ROOT),
        )
        self.pending = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, request: dict[str, Any], timeout: float) -> int | None:
        """The return code of the child that ran ``request``, or None when it was killed
        at ``timeout``."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            pid = self._reply(START_TIMEOUT)["pid"]
            try:
                return self._reply(timeout)["code"]
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                self._reply(60)
                return None
        except BaseException:
            self.proc.kill()  # out of step with its replies: the next probe starts another
            self.proc.wait()
            raise

    def _reply(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("the tool probe's zygote ended")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def close(self) -> None:
        if self.alive():
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_LOCK = threading.Lock()
_ZYGOTES: list[_Zygote] = []


def _zygote(env: dict[str, str]) -> _Zygote:
    """The zygote for ``env``: the running one, or a new one if it ended or its
    environment is not ``env`` any more."""
    if _ZYGOTES and (_ZYGOTES[0].env != _lasting(env) or not _ZYGOTES[0].alive()):
        _ZYGOTES.pop().close()
    if not _ZYGOTES:
        _ZYGOTES.append(_Zygote(env))
    return _ZYGOTES[0]


def _lasting(env: dict[str, str]) -> dict[str, str]:
    """``env`` without the variable pytest changes for every test."""
    return {k: v for k, v in env.items() if k != "PYTEST_CURRENT_TEST"}


@atexit.register
def _close_zygote() -> None:
    while _ZYGOTES:
        _ZYGOTES.pop().close()


def zygote() -> None:
    """Fork a child for each request read from stdin, once the zygote has built the
    subagent's toolkit itself (which imports what the child's call needs)."""
    import asyncio

    built: set[str] = set()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        subagent = request["spec"]["subagent"]
        if subagent not in built:
            built.add(subagent)
            # a toolkit that cannot be built here is built (and fails) in the child
            with tempfile.TemporaryDirectory(prefix="tool-probe-") as scratch, suppress(Exception):
                _toolkit({"subagent": subagent, "root": scratch, "areas": True})
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                log = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                os.dup2(log, 1)  # stdout is the zygote's line to the parent
                os.dup2(log, 2)
                os.environ.clear()
                os.environ.update(request["env"])
                resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT_BYTES, DATA_LIMIT_BYTES))
                result = asyncio.run(_call(request["spec"]))
                Path(request["out"]).write_text(json.dumps(result, ensure_ascii=False))
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stderr.flush()
                os._exit(code)
        _tell({"pid": pid})
        _, status = os.waitpid(pid, 0)
        _tell({"code": os.waitstatus_to_exitcode(status)})


def _tell(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


def main() -> None:
    import asyncio

    resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT_BYTES, DATA_LIMIT_BYTES))
    spec = json.loads(sys.argv[1])
    result = asyncio.run(_call(spec))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    if sys.argv[1:] == ["--zygote"]:
        zygote()
    else:
        main()
