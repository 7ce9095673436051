"""Files uploaded for a run: checked first, then written into a new input folder of the
run's own (mounted read-only as its ``/userinput/``), and nowhere else.

A file's name is a name only: no folder part, no ``..``, no control characters, no
leading dot. Counts and sizes are capped. Nothing is written until every file passed, and
each file is created new in a folder just made (never through a symlink).
"""

from __future__ import annotations

import os
import shutil
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FILES = 20
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_NAME_CHARS = 120
CHUNK = 1024 * 1024


class UploadRefused(ValueError):
    """An upload that breaks a rule; its message says which."""


@dataclass(frozen=True)
class Upload:
    """A checked file: its name and the form's file object."""

    name: str
    file: Any
    size: int


def check_name(name: str) -> str:
    """``name`` in its composed form (NFC: "café" typed or pasted is one name) when it is
    a plain file name; UploadRefused otherwise."""
    name = unicodedata.normalize("NFC", name)
    if not name or len(name) > MAX_NAME_CHARS:
        raise UploadRefused("a file name is empty or too long")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise UploadRefused(f"the file name {name!r} has control characters")
    if "/" in name or "\\" in name or ":" in name or name in (".", "..") or ".." in name:
        raise UploadRefused(f"the file name {name!r} has a folder in it")
    if name.startswith(".") or name != name.strip():
        raise UploadRefused(f"the file name {name!r} starts with a dot or a space")
    return name


def _size(file: Any) -> int:
    handle = file.file
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(0)
    return size


def check_uploads(files: list[Any]) -> list[Upload]:
    """Check the form's files (Starlette ``UploadFile``): names, count and sizes."""
    files = [f for f in files if getattr(f, "filename", None)]
    if len(files) > MAX_FILES:
        raise UploadRefused(f"at most {MAX_FILES} files can be uploaded for a run")
    checked, names, total = [], set(), 0
    for file in files:
        name = check_name(str(file.filename))
        if name.casefold() in names:
            raise UploadRefused(f"two files are named {name!r}")
        names.add(name.casefold())
        size = _size(file)
        if size > MAX_FILE_BYTES:
            raise UploadRefused(f"{name!r} is larger than {MAX_FILE_BYTES // 2**20} MB")
        total += size
        if total > MAX_TOTAL_BYTES:
            raise UploadRefused(f"the files are larger than {MAX_TOTAL_BYTES // 2**20} MB together")
        checked.append(Upload(name, file, size))
    return checked


def save_uploads(uploads: list[Upload], root: Path, folder_name: str) -> Path | None:
    """Write the checked files into a new folder ``root/folder_name``, all or none: they
    are written into a hidden folder beside it, which takes the folder's name once every
    file is in, and is removed when one fails. The folder, or None when there are no
    files."""
    if not uploads:
        return None
    root.mkdir(parents=True, exist_ok=True)
    if root.is_symlink():
        raise UploadRefused("the uploads folder is a symbolic link")
    folder = root / check_name(folder_name)
    if folder.exists() or folder.is_symlink():
        raise UploadRefused("the run's uploads folder exists already")
    partial = root / f".{folder.name}.partial"
    partial.mkdir(mode=0o700)  # new: an existing folder (or link) is an error
    try:
        for upload in uploads:
            _write_new(partial / upload.name, upload)
        os.rename(partial, folder)  # fails on an existing folder: nothing is overwritten
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return folder


def _write_new(path: Path, upload: Upload) -> None:
    """Create ``path`` (never through a link, never over a file) with the upload's bytes."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as out:
        upload.file.file.seek(0)
        while chunk := upload.file.file.read(CHUNK):
            out.write(chunk)
