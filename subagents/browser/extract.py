"""HTML → Markdown: trafilatura first, markdownify of the cleaned HTML as the fallback.

The page's own date (published or last updated) is read from its markup by htmldate,
when the page gives one (see :func:`page_date`).

trafilatura, htmldate and markdownify are imported where a page is extracted, in the page workers
(whose fork server loads them once, see :mod:`.workers`): the run's own process, which
hands pages over and reads :class:`Extracted` results, does not import them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import lxml.etree
import lxml.html

#: Tags removed before the markdownify fallback: boilerplate and non-text content.
BOILERPLATE_TAGS = (
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "header",
    "footer",
    "aside",
    "svg",
    "iframe",
)

#: Below this, trafilatura has usually fallen back to raw text (boilerplate in, links out).
MIN_TRAFILATURA_CHARS = 200

_BLANK_LINES = re.compile(r"\n{3,}")
_SPACES = re.compile(r"[ \t\u00a0]+")


@dataclass(frozen=True)
class Extracted:
    """The Markdown of a page and what the quality gate needs to judge it."""

    markdown: str
    title: str
    extractor: str
    visible_chars: int
    script_chars: int
    #: the page's own date, published or last updated (ISO 8601; "" when it gives none)
    published: str = ""


def _tidy(text: str) -> str:
    lines = [_SPACES.sub(" ", line).rstrip() for line in text.replace("\r", "").split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


#: Text under these elements is not visible on the page.
_VISIBLE_TEXT = lxml.etree.XPath(
    ".//text()[not(ancestor::script or ancestor::style or ancestor::noscript"
    " or ancestor::template)]",
    smart_strings=False,
)


def parse_html(html: str) -> lxml.html.HtmlElement | None:
    """The document tree of ``html`` as trafilatura builds it, or None when there is none.

    This is the one parse of a page: links are resolved, the quality gate's figures are
    read and trafilatura extracts from this same tree (it works on a copy).
    """
    import trafilatura

    try:
        return trafilatura.load_html(html)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return None


def _inspect(tree: lxml.html.HtmlElement) -> tuple[str, int, int]:
    """Title, characters of visible body text and characters of inline script.

    The tree is only read, so it can still be handed to trafilatura afterwards.
    """
    title = " ".join((tree.findtext(".//title") or "").split())
    script_chars = sum(len(s.text or "") for s in tree.iter("script"))
    body = tree.find("body")
    text = "".join(_VISIBLE_TEXT(body)) if body is not None else ""
    return title, len(" ".join(text.split())), script_chars


def markdownify_clean(html: str) -> str:
    """Markdown of ``html`` after removing script, style, nav, header, footer and aside."""
    from bs4 import BeautifulSoup
    from markdownify import markdownify

    soup = BeautifulSoup(html, "lxml")
    for tag in soup.find_all(BOILERPLATE_TAGS):
        tag.decompose()
    root = soup.body or soup
    return _tidy(markdownify(str(root), heading_style="ATX", strip=["img"]))


#: Link prefixes that are already absolute (the common case, left as they are).
_ABSOLUTE = ("https://", "http://")


def absolute_links(tree: lxml.html.HtmlElement, url: str) -> None:
    """Make every ``<a href>`` of ``tree`` absolute against the page's URL (and ``<base>``).

    trafilatura resolves relative links against the site root rather than the page, so a
    link ``b.html`` on ``/en/a.html`` would come out as ``/b.html``; resolving first keeps
    it ``/en/b.html``. Only anchors are resolved: they are the only links the extracted
    text keeps, and leaving images, scripts and styles alone keeps this cheap.
    """
    base = url
    declared = tree.find(".//base[@href]")
    if declared is not None:
        base = _joined(url, declared.get("href", "")) or url
    parts = urlsplit(base)
    origin = f"{parts.scheme}://{parts.netloc}"
    for anchor in tree.iter("a"):
        href = anchor.get("href")
        if href is None or href.startswith(_ABSOLUTE):
            continue
        if href.startswith("/") and not href.startswith("//") and "/." not in href:
            target: str | None = origin + href.strip()  # the common root-relative link
        else:
            target = _joined(base, href)
        if target is not None:
            anchor.set("href", target)


def _joined(base: str, href: str) -> str | None:
    try:
        return urljoin(base, href.strip())
    except ValueError:  # e.g. an invalid IPv6 literal
        return None


#: Descendants that only a data table's caption or header row has.
_DATA_TABLE_MARKS = lxml.etree.XPath("boolean(.//caption | .//th | .//thead)")


def is_layout_table(table: lxml.html.HtmlElement) -> bool:
    """Whether ``table`` lays out the page rather than holding data.

    A table marked ``role="presentation"``, one that holds another table, or one of a
    single row or a single column is layout, unless it has a caption or header cells.
    """
    if (table.get("role") or "").strip().lower() in ("presentation", "none"):
        return True
    if _DATA_TABLE_MARKS(table):
        return False
    if next(table.iterdescendants("table"), None) is not None:
        return True
    rows = list(table.iterdescendants("tr"))
    widest = max((sum(1 for cell in row if cell.tag in ("td", "th")) for row in rows), default=0)
    return len(rows) <= 1 or widest <= 1


def unwrap_layout_tables(tree: lxml.html.HtmlElement) -> None:
    """Turn layout tables into plain blocks, so their contents are judged paragraph by paragraph.

    trafilatura keeps or drops a table whole; a page laid out in a table would otherwise come
    out as one giant table cell holding the article and its sidebars alike.
    """
    for table in [t for t in tree.iter("table") if is_layout_table(t)]:
        own = [
            element
            for element in table.iterdescendants("tbody", "thead", "tfoot", "tr", "td", "th")
            if next(element.iterancestors("table")) is table
        ]
        for element in [table, *own]:
            element.tag = "div"


def page_date(tree: lxml.html.HtmlElement, url: str | None = None) -> str:
    """The date a page gives itself in its markup (``2025-03-01``): the date it was last
    updated, else published, as its meta tags, structured data, ``<time>`` elements or
    address say, read by htmldate without its extensive search of the text and without
    the network; "" when it gives none or htmldate fails (a date never fails a fetch)."""
    from htmldate import find_date

    try:
        found = find_date(tree, extensive_search=False, url=url)
    except Exception:  # htmldate raises assorted parser errors on broken markup
        return ""
    return found or ""


def html_to_markdown(html: str, url: str | None = None) -> Extracted:
    """Convert a page to Markdown, keeping tables and links (made absolute).

    trafilatura extracts the main content; when it finds little or nothing (None, or under
    MIN_TRAFILATURA_CHARS characters) the cleaned HTML goes through markdownify instead.
    The HTML is parsed once; the tree serves the link resolution, the gate's figures and
    trafilatura. CPU-bound: call it through :func:`.workers.extract_html` from async code.
    """
    import trafilatura

    tree = parse_html(html)
    if tree is None:
        fallback = markdownify_clean(html)
        return Extracted(fallback, "", "markdownify", len(" ".join(fallback.split())), 0)
    unwrap_layout_tables(tree)
    if url:
        absolute_links(tree, url)
    title, visible, script_chars = _inspect(tree)
    published = page_date(tree, url)
    text = None
    try:
        text = trafilatura.extract(
            tree,  # links are absolute already: no url, so trafilatura leaves them be
            output_format="markdown",
            include_tables=True,
            include_links=True,
            include_comments=False,
            deduplicate=False,
        )
    except Exception:  # trafilatura raises assorted parser errors on broken markup
        text = None
    if text and len(text.strip()) >= MIN_TRAFILATURA_CHARS:
        return Extracted(_tidy(text), title, "trafilatura", visible, script_chars, published)
    fallback = markdownify_clean(lxml.html.tostring(tree, encoding="unicode"))
    if fallback or not text:
        return Extracted(fallback, title, "markdownify", visible, script_chars, published)
    return Extracted(_tidy(text), title, "trafilatura", visible, script_chars, published)


def plain_to_markdown(text: str) -> Extracted:
    """Non-HTML text (plain, Markdown, JSON, CSV) is kept as it is."""
    clean = text.replace("\r\n", "\n").strip()
    return Extracted(clean, "", "plain", len(clean), 0)
