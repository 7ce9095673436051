"""A store backend: files as rows of a database, kept across runs.

The database is a SQLite file (:mod:`.store_sqlite`, the default) or a PostgreSQL
server (:mod:`.store_postgres`), chosen by the target a store is opened with: a
``postgresql://`` URL, else the path of a file. Everything but the dialect is here.

One database holds many namespaces, each a ``(user, project)`` pair; a store sees only
its own. Several processes, and with PostgreSQL several machines, may open the same
database at once: every write is one transaction that waits for the namespace's other
writers, so writers take turns and a reader never sees half a write. A process killed
mid-write loses only the write it had not committed.

Directories are implied: a path is a directory when some file lies below it, and it
disappears with its last file. The root ``/`` always exists.

Each namespace is bounded: when a write takes its total above ``max_total_bytes``, the
least recently read or written files are evicted until the total is back under the
bound. Files under ``/memories/`` and the file just written are never evicted, so the
total stays over the bound when they alone exceed it.

Besides its files, a namespace keeps *claims* (:meth:`StoreFileSystem.claim`): a key
held by one owner until it gives it up or the claim's time runs out, so that processes
(and machines) sharing the store can agree which of them does a piece of work, such as
fetching a page the others then read from the store. A claim is no file: it is never
listed, counted in the namespace's size or evicted.
"""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import (
    FileTooLargeError,
    FsError,
    IsADirectoryError_,
    NotADirectoryError_,
    NotFoundError,
    StorageError,
)
from ..paths import segments
from .base import DIRECTORY, CappedBuffer, Entry
from .store_engine import SCHEMA_VERSION, Engine, Session, StoreURL, is_store_url, mask_url
from .store_postgres import PostgresEngine, holds_store
from .store_sqlite import SqliteEngine

DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024
DEFAULT_BUSY_TIMEOUT = 30.0
#: Files below this prefix are never evicted to keep a namespace under its bound.
PINNED_PREFIX = "/memories/"
#: Where a store is: a database file, or a PostgreSQL server's URL.
StoreTarget = str | os.PathLike | StoreURL

_NS = '"user" = ? AND project = ?'
_BELOW = f"{_NS} AND path >= ? AND path < ?"
_UPSERT = (
    'INSERT INTO files ("user", project, path, size, modified, accessed, content) '
    "VALUES (?, ?, ?, ?, ?, ?, ?) "
    'ON CONFLICT ("user", project, path) DO UPDATE SET size = excluded.size, '
    "modified = excluded.modified, accessed = excluded.accessed, content = excluded.content"
)

_CLAIM = (
    'INSERT INTO claims ("user", project, key, owner, expires) VALUES (?, ?, ?, ?, ?) '
    'ON CONFLICT ("user", project, key) DO UPDATE SET owner = excluded.owner, '
    "expires = excluded.expires WHERE claims.expires <= ? OR claims.owner = excluded.owner"
)


@dataclass(frozen=True)
class Claim:
    """Who holds a key of a namespace, and until when.

    Attributes:
        owner: the holder's name for itself.
        expires: when the claim runs out, in seconds since the epoch (the store's clock).
    """

    owner: str
    expires: float


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


def _url_of(target: StoreTarget) -> str | None:
    """The server URL ``target`` gives, or None when it names a database file."""
    if isinstance(target, StoreURL):
        return target.url
    return target.strip() if isinstance(target, str) and is_store_url(target) else None


def open_engine(target: StoreTarget, namespace: tuple[str, str], busy_timeout: float) -> Engine:
    """A connection to the database ``target`` names, its schema ready.

    Args:
        target: a ``postgresql://`` URL (a :class:`StoreURL` or text), else a file path.
        namespace: the ``(user, project)`` the connection serves.
        busy_timeout: seconds a write waits for another writer.

    Raises:
        StoreFormatError: the database cannot hold a store, or holds a newer schema.
        StorageError: the database could not be opened.
    """
    url = _url_of(target)
    if url is not None:
        return PostgresEngine(url, namespace, busy_timeout)
    return SqliteEngine(os.fspath(target), busy_timeout)


