"""The page cache: every page and download read over HTTP, kept across runs in the store,
with what a run derives from them and from its files.

Each response is one file of a :class:`~fs_service.backends.StoreFileSystem` namespace
(a user and a project: a cached page never crosses one), under :data:`HTTP_DIR` (the body
as the site sent it, content encodings undone) or :data:`RENDER_DIR` (a page as Chromium
rendered it). The file is a JSON header line, :class:`CacheEntry` (the URL, the final URL
after redirects, the time of the fetch and of the last check with the site, the ETag and
Last-Modified validators, the body's SHA-256), then the body. One file per entry means
the store's eviction of the least recently used files, which keeps the namespace under
its bound, never leaves a header without its body; a body whose hash does not match its
header is taken for no entry at all.

Two more kinds of entry are kept the same way, each under a key that names everything
its body was computed from (:func:`remember`, :func:`reuse`):

- :data:`SEARCH` (:data:`SEARCH_DIR`): a search source's result list for one query, as
  the tool gave it (the source, its endpoint and the settings that shape the request are
  in the key);
- :data:`DERIVED` (:data:`DERIVED_DIR`): what a run computes from exact bytes, such as a
  page's Markdown from its HTML or a file's text from the file: the key holds the
  bytes' SHA-256, the arguments and a :func:`fingerprint` of the code and libraries that
  compute it, so that the same computation by other code is never taken for it.

An entry is *fresh* for :attr:`PageCache.fresh_seconds` after it was fetched or last
checked: it is reused without asking the site. A stale entry is revalidated: the request
carries ``If-None-Match`` / ``If-Modified-Since`` (:func:`conditional_headers`), and a
``304 Not Modified`` reuses the copy (:meth:`RunCache.revalidated` starts its window
again), while a ``200`` replaces it. A rendered page has no validators: it is reused
while fresh and rendered again after.

:class:`RunCache` is one run's use of the cache: ``reads`` off (``--fresh``, or a run
that records or replays its tape) fetches everything from the network, ``writes`` off
keeps the cache as it was. :func:`caching` makes a run's cache the one the tools of the
code inside use (:func:`active_cache`), as :mod:`subagents.tape` does for the tape. A
failure of the store never fails a fetch: the fetch goes to the network, and the failure
is kept in :attr:`RunCache.errors`.

Runs that share a store fetch a page once between them, even when they ask for it at the
same moment (two questions of a batch on two machines, or two tasks of one run):
:meth:`RunCache.turn` claims the address in the store (:meth:`PageCache.claim`) before
it is fetched or revalidated, and a run that finds another's claim waits, polling the
store, until the page is there and reads it from the cache. When the owner gives the
claim up without keeping the page (the fetch failed, or the page may not be kept), or the
claim runs out (:data:`CLAIM_SECONDS`: its owner crashed, or is slow), the waiting run
fetches the page itself. A claim is held in the run's namespace, like the entries: it
never makes a run of another user or project wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from fs_service import FileTooLargeError, FsError, NotFoundError
from fs_service.backends import StoreFileSystem
from fs_service.backends.store import Claim

T = TypeVar("T")
logger = logging.getLogger(__name__)

#: Where the cache lives in a store namespace, and its two kinds of entry.
CACHE_DIR = "/cache/"
HTTP_DIR = "/cache/http/"
RENDER_DIR = "/cache/render/"
SEARCH_DIR = "/cache/search/"
DERIVED_DIR = "/cache/derived/"
HTTP, RENDER, SEARCH, DERIVED = "http", "render", "search", "derived"
_DIRS = {HTTP: HTTP_DIR, RENDER: RENDER_DIR, SEARCH: SEARCH_DIR, DERIVED: DERIVED_DIR}
#: The kinds whose entries are kept by a URL (the others by a key of their own).
_BY_URL = (HTTP, RENDER)
#: How long a copy is reused without asking the site: a day.
DEFAULT_FRESH_SECONDS = 86_400.0
#: The bound on a store namespace, in MiB (memories included; they are never evicted).
DEFAULT_MAX_MB = 512
MIB = 1024 * 1024
#: An entry larger than this share of the bound is not kept: it would evict the rest.
ENTRY_SHARE = 4
#: The version of the header line; an entry of another version is no entry.
ENTRY_VERSION = 1
#: How long a run's claim to fetch an address holds (seconds) unless the run gives it up:
#: longer than a page fetch may take, so that a run waits this long at most for a page
#: whose fetcher crashed before it fetches the page itself.
CLAIM_SECONDS = 60.0
#: The first and the longest pause (seconds) of a run that polls the store for a page
#: another run is fetching.
POLL_FIRST, POLL_MAX = 0.02, 0.5
_DEFAULT_PORTS = {"http": 80, "https": 443}


def cache_key(url: str) -> str:
    """The address a cached response is kept under: ``url`` without its fragment, its
    scheme and host in lower case and a default port left out (the path and the query
    are kept exactly: ``/a`` and ``/a/`` are two resources)."""
    try:
        parts = urlsplit(url.strip())
        scheme, host, port = parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
    except ValueError:  # a malformed port: the address as given, less its fragment
        return url.strip().split("#", 1)[0]
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def entry_path(kind: str, url: str) -> str:
    """The store path of the ``kind`` entry of ``url``: its directory and the SHA-256 of
    its :func:`cache_key` (of ``url`` as it is for a :data:`SEARCH` or :data:`DERIVED`
    entry, whose ``url`` is its key)."""
    key = cache_key(url) if kind in _BY_URL else url
    return _DIRS[kind] + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def iso_time(seconds: float) -> str:
    """``seconds`` since the epoch as an ISO 8601 time in UTC, to the second."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class CacheEntry:
    """What the cache knows of one response, besides its body.

    Attributes:
        kind: :data:`HTTP` (a response as the site sent it) or :data:`RENDER` (a page
            as Chromium rendered it).
        url: the address asked for.
        final_url: where the redirects ended.
        status: the response's HTTP status.
        content_type: its Content-Type.
        fetched_at: when the body was fetched, in seconds since the epoch.
        checked_at: when the site last gave or confirmed the body (the fetch, or a 304).
        sha256: the body's SHA-256, hex.
        size: the body's length in bytes.
        etag: the ETag validator ("" when the site sent none).
        last_modified: the Last-Modified validator ("" when the site sent none).
        truncated: the body was cut at the reader's cap.
        title: a rendered page's title.
    """

    kind: str
    url: str
    final_url: str
    status: int
    content_type: str
    fetched_at: float
    checked_at: float
    sha256: str
    size: int
    etag: str = ""
    last_modified: str = ""
    truncated: bool = False
    title: str = ""

    def encode(self, body: bytes) -> bytes:
        """The stored file: this header as one JSON line, then ``body``."""
        header = json.dumps({"v": ENTRY_VERSION, **asdict(self)}, ensure_ascii=True)
        return header.encode("ascii") + b"\n" + body

    @classmethod
    def decode(cls, blob: bytes) -> tuple[CacheEntry, bytes] | None:
        """The header and body of a stored file; None when it is not a whole entry of
        this version (a body whose hash does not match its header included)."""
        head, newline, body = blob.partition(b"\n")
        try:
            raw = json.loads(head)
            if not newline or raw.pop("v", None) != ENTRY_VERSION:
                return None
            known = {f.name for f in fields(cls)}
            entry = cls(**{k: v for k, v in raw.items() if k in known})
        except (ValueError, TypeError, AttributeError):
            return None
        if hashlib.sha256(body).hexdigest() != entry.sha256 or len(body) != entry.size:
            return None
        return entry, body


