"""Which stopped run may resume, and the settings it resumes with: those it recorded in
its checkpoint, over the command line's, checked."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import FORMATS, ConfigError, Settings, parse_glossary
from ..printable import printable
from .run_files import read_text
from .runs import (
    CHECKPOINT_JSON,
    MAX_CHECKPOINT_BYTES,
    MAX_RECORD_BYTES,
    RUN_JSON,
    find_run,
    has_checkpoint,
    recorded_budgets,
    recorded_number,
)


def resumable(settings: Settings, run_id: str) -> tuple[Path, dict[str, Any]]:
    """A stopped run's folder (found as every command finds a run: :func:`find_run`) and
    its recorded settings; ConfigError when it cannot resume."""
    folder = find_run(settings.runs_dir, run_id)
    run_id, where = folder.name, printable(str(folder.absolute()))
    if not has_checkpoint(folder):
        raise ConfigError(
            f"run {run_id} stopped before its first checkpoint: {where} holds none to resume from"
        )
    try:
        status = json.loads(read_text(folder, RUN_JSON, MAX_RECORD_BYTES)).get("status", "finished")
    except FileNotFoundError:
        status = None  # no record: the run never ended
    except (OSError, ValueError, AttributeError, RecursionError):
        status = "finished"  # an unreadable record: the run ended, whatever it says
    if status == "finished":
        raise ConfigError(f"run {run_id} ({where}) has finished; there is nothing to resume")
    try:
        state = json.loads(read_text(folder, CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES))
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigError(
            f"run {run_id}: its checkpoint in {where} cannot be read ({exc})"
        ) from None
    saved_settings = state.get("settings") if isinstance(state, dict) else None
    return folder, dict(saved_settings) if isinstance(saved_settings, dict) else {}


def demo_ports(origin: dict[str, Any]) -> tuple[int, int]:
    """The ports a demo run's world was served on; ConfigError when they are not ports."""
    ports = origin.get("ports")
    if (
        isinstance(ports, list)
        and len(ports) == 2
        and all(isinstance(p, int) and 0 <= p < 65536 for p in ports)
    ):
        return ports[0], ports[1]
    raise ConfigError(f"the demo run's recorded ports {printable(repr(ports))} are not ports")


def resumed_settings(
    settings: Settings, saved: dict[str, Any], model: str | None, inputs: Path | None
) -> Settings:
    """``settings`` with what a stopped run started with (``saved``, from its checkpoint;
    only values of the right kind are taken), the brain ``model`` when one is given, and
    the input folder the user chose."""
    formats = saved.get("formats") if isinstance(saved.get("formats"), list) else []

    def count(name: str) -> int:
        return int(recorded_number(saved.get(name)) or getattr(settings, name))

    tokens, cost = recorded_budgets(saved, (settings.max_tokens, settings.max_cost))
    return replace(
        settings,
        model=model or str(saved.get("model") or settings.model),
        formats=tuple(f for f in formats if f in FORMATS) or settings.formats,
        max_rounds=count("max_rounds"),
        max_pages=count("max_pages"),
        concurrency=count("concurrency"),
        max_tokens=tokens,
        max_cost=cost,
        input_dir=inputs,
        glossary=parse_glossary(saved["glossary"]) if saved.get("glossary") else settings.glossary,
    )
