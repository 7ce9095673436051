"""Bounded decoding of HTTP response bodies.

httpx undoes a ``Content-Encoding`` one network chunk at a time and hands over whatever
that chunk inflates to, so a few kilobytes of brotli, or of gzip inside gzip, become
gigabytes in one call before any size limit is looked at. Here the raw bytes are read
with ``aiter_raw`` and decoded incrementally: each decompressor call produces at most
:data:`PIECE_BYTES`, so callers apply their byte limits to decoded bytes as they are
produced and memory stays bounded.

Only one encoding layer is accepted (``gzip``, ``deflate`` or ``br``); a body that
inflates more than :data:`MAX_INFLATION` times is refused as a decompression bomb. A
compressed stream that stops before its end, and a body shorter or longer than its
``Content-Length``, are errors rather than a silently cut body.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Protocol

import brotli
import httpx

from .netpin import surplus

#: The encodings :func:`decoded_body` undoes, as sent in ``Accept-Encoding``.
ACCEPT_ENCODING = "gzip, deflate, br"
#: Most decoded bytes one piece holds.
PIECE_BYTES = 64 * 1024
#: Raw bytes handed to a decoder at a time.
RAW_SLICE = 4 * 1024
#: Decoded bytes per raw byte above which a body is refused as a decompression bomb
#: (text compresses 3–15 times; one gzip layer cannot exceed about 1,030)…
MAX_INFLATION = 100
#: …once this many bytes have been decoded, so that small bodies are never refused.
INFLATION_FLOOR = 1024 * 1024
_ALIASES = {"x-gzip": "gzip"}
_GZIP_MAGIC = b"\x1f\x8b"


class BodyError(Exception):
    """A response body that is refused or broken; ``str()`` says which and why.

    ``outside`` marks failures of the site or the network (a body cut short, a corrupt
    stream), as opposed to bodies refused on purpose (stacked encodings, a bomb).
    """

    def __init__(self, message: str, outside: bool = False) -> None:
        super().__init__(message)
        self.outside = outside


class Decoder(Protocol):
    """Undoes one content encoding, a bounded piece at a time."""

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data``, none longer than PIECE_BYTES."""
        ...

    def complete(self) -> bool:
        """Whether the encoded stream reached its proper end."""
        ...


def _pieces(data: bytes, size: int = PIECE_BYTES) -> Iterator[bytes]:
    """``data`` in slices of at most ``size`` bytes."""
    for start in range(0, len(data), size):
        yield data[start : start + size]


class _Identity:
    def feed(self, data: bytes) -> Iterator[bytes]:
        yield from _pieces(data)

    def complete(self) -> bool:
        return True


class _Zlib:
    """gzip (one or more members) or deflate (zlib-wrapped, or raw as some servers send)."""

    def __init__(self, coding: str) -> None:
        self._gzip = coding == "gzip"
        self._head = b""  # deflate: the first bytes, until the wrapping is known
        self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS) if self._gzip else None
        self._ended = False

    def _open_deflate(self, data: bytes) -> bytes:
        """Buffer the first two bytes of a deflate body to tell zlib wrapping from raw."""
        self._head += data
        if len(self._head) < 2:
            return b""
        cmf, flg = self._head[0], self._head[1]
        wrapped = cmf & 0x0F == 8 and (cmf << 8 | flg) % 31 == 0
        self._inflate = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        data, self._head = self._head, b""
        return data

    def _next_member(self, rest: bytes) -> bool:
        """After a finished stream: open the gzip member that ``rest`` starts (True).

        False when more bytes are needed to tell, or when ``rest`` is not a gzip member:
        then everything after the end of the stream is ignored, as browsers do.
        """
        if self._gzip and rest.startswith(_GZIP_MAGIC):
            self._inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            return True
        if not (self._gzip and _GZIP_MAGIC.startswith(rest)):
            self._ended = True
        return False

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._ended:
            return
        if self._inflate is None:
            data = self._open_deflate(data)
            if self._inflate is None:
                return
        while True:
            piece = self._inflate.decompress(data, PIECE_BYTES)
            data = self._inflate.unconsumed_tail
            if piece:
                yield piece
            if self._inflate.eof:
                data = self._inflate.unused_data
                if not self._next_member(data):
                    return
            elif not data and len(piece) < PIECE_BYTES:
                return

    def complete(self) -> bool:
        return self._inflate is not None and self._inflate.eof


