"""The demo's settings: a run's settings pointed at a running demo world."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

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


def demo_settings(settings: Settings, world: Any) -> Settings:
    """``settings`` pointed at a running demo world: its engines, inputs and hosts only.

    Fetching is limited to the ``host:port`` of each demo server (and ``localhost`` on
    the same ports), not to every port of the machine. API keys are left out, so none can
    travel even to the local engines.

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
        endpoints=dict(world.endpoints),
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
