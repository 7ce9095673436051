"""The storage backend protocol: what a FileDomainService needs from a store.

Backends receive paths that are already validated and permitted; they only store.
They are synchronous; the service runs them off the event loop.
"""

from __future__ import annotations

import io
import stat as stat_mod
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from ..errors import FileTooLargeError

#: ``Entry.kind`` of a regular file and of a directory; anything else is a special file.
FILE = "file"
DIRECTORY = "directory"


@dataclass(frozen=True)
class Entry:
    """One file or directory as a backend reports it.

    ``kind`` is ``"file"``, ``"directory"``, or what a special file is (``"named pipe
    (FIFO)"``, ``"character device"``, ``"block device"``, ``"socket"``): such files are
    listed and described but never opened.
    """

    path: str
    name: str
    is_dir: bool
    size: int
    modified: float
    kind: str = FILE

    @property
    def special(self) -> bool:
        """Whether this is neither a regular file nor a directory."""
        return self.kind not in (FILE, DIRECTORY)


def kind_of(mode: int) -> str:
    """The ``Entry.kind`` of a file with stat mode ``mode``."""
    if stat_mod.S_ISREG(mode):
        return FILE
    if stat_mod.S_ISDIR(mode):
        return DIRECTORY
    if stat_mod.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat_mod.S_ISCHR(mode):
        return "character device"
    if stat_mod.S_ISBLK(mode):
        return "block device"
    if stat_mod.S_ISSOCK(mode):
        return "socket"
    return "special file"


class StorageBackend(Protocol):
    """A store of files addressed by validated logical paths."""

    def stat(self, path: str) -> Entry:
        """Describe the file or directory at ``path`` (NotFoundError if absent)."""
        ...

    def list_dir(self, path: str) -> list[Entry]:
        """The direct children of the directory at ``path``, sorted by name."""
        ...

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        """The whole file; FileTooLargeError when it is larger than ``max_bytes``.

        Only regular files are read: a named pipe, device or socket raises
        SpecialFileError at once, without waiting on it.
        """
        ...

    def open_atomic(self, path: str, max_bytes: int) -> AbstractContextManager[BinaryIO]:
        """A writer whose content replaces ``path`` only when the block exits cleanly.

        Parent directories are created. Writing past ``max_bytes`` raises
        FileTooLargeError; any exception discards the new content and leaves the old
        file as it was.
        """
        ...

    def delete(self, path: str) -> None:
        """Remove the file at ``path`` (directories are refused)."""
        ...

    def walk_files(self, path: str) -> Iterator[Entry]:
        """Every regular file below the directory at ``path``, depth first, sorted."""
        ...


class CappedBuffer(io.BytesIO):
    """An in-memory writer that refuses to grow past a cap (FileTooLargeError)."""

    def __init__(self, path: str, max_bytes: int) -> None:
        super().__init__()
        self._path, self._max = path, max_bytes

    def write(self, data) -> int:  # type: ignore[override]
        if self.tell() + len(data) > self._max:
            raise FileTooLargeError(
                f"Error: writing {self._path} would exceed the {self._max}-byte cap.", self._path
            )
        return super().write(data)
