"""MCP both ways: allowlisted tools of external MCP servers for a subagent, and a
subagent's own toolkit served as an MCP server.

An external server is declared in ``quartet.toml``::

    [[quartet.mcp]]
    subagent = "search"                 # whose toolkit gets the tools
    name = "papers"                     # a label for progress and errors
    command = "python"                  # a stdio server ...
    args = ["-m", "papers_mcp"]
    # url = "http://127.0.0.1:8000/mcp" # ... or a streamable-HTTP one
    tools = ["search_papers"]           # exactly these tools are enabled

Only the listed tool names are registered; a name the server does not offer is an error.
The Host's guards (call cap, argument hygiene, eviction) apply to these tools too.

This module is imported when settings are read, so agentscope and the tools are imported
only inside the functions that need them. A served subagent answers ``initialize`` before
its toolkit is built: the toolkit (and its imports) comes with the first tool request.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscope.tool import Toolkit

MCP_GROUP = "mcp"


@dataclass(frozen=True)
class McpServerConfig:
    """One external MCP server and the tools a subagent may use from it."""

    subagent: str
    name: str
    tools: tuple[str, ...]
    command: str | None = None
    args: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> McpServerConfig:
        """Build from a ``[[quartet.mcp]]`` table; ValueError says what is missing."""
        tools = raw.get("tools")
        if not raw.get("subagent") or not raw.get("name"):
            raise ValueError("an [[quartet.mcp]] entry needs 'subagent' and 'name'")
        if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
            raise ValueError(f"mcp server {raw['name']!r}: 'tools' must list the tool names")
        if bool(raw.get("command")) == bool(raw.get("url")):
            raise ValueError(f"mcp server {raw['name']!r}: give exactly one of 'command', 'url'")
        return cls(
            subagent=str(raw["subagent"]),
            name=str(raw["name"]),
            tools=tuple(tools),
            command=raw.get("command"),
            args=tuple(str(a) for a in raw.get("args", ())),
            url=raw.get("url"),
            env={str(k): str(v) for k, v in raw.get("env", {}).items()},
        )

    def client(self) -> Any:
        """A not yet connected agentscope MCP client for this server."""
        from agentscope.mcp import HttpStatelessClient, StdIOStatefulClient

        if self.url:
            return HttpStatelessClient(name=self.name, transport="streamable_http", url=self.url)
        return StdIOStatefulClient(
            name=self.name,
            command=self.command or "",
            args=list(self.args),
            env={**os.environ, **self.env},
        )


async def attach_mcp_tools(toolkit: Toolkit, client: Any, allow: Sequence[str]) -> list[str]:
    """Register exactly ``allow`` from a connected MCP client into ``toolkit``.

    Returns the names registered. Raises ValueError when the server lacks a listed tool
    or a listed name would shadow a tool the toolkit already has.
    """
    offered = {tool.name for tool in await client.list_tools()}
    missing = sorted(set(allow) - offered)
    if missing:
        raise ValueError(
            f"MCP server {client.name!r} does not offer {', '.join(missing)}; "
            f"it offers {', '.join(sorted(offered)) or 'nothing'}"
        )
    clash = sorted(set(allow) & set(toolkit.tools))
    if clash:
        raise ValueError(f"MCP tools {', '.join(clash)} would replace built-in tools")
    if MCP_GROUP not in toolkit.groups:
        toolkit.create_tool_group(
            MCP_GROUP, description="Tools of attached MCP servers.", active=True
        )
    await toolkit.register_mcp_client(client, group_name=MCP_GROUP, enable_funcs=list(allow))
    return list(allow)


def mcp_server_for(toolkit: Toolkit, name: str) -> Any:
    """A low-level MCP server exposing every tool of ``toolkit`` with its exact schema."""

    async def ready() -> Toolkit:
        return toolkit

    return _server(ready, name)


def _server(get_toolkit: Callable[[], Awaitable[Toolkit]], name: str) -> Any:
    """The MCP server of subagent ``name``; ``get_toolkit`` is awaited on each tool request."""
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Any = Server(f"quartet-{name}")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        from subagents import all_schemas

        return [
            types.Tool(
                name=s["function"]["name"],
                description=s["function"].get("description", ""),
                inputSchema=s["function"]["parameters"],
            )
            for s in all_schemas(await get_toolkit())
        ]

    @server.call_tool()
    async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        from agentscope.message import ToolUseBlock

        from subagents.results import text_of

        toolkit = await get_toolkit()
        call = ToolUseBlock(
            type="tool_use", id="mcp-" + secrets.token_hex(6), name=tool, input=arguments
        )
        last = None
        async for chunk in await toolkit.call_tool_function(call):
            last = chunk
        text = text_of(last) if last is not None else "Error: the tool returned nothing"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            isError=text.startswith("Error"),
        )

    return server


async def serve_stdio(server: Any) -> None:
    """Run ``server`` over standard input and output until the client closes it."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class _ServedToolkit:
    """A served subagent's toolkit, built on first use, and its browser, closed at the end."""

    def __init__(self, name: str, workspace: str, input_dir: str | None) -> None:
        self.name, self.workspace, self.input_dir = name, workspace, input_dir
        self.toolkit: Toolkit | None = None
        self.browser: Any = None

    async def get(self) -> Toolkit:
        # Built without awaiting, so two requests cannot both start building it.
        if self.toolkit is None:
            self.toolkit = self._build()
        return self.toolkit

    def _build(self) -> Toolkit:
        from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService
        from subagents import build_toolkit, get_spec
        from subagents.evidence import EvidenceLedger

        spec = get_spec(self.name)
        grants: list[dict[str, Any]] = [{"prefix": "/workspace/", "ops": set(ALL_OPS)}]
        mounts = {"/workspace/": self.workspace}
        if self.input_dir:
            mounts["/userinput/"] = self.input_dir
            grants.append({"prefix": "/userinput/", "ops": set(READ_OPS)})
        fs = DiskFileSystem(self.workspace, mounts=mounts)
        deps: dict[str, Any] = {"evidence": EvidenceLedger(), "model": None}
        if "service" in spec.requires:
            deps["service"] = FileDomainService(fs.create_handle(grants))
        if "browser" in spec.requires:
            from subagents.browser import BrowserSession

            self.browser = deps["browser"] = BrowserSession()
        return build_toolkit(self.name, **{k: v for k, v in deps.items() if k in spec.requires})

    async def aclose(self) -> None:
        if self.browser is not None:
            await self.browser.aclose()


async def serve_subagent(name: str, workspace: str, input_dir: str | None = None) -> None:
    """Serve subagent ``name`` over stdio, its files under ``workspace`` (``/workspace/``).

    ``input_dir``, when given, is mounted read-only as ``/userinput/``. The toolkit is
    built on the first tool request, so ``initialize`` is answered at once. The browser,
    if the subagent has one, is closed when the client disconnects.
    """
    from subagents.names import PIPELINE_ORDER

    if name not in PIPELINE_ORDER:
        raise ValueError(f"unknown subagent {name!r}; choose from {', '.join(PIPELINE_ORDER)}")
    os.makedirs(workspace, exist_ok=True)
    served = _ServedToolkit(name, workspace, input_dir)
    try:
        await serve_stdio(_server(served.get, name))
    finally:
        await served.aclose()
