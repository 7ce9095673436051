"""The page cache's place: the memory store, and how much of it a run may use.

The cache (:mod:`subagents.net.pagecache`) lives in the same store as the memories
(:mod:`.memory`): ``.store/quartet.sqlite`` in the runs folder unless ``store`` names
another file or a PostgreSQL server's URL (which the machines of a batch share), in the
namespace of the operating system's user and the settings'
``project``, so that no cached page crosses either. ``cache_max_mb`` bounds the
namespace, and ``cache_fresh`` is how long a copy is reused without asking its site.

A run reads the cache unless it was started with ``--fresh`` or records or replays its
tape (a recording must hold every response, and a replay must ask for the same ones);
it writes the cache unless it replays. ``page_cache = false`` turns the cache off.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from fs_service import FsError
from fs_service.backends import StoreFileSystem
from fs_service.backends.store import store_exists
from subagents.net.pagecache import MIB, PageCache, RunCache
from subagents.secrets import scrub

from ..config import Settings
from .memory import os_user


def open_page_cache(settings: Settings, clock: Callable[[], float] = time.time) -> PageCache:
    """The page cache of the settings' store, user (the operating system's) and project.

    Args:
        settings: the store, the project, ``cache_fresh`` and ``cache_max_mb``.
        clock: the current time in seconds since the epoch.

    Raises:
        FsError: the store cannot be opened (StoreFormatError: it is not a store this
            code can read).
    """
    store = StoreFileSystem(
        settings.store_path(),
        os_user(),
        settings.project,
        settings.cache_max_mb * MIB,
        clock=clock,
    )
    return PageCache(store, settings.cache_fresh, clock)


def existing_page_cache(settings: Settings) -> PageCache | None:
    """The settings' page cache when its store exists; None (and nothing created) when
    not."""
    return open_page_cache(settings) if store_exists(settings.store_path()) else None


def run_cache(
    settings: Settings, recording: bool = False, replaying: bool = False
) -> tuple[RunCache | None, str | None]:
    """A run's use of the page cache, or why it has none.

    Args:
        settings: the run's settings (``fresh``: read nothing from the cache).
        recording: the run records its tape, which must hold every response.
        replaying: the run replays a tape: it neither reads nor writes the cache.

    Returns:
        The run's cache (None when replaying, when ``page_cache`` is off, or when the
        store could not be opened) and
        why the store could not be opened (None when it was, or was not tried).
    """
    if replaying or not settings.page_cache:
        return None, None
    try:
        cache = open_page_cache(settings)
    except FsError as exc:
        return None, scrub(str(exc).removeprefix("Error: "))
    return RunCache(cache, reads=not (settings.fresh or recording)), None


__all__ = ["existing_page_cache", "open_page_cache", "run_cache"]
