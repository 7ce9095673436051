"""A SQLite backend: files as rows of one database file, kept across runs.

One database holds many namespaces, each a ``(user, project)`` pair; a store sees only
its own. Several processes may open the same database at once: it runs in WAL mode with
a busy timeout, and every write is one ``BEGIN IMMEDIATE`` transaction, so writers take
turns and a reader never sees half a write. A process killed mid-write loses only the
write it had not committed.

Directories are implied: a path is a directory when some file lies below it, and it
disappears with its last file. The root ``/`` always exists.

Each namespace is bounded: when a write takes its total above ``max_total_bytes``, the
least recently read or written files are evicted until the total is back under the
bound. Files under ``/memories/`` and the file just written are never evicted, so the
total stays over the bound when they alone exceed it.
"""

from __future__ import annotations

import io
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ..errors import (
    FileTooLargeError,
    FsError,
    IsADirectoryError_,
    NotADirectoryError_,
    NotFoundError,
    StorageError,
    StoreFormatError,
)
from ..paths import segments
from .base import DIRECTORY, CappedBuffer, Entry

#: The schema this code reads and writes, kept in the ``meta`` table.
SCHEMA_VERSION = 1
DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024
DEFAULT_BUSY_TIMEOUT = 30.0
#: Files below this prefix are never evicted to keep a namespace under its bound.
PINNED_PREFIX = "/memories/"

_VERSION_KEY = "schema_version"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # Small columns first: reading them never walks the overflow pages of the content.
    "CREATE TABLE IF NOT EXISTS files ("
    " user TEXT NOT NULL, project TEXT NOT NULL, path TEXT NOT NULL,"
    " size INTEGER NOT NULL, modified REAL NOT NULL, accessed REAL NOT NULL,"
    " content BLOB NOT NULL, PRIMARY KEY (user, project, path))",
    "CREATE INDEX IF NOT EXISTS files_lru ON files (user, project, accessed, path, size)",
)
_NS = "user = ? AND project = ?"
_BELOW = f"{_NS} AND path >= ? AND path < ?"


def _key(path: str) -> str:
    return "/" + "/".join(segments(path))


def _name(key: str) -> str:
    return key.rsplit("/", 1)[-1]


def _below(key: str) -> tuple[str, str]:
    """The bounds ``lo <= path < hi`` of every path strictly below directory ``key``.

    ``hi`` is ``lo`` with its final ``/`` turned into ``0``, the next character.
    """
    lo = key.rstrip("/") + "/"
    return lo, lo[:-1] + "0"


def _dir_entry(key: str) -> Entry:
    return Entry(key if key == "/" else key + "/", _name(key), True, 0, 0.0, DIRECTORY)


def _file_entry(key: str, size: int, modified: float) -> Entry:
    return Entry(key, _name(key), False, size, modified)


@contextmanager
def _storage_errors(path: str | None, doing: str) -> Iterator[None]:
    """Turn a failure of SQLite into a StorageError that says what could not be done."""
    try:
        yield
    except sqlite3.Error as exc:
        where = f" {path}" if path else ""
        message = f"Error: the file store could not {doing}{where}: {exc}."
        raise StorageError(message, path) from None


def _not_a_database(db_path: str) -> StoreFormatError:
    return StoreFormatError(
        f"Error: {db_path} is not a SQLite database, so it cannot hold a file store. "
        "Point the store at a new file, or move this file out of the way.",
        None,
    )


def _unknown_schema(db_path: str, found: str) -> StoreFormatError:
    return StoreFormatError(
        f"Error: {db_path} holds file-store schema version {found}, which this code does not "
        f"know (it reads version {SCHEMA_VERSION}). Open it with the newer release that "
        "wrote it, or point the store at another database file.",
        None,
    )


def _stored_version(db: sqlite3.Connection, db_path: str) -> int | None:
    """The schema version recorded in ``db``, or None when it holds no file store yet."""
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if row is None:
        return None
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (_VERSION_KEY,)).fetchone()
    except sqlite3.OperationalError:
        raise _unknown_schema(db_path, "(unreadable)") from None
    if row is None:
        return None
    try:
        return int(row[0])
    except (TypeError, ValueError):
        raise _unknown_schema(db_path, repr(row[0])) from None


