"""What a call costs the Host after it is answered: bounded records, one scrub of the
environment per scrubbed object, and nothing kept by a served subagent.

A hostile MCP client sends calls with 40 MB arguments, past the call cap or not; a model
sends a 200,000-item list. Neither may leave its arguments in memory, and scrubbing them
must not read the environment once per string.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

from agentscope.message import ToolUseBlock
from agentscope.tool import Toolkit, ToolResponse
from mcp.shared.memory import create_connected_server_and_client_session

from host.mcp.serving import guarded_server
from host.orchestration.guards import RECORD_HEAD_CHARS, ToolGuard, bounded_input
from subagents import build_toolkit, secrets
from subagents.secrets import scrub_data
from subagents.settings import ToolSettings

MiB = 1024 * 1024
HUGE = "solar " * (40 * MiB // 6)
KEY = "sk-test-Key0123456789abcdefXYZ"


def guarded(toolkit: Toolkit, name: str, cap: int) -> object:
    """An MCP server of ``toolkit`` behind a guard allowing ``cap`` calls."""
    guard = ToolGuard(name, toolkit, cap=cap)

    async def ready() -> ToolGuard:
        return guard

    return guarded_server(ready, name)


async def echo(text: str, rows: list) -> ToolResponse:
    """Echo the size of what it was given.

    Args:
        text (str): Any text.
        rows (list): Any rows.
    """
    from agentscope.message import TextBlock

    return ToolResponse(content=[TextBlock(type="text", text=f"{len(text)} {len(rows)}")])


async def _call(toolkit: Toolkit, call_id: str, **args: object) -> None:
    block = ToolUseBlock(type="tool_use", id=call_id, name="echo", input=args)
    async for _ in await toolkit.call_tool_function(block):
        pass


async def test_records_keep_small_arguments_whole_and_a_summary_of_huge_ones(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    toolkit = Toolkit()
    toolkit.register_tool_function(echo)
    guard = ToolGuard("file", toolkit, cap=1)
    await _call(toolkit, "small", text="a short text", rows=[["a", 1], ["b", 2]])
    assert guard.records[0].input == {"text": "a short text", "rows": [["a", 1], ["b", 2]]}
    straddling = "x" * (RECORD_HEAD_CHARS - 10) + KEY + HUGE  # the key crosses the cut
    await _call(toolkit, "huge", text=straddling, rows=[["cell"]] * 200_000)
    refused = guard.records[1]
    assert refused.refused
    assert len(json.dumps(refused.input)) < 1000
    assert refused.input["text"].endswith(f"… [{len(straddling):,} characters, not kept]")
    assert KEY[:8] not in refused.input["text"] and "***" in refused.input["text"]
    assert refused.input["rows"] == "[a list of 200,000 items, too large to keep]"


def test_bounded_input_keeps_values_while_they_fit_and_few_arguments():
    kept = bounded_input({"a": "x" * 20_000, "b": "y" * 20_000, "c": [[[1]]]})
    assert kept["a"] == "x" * 20_000 and kept["c"] == [[[1]]]
    assert kept["b"].endswith("[20,000 characters, not kept]")
    deep: list = []
    for _ in range(100):
        deep = [deep]
    assert bounded_input({"deep": deep})["deep"] == "[a list of 1 items, too large to keep]"
    many = bounded_input({f"k{i}": i for i in range(10_000)})
    assert len(many) == 33 and many["…"] == "[9,968 more arguments, not kept]"


def test_scrubbing_a_long_list_reads_the_environment_once(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    reads = []
    real = secrets.secret_values
    monkeypatch.setattr(secrets, "secret_values", lambda *a: reads.append(1) or real(*a))
    data = {"rows": [f"row {i} {KEY}" for i in range(200_000)]}
    scrubbed = scrub_data(data)
    assert len(reads) == 1
    assert scrubbed["rows"][7] == "row 7 ***" and len(scrubbed["rows"]) == 200_000


async def test_a_served_subagent_keeps_nothing_of_huge_calls():
    settings = ToolSettings(endpoints={"wiki": "http://127.0.0.1:9/unused"})
    for cap in (0, 10):  # every call refused by the cap; every call run (and refused by the tool)
        server = guarded(build_toolkit("search", settings=settings), "search", cap)
        async with create_connected_server_and_client_session(server) as client:

            async def huge_call(i: int) -> None:  # a fresh string each time, as from JSON
                result = await client.call_tool("search_wiki", {"query": f"{i}{HUGE}"})
                assert result.isError

            tracemalloc.start()
            try:
                await huge_call(0)  # the client keeps its last request: measure from here
                gc.collect()
                start, _ = tracemalloc.get_traced_memory()
                for i in range(1, 4):
                    await huge_call(i)
                gc.collect()
                grown = tracemalloc.get_traced_memory()[0] - start
            finally:
                tracemalloc.stop()
        assert grown < 16 * MiB, f"cap {cap}: {grown / MiB:.0f} MiB more after 3 calls"
