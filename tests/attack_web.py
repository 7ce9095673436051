"""A hostile web on 127.0.0.1, shared by the tests and ``bench/bench_attacks_web.py``.

Decompression bombs, bodies that lie about their length, redirects to unusable schemes,
redirects that answer differently the second time, pages whose subresources aim at an
internal address, and measuring the peak memory of one call. Pages are served by
``SiteServer`` (``browser_sites``); the internal service is a :class:`Trap` on
127.0.0.2 that records every connection it gets. Nothing leaves the machine.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import brotli
import httpcore
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

#: Connection attempts to anything but loopback (none may happen), by the benches'
#: :class:`LoopbackOnly` connector.
OUTSIDE: list[str] = []


class LoopbackOnly(httpcore.AnyIOBackend):
    """The guarded backend's connector for an attack bench: loopback only, every other
    attempt recorded in :data:`OUTSIDE` and refused."""

    async def connect_tcp(self, host: str, port: int, *args, **kwargs):  # type: ignore[override]
        if not ipaddress.ip_address(host).is_loopback:
            OUTSIDE.append(f"{host}:{port}")
            raise httpcore.ConnectError(f"{host} is outside loopback (the bench refuses it)")
        return await super().connect_tcp(host, port, *args, **kwargs)


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


# --- the internal service and the browser attacks ---------------------------------------

SECRET = "internal secret: the staff wiki password is hunter2"
SECRET_PAGE = (
    f"<html><head><title>Intranet</title></head><body><p>{SECRET}</p>"
    f"<p>{'Internal notes about the quarterly numbers. ' * 20}</p></body></html>"
).encode()
PUBLIC_TEXT = "This public page was served the first time it was asked for."
PUBLIC_PAGE = (
    f"<html><head><title>Public</title></head><body><p>{PUBLIC_TEXT}</p>"
    f"<p>{'Ordinary public text about tea gardens. ' * 20}</p></body></html>"
).encode()


class Trap:
    """An internal service on ``host``: it records every connection and, if ever reached,
    answers any request with :data:`SECRET_PAGE`.

    Args:
        host: The address to listen on (127.0.0.2: not on the tests' allow list; an
            IPv6 address such as ``::1`` works too).
        port: The port, or 0 for any free one (the site's port, to make DNS flips
            land on the same port).
    """

    def __init__(self, host: str = "127.0.0.2", port: int = 0) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.create_server((host, port), family=family)
        self.host, self.port = host, self._sock.getsockname()[1]
        #: ``host:port`` as a URL or a CONNECT request names it.
        self.netloc = f"[{host}]:{self.port}" if ":" in host else f"{host}:{self.port}"
        self.connections: list[bytes] = []  # one entry per connection accepted
        self.requests: list[bytes] = []  # the first line each connection sent
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def url(self, path: str, scheme: str = "http") -> str:
        return f"{scheme}://{self.netloc}{path}"

    def start(self) -> Trap:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._sock.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.connections.append(b"(connected)")
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            with suppress(OSError):
                self.requests.append(conn.recv(4096).split(b"\r\n", 1)[0])
                head = (
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                    f"Content-Length: {len(SECRET_PAGE)}\r\nConnection: close\r\n\r\n"
                )
                conn.sendall(head.encode() + SECRET_PAGE)


def flip(first: Handler, then: Handler) -> Handler:
    """``first`` for the first request of each full path (with its query), ``then`` after."""
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def handle(h: BaseHTTPRequestHandler) -> None:
        with lock:
            seen[h.path] = seen.get(h.path, 0) + 1
            count = seen[h.path]
        (first if count == 1 else then)(h)

    return handle


def for_browsers(browser: Handler, others: Handler) -> Handler:
    """``browser`` for Chromium's user agent, ``others`` for anything else."""
    return lambda h: (browser if "Chrome" in h.headers.get("User-Agent", "") else others)(h)


