"""Storage backends behind one protocol."""

from .base import Entry, StorageBackend
from .composite import CompositeFileSystem
from .disk import DiskFileSystem
from .memory import MemoryFileSystem
from .store import StoreFileSystem

__all__ = [
    "CompositeFileSystem",
    "DiskFileSystem",
    "Entry",
    "MemoryFileSystem",
    "StorageBackend",
    "StoreFileSystem",
]
