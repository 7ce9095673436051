"""Evidence: the shared record of stored pages and exact spans quoted from them.

The Browser stores each page's text under ``/workspace/pages/`` with a JSON sidecar
(:class:`PageRecord`) and records quoted spans as :class:`EvidenceItem`; the Generate
subagent cites only items whose ``span`` is still exactly ``text[start:end]`` of the
stored page. The Host owns the :class:`EvidenceLedger` of a run and injects it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class EvidenceItem:
    """An exact quotation: ``span == stored_text[start:end]`` of the page at ``page_path``."""

    url: str
    span: str
    start: int
    end: int
    page_path: str = ""
    id: str = ""
    locator: str = ""

    def public(self) -> dict:
        """The ``{url, span, start, end}`` shape tools return to the model."""
        return {"url": self.url, "span": self.span, "start": self.start, "end": self.end}

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict) -> EvidenceItem:
        return cls(
            url=str(raw["url"]),
            span=str(raw["span"]),
            start=int(raw["start"]),
            end=int(raw["end"]),
            page_path=str(raw.get("page_path", "")),
            id=str(raw.get("id", "")),
            locator=str(raw.get("locator", "")),
        )


def span_matches(text: str, item: EvidenceItem) -> bool:
    """Whether ``item.span`` is exactly ``text[item.start:item.end]``."""
    return 0 <= item.start < item.end <= len(text) and text[item.start : item.end] == item.span


def evidence_id(item: EvidenceItem) -> str:
    """A short stable id for an item: a hash of its URL, offsets and span."""
    digest = hashlib.sha256(f"{item.url}\0{item.start}\0{item.end}\0{item.span}".encode())
    return "ev-" + digest.hexdigest()[:12]


def identified(item: EvidenceItem) -> EvidenceItem:
    """``item`` with its id filled in (the hash of its URL, offsets and span)."""
    return item if item.id else EvidenceItem(**{**item.to_dict(), "id": evidence_id(item)})


@dataclass
class PageRecord:
    """The sidecar stored beside a page's text (``<name>.md`` → ``<name>.json``)."""

    url: str
    final_url: str
    fetched_at: str
    sha256: str
    tier: str
    extractor: str
    markdown_path: str
    title: str = ""
    content_type: str = ""
    evidence: list[dict] = field(default_factory=list)
    kind: str = "web"  # web | file
    #: the copy came from the page cache (fetched by an earlier run, at ``fetched_at``)
    from_cache: bool = False
    #: the site confirmed the cached copy unchanged during this run (a 304)
    revalidated: bool = False
    #: read in Chromium without a plain fetch first: the experience logs name the site
    #: as one that needs the browser
    browser_first: bool = False
    #: the page's own date, published or last updated, as its markup gives it (ISO 8601;
    #: "" when it gives none, and for a file)
    published: str = ""

    @property
    def has_links(self) -> bool:
        """Whether the stored text's links are the page's own: pages converted from HTML
        and Markdown pages. A plain-text page (text/plain, JSON, CSV) has no links: a
        ``[text](url)`` written in it is text, never followed."""
        return self.extractor != "plain" or "markdown" in self.content_type.lower()

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, indent=2)

    @classmethod
    def from_json(cls, text: str) -> PageRecord:
        raw = json.loads(text)
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in raw.items() if k in known})


def sidecar_path(markdown_path: str) -> str:
    """The sidecar path of a stored page: ``/workspace/pages/a.md`` → ``…/a.json``."""
    stem = markdown_path[:-3] if markdown_path.endswith(".md") else markdown_path
    return stem + ".json"


def url_key(url: str) -> str:
    """A key under which two spellings of one address compare equal (fragment, case of the
    scheme and host, default port and a trailing slash ignored)."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    port = f":{parts.port}" if parts.port not in (None, 80, 443) else ""
    path = parts.path.rstrip("/") or "/"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{host}{port}{path}{query}"


def site_key(url: str) -> str:
    """The site a page belongs to, as ``host`` or ``host:port``: the host in lower case,
    the port only when the address names one other than its scheme's default ("" for an
    address with no host)."""
    try:
        parts = urlsplit(url.strip())
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return ""
    if not host:
        return ""
    host = f"[{host}]" if ":" in host else host
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return host if port is None or port == default else f"{host}:{port}"


class PageBudgetError(RuntimeError):
    """The run's page budget is spent; no new page may be fetched."""


