"""FileDomainService: the one door through which tools touch files."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from .backends.base import Entry
from .errors import FsError, InvalidPathError, IsADirectoryError_, NotFoundError
from .grants import FileSystemHandle, Grant

DEFAULT_MAX_READ = 64 * 1024 * 1024
DEFAULT_MAX_WRITE = 64 * 1024 * 1024


@dataclass(frozen=True)
class Match:
    """One line matched by :meth:`FileDomainService.search`."""

    path: str
    line_number: int
    line: str


class FileDomainService:
    """Typed, permission-checked file operations over a :class:`FileSystemHandle`.

    Every method validates the path, checks the grant for its operation and only then
    calls the backend. Writes are atomic and capped.
    """

    def __init__(
        self,
        handle: FileSystemHandle,
        max_read_bytes: int = DEFAULT_MAX_READ,
        max_write_bytes: int = DEFAULT_MAX_WRITE,
    ) -> None:
        self.handle = handle
        self.max_read_bytes = max_read_bytes
        self.max_write_bytes = max_write_bytes

    @property
    def backend(self) -> Any:
        return self.handle.backend

    @property
    def grants(self) -> tuple[Grant, ...]:
        return self.handle.grants

    def describe_grants_markdown(self) -> str:
        """The prompt lines telling a model what it may read and write."""
        return self.handle.describe_grants_markdown()

    def check(self, path: object, op: str) -> str:
        """Validate ``path`` for ``op`` without touching storage; return it."""
        return self.handle.check(path, op)

    def can(self, path: str, op: str) -> bool:
        """Whether ``op`` on ``path`` would pass validation and grants."""
        try:
            self.handle.check(path, op)
        except FsError:
            return False
        return True

    async def list_dir(self, path: str) -> list[Entry]:
        """Children of a directory (op ``list``)."""
        clean = self.check(path, "list")
        return await asyncio.to_thread(self.backend.list_dir, clean)

    async def stat(self, path: str) -> Entry:
        """Size, kind and modification time (op ``file``)."""
        clean = self.check(path, "file")
        return await asyncio.to_thread(self.backend.stat, clean)

    async def exists(self, path: str) -> bool:
        """Whether something exists at ``path`` (op ``file``)."""
        try:
            await self.stat(path)
        except NotFoundError:
            return False
        return True

    async def read_bytes(self, path: str, max_bytes: int | None = None) -> bytes:
        """The whole file as bytes (op ``read_binary``)."""
        clean = self.check(path, "read_binary")
        cap = min(max_bytes or self.max_read_bytes, self.max_read_bytes)
        return await asyncio.to_thread(self.backend.read_bytes, clean, cap)

    async def read_text(self, path: str, max_bytes: int | None = None) -> str:
        """The whole file as UTF-8 text, BOM removed (op ``read_file``).

        Raises:
            InvalidPathError: never for content; see FsError for binary or non-UTF-8 files.
        """
        clean = self.check(path, "read_file")
        cap = min(max_bytes or self.max_read_bytes, self.max_read_bytes)
        data = await asyncio.to_thread(self.backend.read_bytes, clean, cap)
        if b"\x00" in data[:8192]:
            raise FsError(
                f"Error: {clean} looks like a binary file, not text. Use the reader for its "
                "type (pdf_read_text, xlsx_read_cells, pptx_read_outline, image_qa).",
                clean,
            )
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise FsError(
                f"Error: {clean} is not valid UTF-8 (byte {exc.start}). It may be in another "
                "encoding or binary.",
                clean,
            ) from None

    async def write_bytes(self, path: str, data: bytes) -> Entry:
        """Replace the file atomically with ``data`` (op ``write``).

        The write, its flush to disk and the rename run in a worker thread, so a slow
        disk does not hold up the event loop.
        """
        clean, cap = self._write_target(path, None)

        def write() -> Entry:
            with self.backend.open_atomic(clean, cap) as fh:
                fh.write(data)
            return self.backend.stat(clean)

        return await asyncio.to_thread(write)

    async def write_text(self, path: str, text: str) -> Entry:
        """Replace the file atomically with UTF-8 ``text`` (op ``write``)."""
        return await self.write_bytes(path, text.encode("utf-8"))

    @asynccontextmanager
    async def open_write(self, path: str, max_bytes: int | None = None) -> AsyncIterator[Any]:
        """An atomic writer: ``async with svc.open_write(p) as fh: fh.write(chunk)``.

        The new content replaces ``path`` only if the block finishes without an
        exception; otherwise nothing at ``path`` changes.
        """
        clean, cap = self._write_target(path, max_bytes)
        with self.backend.open_atomic(clean, cap) as fh:
            yield fh

    def _write_target(self, path: str, max_bytes: int | None) -> tuple[str, int]:
        """The checked path of a write and its size cap."""
        clean = self.check(path, "write")
        if clean.endswith("/"):
            raise IsADirectoryError_(f"Error: {clean} names a directory, not a file.", clean)
        return clean, min(max_bytes or self.max_write_bytes, self.max_write_bytes)

    async def delete(self, path: str) -> None:
        """Remove a file (op ``delete``)."""
        clean = self.check(path, "delete")
        await asyncio.to_thread(self.backend.delete, clean)

    async def walk_files(self, path: str) -> list[Entry]:
        """Every file below a directory (op ``list``)."""
        clean = self.check(path, "list")
        return await asyncio.to_thread(lambda: list(self.backend.walk_files(clean)))

    async def search(self, path: str, pattern: str, max_matches: int = 200) -> list[Match]:
        """Lines matching a regular expression in a file or below a directory (op ``read_re``).

        Binary and non-UTF-8 files are passed over.
        """
        clean = self.check(path, "read_re")
        try:
            regex = re.compile(pattern)
        except re.error as exc:
            raise InvalidPathError(f"Error: invalid regular expression: {exc}.", clean) from None
        entry = await asyncio.to_thread(self.backend.stat, clean)
        files = (
            [entry]
            if not entry.is_dir
            else await asyncio.to_thread(lambda: list(self.backend.walk_files(clean)))
        )
        matches: list[Match] = []
        for f in files:
            try:
                data = await asyncio.to_thread(self.backend.read_bytes, f.path, self.max_read_bytes)
                text = data.decode("utf-8-sig")
            except (FsError, UnicodeDecodeError):
                continue
            for no, line in enumerate(text.splitlines(), 1):
                if regex.search(line):
                    matches.append(Match(f.path, no, line))
                    if len(matches) >= max_matches:
                        return matches
        return matches
