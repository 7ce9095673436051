"""The file store's PostgreSQL engine: one store shared by the machines of a batch.

The server's address is a ``postgresql://user:password@host:port/database`` URL; its
credentials come from it alone (or from what libpq reads itself: ``PGPASSWORD``,
``~/.pgpass``), and every message shows it with the password masked. The store's tables
(``meta``, ``files`` and ``claims``) are made in the database on first use; paths sort
byte by byte (collation ``C``), as in SQLite.

A writing transaction first takes a transaction-level advisory lock keyed by the
namespace, so the writers of every process and machine on one namespace take turns, and
each statement after it reads what the writer before committed. A reading transaction
is ``REPEATABLE READ``: its statements see one snapshot. ``lock_timeout`` is the busy
timeout. The driver is psycopg 3 (``pip install 'quartet[postgres]'``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from ..errors import StorageError
from .store_engine import (
    MASK,
    SCHEMA_VERSION,
    VERSION_KEY,
    mask_url,
    unknown_schema,
    version_of,
)

#: Seconds a connection attempt may take when the URL does not say.
CONNECT_TIMEOUT = 10
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    'CREATE TABLE IF NOT EXISTS files ("user" TEXT NOT NULL, project TEXT NOT NULL,'
    ' path TEXT COLLATE "C" NOT NULL, size BIGINT NOT NULL,'
    " modified DOUBLE PRECISION NOT NULL, accessed DOUBLE PRECISION NOT NULL,"
    ' content BYTEA NOT NULL, PRIMARY KEY ("user", project, path))',
    'CREATE INDEX IF NOT EXISTS files_lru ON files ("user", project, accessed, path, size)',
)
#: The claims table (see :meth:`~fs_service.backends.store.StoreFileSystem.claim`): made
#: in a store of the current schema too, since a store without it is no other version.
_CLAIMS = (
    'CREATE TABLE IF NOT EXISTS claims ("user" TEXT NOT NULL, project TEXT NOT NULL,'
    " key TEXT NOT NULL, owner TEXT NOT NULL, expires DOUBLE PRECISION NOT NULL,"
    ' PRIMARY KEY ("user", project, key))'
)
_NO_DRIVER = (
    "Error: a file store on a PostgreSQL server needs the psycopg package: "
    "pip install 'quartet[postgres]'."
)


def _driver() -> ModuleType:
    """The psycopg module.

    Raises:
        StorageError: psycopg is not installed.
    """
    try:
        import psycopg
    except ImportError:
        raise StorageError(_NO_DRIVER, None) from None
    return psycopg


def lock_key(*names: str) -> int:
    """A signed 64-bit advisory lock key for ``names``."""
    digest = hashlib.sha256("\0".join(("quartet-store", *names)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


#: The lock every process takes while it makes or checks the schema.
_SCHEMA_LOCK = lock_key()


def secrets_of(url: str) -> list[str]:
    """The passwords ``url`` holds, as written and decoded, longest first."""
    try:
        parts = urlsplit(url.strip())
        found = [parts.password or ""]
        found += [v for k, v in parse_qsl(parts.query) if k.lower() == "password"]
    except ValueError:
        return []
    found += [quote(s, safe="") for s in found]
    return sorted({s for s in found if s}, key=len, reverse=True)


def scrubbed(exc: BaseException, url: str) -> str:
    """The driver's message for ``exc`` on one line, with ``url``'s password masked."""
    text = " ".join(str(exc).split())
    for secret in secrets_of(url):
        text = text.replace(secret, MASK)
    return text.replace(url.strip(), mask_url(url))


def _failure(url: str, doing: str, exc: BaseException) -> StorageError:
    return StorageError(
        f"Error: the file store could not {doing} {mask_url(url)}: {scrubbed(exc, url)}.",
        None,
    )


def _connect(psycopg: ModuleType, url: str) -> Any:
    """A new connection to ``url`` in autocommit mode (raises the driver's errors)."""
    given = psycopg.conninfo.conninfo_to_dict(url.strip())
    extra = {} if "connect_timeout" in given else {"connect_timeout": CONNECT_TIMEOUT}
    return psycopg.connect(url.strip(), autocommit=True, **extra)


@lru_cache(maxsize=64)
def _placeholders(sql: str) -> str:
    return sql.replace("?", "%s")


class PostgresEngine:
    """A connection to the store on a PostgreSQL server.

    Args:
        url: the server's ``postgresql://`` address.
        namespace: the ``(user, project)`` whose writers take turns.
        busy_timeout: seconds a write waits for another writer of the namespace.

    Raises:
        StoreFormatError: the database holds a newer or unreadable store schema.
        StorageError: psycopg is missing or the server could not be reached.
    """

    def __init__(self, url: str, namespace: tuple[str, str], busy_timeout: float) -> None:
        self._psycopg = _driver()
        self.errors: tuple[type[BaseException], ...] = (self._psycopg.Error,)
        self.location = mask_url(url)
        self._url = url
        self._busy_ms = max(1, round(busy_timeout * 1000))
        self._lock_key = lock_key(*namespace)
        self._conn = self._connect()
        try:
            self._prepare()
        except BaseException:
            self.close()
            raise

    def describe(self, exc: BaseException) -> str:
        """The driver's message for ``exc``, the URL's password masked."""
        return scrubbed(exc, self._url)

    def _connect(self) -> Any:
        """A new connection, with the busy timeout as its lock timeout."""
        try:
            conn = _connect(self._psycopg, self._url)
        except self._psycopg.Error as exc:
            raise _failure(self._url, "open", exc) from None
        try:
            conn.execute("SELECT set_config('lock_timeout', %s, false)", (f"{self._busy_ms}ms",))
        except self._psycopg.Error as exc:
            conn.close()
            raise _failure(self._url, "open", exc) from None
        return conn

    def _stored_version(self) -> int | None:
        """The schema version in the database, or None when it holds no store yet."""
        (found,) = self._conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
        if not found:
            return None
        try:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE key = %s", (VERSION_KEY,)
            ).fetchone()
        except self._psycopg.errors.UndefinedColumn:
            raise unknown_schema(self.location, "(unreadable)") from None
        return None if row is None else version_of(row[0], self.location)

    def _prepare(self) -> None:
        """Create the schema in a new database, or check the version of an existing one."""
        conn = self._conn
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                version = self._stored_version()
                if version is None:
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES (%s, %s)",
                        (VERSION_KEY, str(SCHEMA_VERSION)),
                    )
                elif version != SCHEMA_VERSION:
                    raise unknown_schema(self.location, str(version))
                conn.execute(_CLAIMS)
        except self._psycopg.Error as exc:
            raise _failure(self._url, "open", exc) from None

    def _live(self) -> Any:
        """The connection, made again when the server dropped the last one."""
        if self._conn.broken or self._conn.closed:
            self.close()
            self._conn = self._connect()
        return self._conn

    @contextmanager
    def transaction(self, write: bool) -> Iterator[PostgresEngine]:
        """One transaction; ``write`` waits for the namespace's advisory lock first."""
        conn = self._live()
        conn.execute("BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        try:
            if write:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
            yield self
            conn.execute("COMMIT")
        except BaseException:
            with suppress(self._psycopg.Error):
                if not conn.broken:
                    conn.execute("ROLLBACK")
            raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run ``sql`` (``?`` placeholders) with ``params`` in the current transaction."""
        return self._conn.execute(_placeholders(sql), params)

    def close(self) -> None:
        """Close the connection."""
        with suppress(self._psycopg.Error):
            self._conn.close()


def holds_store(url: str) -> bool:
    """Whether the database at ``url`` holds a file store; nothing is created.

    Raises:
        StorageError: psycopg is missing or the server could not be reached.
    """
    psycopg = _driver()
    try:
        with _connect(psycopg, url) as conn:
            (found,) = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
    except psycopg.Error as exc:
        raise _failure(url, "open", exc) from None
    return bool(found)
