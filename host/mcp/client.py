"""Allowlisted tools of external MCP servers, for a subagent's toolkit.

An external server is declared in ``quartet.toml``::

    [[quartet.mcp]]
    subagent = "search"                 # whose toolkit gets the tools
    name = "papers"                     # a label for progress and errors
    command = "python"                  # a stdio server ...
    args = ["-m", "papers_mcp"]
    # url = "http://127.0.0.1:8000/mcp" # ... or a streamable-HTTP one
    tools = ["search_papers"]           # exactly these tools are enabled

Only the listed tool names are registered; a name the server does not offer is an error.
The Host's guards (call cap, argument hygiene, eviction) apply to these tools too, and a
result the server marks ``isError`` counts as a failed call.

agentscope is imported only inside the functions that need it.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscope.tool import Toolkit

    from subagents.spec import SubAgentSpec

    from ..config import McpServerConfig

MCP_GROUP = "mcp"


def mcp_client(server: McpServerConfig) -> Any:
    """A not yet connected agentscope MCP client for ``server``."""
    from agentscope.mcp import HttpStatelessClient, StdIOStatefulClient

    if server.url:
        return HttpStatelessClient(name=server.name, transport="streamable_http", url=server.url)
    return StdIOStatefulClient(
        name=server.name,
        command=server.command or "",
        args=list(server.args),
        env={**os.environ, **server.env},
    )


async def attach_mcp_tools(toolkit: Toolkit, client: Any, allow: Sequence[str]) -> list[str]:
    """Register exactly ``allow`` from a connected MCP client into ``toolkit``.

    A result the server marks ``isError`` keeps that mark (as ``isError`` in its
    metadata), so the Host counts it as a failed call whatever its wording.

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
    for name in allow:
        func = await client.get_callable_function(name, wrap_tool_result=False)
        toolkit.register_tool_function(
            _keeping_errors(func),
            group_name=MCP_GROUP,
            func_name=name,
            json_schema=copy.deepcopy(func.json_schema),
        )
    return list(allow)


def _keeping_errors(func: Any) -> Callable[..., Awaitable[Any]]:
    """``func`` (an MCP tool) answering with a ToolResponse that keeps ``isError``."""

    async def call(**kwargs: Any) -> Any:
        from agentscope.mcp import MCPClientBase
        from agentscope.tool import ToolResponse

        result = await func(**kwargs)
        metadata = {**(result.meta or {}), **({"isError": True} if result.isError else {})}
        return ToolResponse(
            content=MCPClientBase._convert_mcp_content_to_as_blocks(result.content),
            metadata=metadata,
        )

    return call


class McpConnections:
    """The run's MCP clients, each connected once, by the subagent whose toolkit gets
    their tools.

    Attributes:
        clients: per subagent, each client with the tool names it is allowed to give.
        tools: per subagent, the MCP tool names attached to its toolkits so far.
    """

    def __init__(self) -> None:
        self.clients: dict[str, list[tuple[Any, tuple[str, ...]]]] = {}
        self.tools: dict[str, list[str]] = {}

    async def connect(
        self, servers: Sequence[McpServerConfig], specs: Mapping[str, SubAgentSpec]
    ) -> None:
        """Connect every configured server and check its tools: a listed tool the server
        lacks, or one that would replace a built-in tool, is a configuration error before
        any research starts.

        Raises:
            ValueError: a server names no known subagent, lacks a listed tool, or would
                replace a built-in one.
        """
        for server in servers:
            spec = specs.get(server.subagent)
            if spec is None:
                raise ValueError(f"MCP server {server.name!r}: no subagent {server.subagent!r}")
            clash = sorted(set(server.tools) & set(spec.allowlist()))
            if clash:
                raise ValueError(f"MCP tools {', '.join(clash)} would replace built-in tools")
            client = mcp_client(server)
            self.clients.setdefault(server.subagent, []).append((client, server.tools))
            if hasattr(client, "connect"):
                await client.connect()
            offered = {tool.name for tool in await client.list_tools()}
            missing = sorted(set(server.tools) - offered)
            if missing:
                raise ValueError(
                    f"MCP server {server.name!r} does not offer {', '.join(missing)}; it offers "
                    f"{', '.join(sorted(offered)) or 'nothing'}"
                )

    async def attach(self, toolkit: Toolkit, subagent: str) -> list[str]:
        """Register the tools of ``subagent``'s servers into ``toolkit``; their names."""
        extra: list[str] = []
        for client, names in self.clients.get(subagent, []):
            extra += await attach_mcp_tools(toolkit, client, names)
        if extra:
            self.tools[subagent] = sorted(set(self.tools.get(subagent, [])) | set(extra))
        return extra

    def closers(self) -> list[Callable[[], Awaitable[Any]]]:
        """The ``close`` of every connected client, the last connected first."""
        return [
            client.close
            for clients in self.clients.values()
            for client, _ in reversed(clients)
            if getattr(client, "is_connected", False)
        ]
