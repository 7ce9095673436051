"""The demo's settings: a run's settings pointed at a running demo world, and a job's
settings (a question of a batch, a run of the web app), in the demo world or not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from subagents.registry_value import source_names
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
    """The world's search engines, and for every other source of the current registry a path of its
    search server that has no engine."""
    engines = dict(world.endpoints)
    first = next(iter(engines.values()), None)
    base = first.rstrip("/").rsplit("/", 1)[0] if first else str(world.site_url).rstrip("/")
    return engines | {s: f"{base}/no-engine/{s}" for s in source_names() if s not in engines}


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


def job_settings(job: dict[str, Any]) -> Settings:
    """The settings of a job's run (a question of a batch, or a run of the web app): its
    own flags, then this worker's environment and ``quartet.toml`` (API keys come from
    the worker's environment only), pointed at the demo world the job names, if any."""
    from host.config import load_settings, parse_glossary

    flags = {
        "model": job.get("model"),
        "formats": ",".join(job.get("formats") or []) or None,
        "input": job.get("input_dir"),
        "runs_dir": job["runs_dir"],
        "max_pages": job.get("max_pages"),
        "max_rounds": job.get("max_rounds"),
        "quiet": True,
    }
    settings = load_settings(flags)
    world = job.get("demo")
    if world:
        served = SimpleNamespace(
            endpoints=world["endpoints"],
            hosts=tuple(world["hosts"]),
            ports=tuple(world["ports"]),
            input_dir=Path(world["input_dir"]),
            glossary=parse_glossary(world.get("glossary") or []),
        )
        settings = demo_settings(settings, served)
        if job.get("input_dir"):
            settings = replace(settings, input_dir=Path(job["input_dir"]))
    return settings
