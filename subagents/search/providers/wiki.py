"""MediaWiki: full-text search with intro extracts, Wikipedia by default.

One ``GET <api.php>?action=query&format=json&formatversion=2`` combines
``generator=search`` (pages with ``prop=extracts|info``: ``exintro``, ``explaintext``,
``inprop=url`` give ``extract`` and ``fullurl``; ``index`` gives the rank) and
``list=search`` (``query.search[].snippet``, used when a wiki lacks the TextExtracts
extension). No ``query`` key means no match; ``{"error": {"code", "info"}}`` is a refusal.

The API is ``https://<lang>.wikipedia.org/w/api.php`` with ``QUARTET_WIKI_LANG`` (default
``en``; ``zh`` and every other Wikipedia work). ``QUARTET_WIKI_URL`` replaces the site: a
value ending in ``.php`` is used as the API endpoint itself, any other value gets
``/w/api.php`` appended; ``{lang}`` in it is replaced by the language.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING
from urllib.parse import quote

import httpx

from ...settings import ToolSettings
from ..http import SearchUnavailable, get, json_body
from ..render import MAX_RESULTS, Item, clean
from ..run import run_source
from ..sources import Source

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

#: How messages name the source.
LABEL = "Wikipedia"
SITE = "https://{lang}.wikipedia.org"
_TAG = re.compile(r"<[^>]*>")


def api_url(settings: ToolSettings) -> tuple[str, str]:
    """``(api endpoint, site base)`` for the configured wiki."""
    lang = settings.wiki_lang
    base = settings.endpoint("wiki", SITE).replace("{lang}", lang)
    if not base.endswith(".php"):
        return base + "/w/api.php", base
    if base.endswith("/w/api.php"):
        return base, base.removesuffix("/w/api.php")
    return base, base.rsplit("/", 1)[0]


def _api_error(response: httpx.Response) -> str | None:
    error = response.json().get("error") or {}
    return error.get("info") if isinstance(error, dict) else None


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """Search the wiki and return its best pages with their intro text."""
    try:
        endpoint, site = api_url(settings)
    except ValueError as exc:
        raise SearchUnavailable(str(exc)) from None
    params = {
        "action": "query",
        "format": "json",
        "formatversion": "2",
        "utf8": "1",
        "generator": "search",
        "gsrsearch": query,
        "gsrlimit": str(MAX_RESULTS),
        "gsrnamespace": "0",
        "prop": "extracts|info",
        "exintro": "1",
        "explaintext": "1",
        "exlimit": "max",
        "inprop": "url",
        "list": "search",
        "srsearch": query,
        "srlimit": str(MAX_RESULTS),
        "srnamespace": "0",
        "srprop": "snippet",
    }
    response = await get(client, endpoint, source=LABEL, params=params, describe_error=_api_error)
    data = json_body(response, LABEL)
    if not isinstance(data, dict):
        raise SearchUnavailable(f"{LABEL} returned JSON that is not an object")
    if isinstance(data.get("error"), dict):
        info = clean(str(data["error"].get("info") or data["error"].get("code") or ""))
        raise SearchUnavailable(f"{LABEL} refused the search: {info[:200]}")
    result = data.get("query")
    if result is None:
        return []
    if not isinstance(result, dict):
        raise SearchUnavailable(f"{LABEL} returned a malformed query object")
    pages = result.get("pages", [])
    if isinstance(pages, dict):  # formatversion=1 keys pages by id
        pages = list(pages.values())
    hits = result.get("search", [])
    if not isinstance(pages, list) or not isinstance(hits, list):
        raise SearchUnavailable(f"{LABEL} returned malformed pages or search lists")
    snippets = {
        h.get("title"): clean(html.unescape(_TAG.sub("", str(h.get("snippet", "")))))
        for h in hits
        if isinstance(h, dict)
    }
    pages = [p for p in pages if isinstance(p, dict) and "missing" not in p and p.get("title")]
    if not pages:  # no TextExtracts/generator support: fall back to list=search alone
        pages = [{"title": t, "index": i} for i, t in enumerate(snippets)]
    pages.sort(key=lambda p: p.get("index", 1_000_000))
    return [
        Item(
            clean(p["title"]),
            str(p.get("fullurl") or p.get("canonicalurl") or _page_url(site, p["title"])),
            clean(p.get("extract")) or snippets.get(p["title"], ""),
        )
        for p in pages
    ]


def _page_url(site: str, title: str) -> str:
    return f"{site}/wiki/{quote(title.replace(' ', '_'))}"


async def search_wiki(query: str, settings: object = None) -> ToolResponse:
    """Search Wikipedia or the configured wiki; returns a YAML list (title, url, snippet, source).

    The snippet is the start of each article's introduction, so it often answers
    definitional questions directly. Best for encyclopedic facts: people, places,
    concepts, events. At most 10 articles.

    Args:
        query (str): Topic words to look up, e.g. "Transformer (machine learning)" or
            "长江三角洲". Short noun phrases work best.
    """
    return await run_source("search_wiki", search, query, settings)


SOURCE = Source("wiki", search_wiki, "Search Wikipedia")
