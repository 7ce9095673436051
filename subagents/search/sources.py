"""The search sources: a value, held by the registry (:mod:`subagents.registry_value`),
from which the Search subagent's tools, their titles and natures, their schemas and the
source names are all derived.

A source is a :class:`Source`: its name (its key in ``ToolSettings.endpoints`` and in its
``QUARTET_<NAME>_URL`` variable), its tool (``async def search_<name>(query: str,
settings: object = None)``, usually :func:`~subagents.search.run.run_source` around a
provider) and its title (what MCP clients show). A built-in source is one module in
:mod:`.providers` that defines its provider, its tool and ``SOURCE = Source(...)``, plus
its one registration: its name in :data:`BUILT_IN`. A source added at run time is one
call, ``registry.with_source(name, tool, title)``, which returns a new registry (see
:class:`subagents.registry_value.Registry`).

This module imports nothing: the source names are read without loading any provider (the
settings read them), and the built-in modules are loaded on first use of their records.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

#: The built-in sources, in the order the Search subagent lists them: each names its
#: module in :mod:`subagents.search.providers`, whose ``SOURCE`` it registers.
BUILT_IN = ("google", "bing", "sogou", "github", "wiki")


@dataclass(frozen=True)
class Source:
    """One search source.

    Attributes:
        name: its key in ``ToolSettings.endpoints``; ``QUARTET_<NAME>_URL`` sets it.
        tool: ``async def search_<name>(query: str, settings: object = None)``; its name,
            signature and docstring are its schema.
        title: what MCP clients show for the tool.
    """

    name: str
    tool: Callable[..., Awaitable[Any]]
    title: str

    @property
    def tool_name(self) -> str:
        """The name the model calls the tool by (``search_<name>``)."""
        return self.tool.__name__


def provider_source(name: str) -> Source:
    """The ``SOURCE`` of built-in module ``providers/<name>.py`` (imported on first use)."""
    module = importlib.import_module(f"{__package__}.providers.{name}")
    source = getattr(module, "SOURCE", None)
    if not isinstance(source, Source) or source.name != name:
        raise TypeError(f"{module.__name__}.SOURCE must be a Source named {name!r}")
    return source


@dataclass(frozen=True)
class Sources:
    """The search sources of a registry, as a value: the built-in ones, then those added.

    Attributes:
        built_in: the names of the built-in sources' modules, in order.
        added: the sources added to the built-in ones, in the order they were added.
    """

    built_in: tuple[str, ...] = BUILT_IN
    added: tuple[Source, ...] = ()

    def names(self) -> tuple[str, ...]:
        """Every source's name, in order; loads no provider."""
        return (*self.built_in, *(s.name for s in self.added))

    def built_in_sources(self) -> tuple[Source, ...]:
        """The built-in sources, in order."""
        return tuple(provider_source(name) for name in self.built_in)

    def sources(self) -> tuple[Source, ...]:
        """Every source, in order: the built-in ones, then those added."""
        return (*self.built_in_sources(), *self.added)

    def with_source(self, source: Source) -> Sources:
        """These sources with ``source`` added (replacing, in its place, one added under its
        name); ``self`` is unchanged.

        Raises:
            ValueError: ``source`` has a built-in source's name.
        """
        if source.name in self.built_in:
            raise ValueError(f"{source.name!r} is a built-in search source; choose another name")
        added = {s.name: s for s in self.added} | {source.name: source}
        return replace(self, added=tuple(added.values()))


#: The built-in sources, those of :data:`BUILT_IN`.
BUILT_IN_SOURCES = Sources(BUILT_IN)
