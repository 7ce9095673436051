"""BrowserSession: one lazily launched Playwright Chromium per Browser agent.

The browser starts on first use and is closed by :meth:`BrowserSession.aclose` (call it
in ``finally``, or use ``async with``). It holds one automation page for the
``browser_*`` tools in its own context; the Chromium tier of ``viewer_fetch`` renders in
a separate reader context whose few pages are reused. Every request the browser makes
passes the network guard: disallowed URLs are aborted, and redirects are checked hop by
hop before the browser is allowed to follow them.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, BrowserContext, Page, Playwright, Route, async_playwright
from playwright.async_api import Error as PlaywrightError

from ..settings import NetworkPolicy, playwright_browsers_dir
from ..tape import active_tape, replaying
from .netguard import BlockedURLError, check_url

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
LAUNCH_TIMEOUT_MS = 30_000
NAVIGATION_TIMEOUT_MS = 20_000
ACTION_TIMEOUT_MS = 5_000
MAX_REDIRECTS = 10
#: Resource types never loaded when a page is only rendered for its text.
TEXT_ONLY_BLOCKED = frozenset({"image", "media", "font"})
#: Pages kept open for the Chromium tier of viewer_fetch (renders running at once).
READER_PAGES = 4
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


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
        self.blocked: list[str] = []

    @property
    def started(self) -> bool:
        return self._browser is not None

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
                self._browser = await self._playwright.chromium.launch(
                    executable_path=executable,
                    args=list(CHROMIUM_FLAGS),
                    headless=True,
                    timeout=LAUNCH_TIMEOUT_MS,
                )
            except (PlaywrightError, OSError) as exc:
                await self._stop_driver()
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
        """A fresh context whose every request passes the network guard."""
        context = await (await self.browser()).new_context(
            java_script_enabled=True, service_workers="block"
        )
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(self.navigation_timeout_ms)
        await context.route("**/*", lambda route: self._guard(route, block))
        return context

    async def _guard(self, route: Route, block: frozenset[str]) -> None:
        """Let a request through only if it, and each redirect it leads to, is allowed."""
        request = route.request
        if request.resource_type in block:
            await route.abort("blockedbyclient")
            return
        url = request.url
        if url.startswith(("data:", "blob:", "about:")):
            await route.continue_()
            return
        try:
            await check_url(url, self.allow)
            response = await route.fetch(max_redirects=0, timeout=self.navigation_timeout_ms)
            if response.status in _REDIRECT_STATUSES and response.headers.get("location"):
                await self._check_redirect_chain(route, url, response.headers["location"])
            await route.fulfill(response=response)
        except BlockedURLError as exc:
            self.blocked.append(f"{url}: {exc}")
            await route.abort("blockedbyclient")
        except PlaywrightError:
            await _quiet(route.abort("failed"))

    async def _check_redirect_chain(self, route: Route, url: str, location: str) -> None:
        """Walk a redirect chain, checking each hop before it is requested.

        Chromium follows a redirect without asking the route again, so the whole chain
        is checked here first; a refused hop raises BlockedURLError.
        """
        from urllib.parse import urljoin

        current = urljoin(url, location)
        for _ in range(MAX_REDIRECTS):
            await check_url(current, self.allow)
            hop = await route.fetch(url=current, max_redirects=0)
            nxt = hop.headers.get("location")
            await hop.dispose()
            if hop.status not in _REDIRECT_STATUSES or not nxt:
                return
            current = urljoin(current, nxt)
        raise BlockedURLError(f"Error: more than {MAX_REDIRECTS} redirects from {url[:200]}.")

    async def page(self) -> Page:
        """The automation page (created on first use, reused afterwards)."""
        if self._page is None or self._page.is_closed():
            if self._context is None:
                self._context = await self.new_context()
            self._page = await self._context.new_page()
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
                self._reader = await self.new_context(block=TEXT_ONLY_BLOCKED)
            return await self._reader.new_page()
        except BaseException:
            self._reader_count -= 1
            raise

    async def render(self, url: str, wait_ms: int = 2_000) -> RenderedPage:
        """Load ``url`` in a reader page and return its DOM after scripts ran.

        When the loaded page still shows little text, waits up to ``wait_ms`` for the
        network to go idle so that script-rendered content can arrive.
        """
        page = await self._reader_page()
        try:
            try:
                response = await page.goto(url, wait_until="load")
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
        """Close the page, contexts, browser and driver; safe to call more than once."""
        for context in (self._context, self._reader):
            if context is not None:
                await _quiet(context.close())
        if self._browser is not None:
            await _quiet(self._browser.close())
        await self._stop_driver()
        self._page = self._context = self._reader = self._browser = None
        self._idle, self._reader_count = None, 0


async def _quiet(awaitable: Any) -> None:
    """Await ``awaitable``, ignoring Playwright errors and timeouts (used in cleanup)."""
    with contextlib.suppress(PlaywrightError, TimeoutError, OSError):
        await awaitable
