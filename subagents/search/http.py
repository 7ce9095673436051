"""The one way search providers talk HTTP: timeouts, one bounded retry on 429, and failures
classified into short reasons that never carry a key.

Every failure a provider cannot turn into results is raised as :class:`SearchUnavailable`
with a reason a model can read; the tool layer turns it into ``unavailable(reason)``.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import logging
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..secrets import scrub
from ..tape import active_tape, tape_transport

logger = logging.getLogger(__name__)

#: Longest Retry-After (seconds) honoured before the single retry; longer waits give up at once.
RETRY_AFTER_CAP = 5.0
#: Wait used when a 429 carries no usable Retry-After.
RETRY_AFTER_DEFAULT = 1.0
#: Identifies the program to APIs that ask for it (Wikimedia, GitHub).
API_USER_AGENT = "Quartet/0.1 (research pipeline; +https://www.mediawiki.org/wiki/API:Etiquette)"
#: Results pages are served to browsers; ask for them as one.
BROWSER_USER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36"
)
BROWSER_HEADERS = {
    "User-Agent": BROWSER_USER_AGENT,
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.9,zh-CN;q=0.8,zh;q=0.7",
}

_HTTP_LOGGERS = ("httpx", "httpcore.connection", "httpcore.http11", "httpcore.http2")


class SearchUnavailable(Exception):
    """A source could not give results; ``reason`` says why, for the model."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with the value of every credential variable (and of each of ``extra``, e.g.
    the keys of injected settings) replaced by ``***``."""
    return scrub(text, extra)


class _RedactingFilter(logging.Filter):
    """Rewrites HTTP library log records so no key value reaches a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


_FILTER = _RedactingFilter()


def install_log_redaction() -> None:
    """Attach the redacting filter to the HTTP libraries' loggers (idempotent)."""
    for name in _HTTP_LOGGERS:
        target = logging.getLogger(name)
        if _FILTER not in target.filters:
            target.addFilter(_FILTER)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The verifying TLS context, built once: loading the CA bundle costs ~150 ms."""
    return httpx.create_ssl_context()


def new_client(timeout: float, headers: Mapping[str, str] | None = None) -> httpx.AsyncClient:
    """A fresh client with a per-request ``timeout`` in seconds; the caller closes it."""
    install_log_redaction()
    taped = None  # the default transport, which honours the proxy variables
    if active_tape() is not None:
        taped = tape_transport(httpx.AsyncHTTPTransport(verify=_tls_context()))
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout),
        headers=dict(headers or {"User-Agent": API_USER_AGENT}),
        follow_redirects=True,
        verify=_tls_context(),
        transport=taped,
    )


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or HTTP-date), None if unusable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def host_of(url: str) -> str:
    """The host part of ``url`` (never its query, where keys could be)."""
    return urlsplit(url).hostname or "?"


async def get(
    client: httpx.AsyncClient,
    url: str,
    *,
    source: str,
    params: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    follow_redirects: bool = True,
    describe_error: Callable[[httpx.Response], str | None] | None = None,
) -> httpx.Response:
    """GET ``url`` and return a 2xx response, or raise SearchUnavailable with the reason.

    A 429 is retried once after its Retry-After when that is at most ``RETRY_AFTER_CAP``
    seconds; requests carrying keys should pass ``follow_redirects=False`` so a redirect
    cannot forward a key header to another host.
    """
    for attempt in (1, 2):
        try:
            response = await client.get(
                url, params=params, headers=headers, follow_redirects=follow_redirects
            )
        except httpx.TimeoutException as exc:
            limit = client.timeout.read  # the configured search timeout (see new_client)
            within = f"within {limit:g} s" if limit else "in time"
            raise SearchUnavailable(
                f"{source} did not answer {within} ({type(exc).__name__})"
            ) from None
        except httpx.HTTPError as exc:
            raise SearchUnavailable(
                f"could not reach {source} at {host_of(url)} ({type(exc).__name__})"
            ) from None
        if response.status_code != 429 or attempt == 2:
            break
        _raise_if_blocked(response, source)  # Google serves its CAPTCHA with a 429
        wait = retry_after_seconds(response.headers.get("retry-after"))
        wait = RETRY_AFTER_DEFAULT if wait is None else wait
        if wait > RETRY_AFTER_CAP:
            raise SearchUnavailable(
                f"{source} is rate limiting (HTTP 429) and asks to wait {wait:.0f} s; "
                "try another source"
            )
        logger.debug("%s answered 429; retrying once after %.1f s", source, wait)
        await asyncio.sleep(wait)
    _check_status(response, source, describe_error)
    return response


def _raise_if_blocked(response: httpx.Response, source: str) -> None:
    if "html" in response.headers.get("content-type", ""):
        kind = blocked_page(str(response.url), response.text)
        if kind:
            raise SearchUnavailable(f"{source} returned {kind} instead of results")


def _check_status(
    response: httpx.Response,
    source: str,
    describe_error: Callable[[httpx.Response], str | None] | None,
) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    _raise_if_blocked(response, source)
    detail = None
    if describe_error is not None:
        try:
            detail = describe_error(response)
        except Exception:  # a broken error body must not hide the status
            detail = None
    suffix = f": {redact(detail)[:200]}" if detail else ""
    if status == 429:
        raise SearchUnavailable(f"{source} is still rate limiting (HTTP 429) after one retry")
    if 300 <= status < 400:
        raise SearchUnavailable(f"{source} answered with an unexpected redirect (HTTP {status})")
    if status >= 500:
        raise SearchUnavailable(f"{source} had a server error (HTTP {status}){suffix}")
    if status in (401, 403):
        raise SearchUnavailable(f"{source} refused the request (HTTP {status}){suffix}")
    raise SearchUnavailable(f"{source} rejected the request (HTTP {status}){suffix}")


def json_body(response: httpx.Response, source: str) -> Any:
    """The parsed JSON body, or SearchUnavailable naming a block page or a malformed body."""
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        kind = blocked_page(str(response.url), response.text)
        if kind:
            raise SearchUnavailable(f"{source} returned {kind} instead of results") from None
        raise SearchUnavailable(f"{source} returned a malformed JSON body") from None


_CONSENT_MARKERS = (
    'action="https://consent.',
    "consent.google.com",
    "consent.yahoo.com",
    "before you continue to google",
)
_CAPTCHA_MARKERS = (
    'id="captcha-form"',
    "g-recaptcha",
    "h-captcha",
    "cf-turnstile",
    "/sorry/index",
    "unusual traffic from your computer network",
    "/antispider",
    "我们的系统检测到您网络中存在异常访问",
    "请输入验证码",
)
_SCRIPT_WALL_MARKERS = ("/httpservice/retry/enablejs", "please enable javascript")


def blocked_page(url: str, text: str) -> str | None:
    """Name the interstitial ``text`` at ``url`` is ("a consent page", ...), or None.

    Call it when a page yielded no results: results pages can mention these words.
    """
    parts = urlsplit(url)
    host, path = (parts.hostname or "").lower(), parts.path.lower()
    if host.startswith("consent."):
        return "a consent page"
    if host.startswith("sorry.") or "/sorry/" in path or "/antispider" in path:
        return "a CAPTCHA page"
    lowered = text[:200_000].lower()
    if any(m in lowered for m in _CAPTCHA_MARKERS):
        return "a CAPTCHA page"
    if any(m in lowered for m in _CONSENT_MARKERS):
        return "a consent page"
    if any(m in lowered for m in _SCRIPT_WALL_MARKERS):
        return "a page that requires JavaScript"
    return None
