"""The HTTP protocol the app is served with: uvicorn's h11 protocol, with read timeouts.

uvicorn closes an idle connection between requests (its keep-alive timeout), but waits
for ever for a request that never ends: headers sent a byte at a time (a "slowloris"),
or a body that stops coming. Here a request's headers must arrive within
:data:`HEADER_SECONDS` of its first byte (or of the connection), and its body must keep
coming, never idle for :data:`BODY_IDLE_SECONDS`; otherwise the connection is closed.
``QUARTET_SERVE_HEADER_SECONDS`` and ``QUARTET_SERVE_BODY_IDLE_SECONDS`` set other limits.
"""

from __future__ import annotations

import asyncio
import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a request's headers may take to arrive whole.
HEADER_SECONDS = 20.0
#: Seconds a request's body may stop coming before the connection is closed.
BODY_IDLE_SECONDS = 60.0


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if 0 < value <= 3600 else default


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request stalls (see the
    module's docstring)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.header_seconds = _seconds("QUARTET_SERVE_HEADER_SECONDS", HEADER_SECONDS)
        self.body_seconds = _seconds("QUARTET_SERVE_BODY_IDLE_SECONDS", BODY_IDLE_SECONDS)
        self.read_timer: asyncio.TimerHandle | None = None
        self.waiting_headers = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and not self.waiting_headers:
            self._await_headers()  # the first byte of a request after a response
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.IDLE:
            return  # the headers are still coming, against their deadline
        self.waiting_headers = False
        if state is h11.SEND_BODY:
            self._arm(self.body_seconds)  # the body keeps coming: its idle time restarts
        else:
            self._cancel()  # the whole request is in

    def _await_headers(self) -> None:
        self.waiting_headers = True
        self._arm(self.header_seconds)

    def _arm(self, seconds: float) -> None:
        self._cancel()
        self.read_timer = self.loop.call_later(seconds, self._stalled)

    def _cancel(self) -> None:
        if self.read_timer is not None:
            self.read_timer.cancel()
            self.read_timer = None

    def _stalled(self) -> None:
        """The request stalled: the connection is closed (a response under way is left
        to finish; only reading was waited for)."""
        self.read_timer = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()
