"""The page cache as tests build it: a clock they move, a cache on a SQLite store in a
temporary folder, and one cache for each of three namespaces (two users, two projects)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fs_service.backends import StoreFileSystem
from subagents.net.pagecache import MIB, PageCache

HOUR = 3600.0
#: The moment a test's clock starts at.
T0 = 1_800_000_000.0


class Clock:
    """The time the cache sees; tests move it."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_cache(
    path: Path, clock: Clock, user: str = "alice", project: str = "p", fresh: float = HOUR
) -> PageCache:
    """A page cache on the store in ``path`` for ``user``'s ``project``, whose entries stay
    fresh for ``fresh`` seconds of ``clock``."""
    store = StoreFileSystem(path / "store.sqlite", user, project, 64 * MIB, clock=clock)
    return PageCache(store, fresh, clock)


@contextmanager
def three_namespaces(path: Path, clock: Clock) -> Iterator[list[PageCache]]:
    """Caches on one store for alice's project p, bob's project p and alice's project q,
    closed at the end."""
    caches = [
        make_cache(path, clock, "alice", "p"),
        make_cache(path, clock, "bob", "p"),
        make_cache(path, clock, "alice", "q"),
    ]
    try:
        yield caches
    finally:
        for cache in caches:
            cache.close()
