"""What the commands on the memory store share (``quartet skills``, ``quartet cache``):
their settings, and the store opened only when it already exists."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

from host.config import ConfigError, Settings, load_settings


class _Closable(Protocol):
    def close(self) -> None: ...


T = TypeVar("T", bound=_Closable)


def store_settings(args: argparse.Namespace) -> Settings:
    """The settings a store command works with: the runs folder from ``--runs-dir`` and
    the model from ``--model`` (where the command has them), the rest as every command
    resolves them."""
    flags = {"runs_dir": getattr(args, "runs_dir", None), "model": getattr(args, "model", None)}
    return load_settings(flags)


@contextmanager
def opened(open_existing: Callable[[Settings], T | None], settings: Settings) -> Iterator[T | None]:
    """What ``open_existing`` opens from the settings' store, closed afterwards: None (and
    nothing created) when the store does not exist; a ConfigError when it cannot be
    used."""
    from fs_service import FsError

    try:
        found = open_existing(settings)
        try:
            yield found
        finally:
            if found is not None:
                found.close()
    except FsError as exc:
        raise ConfigError(str(exc).removeprefix("Error: ")) from None
