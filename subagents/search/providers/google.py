"""Google: the Programmable Search JSON API with keys, else the public results page.

API: ``GET {base}/customsearch/v1?cx=…&q=…&num=10`` with the key in the
``X-goog-api-key`` header (Google APIs accept it there, which keeps it out of URLs and
logs); the answer's ``items[]`` carry ``title``, ``link`` and ``snippet``, and ``items`` is
absent when nothing matched. Page: ``GET {base}/search?q=…``; each organic result is an
``<a href>`` holding an ``<h3>`` title inside ``#rso``/``#search``, its snippet in
``div.VwiC3b`` (desktop) or, on the basic page, ``/url?q=`` links with ``div.BNeawe``
text. ``QUARTET_GOOGLE_URL`` replaces the base of both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx

from ...settings import ToolSettings
from ..http import BROWSER_HEADERS, SearchUnavailable, get, json_body
from ..render import MAX_RESULTS, Item, clean
from ..run import run_source
from ..sources import Source
from ._html import Element, finish, first, has_class, parse, text_of

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

#: How messages name the source.
LABEL = "Google"
API_BASE = "https://www.googleapis.com"
PAGE_BASE = "https://www.google.com"


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """Search with the JSON API when both keys are set, else the results page."""
    key, cx = settings.keys.get_key("GOOGLE_API_KEY"), settings.keys.get_key("GOOGLE_CSE_ID")
    if key and cx:
        return await _api(client, query, key, cx, settings)
    return await _page(client, query, settings)


def _api_error(response: httpx.Response) -> str | None:
    error = response.json().get("error", {})
    return error.get("message") if isinstance(error, dict) else None


async def _api(
    client: httpx.AsyncClient, query: str, key: str, cx: str, settings: ToolSettings
) -> list[Item]:
    url = settings.endpoint("google", API_BASE) + "/customsearch/v1"
    response = await get(
        client,
        url,
        source=LABEL,
        params={"cx": cx, "q": query, "num": MAX_RESULTS},
        headers={"X-goog-api-key": key, "Accept": "application/json"},
        follow_redirects=False,
        describe_error=_api_error,
    )
    data = json_body(response, LABEL)
    if not isinstance(data, dict) or not isinstance(data.get("items", []), list):
        raise SearchUnavailable(f"{LABEL} returned JSON without an items list")
    return [
        Item(clean(it.get("title")), str(it.get("link") or ""), clean(it.get("snippet")))
        for it in data.get("items", [])
        if isinstance(it, dict)
    ]


async def _page(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    url = settings.endpoint("google", PAGE_BASE) + "/search"
    response = await get(
        client, url, source=LABEL, params={"q": query, "hl": "en"}, headers=BROWSER_HEADERS
    )
    doc = parse(response)
    root = first(doc, "//*[@id='rso']", "//*[@id='search']", "//*[@id='main']")
    items: list[Item] = []
    if root is not None:
        for h3 in root.xpath(".//a[@href]//h3"):
            link = h3.xpath("ancestor::a[@href][1]")[0]
            items.append(_page_item(link, h3, str(response.url)))
    if not items:
        # The basic (no-script) layout: /url?q=<target> links with BNeawe text blocks.
        for link in doc.xpath("//a[starts-with(@href, '/url?')]"):
            title = first(link, ".//h3", f".//div[{has_class('BNeawe')}]")
            if title is not None:
                items.append(_page_item(link, title, str(response.url)))
    no_match = "did not match any documents" in response.text
    recognised = root is not None or no_match
    items = [i for i in items if i.url and not _is_internal(i.url, str(response.url))]
    return finish(items, recognised, response, LABEL)


def _is_internal(url: str, page_url: str) -> bool:
    """A link back into Google's own search pages (related searches, tabs)."""
    target, page = urlsplit(url), urlsplit(page_url)
    return target.netloc == page.netloc and target.path.endswith("/search")


_SNIPPET_PATHS = (
    f".//div[{has_class('VwiC3b')}]",
    ".//*[@data-sncf]//div",
    f".//div[{has_class('s3v9rd')}]",
)
_BLOCK_CLASSES = frozenset({"g", "MjjYud", "tF2Cxc", "Gx5Zad"})


def _page_item(link: Element, title: Element, page_url: str) -> Item:
    href = unwrap(urljoin(page_url, str(link.get("href", ""))))
    title_text = text_of(title)
    block = _result_block(link)
    snippet = text_of(first(block, *_SNIPPET_PATHS)) if block is not None else ""
    return Item(title_text, href, snippet)


def _result_block(link: Element) -> Element | None:
    """The nearest ancestor holding one whole result (title link plus snippet)."""
    for parent in link.iterancestors():
        classes = (parent.get("class") or "").split()
        if _BLOCK_CLASSES.intersection(classes):
            return parent
        if parent.get("id") in ("rso", "search", "main"):
            return None
    return None


def unwrap(href: str) -> str:
    """The target of a Google ``/url?q=`` (or ``url=``) redirect link; other links unchanged."""
    parts = urlsplit(href)
    if parts.path.endswith("/url"):
        params = parse_qs(parts.query)
        for name in ("q", "url"):
            target = params.get(name, [""])[0]
            if target.startswith(("http://", "https://")):
                return target
    return href


async def search_google(query: str, settings: object = None) -> ToolResponse:
    """Search the web with Google; returns a YAML list of results (title, url, snippet, source).

    Good for general web pages in any language. At most 10 results, snippets shortened,
    duplicate pages removed. If the answer says the source is unavailable (Google often
    blocks automated searches), use search_bing or another search tool instead.

    Args:
        query (str): Words to search for, as typed into Google, e.g. "agentscope MsgHub
            example". Operators work: site:example.com, "exact phrase", -excluded.
    """
    return await run_source("search_google", search, query, settings)


SOURCE = Source("google", search_google, "Search Google")
