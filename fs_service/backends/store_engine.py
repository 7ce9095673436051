"""What the file store asks of a database engine, and the address of a server's store.

:class:`~fs_service.backends.store.StoreFileSystem` holds the store's logic once; an
engine (:mod:`.store_sqlite`, :mod:`.store_postgres`) gives it a connection, its
transactions and the few statements whose dialect differs. The shared statements are
written with ``?`` placeholders; an engine turns them into its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import StoreFormatError

#: The schema this code reads and writes, kept in the ``meta`` table.
SCHEMA_VERSION = 1
#: The key of the schema version in the ``meta`` table.
VERSION_KEY = "schema_version"
#: The schemes of a PostgreSQL server's address.
URL_SCHEMES = ("postgresql", "postgres")
#: What stands in a printed address for its password.
MASK = "***"


class Rows(Protocol):
    """The result of one statement."""

    rowcount: int

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Session(Protocol):
    """The connection as a transaction's statements see it."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        """Run ``sql`` (``?`` placeholders) with ``params``."""
        ...


class Engine(Protocol):
    """One connection to the database that holds the store.

    Attributes:
        location: where the store is, fit to print (a password is masked).
        errors: the exceptions the engine's driver raises.
    """

    location: str
    errors: tuple[type[BaseException], ...]

    def transaction(self, write: bool) -> AbstractContextManager[Session]:
        """One transaction, committed when the block ends cleanly, rolled back otherwise.

        ``write`` makes it wait for the namespace's other writers, of every process, and
        holds them off until it ends, so that what the block read still holds when it
        writes.
        """
        ...

    def describe(self, exc: BaseException) -> str:
        """The driver's message for ``exc``, with no secret in it."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


@dataclass(frozen=True)
class StoreURL:
    """The address of a store on a PostgreSQL server.

    ``str()`` and ``repr()`` show it with its password masked; :attr:`url` is the whole
    address, for the connection only.
    """

    url: str = field(repr=False)

    def __str__(self) -> str:
        return mask_url(self.url)

    def __repr__(self) -> str:
        return f"StoreURL({mask_url(self.url)!r})"


def is_store_url(target: object) -> bool:
    """Whether ``target`` names a PostgreSQL server rather than a database file."""
    if isinstance(target, StoreURL):
        return True
    if not isinstance(target, str):
        return False
    scheme, sep, _ = target.strip().partition("://")
    return bool(sep) and scheme.lower() in URL_SCHEMES


def _masked_netloc(netloc: str) -> str:
    """``netloc`` with the password between ``user:`` and ``@`` masked."""
    userinfo, at, host = netloc.rpartition("@")
    if not at:
        return netloc
    user, colon, _ = userinfo.partition(":")
    return f"{user}:{MASK}@{host}" if colon else netloc


def mask_url(url: str) -> str:
    """``url`` with any password masked: in its user part and in a ``password`` parameter.

    Args:
        url: a ``postgresql://user:password@host:port/db?…`` address.

    Returns:
        The address fit for a message or a log.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return f"{url.partition('://')[0]}://{MASK}"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    netloc = _masked_netloc(parts.netloc)
    if netloc == parts.netloc and not any(k.lower() == "password" for k, _ in pairs):
        return url.strip()
    query = [(k, MASK if k.lower() == "password" else v) for k, v in pairs]
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="*")))


def unknown_schema(location: str, found: str) -> StoreFormatError:
    """The error for a store whose schema version this code does not know."""
    return StoreFormatError(
        f"Error: {location} holds file-store schema version {found}, which this code does not "
        f"know (it reads version {SCHEMA_VERSION}). Open it with the newer release that "
        "wrote it, or point the store at another database.",
        None,
    )


def version_of(value: object, location: str) -> int:
    """The schema version a ``meta`` row holds.

    Raises:
        StoreFormatError: the value is not a version number.
    """
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise unknown_schema(location, repr(value)) from None
