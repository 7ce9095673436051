"""A disk backend: each logical prefix lives in a real folder.

Every access walks the path one directory at a time with ``O_NOFOLLOW`` relative to the
previous directory's descriptor, so a symbolic link anywhere below a mount is refused
rather than followed, and a link swapped in during the walk cannot redirect it.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat as stat_mod
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import BinaryIO

from ..errors import (
    FileTooLargeError,
    FsError,
    IsADirectoryError_,
    NotADirectoryError_,
    NotFoundError,
    SpecialFileError,
    StorageError,
    SymlinkRefusedError,
)
from ..grants import FileSystemHandle, Grant
from ..paths import disk_name, escape_name, join, segments
from .base import DIRECTORY, FILE, Entry, kind_of

#: The temporary file an atomic write fills before renaming it into place
#: (``.NAME.TOKEN.part``): never listed.
_PENDING_TOKEN_BYTES = 6
_PENDING = re.compile(rf"^\..+\.[0-9a-f]{{{2 * _PENDING_TOKEN_BYTES}}}\.part$", re.S)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _CappedFile:
    """A binary writer that refuses to grow past a cap."""

    def __init__(self, raw: BinaryIO, path: str, max_bytes: int) -> None:
        self._raw, self._path, self._max, self.written = raw, path, max_bytes, 0

    def write(self, data: bytes) -> int:
        if self.written + len(data) > self._max:
            raise FileTooLargeError(
                f"Error: writing {self._path} would exceed the {self._max}-byte cap.", self._path
            )
        self.written += len(data)
        return self._raw.write(data)


def _refuse_link(path: str) -> SymlinkRefusedError:
    return SymlinkRefusedError(
        f"Error: {path} passes through a symbolic link; links are never followed.", path
    )


def _require_regular(st: os.stat_result, path: str) -> None:
    """Refuse anything but a regular file: a directory, a named pipe, a device, a socket."""
    kind = kind_of(st.st_mode)
    if kind == FILE:
        return
    if kind == DIRECTORY:
        raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
    raise SpecialFileError(
        f"Error: {path} is a {kind}, not a regular file; it is never opened, because "
        "reading it could wait forever or never end. Use a regular file instead.",
        path,
    )


def _entry(logical: str, name: str, st: os.stat_result) -> Entry:
    kind = kind_of(st.st_mode)
    is_dir = kind == DIRECTORY
    size = st.st_size if kind == FILE else 0
    return Entry(logical + ("/" if is_dir else ""), name, is_dir, size, st.st_mtime, kind)


class DiskFileSystem:
    """Stores each logical prefix in a folder: mounts first, the rest below ``root``.

    Args:
        root: folder holding every prefix that is not mounted elsewhere
            (``/workspace/`` lives in ``root/workspace``).
        mounts: logical prefix → existing folder, e.g. ``{"/userinput/": input_dir}``.
    """

    def __init__(self, root: str | os.PathLike, mounts: dict[str, str | os.PathLike] | None = None):
        self.root = Path(os.path.realpath(root))
        self.root.mkdir(parents=True, exist_ok=True)
        self.mounts: dict[str, Path] = {}
        for prefix, folder in (mounts or {}).items():
            if not prefix.startswith("/") or not prefix.endswith("/"):
                raise ValueError(f"mount prefix must look like '/name/', got {prefix!r}")
            real = Path(os.path.realpath(folder))
            if not real.is_dir():
                raise ValueError(f"mount folder for {prefix} is not a directory: {folder}")
            self.mounts[prefix] = real

    def create_handle(self, grants: list[dict] | list[Grant]) -> FileSystemHandle:
        """A handle limited to ``grants``; granted prefix folders are created if missing."""
        handle = FileSystemHandle(self, grants)
        for grant in handle.grants:
            base, parts = self._locate(grant.prefix)
            if parts:
                fd, _ = self._open_dir(base, parts, grant.prefix, create=True)
                os.close(fd)
        return handle

    # -- locating -------------------------------------------------------------------

    def _locate(self, path: str) -> tuple[Path, list[str]]:
        """The folder a path lives under and its names below it, as the OS takes them."""
        parts = [disk_name(p) for p in segments(path)]
        best = ""
        for prefix in self.mounts:
            if (path + "/").startswith(prefix) and len(prefix) > len(best):
                best = prefix
        if best:
            return self.mounts[best], parts[len(segments(best)) :]
        return self.root, parts

    def _open_dir(
        self, base: Path, parts: list[str], path: str, create: bool = False
    ) -> tuple[int, list[str]]:
        """Open the directory ``base/parts`` without following links.

        Returns its descriptor and the names of directories this call created.
        """
        created: list[str] = []
        fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for part in parts:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                        created.append(part)
                    except FileExistsError:
                        pass
                try:
                    nfd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    raise NotFoundError(f"Error: {path} does not exist.", path) from None
                except OSError as exc:
                    st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                    if stat_mod.S_ISLNK(st.st_mode):
                        raise _refuse_link(path) from None
                    if exc.errno == errno.ENOTDIR:
                        raise NotADirectoryError_(
                            f"Error: a part of {path} is a file, not a directory.", path
                        ) from None
                    raise
                os.close(fd)
                fd = nfd
            return fd, created
        except BaseException:
            os.close(fd)
            raise

    def _parent(self, path: str, create: bool = False) -> tuple[int, str, list[str]]:
        base, parts = self._locate(path)
        if not parts:
            raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
        fd, created = self._open_dir(base, parts[:-1], path, create=create)
        return fd, parts[-1], created

    def _lstat(self, name: str, dir_fd: int, path: str) -> os.stat_result | None:
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat_mod.S_ISLNK(st.st_mode):
            raise _refuse_link(path)
        return st

    # -- the protocol ---------------------------------------------------------------

    def stat(self, path: str) -> Entry:
        base, parts = self._locate(path)
        if not parts:
            st = os.stat(base)
            return Entry(path, "", True, 0, st.st_mtime, DIRECTORY)
        fd, name, _ = self._parent(path)
        try:
            st = self._lstat(name, fd, path)
        finally:
            os.close(fd)
        if st is None:
            raise NotFoundError(f"Error: {path} does not exist.", path)
        return _entry("/" + "/".join(segments(path)), escape_name(name), st)

    def list_dir(self, path: str) -> list[Entry]:
        base, parts = self._locate(path)
        fd, _ = self._open_dir(base, parts, path)
        logical = "/" + "/".join(segments(path))
        try:
            out = []
            with os.scandir(fd) as it:
                for e in it:
                    if _PENDING.match(e.name):
                        continue  # a write in progress: the file appears whole when it ends
                    try:
                        if e.is_symlink():
                            continue
                        # lstat only: a named pipe or device is described, never opened.
                        st = e.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue  # removed or renamed while the directory was listed
                    name = escape_name(e.name)
                    out.append(_entry(join(logical, name), name, st))
        finally:
            os.close(fd)
        return sorted(out, key=lambda e: e.name)

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        pfd, name, _ = self._parent(path)
        try:
            st = self._lstat(name, pfd, path)
            if st is None:
                raise NotFoundError(f"Error: {path} does not exist.", path)
            _require_regular(st, path)
            # O_NONBLOCK: should a named pipe be swapped in after the check, opening it
            # returns at once instead of waiting for a writer; fstat then refuses it.
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
            try:
                fd = os.open(name, flags, dir_fd=pfd)
            except FileNotFoundError:
                raise NotFoundError(f"Error: {path} does not exist.", path) from None
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise _refuse_link(path) from None
                raise StorageError(f"Error: could not open {path}: {exc.strerror}.", path) from None
        finally:
            os.close(pfd)
        try:
            st = os.fstat(fd)
            _require_regular(st, path)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        with os.fdopen(fd, "rb") as fh:
            if st.st_size > max_bytes:
                raise FileTooLargeError(
                    f"Error: {path} is {st.st_size} bytes, over the {max_bytes}-byte read cap.",
                    path,
                )
            # As much as fstat says the file holds (a buffer of the cap would be allocated
            # whole on every read), then the rest up to the cap if it grew since.
            want = st.st_size + 1
            data = fh.read(want)
            if len(data) == want:
                data += fh.read(max_bytes + 1 - want)
        if len(data) > max_bytes:
            raise FileTooLargeError(f"Error: {path} is over the {max_bytes}-byte read cap.", path)
        return data

    @contextmanager
    def open_atomic(self, path: str, max_bytes: int) -> Iterator[_CappedFile]:
        pfd, name, created = self._parent(path, create=True)
        tmp = f".{name[:200]}.{secrets.token_hex(_PENDING_TOKEN_BYTES)}.part"
        committed = False
        try:
            st = self._lstat(name, pfd, path)
            if st is not None and stat_mod.S_ISDIR(st.st_mode):
                raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
            fd = os.open(
                tmp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o644,
                dir_fd=pfd,
            )
            try:
                with os.fdopen(fd, "wb") as raw:
                    yield _CappedFile(raw, path, max_bytes)
                    raw.flush()
                    os.fsync(raw.fileno())
                os.replace(tmp, name, src_dir_fd=pfd, dst_dir_fd=pfd)
                committed = True
            finally:
                if not committed:
                    with suppress(FileNotFoundError):
                        os.unlink(tmp, dir_fd=pfd)
        except OSError as exc:
            raise StorageError(f"Error: could not write {path}: {exc.strerror}.", path) from None
        finally:
            os.close(pfd)
            if not committed:
                self._remove_created(path, created)

    def _remove_created(self, path: str, created: list[str]) -> None:
        """Undo directories a failed write created, deepest first, if still empty."""
        if not created:
            return
        base, parts = self._locate(path)
        dirs = parts[:-1]
        first = len(dirs) - len(created)
        for depth in range(len(dirs), first, -1):
            try:
                fd, _ = self._open_dir(base, dirs[: depth - 1], path)
            except FsError:
                return
            try:
                os.rmdir(dirs[depth - 1], dir_fd=fd)
            except OSError:
                return
            finally:
                os.close(fd)

    def delete(self, path: str) -> None:
        pfd, name, _ = self._parent(path)
        try:
            st = self._lstat(name, pfd, path)
            if st is None:
                raise NotFoundError(f"Error: {path} does not exist.", path)
            if stat_mod.S_ISDIR(st.st_mode):
                raise IsADirectoryError_(
                    f"Error: {path} is a directory; delete the files inside it instead.", path
                )
            os.unlink(name, dir_fd=pfd)
        finally:
            os.close(pfd)

    def walk_files(self, path: str) -> Iterator[Entry]:
        for entry in self.list_dir(path):
            if entry.is_dir:
                try:
                    yield from self.walk_files(entry.path)
                except NotFoundError:
                    continue  # removed while the walk was under way
            elif not entry.special:
                yield entry
