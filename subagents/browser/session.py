"""BrowserSession: one lazily launched Playwright Chromium per Browser agent.

The browser starts on first use and is closed by :meth:`BrowserSession.aclose` (call it
in ``finally``, or use ``async with``). It holds one automation page for the
``browser_*`` tools in its own context; the Chromium tier of ``viewer_fetch`` renders in
a separate reader context whose few pages are reused.

Chromium reaches the network only through the session's :class:`.proxy.GuardedProxy`, a
proxy on 127.0.0.1 that lives as long as the session: every request, each redirect hop
and every subresource is checked when it is made and connected only to an address the
network guard permits. Chromium resolves no host name itself (its resolver is told to
fail), and WebRTC may not send UDP outside the proxy.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Request,
    Response,
    Route,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

from ..net.netguard import BlockedURLError
from ..settings import NetworkPolicy, playwright_browsers_dir
from ..tape import active_tape, replaying
from .proxy import GuardedProxy

SYSTEM_CHROMIUM = "/usr/bin/chromium"
#: Launch flags; Playwright adds ``--headless`` and a fresh temporary ``--user-data-dir``.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
#: Chromium may take long to start on a loaded machine; a minute before giving up.
LAUNCH_TIMEOUT_MS = 60_000
NAVIGATION_TIMEOUT_MS = 20_000
ACTION_TIMEOUT_MS = 5_000
#: Seconds a step without a Playwright timeout of its own (opening a context or a page,
#: closing one) may take before Chromium is taken to be stuck.
STEP_TIMEOUT_S = 30.0
#: Resource types never loaded when a page is only rendered for its text.
TEXT_ONLY_BLOCKED = frozenset({"image", "media", "font"})
#: Pages kept open for the Chromium tier of viewer_fetch (renders running at once).
READER_PAGES = 4


def proxy_flags(proxy_url: str) -> tuple[str, ...]:
    """Launch flags that send every request of Chromium through the proxy at ``proxy_url``.

    Chromium bypasses a proxy for localhost and loopback addresses unless told
    ``<-loopback>``; its own resolver fails every name but the proxy's address, so
    nothing can be reached around the proxy; WebRTC may not send UDP outside it.
    """
    host = proxy_url.rsplit("//", 1)[-1].rsplit(":", 1)[0]
    return (
        f"--proxy-server={proxy_url}",
        "--proxy-bypass-list=<-loopback>",
        f"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE {host}",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    )


class BrowserUnavailableError(RuntimeError):
    """Chromium could not be launched or driven; ``str()`` gives the reason."""


def chromium_path(configured: str | None = None) -> str | None:
    """The Chromium to launch: ``configured`` (``QUARTET_BROWSER``), else Playwright's own,
    else Debian's.

    None means Playwright's own build (installed with ``playwright install chromium``).
    """
    if configured:
        return configured
    home = Path(playwright_browsers_dir())
    if any(home.expanduser().glob("chromium-*/chrome-linux*/chrome")):
        return None
    return SYSTEM_CHROMIUM if Path(SYSTEM_CHROMIUM).exists() else shutil.which("chromium")


@dataclass(frozen=True)
class RenderedPage:
    """What the Chromium tier saw: the DOM after scripts ran."""

    url: str
    final_url: str
    status: int
    html: str
    title: str


class BrowserSession:
    """A lazily launched Chromium with one automation page, closed in ``aclose()``."""

    def __init__(
        self,
        executable: str | None = None,
        allow: NetworkPolicy | None = None,
        navigation_timeout_ms: int = NAVIGATION_TIMEOUT_MS,
    ) -> None:
        self._executable = executable
        self.allow = allow or NetworkPolicy()
        self.navigation_timeout_ms = navigation_timeout_ms
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._lock: asyncio.Lock | None = None
        self._reader: BrowserContext | None = None
        self._idle: asyncio.Queue[Page] | None = None
        self._reader_count = 0
        self._proxy: GuardedProxy | None = None

    @property
    def started(self) -> bool:
        return self._browser is not None

    @property
    def blocked(self) -> list[str]:
        """The most recent requests of the browser the proxy refused, as ``target: reason``."""
        return [str(r) for r in self._proxy.refusals] if self._proxy is not None else []

    async def __aenter__(self) -> BrowserSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _get_lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def browser(self) -> Browser:
        """The running browser, launched on first use."""
        async with self._get_lock():
            if self._browser is not None and self._browser.is_connected():
                return self._browser
            if replaying():
                self._tape_refusal()
            executable = chromium_path(self._executable)
            try:
                if self._playwright is None:
                    self._playwright = await async_playwright().start()
                if self._proxy is None or not self._proxy.listening:
                    self._proxy = GuardedProxy(self.allow)
                    await self._proxy.start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=executable,
                    args=[*CHROMIUM_FLAGS, *proxy_flags(self._proxy.url)],
                    headless=True,
                    timeout=LAUNCH_TIMEOUT_MS,
                )
            except (PlaywrightError, OSError) as exc:
                await self._stop_driver()
                if self._proxy is not None:
                    await self._proxy.aclose()
                where = executable or "Playwright's Chromium"
                raise BrowserUnavailableError(
                    f"Chromium could not be started ({where}): {str(exc).splitlines()[0]}"
                ) from None
            return self._browser

    @staticmethod
    def _tape_refusal() -> None:
        active_tape().diverge("the replay needed Chromium, whose pages are not recorded")  # type: ignore[union-attr]
        raise BrowserUnavailableError(
            "Chromium is not used in a replay: only the HTTP and model answers are recorded"
        )

    async def new_context(self, block: frozenset[str] = frozenset()) -> BrowserContext:
        """A fresh context; requests for the resource types in ``block`` are never made."""
        context = await (await self.browser()).new_context(
            java_script_enabled=True, service_workers="block"
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(self.navigation_timeout_ms)
        if block:
            await context.route("**/*", lambda route: _skip(route, block))
        return context

    async def navigate(self, page: Page, url: str) -> Response | None:
        """``page.goto(url)``, raising BlockedURLError when the proxy refused the page.

        A refusal of the URL itself or of any hop of its redirects counts; so does a
        navigation that failed because the proxy refused the tunnel for it.

        A page whose navigation failed is closed: Chromium commits its error page a
        moment later, and that commit would interrupt the next ``goto`` on the same page
        (microsoft/playwright#35944). :meth:`page` and the reader pool open a fresh one.
        """
        failed: list[str] = []

        def on_failed(request: Request) -> None:
            if request.is_navigation_request():
                failed.append(request.url)

        since = self._proxy.mark() if self._proxy is not None else 0
        page.on("requestfailed", on_failed)
        try:
            response = await page.goto(url, wait_until="load")
        except PlaywrightError:
            await _quiet(page.close())
            self._raise_refusal(url, [url, *failed], since)
            raise
        finally:
            page.remove_listener("requestfailed", on_failed)
        if response is not None:
            self._raise_refusal(url, _redirect_chain(response.request), since)
        return response

    def _raise_refusal(self, url: str, urls: list[str], since: int) -> None:
        """Raise BlockedURLError if the proxy refused one of ``urls`` since ``since``."""
        refusal = self._proxy.refused(urls, since) if self._proxy is not None else None
        if refusal is None:
            return
        reason = refusal.reason.removeprefix("Error: ")
        if refusal.concerns(url):
            raise BlockedURLError(f"Error: {reason}")
        raise BlockedURLError(
            f"Error: {url[:200]} sent the browser on to {refusal.target[:200]}, which was "
            f"refused: {reason}"
        )

    async def page(self) -> Page:
        """The automation page (created on first use, reused afterwards)."""
        if self._page is None or self._page.is_closed():
            if self._context is None:
                self._context = await _bounded(self.new_context(), "open a browser context")
            self._page = await _bounded(self._context.new_page(), "open a page")
        return self._page

    async def _reader_page(self) -> Page:
        """An idle page of the reader context (images, media and fonts blocked).

        Opening a page costs a renderer process (hundreds of milliseconds), so up to
        READER_PAGES pages are kept and reused for the Chromium tier.
        """
        if self._idle is None:
            self._idle = asyncio.Queue()
        while not self._idle.empty():
            page = self._idle.get_nowait()
            if not page.is_closed():
                return page
            self._reader_count -= 1
        if self._reader_count >= READER_PAGES:
            page = await self._idle.get()
            if not page.is_closed():
                return page
            self._reader_count -= 1
        self._reader_count += 1
        try:
            if self._reader is None:
                self._reader = await _bounded(
                    self.new_context(block=TEXT_ONLY_BLOCKED), "open a browser context"
                )
            return await _bounded(self._reader.new_page(), "open a page")
        except BaseException:
            self._reader_count -= 1
            raise

    async def render(self, url: str, wait_ms: int = 2_000) -> RenderedPage:
        """Load ``url`` in a reader page and return its DOM after scripts ran.

        When the loaded page still shows little text, waits up to ``wait_ms`` for the
        network to go idle so that script-rendered content can arrive. Raises
        BlockedURLError when the network guard refused the page or one of its redirects.
        """
        page = await self._reader_page()
        try:
            try:
                response = await self.navigate(page, url)
                chars = await page.evaluate("() => (document.body?.innerText || '').length")
                if chars < 200:
                    await _quiet(page.wait_for_load_state("networkidle", timeout=wait_ms))
                html = await page.content()
                title = await page.title()
            except PlaywrightError as exc:
                await _quiet(page.close())
                raise BrowserUnavailableError(
                    f"Chromium could not load {url[:200]}: {str(exc).splitlines()[0]}"
                ) from None
            return RenderedPage(
                url=url,
                final_url=page.url,
                status=response.status if response is not None else 0,
                html=html,
                title=title,
            )
        finally:
            if self._idle is not None:
                self._idle.put_nowait(page)

    async def _stop_driver(self) -> None:
        if self._playwright is not None:
            await _quiet(self._playwright.stop())
            self._playwright = None

    async def aclose(self) -> None:
        """Close the page, contexts, browser, driver and proxy; safe to call more than once.

        The proxy's record of refusals stays readable (:attr:`blocked`).
        """
        for context in (self._context, self._reader):
            if context is not None:
                await _quiet(context.close())
        if self._browser is not None:
            await _quiet(self._browser.close())
        await self._stop_driver()
        if self._proxy is not None:
            await self._proxy.aclose()
        self._page = self._context = self._reader = self._browser = None
        self._idle, self._reader_count = None, 0


#: What cleanup and request routing ignore: the page or browser is going away.
_CLEANUP_ERRORS = (PlaywrightError, TimeoutError, OSError)


async def _skip(route: Route, block: frozenset[str]) -> None:
    """Abort a request for a resource type in ``block``; let every other one go on."""
    with contextlib.suppress(*_CLEANUP_ERRORS):  # per request: no timer of its own here
        if route.request.resource_type in block:
            await route.abort("blockedbyclient")
        else:
            await route.continue_()


def _redirect_chain(request: Request) -> list[str]:
    """The URL of ``request`` and of every request that redirected to it."""
    urls: list[str] = []
    current: Request | None = request
    while current is not None:
        urls.append(current.url)
        current = current.redirected_from
    return urls


async def _quiet(awaitable: Any) -> None:
    """Await ``awaitable`` for at most STEP_TIMEOUT_S, ignoring Playwright errors and
    timeouts (used in cleanup)."""
    with contextlib.suppress(*_CLEANUP_ERRORS):
        await asyncio.wait_for(awaitable, STEP_TIMEOUT_S)


async def _bounded(awaitable: Any, what: str) -> Any:
    """Await a step that has no Playwright timeout of its own, for at most STEP_TIMEOUT_S."""
    try:
        return await asyncio.wait_for(awaitable, STEP_TIMEOUT_S)
    except TimeoutError:
        raise BrowserUnavailableError(
            f"Chromium did not {what} within {STEP_TIMEOUT_S:.0f} s"
        ) from None
