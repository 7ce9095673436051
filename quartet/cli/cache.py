"""``quartet cache``: what the page cache holds (``stats``), and emptying it (``clear``).

The cache is the one in the memory store the settings name, in the namespace of the
operating system's user and the settings' ``project`` (see
:mod:`host.durability.page_cache`): another user's or project's cache is neither shown
nor cleared. Neither command creates the store.
"""

from __future__ import annotations

import argparse
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from host.config import Settings
from host.printable import printable

from .store import opened, store_settings

if TYPE_CHECKING:
    from subagents.net.pagecache import CacheStats, PageCache


def _cache(settings: Settings) -> AbstractContextManager[PageCache | None]:
    """The settings' page cache, closed afterwards (see :func:`.store.opened`)."""
    from host.durability.page_cache import existing_page_cache

    return opened(existing_page_cache, settings)


def _whose(settings: Settings) -> str:
    """``user alice, project default``: the namespace the commands work on."""
    from host.durability.memory import os_user

    return f"user {os_user()}, project {settings.project}"


def mib(size: int) -> str:
    """``size`` bytes in MiB, to a tenth."""
    return f"{size / (1024 * 1024):.1f} MiB"


def _rendered(count: int) -> str:
    """What ``entries`` says of the rendered pages: ``1 of them a page as Chromium
    rendered it``, ``3 of them pages as Chromium rendered them``, nothing for none.

    Args:
        count: how many of the entries are rendered pages.
    """
    if not count:
        return ""
    if count == 1:
        return "1 of them a page as Chromium rendered it"
    return f"{count} of them pages as Chromium rendered them"


def _kinds(stats: CacheStats) -> str:
    """What ``entries`` adds of its kinds besides pages and downloads: `` (2 of them
    pages as Chromium rendered them; 5 of them search result lists; 9 of them computed
    from pages, files and reports)``, nothing when every entry is a page or a download.

    Args:
        stats: the cache's figures.
    """
    searches, derived = stats.searches, stats.derived
    parts = [
        _rendered(stats.rendered),
        "" if not searches else ("1 of them a search result list" if searches == 1
                                 else f"{searches} of them search result lists"),
        "" if not derived else ("1 of them computed from a page, a file or a report"
                                if derived == 1
                                else f"{derived} of them computed from pages, files and reports"),
    ]  # fmt: skip
    told = "; ".join(p for p in parts if p)
    return f" ({told})" if told else ""


def stats_lines(stats: CacheStats, settings: Settings) -> list[str]:
    """What ``quartet cache stats`` prints of a cache's figures."""
    from subagents.net.pagecache import iso_time

    return [
        f"entries: {stats.entries}{_kinds(stats)}",
        f"bytes: {stats.bytes} ({mib(stats.bytes)}; the store's bound is "
        f"{settings.cache_max_mb} MiB)",
        f"oldest: {iso_time(stats.oldest) if stats.oldest is not None else '-'}",
        f"newest: {iso_time(stats.newest) if stats.newest is not None else '-'}",
        f"fresh for: {settings.cache_fresh:g} s after a copy was fetched or checked",
    ]


def cmd_cache_stats(args: argparse.Namespace) -> int:
    """``quartet cache stats``: how many entries the cache holds (pages and downloads,
    rendered pages, search result lists, what was computed from them), their size, and
    when the oldest and the newest were fetched or last checked."""
    from subagents.net.pagecache import CacheStats

    settings = store_settings(args)
    with _cache(settings) as cache:
        stats = cache.stats() if cache is not None else CacheStats(0, 0, 0, None, None)
    print(printable(f"Page cache of {_whose(settings)} in {settings.store_path()}"))
    for line in stats_lines(stats, settings):
        print(printable(line))
    return 0


def cmd_cache_clear(args: argparse.Namespace) -> int:
    """``quartet cache clear``: remove every entry of the current user's and project's
    cache (the experience logs in the same store stay)."""
    settings = store_settings(args)
    with _cache(settings) as cache:
        before = cache.stats() if cache is not None else None
        removed = cache.clear() if cache is not None else 0
    size = f" ({mib(before.bytes)})" if before is not None and removed else ""
    entries = "entry" if removed == 1 else "entries"
    whose = _whose(settings)
    print(printable(f"Removed {removed} {entries}{size} from the page cache of {whose}."))
    return 0
