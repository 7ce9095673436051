"""GuardedProxy: the loopback HTTP proxy that every request of the browser goes through.

Chromium is launched with ``--proxy-server`` pointing here and
``--proxy-bypass-list=<-loopback>`` (without it Chromium would reach localhost and
127.0.0.1 directly). Each request it makes, a navigation, every redirect hop (a new
request), a subresource or a script's fetch, is checked when it is made and connected
only to an address the network guard permits, with the same rules and the same
connect-time pinning as the HTTP tier (:mod:`..net.netpin`). Chromium never resolves a host
name itself, so it cannot be rebound to another address.

- ``http://`` requests (absolute-form) are sent on by the guarded transport; the body
  is decoded under :data:`MAX_RESPONSE_BYTES` (see :mod:`..net.decode`) and handed on
  unencoded, so a decompression bomb, or a body that does not match its length, never
  reaches the browser whole.
- ``CONNECT host:port`` (https and WebSockets) opens a tunnel to a permitted address of
  the host; TLS stays between Chromium and the site, which checks the certificate for
  the host name.
- Anything else (a request for a path of the proxy itself, a method it does not relay,
  a malformed request) is refused.

A refused request is answered 403 with the reason as text, and the proxy keeps the most
recent refusals (:meth:`GuardedProxy.refused`) so that a tool can say why a page did not
load.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import re
from collections import deque
from collections.abc import Iterable
from contextlib import aclosing
from dataclasses import dataclass

import h11
import httpcore
import httpx

from ..net.decode import ACCEPT_ENCODING, BodyError, decoded_body
from ..net.netguard import BlockedURLError, split_host
from ..net.netpin import GuardedBackend, GuardedTransport, build_request
from ..settings import NetworkPolicy

#: Largest decoded body handed to the browser for one request.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
#: Largest request body (a form or a script's upload) sent on.
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: Largest request head the browser may send.
MAX_HEAD_BYTES = 64 * 1024
#: Seconds a connection may stay silent (between requests, or in a tunnel).
IDLE_TIMEOUT = 60.0
CONNECT_TIMEOUT = 10.0
READ_BYTES = 64 * 1024
#: Refusals kept for :meth:`GuardedProxy.refused`.
KEPT_REFUSALS = 500
METHODS = frozenset({b"GET", b"HEAD", b"POST", b"PUT", b"PATCH", b"DELETE", b"OPTIONS"})
#: Headers that describe one connection, not the message: never passed on.
HOP_BY_HOP = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"proxy-authorization",
        b"proxy-authenticate",
        b"te",
        b"trailer",
        b"transfer-encoding",
        b"upgrade",
    }
)
_AUTHORITY = re.compile(r"^(?:\[(?P<v6>[0-9a-fA-F:.]+)\]|(?P<host>[^:\[\]]+)):(?P<port>\d{1,5})$")


@dataclass(frozen=True)
class Refusal:
    """A request the proxy refused: its target (a URL, or ``host:port`` for a tunnel)."""

    target: str
    reason: str

    def __str__(self) -> str:
        return f"{self.target}: {self.reason}"

    def concerns(self, url: str) -> bool:
        """Whether this refusal is the one a request for ``url`` met."""
        if self.target == url.split("#", 1)[0]:
            return True
        try:
            _, host, port = split_host(url)
        except BlockedURLError:
            return False
        return url.lower().startswith("https:") and self.target == _authority(host, port)


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class GuardedProxy:
    """An HTTP proxy on 127.0.0.1 that lets through only what the network policy permits.

    Args:
        allow: The network policy every request must obey.
    """

    def __init__(self, allow: NetworkPolicy) -> None:
        self._transport = GuardedTransport(httpx.create_ssl_context(), allow)
        self._backend = GuardedBackend(allow)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._refusals: deque[tuple[int, Refusal]] = deque(maxlen=KEPT_REFUSALS)
        self._seq = itertools.count()
        self.port = 0

    @property
    def listening(self) -> bool:
        """Whether the proxy has started and is not closed."""
        return self._server is not None

    @property
    def url(self) -> str:
        """The proxy's address, as Chromium's ``--proxy-server`` takes it."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Listen on an ephemeral port of 127.0.0.1."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def aclose(self) -> None:
        """Stop listening, end every open connection and close the upstream transport."""
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(OSError):
                await self._server.wait_closed()
            self._server = None
        await self._transport.aclose()

    # --- refusals --------------------------------------------------------------------

    @property
    def refusals(self) -> list[Refusal]:
        """The most recent refusals, oldest first."""
        return [r for _, r in self._refusals]

    def mark(self) -> int:
        """A position in the refusals; :meth:`refused` looks only at later ones."""
        return self._refusals[-1][0] + 1 if self._refusals else 0

    def refused(self, urls: Iterable[str], since: int = 0) -> Refusal | None:
        """The first refusal since ``since`` that one of ``urls`` met, or None."""
        wanted = list(urls)
        for seq, refusal in self._refusals:
            if seq >= since and any(refusal.concerns(u) for u in wanted):
                return refusal
        return None

    def _refuse(self, target: str, reason: str) -> None:
        self._refusals.append((next(self._seq), Refusal(target[:500], reason)))

    # --- one connection from the browser ---------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
        try:
            while True:
                event = await _next_event(conn, reader)
                if not isinstance(event, h11.Request):
                    return
                if event.method == b"CONNECT":
                    await self._tunnel(conn, event, reader, writer)
                    return
                await self._forward(conn, event, reader, writer)
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    return
                conn.start_next_cycle()
        except h11.RemoteProtocolError as exc:
            with contextlib.suppress(h11.ProtocolError, OSError):
                await self._answer(conn, writer, 400, f"malformed request: {exc}")
        except (
            h11.LocalProtocolError,
            OSError,
            TimeoutError,
            BodyError,
            httpx.HTTPError,
            httpcore.NetworkError,
            httpcore.TimeoutException,
        ):
            return  # the browser sees the connection end; what was refused is recorded
        finally:
            writer.close()
            with contextlib.suppress(OSError, RuntimeError):
                await writer.wait_closed()
            if task is not None:
                self._tasks.discard(task)

    async def _forward(
        self,
        conn: h11.Connection,
        request: h11.Request,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Send an ``http://`` request on and relay the answer, or refuse it."""
        target = request.target.decode("ascii", "replace")
        if request.method not in METHODS:
            await self._answer(conn, writer, 405, f"the proxy does not relay {request.method!r}")
            return
        try:
            scheme, _, _ = split_host(target)
            if scheme != "http":
                raise BlockedURLError(f"Error: {target[:200]} must go through CONNECT.")
            body = await _request_body(conn, reader)
            response = await self._transport.open(_upstream_request(request, target, body))
        except BlockedURLError as exc:
            self._refuse(target, str(exc))
            await self._answer(conn, writer, 403, str(exc))
            return
        except _TooLargeRequestError:
            await self._answer(conn, writer, 413, "the request body is too large")
            return
        except httpx.HTTPError as exc:
            await self._answer(conn, writer, 502, f"{target[:200]} failed: {exc}")
            return
        try:
            await self._relay(conn, writer, request, response)
        except BodyError as exc:
            self._refuse(target, str(exc))
            raise
        finally:
            await response.aclose()

    async def _relay(
        self,
        conn: h11.Connection,
        writer: asyncio.StreamWriter,
        request: h11.Request,
        response: httpx.Response,
    ) -> None:
        """Hand the browser the response, its body decoded and capped.

        A body refused part-way (a bomb, a length mismatch, over the cap) raises
        BodyError, and the connection is dropped so that the browser sees it incomplete.
        """
        bodiless = request.method == b"HEAD" or response.status_code in (204, 304)
        dropped = HOP_BY_HOP if bodiless else HOP_BY_HOP | {b"content-length", b"content-encoding"}
        headers = [(k, v) for k, v in response.headers.raw if k.lower() not in dropped]
        reason = response.extensions.get("reason_phrase", b"")
        async with aclosing(decoded_body(response)) as body:
            first = b"" if bodiless else await anext(body, b"")  # a refused encoding → 502
            head = h11.Response(status_code=response.status_code, headers=headers, reason=reason)
            await _send(conn, writer, head)
            sent = 0
            piece = first
            while piece:
                sent += len(piece)
                if sent > MAX_RESPONSE_BYTES:
                    raise BodyError(
                        f"Error: {str(response.url)[:200]} is larger than the "
                        f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MiB the browser may load."
                    )
                await _send(conn, writer, h11.Data(data=piece))
                piece = await anext(body, b"")
        await _send(conn, writer, h11.EndOfMessage())

    async def _tunnel(
        self,
        conn: h11.Connection,
        request: h11.Request,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Open a tunnel for ``CONNECT host:port`` to a permitted address, or refuse it."""
        target = request.target.decode("ascii", "replace")
        match = _AUTHORITY.match(target)
        if match is None:
            self._refuse(target, f"Error: {target[:200]!r} is not a host:port to connect to.")
            await self._answer(conn, writer, 400, "CONNECT needs host:port")
            return
        host = (match["v6"] or match["host"]).lower().rstrip(".")
        port = int(match["port"])
        try:
            upstream = await self._backend.connect_tcp(host, port, timeout=CONNECT_TIMEOUT)
        except BlockedURLError as exc:
            self._refuse(_authority(host, port), str(exc))
            await self._answer(conn, writer, 403, str(exc))
            return
        except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
            await self._answer(conn, writer, 502, f"could not connect to {target[:200]}: {exc}")
            return
        try:
            await _send(
                conn, writer, h11.Response(status_code=200, headers=[], reason=b"Connected")
            )
            leftover, _ = conn.trailing_data
            if leftover:
                await upstream.write(leftover, timeout=IDLE_TIMEOUT)
            await _pipe(reader, writer, upstream)
        finally:
            await upstream.aclose()

    async def _answer(
        self, conn: h11.Connection, writer: asyncio.StreamWriter, status: int, text: str
    ) -> None:
        """A short plain-text answer that ends the connection."""
        body = text.encode("utf-8", "replace")
        headers = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            ("Cache-Control", "no-store"),
        ]
        await _send(conn, writer, h11.Response(status_code=status, headers=headers))
        await _send(conn, writer, h11.Data(data=body))
        await _send(conn, writer, h11.EndOfMessage())


class _TooLargeRequestError(Exception):
    pass


async def _next_event(conn: h11.Connection, reader: asyncio.StreamReader) -> object:
    """The next h11 event from the browser, reading as needed (IDLE_TIMEOUT per read)."""
    while (event := conn.next_event()) is h11.NEED_DATA:
        async with asyncio.timeout(IDLE_TIMEOUT):
            conn.receive_data(await reader.read(READ_BYTES))
    return event


async def _send(conn: h11.Connection, writer: asyncio.StreamWriter, event: object) -> None:
    data = conn.send(event)
    if data:
        writer.write(data)
        await writer.drain()


async def _request_body(conn: h11.Connection, reader: asyncio.StreamReader) -> bytes:
    """The whole body of the request being read, at most MAX_REQUEST_BYTES."""
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await _next_event(conn, reader)
        if isinstance(event, h11.EndOfMessage):
            return b"".join(chunks)
        if not isinstance(event, h11.Data):
            raise h11.RemoteProtocolError(f"unexpected {type(event).__name__} in a request body")
        size += len(event.data)
        if size > MAX_REQUEST_BYTES:
            raise _TooLargeRequestError
        chunks.append(bytes(event.data))


def _upstream_request(request: h11.Request, target: str, body: bytes) -> httpx.Request:
    """The request to send on: the browser's, less connection headers, in our encodings."""
    skip = HOP_BY_HOP | {b"host", b"content-length", b"accept-encoding"}
    headers = [(k, v) for k, v in request.headers.raw_items() if k.lower() not in skip]
    headers.append((b"Accept-Encoding", ACCEPT_ENCODING.encode()))
    return build_request(request.method.decode("ascii"), target, headers, body or None)


async def _pipe(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    upstream: httpcore.AsyncNetworkStream,
) -> None:
    """Copy bytes both ways until either side closes, or the site is silent too long."""

    async def up() -> None:
        while data := await reader.read(READ_BYTES):
            await upstream.write(data, timeout=IDLE_TIMEOUT)

    async def down() -> None:
        while data := await upstream.read(READ_BYTES, timeout=IDLE_TIMEOUT):
            writer.write(data)
            await writer.drain()

    tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