def store_exists(target: StoreTarget) -> bool:
    """Whether a store is at ``target``; nothing is created.

    Raises:
        StorageError: the PostgreSQL server could not be reached.
    """
    url = _url_of(target)
    return holds_store(url) if url is not None else Path(os.fspath(target)).is_file()


def store_location(target: StoreTarget) -> str:
    """``target`` fit to print: a URL's password masked."""
    url = _url_of(target)
    return mask_url(url) if url is not None else os.fspath(target)


class StoreFileSystem:
    """Keeps the files of one ``(user, project)`` namespace in a database.

    Args:
        target: the database: a ``postgresql://user:password@host:port/db`` URL (text or
            :class:`StoreURL`) for a PostgreSQL server, else the path of a SQLite file,
            created with its folder when missing.
        user: the namespace's user.
        project: the namespace's project.
        max_total_bytes: the bound on the namespace's total size (see the module notes
            on eviction).
        busy_timeout: seconds a write waits for another writer to finish.
        clock: the time stamped on writes and reads, in seconds since the epoch.

    Raises:
        StoreFormatError: the database cannot hold a store (not SQLite), or holds a
            newer schema.
        StorageError: the database could not be opened.
    """

    def __init__(
        self,
        target: StoreTarget,
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
        self.user, self.project = user, project
        self.max_total_bytes = max_total_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._engine = open_engine(target, (user, project), busy_timeout)
        #: where the store is, fit to print (a password is masked)
        self.location = self._engine.location

    def close(self) -> None:
        """Close the database connection; the store cannot be used afterwards."""
        with self._lock:
            self._engine.close()

    def __enter__(self) -> StoreFileSystem:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- transactions and queries ---------------------------------------------------

    @contextmanager
    def _transaction(self, path: str, doing: str, immediate: bool = False) -> Iterator[Session]:
        """One transaction, committed when the block ends cleanly and rolled back otherwise.

        ``immediate`` waits up to the busy timeout for the namespace's other writers and
        holds them off until the block ends, so that what the block read still holds
        when it writes. A failure of the database is a StorageError that says what
        could not be done.
        """
        engine = self._engine
        with self._lock:
            try:
                with engine.transaction(immediate) as db:
                    yield db
            except engine.errors as exc:
                message = f"Error: the file store could not {doing} {path}: "
                raise StorageError(message + f"{engine.describe(exc)}.", path) from None

    @property
    def _ns(self) -> tuple[str, str]:
        return self.user, self.project

    def _file_row(self, db: Session, key: str) -> tuple[int, float] | None:
        return db.execute(
            f"SELECT size, modified FROM files WHERE {_NS} AND path = ?", (*self._ns, key)
        ).fetchone()

    def _is_dir(self, db: Session, key: str) -> bool:
        if key == "/":
            return True
        row = db.execute(f"SELECT 1 FROM files WHERE {_BELOW} LIMIT 1", (*self._ns, *_below(key)))
        return row.fetchone() is not None

    def _absent(self, db: Session, key: str, path: str, what: str) -> FsError:
        """The error for a file operation on ``path`` where no file is."""
        if self._is_dir(db, key):
            return IsADirectoryError_(f"Error: {path} is a directory{what}", path)
        return NotFoundError(f"Error: {path} does not exist.", path)

    def _refuse_conflicts(self, db: Session, key: str, path: str) -> None:
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

    def _evict(self, db: Session, keep: str) -> None:
        """Delete the least recently used files until the namespace is under its bound.

        ``keep`` (the file just written) and files under :data:`PINNED_PREFIX` stay.
        """
        (total,) = db.execute(
            f"SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM files WHERE {_NS}", self._ns
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

    def _put(self, db: Session, key: str, data: bytes) -> None:
        """Write ``data`` at ``key`` and evict what the bound asks."""
        now = self._clock()
        db.execute(_UPSERT, (*self._ns, key, len(data), now, now, data))
        self._evict(db, key)

    def _commit(self, key: str, path: str, data: bytes) -> None:
        """Write ``data`` at ``key`` and evict what the bound asks, in one transaction."""
        with self._transaction(path, "write", immediate=True) as db:
            self._refuse_conflicts(db, key, path)
            self._put(db, key, data)

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

    def update(self, path: str, max_bytes: int, change: Callable[[bytes | None], bytes]) -> bytes:
        """Replace the file at ``path`` by ``change(content)`` in one writing transaction.

        No other write to the namespace, of this process or another, comes between the
        read and the write, so two updates of one file both land.

        Args:
            path: the file; created when missing.
            max_bytes: the cap on the file's size, before and after.
            change: given the current content (None when there is no file), the new one.

        Returns:
            The new content.

        Raises:
            FileTooLargeError: the current or the new content is over ``max_bytes``.
            IsADirectoryError_, NotADirectoryError_: a directory is at ``path``, or a file
                above it.
        """
        key = _key(path)
        with self._transaction(path, "update", immediate=True) as db:
            self._refuse_conflicts(db, key, path)
            row = db.execute(
                f"SELECT size, content FROM files WHERE {_NS} AND path = ?", (*self._ns, key)
            ).fetchone()
            if row is not None and row[0] > max_bytes:
                raise FileTooLargeError(
                    f"Error: {path} is {row[0]} bytes, over the {max_bytes}-byte read cap.", path
                )
            data = change(None if row is None else bytes(row[1]))
            if len(data) > max_bytes:
                raise FileTooLargeError(
                    f"Error: writing {path} would exceed the {max_bytes}-byte cap.", path
                )
            self._put(db, key, data)
        return data

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

    def claim(self, key: str, owner: str, seconds: float) -> Claim:
        """Claim ``key`` for ``owner`` for ``seconds``, unless another owner holds it.

        The claim is one insert of the key's row, or an update of it when the claim it
        holds has run out or is ``owner``'s own (which renews it), in a writing
        transaction: of the processes and machines that claim one key at once, exactly
        one holds it afterwards. Claims that have run out are removed on the way.

        Args:
            key: what is claimed, e.g. the path of a file about to be written.
            owner: who claims it: a name no other claimant uses.
            seconds: how long the claim holds unless :meth:`release` ends it first.

        Returns:
            The claim that holds ``key`` now: ``owner``'s when it was taken, else the
            other owner's, with when it runs out.

        Raises:
            StorageError: the database could not be written.
        """
        now = self._clock()
        with self._transaction(key, "claim", immediate=True) as db:
            db.execute(f"DELETE FROM claims WHERE {_NS} AND expires <= ?", (*self._ns, now))
            db.execute(_CLAIM, (*self._ns, key, owner, now + seconds, now))
            held = db.execute(
                f"SELECT owner, expires FROM claims WHERE {_NS} AND key = ?", (*self._ns, key)
            ).fetchone()
        return Claim(*held)

    def release(self, key: str, owner: str) -> None:
        """End ``owner``'s claim on ``key`` (nothing when another owner holds it now).

        Raises:
            StorageError: the database could not be written.
        """
        with self._transaction(key, "release", immediate=True) as db:
            db.execute(
                f"DELETE FROM claims WHERE {_NS} AND key = ? AND owner = ?",
                (*self._ns, key, owner),
            )

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


__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "DEFAULT_MAX_TOTAL_BYTES",
    "PINNED_PREFIX",
    "SCHEMA_VERSION",
    "Claim",
    "StoreFileSystem",
    "StoreTarget",
    "StoreURL",
    "is_store_url",
    "open_engine",
    "store_exists",
    "store_location",
]
