"""The built-in registry (the four subagents and the built-in search sources), the
current one, and the builders of the subagents' toolkits.

Importing this module imports every tool and agentscope; :mod:`subagents` re-exports it
lazily so that light commands need not.

A registry is a value (:class:`~subagents.registry_value.Registry`): adding a subagent or a
search source returns a new one, which a run uses when it is set around it
(``with using(registry): ...``, ``Host(..., registry=registry)``, or
``quartet.cli.main(argv, registry=registry)``). Nothing here changes once imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentscope.tool import Toolkit

from .browser.spec import SPEC as BROWSER_SPEC
from .file.spec import SPEC as FILE_SPEC
from .generate.spec import SPEC as GENERATE_SPEC
from .registry_value import Registry, chosen, using
from .search.sources import BUILT_IN_SOURCES, Source
from .search.spec import SPEC as SEARCH_SPEC
from .settings import ToolSettings
from .spec import SubAgentSpec, all_schemas, build

#: The built-in registry: the four subagents, in the order the Host lists them, and the
#: built-in search sources (:data:`~subagents.search.sources.BUILT_IN`).
BUILT_IN_REGISTRY = Registry(
    {spec.name: spec for spec in (SEARCH_SPEC, BROWSER_SPEC, FILE_SPEC, GENERATE_SPEC)},
    BUILT_IN_SOURCES,
)

#: The built-in subagents by name (a read-only view of :data:`BUILT_IN_REGISTRY`'s).
SPECS: Mapping[str, SubAgentSpec] = BUILT_IN_REGISTRY.specs

__all__ = [
    "BUILT_IN_REGISTRY",
    "SPECS",
    "Registry",
    "Source",
    "all_tool_schemas",
    "build_toolkit",
    "current",
    "get_spec",
    "schema_toolkit",
    "using",
]


def current() -> Registry:
    """The registry in use: the one set by :func:`~subagents.registry_value.using`, else
    :data:`BUILT_IN_REGISTRY`."""
    registry = chosen()
    return BUILT_IN_REGISTRY if registry is None else registry


def get_spec(name: str) -> SubAgentSpec:
    """The spec of subagent ``name`` in the current registry; a clear error for an unknown
    one."""
    specs = current().specs
    if name not in specs:
        known = ", ".join(specs) or "none yet"
        raise KeyError(f"unknown subagent {name!r}; built subagents: {known}")
    return specs[name]


def build_toolkit(name: str, *, read_only: bool | None = None, **deps: Any) -> Toolkit:
    """Build the Toolkit of subagent ``name`` (of the current registry) with ``deps``
    injected.

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
    """``{subagent: [schema, ...]}`` for every subagent of the current registry, in order."""
    return {name: all_schemas(schema_toolkit(name)) for name in current().specs}
