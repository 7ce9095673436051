"""A hostile web on 127.0.0.1, shared by the tests and ``bench/bench_attacks_web.py``.

Decompression bombs, bodies that lie about their length, redirects to unusable schemes,
and measuring the peak memory of one call. Everything is served by ``SiteServer``
(``browser_sites``); nothing leaves the machine.
"""

from __future__ import annotations

import re
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import brotli
from browser_sites import Handler, SiteServer, big_page, send

MiB = 1024 * 1024
GiB = 1024 * MiB
_BLOCK = bytes(64 * MiB)


@cache
def brotli_bomb(size: int = GiB) -> bytes:
    """A brotli stream of ``size`` zero bytes (1 GiB → about 1.5 KB; 4 GiB → 5.7 KB)."""
    packer = brotli.Compressor(quality=2, lgwin=24)
    parts = [packer.process(_BLOCK) for _ in range(size // len(_BLOCK))]
    return b"".join([*parts, packer.finish()])


@cache
def gzip_members(size: int = GiB) -> bytes:
    """A gzip body of ``size`` zero bytes, as 64 MiB members (1 GiB → about 1 MB)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    member = packer.compress(_BLOCK) + packer.flush()
    return member * (size // len(_BLOCK))


@cache
def gzip_gzip_bomb(size: int = 4 * GiB) -> bytes:
    """gzip of :func:`gzip_members`: about 9 KB that inflate twice to ``size`` bytes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return packer.compress(gzip_members(size)) + packer.flush()


def encoded(body: bytes, encoding: str, content_type: str = "text/html") -> Handler:
    """Serve ``body`` as is, declaring ``Content-Encoding: encoding`` (may hold commas)."""
    return lambda h: send(h, 200, body, content_type, {"Content-Encoding": encoding})


def twice_gzip_headers(body: bytes) -> Handler:
    """Two separate ``Content-Encoding: gzip`` header lines over a doubly gzipped body."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(len(body)))
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Encoding", "gzip")
        h.end_headers()
        h.wfile.write(body)

    return handle


def lying_length(body: bytes, declared: int, encoding: str = "") -> Handler:
    """Declare ``declared`` bytes, send all of ``body`` (shorter or longer) and close."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(declared))
        if encoding:
            h.send_header("Content-Encoding", encoding)
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(body)
        h.close_connection = True

    return handle


def redirect_to(location: str) -> Handler:
    return lambda h: send(h, 302, b"", headers={"Location": location})


#: Redirect targets no fetch may follow.
UNUSABLE_TARGETS = {
    "data": "data:text/html,<p>internal secret</p>",
    "javascript": "javascript:alert(document.cookie)",
    "file": "file:///etc/passwd",
    "about": "about:blank",
    "mailto": "mailto:someone@example.org",
    "ftp": "ftp://127.0.0.2/secret",
    "gopher": "gopher://127.0.0.1:6379/_INFO",
    "bad-ipv6": "http://[::1/secret",
    "bad-port": "http://127.0.0.1:99999/secret",
}

PAGE = big_page(60).decode()
#: The start of PAGE, for checking that a refused body left no trace.
PAGE_MARK = "Section 1: the ledger lists shipments"


def add_body_attacks(server: SiteServer) -> None:
    """Routes under /bomb/, /length/ and /to/ on ``server``."""
    r = server.routes
    page = PAGE.encode()
    gz = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    page_gz = gz.compress(page) + gz.flush()
    r["/bomb/br"] = encoded(brotli_bomb(), "br")
    r["/bomb/gzip"] = encoded(gzip_members(), "gzip")
    r["/bomb/gzip-gzip"] = encoded(gzip_gzip_bomb(), "gzip, gzip")
    r["/bomb/gzip-gzip-lines"] = twice_gzip_headers(gzip_gzip_bomb())
    r["/bomb/br-bin"] = encoded(brotli_bomb(), "br", "application/octet-stream")
    r["/bomb/deflate-br"] = encoded(brotli_bomb(), "deflate, br")
    r["/bomb/unknown"] = encoded(page, "zstd")
    r["/length/longer"] = lying_length(page, len(page) // 2)
    r["/length/longer-by-one"] = lying_length(page + b"!", len(page))
    r["/length/shorter"] = lying_length(page[:1000], len(page))
    r["/length/gzip-cut"] = encoded(page_gz[: len(page_gz) // 2], "gzip")
    r["/length/gzip-longer"] = lying_length(page_gz + b"x" * 500, len(page_gz), "gzip")
    r["/length/exact"] = lambda h: send(h, 200, page)
    r["/length/gzip-exact"] = encoded(page_gz, "gzip")
    for name, target in UNUSABLE_TARGETS.items():
        r[f"/to/{name}"] = redirect_to(target)


# --- memory ----------------------------------------------------------------------------

_HWM = re.compile(r"^VmHWM:\s+(\d+) kB", re.M)
_RSS = re.compile(r"^VmRSS:\s+(\d+) kB", re.M)


def _status(pattern: re.Pattern[str]) -> int:
    return int(pattern.search(Path("/proc/self/status").read_text()).group(1)) * 1024


@dataclass
class Peak:
    """Peak memory of a block: resident set growth and Python allocations, in bytes."""

    rss: int = 0
    python: int = 0


@contextmanager
def peak_memory() -> Iterator[Peak]:
    """Measure the peak memory of the block: RSS and Python allocations above its start.

    The kernel's high-water mark is reset first (``/proc/self/clear_refs``), so the RSS
    figure belongs to this block and not to anything before it.
    """
    peak = Peak()
    Path("/proc/self/clear_refs").write_text("5")
    start = _status(_RSS)
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    try:
        yield peak
    finally:
        peak.python = tracemalloc.get_traced_memory()[1] - before
        if not tracing:
            tracemalloc.stop()
        peak.rss = max(0, _status(_HWM) - start)
