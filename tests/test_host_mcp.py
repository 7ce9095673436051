"""MCP both ways, with real server processes over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from agentscope.mcp import StdIOStatefulClient
from agentscope.message import ToolUseBlock
from agentscope.tool import Toolkit
from cli_support import named_reports, shared_cache
from search_support import CORPUS

import schemas
from demo.search_web import SearchWeb
from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import ConfigError, McpServerConfig, Settings, load_settings
from host.mcp.client import attach_mcp_tools
from host.orchestration.hub import Host
from subagents import SPECS
from subagents.results import text_of

ROOT = Path(__file__).resolve().parent.parent


def served(
    subagent: str, workspace: Path, env: dict[str, str] | None = None, input_dir: Path | None = None
) -> StdIOStatefulClient:
    args = ["-m", "quartet", "mcp", subagent, "--workspace", str(workspace)]
    if input_dir is not None:
        args += ["--input", str(input_dir)]
    return StdIOStatefulClient(
        name=f"quartet-{subagent}",
        command=sys.executable,
        args=args,
        env={**os.environ, **(env or {})},
        cwd=str(ROOT),
    )


async def call(client: StdIOStatefulClient, name: str, **args) -> str:
    fn = await client.get_callable_function(name, wrap_tool_result=True)
    return text_of(await fn(**args))


async def test_the_file_toolkit_served_over_mcp_keeps_its_schemas_and_grants(tmp_path):
    inp = tmp_path / "input"
    inp.mkdir()
    (inp / "q.txt").write_text("第一行 line one\n", encoding="utf-8")
    client = served("file", tmp_path / "ws", input_dir=inp)
    await client.connect()
    try:
        tools = {t.name: t for t in await client.list_tools()}
        assert sorted(tools) == sorted(SPECS["file"].allowlist())
        canonical = schemas.load("file")
        for name, tool in tools.items():
            assert tool.inputSchema == canonical[name]["function"]["parameters"]
        wrote = await call(client, "write_file", path="/workspace/a.md", content="hello 你好")
        assert wrote.startswith("Created /workspace/a.md")
        assert (tmp_path / "ws" / "a.md").read_text(encoding="utf-8") == "hello 你好"
        assert "第一行" in await call(client, "read_text_file", path="/userinput/q.txt")
        refused = await call(client, "write_file", path="/userinput/x.txt", content="no")
        assert refused.startswith("Error") and not (inp / "x.txt").exists()
    finally:
        await client.close()


async def test_only_allowlisted_tools_of_an_external_server_are_attached(tmp_path):
    with SearchWeb(CORPUS) as web:
        client = served("search", tmp_path, env=web.env())
        await client.connect()
        try:
            toolkit = Toolkit()
            added = await attach_mcp_tools(toolkit, client, ["search_wiki"])
            assert added == ["search_wiki"] and list(toolkit.tools) == ["search_wiki"]
            call_block = ToolUseBlock(
                type="tool_use", id="1", name="search_wiki", input={"query": CORPUS[0].title}
            )
            chunks = [c async for c in await toolkit.call_tool_function(call_block)]
            assert CORPUS[0].url in text_of(chunks[-1])
            with pytest.raises(ValueError, match="does not offer search_yahoo"):
                await attach_mcp_tools(Toolkit(), client, ["search_yahoo"])
            with pytest.raises(ValueError, match="would replace built-in tools"):
                await attach_mcp_tools(toolkit, client, ["search_wiki"])
        finally:
            await client.close()


def test_mcp_entries_in_quartet_toml_are_validated(tmp_path):
    toml = tmp_path / "quartet.toml"
    toml.write_text(
        '[[quartet.mcp]]\nsubagent = "file"\nname = "x"\ntools = ["a"]\ncommand = "python"\n',
        encoding="utf-8",
    )
    settings = load_settings({}, toml)
    assert settings.mcp_servers == [McpServerConfig("file", "x", ("a",), command="python")]
    toml.write_text(
        '[[quartet.mcp]]\nsubagent = "file"\nname = "x"\ntools = ["a"]\n', encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="exactly one of 'command', 'url'"):
        load_settings({}, toml)


def scratch_file_server(subagent: str, workspace: Path) -> McpServerConfig:
    """The file toolkit served over stdio, offering its csv_write to ``subagent``."""
    return McpServerConfig(
        subagent=subagent,
        name="scratch",
        tools=("csv_write",),
        command=sys.executable,
        args=("-m", "quartet", "mcp", "file", "--workspace", str(workspace)),
    )


def test_a_run_attaches_allowlisted_mcp_tools_and_closes_their_server(tmp_path):
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True)
    settings.mcp_servers = [scratch_file_server("file", tmp_path / "scratch")]
    # the built-in file toolkit already has csv_write: attaching it must be refused
    with demo_world(shared_cache()) as world:
        question, env_settings = world.question, demo_settings(settings, world)
        host = Host(env_settings, make_brain("offline"))
        with pytest.raises(ValueError, match="would replace built-in tools"):
            asyncio.run(host.run(question))
    assert not host.mcp.clients  # refused before any server was started

    settings.mcp_servers = [scratch_file_server("generate", tmp_path / "scratch")]
    with demo_world(shared_cache()) as world:
        question, env_settings = world.question, demo_settings(settings, world)
        host = Host(env_settings, make_brain("offline"))
        result = asyncio.run(host.run(question))
    assert host.mcp.tools == {"generate": ["csv_write"]}
    assert result.outputs == named_reports(question, "md")
    assert all(d.status == "ok" for d in result.delegations)
    client = host.mcp.clients["generate"][0][0]
    assert not client.is_connected
    run = json.loads(result.run.real_path("/internal/run.json").read_text())
    assert run["errors"] == []