@dataclass(frozen=True)
class Cached:
    """A cached response: its entry and its body."""

    entry: CacheEntry
    body: bytes


@dataclass(frozen=True)
class Provenance:
    """Where a page's copy came from, for its record in the run.

    Attributes:
        fetched_at: when the copy was fetched from the site (seconds since the epoch).
        from_cache: the copy was taken from the page cache, not fetched in this run.
        revalidated: the site confirmed the cached copy unchanged in this run (a 304).
    """

    fetched_at: float
    from_cache: bool = False
    revalidated: bool = False

    def record(self) -> dict[str, Any]:
        """The fields a page's record in the run keeps: ``fetched_at`` (ISO 8601, UTC),
        ``from_cache`` and ``revalidated``."""
        return {
            "fetched_at": iso_time(self.fetched_at),
            "from_cache": self.from_cache,
            "revalidated": self.revalidated,
        }


def conditional_headers(entry: CacheEntry | None) -> dict[str, str]:
    """The headers that ask the site whether ``entry`` is still current (none without
    validators)."""
    if entry is None:
        return {}
    headers = {"If-None-Match": entry.etag} if entry.etag else {}
    if entry.last_modified:
        headers["If-Modified-Since"] = entry.last_modified
    return headers


def cacheable(status: int, headers: Mapping[str, str]) -> bool:
    """Whether a response may be kept: a 200 the site did not mark ``no-store``."""
    return status == 200 and "no-store" not in headers.get("cache-control", "").lower()