class PageRegistry:
    """Every page and download stored in this run, so that no address is fetched twice.

    ``viewer_fetch`` and ``http_download`` ask :meth:`claim` before fetching: the first
    caller for an address fetches it (others wait for it), and later callers are told
    where it is stored. ``budget`` caps the number of pages fetched in the run.
    """

    def __init__(self, budget: int | None = None) -> None:
        self.budget = budget
        self._stored: dict[str, str] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.fetched: list[str] = []  # addresses actually fetched, in order
        self.pages = 0
        #: where each page and download stored in this run came from, in order
        self.sources: list[dict[str, Any]] = []

    def stored(self, url: str) -> str | None:
        """Where the page or file at ``url`` is stored in this run, if it is."""
        return self._stored.get(url_key(url))

    def origin(self, path: str) -> str | None:
        """The address the page or file stored at ``path`` was fetched from, if any."""
        return next((url for url, stored in self._stored.items() if stored == path), None)

    def record(self, url: str, path: str, *also: str) -> None:
        """Remember that ``url`` (and each of ``also``, e.g. its final address) is at ``path``."""
        for address in (url, *also):
            if address:
                self._stored.setdefault(url_key(address), path)

    def lock(self, url: str) -> asyncio.Lock:
        """The lock a fetch of ``url`` holds, so that concurrent callers fetch it once."""
        return self._locks.setdefault(url_key(url), asyncio.Lock())

    def take_page(self, url: str) -> None:
        """Count one page fetch against the budget; PageBudgetError when it is spent."""
        if self.budget is not None and self.pages >= self.budget:
            raise PageBudgetError(
                f"Error: the run's page budget ({self.budget} pages) is spent; {url[:200]} "
                "was not fetched. Work with the pages already read."
            )
        self.pages += 1
        self.fetched.append(url)

    def note_fetch(self, url: str) -> None:
        """Record a fetch that does not count against the page budget (a download)."""
        self.fetched.append(url)

    def note_source(self, source: dict[str, Any]) -> None:
        """Keep where a page or download stored in this run came from: its ``kind``
        (``page`` or ``download``), ``url``, ``final_url``, ``path``, ``fetched_at``,
        ``from_cache``, ``revalidated`` and ``sha256`` (``run.json``'s ``web_sources``)."""
        self.sources.append(dict(source))

    def source_at(self, path: str) -> dict[str, Any] | None:
        """Where the page or download stored at ``path`` came from (the latest note of
        it), or None when none was noted."""
        return next((dict(s) for s in reversed(self.sources) if s.get("path") == path), None)

    def state(self) -> dict:
        """What a checkpoint keeps: the stored addresses, the pages counted, the fetches
        and where the stored copies came from."""
        return {
            "stored": dict(self._stored),
            "pages": self.pages,
            "fetched": list(self.fetched),
            "sources": [dict(s) for s in self.sources],
        }

    def restore(self, state: dict) -> None:
        self._stored = dict(state.get("stored", {}))
        self.pages = int(state.get("pages", 0))
        self.fetched = list(state.get("fetched", []))
        self.sources = [dict(s) for s in state.get("sources", []) if isinstance(s, dict)]


class EvidenceLedger:
    """The run's evidence items by id and its stored pages (:attr:`pages`).

    Thread-safe for items; ``on_add`` lets the Host persist them.
    """

    def __init__(
        self,
        on_add: Callable[[EvidenceItem], None] | None = None,
        pages: PageRegistry | None = None,
    ) -> None:
        self._items: dict[str, EvidenceItem] = {}
        self._lock = threading.Lock()
        self._on_add = on_add
        self.pages = pages or PageRegistry()

    def add(self, item: EvidenceItem) -> EvidenceItem:
        """Store ``item`` (given an id if it has none) and return the stored item."""
        item = identified(item)
        with self._lock:
            is_new = item.id not in self._items
            self._items[item.id] = item
        if is_new and self._on_add is not None:
            self._on_add(item)
        return item

    def get(self, item_id: str) -> EvidenceItem | None:
        with self._lock:
            return self._items.get(item_id)

    def items(self) -> list[EvidenceItem]:
        with self._lock:
            return list(self._items.values())

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