def _prepare(db: sqlite3.Connection, db_path: str) -> None:
    """Create the schema in a new database, or check the version of an existing one."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _stored_version(db, db_path)
        if version is None:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)", (_VERSION_KEY, str(SCHEMA_VERSION))
            )
        elif version != SCHEMA_VERSION:
            raise _unknown_schema(db_path, str(version))
        db.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise


def _enable_wal(db: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch ``db`` to WAL mode, retrying while another process holds its lock.

    SQLite answers this switch with "database is locked" at once, without waiting on the
    busy timeout, when several processes open a new database together.
    """
    deadline = time.monotonic() + busy_timeout
    delay = 0.001
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")
            if not busy or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _connect(db_path: str, busy_timeout: float) -> sqlite3.Connection:
    """Open ``db_path`` in WAL mode with full syncs, its schema ready."""
    with _storage_errors(db_path, "open"):
        db = sqlite3.connect(
            db_path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    try:
        _enable_wal(db, busy_timeout)
        db.execute("PRAGMA synchronous = FULL")
        _prepare(db, db_path)
    except sqlite3.DatabaseError as exc:
        db.close()
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise _not_a_database(db_path) from None
        raise StorageError(
            f"Error: the file store could not open {db_path}: {exc}.", None
        ) from None
    except BaseException:
        db.close()
        raise
    return db


class StoreFileSystem:
    """Keeps the files of one ``(user, project)`` namespace in a SQLite database.

    Args:
        db_path: the database file; created with its folder when missing.
        user: the namespace's user.
        project: the namespace's project.
        max_total_bytes: the bound on the namespace's total size (see the module notes
            on eviction).
        busy_timeout: seconds a write waits for another process's write to finish.
        clock: the time stamped on writes and reads, in seconds since the epoch.

    Raises:
        StoreFormatError: the file is not a SQLite database, or holds a newer schema.
        StorageError: the database could not be opened.
    """

    def __init__(
        self,
        db_path: str | os.PathLike,
        user: str,
        project: str,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
        *,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not user or not project:
            raise ValueError("a store namespace needs a non-empty user and project")
        if max_total_bytes <= 0:
            raise ValueError(f"max_total_bytes must be positive, got {max_total_bytes}")
        self.db_path = os.fspath(db_path)
        self.user, self.project = user, project
        self.max_total_bytes = max_total_bytes
        self._clock = clock
        self._lock = threading.Lock()
        Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
        self._db = _connect(self.db_path, busy_timeout)

    def close(self) -> None:
        """Close the database connection; the store cannot be used afterwards."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> StoreFileSystem:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions and queries ---------------------------------------------------

    @contextmanager
    def _transaction(
        self, path: str, doing: str, immediate: bool = False
    ) -> Iterator[sqlite3.Connection]:
        """One transaction, committed when the block ends cleanly and rolled back otherwise.

        ``immediate`` takes the write lock at once, waiting up to the busy timeout for
        another writer, so that what the block read still holds when it writes.
        """
        with self._lock, _storage_errors(path, doing):
            db = self._db
            db.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                raise

    @property
    def _ns(self) -> tuple[str, str]:
        return self.user, self.project

    def _file_row(self, db: sqlite3.Connection, key: str) -> tuple[int, float] | None:
        return db.execute(
            f"SELECT size, modified FROM files WHERE {_NS} AND path = ?", (*self._ns, key)
        ).fetchone()

    def _is_dir(self, db: sqlite3.Connection, key: str) -> bool:
        if key == "/":
            return True
        row = db.execute(f"SELECT 1 FROM files WHERE {_BELOW} LIMIT 1", (*self._ns, *_below(key)))
        return row.fetchone() is not None

    def _absent(self, db: sqlite3.Connection, key: str, path: str, what: str) -> FsError:
        """The error for a file operation on ``path`` where no file is."""
        if self._is_dir(db, key):
            return IsADirectoryError_(f"Error: {path} is a directory{what}", path)
        return NotFoundError(f"Error: {path} does not exist.", path)

    def _refuse_conflicts(self, db: sqlite3.Connection, key: str, path: str) -> None:
        """Refuse a write where a directory is implied, or below a file."""
        if self._is_dir(db, key):
            raise IsADirectoryError_(f"Error: {path} is a directory, not a file.", path)
        parts = segments(key)
        ancestors = ["/" + "/".join(parts[:i]) for i in range(1, len(parts))]
        if not ancestors:
            return
        marks = ", ".join("?" * len(ancestors))
        row = db.execute(
            f"SELECT path FROM files WHERE {_NS} AND path IN ({marks}) "
            "ORDER BY length(path) LIMIT 1",
            (*self._ns, *ancestors),
        ).fetchone()
        if row is not None:
            raise NotADirectoryError_(f"Error: {row[0]} is a file, not a directory.", path)

    def _evict(self, db: sqlite3.Connection, keep: str) -> None:
        """Delete the least recently used files until the namespace is under its bound.

        ``keep`` (the file just written) and files under :data:`PINNED_PREFIX` stay.
        """
        (total,) = db.execute(
            f"SELECT COALESCE(SUM(size), 0) FROM files WHERE {_NS}", self._ns
        ).fetchone()
        if total <= self.max_total_bytes:
            return
        candidates = db.execute(
            f"SELECT path, size FROM files WHERE {_NS} AND path != ? "
            "AND NOT (path >= ? AND path < ?) ORDER BY accessed, path",
            (*self._ns, keep, *_below(PINNED_PREFIX)),
        ).fetchall()
        for path, size in candidates:
            if total <= self.max_total_bytes:
                return
            db.execute(f"DELETE FROM files WHERE {_NS} AND path = ?", (*self._ns, path))
            total -= size

    def _commit(self, key: str, path: str, data: bytes) -> None:
        """Write ``data`` at ``key`` and evict what the bound asks, in one transaction."""
        with self._transaction(path, "write", immediate=True) as db:
            self._refuse_conflicts(db, key, path)
            now = self._clock()
            db.execute(
                "INSERT OR REPLACE INTO files "
                "(user, project, path, size, modified, accessed, content) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (*self._ns, key, len(data), now, now, data),
            )
            self._evict(db, key)

    # -- the protocol ---------------------------------------------------------------

    def stat(self, path: str) -> Entry:
        key = _key(path)
        with self._transaction(path, "read") as db:
            row = self._file_row(db, key)
            is_dir = row is None and self._is_dir(db, key)
        if row is not None:
            return _file_entry(key, *row)
        if is_dir:
            return _dir_entry(key)
        raise NotFoundError(f"Error: {path} does not exist.", path)

    def list_dir(self, path: str) -> list[Entry]:
        key = _key(path)
        base, end = _below(key)
        with self._transaction(path, "list") as db:
            if self._file_row(db, key) is not None:
                raise NotADirectoryError_(f"Error: {path} is a file, not a directory.", path)
            rows = db.execute(
                f"SELECT path, size, modified FROM files WHERE {_BELOW}", (*self._ns, base, end)
            ).fetchall()
        if not rows and key != "/":
            raise NotFoundError(f"Error: {path} does not exist.", path)
        children: dict[str, Entry] = {}
        for child, size, modified in rows:
            name, _, deeper = child[len(base) :].partition("/")
            children[name] = (
                _dir_entry(base + name) if deeper else _file_entry(child, size, modified)
            )
        return [children[name] for name in sorted(children)]

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        key = _key(path)
        where = (*self._ns, key)
        with self._transaction(path, "read", immediate=True) as db:
            row = self._file_row(db, key)
            if row is None:
                raise self._absent(db, key, path, ", not a file.")
            if row[0] > max_bytes:
                raise FileTooLargeError(
                    f"Error: {path} is {row[0]} bytes, over the {max_bytes}-byte read cap.", path
                )
            (data,) = db.execute(
                f"SELECT content FROM files WHERE {_NS} AND path = ?", where
            ).fetchone()
            db.execute(
                f"UPDATE files SET accessed = ? WHERE {_NS} AND path = ?", (self._clock(), *where)
            )
        return bytes(data)

    @contextmanager
    def open_atomic(self, path: str, max_bytes: int) -> Iterator[io.BytesIO]:
        """A writer whose content becomes the file's row when the block exits cleanly.

        The content is held in memory and written, with any eviction it causes, in one
        transaction; the refusals are checked both before the block and in it.
        """
        key = _key(path)
        with self._transaction(path, "write") as db:
            self._refuse_conflicts(db, key, path)
        buf = CappedBuffer(path, max_bytes)
        yield buf
        self._commit(key, path, buf.getvalue())

    def delete(self, path: str) -> None:
        key = _key(path)
        with self._transaction(path, "delete", immediate=True) as db:
            gone = db.execute(f"DELETE FROM files WHERE {_NS} AND path = ?", (*self._ns, key))
            if gone.rowcount == 0:
                raise self._absent(db, key, path, "; delete the files inside it instead.")

    def delete_below(self, path: str) -> int:
        """Delete every file below directory ``path`` in one transaction.

        Args:
            path: a directory, e.g. ``/cache/``; ``/`` empties the namespace.

        Returns:
            How many files were deleted (0 when there were none).
        """
        with self._transaction(path, "delete", immediate=True) as db:
            gone = db.execute(f"DELETE FROM files WHERE {_BELOW}", (*self._ns, *_below(_key(path))))
            return gone.rowcount

    def walk_files(self, path: str) -> Iterator[Entry]:
        with self._transaction(path, "list") as db:
            rows = db.execute(
                f"SELECT path, size, modified FROM files WHERE {_BELOW}",
                (*self._ns, *_below(_key(path))),
            ).fetchall()
        # Sorted one segment at a time: a folder's files come before a sibling "a.txt"
        # of folder "a", as a depth-first walk of sorted listings gives them.
        for key, size, modified in sorted(rows, key=lambda row: segments(row[0])):
            yield _file_entry(key, size, modified)
