"""Quartet's version: the installed distribution's, else the one in ``pyproject.toml``."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def quartet_version() -> str:
    """``"0.1.0"``; ``"unknown"`` when neither the metadata nor pyproject.toml has one."""
    try:
        return metadata.version("quartet")
    except metadata.PackageNotFoundError:
        pass
    try:
        return str(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"