@dataclass(frozen=True)
class CacheStats:
    """What ``quartet cache stats`` says of a namespace's cache.

    Attributes:
        entries: how many entries are kept (pages and downloads, rendered pages, search
            result lists and what was derived from pages and files).
        rendered: how many of them are rendered pages.
        bytes: their stored size.
        oldest: when the least recently fetched or checked entry was, or None.
        newest: when the most recently fetched or checked entry was, or None.
        searches: how many of them are search result lists.
        derived: how many of them were derived from pages and files.
    """

    entries: int
    rendered: int
    bytes: int
    oldest: float | None
    newest: float | None
    searches: int = 0
    derived: int = 0


class PageCache:
    """The page cache of one store namespace.

    Args:
        store: the store whose namespace keeps the entries; its bound and eviction bound
            the cache.
        fresh_seconds: how long after it was fetched or checked an entry is reused
            without asking the site (0: every reuse asks).
        clock: the current time in seconds since the epoch.
        claim_seconds: how long a claim to fetch a page holds unless its owner gives it
            up (see :meth:`RunCache.turn`).
    """

    def __init__(
        self,
        store: StoreFileSystem,
        fresh_seconds: float = DEFAULT_FRESH_SECONDS,
        clock: Callable[[], float] = time.time,
        claim_seconds: float = CLAIM_SECONDS,
    ) -> None:
        self.store, self.fresh_seconds, self.clock = store, fresh_seconds, clock
        self.claim_seconds = claim_seconds
        #: The largest body kept: a share of the namespace's bound.
        self.max_entry_bytes = store.max_total_bytes // ENTRY_SHARE

    def close(self) -> None:
        """Close the store; the cache cannot be used afterwards."""
        self.store.close()

    def fresh(self, entry: CacheEntry) -> bool:
        """Whether ``entry`` may be reused without asking the site."""
        return 0 <= self.clock() - entry.checked_at < self.fresh_seconds

    def get(self, kind: str, url: str) -> Cached | None:
        """The ``kind`` entry of ``url``; None when there is none or it is damaged (a
        damaged one is removed).

        Raises:
            FsError: the store could not be read.
        """
        path = entry_path(kind, url)
        try:
            blob = self.store.read_bytes(path, self.max_entry_bytes + 64 * 1024)
        except (NotFoundError, FileTooLargeError):  # none, or kept under a larger bound
            return None
        decoded = CacheEntry.decode(blob)
        if decoded is None:
            with contextlib.suppress(FsError):
                self.store.delete(path)
            return None
        return Cached(*decoded)

    def put(self, entry: CacheEntry, body: bytes) -> bool:
        """Keep ``body`` as ``entry`` (the entry of its kind and URL, replaced); whether it
        was kept (a body over :attr:`max_entry_bytes` is not).

        Raises:
            FsError: the store could not be written.
        """
        if len(body) > self.max_entry_bytes:
            return False
        blob = entry.encode(body)
        with self.store.open_atomic(entry_path(entry.kind, entry.url), len(blob)) as out:
            out.write(blob)
        return True

    def claim(self, kind: str, url: str, owner: str, seconds: float) -> Claim:
        """Claim the fetch of the ``kind`` entry of ``url`` for ``owner`` for ``seconds``
        (see :meth:`~fs_service.backends.StoreFileSystem.claim`); the claim that holds it
        now, ``owner``'s or another's.

        Raises:
            FsError: the store could not be written.
        """
        return self.store.claim(entry_path(kind, url), owner, seconds)

    def release(self, kind: str, url: str, owner: str) -> None:
        """End ``owner``'s claim on the fetch of the ``kind`` entry of ``url``.

        Raises:
            FsError: the store could not be written.
        """
        self.store.release(entry_path(kind, url), owner)

    def stats(self) -> CacheStats:
        """How many entries the namespace's cache holds, their size, the oldest and the
        newest (by when each was last fetched or checked)."""
        files = list(self.store.walk_files(CACHE_DIR))
        times = [f.modified for f in files]
        return CacheStats(
            entries=len(files),
            rendered=sum(f.path.startswith(RENDER_DIR) for f in files),
            bytes=sum(f.size for f in files),
            oldest=min(times, default=None),
            newest=max(times, default=None),
            searches=sum(f.path.startswith(SEARCH_DIR) for f in files),
            derived=sum(f.path.startswith(DERIVED_DIR) for f in files),
        )

    def clear(self) -> int:
        """Remove every entry of the namespace's cache; how many there were."""
        return self.store.delete_below(CACHE_DIR)


