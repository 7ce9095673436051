"""Connect-time network guard: the address that was checked is the address connected to.

:func:`.netguard.check_url` refuses a URL early and readably, but the HTTP client would
resolve the host name again when it connects, and a rebinding DNS server can answer a
public address to the check and a private one to the connect. :class:`GuardedBackend` is
an httpcore network backend that resolves the host itself when a connection opens,
applies the rules of the network guard to every address and connects to the first
permitted one. httpcore still hands the URL's host name to ``start_tls``, so TLS keeps
it for SNI and for the certificate check. :class:`GuardedTransport` is httpx's own
transport using that backend.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable

import httpcore
import httpx

from ..settings import NetworkPolicy
from . import netguard
from .netguard import UnresolvableHostError

#: Connection limits of the guarded transport (httpx's defaults).
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)


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
                return await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=remaining,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None  # permitted_addresses never returns an empty list
        raise failure

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class GuardedTransport(httpx.AsyncHTTPTransport):
    """httpx's HTTP transport whose connections are opened by a :class:`GuardedBackend`.

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
