"""The registry as a value, and the one a run uses.

A :class:`Registry` holds the subagents by name and the search sources; adding to it
returns a new registry and changes nothing else. The built-in one is
:data:`subagents.registry.BUILT_IN_REGISTRY`. The registry a run or a command uses is
set for its duration with :func:`using` and read wherever the subagents or the sources
are needed (the Host, ``quartet tools``, the tools' natures, the endpoints read from
the environment). It travels in a :class:`~contextvars.ContextVar`, which asyncio tasks
and ``asyncio.to_thread`` copy, so a run's tasks see it.

This module loads nothing heavy, so that the settings can read the source names
(:func:`source_names`) without the subagents' specs: outside :func:`using` the current
registry is the built-in one, whose sources are :data:`~.search.sources.BUILT_IN_SOURCES`
(:func:`subagents.registry.current` gives the whole registry).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .search.sources import BUILT_IN_SOURCES, Source, Sources

if TYPE_CHECKING:
    from .spec import SubAgentSpec


@dataclass(frozen=True)
class Registry:
    """The subagents and the search sources a run uses; immutable.

    Attributes:
        specs: every subagent by name, in the order the Host lists them (read-only).
        sources: the search sources; the ``search`` spec holds each one's tool.
    """

    specs: Mapping[str, SubAgentSpec]
    sources: Sources = BUILT_IN_SOURCES

    def __post_init__(self) -> None:
        object.__setattr__(self, "specs", MappingProxyType(dict(self.specs)))

    def with_subagent(self, spec: SubAgentSpec) -> Registry:
        """This registry with ``spec`` added (or replacing the one of its name): the Host
        lists it in its prompt and its ``task`` tool, delegates to it, and takes its
        results in as its spec says (see :class:`~subagents.spec.SubAgentSpec`);
        ``quartet tools`` lists its tools."""
        return replace(self, specs={**self.specs, spec.name: spec})

    def with_source(
        self, name: str, tool: Callable[..., Awaitable[Any]], title: str = ""
    ) -> Registry:
        """This registry with a search source added (or replacing the one added under
        ``name``), the ``search`` spec's tools updated to the sources.

        ``tool`` (``async def search_<name>(query, settings=None)``, usually
        :func:`~subagents.search.run.run_source` around a provider) joins the Search
        subagent, ``QUARTET_<NAME>_URL`` sets its endpoint (``settings.endpoint(name,
        default)``), and MCP clients see it titled ``title`` (its tool's name if none), as a
        search: wherever this registry is the current one (see :func:`using`).

        Raises:
            ValueError: ``name`` is a built-in source's.
        """
        from .spec import with_tools

        sources = self.sources.with_source(Source(name, tool, title or tool.__name__))
        specs = dict(self.specs)
        if "search" in specs:
            specs["search"] = with_tools(specs["search"], [s.tool for s in sources.sources()])
        return replace(self, specs=specs, sources=sources)


#: The registry set by :func:`using`; None stands for the built-in one.
_CURRENT: ContextVar[Registry | None] = ContextVar("subagents_registry", default=None)


@contextmanager
def using(registry: Registry | None) -> Iterator[Registry | None]:
    """Make ``registry`` the current one within the block (and the tasks and threads
    started there with a copy of the context); None leaves the current one as it is."""
    if registry is None:
        yield _CURRENT.get()
        return
    token = _CURRENT.set(registry)
    try:
        yield registry
    finally:
        _CURRENT.reset(token)


def chosen() -> Registry | None:
    """The registry set by :func:`using`, or None for the built-in one."""
    return _CURRENT.get()


def current_sources() -> Sources:
    """The current registry's search sources; loads no provider."""
    registry = _CURRENT.get()
    return BUILT_IN_SOURCES if registry is None else registry.sources


def source_names() -> tuple[str, ...]:
    """The current registry's source names, in order; loads no provider."""
    return current_sources().names()
