"""The storage backend protocol: what a FileDomainService needs from a store.

Backends receive paths that are already validated and permitted; they only store.
They are synchronous; the service runs them off the event loop.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import BinaryIO, Protocol


@dataclass(frozen=True)
class Entry:
    """One file or directory as a backend reports it."""

    path: str
    name: str
    is_dir: bool
    size: int
    modified: float


class StorageBackend(Protocol):
    """A store of files addressed by validated logical paths."""

    def stat(self, path: str) -> Entry:
        """Describe the file or directory at ``path`` (NotFoundError if absent)."""
        ...

    def list_dir(self, path: str) -> list[Entry]:
        """The direct children of the directory at ``path``, sorted by name."""
        ...

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        """The whole file; FileTooLargeError when it is larger than ``max_bytes``."""
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
        """Every file below the directory at ``path``, depth first, sorted."""
        ...
