"""Typed errors of the file domain. Each message says what went wrong and what to do."""

from __future__ import annotations


class FsError(Exception):
    """Base class: every refusal or failure of the file domain."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        return self.message


class InvalidPathError(FsError):
    """The path string is not a clean logical absolute POSIX path."""


class PermissionDeniedError(FsError):
    """The path is outside every grant, or the operation is not granted there."""


class NotFoundError(FsError):
    """Nothing exists at the path."""


class IsADirectoryError_(FsError):
    """A file operation was asked of a directory."""


class NotADirectoryError_(FsError):
    """A directory operation was asked of a file."""


class SymlinkRefusedError(FsError):
    """A symbolic link was found on the disk path; links are never followed."""


class SpecialFileError(FsError):
    """The path is a named pipe, device or socket: not a regular file, so it is never opened."""


class FileTooLargeError(FsError):
    """A read or write is over the size cap."""


class StorageError(FsError):
    """The storage backend failed (disk full, I/O error)."""


class StoreFormatError(StorageError):
    """The database file of a store cannot be used: it is not SQLite, or a newer schema."""
