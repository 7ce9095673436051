"""A subagent's own toolkit served as an MCP server (``quartet mcp NAME``).

A served subagent runs its toolkit behind the same ToolGuard as in a run: arguments the
schema does not declare are dropped (a client cannot replace an injected dependency),
the call cap holds for the session, and every call the guard counts as failed (an
unknown tool too) comes back with ``isError: true``. Its ``/workspace/`` is the folder
given, or a fresh one under the runs folder, never the current folder by default. Its
tools carry MCP annotations from :mod:`subagents.natures`.

agentscope and the tools are imported only inside the functions that need them: a served
subagent answers ``initialize`` before its toolkit is built, and the toolkit (and its
imports) comes with the first tool request.
"""

from __future__ import annotations

import secrets
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentscope.tool import Toolkit

    from ..config import Settings
    from ..orchestration.guards import ToolGuard


def guarded_server(get_guard: Callable[[], Awaitable[ToolGuard]], name: str) -> Any:
    """The MCP server of subagent ``name``.

    ``get_guard`` is awaited on each tool request; it gives the guard around the toolkit.
    Every call goes through the guard (undeclared arguments dropped, the call cap
    counted), and ``isError`` says whether the guard counted the call as failed.
    """
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Any = Server(f"quartet-{name}")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        from subagents import all_schemas
        from subagents.natures import annotations

        tools = []
        for schema in all_schemas((await get_guard()).toolkit):
            fn = schema["function"]
            hints = annotations(fn["name"])
            tools.append(
                types.Tool(
                    name=fn["name"],
                    title=str(hints["title"]),
                    description=fn.get("description", ""),
                    inputSchema=fn["parameters"],
                    annotations=types.ToolAnnotations(**hints),  # type: ignore[arg-type]
                )
            )
        return tools

    @server.call_tool()
    async def call_tool(tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        from agentscope.message import ToolUseBlock

        from subagents.results import text_of

        guard = await get_guard()
        call_id = "mcp-" + secrets.token_hex(6)
        call = ToolUseBlock(type="tool_use", id=call_id, name=tool, input=arguments)
        last = None
        async for chunk in await guard.toolkit.call_tool_function(call):
            last = chunk
        record = next((r for r in reversed(guard.records) if r.call_id == call_id), None)
        if record is not None:  # answered: a server that runs for ever keeps no history
            guard.records.remove(record)
        text = (text_of(last) if last is not None else "") or "Error: the tool returned nothing"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            isError=record is None or record.failed,
        )

    return server


async def serve_stdio(server: Any) -> None:
    """Run ``server`` over standard input and output until the client closes it."""
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


class _ServedToolkit:
    """A served subagent's toolkit behind its guard, built on first use, and its browser,
    closed at the end."""

    def __init__(self, name: str, workspace: Path, settings: Settings) -> None:
        self.name, self.workspace, self.settings = name, workspace, settings
        self.guard: ToolGuard | None = None
        self.browser: Any = None

    async def get(self) -> ToolGuard:
        # Built without awaiting, so two requests cannot both start building it.
        if self.guard is None:
            from ..orchestration.guards import ToolGuard

            self.guard = ToolGuard(self.name, self._build(), cap=self.settings.tool_call_cap)
        return self.guard

    def _build(self) -> Toolkit:
        from fs_service import DiskFileSystem, FileDomainService
        from subagents import build_toolkit, get_spec
        from subagents.evidence import EvidenceLedger

        from ..durability.run_folder import area_services, subagent_grants

        spec = get_spec(self.name)
        mounts = {"/workspace/": str(self.workspace)}
        userinput = self.settings.input_dir is not None
        if userinput:
            mounts["/userinput/"] = str(self.settings.input_dir)
        fs = DiskFileSystem(str(self.workspace), mounts=mounts)
        deps: dict[str, Any] = {
            "evidence": EvidenceLedger(),
            "model": None,
            "settings": self.settings.tools,
            "colophon": None,  # a report served alone is no run's: no colophon line
        }
        extra: dict[str, Any] = {}
        if "service" in spec.requires:
            # The same grants as in a run: stored pages, downloads and screenshots are
            # written only by the tool that makes them.
            deps["service"] = FileDomainService(fs.create_handle(subagent_grants(None, userinput)))
            extra["areas"] = area_services(fs, userinput)
        if "browser" in spec.requires:
            from subagents.browser import BrowserSession

            self.browser = deps["browser"] = BrowserSession()
        wanted = {k: v for k, v in deps.items() if k in spec.requires}
        return build_toolkit(self.name, **wanted, **extra)

    async def aclose(self) -> None:
        if self.browser is not None:
            await self.browser.aclose()


def served_workspace(name: str, workspace: str | None, runs_dir: Path) -> tuple[Path, bool]:
    """The folder behind ``/workspace/`` and whether it is a fresh one.

    Without ``workspace`` it is a new, empty folder under ``runs_dir/mcp/``: the server
    never grants the folder it was started in unless asked to.
    """
    try:
        if workspace is not None:
            path = Path(workspace).resolve()
            path.mkdir(parents=True, exist_ok=True)
            return path, False
        parent = runs_dir / "mcp"
        parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S-", time.gmtime())
        return Path(tempfile.mkdtemp(prefix=f"{name}-{stamp}", dir=parent)).resolve(), True
    except OSError as exc:
        where = workspace if workspace is not None else runs_dir / "mcp"
        raise ValueError(f"cannot make the workspace in {where} ({exc.strerror or exc})") from None


async def serve_subagent(name: str, settings: Settings, workspace: str | None = None) -> None:
    """Serve subagent ``name`` over stdio.

    ``/workspace/`` (read, write and delete) is ``workspace``, or without it a fresh
    folder under the runs folder; one line on stderr says which (stdout is the
    protocol). ``settings.input_dir``, when set, is mounted read-only as
    ``/userinput/``. Every call goes through the same guard as in a run, with the
    settings' call cap for the whole session. The toolkit is built on the first tool
    request, so ``initialize`` is answered at once. The browser, if the subagent has
    one, is closed when the client disconnects.
    """
    from subagents.names import PIPELINE_ORDER

    if name not in PIPELINE_ORDER:
        raise ValueError(f"unknown subagent {name!r}; choose from {', '.join(PIPELINE_ORDER)}")
    path, fresh = served_workspace(name, workspace, settings.runs_dir)
    how = "a fresh folder; --workspace DIR chooses one" if fresh else "read, write and delete"
    print(f"quartet mcp {name}: /workspace/ is {path} ({how})", file=sys.stderr, flush=True)
    served = _ServedToolkit(name, path, settings)
    try:
        await serve_stdio(guarded_server(served.get, name))
    finally:
        await served.aclose()
