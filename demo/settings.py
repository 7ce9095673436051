"""The demo's settings: a run's settings pointed at a running demo world."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from subagents.search.sources import SOURCE_NAMES
from subagents.settings import Keys, NetworkPolicy

if TYPE_CHECKING:
    from host.config import Settings


def _merged(*glossaries: tuple[Any, ...]) -> tuple[Any, ...]:
    """The groups of several glossaries, each once."""
    out: list[Any] = []
    for group in (g for glossary in glossaries for g in glossary):
        if group not in out:
            out.append(group)
    return tuple(out)


def _engines(world: Any) -> dict[str, str]:
    """The world's search engines, and for every other registered source a path of its
    search server that has no engine."""
    engines = dict(world.endpoints)
    first = next(iter(engines.values()), None)
    base = first.rstrip("/").rsplit("/", 1)[0] if first else str(world.site_url).rstrip("/")
    return engines | {s: f"{base}/no-engine/{s}" for s in SOURCE_NAMES if s not in engines}


def demo_settings(settings: Settings, world: Any) -> Settings:
    """``settings`` pointed at a running demo world: its engines, inputs and hosts only.

    Fetching is limited to the ``host:port`` of each demo server (and ``localhost`` on
    the same ports), not to every port of the machine. API keys are left out, so none can
    travel even to the local engines. A search source the demo has no engine for is sent
    to a path of the demo's search server that answers 404: it is reported unavailable,
    as a source that is down would be.

    Args:
        settings: The run's settings, as the command line resolved them.
        world: A running world (:class:`demo.web.DemoWorld` or one of the same shape:
            ``endpoints``, ``hosts``, ``ports``, ``input_dir`` and an optional
            ``glossary``).

    Returns:
        The settings of a run against that world.
    """
    ports = [h.rsplit(":", 1)[1] for h in world.hosts]
    allowed = [*world.hosts, *(f"localhost:{port}" for port in ports)]
    tools = replace(
        settings.tools,
        endpoints=_engines(world),
        network=NetworkPolicy.parse(",".join(allowed), only=True),
        keys=Keys(),
    )
    origin = {"kind": "demo", "ports": list(world.ports)}
    return replace(
        settings,
        input_dir=world.input_dir,
        tools=tools,
        glossary=_merged(settings.glossary, tuple(getattr(world, "glossary", ()))),
        extra={**settings.extra, "origin": origin},
    )
