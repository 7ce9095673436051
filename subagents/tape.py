"""A run's tape: what the outside world answered, kept so the run can be replayed.

With ``--record`` every model exchange and every HTTP response a tool receives is written
to the run's ``/internal/tape/`` folder as it happens, one numbered file per exchange (and
the body beside it). ``quartet replay`` loads the tape and serves the same answers in the
same order for the same requests, with no network and no keys: a request the recording
does not have is refused and noted as a divergence.

Exchanges are grouped by kind (``model``, ``http``) and key (the model stream, or the
method and URL); within a key they are served in the order they were recorded, so tasks
running concurrently get their own answers whatever order they ask in.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx

from .secrets import scrub, scrub_data

FOLDER = "/internal/tape/"
#: Largest body kept for one HTTP response; a longer one is kept cut and marked so.
MAX_BODY_BYTES = 64 * 1024 * 1024
RECORD, REPLAY = "record", "replay"


_ACTIVE: contextvars.ContextVar[Tape | None] = contextvars.ContextVar("quartet_tape", default=None)


def active_tape() -> Tape | None:
    """The tape of the run this code belongs to (None when the run neither records nor
    replays)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def taping(tape: Tape | None) -> Iterator[None]:
    """Make ``tape`` the active tape of the code inside (and of the tasks it starts)."""
    token = _ACTIVE.set(tape)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            _ACTIVE.reset(token)


def replaying() -> bool:
    """Whether this run is a replay: nothing may reach the network."""
    tape = _ACTIVE.get()
    return tape is not None and tape.replaying


class NotRecorded(RuntimeError):
    """A replayed run asked for something the recording does not have."""


class Tape:
    """Recorded exchanges of one run.

    Args:
        service: the Host's file service (the tape lives in ``/internal/``).
        mode: ``record`` (append what happens) or ``replay`` (serve what was recorded).
    """

    def __init__(self, service: Any, mode: str = RECORD) -> None:
        self.service, self.mode = service, mode
        self.entries: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        self.served: dict[tuple[str, str], int] = defaultdict(int)
        self.divergences: list[str] = []
        self._seq = 0
        self._lock = asyncio.Lock()

    @property
    def replaying(self) -> bool:
        return self.mode == REPLAY

    async def save(self, kind: str, key: str, entry: dict[str, Any], body: bytes = b"") -> None:
        """Keep one exchange (record mode)."""
        async with self._lock:
            self._seq += 1
            name = f"{FOLDER}{self._seq:06d}-{kind}"
            record = scrub_data({"kind": kind, "key": key, **entry})
            assert isinstance(record, dict)
            if body:
                record["body"] = f"{name}.body"
                await self.service.write_bytes(record["body"], body)
            await self.service.write_text(f"{name}.json", json.dumps(record, ensure_ascii=False))
            self.entries[(record["kind"], record["key"])].append(record)

    @classmethod
    async def load(cls, service: Any) -> Tape:
        """The tape a recorded run left, ready to replay; ValueError when it has none."""
        tape = cls(service, REPLAY)
        try:
            files = sorted(e.path for e in await service.walk_files(FOLDER))
        except Exception:
            files = []
        for path in files:
            if path.endswith(".json"):
                record = json.loads(await service.read_text(path))
                tape.entries[(record["kind"], record["key"])].append(record)
        if not tape.entries:
            raise ValueError("this run was not recorded (run it with --record)")
        return tape

    def take(self, kind: str, key: str) -> dict[str, Any]:
        """The next recorded exchange for ``key``; NotRecorded (and a divergence) if none."""
        key = scrub(key)
        entries = self.entries.get((kind, key), [])
        index = self.served[(kind, key)]
        if index >= len(entries):
            what = "asked again for" if entries else "asked for"
            self.diverge(f"the replay {what} {kind} {key!r}, which the recording does not have")
            raise NotRecorded(f"not in the recording: {kind} {key}")
        self.served[(kind, key)] += 1
        return entries[index]

    async def body(self, entry: dict[str, Any]) -> bytes:
        path = entry.get("body")
        return await self.service.read_bytes(path) if path else b""

    def diverge(self, what: str) -> None:
        """Note a divergence from the recording (the first one is the one that matters)."""
        self.divergences.append(what)

    def unused(self) -> list[str]:
        """Recorded exchanges the replay never asked for."""
        return [
            f"{kind} {key!r} ×{len(entries) - self.served[(kind, key)]}"
            for (kind, key), entries in self.entries.items()
            if self.served[(kind, key)] < len(entries)
        ]


def tape_transport(inner: httpx.AsyncBaseTransport) -> httpx.AsyncBaseTransport:
    """``inner`` behind the active tape when the run records or replays, else ``inner``."""
    tape = _ACTIVE.get()
    return inner if tape is None else TapeTransport(inner, tape)


class TapeTransport(httpx.AsyncBaseTransport):
    """An httpx transport that records the responses of ``inner``, or replays them."""

    def __init__(self, inner: httpx.AsyncBaseTransport, tape: Tape) -> None:
        self.inner, self.tape = inner, tape

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._through(request, self.inner.handle_async_request)

    async def open(self, request: httpx.Request) -> httpx.Response:
        """What the guarded transport's ``open`` gives (see :mod:`.net.netpin`)."""
        return await self._through(request, self.inner.open)  # type: ignore[attr-defined]

    async def _through(
        self, request: httpx.Request, send: Callable[[httpx.Request], Awaitable[httpx.Response]]
    ) -> httpx.Response:
        key = scrub(f"{request.method} {request.url}")  # as it was kept: keys masked
        if self.tape.replaying:
            try:
                entry = self.tape.take("http", key)
            except NotRecorded as exc:
                raise httpx.ConnectError(str(exc), request=request) from None
            return httpx.Response(
                entry["status"],
                headers=[tuple(h) for h in entry["headers"]],
                stream=_Recorded(await self.tape.body(entry)),
                request=request,
            )
        response = await send(request)
        return httpx.Response(
            response.status_code,
            headers=response.headers.raw,
            stream=_Tee(response, self.tape, key),
            request=request,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Recorded(httpx.AsyncByteStream):
    """A recorded body, served as a stream (as the network would serve it)."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self) -> Any:
        yield self.body


class _Tee(httpx.AsyncByteStream):
    """The raw body as it arrives, kept for the tape when the stream closes."""

    def __init__(self, response: httpx.Response, tape: Tape, key: str) -> None:
        self.response, self.tape, self.key = response, tape, key
        self.kept = bytearray()
        self.cut = False
        self.done = False

    async def __aiter__(self) -> Any:
        async for chunk in self.response.stream:  # type: ignore[union-attr]
            if len(self.kept) + len(chunk) <= MAX_BODY_BYTES:
                self.kept += chunk
            else:
                self.cut = True
            yield chunk
        self.done = True

    async def aclose(self) -> None:
        try:
            await self.response.aclose()
        finally:
            entry = {
                "status": self.response.status_code,
                "headers": [
                    [k.decode("latin-1"), v.decode("latin-1")] for k, v in self.response.headers.raw
                ],
                "complete": self.done and not self.cut,
            }
            await self.tape.save("http", self.key, entry, bytes(self.kept))
