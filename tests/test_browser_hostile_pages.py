"""Pages that attack the browser itself: scripts that never stop, popup floods, downloads.

Real Chromium on a site served on 127.0.0.1, one session for the whole module with a
short step timeout (the default stays 30 s): a page whose script spins after ``load``
ends its render within that timeout and is closed, never reused; a page whose renderer
will not even close takes its reader context with it; the automation page is closed
when it spins; a page's script cannot open windows, and a window a click opens is
closed; downloads a page starts are refused, so nothing lands in
Playwright's temporary folder (this module's driver gets a temporary folder of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from browser_sites import JS_APP_HTML, JS_SECRET, SiteServer, page
from browser_support import LOOPBACK, LOOPBACK_SETTINGS, tier_of
from playwright.async_api import Page

from subagents.browser.automation import browser_click, browser_navigate, browser_snapshot
from subagents.browser.session import READER_PAGES, BrowserSession, BrowserUnavailableError
from subagents.browser.viewer import viewer_fetch
from subagents.results import text_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: The step timeout of this module's session (seconds).
STEP_S = 3.0
#: How long any one call here may take before it counts as hung.
CALL_S = 90.0
POPUPS = 25
DOWNLOAD_BYTES = 8 * 1024 * 1024

#: Text drawn by a script, so that the HTTP tier fails its quality gate and Chromium reads.
DRAWN = (
    "<div id='root'></div><script>document.getElementById('root').innerHTML = "
    "'<p>' + 'Scripted text about tea gardens and their harvests. '.repeat(12) + '</p>';"
    "</script>"
)
SPIN_HTML = (
    "<!doctype html><html><head><title>Spinner</title></head><body>"
    f"{DRAWN}<script>addEventListener('load', () => setTimeout(() => {{ for (;;) {{}} }}, 0));"
    "</script></body></html>"
).encode()
FLOOD_HTML = (
    "<!doctype html><html><head><title>Flood</title></head><body>"
    f"{DRAWN}<a id='pop' href='/popup.html?click' target='_blank'>A new window</a>"
    f"<script>for (let i = 0; i < {POPUPS}; i++) window.open('/popup.html?' + i);"
    "</script></body></html>"
).encode()
POPUP_HTML = b"<!doctype html><html><body><p>A popup nobody asked for.</p></body></html>"
DOWNLOAD_HTML = (
    "<!doctype html><html><head><title>Downloads</title></head><body>"
    f"{DRAWN}<script>const a = document.createElement('a'); a.href = '/file.bin'; "
    "a.download = 'file.bin'; document.body.appendChild(a); a.click();"
    "window.open('/attachment.bin');</script></body></html>"
).encode()


def attachment(h) -> None:
    """A large file sent as an attachment: a browser that accepts downloads saves it."""
    body = b"\0" * DOWNLOAD_BYTES
    h.send_response(200)
    h.send_header("Content-Type", "application/octet-stream")
    h.send_header("Content-Disposition", 'attachment; filename="file.bin"')
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        h.wfile.write(body)


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    r = server.routes
    r["/js/app.html"] = page(JS_APP_HTML.encode())
    r["/spin.html"] = page(SPIN_HTML)
    r["/spin-again.html"] = page(SPIN_HTML)
    r["/flood.html"] = page(FLOOD_HTML)
    r["/popup.html"] = page(POPUP_HTML)
    r["/download.html"] = page(DOWNLOAD_HTML)
    r["/file.bin"] = r["/attachment.bin"] = attachment
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def driver_tmp(tmp_path_factory) -> Iterator[Path]:
    """The temporary folder of this module's Playwright driver (where it keeps downloads)."""
    folder = tmp_path_factory.mktemp("driver-tmp")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(folder))
        yield folder


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(driver_tmp):
    session = BrowserSession(allow=LOOPBACK, step_timeout_s=STEP_S)
    try:
        yield session
    finally:
        await session.aclose()


async def fetch(site: SiteServer, browser: BrowserSession, service, path: str):
    return await asyncio.wait_for(
        viewer_fetch(site.url(path), service=service, browser=browser, settings=LOOPBACK_SETTINGS),
        CALL_S,
    )


