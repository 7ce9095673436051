"""Browser automation tools: one page per Browser agent, driven step by step."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from agentscope.tool import ToolResponse
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from fs_service import FsError

from ..failures import NO_REASON
from ..net.netguard import BlockedURLError, check_url
from ..results import bounded, error, ok, unavailable
from ..untrusted import neutralise, wrap
from .session import STEP_TIMEOUT_S, BrowserSession, BrowserUnavailableError

SNAPSHOT_CHARS = 12_000
SNAPSHOT_TIMEOUT_MS = 5_000
SCREENSHOT_DIR = "/workspace/screenshots/"
MAX_WAIT_MS = 60_000
SELECTOR_HELP = (
    "Take a browser_snapshot to see the page, then use a CSS selector (#id, .class, "
    'input[name="q"]), text=Visible text, or role=button[name="Search"].'
)


def _first_line(exc: BaseException) -> str:
    """The first line of what ``exc`` says (never its class name)."""
    return (str(exc).strip().splitlines() or [NO_REASON])[0]


async def _open_page(browser: Any, blank: bool = False) -> Any:
    """The automation page (``blank``: see :meth:`.BrowserSession.blank_page`); raises
    BrowserUnavailableError when Chromium is missing."""
    if not isinstance(browser, BrowserSession):
        raise BrowserUnavailableError("no browser is configured for this agent")
    return await (browser.blank_page() if blank else browser.page())


async def _where(page: Any, browser: Any) -> str:
    """The page's URL and title; the title waits for a page that is still loading (or
    whose script never stops), so it is bounded by the session's step timeout."""
    try:
        async with asyncio.timeout(getattr(browser, "step_timeout_s", STEP_TIMEOUT_S)):
            title = await page.title()
    except (PlaywrightError, TimeoutError):
        title = ""
    return f"{page.url}" + (f" — {neutralise(title)}" if title else "")


async def page_snapshot(page: Any, limit: int = SNAPSHOT_CHARS) -> str:
    """The ARIA snapshot of the page body, bounded to ``limit`` characters."""
    tree = await page.locator("body").aria_snapshot(timeout=SNAPSHOT_TIMEOUT_MS)
    return bounded(tree, limit, "Scroll or narrow the task; the snapshot was cut.")


async def browser_navigate(url: str, browser: object) -> ToolResponse:
    """Open a URL in the browser page, for pages that need clicks, typing or waiting.

    For simply reading a page use viewer_fetch instead, which is faster and stores the
    text. After navigating, call browser_snapshot to see what is on the page.

    Args:
        url (str): The http or https address to open, e.g. https://example.org/search.
    """
    try:
        await check_url(url, browser.allow)  # type: ignore[attr-defined]
        page = await _open_page(browser, blank=True)
        response = await browser.navigate(page, url)  # type: ignore[attr-defined]
    except BlockedURLError as exc:
        return error(str(exc))
    except BrowserUnavailableError as exc:
        return unavailable(str(exc))
    except PlaywrightError as exc:
        return unavailable(f"the browser could not open {url[:200]}: {_first_line(exc)}")
    if not await browser.responsive(page):  # type: ignore[attr-defined]
        await browser.discard(page)  # type: ignore[attr-defined]
        return error(
            f"Error: {url[:200]} keeps the browser busy: its scripts did not stop within "
            f"{browser.step_timeout_s:g} s, so the page was closed. Read it with "  # type: ignore[attr-defined]
            "viewer_fetch instead."
        )
    status = response.status if response is not None else 0
    where = await _where(page, browser)
    return ok(f"Opened {where} (HTTP {status}). Call browser_snapshot to see the page.")


