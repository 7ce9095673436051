"""Every request Chromium makes goes through the session's guarded proxy.

Real Chromium on loopback pages: the site on 127.0.0.1 may be reached, the internal
service (a Trap on 127.0.0.2, on the same port as the site so that a DNS flip lands on
it) never. Redirect hops that answer differently the second time, redirect chains,
https tunnels, every kind of subresource, host names that resolve differently from one
request to the next, and WebRTC's UDP must all fail to reach it.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
import pytest_asyncio
from attack_web import PUBLIC_TEXT, SECRET, Trap, add_body_attacks, add_browser_attacks
from browser_sites import (
    ARTICLE_HTML,
    ARTICLE_PARAGRAPHS,
    FETCH_APP_HTML,
    JS_APP_HTML,
    JS_SECRET,
    STORY,
    SiteServer,
    page,
    redirect,
)
from browser_support import LOOPBACK, LOOPBACK_SETTINGS, ScriptedResolver, tier_of

from subagents.browser.automation import browser_navigate, browser_snapshot
from subagents.browser.proxy import GuardedProxy
from subagents.browser.session import BrowserSession
from subagents.browser.viewer import viewer_fetch
from subagents.net import netguard
from subagents.results import text_of
from subagents.settings import NetworkPolicy

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    server.routes["/static/article.html"] = page(ARTICLE_HTML.encode())
    server.routes["/js/app.html"] = page(JS_APP_HTML.encode())
    server.routes["/js/fetch.html"] = page(FETCH_APP_HTML.encode())
    server.routes["/api/story.json"] = page(
        ('{"paragraphs": [' + ", ".join(f'"{p}"' for p in STORY) + "]}").encode(),
        200,
        "application/json",
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def trap(site: SiteServer) -> Iterator[Trap]:
    internal = Trap("127.0.0.2", site.port).start()
    add_browser_attacks(site, internal)
    add_body_attacks(site)
    yield internal
    internal.stop()


#: Names that resolve to the site, or to it first and to the internal service after (the
#: n-th lookup of a name gets the n-th answer; the last one repeats).
NAMES: dict[str, list[list[str] | None]] = {
    "pinned.test": [["127.0.0.1"]],
    "flip.test": [["127.0.0.1"], ["127.0.0.2"]],  # browser_navigate's check, then the proxy
    "flip2.test": [["127.0.0.1"], ["127.0.0.1"], ["127.0.0.2"]],  # HTTP tier twice, proxy
    "rebind.test": [["127.0.0.1"], ["127.0.0.1"], ["127.0.0.2"]],  # check, page, fetches
    "localhost": [["127.0.0.1", "::1"]],
}


@pytest.fixture(scope="module", autouse=True)
def resolver() -> Iterator[ScriptedResolver]:
    """The scripted resolver for the whole module: a request Chromium makes after a test
    ended still gets a scripted answer, never a DNS query."""
    scripted = ScriptedResolver(NAMES)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(netguard, "resolve", scripted)
        yield scripted


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    session = BrowserSession(allow=LOOPBACK)
    try:
        yield session
    finally:
        await session.aclose()


async def page_text(browser: BrowserSession) -> str:
    return await (await browser.page()).content()


# --- redirects: every hop is a request the proxy checks ---------------------------------


async def test_a_hop_that_answers_differently_the_second_time_never_reaches_inside(
    site, trap, browser
):
    res = await browser_navigate(site.url("/race/start?q=navigate"), browser=browser)
    assert text_of(res).startswith("Opened "), text_of(res)
    html = await page_text(browser)
    assert PUBLIC_TEXT in html and SECRET not in html
    # Asked again, the hop points at the internal service: refused, and said so.
    res = await browser_navigate(site.url("/race/hop?q=navigate"), browser=browser)
    out = text_of(res)
    assert out.startswith(f"Error: {site.url('/race/hop?q=navigate')} sent the browser on to "), out
    assert f"{trap.url('/secret')}, which was refused" in out and "127.0.0.2" in out
    assert res.metadata["status"] == "error"
    assert SECRET not in await page_text(browser)
    assert trap.connections == []


async def test_the_chromium_tier_of_viewer_fetch_follows_the_same_hops(
    site, trap, browser, memory_service
):
    res = await viewer_fetch(
        site.url("/race/reader?q=reader"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert tier_of(res) == "chromium", text_of(res)
    assert PUBLIC_TEXT in text_of(res) and SECRET not in text_of(res)
    res = await viewer_fetch(
        site.url("/race/reader-trap-first?q=reader"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    out = text_of(res)
    assert out.startswith("Error: ") and "sent the browser on to" in out, out
    assert "which was refused" in out and res.metadata["status"] == "error"
    assert trap.connections == []


@pytest.mark.parametrize(("path", "target"), [("/race/chain", "/secret"), ("/race/tls", "")])
async def test_redirect_chains_and_https_hops_inside_are_refused(site, trap, browser, path, target):
    res = await browser_navigate(site.url(path), browser=browser)
    out = text_of(res)
    assert out.startswith(f"Error: {site.url(path)} sent the browser on to "), out
    # an https hop is refused as a tunnel to the host and port
    assert (trap.url(target) if target else f"127.0.0.2:{trap.port},") in out
    assert trap.connections == []


async def test_a_failed_navigation_never_interrupts_the_next_one(site, trap, browser):
    """Chromium commits its error page after ``goto`` has failed; the next navigation on
    that page would be cut short by it, so a failed page is replaced by a fresh one."""
    for _ in range(8):
        failed = await browser_navigate(site.url("/race/tls"), browser=browser)
        assert text_of(failed).startswith("Error: "), text_of(failed)
        opened = await browser_navigate(site.url("/static/article.html"), browser=browser)
        assert text_of(opened).startswith("Opened "), text_of(opened)
    assert trap.connections == []


async def test_an_https_hop_inside_is_refused_for_the_chromium_tier(
    site, trap, browser, memory_service
):
    res = await viewer_fetch(
        site.url("/race/reader-tls"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error: ") and "which was refused" in text_of(res)
    assert not await memory_service.exists("/workspace/pages/")
    assert trap.connections == []


# --- subresources -------------------------------------------------------------------


async def test_no_kind_of_subresource_reaches_inside(site, trap, browser):
    res = await browser_navigate(site.url("/sub/page.html"), browser=browser)
    assert text_of(res).startswith("Opened "), text_of(res)
    status = (await browser.page()).locator("#status")
    await status.filter(has_text="All attempts made.").wait_for(timeout=30_000)
    assert trap.connections == []
    refused = "\n".join(browser.blocked)
    for path in (
        "/style.css",
        "/script.js",
        "/img.png",
        "/frame.html",
        "/fetch",
        "/xhr",
        "/beacon",
    ):
        assert f"{trap.url(path)}: Error: refused" in refused, path
    assert f"{trap.url('/secret')}: Error: refused" in refused  # the chain and the flip
    assert f"127.0.0.2:{trap.port}: Error: refused" in refused  # https fetch, WebSocket
    assert SECRET not in text_of(await browser_snapshot(browser=browser))


# --- loopback is no exception ------------------------------------------------------------


async def test_localhost_and_loopback_are_not_exempt_from_the_proxy(site):
    """Chromium sends localhost, 127.0.0.0/8 and [::1] around its proxy unless told not to.

    Only the site's own port may be reached here, as in the demo: every other loopback
    port, by address or by name, must meet the proxy and its refusal, whether a redirect
    hop, a script's fetch or a WebSocket goes there.
    """
    v4, v6 = Trap("127.0.0.1").start(), Trap("::1").start()
    site.routes["/bypass/hop"] = redirect(f"http://localhost:{v4.port}/secret")
    fetched = [v4.url("/fetch"), f"http://localhost:{v4.port}/fetch", v6.url("/fetch")]
    tunnels = [v4.netloc, f"localhost:{v4.port}", v6.netloc]
    session = BrowserSession(
        allow=NetworkPolicy.parse(f"127.0.0.1:{site.port},localhost:{site.port}")
    )
    try:
        hop = site.url("/bypass/hop")
        out = text_of(await browser_navigate(hop, browser=session))
        assert out.startswith(
            f"Error: {hop} sent the browser on to http://localhost:{v4.port}/secret, which "
            "was refused"
        ), out
        res = await browser_navigate(site.url("/static/article.html"), browser=session)
        assert text_of(res).startswith("Opened "), text_of(res)
        await (await session.page()).evaluate(
            """async ([urls, tunnels]) => Promise.allSettled([
                 ...urls.map(u => fetch(u, {mode: "no-cors", cache: "no-store"})),
                 ...tunnels.map(t => new Promise(done => {
                   const w = new WebSocket(`ws://${t}/ws`); w.onerror = done; w.onopen = done;
                 })),
               ])""",
            [fetched, tunnels],
        )
        refused = "\n".join(session.blocked)
    finally:
        await session.aclose()
        v4.stop()
        v6.stop()
    for target in [*fetched, *tunnels]:
        assert f"{target}: Error: refused" in refused, (target, refused)
    assert v4.connections == [] and v6.connections == []


async def test_webrtc_sends_no_udp_outside_the_proxy(site, browser):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.2", 0))
    udp.setblocking(False)
    stun = f"stun:127.0.0.2:{udp.getsockname()[1]}"
    site.routes["/rtc.html"] = page(
        f"""<html><body><p id="s">gathering</p><script>