async def navigate(browser: BrowserSession, url: str):
    return await asyncio.wait_for(browser_navigate(url, browser=browser), CALL_S)


async def settle(condition, seconds: float = 60.0) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass; whether it held."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def artifact_bytes(root: Path) -> int:
    """Bytes in the driver's artifacts folders under ``root`` (where accepted downloads go)."""
    folders = root.glob("playwright-artifacts-*")
    return sum(f.stat().st_size for d in folders for f in d.rglob("*") if f.is_file())


async def test_a_page_that_spins_after_load_ends_its_render_and_is_never_reused(
    site, browser, memory_service
):
    res = await fetch(site, browser, memory_service, "/spin.html")
    out = text_of(res)
    assert f"did not read {site.url('/spin.html')} within {STEP_S:g} s" in out, out
    reader = browser._reader
    assert reader is not None and not any("/spin" in p.url for p in reader.pages)
    assert all(not p.is_closed() and "/spin" not in p.url for p in browser._idle)
    # The next page is read by Chromium as usual.
    res = await fetch(site, browser, memory_service, "/js/app.html")
    assert tier_of(res) == "chromium" and JS_SECRET in text_of(res), text_of(res)


async def test_a_page_that_will_not_close_takes_its_reader_context_with_it(
    site, browser, monkeypatch
):
    closing = Page.close

    async def stuck(self: Page, **kwargs) -> None:
        if "/spin" in self.url:
            await asyncio.Event().wait()  # a renderer that never answers
        await closing(self, **kwargs)

    monkeypatch.setattr(Page, "close", stuck)
    await browser.render(site.url("/js/app.html"))  # a reader context exists
    before = browser._reader
    with pytest.raises(BrowserUnavailableError, match="did not read"):
        await asyncio.wait_for(browser.render(site.url("/spin-again.html")), CALL_S)
    assert before is not None and browser._reader is not before and before.pages == []
    monkeypatch.undo()
    rendered = await asyncio.wait_for(browser.render(site.url("/js/app.html")), CALL_S)
    assert JS_SECRET in rendered.html


async def test_a_page_that_spins_in_the_automation_page_is_closed(site, browser):
    res = await navigate(browser, site.url("/spin.html"))
    assert res.metadata["status"] == "error", text_of(res)
    assert f"did not stop within {STEP_S:g} s, so the page was closed" in text_of(res)
    res = await asyncio.wait_for(browser_snapshot(browser=browser), CALL_S)
    assert "no page is open" in text_of(res), text_of(res)
    res = await navigate(browser, site.url("/js/app.html"))
    assert text_of(res).startswith("Opened "), text_of(res)


async def test_windows_a_page_opens_are_blocked_or_closed(site, browser, memory_service):
    res = await fetch(site, browser, memory_service, "/flood.html")
    assert tier_of(res) == "chromium", text_of(res)
    res = await navigate(browser, site.url("/flood.html"))
    assert text_of(res).startswith("Opened "), text_of(res)
    # Chromium's popup blocker stays on: a page's script opens no window.
    assert "/popup.html" not in site.paths()
    reader, own = browser._reader, await browser.page()
    assert len(reader.pages) <= READER_PAGES and own.context.pages == [own]
    # A click opens one; the session closes every page it did not open itself.
    closed = browser.strays_closed
    res = await asyncio.wait_for(browser_click("#pop", browser=browser), CALL_S)
    assert text_of(res).startswith("Clicked"), text_of(res)
    assert await settle(lambda: browser.strays_closed > closed)
    assert await settle(lambda: own.context.pages == [own]), [p.url for p in own.context.pages]


async def test_downloads_a_page_starts_are_refused(site, browser, memory_service, driver_tmp):
    assert any(driver_tmp.glob("playwright-artifacts-*"))  # the driver works in this folder
    res = await fetch(site, browser, memory_service, "/download.html")
    assert tier_of(res) == "chromium", text_of(res)
    res = await navigate(browser, site.url("/download.html"))
    assert text_of(res).startswith("Opened "), text_of(res)
    own = await browser.page()
    await asyncio.wait_for(own.wait_for_load_state("networkidle"), CALL_S)
    assert artifact_bytes(driver_tmp) == 0