class _Brotli:
    def __init__(self) -> None:
        self._inflate = brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        # A call stops once its output buffer reaches the limit (a call can give somewhat
        # more than PIECE_BYTES, sliced into pieces here); further calls with no input
        # give the rest, until one gives nothing.
        piece = self._inflate.process(data, output_buffer_limit=PIECE_BYTES)
        while piece:
            yield from _pieces(piece)
            piece = self._inflate.process(b"", output_buffer_limit=PIECE_BYTES)

    def complete(self) -> bool:
        return self._inflate.is_finished()


def content_codings(headers: httpx.Headers) -> list[str]:
    """Every content coding a response declares, in order (``identity`` left out)."""
    codings = []
    for value in headers.get_list("content-encoding", split_commas=True):
        coding = value.strip().lower()
        if coding and coding != "identity":
            codings.append(_ALIASES.get(coding, coding))
    return codings


def open_decoder(headers: httpx.Headers, url: str) -> Decoder:
    """The decoder for a response's ``Content-Encoding``; BodyError if it is not accepted."""
    codings = content_codings(headers)
    if len(codings) > 1:
        raise BodyError(
            f"Error: {url[:200]} sent a body with stacked content encodings "
            f"({', '.join(codings)}); only one encoding is accepted, so it was refused."
        )
    if not codings:
        return _Identity()
    if codings[0] in ("gzip", "deflate"):
        return _Zlib(codings[0])
    if codings[0] == "br":
        return _Brotli()
    raise BodyError(
        f"Error: {url[:200]} sent a body in the content encoding {codings[0]!r}, which "
        f"is not supported (only {ACCEPT_ENCODING} are)."
    )


def _check_inflation(url: str, raw: int, produced: int) -> None:
    """Raise BodyError when ``raw`` bytes have inflated into a decompression bomb."""
    if produced > INFLATION_FLOOR and produced > raw * MAX_INFLATION:
        raise BodyError(
            f"Error: the body of {url[:200]} inflates more than {MAX_INFLATION} times "
            f"({raw} bytes gave over {produced} bytes and counting): a decompression bomb, "
            "refused."
        )


def declared_length(response: httpx.Response) -> int | None:
    """The ``Content-Length`` a response declares for its body, or None."""
    if "transfer-encoding" in response.headers:
        return None
    value = response.headers.get("content-length", "").strip()
    return int(value) if value.isdigit() else None


async def decoded_body(response: httpx.Response) -> AsyncIterator[bytes]:
    """The decoded body of a streamed response, in pieces of at most PIECE_BYTES.

    Raises BodyError for an encoding that is not accepted, a decompression bomb, a
    corrupt or unfinished compressed stream, and a body shorter or longer than its
    ``Content-Length`` (see :func:`.netpin.surplus`). A caller that stops early (at its
    size limit) gets no error.
    """
    url = str(response.url)
    decoder = open_decoder(response.headers, url)
    raw = produced = 0
    try:
        async for chunk in response.aiter_raw():
            # Raw bytes are counted a slice at a time: a network chunk counted whole
            # before it is decoded would hide a bomb inside it.
            for part in _pieces(chunk, RAW_SLICE):
                raw += len(part)
                for piece in decoder.feed(part):
                    produced += len(piece)
                    _check_inflation(url, raw, produced)
                    yield piece
    except httpx.RemoteProtocolError as exc:
        raise BodyError(f"the body of {url[:200]} could not be read whole: {exc}", True) from None
    except (zlib.error, brotli.error) as exc:
        raise BodyError(f"the compressed body of {url[:200]} is corrupt ({exc})", True) from None
    if raw and not decoder.complete():
        raise BodyError(f"the compressed body of {url[:200]} stops before its end", True)
    declared = declared_length(response)
    if declared is None:
        return
    if raw < declared:
        raise BodyError(
            f"the body of {url[:200]} ends after {raw} of the {declared} bytes its "
            "Content-Length declares",
            True,
        )
    if await surplus(response, declared):
        raise BodyError(
            f"{url[:200]} sent more than the {declared} bytes its Content-Length declares, "
            "so its body cannot be trusted",
            True,
        )
