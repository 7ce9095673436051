"""The search sources: one registry, from which the Search subagent's tools, their titles
and natures, their schemas and the source names are all derived.

A source is a :class:`Source`: its name (its key in ``ToolSettings.endpoints`` and in its
``QUARTET_<NAME>_URL`` variable), its tool (``async def search_<name>(query: str,
settings: object = None)``, usually :func:`~subagents.search.run.run_source` around a
provider) and its title (what MCP clients show). A built-in source is one module in
:mod:`.providers` that defines its provider, its tool and ``SOURCE = Source(...)``, plus
its one registration: its name in :data:`BUILT_IN`. A source added at run time is one
call, :func:`subagents.registry.register_source`.

This module imports nothing: :data:`SOURCE_NAMES` is read without loading any provider
(the settings read it), and the built-in modules are loaded on first use of their records.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
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


class SourceRegistry:
    """The search sources by name: the built-in ones, then those added at run time.

    Args:
        built_in: the names of the built-in sources' modules, in order.
    """

    def __init__(self, built_in: Iterable[str]) -> None:
        self.built_in = tuple(built_in)
        #: The sources added at run time, by name, in the order they were added.
        self.added: dict[str, Source] = {}

    def names(self) -> tuple[str, ...]:
        """Every source's name, in order; loads no provider."""
        return (*self.built_in, *self.added)

    def built_in_sources(self) -> tuple[Source, ...]:
        """The built-in sources, in order."""
        return tuple(provider_source(name) for name in self.built_in)

    def sources(self) -> tuple[Source, ...]:
        """Every source, in order: the built-in ones, then those added at run time."""
        return (*self.built_in_sources(), *self.added.values())

    def register(self, source: Source) -> Source:
        """Add ``source`` (or replace the one added under its name); returns it.

        Raises:
            ValueError: ``source`` has a built-in source's name.
        """
        if source.name in self.built_in:
            raise ValueError(f"{source.name!r} is a built-in search source; choose another name")
        self.added[source.name] = source
        return source


class SourceNames(Sequence[str]):
    """The names of a registry's sources, read at each use (a read-only sequence)."""

    def __init__(self, registry: SourceRegistry) -> None:
        self._registry = registry

    def __getitem__(self, index: Any) -> Any:
        return self._registry.names()[index]

    def __len__(self) -> int:
        return len(self._registry.names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry.names())

    def __repr__(self) -> str:
        return repr(list(self))


#: The one registry of search sources.
SOURCES = SourceRegistry(BUILT_IN)
#: Every source's name, in order, as :data:`SOURCES` holds them now.
SOURCE_NAMES: Sequence[str] = SourceNames(SOURCES)
