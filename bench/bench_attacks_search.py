"""The hostile search and MCP corpus: what gets through the search sources and a served
subagent, on loopback.

    .venv/bin/python bench/bench_attacks_search.py

Classes, several variants each, every one through the real tools against real HTTP
servers on 127.0.0.1 (``tests/attack_search.py``):

- results-page redirect: a Google, Bing or GitHub answer that redirects to an internal
  service (another port of 127.0.0.1, 127.0.0.2, ``localhost``, an IPv6 spelling of
  loopback, a scripted name resolving to 127.0.0.2, the metadata address, or through a
  hop on the engine first);
- wiki API redirect: the same, from the MediaWiki API;
- sogou /link: result links whose "link page" is on an internal service, or the
  engine's own link page redirecting to one;
- bomb on results page: decompression bombs (gzip, gzip inside gzip, brotli, JSON) and
  oversized answers (6 MiB plain, 64 MiB chunked) from each source, and a bomb as a Sogou
  link page;
- MCP huge arguments: ``python -m quartet mcp search`` over stdio, driven by the mcp
  library's client, sent 40 MB arguments past its call cap and within it;
- scrub 200k items: a 200,000-row ``csv_write`` sent to ``python -m quartet mcp file``, a
  refused call holding a 200,000-item list, and one run record of 200,000 strings, with
  three credential variables set.

Every call is judged by its outcome:

- refused: the attack did not get through (the source is unavailable with a reason, or
  gives harmless results; the server answers and keeps nothing);
- bypassed: it did (an internal service saw a request or its text came back, a bomb or
  an oversized answer was accepted, a served subagent kept more than 16 MB after a call,
  scrubbing cost more than 5 s of CPU, or a call's peak memory passed 512 MB);
- crashed/hung: an exception escaped the tool or it did not answer within two minutes.

Peak memory is measured per call: the growth of the resident set of the process that
does the work (this one for the search tools, the server for the MCP calls; the kernel's
high-water mark, reset before each call), and of this process's Python allocations.
Nothing leaves the machine: host names are answered by a script, and a connection to
anything but loopback is refused and counted as a bypass.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import httpcore  # noqa: E402
from agentscope.message import ToolUseBlock  # noqa: E402
from agentscope.tool import Toolkit, ToolResponse  # noqa: E402
from attack_search import (  # noqa: E402
    LEAK,
    REDIRECTS,
    SOGOU_LINKS,
    HostileEngine,
    bombs,
    sogou_results,
)
from attack_tally import MiB, Tally, print_table  # noqa: E402
from attack_web import OUTSIDE, LoopbackOnly, brotli_bomb, encoded, peak_memory  # noqa: E402
from browser_sites import page  # noqa: E402
from browser_support import ScriptedResolver  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.shared.memory import create_connected_server_and_client_session  # noqa: E402

from fs_service import ALL_OPS, DiskFileSystem, FileDomainService  # noqa: E402
from host.mcp.serving import guarded_server  # noqa: E402
from host.orchestration.guards import ToolGuard  # noqa: E402
from subagents import build_toolkit, secrets  # noqa: E402
from subagents.net import netguard  # noqa: E402
from subagents.results import text_of  # noqa: E402
from subagents.search import tools as search_tools  # noqa: E402
from subagents.settings import ToolSettings  # noqa: E402

MEMORY_LIMIT = 512 * MiB
CALL_TIMEOUT = 120.0
#: Most a served subagent may keep after answering one call.
KEPT_LIMIT = 16 * MiB
#: Most CPU time scrubbing one 200,000-item call may cost.
CPU_LIMIT = 5.0
NAMES: dict[str, list[list[str] | None]] = {
    "localhost": [["127.0.0.1"]],
    "internal.test": [["127.0.0.2"]],
}
#: Credential variables set for the scrubbing class (the scrubber masks their values).
CREDENTIALS = {
    "OPENAI_API_KEY": "sk-bench-0123456789abcdef",
    "GITHUB_TOKEN": "ghp_bench0123456789abcdef",
    "SOME_PROXY_TOKEN": "proxy-bench-0123456789",
}
#: What each served call cost the server, printed after the table.
NOTES: list[str] = []
#: A wiki endpoint nothing listens on (the search calls here are all refused).
UNUSED = "http://127.0.0.1:9/unused"


@dataclass
class Outcome:
    """How one call ended: got through or not, the peak memory, a note for the table."""

    through: bool
    rss: int = 0
    python: int = 0
    note: str = ""


Attack = tuple[str, str, Callable[[], Awaitable[Outcome]]]


def _tool(name: str) -> Callable[..., Awaitable[ToolResponse]]:
    return getattr(search_tools, name)


def searching(
    engine: HostileEngine,
    tool: str,
    settings: ToolSettings,
    accepted_is_through: bool = True,
) -> Callable[[], Awaitable[Outcome]]:
    """One search call; through if an internal service was reached or its text came back,
    if a connection left loopback, or (``accepted_is_through``) if it gave results."""

    async def run() -> Outcome:
        reached, outside = engine.reached(), len(OUTSIDE)
        with peak_memory() as peak:
            res = await _tool(tool)("solar", settings=settings)
        through = (
            engine.reached() > reached
            or LEAK in text_of(res)
            or len(OUTSIDE) > outside
            or (accepted_is_through and res.metadata.get("status") == "ok")
        )
        return Outcome(through, peak.rss, peak.python, text_of(res)[:160])

    return run


def search_attacks(engine: HostileEngine) -> list[Attack]:
    targets = {
        **{name: make(engine) for name, make in REDIRECTS.items()},
        "a name resolving to 127.0.0.2": f"http://internal.test:{engine.trap.port}/secret",
        "the metadata address": "http://169.254.169.254/latest/meta-data/",
    }
    attacks: list[Attack] = []
    for tool in ("search_google", "search_bing", "search_github", "search_wiki"):
        kind = "wiki API redirect" if tool == "search_wiki" else "results-page redirect"
        for target in targets.values():
            settings = engine.redirecting(tool, target)
            attacks.append((kind, tool, searching(engine, tool, settings)))
    for name in SOGOU_LINKS:
        settings = engine.sogou_linking(name)
        attacks.append(
            ("sogou /link", "search_sogou", searching(engine, "search_sogou", settings, False))
        )
    hostile = {**bombs(), "brotli, 1.5 KB → 1 GiB": encoded(brotli_bomb(), "br")}
    for tool in ("search_google", "search_bing", "search_github", "search_wiki", "search_sogou"):
        for handler in hostile.values():
            settings = engine.aim(tool, handler)
            attacks.append(("bomb on results page", tool, searching(engine, tool, settings)))
    for name in ("gzip, 1 MB → 1 GiB", "chunked 64 MiB"):
        results = page(sogou_results("/link?url=x"))
        settings = engine.aim("search_sogou", results, hostile[name])
        call = searching(engine, "search_sogou", settings, False)
        attacks.append(("bomb on results page", "search_sogou (link page)", call))
    return attacks


# --- the served subagent ------------------------------------------------------------------


def served_toolkit(name: str, workspace: Path) -> Toolkit:
    """The toolkit ``python -m quartet mcp NAME`` serves (search, or file on ``workspace``)."""
    if name == "search":
        return build_toolkit("search", settings=ToolSettings(endpoints={"wiki": UNUSED}))
    handle = DiskFileSystem(workspace).create_handle([{"prefix": "/workspace/", "ops": ALL_OPS}])
    return build_toolkit("file", service=FileDomainService(handle), settings=ToolSettings())


def guarded(toolkit: Toolkit, name: str, cap: int) -> object:
    """An MCP server of ``toolkit`` behind a guard allowing ``cap`` calls."""
    guard = ToolGuard(name, toolkit, cap=cap)

    async def ready() -> ToolGuard:
        return guard

    return guarded_server(ready, name)


def huge_query(i: int) -> dict:
    return {"query": f"{i} " + "solar " * (40 * MiB // 6)}


def many_rows(i: int) -> dict:
    rows = [[f"row {i}.{j}", CREDENTIALS["OPENAI_API_KEY"], str(j)] for j in range(200_000)]
    return {"path": f"/workspace/rows{i}.csv", "rows": rows}


async def served_call(
    client: ClientSession,
    tool: str,
    arguments: Callable[[int], dict],
    i: int,
    want_error: bool,
    label: str,
) -> Outcome:
    """One call to a served subagent, its arguments made afresh (as if decoded from JSON):
    through if the process holds more after it than before, or if it ended unexpectedly."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    with peak_memory() as peak:
        result = await client.call_tool(tool, arguments(i))
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - before
    note = f"{label}: kept {kept / MiB:.1f} MB, isError={result.isError}"
    NOTES.append(note)
    through = kept > KEPT_LIMIT or bool(result.isError) != want_error
    return Outcome(through, peak.rss, peak.python, note)


