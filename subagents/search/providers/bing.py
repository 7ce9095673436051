"""Bing: the Web Search API v7 with ``BING_API_KEY``, else the public results page.

API: ``GET {base}/v7.0/search?q=…&count=10&textFormat=Raw`` with the key in the
``Ocp-Apim-Subscription-Key`` header; results in ``webPages.value[]`` (``name``, ``url``,
``snippet``), ``webPages`` absent when nothing matched, errors as
``{"errors": [{"code", "message"}]}``. Page: ``GET {base}/search?q=…``; each organic
result is ``li.b_algo`` in ``ol#b_results`` with the title link in ``h2 a`` and the
snippet in ``.b_caption p``; links may be ``/ck/a?…&u=a1<base64url>`` click-tracking
redirects, decoded here. ``QUARTET_BING_URL`` replaces the base of both.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx

from ...settings import ToolSettings
from ..http import BROWSER_HEADERS, SearchUnavailable, get, json_body
from ..render import MAX_RESULTS, Item, clean
from ..run import run_source
from ..sources import Source
from ._html import finish, first, has_class, parse, text_of

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

#: How messages name the source.
LABEL = "Bing"
API_BASE = "https://api.bing.microsoft.com"
PAGE_BASE = "https://www.bing.com"


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """Search with the v7 API when a key is set, else the results page."""
    key = settings.keys.get_key("BING_API_KEY")
    if key:
        return await _api(client, query, key, settings)
    return await _page(client, query, settings)


def _api_error(response: httpx.Response) -> str | None:
    errors = response.json().get("errors") or []
    if errors and isinstance(errors[0], dict):
        return errors[0].get("message") or errors[0].get("code")
    return None


async def _api(
    client: httpx.AsyncClient, query: str, key: str, settings: ToolSettings
) -> list[Item]:
    url = settings.endpoint("bing", API_BASE) + "/v7.0/search"
    response = await get(
        client,
        url,
        source=LABEL,
        params={"q": query, "count": MAX_RESULTS, "textFormat": "Raw"},
        headers={"Ocp-Apim-Subscription-Key": key, "Accept": "application/json"},
        follow_redirects=False,
        describe_error=_api_error,
    )
    data = json_body(response, LABEL)
    if not isinstance(data, dict) or data.get("_type") == "ErrorResponse":
        raise SearchUnavailable(f"{LABEL} returned an error response instead of results")
    pages = data.get("webPages") or {}
    values = pages.get("value", []) if isinstance(pages, dict) else None
    if not isinstance(values, list):
        raise SearchUnavailable(f"{LABEL} returned JSON without a webPages.value list")
    return [
        Item(clean(v.get("name")), str(v.get("url") or ""), clean(v.get("snippet")))
        for v in values
        if isinstance(v, dict)
    ]


async def _page(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    url = settings.endpoint("bing", PAGE_BASE) + "/search"
    response = await get(client, url, source=LABEL, params={"q": query}, headers=BROWSER_HEADERS)
    doc = parse(response)
    results = first(doc, "//*[@id='b_results']")
    items: list[Item] = []
    for algo in doc.xpath(f"//li[{has_class('b_algo')}]"):
        link = first(algo, ".//h2//a[@href]")
        if link is None:
            continue
        caption = first(
            algo, f".//*[{has_class('b_caption')}]//p", f".//p[{has_class('b_lineclamp2')}]"
        )
        if caption is not None:
            for icon in caption.xpath(
                f".//*[{has_class('algoSlug_icon')} or {has_class('news_dt')}]"
            ):
                icon.drop_tree()
        href = unwrap(urljoin(str(response.url), str(link.get("href", ""))))
        items.append(Item(text_of(link), href, text_of(caption)))
    return finish(items, results is not None, response, LABEL)


def unwrap(href: str) -> str:
    """The target of a Bing ``/ck/a?…&u=a1<base64url>`` link; other links unchanged."""
    parts = urlsplit(href)
    if not parts.path.endswith("/ck/a"):
        return href
    encoded = parse_qs(parts.query).get("u", [""])[0]
    if not encoded.startswith("a1"):
        return href
    payload = encoded[2:]
    try:
        target = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return href
    return target if target.startswith(("http://", "https://")) else href


async def search_bing(query: str, settings: object = None) -> ToolResponse:
    """Search the web with Bing; returns a YAML list of results (title, url, snippet, source).

    Good for general and English-language web pages. At most 10 results, snippets
    shortened, duplicate pages removed. If the source is unavailable, try another search tool.

    Args:
        query (str): Words to search for, as typed into Bing, e.g. "python asyncio timeout
            best practices". Operators work: site:example.com, "exact phrase", -excluded.
    """
    return await run_source("search_bing", search, query, settings)


SOURCE = Source("bing", search_bing, "Search Bing")
