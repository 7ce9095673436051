"""PDF rendering (weasyprint, from the report's HTML), and the generate_pdf tool.

weasyprint lays the self-contained HTML out on A4 pages using its ``@page`` and print
rules; fonts come from fontconfig through the CSS font stack, which names Noto Sans CJK
SC and WenQuanYi Zen Hei so Chinese text gets real glyphs. The URL fetcher refuses every
fetch: the document references nothing outside itself, and a report never reaches out.

:data:`PRINT_CSS` adds what only paper needs: page numbers ("2 / 5") at the foot of each
page, a table's notes and caption kept on the page of its table's last rows, and short cells
(``td.short``, a name such as 通惠河) that do not wrap, so a wide column of notes beside
them cannot squeeze them to one character a line.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import OrderedDict
from concurrent.futures import Future

from .formats import Format
from .html import render_html
from .kept import PDF_LIBRARIES, digest_of, drawn_once, rendering_key
from .report import Report
from .weasy import weasyprint

#: Print rules for the PDF alone, on top of the report's own stylesheet.
PRINT_CSS = """
@page{@bottom-center{content:counter(page) " / " counter(pages);
 font-family:"DejaVu Sans","Noto Sans CJK SC",sans-serif;font-size:8pt;color:#555f6a}}
figure.table figcaption,figure.table p.table-note{break-before:avoid;page-break-before:avoid}
td.short{white-space:nowrap}
"""


def _no_fetch():
    weasyprint()
    from weasyprint.urls import URLFetcher, URLFetchingError

    class NoFetch(URLFetcher):
        """Refuses every URL: a report's PDF is made from its own HTML alone."""

        def fetch(self, url, headers=None):
            raise URLFetchingError(f"fetching {url} is not allowed while rendering a report")

    return NoFetch()


def _layout(html: str):
    """An HTML report laid out on A4 pages (a weasyprint ``Document``: its ``pages``,
    and ``write_pdf()`` for the file)."""
    weasy = weasyprint()
    CSS, WeasyHTML = weasy.CSS, weasy.HTML
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    page = WeasyHTML(string=html, url_fetcher=_no_fetch())
    return page.render(stylesheets=[CSS(string=PRINT_CSS, url_fetcher=_no_fetch())])


#: The latest layouts, by their HTML's digest (see :func:`_laid_out`); a run's formats
#: are written from one report, so it is laid out once for all of them.
LAYOUTS_KEPT = 2
_layouts: OrderedDict[str, Future] = OrderedDict()
_layouts_lock = threading.Lock()


def _laid_out(html: str):
    """:func:`_layout` of ``html``, shared: the formats of one report, written at once in
    threads of their own, wait for one layout rather than each making its own."""
    key = hashlib.sha256(html.encode("utf-8")).hexdigest()
    with _layouts_lock:
        known = _layouts.get(key)
        if known is None:
            known = _layouts[key] = Future()
            while len(_layouts) > LAYOUTS_KEPT:
                _layouts.popitem(last=False)
            mine = True
        else:
            _layouts.move_to_end(key)
            mine = False
    if mine:
        try:
            known.set_result(_layout(html))
        except Exception as exc:
            known.set_exception(exc)
            with _layouts_lock:
                _layouts.pop(key, None)
    return known.result()


#: The project's modules a PDF is drawn by (its print rules, the weasyprint loader).
PDF_CODE = ("subagents.generate.pdf", "subagents.generate.weasy")


def _pdf_key(what: str, html: str) -> str:
    return rendering_key(what, digest_of(html), PDF_CODE, PDF_LIBRARIES)


def printed_pages(report: Report) -> int:
    """How many A4 pages the report's PDF takes (see :func:`printed_length`)."""
    return math.ceil(printed_length(report))


def printed_length(report: Report) -> float:
    """How long the report's PDF is, in A4 pages: its full pages and the share of its last
    page's height the last page fills (the figure kept by the run's page cache for the
    same HTML, see :mod:`.kept`). A report one line over its pages is told from one a
    page over."""
    html = render_html(report)
    length = drawn_once(_pdf_key("length", html), lambda: b"%.4f" % _length(_laid_out(html)))
    return float(length)


def _length(document) -> float:
    """The pages of a laid-out weasyprint ``Document``, its last one by the share of its
    content height the boxes on it fill."""
    pages = document.pages
    if not pages:
        return 0.0
    from weasyprint.formatting_structure.boxes import MarginBox

    box = pages[-1]._page_box
    top, height = box.content_box_y(), box.height
    bottom = top
    # the page's content, not its margin boxes (the page number at its foot)
    stack = [child for child in box.children if not isinstance(child, MarginBox)]
    while stack:
        child = stack.pop()
        bottom = max(bottom, child.position_y + child.margin_height())
        stack.extend(getattr(child, "children", ()) or ())
    share = (bottom - top) / height if height else 1.0
    return len(pages) - 1 + min(1.0, max(share, 0.01))


def render_pdf(report: Report) -> bytes:
    """The report as PDF bytes (those the run's page cache keeps for the same HTML, see
    :mod:`.kept`)."""
    html = render_html(report)
    return drawn_once(_pdf_key("pdf", html), lambda: _laid_out(html).write_pdf())


PDF = Format("PDF", (".pdf",), lambda r, _stem: render_pdf(r))