async def mcp_attacks(tallies: dict[tuple[str, str], Tally], workspace: Path) -> None:
    """Huge calls to the MCP server of a subagent, past its call cap and within it."""
    cases = [
        ("search", "search_wiki", huge_query, 0, "search_wiki 40 MB (past the cap)", 4),
        ("search", "search_wiki", huge_query, 100, "search_wiki 40 MB (within the cap)", 4),
        ("file", "csv_write", many_rows, 0, "csv_write 200k rows (past the cap)", 2),
        ("file", "csv_write", many_rows, 100, "csv_write 200k rows (within the cap)", 2),
    ]
    tracemalloc.start()
    try:
        for subagent, tool, arguments, cap, label, calls in cases:
            want_error = cap == 0 or tool == "search_wiki"  # a 40 MB query is an Error too
            server = guarded(served_toolkit(subagent, workspace), subagent, cap)
            async with create_connected_server_and_client_session(server) as client:
                # The mcp library holds on to the last message or two it passed: two
                # calls first, so that what is measured is what each call adds.
                for i in (-2, -1):
                    await client.call_tool(tool, arguments(i))
                for i in range(calls):
                    call = functools.partial(
                        served_call, client, tool, arguments, i, want_error, label
                    )
                    await record(tallies, ("MCP huge arguments", f"mcp {label}"), call)
    finally:
        tracemalloc.stop()