async def browser_snapshot(browser: object) -> ToolResponse:
    """Describe the current browser page as an accessibility tree (roles, names, text).

    Use it after browser_navigate, browser_click or browser_type to see the page and
    to find selectors: an item shown as `button "Search"` can be clicked with the
    selector role=button[name="Search"].
    """
    try:
        page = await _open_page(browser)
        if page.url in ("", "about:blank"):
            return error("Error: no page is open. Call browser_navigate with a URL first.")
        tree = await page_snapshot(page)
    except BrowserUnavailableError as exc:
        return unavailable(str(exc))
    except PlaywrightError as exc:
        return unavailable(f"the browser could not read the page: {_first_line(exc)}")
    return ok(f"Page: {await _where(page, browser)}\n\n{wrap(tree, 'page', page.url)}")


def _shot_path(url: str) -> str:
    host = re.sub(r"[^a-z0-9]+", "-", (urlsplit(url).hostname or "page").lower()).strip("-")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    return f"{SCREENSHOT_DIR}{host or 'page'}-{stamp}.png"


async def browser_screenshot(browser: object, service: object) -> ToolResponse:
    """Take a PNG screenshot of the visible part of the current browser page.

    The image is saved under /workspace/screenshots/ and its path is returned, so that
    it can be looked at with image_qa or put in a report.
    """
    try:
        page = await _open_page(browser)
        if page.url in ("", "about:blank"):
            return error("Error: no page is open. Call browser_navigate with a URL first.")
        png = await page.screenshot(type="png", timeout=10_000)
    except BrowserUnavailableError as exc:
        return unavailable(str(exc))
    except PlaywrightError as exc:
        return unavailable(f"the browser could not take a screenshot: {_first_line(exc)}")
    path = _shot_path(page.url)
    try:
        await service.write_bytes(path, png)  # type: ignore[attr-defined]
    except FsError as exc:
        return error(str(exc))
    return ok(
        f"Saved a screenshot of {page.url} to {path} ({len(png)} bytes).",
        paths=[path],
    )


async def _act(browser: Any, selector: str, action: str, done: str, step: Any) -> ToolResponse:
    try:
        page = await _open_page(browser)
        if page.url in ("", "about:blank"):
            return error("Error: no page is open. Call browser_navigate with a URL first.")
        await step(page)
    except BrowserUnavailableError as exc:
        return unavailable(str(exc))
    except PlaywrightTimeoutError:
        return error(
            f"Error: could not {action} {selector!r}: no matching element became ready in "
            f"time. {SELECTOR_HELP}"
        )
    except PlaywrightError as exc:
        return error(f"Error: could not {action} {selector!r}: {_first_line(exc)}. {SELECTOR_HELP}")
    return ok(
        f"{done} {selector!r}. Now at {await _where(page, browser)}. Call browser_snapshot to see "
        "the result."
    )


async def browser_click(selector: str, browser: object) -> ToolResponse:
    """Click an element of the current browser page.

    Args:
        selector (str): Which element to click: a CSS selector such as #submit or
            a[href="/next"], text=Next page, or role=button[name="Search"] as seen in
            browser_snapshot.
    """
    return await _act(browser, selector, "click", "Clicked", lambda page: page.click(selector))


async def browser_type(selector: str, text: str, browser: object) -> ToolResponse:
    """Type text into an input field of the current browser page, replacing what it held.

    Args:
        selector (str): Which field to fill: a CSS selector such as input[name="q"],
            or role=textbox[name="Search"] as seen in browser_snapshot.
        text (str): The text to put into the field.
    """
    return await _act(
        browser, selector, "type into", "Typed into", lambda page: page.fill(selector, text)
    )


async def browser_wait(selector: str, timeout: int, browser: object) -> ToolResponse:
    """Wait until an element is visible on the current browser page.

    Use it after an action that loads content slowly, before taking a snapshot.

    Args:
        selector (str): The element to wait for: a CSS selector such as #results,
            text=Done, or role=heading[name="Results"].
        timeout (int): How long to wait at most, in milliseconds (up to 60000), e.g. 5000.
    """
    wait_ms = max(0, min(int(timeout), MAX_WAIT_MS))
    return await _act(
        browser,
        selector,
        "wait for",
        "Found visible:",
        lambda page: page.wait_for_selector(selector, state="visible", timeout=wait_ms),
    )
