"""Sogou: the public results page, ``GET {base}/web?query=…&ie=utf8``.

Results are ``div.vrwrap`` (or the older ``div.rb``) blocks inside ``div.results``: the title
link in ``h3 a`` (``h3.vr-title`` / ``h3.pt``), the snippet in ``.space-txt`` (or
``.attribute-centent``, ``div.ft``, ``.str_info``). Links are ``/link?url=<opaque>``
redirects: a ``data-url`` attribute in the block gives the target when present, otherwise
the redirect page is fetched and its ``window.location.replace("…")`` / meta refresh read.
An ``/antispider`` redirect is Sogou's CAPTCHA. Root-relative links are taken relative to the
configured base, so a base with a path prefix works. ``QUARTET_SOGOU_URL`` replaces the base.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

import httpx

from ...settings import ToolSettings
from ..http import BROWSER_HEADERS, get
from ..render import MAX_RESULTS, Item
from ..run import run_source
from ..sources import Source
from ._html import Element, finish, first, has_class, parse, text_of

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

#: How messages name the source.
LABEL = "Sogou"
PAGE_BASE = "https://www.sogou.com"

_SNIPPET_PATHS = tuple(
    f".//*[{has_class(name)}]"
    for name in ("space-txt", "attribute-centent", "ft", "str_info", "str-text-info")
)
_JS_TARGET = re.compile(r"""location\.replace\(\s*["']([^"']+)["']""")
_META_TARGET = re.compile(r"""URL\s*=\s*'?([^'">\s]+)""", re.IGNORECASE)


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """Search the results page and resolve its redirect links."""
    base = settings.endpoint("sogou", PAGE_BASE)
    url = base + "/web"
    response = await get(
        client, url, source=LABEL, params={"query": query, "ie": "utf8"}, headers=BROWSER_HEADERS
    )
    doc = parse(response)
    page_url = str(response.url)
    found: list[tuple[str, str, str]] = []
    for block in doc.xpath(f"//div[{has_class('vrwrap')} or {has_class('rb')}]"):
        if _skipped(block):
            continue
        link = first(block, ".//h3//a[@href]")
        if link is None:
            continue
        found.append(
            (
                text_of(link),
                _direct_url(block) or _absolute(str(link.get("href")), base, page_url),
                _snippet(block),
            )
        )
        if len(found) >= MAX_RESULTS:
            break
    urls = await asyncio.gather(*(_resolve(client, href, base) for _, href, _ in found))
    items = [Item(t, url, snippet) for (t, _, snippet), url in zip(found, urls, strict=True)]
    recognised = bool(
        doc.xpath(
            f"//div[{has_class('results')}] | //*[@id='main' or @id='noresult_part1_container']"
        )
    )
    return finish(items, recognised, response, LABEL)


def _skipped(block: Element) -> bool:
    hint = "hint" in (block.get("class") or "")
    return hint or bool(block.xpath(f".//*[{has_class('special-wrap')}]"))


def _absolute(href: str, base: str, page_url: str) -> str:
    """``href`` made absolute; root-relative links are relative to the configured site base."""
    if href.startswith("/") and not href.startswith("//"):
        return base + href
    return urljoin(page_url, href)


def _direct_url(block: Element) -> str:
    """The target URL Sogou sometimes puts in a ``data-url`` attribute of the block."""
    target = block.get("data-url") or next(iter(block.xpath(".//@data-url")), "")
    target = str(target)
    return target if target.startswith(("http://", "https://")) else ""


def _snippet(block: Element) -> str:
    for path in _SNIPPET_PATHS:
        text = text_of(first(block, path))
        if text:
            return text
    return ""


def _site(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s) URL, None for any other or a malformed one."""
    try:
        parts = urlsplit(url)
        scheme, port = parts.scheme.lower(), parts.port
    except ValueError:
        return None
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname, port or (443 if scheme == "https" else 80)


def _same_site(href: str, base: str) -> bool:
    """Whether ``href`` is on the configured site (the scheme, host and port of ``base``)."""
    site = _site(href)
    return site is not None and site == _site(base)


async def _resolve(client: httpx.AsyncClient, href: str, base: str) -> str:
    """The target of a ``/link?url=`` redirect; the redirect itself if it cannot be read.

    Only Sogou's own link pages (on the configured site) are fetched, through the
    guarded client like every request: a results page cannot have another address
    fetched and its body read back as a result.
    """
    if not urlsplit(href).path.endswith("/link") or not _same_site(href, base):
        return href
    try:
        response = await client.get(href, headers=BROWSER_HEADERS, follow_redirects=False)
    except httpx.HTTPError:
        return href
    location = response.headers.get("location", "")
    if response.is_redirect and location.startswith(("http://", "https://")):
        return location
    if response.status_code != 200:
        return href
    for pattern in (_JS_TARGET, _META_TARGET):
        match = pattern.search(response.text)
        if match and match.group(1).startswith(("http://", "https://")):
            return match.group(1)
    return href


async def search_sogou(query: str, settings: object = None) -> ToolResponse:
    """Search the Chinese web with Sogou; returns a YAML list (title, url, snippet, source).

    Best for Chinese-language pages and topics in China. At most 10 results, snippets
    shortened, duplicate pages removed. If the source is unavailable, try another search tool.

    Args:
        query (str): Words to search for, Chinese or English, e.g. "新能源汽车 销量 2024".
    """
    return await run_source("search_sogou", search, query, settings)


SOURCE = Source("sogou", search_sogou, "Search Sogou")