async def echo(text: str, rows: list) -> ToolResponse:
    """Echo sizes.

    Args:
        text (str): Any text.
        rows (list): Any rows.
    """
    return ToolResponse(content=[])


async def scrub_attacks(tallies: dict[tuple[str, str], Tally], workspace: Path) -> None:
    items = [f"item {i} {CREDENTIALS['GITHUB_TOKEN']}" for i in range(200_000)]
    rows = [[f"row {i}", CREDENTIALS["OPENAI_API_KEY"], str(i)] for i in range(200_000)]
    files = served_toolkit("file", workspace)
    files_guard = ToolGuard("file", files, cap=1000)

    async def csv_write_run() -> Outcome:
        block = ToolUseBlock(
            type="tool_use",
            id="w",
            name="csv_write",
            input={"path": "/workspace/rows.csv", "rows": rows},
        )
        cpu = time.process_time()
        with peak_memory() as peak:
            async for _ in await files.call_tool_function(block):
                pass
        spent = time.process_time() - cpu
        last = files_guard.records[-1]
        note = f"csv_write: {spent:.2f} s CPU, {last.status}, record {len(str(last.input))} chars"
        through = (
            spent > CPU_LIMIT or last.failed or CREDENTIALS["OPENAI_API_KEY"] in str(last.input)
        )
        return Outcome(through, peak.rss, peak.python, note)

    async def refused_call() -> Outcome:
        toolkit = Toolkit()
        toolkit.register_tool_function(echo)
        guard = ToolGuard("file", toolkit, cap=0)
        block = ToolUseBlock(
            type="tool_use", id="x", name="echo", input={"text": "t", "rows": items}
        )
        cpu = time.process_time()
        with peak_memory() as peak:
            async for _ in await toolkit.call_tool_function(block):
                pass
        spent = time.process_time() - cpu
        kept = len(str(guard.records[0].input))
        note = f"refused call: {spent:.2f} s CPU, record of {kept} characters"
        return Outcome(spent > CPU_LIMIT or kept > 64 * 1024, peak.rss, peak.python, note)

    async def run_record() -> Outcome:
        cpu = time.process_time()
        with peak_memory() as peak:
            scrubbed = secrets.scrub_data({"calls": items})
        spent = time.process_time() - cpu
        leaked = any(CREDENTIALS["GITHUB_TOKEN"] in s for s in scrubbed["calls"])  # type: ignore[index]
        note = f"run record: {spent:.2f} s CPU"
        return Outcome(spent > CPU_LIMIT or leaked, peak.rss, peak.python, note)

    with mock.patch.dict(os.environ, CREDENTIALS):
        for _ in range(2):
            await record(tallies, ("scrub 200k items", "ToolGuard (csv_write run)"), csv_write_run)
            await record(tallies, ("scrub 200k items", "ToolGuard (refused call)"), refused_call)
            await record(tallies, ("scrub 200k items", "scrub_data (run record)"), run_record)


async def record(
    tallies: dict[tuple[str, str], Tally],
    key: tuple[str, str],
    call: Callable[[], Awaitable[Outcome]],
) -> None:
    """Run one attack and count how it ended in its tally."""
    tally = tallies.setdefault(key, Tally())
    tally.tried += 1
    try:
        outcome = await asyncio.wait_for(call(), CALL_TIMEOUT)
    except Exception as exc:  # an escaped exception or a hang is what is counted
        tally.crashed += 1
        tally.notes.append(f"{key[1]}: {type(exc).__name__}: {exc}"[:200])
        return
    tally.rss, tally.python = max(tally.rss, outcome.rss), max(tally.python, outcome.python)
    if outcome.through or outcome.rss > MEMORY_LIMIT or outcome.python > MEMORY_LIMIT:
        tally.bypassed += 1
        tally.notes.append(f"{key[1]}: {outcome.note!r}")
    else:
        tally.refused += 1


async def main() -> None:
    print("building the bombs (a few seconds)…", file=sys.stderr)
    tallies: dict[tuple[str, str], Tally] = {}
    with HostileEngine() as engine, tempfile.TemporaryDirectory() as tmp:
        for kind, tool, call in search_attacks(engine):
            await record(tallies, (kind, tool), call)
        await mcp_attacks(tallies, Path(tmp))
        await scrub_attacks(tallies, Path(tmp))
        reached = engine.reached()
    print_table(tallies)
    print(
        f"\ninternal service requests and connections: {reached}; connection attempts "
        f"outside loopback: {len(OUTSIDE)}"
    )
    print("what each MCP call left behind:")
    for note in NOTES:
        print(f"  {note}")


if __name__ == "__main__":
    with (
        mock.patch.object(httpcore, "AnyIOBackend", LoopbackOnly),
        mock.patch.object(netguard, "resolve", ScriptedResolver(NAMES)),
        contextlib.suppress(KeyboardInterrupt),
    ):
        asyncio.run(main())
