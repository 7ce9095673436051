"""Connect-time network guard: the address that was checked is the address connected to.

:func:`.netguard.check_url` refuses a URL early and readably, but the HTTP client would
resolve the host name again when it connects, and a rebinding DNS server can answer a
public address to the check and a private one to the connect. :class:`GuardedBackend` is
an httpcore network backend that resolves the host itself when a connection opens,
applies the rules of the network guard to every address and connects to the first
permitted one. httpcore still hands the URL's host name to ``start_tls``, so TLS keeps
it for SNI and for the certificate check. :class:`GuardedTransport` is httpx's own
transport using that backend; every request it sends carries ``Connection: close``, so
a connection carries one response and :func:`surplus` can tell whether a server sent
more than the body it declared.
"""

from __future__ import annotations

import re
import ssl
import time
from collections.abc import Iterable

import httpcore
import httpx

from ..settings import NetworkPolicy
from . import netguard
from .netguard import BlockedURLError, UnresolvableHostError

#: Timeouts of one request sent through the guarded transport (seconds).
TIMEOUT = httpx.Timeout(20.0, connect=10.0)
#: Connection limits of the guarded transport (httpx's defaults).
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
#: Bytes kept from the start of a connection: room for the response head (httpcore
#: accepts heads up to 100 KiB).
HEAD_BYTES = 128 * 1024
#: Seconds to wait after a body for the server to close the connection, or to send
#: bytes beyond the length it declared.
SURPLUS_WAIT = 1.0
_HEAD_END = re.compile(rb"\n\r?\n")
_INTERIM = re.compile(rb"\s*HTTP/[\d.]+\s+1\d\d\b")


class MeteredStream(httpcore.AsyncNetworkStream):
    """A connection that counts the bytes read from it and keeps the first HEAD_BYTES.

    Args:
        inner: The stream that does the reading and writing.
    """

    def __init__(self, inner: httpcore.AsyncNetworkStream) -> None:
        self._inner = inner
        self.received = 0
        self.head = bytearray()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = await self._inner.read(max_bytes, timeout)
        self.received += len(data)
        if len(self.head) < HEAD_BYTES:
            self.head += data[: HEAD_BYTES - len(self.head)]
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """The TLS stream over this connection, metered afresh (it reads plain text)."""
        return MeteredStream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> object:
        return self._inner.get_extra_info(info)


def _body_start(head: bytes) -> int | None:
    """Where the body of the final response begins in ``head`` (1xx heads are skipped)."""
    start = 0
    while (end := _HEAD_END.search(head, start)) is not None:
        if not _INTERIM.match(head, start):
            return end.end()
        start = end.end()
    return None


async def surplus(response: httpx.Response, body_bytes: int) -> int:
    """How many bytes the server sent beyond a body of ``body_bytes`` bytes; 0 for none.

    Counts what already arrived on the response's connection (one response per
    connection, see :class:`GuardedTransport`) and then waits up to SURPLUS_WAIT for the
    server to close it. 0 as well when the response did not come through a
    :class:`MeteredStream`.
    """
    stream = response.extensions.get("network_stream")
    if not isinstance(stream, MeteredStream):
        return 0
    start = _body_start(bytes(stream.head))
    if start is None:
        return 0
    extra = stream.received - start - body_bytes
    if extra > 0:
        return extra
    try:
        return len(await stream.read(1, timeout=SURPLUS_WAIT))
    except (httpcore.TimeoutException, httpcore.NetworkError):
        return 0


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections only to addresses the network guard permits.

    Args:
        allow: The network policy connections must obey.
        inner: The backend that opens the socket to the chosen address.
    """

    def __init__(
        self, allow: NetworkPolicy, inner: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        self._allow = allow
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve ``host``, keep the permitted addresses and connect to the first that answers.

        Raises BlockedURLError when no address of ``host`` is permitted; a name that no
        longer resolves, or addresses that all refuse the connection, raise
        ``httpcore.ConnectError`` like any other failed connect.
        """
        try:
            addresses = await netguard.permitted_addresses(host, port, self._allow)
        except UnresolvableHostError as exc:
            raise httpcore.ConnectError(str(exc)) from None
        deadline = None if timeout is None else time.monotonic() + timeout
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise httpcore.ConnectTimeout(f"connecting to {host} (port {port}) timed out")
            try:
                stream = await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=remaining,
                    local_address=local_address,
                    socket_options=socket_options,
                )
                return MeteredStream(stream)
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None  # permitted_addresses never returns an empty list
        raise failure

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def build_request(
    method: str,
    url: str,
    headers: Iterable[tuple[bytes, bytes]] | dict[str, str],
    content: bytes | None = None,
) -> httpx.Request:
    """A request to send with :meth:`GuardedTransport.open`, with TIMEOUT.

    Raises BlockedURLError for a URL that httpx cannot use.
    """
    try:
        return httpx.Request(
            method, url, headers=headers, content=content, extensions={"timeout": TIMEOUT.as_dict()}
        )
    except httpx.InvalidURL as exc:
        raise BlockedURLError(f"Error: {url[:200]!r} is not a usable URL ({exc}).") from None


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's HTTP transport whose connections are opened by a :class:`GuardedBackend`.

    Send requests with :meth:`open`; redirects are the caller's to follow.

    Args:
        ssl_context: Certificates and settings for https connections.
        allow: The network policy connections must obey.
    """

    def __init__(self, ssl_context: ssl.SSLContext, allow: NetworkPolicy) -> None:
        super().__init__(verify=ssl_context, trust_env=False, limits=LIMITS)
        # httpx 0.28 takes no network backend; its transport sends every request, and its
        # exception mapping, through ``self._pool``, so that pool is replaced by an
        # identical one (never opened, nothing to close) that connects through the guard.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=LIMITS.max_connections,
            max_keepalive_connections=LIMITS.max_keepalive_connections,
            keepalive_expiry=LIMITS.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=GuardedBackend(allow),
        )

    async def open(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` with ``Connection: close``; the response's body is left unread.

        The transport is used without an httpx client, whose redirect handling reads
        a ``Location`` header even when it does not follow it, and raises on one it
        cannot parse. Raises BlockedURLError when the host may not be connected to.
        """
        request.headers["Connection"] = "close"
        response = await self.handle_async_request(request)
        response.request = request
        return response
