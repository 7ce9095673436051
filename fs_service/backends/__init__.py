"""Storage backends behind one protocol."""

from .base import Entry, StorageBackend
from .disk import DiskFileSystem
from .memory import MemoryFileSystem

__all__ = ["DiskFileSystem", "Entry", "MemoryFileSystem", "StorageBackend"]
