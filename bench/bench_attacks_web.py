"""The hostile-web attack corpus against the Browser tools, on loopback: what gets through.

    .venv/bin/python bench/bench_attacks_web.py

Classes: redirect races and DNS flips in Chromium (browser_navigate and the Chromium
tier of viewer_fetch, subresources included), decompression bombs, bodies that do not
match their Content-Length, IPv6 addresses that carry an internal IPv4 address, ports
outside the allow list, and redirects to schemes that cannot be fetched; several
variants each. Every call is judged by its outcome:

- refused: the attack did not get through (an Error result, or only a harmless page);
- bypassed: it did (the internal service was reached, its text was read, a port outside
  the allow list was hit, a bomb or a mismatched body was accepted, a call's peak memory
  passed 512 MB, or a connection to a non-loopback address was attempted);
- crashed/hung: an exception escaped the tool, it did not answer within two minutes, or
  the browser it needed could not be started (then nothing was tested).

Peak memory is measured per tool call: the growth of this process's resident set (the
kernel's high-water mark, reset before each call) and of its Python allocations.
Chromium's own processes are not counted. Nothing leaves the machine: host names are
answered by a script (no DNS query is sent), and every connection the guarded backend
opens goes through a connector that refuses any address but loopback (and counts the
attempt as a bypass).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import httpcore  # noqa: E402
from agentscope.tool import ToolResponse  # noqa: E402
from attack_tally import Tally, print_table  # noqa: E402
from attack_web import (  # noqa: E402
    OUTSIDE,
    SECRET,
    UNUSABLE_TARGETS,
    GiB,
    LoopbackOnly,
    MiB,
    Trap,
    add_body_attacks,
    add_browser_attacks,
    brotli_bomb,
    encoded,
    gzip_gzip_bomb,
    peak_memory,
    redirect_to,
)
from browser_sites import ARTICLE_HTML, JS_APP_HTML, SiteServer, page  # noqa: E402
from browser_support import ScriptedResolver  # noqa: E402

from fs_service import ALL_OPS, DiskFileSystem, FileDomainService  # noqa: E402
from subagents.browser.automation import browser_navigate  # noqa: E402
from subagents.browser.download import http_download  # noqa: E402
from subagents.browser.session import BrowserSession  # noqa: E402
from subagents.browser.viewer import viewer_fetch  # noqa: E402
from subagents.net import netguard  # noqa: E402
from subagents.results import text_of  # noqa: E402
from subagents.settings import NetworkPolicy, ToolSettings  # noqa: E402

MEMORY_LIMIT = 512 * MiB
CALL_TIMEOUT = 120.0
LOOPBACK = NetworkPolicy.parse("127.0.0.1,localhost")
EMBEDDED = {
    "6to4 → 169.254.169.254": "2002:a9fe:a9fe::",
    "6to4 → 127.0.0.1": "2002:7f00:1::1",
    "NAT64 → 127.0.0.1": "64:ff9b::7f00:1",
    "NAT64 → 10.0.0.1": "64:ff9b::a00:1",
    "IPv4-compatible → 127.0.0.1": "::127.0.0.1",
    "IPv4-translated → 192.168.1.1": "::ffff:0:c0a8:101",
    "Teredo client → 127.0.0.1": "2001:0:808:808::80ff:fffe",
    "IPv4-mapped → 127.0.0.1": "::ffff:127.0.0.1",
}


@dataclass
class Attack:
    """One attempt: a tool call and how to tell whether it got through."""

    kind: str
    tool: str
    call: Callable[[], Awaitable[ToolResponse]]
    got_through: Callable[[ToolResponse], bool]


@dataclass
class World:
    site: SiteServer
    trap: Trap
    other: SiteServer
    browser: BrowserSession
    ported: BrowserSession
    service: FileDomainService
    settings: ToolSettings
    ported_settings: ToolSettings


def reached(world: World) -> Callable[[ToolResponse], bool]:
    """Got through if the internal service saw a connection or its text came back."""
    before = len(world.trap.connections)
    return lambda res: len(world.trap.connections) > before or SECRET in text_of(res)


def accepted(res: ToolResponse) -> bool:
    """Got through if the tool reported success (a bomb or a broken body accepted)."""
    return res.metadata["status"] == "ok"


def other_port_hit(world: World) -> Callable[[ToolResponse], bool]:
    before = len(world.other.hits)
    return lambda res: len(world.other.hits) > before


def lazy(make: Callable[[], Callable[[ToolResponse], bool]]) -> Callable[[ToolResponse], bool]:
    """A judge whose "before" state is taken when the attack starts, not when it is listed."""
    holder: dict[str, Callable[[ToolResponse], bool]] = {}

    def start() -> None:
        holder["judge"] = make()

    def judge(res: ToolResponse) -> bool:
        return holder["judge"](res)

    judge.start = start  # type: ignore[attr-defined]
    return judge


def fetch(world: World, url: str, settings: ToolSettings | None = None):
    return lambda: viewer_fetch(
        url, service=world.service, browser=world.browser, settings=settings or world.settings
    )


def save(world: World, url: str, settings: ToolSettings | None = None):
    return lambda: http_download(
        url,
        "/workspace/downloads/x.bin",
        service=world.service,
        settings=settings or world.settings,
    )


def navigate(session: BrowserSession, url: str, wait_for: str = ""):
    async def run() -> ToolResponse:
        res = await browser_navigate(url, browser=session)
        if wait_for:
            status = (await session.page()).locator("#status").filter(has_text=wait_for)
            await status.wait_for(timeout=30_000)
        return res

    return run


#: How host names resolve; the flips answer the site first and the internal service
#: afterwards (the n-th lookup gets the n-th answer, the last one repeats). The whole run resolves
#: through this script, so no DNS query leaves the machine.
NAMES: dict[str, list[list[str] | None]] = {
    "localhost": [["127.0.0.1"]],
    "flip.test": [["127.0.0.1"], ["127.0.0.2"]],
    "flip2.test": [["127.0.0.1"], ["127.0.0.1"], ["127.0.0.2"]],
    "rebind.test": [["127.0.0.1"], ["127.0.0.1"], ["127.0.0.2"]],
}


def race_attacks(w: World) -> list[Attack]:
    s, p = w.site, w.site.port
    nav, tier = "browser_navigate", "viewer_fetch (Chromium tier)"
    into = lazy(lambda: reached(w))
    attacks = []
    for i in range(3):
        attacks += [
            Attack("redirect race", nav, navigate(w.browser, s.url(f"/race/start?q=n{i}")), into),
            Attack("redirect race", nav, navigate(w.browser, s.url(f"/race/hop?q=n{i}")), into),
            Attack("redirect race", tier, fetch(w, s.url(f"/race/reader?q=r{i}")), into),
            Attack("redirect race", tier, fetch(w, s.url(f"/race/reader-trap-first?q=t{i}")), into),
        ]
    attacks += [
        Attack("redirect race", nav, navigate(w.browser, s.url("/race/chain")), into),
        Attack("redirect race", nav, navigate(w.browser, s.url("/race/tls")), into),
        Attack("redirect race", tier, fetch(w, s.url("/race/reader-tls")), into),
        Attack(
            "subresources",
            nav,
            navigate(w.browser, s.url("/sub/page.html"), "All attempts made."),
            into,
        ),
        Attack(
            "DNS flip",
            nav,
            navigate(w.browser, f"http://flip.test:{p}/static/article.html"),
            into,
        ),
        Attack(
            "DNS flip",
            tier,
            fetch(w, f"http://flip2.test:{p}/js/app.html"),
            into,
        ),
        Attack(
            "DNS flip",
            nav,
            navigate(w.browser, f"http://rebind.test:{p}/sub/page.html", "All attempts made."),
            into,
        ),
    ]
    return attacks


def bomb_attacks(w: World) -> list[Attack]:
    def too_big(res: ToolResponse) -> bool:
        return accepted(res)

    attacks = [
        Attack("decompression bombs", "viewer_fetch", fetch(w, w.site.url(path)), too_big)
        for path in (
            "/bomb/br",
            "/bomb/br4",
            "/bomb/gzip",
            "/bomb/gzip-gzip",
            "/bomb/gzip-gzip-lines",
            "/bomb/deflate-br",
            "/bomb/unknown",
        )
    ]
    attacks += [
        Attack("decompression bombs", "http_download", save(w, w.site.url(path)), too_big)
        for path in ("/bomb/br-bin", "/bomb/br4", "/bomb/gzip", "/bomb/gzip-gzip")
    ]
    attacks.append(
        Attack(
            "decompression bombs",
            "viewer_fetch (Chromium tier)",
            fetch(w, w.site.url("/bomb/js.html")),
            lambda res: False,  # a normal page whose scripts fetch bombs: memory decides
        )
    )
    return attacks


def length_attacks(w: World) -> list[Attack]:
    paths = (
        "/length/longer",
        "/length/longer-by-one",
        "/length/gzip-longer",
        "/length/shorter",
        "/length/gzip-cut",
    )
    return [
        Attack("truncated bodies", tool, make(w, w.site.url(path)), accepted)
        for path in paths
        for tool, make in (("viewer_fetch", fetch), ("http_download", save))
    ]


def ipv6_attacks(w: World) -> list[Attack]:
    attacks = []
    for address in EMBEDDED.values():
        url = f"http://[{address}]:{w.site.port}/latest/meta-data/"
        attacks += [
            Attack("IPv6 carrying IPv4", "viewer_fetch", fetch(w, url), accepted),
            Attack("IPv6 carrying IPv4", "http_download", save(w, url), accepted),
            Attack("IPv6 carrying IPv4", "browser_navigate", navigate(w.browser, url), accepted),
        ]
    return attacks


def port_attacks(w: World) -> list[Attack]:
    o, settings = w.other, w.ported_settings
    hit = lazy(lambda: other_port_hit(w))
    kind = "allow-list ports"
    return [
        Attack(kind, "viewer_fetch", fetch(w, o.url("/static/article.html"), settings), hit),
        Attack(kind, "http_download", save(w, o.url("/static/article.html"), settings), hit),
        Attack(kind, "viewer_fetch", fetch(w, w.site.url("/to-other"), settings), hit),
        Attack(kind, "http_download", save(w, w.site.url("/to-other"), settings), hit),
        Attack(kind, "browser_navigate", navigate(w.ported, o.url("/static/article.html")), hit),
        Attack(kind, "browser_navigate", navigate(w.ported, w.site.url("/to-other")), hit),
        Attack(
            kind,
            "browser_navigate",
            navigate(w.ported, w.site.url("/other-sub.html"), "All attempts made."),
            hit,
        ),
        Attack(
            kind,
            "viewer_fetch",
            fetch(w, f"http://localhost:{o.port}/static/article.html", settings),
            hit,
        ),
    ]


def scheme_attacks(w: World) -> list[Attack]:
    into = lazy(lambda: reached(w))
    attacks = []
    for name in UNUSABLE_TARGETS:
        url = w.site.url(f"/to/{name}")
        attacks += [
            Attack("unusable redirects", "viewer_fetch", fetch(w, url), accepted),
            Attack("unusable redirects", "http_download", save(w, url), accepted),
            Attack("unusable redirects", "browser_navigate", navigate(w.browser, url), into),
        ]
    return attacks


async def run_attack(attack: Attack, tally: Tally) -> None:
    tally.tried += 1
    outside = len(OUTSIDE)
    start = getattr(attack.got_through, "start", None)
    if start is not None:
        start()
    with peak_memory() as peak:
        try:
            res = await asyncio.wait_for(attack.call(), CALL_TIMEOUT)
        except Exception as exc:  # an escaped exception or a hang is what is counted
            res = None
            tally.notes.append(f"{attack.tool}: {type(exc).__name__}: {exc}"[:200])
    tally.rss = max(tally.rss, peak.rss)
    tally.python = max(tally.python, peak.python)
    if res is None or "Chromium could not be started" in text_of(res):
        tally.crashed += 1
        if res is not None:
            tally.notes.append(f"{attack.tool}: {text_of(res)[:160]!r}")
    elif (
        attack.got_through(res)
        or peak.rss > MEMORY_LIMIT
        or peak.python > MEMORY_LIMIT
        or len(OUTSIDE) > outside
    ):
        tally.bypassed += 1
        tally.notes.append(f"{attack.tool}: {text_of(res)[:160]!r}")
    else:
        tally.refused += 1


def js_bomb_page(site: SiteServer) -> bytes:
    return (
        "<html><head><title>Bombs by script</title></head><body><div id='out'></div><script>"
        f"Promise.allSettled(['{site.url('/bomb/br')}', '{site.url('/bomb/gzip-gzip')}']"
        ".map(u => fetch(u).then(r => r.arrayBuffer()))).then(() => {"
        "document.getElementById('out').innerHTML = '<p>' + "
        "'This page asked for two decompression bombs and is still here. '.repeat(20) + "
        "'</p>'; });</script></body></html>"
    ).encode()


def other_port_page(other: SiteServer) -> bytes:
    return (
        "<html><body><p id='status'>loading</p>"
        f"<img src='{other.url('/img.png')}'><script>"
        f"Promise.allSettled([fetch('{other.url('/fetch')}'), "
        f"fetch('http://localhost:{other.port}/fetch'), "
        f"...['127.0.0.1', 'localhost'].map(h => new Promise(done => {{ "
        f"const w = new WebSocket(`ws://${{h}}:{other.port}/ws`); "
        "w.onerror = done; w.onopen = done; }))]).then(() => "
        "{ document.getElementById('status').textContent = 'All attempts made.'; });"
        "</script></body></html>"
    ).encode()


async def main() -> None:
    print("building the bombs (a few seconds)…", file=sys.stderr)
    site = SiteServer()
    site.routes["/static/article.html"] = page(ARTICLE_HTML.encode())
    site.routes["/js/app.html"] = page(JS_APP_HTML.encode())
    site.start()
    trap = Trap("127.0.0.2", site.port).start()
    other = SiteServer()
    other.routes["/static/article.html"] = page(ARTICLE_HTML.encode())
    other.start()
    add_browser_attacks(site, trap)
    add_body_attacks(site)
    site.routes["/bomb/br4"] = encoded(brotli_bomb(4 * GiB), "br")  # about 6 KB
    site.routes["/bomb/js.html"] = page(js_bomb_page(site))
    site.routes["/to-other"] = redirect_to(other.url("/static/article.html"))
    site.routes["/other-sub.html"] = page(other_port_page(other))
    assert len(gzip_gzip_bomb()) < 10_000
    ported = NetworkPolicy.parse(f"127.0.0.1:{site.port},localhost:{site.port}")
    with tempfile.TemporaryDirectory() as tmp:
        fs = DiskFileSystem(Path(tmp))
        service = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": ALL_OPS}]))
        browser, ported_browser = BrowserSession(allow=LOOPBACK), BrowserSession(allow=ported)
        world = World(
            site,
            trap,
            other,
            browser,
            ported_browser,
            service,
            ToolSettings(network=LOOPBACK),
            ToolSettings(network=ported),
        )
        tallies: dict[tuple[str, str], Tally] = {}
        try:
            for attack in (
                *race_attacks(world),
                *bomb_attacks(world),
                *length_attacks(world),
                *ipv6_attacks(world),
                *port_attacks(world),
                *scheme_attacks(world),
            ):
                await run_attack(attack, tallies.setdefault((attack.kind, attack.tool), Tally()))
        finally:
            await browser.aclose()
            await ported_browser.aclose()
    for server in (site, other):
        server.stop()
    trap.stop()
    print_table(tallies)
    print(
        f"\ninternal service connections: {len(trap.connections)}; other-port requests: "
        f"{len(other.hits)}; connection attempts outside loopback: {len(OUTSIDE)}"
    )


if __name__ == "__main__":
    with (
        mock.patch.object(httpcore, "AnyIOBackend", LoopbackOnly),
        mock.patch.object(netguard, "resolve", ScriptedResolver(NAMES)),
        contextlib.suppress(KeyboardInterrupt),
    ):
        asyncio.run(main())
