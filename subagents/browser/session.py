"""BrowserSession: one lazily launched Playwright Chromium per Browser agent.

The browser starts on first use and is closed by :meth:`BrowserSession.aclose` (call it
in ``finally``, or use ``async with``). It holds one automation page for the
``browser_*`` tools in its own context; the Chromium tier of ``viewer_fetch`` renders in
a separate reader context whose few pages are reused.

Pages are untrusted: every step on one is bounded in time (a script that never stops
cannot hold a task until its stage timeout), a page that did not finish in time is
closed and never reused, a page the session did not open itself (``window.open``, a
``target=_blank`` link) is closed as soon as it appears, and no context accepts
downloads (files are fetched only by ``http_download``, under its caps).

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
import weakref
from collections.abc import Awaitable, Callable
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
#: Launch flags; Playwright adds ``--headless``, a fresh temporary ``--user-data-dir`` and
#: its defaults but those in KEPT_DEFAULTS_OFF.
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
#: Playwright's default flags left out: Chromium's popup blocker stays on, so a page's
#: script cannot open windows (only a click of the browser_click tool can, and the
#: session closes those).
KEPT_DEFAULTS_OFF = ("--disable-popup-blocking",)
#: Chromium may take long to start on a loaded machine; a minute before giving up.
LAUNCH_TIMEOUT_MS = 60_000
NAVIGATION_TIMEOUT_MS = 20_000
ACTION_TIMEOUT_MS = 5_000
#: Seconds a step without a Playwright timeout of its own (opening a context or a page,
#: reading a page's text or title, closing one) may take before Chromium or the page is
#: taken to be stuck (the default of ``BrowserSession(step_timeout_s=…)``).
STEP_TIMEOUT_S = 30.0
#: What the Chromium tier measures first: how much text the loaded page shows.
TEXT_LENGTH_JS = "() => (document.body?.innerText || '').length"
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
        step_timeout_s: float = STEP_TIMEOUT_S,
    ) -> None:
        self._executable = executable
        self.allow = allow or NetworkPolicy()
        self.navigation_timeout_ms = navigation_timeout_ms
        self.step_timeout_s = step_timeout_s
        #: Pages the session closed because it had not opened them (popups).
        self.strays_closed = 0
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._lock: asyncio.Lock | None = None
        self._reader: BrowserContext | None = None
        self._idle: list[Page] = []
        self._slots: asyncio.Semaphore | None = None
        self._proxy: GuardedProxy | None = None
        self._own: weakref.WeakSet[Page] = weakref.WeakSet()
        self._opening = 0
        self._arrived: list[Page] = []
        self._closing: set[asyncio.Task[None]] = set()
        #: Told ``"starting"`` as Chromium is launched, then ``"ready"`` or ``"failed"``
        #: (a progress display says why the first page takes seconds).
        self.on_launch: Callable[[str], None] | None = None
        #: The launch started ahead of the first use (see :meth:`launch_ahead`).
        self._ahead: asyncio.Task[None] | None = None

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
            self._tell("starting")
            try:
                self._browser = await self._launch()
            except BaseException:
                self._tell("failed")
                raise
            self._tell("ready")
            return self._browser

    def launch_ahead(self, worth: Callable[[], Awaitable[bool]] | None = None) -> None:
        """Start launching Chromium now, in a task of its own, while the run does other
        work (plans): the first use waits for that launch (under the session's lock)
        instead of starting its own. A launch that fails here is tried again at the first
        use, which raises its reason; :meth:`aclose` stops one still under way. Nothing is
        launched in a replay, which refuses Chromium.

        Args:
            worth: awaited first, in the same task: Chromium is launched only when it
                says so (e.g. whether the web the run reads can be reached at all).
        """
        if self._ahead is None and self._browser is None and not replaying():
            self._ahead = asyncio.ensure_future(self._launch_quietly(worth))

    async def _launch_quietly(self, worth: Callable[[], Awaitable[bool]] | None) -> None:
        """:meth:`browser` when ``worth`` says so (or is None); a failure is met again,
        and raised, by the first use."""
        with contextlib.suppress(Exception):
            if worth is None or await worth():
                await self.browser()

    async def _stop_ahead(self) -> None:
        """Cancel the launch started ahead when it is still under way, and wait for it to
        end (a cancel of the caller still stops the caller)."""
        task, self._ahead = self._ahead, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])

    def _tell(self, state: str) -> None:
        """Tell :attr:`on_launch` how the launch stands (``starting``, ``ready``,
        ``failed``)."""
        if self.on_launch is not None:
            self.on_launch(state)

    async def _launch(self) -> Browser:
        """Chromium launched behind the session's proxy (the driver started first).

        Raises:
            BrowserUnavailableError: Chromium could not be started.
        """
        executable = chromium_path(self._executable)
        try:
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            if self._proxy is None or not self._proxy.listening:
                self._proxy = GuardedProxy(self.allow)
                await self._proxy.start()
            return await self._playwright.chromium.launch(
                executable_path=executable,
                args=[*CHROMIUM_FLAGS, *proxy_flags(self._proxy.url)],
                ignore_default_args=list(KEPT_DEFAULTS_OFF),
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

    @staticmethod
    def _tape_refusal() -> None:
        active_tape().diverge("the replay needed Chromium, whose pages are not recorded")  # type: ignore[union-attr]
        raise BrowserUnavailableError(
            "Chromium is not used in a replay: only the HTTP and model answers are recorded"
        )

    async def new_context(self, block: frozenset[str] = frozenset()) -> BrowserContext:
        """A fresh context; requests for the resource types in ``block`` are never made.

        It refuses every download (Playwright would otherwise keep them in its temporary
        folder, outside the run and its caps), and closes every page the session did not
        open with :meth:`open_page`.
        """
        context = await (await self.browser()).new_context(
            java_script_enabled=True, service_workers="block", accept_downloads=False
        )
        context.on("page", self._on_page)
        context.set_default_timeout(ACTION_TIMEOUT_MS)
        context.set_default_navigation_timeout(self.navigation_timeout_ms)
        if block:
            await context.route("**/*", lambda route: _skip(route, block))
        return context

    async def open_page(self, context: BrowserContext) -> Page:
        """A new page of ``context`` that the session keeps (every other page is closed).

        Playwright reports a new page to the context's ``page`` listeners before
        ``new_page`` returns it, so pages that appear while the session is opening one
        wait in :attr:`_arrived` until every opening is over; those that are not the
        session's own are closed then.
        """
        self._opening += 1
        try:
            page = await self._bounded(context.new_page(), "open a page")
            self._own.add(page)
            page.on("crash", self._close_later)  # its renderer died: a fresh page is opened
            return page
        finally:
            self._opening -= 1
            if not self._opening:
                arrived, self._arrived = self._arrived, []
                for stray in arrived:
                    if stray not in self._own:
                        self._close_stray(stray)

    def _on_page(self, page: Page) -> None:
        """A page appeared in one of the session's contexts: keep it only if it is ours."""
        if page in self._own:
            return
        if self._opening:
            self._arrived.append(page)
            return
        self._close_stray(page)

    def _close_stray(self, page: Page) -> None:
        """Close a page the session did not open (a popup), in the background."""
        self.strays_closed += 1
        self._close_later(page)

    def _close_later(self, page: Page) -> None:
        """Close ``page`` in the background."""
        task = asyncio.get_running_loop().create_task(_quiet(page.close(), self.step_timeout_s))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

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
            await _quiet(page.close(), self.step_timeout_s)
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
        """The automation page (created on first use, reused afterwards).

        A page whose scripts no longer let it answer (see :meth:`responsive`) is closed
        and replaced by a fresh, blank one.
        """
        if self._page is not None and not await self.responsive(self._page):
            await self.discard(self._page)
        if self._page is None or self._page.is_closed():
            if self._context is None:
                self._context = await self._open_context()
            self._page = await self.open_page(self._context)
        return self._page

    async def blank_page(self) -> Page:
        """The automation page, blank, ready for a navigation.

        The document it showed is left first, so that its unload handlers run now: a
        page that cannot leave it within the step timeout (a script that spins when the
        page is left) is closed, and a fresh page is returned instead.
        """
        page = await self.page()
        if page.url in ("", "about:blank"):
            return page
        if await _settled(page.goto("about:blank"), self.step_timeout_s):
            return page
        await self.discard(page)
        return await self.page()

    async def responsive(self, page: Page) -> bool:
        """Whether ``page`` runs a trivial script within the step timeout.

        A page whose script never stops does not. A page that is navigating, closed or
        crashed counts as responsive: it is not stuck, and what it is doing fails or
        succeeds on its own.
        """
        if page.is_closed():
            return True
        try:
            async with asyncio.timeout(self.step_timeout_s):
                await page.evaluate("1")
        except TimeoutError:
            return False
        except PlaywrightError:
            return True
        return True

    async def _bounded(self, awaitable: Any, what: str) -> Any:
        """Await a step that has no Playwright timeout of its own, for at most
        :attr:`step_timeout_s`."""
        return await _bounded(awaitable, what, self.step_timeout_s)

    async def _open_context(self, block: frozenset[str] = frozenset()) -> BrowserContext:
        """A fresh context (see :meth:`new_context`), Chromium launched first if need be.

        Launching has its own, longer timeout (a cold start on a busy machine takes
        seconds); only opening the context counts as a step.
        """
        await self.browser()
        return await self._bounded(self.new_context(block), "open a browser context")

    async def _reader_page(self) -> Page:
        """An idle page of the reader context (images, media and fonts blocked).

        Opening a page costs a renderer process (hundreds of milliseconds), so the pages
        of finished renders are kept and reused for the Chromium tier (at most
        READER_PAGES exist at once: :meth:`render` holds one of as many slots).
        """
        while self._idle:
            page = self._idle.pop()
            if not page.is_closed() and page.context is self._reader:
                return page
        if self._reader is None:
            context = await self._open_context(TEXT_ONLY_BLOCKED)
            if self._reader is None:
                self._reader = context
            else:  # another render opened one meanwhile
                await _quiet(context.close(), self.step_timeout_s)
        return await self.open_page(self._reader)

    async def render(self, url: str, wait_ms: int = 2_000) -> RenderedPage:
        """Load ``url`` in a reader page and return its DOM after scripts ran.

        When the loaded page still shows little text, waits up to ``wait_ms`` for the
        network to go idle so that script-rendered content can arrive. Every step is
        bounded (``step_timeout_s``); a page that did not finish in time is closed, never
        reused. Raises BlockedURLError when the network guard refused the page or one of
        its redirects, BrowserUnavailableError when Chromium failed or the page did not
        finish in time.
        """
        if self._slots is None:
            self._slots = asyncio.Semaphore(READER_PAGES)
        slots = self._slots
        async with slots:
            page: Page | None = None
            healthy = False
            try:
                page = await self._reader_page()
                try:
                    response = await self.navigate(page, url)
                    where = f"read {url[:200]}"
                    chars = await self._bounded(page.evaluate(TEXT_LENGTH_JS), where)
                    if chars < 200:
                        idle = page.wait_for_load_state("networkidle", timeout=wait_ms)
                        await _quiet(idle, self.step_timeout_s)
                    html = await self._bounded(page.content(), where)
                    title = await self._bounded(page.title(), where)
                except BlockedURLError:
                    healthy = True  # the guard refused the address; the page is fine
                    raise
                except PlaywrightError as exc:
                    raise BrowserUnavailableError(
                        f"Chromium could not load {url[:200]}: {str(exc).splitlines()[0]}"
                    ) from None
                healthy = True
                return RenderedPage(
                    url=url,
                    final_url=page.url,
                    status=response.status if response is not None else 0,
                    html=html,
                    title=title,
                )
            finally:
                if page is not None:
                    await self._release(page, healthy)

    async def _release(self, page: Page, healthy: bool) -> None:
        """Put a reader page back for the next render, or close it for good.

        A page goes back blank: the scripts of the page it showed stop (a timer that
        spins or opens windows later cannot run while it waits) and their memory is
        freed. A page that cannot leave what it showed in time is closed.
        """
        if healthy and not page.is_closed() and page.context is self._reader:
            healthy = await _settled(page.goto("about:blank"), self.step_timeout_s)
        if healthy and not page.is_closed() and page.context is self._reader:
            self._idle.append(page)
        else:
            await self.discard(page)

    async def discard(self, page: Page) -> None:
        """Close a page that must not be used again (it failed, ran out of time or is
        stuck); the next render or :meth:`page` opens a fresh one.

        A page whose renderer is stuck may not close: then its context goes with it, and
        if even that does not close in time, the browser and its driver are stopped, to
        be started again on next use.
        """
        timeout = self.step_timeout_s
        if not page.is_closed():
            await _quiet(page.close(), timeout)
        if page is self._page:
            self._page = None
        if page.is_closed():
            return
        context = page.context
        if context is self._reader:
            self._reader, self._idle = None, []
        elif context is self._context:
            self._context = None
        else:
            return  # its context was already given up
        if await _settled(context.close(), timeout):
            return
        browser = self._browser
        self._page = self._context = self._browser = None
        if browser is not None:
            await _quiet(browser.close(), timeout)
        await self._stop_driver()

    async def _stop_driver(self) -> None:
        if self._playwright is not None:
            await _quiet(self._playwright.stop(), self.step_timeout_s)
            self._playwright = None

    async def aclose(self) -> None:
        """Close the page, contexts, browser, driver and proxy; safe to call more than once.

        The proxy's record of refusals stays readable (:attr:`blocked`).
        """
        await self._stop_ahead()
        for task in list(self._closing):
            task.cancel()  # the contexts' close below closes their pages
        for context in (self._context, self._reader):
            if context is not None:
                await _quiet(context.close(), self.step_timeout_s)
        if self._browser is not None:
            await _quiet(self._browser.close(), self.step_timeout_s)
        await self._stop_driver()
        if self._proxy is not None:
            await self._proxy.aclose()
        self._page = self._context = self._reader = self._browser = None
        self._idle = []


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


async def _settled(awaitable: Any, timeout: float | None = None) -> bool:
    """Await ``awaitable`` for at most ``timeout`` seconds (default STEP_TIMEOUT_S);
    whether it finished without a Playwright error or a timeout."""
    try:
        async with asyncio.timeout(STEP_TIMEOUT_S if timeout is None else timeout):
            await awaitable
    except _CLEANUP_ERRORS:
        return False
    return True


async def _quiet(awaitable: Any, timeout: float | None = None) -> None:
    """Await ``awaitable`` for at most ``timeout`` seconds (default STEP_TIMEOUT_S),
    ignoring Playwright errors and timeouts (used in cleanup)."""
    await _settled(awaitable, timeout)


async def _bounded(awaitable: Any, what: str, timeout: float | None = None) -> Any:
    """Await a step that has no Playwright timeout of its own, for at most ``timeout``
    seconds (default STEP_TIMEOUT_S)."""
    seconds = STEP_TIMEOUT_S if timeout is None else timeout
    try:
        async with asyncio.timeout(seconds):
            return await awaitable
    except TimeoutError:
        raise BrowserUnavailableError(f"Chromium did not {what} within {seconds:g} s") from None
