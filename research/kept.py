"""Tables derived once from the libraries' data and kept in the user's cache folder.

Word lists and lemma tables held as Python dictionaries take ten times their data's size
in every process that reads a page, and building them again takes a run's first half
second. A table is built once (per version of the library it comes from), written as
NumPy arrays under :func:`cache_dir`, and mapped by every later process: only the pages
a lookup touches are read, and they are shared between processes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The environment variable naming the folder tables are kept in; the user's cache
#: folder when it is not set.
CACHE_ENV = "QUARTET_CACHE_DIR"


def cache_dir() -> Path:
    """Where Quartet keeps what it derives once from its dependencies' data."""
    import platformdirs

    given = os.environ.get(CACHE_ENV)
    return Path(given) if given else Path(platformdirs.user_cache_dir("quartet"))


def key(word: str) -> int:
    """A word's key in a kept table: the first eight bytes of the BLAKE2 digest of its
    UTF-8 bytes, the same in every process (a string's own hash is not, and reads its
    characters as stored: "kp" and "火", the same two bytes stored one byte and two
    bytes a character, hash alike)."""
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


def kept(name: str, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The arrays ``build`` makes, by name, kept in the folder ``name`` under
    :func:`cache_dir` and mapped from it (read-only) once kept.

    A folder is written whole under another name and then renamed, so a half-written
    table is never read; one that cannot be read (damaged, or from another layout) is
    built again. Where the cache folder cannot be written, the arrays are built and
    held in memory.

    Args:
        name: the table's folder, e.g. ``wordfreq-3.1.1/en-best``: it should name the
            version of the data it is built from.
        build: makes the table's arrays (NumPy arrays, by a name without a folder).
    """
    import numpy as np

    folder = cache_dir() / name
    with contextlib.suppress(OSError, ValueError):
        names = sorted(p.stem for p in folder.glob("*.npy"))
        if names:
            return {n: np.load(folder / f"{n}.npy", mmap_mode="r") for n in names}
    arrays = build()
    partial: Path | None = None
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        # its own folder for each writer, threads of one process included
        partial = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        for n, array in arrays.items():
            np.save(partial / f"{n}.npy", np.ascontiguousarray(array))
        if folder.exists():
            shutil.rmtree(folder)  # a table that could not be read
        os.replace(partial, folder)
    except OSError:
        pass  # an unwritable cache, or another process kept it first: use these
    finally:
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
    return arrays
