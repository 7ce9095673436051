"""The file store's SQLite engine: one database file, safe with several processes.

The database runs in WAL mode with full syncs and a busy timeout; a writing transaction
is ``BEGIN IMMEDIATE``, so the writers of every process take turns, and a reader never
sees half a write.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..errors import StorageError, StoreFormatError
from .store_engine import SCHEMA_VERSION, VERSION_KEY, unknown_schema, version_of

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # Small columns first: reading them never walks the overflow pages of the content.
    "CREATE TABLE IF NOT EXISTS files ("
    " user TEXT NOT NULL, project TEXT NOT NULL, path TEXT NOT NULL,"
    " size INTEGER NOT NULL, modified REAL NOT NULL, accessed REAL NOT NULL,"
    " content BLOB NOT NULL, PRIMARY KEY (user, project, path))",
    "CREATE INDEX IF NOT EXISTS files_lru ON files (user, project, accessed, path, size)",
)
#: The claims table (see :meth:`~fs_service.backends.store.StoreFileSystem.claim`): made
#: in a store of the current schema too, since a store without it is no other version.
_CLAIMS = (
    "CREATE TABLE IF NOT EXISTS claims ("
    " user TEXT NOT NULL, project TEXT NOT NULL, key TEXT NOT NULL,"
    " owner TEXT NOT NULL, expires REAL NOT NULL, PRIMARY KEY (user, project, key))"
)


def _not_a_database(db_path: str) -> StoreFormatError:
    return StoreFormatError(
        f"Error: {db_path} is not a SQLite database, so it cannot hold a file store. "
        "Point the store at a new file, or move this file out of the way.",
        None,
    )


def _cannot_open(db_path: str, exc: sqlite3.Error) -> StorageError:
    return StorageError(f"Error: the file store could not open {db_path}: {exc}.", None)


def _stored_version(db: sqlite3.Connection, db_path: str) -> int | None:
    """The schema version recorded in ``db``, or None when it holds no file store yet."""
    row = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if row is None:
        return None
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (VERSION_KEY,)).fetchone()
    except sqlite3.OperationalError:
        raise unknown_schema(db_path, "(unreadable)") from None
    return None if row is None else version_of(row[0], db_path)


def _prepare(db: sqlite3.Connection, db_path: str) -> None:
    """Create the schema in a new database, or check the version of an existing one."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _stored_version(db, db_path)
        if version is None:
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)", (VERSION_KEY, str(SCHEMA_VERSION))
            )
        elif version != SCHEMA_VERSION:
            raise unknown_schema(db_path, str(version))
        db.execute(_CLAIMS)
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
    try:
        db = sqlite3.connect(
            db_path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise _cannot_open(db_path, exc) from None
    try:
        _enable_wal(db, busy_timeout)
        db.execute("PRAGMA synchronous = FULL")
        _prepare(db, db_path)
    except sqlite3.DatabaseError as exc:
        db.close()
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise _not_a_database(db_path) from None
        raise _cannot_open(db_path, exc) from None
    except BaseException:
        db.close()
        raise
    return db


class SqliteEngine:
    """A connection to the store's SQLite database file.

    Args:
        db_path: the database file; created with its folder when missing.
        busy_timeout: seconds a write waits for another process's write to finish.

    Raises:
        StoreFormatError: the file is not a SQLite database, or holds a newer schema.
        StorageError: the database could not be opened.
    """

    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, db_path: str, busy_timeout: float) -> None:
        self.location = db_path
        Path(db_path).parent.mkdir(parents=True, exist_ok=True)
        self._db = _connect(db_path, busy_timeout)

    @contextmanager
    def transaction(self, write: bool) -> Iterator[SqliteEngine]:
        """One transaction; ``write`` takes the database's write lock at once."""
        db = self._db
        db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield self
            db.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run ``sql`` with ``params`` in the current transaction."""
        return self._db.execute(sql, params)

    def describe(self, exc: BaseException) -> str:
        """SQLite's message for ``exc``."""
        return str(exc)

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()
