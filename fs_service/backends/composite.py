"""A backend of backends: each path goes to the one mounted at its longest prefix.

Prefixes are directories (``/memories/`` holds ``/memories/a.md`` but not
``/memoriesx``), and ``/`` is the default route. Paths reach the chosen backend
unchanged. A mount point and the directories leading to it always exist: listing ``/``
shows ``memories`` even when nothing is stored there yet, and files a backend holds below
another backend's mount are hidden behind that mount.

A FileDomainService sits on a composite as on any backend: its ``create_handle`` limits
the service to grants that name prefixes, wherever each prefix lives, so the grants stay
the same whatever the routes. A run whose memory store is open keeps its files in one:
``/`` is the run folder on disk and ``/memories/`` the store's namespace.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import BinaryIO

from ..errors import IsADirectoryError_, NotADirectoryError_, NotFoundError
from ..grants import FileSystemHandle, Grant
from ..paths import join, segments, validate_path
from .base import DIRECTORY, Entry, StorageBackend

DEFAULT_ROUTE = "/"


def _key(path: str) -> str:
    return "/" + "/".join(segments(path))


def _as_dir(key: str) -> str:
    """``key`` with one trailing slash, the form prefixes take."""
    return key.rstrip("/") + "/"


def _dir_entry(key: str) -> Entry:
    name = key.rsplit("/", 1)[-1]
    return Entry(key if key == "/" else key + "/", name, True, 0, 0.0, DIRECTORY)


def _check_prefix(prefix: str) -> None:
    if not isinstance(prefix, str) or not prefix.startswith("/") or not prefix.endswith("/"):
        raise ValueError(f"route prefix must look like '/name/', got {prefix!r}")
    validate_path(prefix)


class CompositeFileSystem:
    """Routes each path to the backend whose prefix is the longest that contains it.

    Args:
        routes: prefix → backend, e.g. ``{"/": workspace, "/memories/": memories}``;
            ``/`` is required, every prefix starts and ends with ``/``.

    Raises:
        ValueError: the default route ``/`` is missing, or a prefix is malformed.
    """

    def __init__(self, routes: Mapping[str, StorageBackend]) -> None:
        for prefix in routes:
            _check_prefix(prefix)
        if DEFAULT_ROUTE not in routes:
            raise ValueError("routes need the default route '/'")
        self._routes = sorted(routes.items(), key=lambda route: -len(route[0]))

    @property
    def routes(self) -> dict[str, StorageBackend]:
        """Prefix → backend, longest prefix first."""
        return dict(self._routes)

    def create_handle(self, grants: list[dict] | list[Grant]) -> FileSystemHandle:
        """A handle limited to ``grants``, which name prefixes whatever backend holds them.

        Each granted prefix is made to exist in the backend it routes to, as that
        backend's own ``create_handle`` makes it (a folder on disk, an empty directory in
        memory); a backend without one (the store, whose directories are implied) needs
        nothing.
        """
        handle = FileSystemHandle(self, grants)
        for grant in handle.grants:
            _, backend = self._route(_key(grant.prefix))
            make = getattr(backend, "create_handle", None)
            if make is not None:
                make([grant])
        return handle

    # -- routing --------------------------------------------------------------------

    def _route(self, key: str) -> tuple[str, StorageBackend]:
        """The prefix and backend that hold ``key``."""
        probe = _as_dir(key)
        return next(route for route in self._routes if probe.startswith(route[0]))

    def _mounted(self, key: str) -> bool:
        """Whether ``key`` is a mount point or a directory leading to one."""
        probe = _as_dir(key)
        return any(prefix.startswith(probe) for prefix, _ in self._routes)

    def _mounts_below(self, key: str) -> list[tuple[str, StorageBackend]]:
        """The routes whose prefixes lie strictly below directory ``key``."""
        base = _as_dir(key)
        return [(p, b) for p, b in self._routes if p.startswith(base) and p != base]

    def _refuse_mounted(self, key: str, path: str, what: str) -> None:
        if self._mounted(key):
            raise IsADirectoryError_(f"Error: {path} is a directory{what}", path)

    # -- the protocol ---------------------------------------------------------------

    def stat(self, path: str) -> Entry:
        key = _key(path)
        _, backend = self._route(key)
        if not self._mounted(key):
            return backend.stat(path)
        try:
            entry = backend.stat(path)
        except (NotFoundError, NotADirectoryError_):
            return _dir_entry(key)
        return entry if entry.is_dir else _dir_entry(key)

    def list_dir(self, path: str) -> list[Entry]:
        key = _key(path)
        prefix, backend = self._route(key)
        try:
            listed = backend.list_dir(path)
        except (NotFoundError, NotADirectoryError_):
            if not self._mounted(key):
                raise
            listed = []
        children = {e.name: e for e in listed if self._route(_key(e.path))[0] == prefix}
        base = _as_dir(key)
        for mount, _ in self._mounts_below(key):
            name = mount[len(base) :].split("/", 1)[0]
            if name not in children or not children[name].is_dir:
                children[name] = _dir_entry(join(base, name))
        return [children[name] for name in sorted(children)]

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        key = _key(path)
        self._refuse_mounted(key, path, ", not a file.")
        return self._route(key)[1].read_bytes(path, max_bytes)

    @contextmanager
    def open_atomic(self, path: str, max_bytes: int) -> Iterator[BinaryIO]:
        key = _key(path)
        self._refuse_mounted(key, path, ", not a file.")
        with self._route(key)[1].open_atomic(path, max_bytes) as fh:
            yield fh

    def delete(self, path: str) -> None:
        key = _key(path)
        self._refuse_mounted(key, path, "; delete the files inside it instead.")
        self._route(key)[1].delete(path)

    def walk_files(self, path: str) -> Iterator[Entry]:
        key = _key(path)
        sources = [(*self._route(key), path), *((p, b, p) for p, b in self._mounts_below(key))]
        found: list[Entry] = []
        for prefix, backend, start in sources:
            found.extend(self._walk_route(prefix, backend, start))
        yield from sorted(found, key=lambda entry: segments(entry.path))

    def _walk_route(self, prefix: str, backend: StorageBackend, start: str) -> list[Entry]:
        """The files ``backend`` holds below ``start`` that route to ``prefix``."""
        try:
            entries = list(backend.walk_files(start))
        except (NotFoundError, NotADirectoryError_):
            if not self._mounted(_key(start)):
                raise
            return []
        return [e for e in entries if self._route(_key(e.path))[0] == prefix]
