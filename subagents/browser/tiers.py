"""Fetching tiers: plain HTTP first, Chromium only when the quality gate says so.

The HTTP tier follows redirects itself so that the network guard checks every hop
before any connection is made to it (a redirect to anything but http or https is an
error), and its transport checks each address again as it connects to it. Bodies are
decoded under the page cap as they arrive (see :mod:`..net.decode`). The quality gate looks
at the status and at the extracted text: a 202/403/429, a challenge page, a script-only
shell or too little text sends the page to the Chromium tier of the agent's
:class:`BrowserSession`.

A page of a site the experience logs name as needing the browser (``browser_sites``)
is read in Chromium at once, without the plain fetch first, unless the page cache holds a
fresh plain copy of it; when Chromium cannot read it well, the tiers are tried in order.

Both tiers go through the run's page cache when it has one (:mod:`..net.pagecache`): a
fresh copy is served without a request, a stale one is asked about with a conditional
request (a 304 serves it again), and what is fetched is kept. Every page says where its
copy came from (:class:`~..net.pagecache.Provenance`).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import ssl
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing, asynccontextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlsplit

import httpx
from bs4.dammit import UnicodeDammit

from ..evidence import site_key
from ..failures import plain_reason
from ..net.decode import ACCEPT_ENCODING, BodyError, decoded_body
from ..net.netguard import BlockedURLError, check_url
from ..net.netpin import GuardedTransport, build_request
from ..net.pagecache import (
    HTTP,
    RENDER,
    Cached,
    CacheEntry,
    Provenance,
    RunCache,
    active_cache,
    cacheable,
    conditional_headers,
    http_entry,
    text_digest,
    turn,
)
from ..settings import NetworkPolicy
from ..tape import tape_transport
from .extract import Extracted, plain_to_markdown
from .session import BrowserSession, BrowserUnavailableError, RenderedPage
from .workers import extract_html

USER_AGENT = "Mozilla/5.0 (compatible; QuartetBrowser/0.1; research reader)"
REQUEST_HEADERS = {
    "User-Agent": USER_AGENT,
    "Accept": "*/*",
    "Accept-Encoding": ACCEPT_ENCODING,
    "Accept-Language": "en,zh;q=0.8,*;q=0.5",
}
#: Whole-fetch deadline (seconds), so a slow trickle cannot hold a tool forever.
DEADLINE = 45.0
MAX_REDIRECTS = 10
#: Pages larger than this are cut (and the cut is reported); downloads have their own cap.
MAX_PAGE_BYTES = 2 * 1024 * 1024
MIN_TEXT_CHARS = 100
GATE_STATUSES = frozenset({202, 403, 429})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/", "application/json", "application/xml", "+json", "+xml")
CHALLENGE_MARKERS = (
    "just a moment...",
    "checking your browser",
    "cf-challenge",
    "cf_chl_",
    "challenge-platform",
    "enable javascript and cookies to continue",
    "verify you are human",
    "are you a robot",
    "ddos protection by",
    "captcha-delivery",
)
#: The endings of the addresses read in the browser at once on a site that needs it (a
#: document or an image is fetched as usual).
PAGE_SUFFIXES = frozenset({"", ".html", ".htm", ".xhtml", ".php", ".asp", ".aspx", ".jsp"})
CHROMIUM = "chromium"
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.I)


class FetchError(Exception):
    """A fetch failed. ``outside`` marks failures of the network or site (→ unavailable)."""

    def __init__(self, message: str, outside: bool = False) -> None:
        super().__init__(message)
        self.outside = outside


@lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def make_transport(allow: NetworkPolicy) -> GuardedTransport:
    """A new HTTP transport whose connections pass the network guard when they open.

    A host name that resolves differently after :func:`check_url` is still refused (see
    :mod:`..net.netpin`). Send requests made by :func:`..net.netpin.build_request` with
    its ``open``.
    """
    return GuardedTransport(_ssl_context(), allow)


_transports: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[NetworkPolicy, GuardedTransport]
] = weakref.WeakKeyDictionary()


def shared_transport(allow: NetworkPolicy) -> GuardedTransport:
    """The HTTP transport of the running event loop for ``allow``, made on first use.

    One transport (one connection pool) serves every page fetch of a run; it is never
    closed by a fetch, and holds no idle connection since each response closes its own.
    """
    per_loop = _transports.setdefault(asyncio.get_running_loop(), {})
    transport = per_loop.get(allow)
    if transport is None:
        transport = per_loop[allow] = make_transport(allow)
    return tape_transport(transport)  # type: ignore[return-value]


def redirect_target(url: str, location: str) -> str:
    """The absolute address a redirect from ``url`` points to; BlockedURLError unless http(s)."""
    try:
        target = urljoin(url, location.strip())
        parts = urlsplit(target)
        scheme, _ = parts.scheme.lower(), parts.port
    except ValueError as exc:
        raise BlockedURLError(
            f"Error: {url[:200]} redirects to {location[:200]!r}, which is not a valid "
            f"address ({exc}); the redirect cannot be followed."
        ) from None
    if scheme not in ("http", "https"):
        raise BlockedURLError(
            f"Error: {url[:200]} redirects to {target[:200]!r}; only http and https "
            "addresses can be fetched, so the redirect cannot be followed. Pick another source."
        )
    return target


@asynccontextmanager
async def guarded_get(
    transport: GuardedTransport,
    url: str,
    allow: NetworkPolicy,
    headers: Mapping[str, str] | None = None,
) -> AsyncIterator[httpx.Response]:
    """GET ``url`` as a stream, following redirects by hand and checking every hop first.

    ``headers`` are sent with every hop beside :data:`REQUEST_HEADERS` (a conditional
    request's validators).
    """
    current = url
    sent = {**REQUEST_HEADERS, **(headers or {})}
    for _ in range(MAX_REDIRECTS + 1):
        await check_url(current, allow)
        response = await transport.open(build_request("GET", current, sent))
        location = response.headers.get("location")
        if response.status_code in REDIRECT_STATUSES and location:
            await response.aclose()
            current = redirect_target(current, location)
            continue
        try:
            yield response
        finally:
            await response.aclose()
        return
    raise FetchError(f"Error: more than {MAX_REDIRECTS} redirects starting at {url[:200]}.", True)


async def read_capped(response: httpx.Response, cap: int) -> tuple[bytes, bool]:
    """The decoded body, cut at ``cap`` bytes; the flag says whether it was cut.

    Decoding stops at the cap, so a body that inflates without end costs ``cap`` bytes.
    Raises BodyError as :func:`.decode.decoded_body` does.
    """
    chunks: list[bytes] = []
    size = 0
    async with aclosing(decoded_body(response)) as body:
        async for piece in body:
            chunks.append(piece)
            size += len(piece)
            if size > cap:
                return b"".join(chunks)[:cap], True
    return b"".join(chunks), False


def decode(body: bytes, content_type: str) -> str:
    """Text of a body: the declared charset, else a <meta> charset, else UTF-8, else a guess."""
    declared = httpx.Headers({"content-type": content_type}).get("content-type", "")
    match = re.search(r"charset=([\w\-]+)", declared, re.I)
    meta = _META_CHARSET.search(body[:4096])
    candidates = [
        m.group(1).decode() if isinstance(m.group(1), bytes) else m.group(1)
        for m in (match, meta)
        if m
    ]
    for encoding in [*candidates, "utf-8"]:
        try:
            return body.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    dammit = UnicodeDammit(body, ["gb18030", "utf-8", "windows-1252"])
    return dammit.unicode_markup or body.decode("utf-8", errors="replace")


def _fetched_now() -> Provenance:
    return Provenance(time.time())


@dataclass
class HttpPage:
    """What the HTTP tier fetched, and where its copy came from."""

    url: str
    final_url: str
    status: int
    content_type: str
    text: str
    truncated: bool
    provenance: Provenance = field(default_factory=_fetched_now)


def fetched_at(cache: RunCache | None) -> float:
    """The time a fetch ends: the cache's clock when the run keeps one."""
    return cache.now() if cache is not None else time.time()


def _cached_page(url: str, cached: Cached, provenance: Provenance) -> HttpPage:
    """The page of a cached response, cut at :data:`MAX_PAGE_BYTES` (a download's copy
    may be longer)."""
    entry = cached.entry
    body = cached.body[:MAX_PAGE_BYTES]
    truncated = entry.truncated or len(cached.body) > MAX_PAGE_BYTES
    text = decode(body, entry.content_type)
    return HttpPage(
        url, entry.final_url, entry.status, entry.content_type, text, truncated, provenance
    )


async def _http_page(
    url: str, response: httpx.Response, cache: RunCache | None, cached: Cached | None
) -> HttpPage:
    """The page ``response`` gives: the cached copy again for a 304, else its body (kept
    in the cache when it may be)."""
    if response.status_code == 304 and cache is not None and cached is not None:
        confirmed = await cache.revalidated(cached, response.headers)
        seen = Provenance(confirmed.entry.fetched_at, from_cache=True, revalidated=True)
        return _cached_page(url, confirmed, seen)
    body, truncated = await read_capped(response, MAX_PAGE_BYTES)
    content_type = response.headers.get("content-type", "")
    when = fetched_at(cache)
    page = HttpPage(
        url=url,
        final_url=str(response.url),
        status=response.status_code,
        content_type=content_type,
        text=decode(body, content_type),
        truncated=truncated,
        provenance=Provenance(when),
    )
    if cache is not None and cacheable(response.status_code, response.headers):
        entry = http_entry(
            url, page.final_url, page.status, response.headers, body, when, truncated
        )
        await cache.keep(entry, body)
    elif cache is not None:  # nor is what is derived from it (its Markdown)
        cache.withhold(text_digest(page.text))
    return page


async def fetch_http(url: str, allow: NetworkPolicy) -> HttpPage:
    """Fetch ``url`` over HTTP(S) with guarded redirects, timeouts and a size cap.

    With the run's page cache, a fresh copy is served without a request, and a stale one
    is sent with its validators (a 304 serves it again). A page another run sharing the
    store is fetching at the moment is waited for and served from the cache (see
    :meth:`RunCache.turn`).
    """
    cache = active_cache()
    async with turn(cache, HTTP, url) as cached:
        if cache is not None and cached is not None and cache.fresh(cached.entry):
            seen = Provenance(cached.entry.fetched_at, from_cache=True)
            return _cached_page(url, cached, seen)
        return await _fetch_http(url, allow, cache, cached)


async def _fetch_http(
    url: str, allow: NetworkPolicy, cache: RunCache | None, cached: Cached | None
) -> HttpPage:
    """Fetch ``url`` over the network, ``cached``'s validators sent along (see
    :func:`fetch_http`)."""
    validators = conditional_headers(cached.entry if cached is not None else None)
    try:
        async with (
            asyncio.timeout(DEADLINE),
            guarded_get(shared_transport(allow), url, allow, validators) as response,
        ):
            return await _http_page(url, response, cache, cached)
    except BlockedURLError as exc:
        raise FetchError(str(exc)) from None
    except BodyError as exc:
        raise FetchError(str(exc), exc.outside) from None
    except TimeoutError:
        raise FetchError(f"timed out after {DEADLINE:.0f} s fetching {url[:200]}", True) from None
    except httpx.HTTPError as exc:
        raise FetchError(f"could not fetch {url[:200]}: {plain_reason(exc)}", True) from None


def media_kind(content_type: str) -> str:
    """``html``, ``text`` or ``binary`` for a Content-Type header value."""
    mime = content_type.split(";", 1)[0].strip().lower()
    if not mime or mime in HTML_TYPES:
        return "html"
    if mime.startswith(TEXT_TYPES[0]) or any(mime.endswith(t) or mime == t for t in TEXT_TYPES):
        return "text"
    return "binary"


def quality_gate(status: int, page: Extracted, raw: str) -> str | None:
    """Why the HTTP tier's text is not good enough, or None when it is."""
    if status in GATE_STATUSES:
        return f"HTTP status {status}"
    if page.visible_chars < 3000:
        head = raw[:20000].lower()
        if any(marker in head for marker in CHALLENGE_MARKERS):
            return "a challenge page"
    if page.visible_chars < 300 and page.script_chars > page.visible_chars:
        return "a script-only shell"
    if len(page.markdown) < MIN_TEXT_CHARS:
        return "too little text"
    return None


@dataclass
class PageText:
    """The text of a page and where it came from."""

    url: str
    final_url: str
    status: int
    content_type: str
    extracted: Extracted
    tier: str
    truncated: bool = False
    notes: list[str] = field(default_factory=list)
    provenance: Provenance = field(default_factory=_fetched_now)
    #: read in Chromium at once because the site is known to need the browser
    browser_first: bool = False


def _status_failure(page: HttpPage) -> FetchError | None:
    if page.status < 400 or page.status in GATE_STATUSES:
        return None
    reason = httpx.codes.get_reason_phrase(page.status)
    if page.status >= 500:
        return FetchError(f"{page.final_url[:200]} answered HTTP {page.status} {reason}", True)
    return FetchError(
        f"Error: {page.final_url[:200]} answered HTTP {page.status} {reason}. "
        "Check the URL or pick another source."
    )


async def fetch_page_text(
    url: str,
    browser: BrowserSession | None,
    allow: NetworkPolicy,
    browser_sites: frozenset[str] = frozenset(),
) -> PageText:
    """The Markdown of ``url``: HTTP tier, then the Chromium tier if the gate fails.

    A page of one of ``browser_sites`` goes to the Chromium tier first (see
    :func:`goes_to_browser_first`).
    """
    if browser is not None and await goes_to_browser_first(url, browser_sites):
        page = await _browser_first(url, browser)
        if page is not None:
            return page
    http = await fetch_http(url, allow)
    failure = _status_failure(http)
    if failure is not None:
        raise failure
    kind = media_kind(http.content_type)
    if kind == "binary":
        raise FetchError(
            f"Error: {url[:200]} is not a text page ({http.content_type}). Save it with "
            "http_download and read it with the file tools."
        )
    if kind == "text":
        plain = plain_to_markdown(http.text)
        cache = active_cache()
        if cache is not None:
            cache.withhold_derived(http.text, plain.markdown)
        return _http_text(http, plain)
    extracted = await extract_html(http.text, http.final_url)
    result = _http_text(http, extracted)
    if http.truncated:
        result.notes.append(f"the page was larger than {MAX_PAGE_BYTES} bytes and was cut")
    reason = quality_gate(http.status, extracted, http.text)
    if reason is None:
        return result
    if browser is None:
        result.notes.append(f"the HTTP text failed the quality gate ({reason}); no browser")
        return _usable_or_raise(result, reason)
    try:
        rendered, provenance = await render_page(browser, http.final_url)
    except BlockedURLError as exc:
        raise FetchError(str(exc)) from None
    except BrowserUnavailableError as exc:
        result.notes.append(f"the HTTP text failed the quality gate ({reason}); {exc}")
        return _usable_or_raise(result, reason, outside=True)
    rendered_text = await extract_html(rendered.html, rendered.final_url)
    still = quality_gate(rendered.status, rendered_text, rendered.html)
    if still is not None and rendered.status in GATE_STATUSES:
        raise FetchError(
            f"{rendered.final_url[:200]} refused both plain HTTP ({reason}) and the browser "
            f"(HTTP {rendered.status})",
            True,
        )
    if len(rendered_text.markdown) < len(extracted.markdown):
        result.notes.append(
            f"the HTTP text failed the quality gate ({reason}); Chromium found less, so the "
            "HTTP text is kept"
        )
        return result
    note = f"the HTTP text failed the quality gate ({reason})"
    return _chromium_text(url, rendered, rendered_text, provenance, note)


async def goes_to_browser_first(url: str, browser_sites: frozenset[str]) -> bool:
    """Whether ``url`` is read in Chromium without a plain fetch first: a page (not a
    document) of one of ``browser_sites``, of which the run's page cache holds no fresh
    plain copy unless it holds a fresh rendering too."""
    if not browser_sites or site_key(url) not in browser_sites:
        return False
    try:
        suffix = PurePosixPath(urlsplit(url).path).suffix.lower()
    except ValueError:
        return False
    if suffix not in PAGE_SUFFIXES:
        return False
    cache = active_cache()
    if cache is None:
        return True
    rendered = await cache.lookup(RENDER, url)
    if rendered is not None and cache.fresh(rendered.entry):
        return True
    plain = await cache.lookup(HTTP, url)
    return plain is None or not cache.fresh(plain.entry)


async def _browser_first(url: str, browser: BrowserSession) -> PageText | None:
    """``url`` read in Chromium at once; None when Chromium could not read it well (it
    failed, the site refused it, or it gave too little text), so that the tiers are
    tried in order."""
    try:
        rendered, provenance = await render_page(browser, url)
    except BlockedURLError as exc:
        raise FetchError(str(exc)) from None
    except BrowserUnavailableError:
        return None
    extracted = await extract_html(rendered.html, rendered.final_url)
    refused = rendered.status >= 400 or rendered.status in GATE_STATUSES
    if refused or len(extracted.markdown) < MIN_TEXT_CHARS:
        return None
    note = f"read in the browser at once: {site_key(url)} is known to need it"
    return _chromium_text(url, rendered, extracted, provenance, note, browser_first=True)


def _chromium_text(
    url: str,
    rendered: RenderedPage,
    extracted: Extracted,
    provenance: Provenance,
    note: str,
    browser_first: bool = False,
) -> PageText:
    """Chromium's text of a page, with the page's provenance and why it was rendered."""
    return PageText(
        url=url,
        final_url=rendered.final_url,
        status=rendered.status,
        content_type="text/html",
        extracted=extracted,
        tier=CHROMIUM,
        notes=[note],
        provenance=provenance,
        browser_first=browser_first,
    )


def _http_text(http: HttpPage, extracted: Extracted) -> PageText:
    """The HTTP tier's text of a page, with the page's provenance."""
    return PageText(
        http.url,
        http.final_url,
        http.status,
        http.content_type,
        extracted,
        "http",
        http.truncated,
        provenance=http.provenance,
    )


async def render_page(browser: BrowserSession, url: str) -> tuple[RenderedPage, Provenance]:
    """``url`` rendered in Chromium, and where the rendering came from.

    With the run's page cache, a fresh rendering of ``url`` is served without the
    browser, and a new one with status 200 is kept (a rendering has no validators: a
    stale one is rendered again).
    """
    cache = active_cache()
    async with turn(cache, RENDER, url) as cached:
        if cache is not None and cached is not None and cache.fresh(cached.entry):
            entry = cached.entry
            html = cached.body.decode("utf-8", errors="replace")
            page = RenderedPage(url, entry.final_url, entry.status, html, entry.title)
            return page, Provenance(entry.fetched_at, from_cache=True)
        return await _render(browser, url, cache)


async def _render(
    browser: BrowserSession, url: str, cache: RunCache | None
) -> tuple[RenderedPage, Provenance]:
    """``url`` rendered in Chromium, kept in the cache when its status is 200 (see
    :func:`render_page`)."""
    rendered = await browser.render(url)
    when = fetched_at(cache)
    if cache is not None and rendered.status != 200:  # not kept, nor its Markdown
        cache.withhold(text_digest(rendered.html))
    if cache is not None and rendered.status == 200:
        body = rendered.html.encode("utf-8")
        entry = CacheEntry(
            kind=RENDER,
            url=url,
            final_url=rendered.final_url,
            status=rendered.status,
            content_type="text/html; charset=utf-8",
            fetched_at=when,
            checked_at=when,
            sha256=hashlib.sha256(body).hexdigest(),
            size=len(body),
            title=rendered.title,
        )
        await cache.keep(entry, body)
    return rendered, Provenance(when)


def _usable_or_raise(result: PageText, reason: str, outside: bool = True) -> PageText:
    if result.extracted.markdown.strip() and result.status not in GATE_STATUSES:
        return result
    raise FetchError(
        f"{result.final_url[:200]} gave no readable text over HTTP ({reason}) and the "
        f"browser tier could not help: {'; '.join(result.notes)}",
        outside,
    )