const pc = new RTCPeerConnection({{iceServers: [{{urls: "{stun}"}}]}});
pc.createDataChannel("x");
pc.onicegatheringstatechange = () => {{
  if (pc.iceGatheringState === "complete") document.getElementById("s").textContent = "done";
}};
pc.createOffer().then(offer => pc.setLocalDescription(offer));
</script></body></html>""".encode()
    )
    try:
        await browser_navigate(site.url("/rtc.html"), browser=browser)
        done = (await browser.page()).locator("#s").filter(has_text="done")
        await done.wait_for(timeout=60_000)
        with pytest.raises(BlockingIOError):
            udp.recvfrom(2048)
    finally:
        udp.close()


# --- host names are resolved by the proxy, once per request ---------------------------


async def test_chromium_connects_to_the_address_the_proxy_resolved(
    site, trap, browser, memory_service
):
    url = f"http://pinned.test:{site.port}/static/article.html"
    res = await browser_navigate(url, browser=browser)
    assert text_of(res).startswith(f"Opened {url}"), text_of(res)
    assert ARTICLE_PARAGRAPHS[0] in await page_text(browser)
    res = await viewer_fetch(
        f"http://pinned.test:{site.port}/js/app.html",
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert tier_of(res) == "chromium" and JS_SECRET in text_of(res), text_of(res)
    assert trap.connections == []


async def test_a_name_that_flips_to_an_internal_address_is_refused_for_chromium(
    site, trap, browser, memory_service
):
    # browser_navigate checks the name once; the proxy resolves it again: 127.0.0.2.
    res = await browser_navigate(
        f"http://flip.test:{site.port}/static/article.html", browser=browser
    )
    assert text_of(res).startswith("Error: refused to fetch from flip.test"), text_of(res)
    assert "non-public address 127.0.0.2" in text_of(res)
    # viewer_fetch: the HTTP tier checks and connects to 127.0.0.1, Chromium gets 127.0.0.2.
    res = await viewer_fetch(
        f"http://flip2.test:{site.port}/js/app.html",
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error: refused to fetch from flip2.test"), text_of(res)
    assert res.metadata["status"] == "error"
    assert not await memory_service.exists("/workspace/pages/")
    assert trap.connections == []


async def test_a_subresource_of_a_name_that_flips_is_refused(site, trap, browser):
    # The page itself is served from 127.0.0.1; every later lookup answers 127.0.0.2.
    res = await browser_navigate(f"http://rebind.test:{site.port}/js/fetch.html", browser=browser)
    assert text_of(res).startswith("Opened "), text_of(res)
    story = f"http://rebind.test:{site.port}/api/story.json"
    pg = await browser.page()
    await pg.wait_for_load_state("networkidle")
    assert any(b.startswith(f"{story}: Error: refused") for b in browser.blocked)
    assert STORY[0] not in await pg.content()
    assert trap.connections == []


# --- bodies the browser is handed ---------------------------------------------------------


async def test_the_browser_is_never_handed_a_bomb(site, browser):
    pg = await browser.page()
    await browser_navigate(site.url("/static/article.html"), browser=browser)
    got = await pg.evaluate(
        """async (urls) => Promise.all(urls.map(u => fetch(u)
             .then(r => r.arrayBuffer()).then(b => b.byteLength, e => "failed")))""",
        [site.url("/bomb/br"), site.url("/bomb/gzip-gzip"), site.url("/length/longer")],
    )
    assert got == ["failed", "failed", "failed"]
    refused = "\n".join(browser.blocked)
    assert f"{site.url('/bomb/br')}: Error: the body" in refused
    assert "decompression bomb" in refused and "stacked content encodings" in refused


# --- the proxy itself -------------------------------------------------------------------


async def raw_exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    return data


async def test_the_proxy_refuses_what_it_cannot_check_and_closes_with_the_session(site, trap):
    proxy = GuardedProxy(NetworkPolicy.parse(f"127.0.0.1:{site.port}"))
    await proxy.start()
    try:
        answer = await raw_exchange(proxy.port, b"GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 403 ") and b"only http and https" in answer
        answer = await raw_exchange(proxy.port, b"GET http://x/ HTTP/1.1\r\n\r\n")  # no Host
        assert answer.startswith(b"HTTP/1.1 400 ") and b"malformed request" in answer
        tunnel = f"127.0.0.2:{trap.port}"
        answer = await raw_exchange(
            proxy.port, f"CONNECT {tunnel} HTTP/1.1\r\nHost: {tunnel}\r\n\r\n".encode()
        )
        assert answer.startswith(b"HTTP/1.1 403 ") and b"non-public address" in answer
        answer = await raw_exchange(
            proxy.port, b"GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n"
        )  # another port of an allowed address
        assert answer.startswith(b"HTTP/1.1 403 "), answer
        request = f"GET {site.url('/static/article.html')} HTTP/1.1\r\nHost: x\r\n"
        answer = await raw_exchange(proxy.port, f"{request}Connection: close\r\n\r\n".encode())
        assert answer.startswith(b"HTTP/1.1 200 ") and ARTICLE_PARAGRAPHS[0].encode() in answer
    finally:
        await proxy.aclose()
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", proxy.port)
    assert trap.connections == []


async def test_the_session_closes_its_proxy(site):
    session = BrowserSession(allow=LOOPBACK)
    try:
        await browser_navigate(site.url("/static/article.html"), browser=session)
        port = session._proxy.port
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
    finally:
        await session.aclose()
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)