def add_browser_attacks(site: SiteServer, trap: Trap) -> None:
    """Routes under /race/ and /sub/ on ``site``, all aiming at ``trap``.

    The ``-q`` query of a URL keys the first/second answers of a flipping route, so
    each attempt can use fresh ones.
    """
    r = site.routes
    public = lambda h: send(h, 200, PUBLIC_PAGE)  # noqa: E731
    to_trap = redirect_to(trap.url("/secret"))
    to_trap_tls = redirect_to(trap.url("/secret", "https"))
    forbidden = lambda h: send(h, 403, b"<html><body><p>Browsers only.</p></body></html>")  # noqa: E731
    # The hop answers "public" the first time and points at the trap afterwards.
    r["/race/start"] = lambda h: send(h, 302, b"", headers={"Location": _hop(h, "/race/hop")})
    r["/race/hop"] = flip(public, to_trap)
    # The same for the Chromium tier: plain clients get 403, so viewer_fetch renders.
    r["/race/reader"] = for_browsers(
        lambda h: send(h, 302, b"", headers={"Location": _hop(h, "/race/hop")}), forbidden
    )
    # The hop points at the trap the first time (checked, refused), "public" afterwards.
    r["/race/trap-first"] = lambda h: send(
        h, 302, b"", headers={"Location": _hop(h, "/race/hop-trap-first")}
    )
    r["/race/hop-trap-first"] = flip(to_trap, public)
    r["/race/reader-trap-first"] = for_browsers(
        lambda h: send(h, 302, b"", headers={"Location": _hop(h, "/race/hop-trap-first")}),
        forbidden,
    )
    r["/race/chain"] = redirect_to("/race/chain/2")
    r["/race/chain/2"] = redirect_to("/race/chain/3")
    r["/race/chain/3"] = to_trap
    r["/race/tls"] = to_trap_tls
    r["/race/reader-tls"] = for_browsers(to_trap_tls, forbidden)
    r["/sub/page.html"] = lambda h: send(h, 200, subresource_page(site, trap))
    r["/sub/img-hop"] = flip(redirect_to("/sub/pixel.png"), to_trap)
    r["/sub/pixel.png"] = lambda h: send(h, 200, b"\x89PNG\r\n\x1a\n", "image/png")


def _hop(h: BaseHTTPRequestHandler, path: str) -> str:
    """``path`` with the query of the request being answered (keys a flip's counter)."""
    query = h.path.partition("?")[2]
    return f"{path}?{query}" if query else path


def subresource_page(site: SiteServer, trap: Trap) -> bytes:
    """A page that loads every kind of subresource from the trap, directly or by redirect.

    Its status line reads "All attempts made." once every script-driven attempt settled.
    """
    t = trap.url
    attempts = [
        f'fetch("{t("/fetch")}")',
        f'fetch("{t("/tls-fetch", "https")}")',
        'fetch("/race/chain", {cache: "no-store"})',
        'fetch("/sub/img-hop?q=1", {cache: "no-store"})',  # its second answer: the trap
        f'new Promise(done => {{ const x = new XMLHttpRequest(); x.open("GET", "{t("/xhr")}");'
        " x.onloadend = done; x.send(); })",
        f'new Promise(done => {{ const w = new WebSocket("ws://{trap.host}:{trap.port}/ws");'
        " w.onerror = done; w.onopen = done; })",
        f'Promise.resolve(navigator.sendBeacon("{t("/beacon")}", "x"))',
    ]
    script = (
        "Promise.allSettled([\n"
        + ",\n".join(f"  {a}.catch(() => null)" for a in attempts)
        + '\n]).then(() => { document.getElementById("status").textContent ='
        ' "All attempts made."; });'
    )
    return f"""<!doctype html><html><head><title>Subresources</title>
<link rel="stylesheet" href="{t("/style.css")}">
<script src="{t("/script.js")}"></script></head><body>
<p id="status">Loading subresources.</p>
<img src="{t("/img.png")}"><img src="/race/chain?img"><img src="/sub/img-hop?q=1">
<iframe src="{t("/frame.html")}"></iframe>
<script>
{script}
</script></body></html>""".encode()
