"""An in-memory backend: files as bytes in a dict, directories implied by their files."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import FileTooLargeError, IsADirectoryError_, NotADirectoryError_, NotFoundError
from ..grants import FileSystemHandle, Grant
from ..paths import join, segments
from .base import DIRECTORY, CappedBuffer, Entry


class MemoryFileSystem:
    """Keeps every file in memory. Useful for tests and throw-away runs."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[bytes, float]] = {}
        self._dirs: set[str] = set()
        self._lock = threading.Lock()

    def create_handle(self, grants: list[dict] | list[Grant]) -> FileSystemHandle:
        """A handle limited to ``grants``; granted prefixes exist as (empty) directories."""
        handle = FileSystemHandle(self, grants)
        for grant in handle.grants:
            self.mkdir(grant.prefix)
        return handle

    @staticmethod
    def _key(path: str) -> str:
        return "/" + "/".join(segments(path))

    def _is_dir(self, key: str) -> bool:
        if key == "/" or key in self._dirs:
            return True
        prefix = key + "/"
        return any(k.startswith(prefix) for k in self._files)

    def stat(self, path: str) -> Entry:
        key = self._key(path)
        with self._lock:
            if key in self._files:
                data, mtime = self._files[key]
                return Entry(key, key.rsplit("/", 1)[-1], False, len(data), mtime)
            if self._is_dir(key):
                return Entry(key + "/", key.rsplit("/", 1)[-1], True, 0, 0.0, DIRECTORY)
        raise NotFoundError(f"Error: {path} does not exist.", path)

    def list_dir(self, path: str) -> list[Entry]:
        key = self._key(path)
        with self._lock:
            if key in self._files:
                raise NotADirectoryError_(f"Error: {path} is a file, not a directory.", path)
            if not self._is_dir(key):
                raise NotFoundError(f"Error: {path} does not exist.", path)
            base = key.rstrip("/") + "/"
            names: dict[str, Entry] = {}
            for k, (data, mtime) in self._files.items():
                if k.startswith(base):
                    rest = k[len(base) :]
                    name, _, deeper = rest.partition("/")
                    child = join(base, name)
                    names[name] = (
                        Entry(child + "/", name, True, 0, 0.0, DIRECTORY)
                        if deeper
                        else Entry(child, name, False, len(data), mtime)
                    )
            for d in self._dirs:
                if d.startswith(base) and "/" not in d[len(base) :]:
                    name = d[len(base) :]
                    names.setdefault(name, Entry(d + "/", name, True, 0, 0.0, DIRECTORY))
        return [names[n] for n in sorted(names)]

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        key = self._key(path)
        with self._lock:
            if key not in self._files:
                if self._is_dir(key):
                    raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
                raise NotFoundError(f"Error: {path} does not exist.", path)
            data = self._files[key][0]
        if len(data) > max_bytes:
            raise FileTooLargeError(
                f"Error: {path} is {len(data)} bytes, over the {max_bytes}-byte read cap.", path
            )
        return data

    @contextmanager
    def open_atomic(self, path: str, max_bytes: int) -> Iterator[io.BytesIO]:
        key = self._key(path)
        with self._lock:
            if self._is_dir(key):
                raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
            parts = segments(key)
            for i in range(1, len(parts)):
                if "/" + "/".join(parts[:i]) in self._files:
                    raise NotADirectoryError_(
                        f"Error: {'/' + '/'.join(parts[:i])} is a file, not a directory.", path
                    )
        buf = CappedBuffer(path, max_bytes)
        yield buf
        with self._lock:
            self._files[key] = (buf.getvalue(), time.time())

    def delete(self, path: str) -> None:
        key = self._key(path)
        with self._lock:
            if key in self._files:
                del self._files[key]
                return
            if self._is_dir(key):
                raise IsADirectoryError_(
                    f"Error: {path} is a directory; delete the files inside it instead.", path
                )
        raise NotFoundError(f"Error: {path} does not exist.", path)

    def walk_files(self, path: str) -> Iterator[Entry]:
        base = self._key(path).rstrip("/") + "/"
        with self._lock:
            items = sorted((k, v) for k, v in self._files.items() if k.startswith(base))
        for k, (data, mtime) in items:
            yield Entry(k, k.rsplit("/", 1)[-1], False, len(data), mtime)

    def mkdir(self, path: str) -> None:
        """Create an empty directory (parents implied)."""
        with self._lock:
            self._dirs.add(self._key(path))
