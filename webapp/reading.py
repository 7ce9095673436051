"""A run's report and stored pages as parts of the app's own pages.

The report's HTML is shown inline in the run page and a stored page in a side panel, so
both follow the app's theme. Neither is trusted: each is cut down to an allow-list of
tags, attributes and classes by ``nh3`` (the Ammonia sanitiser) before it reaches a
page, and the page's Content-Security-Policy (no inline script, no inline style) holds
for them as for the rest of the app. A report's charts (inline SVG drawn with inline
styles) become images (``data:`` URLs), in which no script ever runs.
"""

from __future__ import annotations

import base64
import html
import posixpath
import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

import lxml.etree
import lxml.html
import nh3
from markdown_it import MarkdownIt

from subagents.generate.notes import parser

from .documents import Quoted, laid_out, link_citations

#: What every id of a report shown in a page starts with (no clash with the page's own).
ID_PREFIX = "r-"
#: Where the quoted span starts and ends in a stored page's Markdown (private-use
#: characters, taken out of the page's own text first).
OPEN, CLOSE = "\ue000", "\ue001"
_SENTINELS = re.compile(f"[{OPEN}{CLOSE}]|%EE%80%8[01]", re.IGNORECASE)
#: A tag of markdown-it's output: its text has every ``<`` and ``>`` escaped.
_TAG = re.compile(r"(<[^<>]*>)")
#: Block syntax at the start of a line (heading, quote, list item) a span may begin with.
_BLOCK_START = re.compile(r"(?:[ \t]*(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+))*")
_HEADING = re.compile(r"<(/?)h([1-6])>")
SVG = "{http://www.w3.org/2000/svg}svg"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The report's own classes, the only ones kept (the app's classes are not given to it).
REPORT_CLASSES = _names(
    "cite swipe table-note table scroll label chart chart-title status loc described qn "
    "quote src-url src-path src-title sep src-stored src-fetched source quotes sources "
    "source-list "
    "summary colophon open-quote num wide short part other disagreements not_found appendix"
)
TEXT_TAGS = _names(
    "p br hr em strong b i u s del ins sub sup small mark code pre kbd samp q abbr blockquote "
    "ul ol li dl dt dd span div h2 h3 h4 h5 h6 table thead tbody tfoot tr th td caption a"
)
REPORT_TAGS = TEXT_TAGS | {"section", "footer", "figure", "figcaption", "img"}
#: Tags dropped with all they hold (the rest not allowed keep their text).
DROPPED = _names(
    "script style svg math template noscript iframe frame frameset object embed applet "
    "textarea select button form title head canvas audio video"
)
ATTRIBUTES = {
    "*": {"lang", "dir", "title"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "th": {"scope", "colspan", "rowspan"},
    "td": {"colspan", "rowspan"},
    "div": {"aria-label"},
    "ol": {"start"},
}
#: Attributes kept only with one of these values.
ATTRIBUTE_VALUES = {
    "div": {"role": {"region"}, "tabindex": {"0"}},
    "p": {"aria-hidden": {"true"}},
    "span": {"aria-hidden": {"true"}},
}
#: Where a chart image may come from: itself, as a ``data:`` URL.
CHART_IMAGE = re.compile(r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]+")
#: The most Markdown syntax of a stored page rendered: its lines, and the characters
#: that open inline syntax, each of which markdown-it may make a token or more of (about
#: two kilobytes apiece with what follows; a crafted page of a megabyte, one list item a
#: line, held half a gigabyte). A page with more is shown as its text.
MAX_MARKUP = 40_000
#: The characters :data:`MAX_MARKUP` counts.
MARKUP = "\n[*_`<!&\\~|"


@dataclass(frozen=True)
class InlineReport:
    """A report ready to be placed in a page.

    Attributes:
        body: the report's sanitised HTML, without its title (the page shows the question).
        lang: the report's language (``lang`` of its ``<html>``), or "".
        too_large: the report has more tags than a page lays out (see
            :func:`webapp.documents.laid_out`): it is not shown, only offered.
    """

    body: str
    lang: str
    too_large: bool = False


def inline_report(source: str, run_id: str, address: str) -> InlineReport | None:
    """The body of a run's HTML report, sanitised for the run page.

    Its title is dropped and its headings go one level down (under the page's
    "Report"); citations lead to the quoted spans (see :func:`link_citations`), links
    relative to the report to where the app serves them, ids are prefixed with
    :data:`ID_PREFIX` (and the links to them), and charts become images.

    Args:
        source: the report file's text.
        run_id: the run's id.
        address: where the app serves the report (``/runs/<id>/workspace/reports/x.html``).

    Returns:
        The report (with ``too_large`` and no body when it has too many tags to lay
        out), or None when the file holds no HTML.
    """
    if not laid_out(source):
        return InlineReport(body="", lang="", too_large=True)
    try:
        doc = lxml.html.document_fromstring(source)
    except (lxml.etree.ParserError, ValueError):
        return None
    link_citations(doc, run_id)
    root = next(iter(doc.xpath('//main[contains(concat(" ", @class, " "), " report ")]')), None)
    root = root if root is not None else doc.find("body")
    if root is None:
        return None
    _charts_as_images(root, _svg_sources(source))
    for title in root.xpath(".//h1")[:1]:
        title.drop_tree()
    _demote_headings(root)
    _prefix_ids(root)
    _absolute_links(root, address)
    inner = html.escape(root.text or "", quote=False) + "".join(
        lxml.html.tostring(child, encoding="unicode") for child in root
    )
    lang = doc.get("lang") or ""
    return InlineReport(body=sanitise(inner, report=True), lang=lang if _is_lang(lang) else "")


def _is_lang(tag: str) -> bool:
    return re.fullmatch(r"[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*", tag) is not None


def _svg_sources(source: str) -> list[str]:
    """Each ``<svg>…</svg>`` of the report's text, as written (the HTML parser changes
    the case of SVG's names, ``viewBox`` and ``clipPath``, which an image needs)."""
    found, at = [], 0
    while (start := source.find("<svg", at)) >= 0:
        end = source.find("</svg>", start)
        if end < 0:
            break
        found.append(source[start : end + len("</svg>")])
        at = end + len("</svg>")
    return found


def _charts_as_images(root: lxml.html.HtmlElement, sources: list[str]) -> None:
    """Each ``<svg>`` under ``root`` replaced with an image of its text (its n-th in the
    file), named by its ``aria-label``; one whose text is no SVG document is dropped."""
    for n, svg in enumerate(root.xpath(".//svg")):
        data = _svg_data_url(sources[n]) if n < len(sources) else None
        if data is None:
            svg.drop_tree()
            continue
        image = lxml.html.Element(
            "img", {"src": data, "alt": svg.get("aria-label") or "Chart", "class": "chart"}
        )
        image.tail = svg.tail
        svg.getparent().replace(svg, image)


def _svg_data_url(text: str) -> str | None:
    """``text`` as a ``data:`` URL when it is an SVG document, else None."""
    try:
        parsed = lxml.etree.fromstring(
            text.encode(), lxml.etree.XMLParser(resolve_entities=False, no_network=True)
        )
    except lxml.etree.XMLSyntaxError:
        return None
    if parsed.tag != SVG:
        return None
    return "data:image/svg+xml;base64," + base64.b64encode(text.encode()).decode()


def _demote_headings(root: lxml.html.HtmlElement) -> None:
    for heading in root.xpath(".//h1|.//h2|.//h3|.//h4|.//h5"):
        heading.tag = f"h{int(heading.tag[1]) + 1}"


def _prefix_ids(root: lxml.html.HtmlElement) -> None:
    """Every id under ``root`` and every link to one start with :data:`ID_PREFIX`."""
    for element in root.xpath(".//*[@id]"):
        element.set("id", ID_PREFIX + element.get("id"))
    for link in root.xpath('.//a[starts-with(@href, "#")]'):
        link.set("href", "#" + ID_PREFIX + link.get("href")[1:])


def _absolute_links(root: lxml.html.HtmlElement, address: str) -> None:
    """Links and images relative to the report made to lead where the app serves them."""
    folder = posixpath.dirname(address)
    for element, name in [(a, "href") for a in root.xpath(".//a[@href]")] + [
        (i, "src") for i in root.xpath(".//img[@src]")
    ]:
        value = element.get(name).strip()
        parts = urlsplit(value)
        if value and not (parts.scheme or parts.netloc or value.startswith(("/", "#"))):
            path = posixpath.normpath(posixpath.join(folder, parts.path))
            element.set(name, path + (f"#{parts.fragment}" if parts.fragment else ""))


def sanitise(fragment: str, report: bool = False) -> str:
    """``fragment`` cut down to the allow-list: text tags (and, for a report, its
    sections, figures and chart images), their harmless attributes, links to http(s),
    mailto or this app; every script, style and event handler gone.

    Args:
        fragment: HTML to be placed in a page.
        report: whether it is a report (its ids, classes and images kept) rather than a
            stored page.
    """
    attributes = {tag: set(names) for tag, names in ATTRIBUTES.items()}
    if report:
        attributes["*"].add("id")
    tags = REPORT_TAGS if report else TEXT_TAGS
    return nh3.clean(
        fragment,
        tags=set(tags),
        clean_content_tags=set(DROPPED),
        attributes=attributes,
        tag_attribute_values={
            tag: {name: set(values) for name, values in kept.items()}
            for tag, kept in ATTRIBUTE_VALUES.items()
        },
        allowed_classes={tag: set(REPORT_CLASSES) for tag in tags} if report else {},
        attribute_filter=_keep_report if report else _keep_stored,
        url_schemes={"http", "https", "mailto", "data"},
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def _keep_report(tag: str, name: str, value: str) -> str | None:
    """A report's attribute as kept: its own ids only, ``data:`` only for chart images."""
    if name == "id":
        return value if value.startswith(ID_PREFIX) else None
    return _keep_url(tag, name, value, images=True)


def _keep_stored(tag: str, name: str, value: str) -> str | None:
    """A stored page's attribute as kept: its links lead to the web only."""
    if name == "href" and not value.lower().startswith(("http://", "https://")):
        return None
    return _keep_url(tag, name, value, images=False)


def _keep_url(tag: str, name: str, value: str, images: bool) -> str | None:
    if value.lower().startswith("data:"):
        keep = images and tag == "img" and name == "src" and CHART_IMAGE.fullmatch(value)
        return value if keep else None
    return value


# -- stored pages ---------------------------------------------------------------------


@cache
def markdown() -> MarkdownIt:
    """The report's Markdown parser (raw HTML and images off, tables on), without its
    citation rule: ``[3]`` in a stored page is the page's own text."""
    md = parser()
    md.disable("citation")
    return md


def rendered(text: str) -> str:
    """Markdown as HTML, its headings three levels down (under the panel's title)."""
    out = markdown().render(text)
    return _HEADING.sub(lambda m: f"<{m[1]}h{min(int(m[2]) + 2, 6)}>", out)


def renderable(text: str) -> bool:
    """Whether the Markdown ``text`` is rendered: it has at most :data:`MAX_MARKUP` of
    the lines and characters that make markdown-it's tokens."""
    return sum(text.count(c) for c in MARKUP) <= MAX_MARKUP


def stored_text(text: str) -> str:
    """A stored page (Markdown) as the panel shows it, sanitised: rendered, or as its
    text when it has more syntax than is rendered (see :func:`renderable`)."""
    if renderable(text):
        return sanitise(rendered(text))
    return sanitise(f'<pre class="page">{html.escape(text)}</pre>')


def stored_page(quote: Quoted) -> str:
    """The stored page of a quote rendered from its Markdown, the quoted span marked
    (``<mark>``, one for each run of text it covers), sanitised.

    A span whose ends fall inside Markdown syntax (a link's address) cannot be marked
    in the rendered page, nor is a page with more syntax than is rendered (see
    :func:`renderable`): the page is then shown as its text, the span marked.
    """
    before, span, after = (_SENTINELS.sub("", p) for p in (quote.before, quote.span, quote.after))
    if not renderable(before + span + after):
        return _as_text(before, span, after)
    if not span.strip():
        return sanitise(rendered(before + span + after))
    if not before or before.endswith("\n"):
        lead = _BLOCK_START.match(span)
        cut = lead.end() if lead else 0
        before, span = before + span[:cut], span[cut:]
    marked, whole = _marked(rendered(before + OPEN + span + CLOSE + after))
    if whole:
        return sanitise(marked)
    return _as_text(before, span, after)


def _as_text(before: str, span: str, after: str) -> str:
    """A stored page shown as its text, the span marked, sanitised."""
    text = f"{html.escape(before)}<mark>{html.escape(span)}</mark>{html.escape(after)}"
    return sanitise(f'<pre class="page">{text}</pre>')


def _marked(out: str) -> tuple[str, bool]:
    """markdown-it's output with each run of text between :data:`OPEN` and
    :data:`CLOSE` wrapped in ``<mark>``; whether both were found in its text.

    Marks wrap text only, never a tag, so they nest wherever the text stands; a
    sentinel inside a tag (an address) is removed."""
    parts: list[str] = []
    inside = opened = closed = False
    for piece in _TAG.split(out):
        if piece.startswith("<"):
            parts.append(_SENTINELS.sub("", piece))
            continue
        for bit in re.split(f"([{OPEN}{CLOSE}])", piece):
            if bit in (OPEN, CLOSE):
                inside, opened, closed = bit == OPEN, opened or bit == OPEN, closed or bit == CLOSE
            elif inside and bit.strip():
                parts.append(f"<mark>{bit}</mark>")
            else:
                parts.append(bit)
    return "".join(parts), opened and closed
