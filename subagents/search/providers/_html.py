"""Small helpers shared by the results-page parsers (lxml: fast and tolerant of broken markup)."""

from __future__ import annotations

import httpx
from lxml import etree
from lxml import html as lxml_html

from ..http import SearchUnavailable, blocked_page
from ..render import Item, clean

Element = lxml_html.HtmlElement

_BLOCKS = ("address", "article", "br", "dd", "div", "dt", "h1", "h2", "h3", "h4", "li", "p", "td")


def parse(response: httpx.Response) -> Element:
    """The page's document tree (an empty document for an empty body)."""
    body = response.text
    try:
        return lxml_html.document_fromstring(body) if body.strip() else _empty()
    except (etree.ParserError, ValueError):
        return _empty()


def _empty() -> Element:
    return lxml_html.document_fromstring("<html><body></body></html>")


def has_class(name: str) -> str:
    """An XPath test for an element whose class list holds ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def first(node: Element, *paths: str) -> Element | None:
    """The first element the first matching XPath finds under ``node``, or None."""
    for path in paths:
        found = node.xpath(path)
        if found:
            return found[0]
    return None


def text_of(node: Element | None) -> str:
    """The visible text of ``node``: inline markup joined as is, blocks separated by a space."""
    if node is None:
        return ""
    for block in node.iter(*_BLOCKS):
        block.tail = " " + (block.tail or "")
    text = etree.tostring(node, method="text", encoding="unicode", with_tail=False)
    return clean(text)


def finish(
    items: list[Item], recognised: bool, response: httpx.Response, source: str
) -> list[Item]:
    """Items if any; else an empty list for a real no-results page; else SearchUnavailable."""
    if items:
        return items
    kind = blocked_page(str(response.url), response.text)
    if kind:
        raise SearchUnavailable(f"{source} returned {kind} instead of results")
    if not recognised:
        raise SearchUnavailable(
            f"{source} returned a page that is not a results page (its markup may have changed)"
        )
    return []
