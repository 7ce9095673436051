"""The one way search providers talk HTTP: the Browser's network guard, bounded bodies,
timeouts, one bounded retry on 429, and failures classified into short reasons that never
carry a key.

Every connection, the first request's and each redirect hop's, is opened by the guarded
transport of :mod:`subagents.net.netpin` under the run's network policy, so a results page
or an API that redirects to a private address is refused like a page the Browser is sent
to. The policy is the Browser's plus one exemption: the exact ``host:port`` of each search
endpoint configured in the settings (``QUARTET_<SOURCE>_URL``), which the user named
(:func:`search_policy`). Bodies are decoded a bounded piece at a time
(:mod:`subagents.net.decode`) and refused beyond :data:`MAX_BODY_BYTES`.

Every failure a provider cannot turn into results is raised as :class:`SearchUnavailable`
with a reason a model can read; the tool layer turns it into ``unavailable(reason)``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import functools
import ipaddress
import json
import logging
import ssl
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any
from urllib.parse import urlsplit

import httpx

from ..net.decode import ACCEPT_ENCODING, BodyError, decoded_body
from ..net.netguard import BlockedURLError
from ..net.netpin import GuardedTransport
from ..secrets import install_log_scrubbing, scrub
from ..settings import NetworkPolicy, ToolSettings, network_policy
from ..tape import tape_transport

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
#: Most bytes a results page or an API answer may decode to; a larger body is refused.
MAX_BODY_BYTES = 4 * 1024 * 1024

_HTTP_LOGGERS = ("httpx", "httpcore.connection", "httpcore.http11", "httpcore.http2")


class SearchUnavailable(Exception):
    """A source could not give results; ``reason`` says why, for the model."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def install_log_redaction() -> None:
    """Attach the scrubbing filter to the HTTP libraries' loggers (idempotent)."""
    install_log_scrubbing(_HTTP_LOGGERS)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The verifying TLS context, built once: loading the CA bundle costs ~150 ms."""
    return httpx.create_ssl_context()


class RefusedAddress(httpx.TransportError):
    """A request, or a redirect hop, to an address the network policy refuses."""


class RefusedBody(httpx.DecodingError):
    """A body refused while it was decoded: too large, a bomb, or broken."""


def _origin(url: str) -> tuple[str, int] | None:
    """``(host, port)`` of an http(s) URL, or None for any other or a malformed one."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").rstrip(".").lower()
    if scheme not in ("http", "https") or not host:
        return None
    return host, port or (443 if scheme == "https" else 80)


def exempting(policy: NetworkPolicy, urls: Iterable[str]) -> NetworkPolicy:
    """``policy`` with the ``host:port`` of each of ``urls`` exempt (that port only)."""
    host_ports, network_ports = set(policy.host_ports), list(policy.network_ports)
    for origin in filter(None, map(_origin, urls)):
        host, port = origin
        try:
            network_ports.append((ipaddress.ip_network(host), port))
        except ValueError:
            host_ports.add((host, port))
    return dataclasses.replace(
        policy, host_ports=frozenset(host_ports), network_ports=tuple(dict.fromkeys(network_ports))
    )


def search_policy(settings: object) -> NetworkPolicy:
    """The network policy of the search sources under ``settings``.

    The Browser's policy (``QUARTET_ALLOW_HOSTS``, ``QUARTET_NETWORK``) plus the exact
    ``host:port`` of every endpoint the settings configure: a user who points a source
    at a local engine names that one service, and nothing else on its host. Redirects
    and Sogou's link pages elsewhere are judged by the Browser's rules alone.
    """
    policy = network_policy(settings)
    if not isinstance(settings, ToolSettings):
        return policy
    lang = settings.wiki_lang
    return exempting(policy, (u.replace("{lang}", lang) for u in settings.endpoints.values()))


class _BoundedBody(httpx.AsyncByteStream):
    """The decoded body of a raw response, refused beyond ``cap`` bytes."""

    def __init__(self, raw: httpx.Response, cap: int) -> None:
        self._raw, self._cap = raw, cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        request, host = self._raw.request, host_of(str(self._raw.url))
        produced = 0
        try:
            async with aclosing(decoded_body(self._raw)) as body:
                async for piece in body:
                    produced += len(piece)
                    if produced > self._cap:
                        raise RefusedBody(
                            f"the answer of {host} is larger than "
                            f"{self._cap // (1024 * 1024)} MiB once decoded",
                            request=request,
                        )
                    yield piece
        except BodyError as exc:
            what = (
                "is cut short or corrupt"
                if exc.outside
                else "is a decompression bomb or uses stacked or unknown encodings"
            )
            raise RefusedBody(f"the answer of {host} {what}", request=request) from None

    async def aclose(self) -> None:
        await self._raw.aclose()


class SearchTransport(httpx.AsyncBaseTransport):
    """Sends through the guarded transport and hands on bodies decoded under a cap.

    Args:
        inner: The transport that connects (the guarded one, behind the tape if any).
        cap: Most decoded bytes of one body.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport, cap: int = MAX_BODY_BYTES) -> None:
        self._inner, self._cap = inner, cap

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """One request on its own connection; its body arrives decoded and bounded.

        Raises RefusedAddress when the policy refuses the host's addresses.
        """
        request.headers["Connection"] = "close"  # one response a connection (see netpin)
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        try:
            raw = await self._inner.handle_async_request(request)
        except BlockedURLError as exc:
            reason = str(exc).removeprefix("Error: ")
            raise RefusedAddress(reason, request=request) from None
        raw.request = request
        headers = [
            (k, v)
            for k, v in raw.headers.multi_items()
            if k.lower() not in ("content-encoding", "content-length")
        ]
        return httpx.Response(
            raw.status_code,
            headers=headers,
            stream=_BoundedBody(raw, self._cap),
            request=request,
            extensions=raw.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def new_client(
    timeout: float, policy: NetworkPolicy, headers: Mapping[str, str] | None = None
) -> httpx.AsyncClient:
    """A fresh client with a per-request ``timeout`` in seconds; the caller closes it.

    Every connection it opens obeys ``policy`` (redirects included), and every body it
    reads is decoded under :data:`MAX_BODY_BYTES`. Proxy variables are not used, as in
    the Browser: a proxy would connect where the guard cannot look.
    """
    install_log_redaction()
    guarded = GuardedTransport(_tls_context(), policy)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout),
        headers=dict(headers or {"User-Agent": API_USER_AGENT}),
        follow_redirects=True,
        transport=SearchTransport(tape_transport(guarded)),
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
        except httpx.TimeoutException:
            limit = client.timeout.read  # the configured search timeout (see new_client)
            within = f"within {limit:g} s" if limit else "in time"
            raise SearchUnavailable(f"{source} did not answer {within}") from None
        except RefusedAddress as exc:
            raise SearchUnavailable(f"{source} led to an address that is refused: {exc}") from None
        except RefusedBody as exc:
            raise SearchUnavailable(f"{source} answered with a refused body: {exc}") from None
        except httpx.HTTPError:
            raise SearchUnavailable(f"could not reach {source} at {host_of(url)}") from None
        if response.status_code != 429 or attempt == 2:
            break
        _raise_if_blocked(response, source)  # Google serves its CAPTCHA with a 429
        wait = retry_after_seconds(response.headers.get("retry-after"))
        wait = RETRY_AFTER_DEFAULT if wait is None else wait
        if wait > RETRY_AFTER_CAP:
            raise SearchUnavailable(
                f"{source} is rate limiting (HTTP 429) and asks to wait {wait:.0f} s"
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
    suffix = f": {scrub(detail)[:200]}" if detail else ""
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
