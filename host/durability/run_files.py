"""Files read from a run folder without following a symbolic link at any level.

A run folder may come from elsewhere (copied, unpacked, shared): its own folder, a folder
on the way to one of its files, or the file itself may be a symbolic link to something
outside the runs folder. What ``quartet runs``, ``quartet show``, ``quartet resume`` and
the web app read from a run folder is opened here, one folder at a time, each step with
``O_NOFOLLOW`` relative to the folder opened before it (the run's own folder included), so
a link anywhere below the runs folder is refused, never followed, and a link swapped in
during the walk cannot redirect it. Only a plain file is read (a named pipe or a device
could block or never end), and never more than the caller's cap.

A refusal is :class:`FileRefused`, whose message says why in words, naming the file by
its place in the run folder (never by an absolute path); a file that is not there is
:class:`FileNotFoundError`. The module imports only the standard library.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a named pipe opens at once instead of waiting for a writer (fstat refuses it)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_MB = 1024 * 1024


class FileRefused(OSError):
    """A file of a run folder that is not read: a symbolic link on the way to it, not a
    plain file, larger than its cap, or unreadable. The message says which in words."""


class FileTooLarge(FileRefused):
    """A file of a run folder larger than the caller's cap (nothing else is wrong)."""


def _parts(relative: str) -> list[str]:
    """The steps of ``relative`` inside the run folder; FileRefused for an empty path, a
    ``.`` or ``..`` step, a backslash or a NUL."""
    parts = [p for p in relative.split("/") if p]
    if not parts or any(p in (".", "..") or "\\" in p or "\x00" in p for p in parts):
        raise FileRefused(f"{relative!r} is not a path inside the run folder")
    return parts


def _refusal(exc: OSError, what: str, linked: bool = False) -> OSError:
    """The error an ``os.open`` of ``what`` (words naming it) failed with, as told here;
    ``linked`` when the step is known to be a symbolic link."""
    if exc.errno == errno.ENOENT:
        return FileNotFoundError(errno.ENOENT, f"{what} is not there")
    # O_NOFOLLOW met a link: ELOOP (EMLINK on BSD; ENOTDIR with O_DIRECTORY on Linux)
    if linked or exc.errno in (errno.ELOOP, errno.EMLINK):
        return FileRefused(f"{what} is a symbolic link")
    if exc.errno == errno.ENOTDIR:
        return FileRefused(f"{what} is not a folder")
    return FileRefused(f"{what} could not be read ({exc.strerror or 'refused'})")


def _is_link(name: str | Path, dir_fd: int | None = None) -> bool:
    """Whether ``name`` (in the folder open as ``dir_fd``) is a symbolic link."""
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_file(folder: Path, relative: str) -> BinaryIO:
    """The plain file ``relative`` of the run folder ``folder``, open for reading; the
    caller closes it (:func:`opened` closes it when its block ends).

    Args:
        folder: the run's folder (itself refused when it is a symbolic link).
        relative: the file's path inside it, ``/``-separated (``internal/run.json``).

    Returns:
        The file, open in binary mode: what is read from it is what was checked, even
        when a link is put in its place afterwards.

    Raises:
        FileNotFoundError: it, or a folder on the way to it, is not there.
        FileRefused: a step is a symbolic link, a step is not a folder, the file is not
            a plain file, or it could not be opened.
    """
    parts = _parts(relative)
    try:
        fd = os.open(folder, _DIR_FLAGS)
    except OSError as exc:
        raise _refusal(exc, "the run's folder", _is_link(folder)) from None
    try:
        for n, part in enumerate(parts[:-1], 1):
            try:
                step = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise _refusal(exc, "/".join(parts[:n]), _is_link(part, fd)) from None
            os.close(fd)
            fd = step
        return _plain(parts[-1], fd, relative)
    finally:
        os.close(fd)


def _plain(name: str, dir_fd: int, shown: str) -> BinaryIO:
    """The plain file ``name`` of the folder open as ``dir_fd``, opened without following
    a link; ``shown`` names it in a refusal."""
    try:
        file_fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise _refusal(exc, shown) from None
    try:
        if not stat.S_ISREG(os.fstat(file_fd).st_mode):
            raise FileRefused(f"{shown} is not a plain file")
        os.set_blocking(file_fd, True)
        return os.fdopen(file_fd, "rb")
    except BaseException:
        os.close(file_fd)
        raise


@contextlib.contextmanager
def opened(folder: Path, relative: str) -> Iterator[BinaryIO]:
    """The plain file ``relative`` of the run folder ``folder``, open for reading until
    the block ends (see :func:`open_file`)."""
    with open_file(folder, relative) as handle:
        yield handle


def plain_files(folder: Path) -> Iterator[tuple[str, BinaryIO]]:
    """Every plain file under the run folder ``folder`` with its path inside it, each
    open until the next is asked for. The folders are walked by descriptor and each
    file opened relative to its folder's, never following a link: a link, or a folder
    swapped for one during the walk, is left out with what it points at."""
    for root, _, files, root_fd in os.fwalk(folder, follow_symlinks=False):
        base = Path(root).relative_to(folder)
        for name in sorted(files):
            relative = (base / name).as_posix()
            try:
                handle = _plain(name, root_fd, relative)
            except OSError:  # a link, a pipe, or gone: left out
                continue
            with handle:
                yield relative, handle


def read_bytes(folder: Path, relative: str, limit: int) -> bytes:
    """The bytes of the plain file ``relative`` of the run folder ``folder`` (see
    :func:`opened`), when it holds at most ``limit`` of them.

    Raises:
        FileNotFoundError: it is not there.
        FileRefused: it is refused (see :func:`opened`), or larger than ``limit`` bytes
            (:class:`FileTooLarge`).
    """
    with opened(folder, relative) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(f"{relative} is larger than {size_words(limit)}, too large to read")
    return data


def read_text(folder: Path, relative: str, limit: int) -> str:
    """The text (UTF-8, undecodable bytes replaced) of the file ``relative`` of the run
    folder ``folder``: :func:`read_bytes` decoded."""
    return read_bytes(folder, relative, limit).decode("utf-8", errors="replace")


@contextlib.contextmanager
def text_lines(folder: Path, relative: str, limit: int) -> Iterator[Iterator[str]]:
    """The lines of the text file ``relative`` of the run folder ``folder`` (a JSON lines
    ledger), read as they are used.

    Args:
        folder: the run's folder.
        relative: the file's path inside it.
        limit: the most bytes the file may hold; a larger one is refused before a line
            is read.

    Yields:
        An iterator over its lines (UTF-8, undecodable bytes replaced).

    Raises:
        FileNotFoundError: it is not there.
        FileRefused: it is refused (see :func:`opened`), or larger than ``limit`` bytes.
    """
    with opened(folder, relative) as handle:
        if os.fstat(handle.fileno()).st_size > limit:
            raise FileTooLarge(f"{relative} is larger than {size_words(limit)}, too large to read")
        text = io.TextIOWrapper(handle, encoding="utf-8", errors="replace")
        try:
            yield iter(text)
        finally:
            text.detach()  # the handle is closed by ``opened``


def is_plain_file(folder: Path, relative: str) -> bool:
    """Whether ``relative`` is a plain file of the run folder ``folder``, reached without
    a symbolic link."""
    try:
        with opened(folder, relative):
            return True
    except OSError:
        return False


def size_words(size: int) -> str:
    """A size in words: ``8 MB``, ``512 bytes``."""
    return f"{size // _MB} MB" if size >= _MB and size % _MB == 0 else f"{size} bytes"
