"""Canonical tool schemas: ``schemas/<subagent>/<tool>.json``, exactly as agentscope emits them."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def subagents_with_schemas() -> list[str]:
    """Names of the subagents that have a schema folder."""
    return sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("_"))


def load(subagent: str) -> dict[str, dict]:
    """Tool name → canonical schema for one subagent."""
    folder = ROOT / subagent
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))
    }


def dump(subagent: str, schemas: list[dict]) -> list[Path]:
    """Write one file per tool schema (used by scripts/regen_schemas.py)."""
    folder = ROOT / subagent
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    written = []
    for schema in schemas:
        path = folder / f"{schema['function']['name']}.json"
        path.write_text(
            json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
            encoding="utf-8",
        )
        written.append(path)
    return written
