"""The four subagents by name, and the builders of their toolkits.

Importing this module imports every tool and agentscope; :mod:`subagents` re-exports it
lazily so that light commands need not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agentscope.tool import Toolkit, ToolResponse

from .browser.spec import SPEC as BROWSER_SPEC
from .file.spec import SPEC as FILE_SPEC
from .generate.spec import SPEC as GENERATE_SPEC
from .search.sources import SOURCES, Source
from .search.spec import SPEC as SEARCH_SPEC
from .search.spec import with_sources
from .settings import ToolSettings
from .spec import SubAgentSpec, all_schemas, build

#: Every subagent by name, in the order the Host lists them (see :func:`register`).
SPECS: dict[str, SubAgentSpec] = {
    spec.name: spec for spec in (SEARCH_SPEC, BROWSER_SPEC, FILE_SPEC, GENERATE_SPEC)
}


def register(spec: SubAgentSpec) -> None:
    """Add (or replace) a subagent: the Host lists it in its prompt and its ``task``
    tool, delegates to it, and takes its results in as its spec says (see
    :class:`~subagents.spec.SubAgentSpec`); ``quartet tools`` lists its tools."""
    SPECS[spec.name] = spec


def register_source(
    name: str, tool: Callable[..., Awaitable[ToolResponse]], title: str = ""
) -> Source:
    """Add a search source at run time; returns the :class:`~subagents.search.sources.Source`
    registered in :data:`~subagents.search.sources.SOURCES`, from which the rest follows.

    ``tool`` (``async def search_<name>(query, settings=None)``, usually
    :func:`~subagents.search.run.run_source` around a provider) joins the Search subagent,
    ``QUARTET_<NAME>_URL`` sets its endpoint (``settings.endpoint(name, default)``), and
    MCP clients see it titled ``title`` (its name if none), as a search. A built-in
    source is instead a module in ``subagents/search/providers/`` and its name in
    :data:`~subagents.search.sources.BUILT_IN`.
    """
    source = SOURCES.register(Source(name, tool, title or tool.__name__))
    SPECS["search"] = with_sources(SPECS["search"], SOURCES.sources())
    return source


def get_spec(name: str) -> SubAgentSpec:
    """The spec of a built subagent; a clear error for an unknown or unbuilt one."""
    if name not in SPECS:
        known = ", ".join(SPECS) or "none yet"
        raise KeyError(f"unknown subagent {name!r}; built subagents: {known}")
    return SPECS[name]


def build_toolkit(name: str, *, read_only: bool | None = None, **deps: Any) -> Toolkit:
    """Build the Toolkit of subagent ``name`` with ``deps`` injected.

    Args:
        name: one of ``search``, ``browser``, ``file``, ``generate``.
        read_only: drop every writing tool (defaults to the spec's own flag).
        **deps: objects injected into tools, e.g. ``service=FileDomainService(...)``.
            ``settings`` (a :class:`~subagents.settings.ToolSettings`) defaults to
            ``ToolSettings()``: the real services, no keys, the default network policy.
            Nothing is read from the environment here; pass
            ``settings=ToolSettings.from_env()`` for its endpoints and keys (the Host
            always passes the run's own). ``colophon`` (what a report's last line says
            of the run) defaults to None: no such line.
    """
    spec = get_spec(name)
    if "settings" in spec.requires and "settings" not in deps:
        deps["settings"] = ToolSettings()
    if "colophon" in spec.requires:
        deps.setdefault("colophon", None)  # made outside a run: no colophon line
    return build(spec, deps, read_only=read_only)


class _Placeholder:
    """Stands in for a dependency when only schemas are wanted; refuses any use."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        raise RuntimeError(f"{self._name} is a placeholder: this toolkit is for schemas only")


def schema_toolkit(name: str) -> Toolkit:
    """A toolkit of subagent ``name`` built only to read its schemas (no real deps)."""
    spec = get_spec(name)
    return build(spec, {d: _Placeholder(d) for d in spec.requires})


def all_tool_schemas() -> dict[str, list[dict]]:
    """``{subagent: [schema, ...]}`` for every registered subagent, in order."""
    return {name: all_schemas(schema_toolkit(name)) for name in SPECS}