class RunCache:
    """One run's use of a :class:`PageCache`: async, and never failing a fetch.

    Args:
        cache: the page cache.
        reads: cached entries may be used (off: ``--fresh``, or a run that records or
            replays its tape, which must see every response).
        writes: what the run fetches is kept (off: a replay).
    """

    def __init__(self, cache: PageCache, reads: bool = True, writes: bool = True) -> None:
        self.cache, self.reads, self.writes = cache, reads, writes
        #: what went wrong with the store, each once, in order
        self.errors: list[str] = []
        #: the SHA-256 of the bodies this run read that may not be kept (``no-store``,
        #: or not a 200): nothing derived from them is kept either (see :func:`remember`)
        self.withheld: set[str] = set()
        #: called once, at the first lookup that finds no fresh entry (see
        #: :meth:`on_first_miss`)
        self._on_miss: Callable[[], None] | None = None
        self._missed = False
        self._miss_lock = threading.Lock()

    def on_first_miss(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` at the first lookup that finds no fresh entry (at once when
        one did already): the run computes or fetches something new then, and may start
        what that needs. It may be called from a thread the lookup waits in."""
        with self._miss_lock:
            missed, self._on_miss = self._missed, (None if self._missed else callback)
        if missed:
            callback()

    def _found(self, cached: Cached | None) -> Cached | None:
        """``cached``, noting a miss when it is no fresh entry."""
        if cached is None or not self.fresh(cached.entry):
            with self._miss_lock:
                callback, self._on_miss, self._missed = self._on_miss, None, True
            if callback is not None:
                callback()
        return cached

    def withhold(self, digest: str) -> None:
        """Keep nothing derived from the body whose SHA-256 is ``digest`` (hex)."""
        self.withheld.add(digest)

    def withhold_derived(self, source: str, derived: str) -> None:
        """Keep nothing derived from the text ``derived`` either when it was made from the
        text ``source`` of a body that may not be kept (a page's Markdown, say, from its
        HTML: what the research core prepares from the Markdown is not kept)."""
        if self.withheld and text_digest(source) in self.withheld:
            self.withhold(text_digest(derived))

    def now(self) -> float:
        """The cache's clock."""
        return self.cache.clock()

    def fresh(self, entry: CacheEntry) -> bool:
        """Whether ``entry`` may be reused without asking the site."""
        return self.cache.fresh(entry)

    def _now_quietly(self, work: Callable[[], T], fallback: T) -> T:
        """``work()``; ``fallback`` (and the error kept) when the store fails."""
        try:
            return work()
        except FsError as exc:
            told = str(exc).removeprefix("Error: ")
            if told not in self.errors:
                self.errors.append(told)
            return fallback

    def lookup_now(self, kind: str, url: str) -> Cached | None:
        """:meth:`lookup` for code that runs in a thread of its own (it waits on the
        store)."""
        if not self.reads:
            return self._found(None)
        return self._found(self._now_quietly(lambda: self.cache.get(kind, url), None))

    def keep_now(self, entry: CacheEntry, body: bytes) -> None:
        """:meth:`keep` for code that runs in a thread of its own (it waits on the
        store)."""
        if self.writes:
            self._now_quietly(lambda: self.cache.put(entry, body), False)

    async def lookup(self, kind: str, url: str) -> Cached | None:
        """The ``kind`` entry of ``url`` when reads are on; None otherwise (either way, a
        miss when it is no fresh entry: see :meth:`on_first_miss`)."""
        if not self.reads:
            return self._found(None)
        return await asyncio.to_thread(self.lookup_now, kind, url)

    async def keep(self, entry: CacheEntry, body: bytes) -> None:
        """Keep ``body`` as ``entry`` when writes are on."""
        if self.writes:
            await asyncio.to_thread(self.keep_now, entry, body)

    @contextlib.asynccontextmanager
    async def turn(
        self,
        kind: str,
        url: str,
        usable: Callable[[Cached], bool] = lambda cached: True,
        seconds: float | None = None,
    ) -> AsyncIterator[Cached | None]:
        """Look up the ``kind`` entry of ``url`` and, when it is not fresh, take this run's
        turn to fetch it: the block fetches and keeps what it yields no fresh entry for.

        Without a fresh ``usable`` entry, the fetch is claimed in the store for the block
        (the claim is given up when the block ends, however it ends). When another run or
        task holds the claim, this waits until that one has kept the entry and yields it,
        fresh; or until the claim is given up or runs out without a fresh entry, and then
        claims the fetch itself. A run that reads or writes nothing in the cache claims
        and waits for nothing, and a failure of the store only ends the waiting.

        Args:
            kind: :data:`HTTP` or :data:`RENDER`.
            url: the address to fetch.
            usable: whether an entry serves the caller (a download needs a whole copy);
                one that does not counts as no entry.
            seconds: how long this run's claim holds, longer than the fetch may take
                (default: the cache's :attr:`PageCache.claim_seconds`).

        Yields:
            A fresh usable entry (the caller uses it and fetches nothing), or the stale
            entry whose validators the fetch may send, or None.
        """
        found = await self.lookup(kind, url)
        found = found if found is not None and usable(found) else None
        if (found is not None and self.fresh(found.entry)) or not (self.reads and self.writes):
            yield found
            return
        owner = uuid.uuid4().hex
        lease = self.cache.claim_seconds if seconds is None else seconds
        found, held = await self._wait_for_turn(kind, url, owner, found, usable, lease)
        try:
            yield found
        finally:
            if held:
                await self._release(kind, url, owner)

    async def _release(self, kind: str, url: str, owner: str) -> None:
        """Give ``owner``'s claim on the fetch of ``url`` up (a failure of the store is
        kept: the claim runs out)."""
        await asyncio.to_thread(
            self._now_quietly, lambda: self.cache.release(kind, url, owner), None
        )

    async def _wait_for_turn(
        self,
        kind: str,
        url: str,
        owner: str,
        found: Cached | None,
        usable: Callable[[Cached], bool],
        seconds: float,
    ) -> tuple[Cached | None, bool]:
        """Claim the fetch for ``owner``, or wait for the other owner's entry (see
        :meth:`turn`); the entry to yield, and whether ``owner`` holds the claim.

        The entry is looked up after each claim, won or not: an owner keeps the entry
        before it gives its claim up, so a claim won after another's holds no entry that
        was kept meanwhile unseen.
        """
        holder, deadline, pause = "", 0.0, POLL_FIRST
        while True:
            claim = await asyncio.to_thread(
                self._now_quietly, lambda: self.cache.claim(kind, url, owner, seconds), None
            )
            if claim is None:  # the store failed: fetch
                return found, False
            latest = await self.lookup(kind, url)
            if latest is not None and usable(latest):
                found = latest
            if found is not None and self.fresh(found.entry):  # another fetched it
                if claim.owner == owner:
                    await self._release(kind, url, owner)
                return found, False
            if claim.owner == owner:
                return found, True
            if claim.owner != holder:  # wait for this owner until its claim runs out
                holder = claim.owner
                deadline = time.monotonic() + max(0.0, claim.expires - self.now())
                logger.debug("waiting for another fetch of %s", url)
            left = deadline - time.monotonic()
            if left <= 0:  # the claim outlived its time by the clocks here: fetch
                return found, False
            await asyncio.sleep(min(pause, left))
            pause = min(pause * 2, POLL_MAX)

    async def revalidated(self, cached: Cached, headers: Mapping[str, str]) -> Cached:
        """``cached`` as a 304 with ``headers`` confirmed it: checked now, with any new
        validators the site sent, and kept so (when writes are on)."""
        entry = replace(
            cached.entry,
            checked_at=self.now(),
            etag=headers.get("etag") or cached.entry.etag,
            last_modified=headers.get("last-modified") or cached.entry.last_modified,
        )
        await self.keep(entry, cached.body)
        return Cached(entry, cached.body)


def http_entry(
    url: str,
    final_url: str,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    fetched_at: float,
    truncated: bool = False,
) -> CacheEntry:
    """The entry of a response fetched at ``fetched_at`` with ``headers`` and ``body``."""
    return CacheEntry(
        kind=HTTP,
        url=url,
        final_url=final_url,
        status=status,
        content_type=headers.get("content-type", ""),
        fetched_at=fetched_at,
        checked_at=fetched_at,
        sha256=hashlib.sha256(body).hexdigest(),
        size=len(body),
        etag=headers.get("etag", ""),
        last_modified=headers.get("last-modified", ""),
        truncated=truncated,
    )


_ACTIVE: contextvars.ContextVar[RunCache | None] = contextvars.ContextVar(
    "quartet_page_cache", default=None
)


def active_cache() -> RunCache | None:
    """The page cache of the run this code belongs to (None: the run keeps no cache)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def caching(cache: RunCache | None) -> Iterator[None]:
    """Make ``cache`` the page cache of the code inside (and of the tasks it starts)."""
    token = _ACTIVE.set(cache)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _ACTIVE.reset(token)


def turn(
    cache: RunCache | None,
    kind: str,
    url: str,
    usable: Callable[[Cached], bool] = lambda cached: True,
    seconds: float | None = None,
) -> contextlib.AbstractAsyncContextManager[Cached | None]:
    """:meth:`RunCache.turn` of ``cache``; without a cache, a block that yields None."""
    if cache is None:
        return contextlib.nullcontext(None)
    return cache.turn(kind, url, usable, seconds)


def keyed_entry(
    kind: str, key: str, body: bytes, when: float, content_type: str = "application/json"
) -> CacheEntry:
    """The entry of a :data:`SEARCH` or :data:`DERIVED` ``body`` kept under ``key`` at
    ``when`` (it has no validators: it is reused while fresh and computed again after)."""
    return CacheEntry(
        kind=kind,
        url=key,
        final_url=key,
        status=200,
        content_type=content_type,
        fetched_at=when,
        checked_at=when,
        sha256=hashlib.sha256(body).hexdigest(),
        size=len(body),
    )


def reuse_now(kind: str, key: str) -> bytes | None:
    """The body of the run's fresh ``kind`` entry kept under ``key``, for code that runs
    in a thread of its own (it waits on the store; :func:`reuse` from async code).

    Args:
        kind: :data:`SEARCH` or :data:`DERIVED`.
        key: everything the body was computed from (see :func:`fingerprint`).

    Returns:
        The body; None when the run keeps no cache, reads nothing from it (``--fresh``,
        a recording), holds no such entry, or holds one older than the freshness window.
    """
    cache = active_cache()
    if cache is None:
        return None
    cached = cache.lookup_now(kind, key)
    if cached is None or not cache.fresh(cached.entry):
        return None
    return cached.body


def remember_now(
    kind: str,
    key: str,
    body: bytes,
    content_type: str = "application/json",
    source: str = "",
) -> None:
    """Keep ``body`` as the run's ``kind`` entry under ``key``, for code that runs in a
    thread of its own (:func:`remember` from async code). Nothing is kept without a
    cache, when the run writes none, or when ``source`` may not be kept.

    Args:
        kind: :data:`SEARCH` or :data:`DERIVED`.
        key: everything the body was computed from (see :func:`fingerprint`).
        body: what was computed.
        content_type: what ``body`` is.
        source: the SHA-256 (hex) of what ``body`` was derived from: nothing is kept
            when the run withholds it (see :meth:`RunCache.withhold`).
    """
    cache = active_cache()
    if cache is not None and not (source and source in cache.withheld):
        cache.keep_now(keyed_entry(kind, key, body, cache.now(), content_type), body)


async def reuse(kind: str, key: str) -> bytes | None:
    """:func:`reuse_now` in a thread: the body of the run's fresh ``kind`` entry kept
    under ``key``, or None."""
    if active_cache() is None:
        return None
    return await asyncio.to_thread(reuse_now, kind, key)


async def remember(
    kind: str,
    key: str,
    body: bytes,
    content_type: str = "application/json",
    source: str = "",
) -> None:
    """:func:`remember_now` in a thread: keep ``body`` as the run's ``kind`` entry under
    ``key`` (see there for when nothing is kept)."""
    if active_cache() is not None:
        await asyncio.to_thread(remember_now, kind, key, body, content_type, source)


def text_digest(text: str) -> str:
    """The SHA-256 (hex) of ``text`` as UTF-8 (a lone surrogate kept as it is)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _sources(name: str) -> list[Path]:
    """The source files of module ``name``: its file, or every ``.py`` file of a
    package, in order (none when it cannot be found)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):  # ``__main__`` run from a string, a broken parent
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return sorted(
            f for where in spec.submodule_search_locations for f in Path(where).rglob("*.py")
        )
    return [Path(spec.origin)] if spec.origin else []


@functools.lru_cache(maxsize=64)
def fingerprint(modules: tuple[str, ...], distributions: tuple[str, ...] = ()) -> str:
    """What identifies the code that computes a cached body: the SHA-256 of the source
    of each of ``modules`` (this project's modules or packages, by dotted name; a
    package counts with all its modules) and the installed version of each of
    ``distributions`` (the libraries they call), so that an entry computed by other
    code (an upgrade, a local change) is never reused.

    Args:
        modules: dotted names of the modules and packages that compute the body.
        distributions: names of the installed distributions it depends on.

    Returns:
        A short hex digest (a module or distribution that cannot be found counts as
        ``missing``).
    """
    digest = hashlib.sha256()
    for name in modules:
        files = _sources(name)
        digest.update(f"{name}:{len(files)}".encode())
        for path in files:
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"missing")
    for name in distributions:
        try:
            digest.update(f"{name}={importlib.metadata.version(name)}".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name}=missing".encode())
    return digest.hexdigest()[:32]


__all__ = [
    "CACHE_DIR",
    "CLAIM_SECONDS",
    "DEFAULT_FRESH_SECONDS",
    "DEFAULT_MAX_MB",
    "DERIVED",
    "HTTP",
    "MIB",
    "RENDER",
    "SEARCH",
    "CacheEntry",
    "CacheStats",
    "Cached",
    "PageCache",
    "Provenance",
    "RunCache",
    "active_cache",
    "cache_key",
    "cacheable",
    "caching",
    "conditional_headers",
    "fingerprint",
    "http_entry",
    "iso_time",
    "keyed_entry",
    "remember",
    "remember_now",
    "reuse",
    "reuse_now",
    "text_digest",
    "turn",
]
