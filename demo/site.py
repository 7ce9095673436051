"""The bundled demo web: pages and documents on China's Grand Canal, served on 127.0.0.1.

``build_site`` renders the Markdown pages under ``content/`` into a small static site (every
page wrapped in the same header, navigation, sidebar and footer) and generates the linked
documents with the real libraries: a PDF report in English and one in Chinese (weasyprint),
an XLSX workbook (openpyxl), a UTF-8 CSV and a PPTX deck (python-pptx). ``serve_site``
serves the folder from a ``ThreadingHTTPServer`` bound to 127.0.0.1 on a free port, with a
301 redirect from an old address and one page whose text only appears once its script runs.
``write_sample_inputs`` writes the files a user would put in the input folder.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import yaml
from lxml import html as lxml_html
from markdown_it import MarkdownIt

from subagents.generate.weasy import weasyprint

from .search_web import POLL_SECONDS

CONTENT = Path(__file__).parent / "content"
SITE_NAME = "Grand Canal Atlas"
SITE_NAME_ZH = "大运河图志"
CJK_FONTS = '"WenQuanYi Zen Hei", "Noto Sans CJK SC", sans-serif'
IMAGE_FONTS = (
    Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
)

DEMO_QUESTION = (
    "How was China's Beijing-Hangzhou Grand Canal built and kept supplied with water, "
    "why did it decline, and what role does it play today?"
)
DEMO_QUESTION_ZH = "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"
#: Questions the demo web answers, offered as examples on the web app's start page.
EXAMPLE_QUESTIONS = (
    DEMO_QUESTION,
    "When and by whom was the Grand Canal first built?",
    "How do locks on the Grand Canal work?",
    "What is the difference between a pound lock and a flash lock?",
    DEMO_QUESTION_ZH,
)

#: Old addresses answered with ``301 Moved Permanently``: site path -> new site path.
REDIRECTS = {"en/grand-canal.html": "en/index.html"}

SCRIPT_PAGE_ASSET = "assets/{slug}.js"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".csv": "text/csv; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

NAV = {
    "en": [
        ("Home", "index.html"),
        ("History", "sui-dynasty.html"),
        ("Engineering", "locks-and-gates.html"),
        ("Economy", "grain-tribute.html"),
        ("Today", "unesco-2014.html"),
        ("Documents", "documents.html"),
        ("中文", "../zh/index.html"),
    ],
    "zh": [
        ("首页", "index.html"),
        ("历史", "sui-dynasty.html"),
        ("工程", "huitong-nanwang.html"),
        ("经济", "grain-transport.html"),
        ("今天", "world-heritage.html"),
        ("English", "../en/index.html"),
    ],
}

SECTION_NAMES = {
    "en": {
        "history": "History",
        "engineering": "Engineering",
        "economy": "Economy and cities",
        "today": "The canal today",
        "resources": "Resources",
    },
    "zh": {
        "history": "历史",
        "engineering": "工程",
        "economy": "经济与城市",
        "today": "今天的运河",
        "resources": "资料",
    },
}


@dataclass(frozen=True)
class Page:
    """One HTML page of the demo site.

    Attributes:
        path: Site path relative to the root, e.g. ``en/sui-dynasty.html``.
        lang: ``en`` or ``zh``.
        title: The page title (its ``<h1>``).
        section: The section key (history, engineering, economy, today, resources).
        text: The plain text of the main content, as a reader sees it.
        script_rendered: True when the main text is written into the page by a script.
    """

    path: str
    lang: str
    title: str
    section: str
    text: str
    script_rendered: bool = False


@dataclass(frozen=True)
class Document:
    """One downloadable document of the demo site (PDF, XLSX, CSV or PPTX)."""

    path: str
    title: str
    description: str
    content_type: str
    lang: str = "en"


@dataclass
class SiteIndex:
    """What ``build_site`` produced: the folder, its pages, documents and redirects."""

    folder: Path
    pages: list[Page] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    redirects: dict[str, str] = field(default_factory=dict)

    def page(self, path: str) -> Page:
        """Return the page at a site path such as ``en/index.html``."""
        for page in self.pages:
            if page.path == path:
                return page
        raise KeyError(path)

    def paths(self) -> list[str]:
        """Every page and document path, pages first."""
        return [p.path for p in self.pages] + [d.path for d in self.documents]


@dataclass(frozen=True)
class _Source:
    lang: str
    slug: str
    meta: dict[str, Any]
    body: str

    @property
    def path(self) -> str:
        return f"{self.lang}/{self.slug}.html"


# ---------------------------------------------------------------------------- content


_CJK = "\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef"
#: A wrapped line of Chinese prose: after a Chinese character or mark, before another or
#: a number that does not start a list ("，\n1293年" joins; "\n1. " does not).
_CJK_LINE_BREAK = re.compile(f"(?<=[{_CJK})])\n(?=[*\\[]*[{_CJK}]|\\d+(?!\\d|[.)]\\s))")


def _join_cjk_lines(markdown_text: str) -> str:
    """Join wrapped lines of Chinese prose, which would otherwise render with stray spaces."""
    return _CJK_LINE_BREAK.sub("", markdown_text)


def _read_front_matter(file: Path) -> tuple[dict[str, Any], str]:
    raw = file.read_text(encoding="utf-8")
    if not raw.startswith("---\n"):
        return {}, raw
    head, _, body = raw[4:].partition("\n---\n")
    return yaml.safe_load(head) or {}, _join_cjk_lines(body)


def _load_yaml(name: str) -> Any:
    return yaml.safe_load((CONTENT / name).read_text(encoding="utf-8"))


def _load_sources() -> list[_Source]:
    sources = []
    for lang in ("en", "zh"):
        for file in sorted((CONTENT / lang).glob("*.md")):
            meta, body = _read_front_matter(file)
            sources.append(_Source(lang, file.stem, meta, body))
    sources.sort(key=lambda s: (s.lang, s.meta.get("order", 99), s.slug))
    return sources


def _markdown(*, allow_html: bool = False) -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": allow_html, "typographer": False}).enable("table")


def _plain_text(fragment: str) -> str:
    blocks = []
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for element in root.iter("h1", "h2", "h3", "p", "li", "tr"):
        if element.tag == "tr":
            blocks.append(" | ".join(c.text_content().strip() for c in element))
        elif element.tag == "li" and element.find(".//p") is not None:
            continue
        else:
            blocks.append(" ".join(element.text_content().split()))
    return "\n".join(b for b in blocks if b)


# ---------------------------------------------------------------------------- pages


def _page_shell(
    *,
    lang: str,
    title: str,
    section: str,
    main_html: str,
    aside_html: str,
    counterpart: str | None,
    head_extra: str = "",
) -> str:
    site = SITE_NAME if lang == "en" else SITE_NAME_ZH
    nav = "".join(f'<a href="{href}">{html.escape(label)}</a>' for label, href in NAV[lang])
    home = "首页" if lang == "zh" else "Home"
    crumbs = (
        f'<a href="index.html">{home}</a> › {html.escape(SECTION_NAMES[lang][section])}'
        f" › {html.escape(title)}"
    )
    other = ""
    if counterpart:
        label = "English version" if lang == "zh" else "中文版"
        other = f' · <a class="lang-switch" href="{counterpart}">{label}</a>'
    if lang == "en":
        footer = (
            f"<p>© {SITE_NAME}. A reference site on the history and present of China's "
            'Grand Canal. <a href="documents.html">Documents</a> · '
            '<a href="../index.html">Site map</a> · <a href="../zh/index.html">中文</a></p>'
            "<p>Figures on this site are rounded; sources differ on lengths, dates and "
            "volumes. Accessibility · Privacy · Cookie settings · Contact the editors</p>"
        )
        search = '<form class="search" role="search"><input name="q" placeholder="Search'
        search += ' the atlas"><button>Search</button></form>'
    else:
        footer = (
            f"<p>© {SITE_NAME_ZH}。介绍中国大运河历史与现状的参考网站。"
            '<a href="../index.html">网站地图</a> · <a href="../en/index.html">English</a></p>'
            "<p>本站数字均为约数，不同资料对长度、年代和运量的记载有出入。隐私 · 联系编辑</p>"
        )
        search = '<form class="search" role="search"><input name="q" placeholder="站内搜索">'
        search += "<button>搜索</button></form>"
    return f"""<!DOCTYPE html>
<html lang="{"zh-CN" if lang == "zh" else "en"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} — {site}</title>
<link rel="stylesheet" href="../assets/site.css">
{head_extra}</head>
<body>
<header class="site"><a class="brand" href="../index.html">{site}</a>
<nav class="top">{nav}</nav>{search}</header>
<div class="breadcrumbs">{crumbs}{other}</div>
<div class="layout">
{main_html}
<aside class="related">{aside_html}</aside>
</div>
<footer class="site">{footer}</footer>
</body>
</html>
"""


def _aside(source: _Source, sources: list[_Source], documents: list[dict[str, str]]) -> str:
    zh = source.lang == "zh"
    section = source.meta.get("section")
    same = [s for s in sources if s.lang == source.lang and s != source]
    same = [s for s in same if s.meta.get("section") == section]
    pages = "".join(
        f'<li><a href="{s.slug}.html">{html.escape(s.meta["title"])}</a></li>' for s in same
    )
    docs = "".join(
        f'<li><a href="../{d["path"]}">{html.escape(d["title"])}</a></li>' for d in documents
    )
    return (
        f"<h2>{'相关页面' if zh else 'In this section'}</h2><ul>{pages}</ul>"
        f"<h2>{'资料下载' if zh else 'Downloads'}</h2><ul>{docs}</ul>"
    )


def _dateline(source: _Source) -> str:
    """The line under a page's heading that says when it was published (its front
    matter's ``date``, written in a ``<time datetime>``); "" for a page with no date."""
    day = source.meta.get("date")
    if not day:
        return ""
    shown = (
        f"{day.year}年{day.month}月{day.day}日"
        if source.lang == "zh"
        else day.strftime("%-d %B %Y")
    )
    said = "发布于" if source.lang == "zh" else "Published"
    return f'<p class="dateline"><time datetime="{day.isoformat()}">{said} {shown}</time></p>\n'


def _script_shell(folder: Path, source: _Source, body_html: str) -> tuple[str, str]:
    """Write the page's text into a script asset; return the empty main and the script tag."""
    asset = SCRIPT_PAGE_ASSET.format(slug=source.slug)
    zh = source.lang == "zh"
    notice = "此页面需要 JavaScript。" if zh else "This page needs JavaScript."
    loading = "正在加载…" if zh else "Loading…"
    main_html = (
        f'<main id="app" data-page="{source.slug}"><noscript>{notice}</noscript>'
        f'<p class="loading">{loading}</p></main>'
    )
    article = f"<article><h1>{html.escape(source.meta['title'])}</h1>{body_html}</article>"
    script = (
        "document.addEventListener('DOMContentLoaded', function () {\n"
        f"  document.getElementById('app').innerHTML = {json.dumps(article, ensure_ascii=False)};\n"
        "});\n"
    )
    (folder / asset).write_text(script, encoding="utf-8")
    return main_html, f'<script src="../{asset}" defer></script>\n'


def _render_pages(folder: Path, sources: list[_Source]) -> list[Page]:
    md = _markdown()
    documents = _load_yaml("data/documents.yaml")
    pages = []
    for source in sources:
        body_html = md.render(source.body)
        title = source.meta["title"]
        section = source.meta.get("section", "resources")
        counterpart = source.meta.get("counterpart")
        if counterpart:
            other_lang = "zh" if source.lang == "en" else "en"
            counterpart = f"../{other_lang}/{counterpart}.html"
        scripted = source.meta.get("render") == "script"
        if scripted:
            main_html, head_extra = _script_shell(folder, source, body_html)
        else:
            dateline = _dateline(source)
            main_html = (
                f"<main><article><h1>{html.escape(title)}</h1>\n{dateline}{body_html}"
                "</article></main>"
            )
            head_extra = ""
        if source.meta.get("date"):  # the page's own date, as a news or blog page gives it
            head_extra += (
                f'<meta property="article:published_time" content="{source.meta["date"]}">\n'
            )
        if source.meta.get("description"):
            desc = html.escape(source.meta["description"], quote=True)
            head_extra += f'<meta name="description" content="{desc}">\n'
        page_html = _page_shell(
            lang=source.lang,
            title=title,
            section=section,
            main_html=main_html,
            aside_html=_aside(source, sources, documents),
            counterpart=counterpart,
            head_extra=head_extra,
        )
        (folder / source.path).write_text(page_html, encoding="utf-8")
        text = title + "\n" + _plain_text(body_html)
        pages.append(Page(source.path, source.lang, title, section, text, scripted))
    return pages


def _write_site_map(folder: Path, sources: list[_Source]) -> None:
    parts = [f"<h1>{SITE_NAME} · {SITE_NAME_ZH}</h1>"]
    for lang, heading in (("en", "English"), ("zh", "中文")):
        parts.append(f"<h2>{heading}</h2>")
        for section, name in SECTION_NAMES[lang].items():
            items = [s for s in sources if s.lang == lang and s.meta.get("section") == section]
            if not items:
                continue
            links = "".join(
                f'<li><a href="{s.path}">{html.escape(s.meta["title"])}</a></li>' for s in items
            )
            parts.append(f"<h3>{html.escape(name)}</h3><ul>{links}</ul>")
    body = "\n".join(parts)
    (folder / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{SITE_NAME} — site map</title>"
        '<link rel="stylesheet" href="assets/site.css"></head>'
        f'<body><main class="site-map">{body}</main></body></html>\n',
        encoding="utf-8",
    )


# ---------------------------------------------------------------------------- documents


def _pdf_from_markdown(markdown_text: str, out: Path, *, lang: str, title: str) -> None:
    html_page = weasyprint().HTML

    body = _markdown(allow_html=True).render(_join_cjk_lines(markdown_text))
    css = (
        "@page { size: A4; margin: 2cm; @bottom-center { content: counter(page); "
        "font-size: 9pt; } }"
        f"body {{ font-family: {CJK_FONTS}; font-size: 11pt; line-height: 1.5; }}"
        "h1 { font-size: 20pt; } h2 { font-size: 14pt; margin-top: 1.2em; }"
        "table { border-collapse: collapse; width: 100%; font-size: 9.5pt; }"
        "th, td { border: 1px solid #888; padding: 3px 6px; text-align: left; }"
        "h2.break { page-break-before: always; }"
    )
    document = (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{css}</style></head>"
        f"<body>{body}</body></html>"
    )
    html_page(string=document).write_pdf(out)


def _style_sheet(sheet: Any, widths: tuple[int, ...]) -> None:
    """Bold the header row and set the column widths, from column A on."""
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for index, width in enumerate(widths, start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width


def _write_sections_xlsx(out: Path) -> None:
    from openpyxl import Workbook

    data = _load_yaml("data/sections.yaml")
    book = Workbook()
    sheet = book.active
    sheet.title = "Sections"
    header = ["Section", "Chinese name", "From", "To", "Low (km)", "High (km)", "Notes"]
    sheet.append(header)
    for row in data["sections"]:
        sheet.append(
            [row["name"], row["zh"], row["from"], row["to"], row["low"], row["high"], row["notes"]]
        )
    last = sheet.max_row
    sheet.append(
        ["Sum of the rows above", "合计", "", "", f"=SUM(E2:E{last})", f"=SUM(F2:F{last})"]
    )
    sheet.cell(row=last + 2, column=1, value=data["sum_note"])
    _style_sheet(sheet, (26, 14, 14, 20, 10, 10, 80))
    # The same sections for Chinese readers: Chinese names, end points and notes.
    sheet = book.create_sheet("各段")
    sheet.append(["河段", "起点", "终点", "长度下限（公里）", "长度上限（公里）", "说明"])
    for row in data["sections"]:
        sheet.append(
            [row["zh"], row["from_zh"], row["to_zh"], row["low"], row["high"], row["notes_zh"]]
        )
    sheet.append(["合计", "", "", f"=SUM(D2:D{last})", f"=SUM(E2:E{last})"])
    sheet.cell(row=last + 2, column=1, value=data["sum_note_zh"])
    _style_sheet(sheet, (12, 10, 12, 16, 16, 80))
    notes = book.create_sheet("Notes")
    for line in data["notes"]:
        notes.append([line])
    notes.column_dimensions["A"].width = 100
    book.save(out)


def _write_cities_csv(out: Path, *, encoding: str = "utf-8", chinese: bool = False) -> None:
    data = _load_yaml("data/cities.yaml")
    keys = data["columns_zh" if chinese else "columns"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(list(keys.values()))
    for row in data["rows"]:
        writer.writerow([row[key] for key in keys])
    out.write_bytes(buffer.getvalue().encode(encoding))


def _write_pptx(spec: dict[str, Any], out: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    title_layout, bullet_layout = deck.slide_layouts[0], deck.slide_layouts[1]
    slide = deck.slides.add_slide(title_layout)
    slide.shapes.title.text = spec["title"]
    slide.placeholders[1].text = spec.get("subtitle", "")
    if spec.get("notes"):
        slide.notes_slide.notes_text_frame.text = spec["notes"]
    for item in spec["slides"]:
        slide = deck.slides.add_slide(bullet_layout)
        slide.shapes.title.text = item["title"]
        frame = slide.placeholders[1].text_frame
        frame.text = item["bullets"][0]
        for bullet in item["bullets"][1:]:
            frame.add_paragraph().text = bullet
        if item.get("notes"):
            slide.notes_slide.notes_text_frame.text = item["notes"]
    deck.core_properties.title = spec["title"]
    deck.save(out)


def _build_documents(folder: Path) -> list[Document]:
    docs = folder / "docs"
    listed = _load_yaml("data/documents.yaml")
    makers = {
        "docs/grand-canal-report.pdf": lambda p: _pdf_from_markdown(
            (CONTENT / "data/report_en.md").read_text(encoding="utf-8"),
            p,
            lang="en",
            title="The Grand Canal of China: a briefing report",
        ),
        "docs/grand-canal-report-zh.pdf": lambda p: _pdf_from_markdown(
            (CONTENT / "data/report_zh.md").read_text(encoding="utf-8"),
            p,
            lang="zh-CN",
            title="京杭大运河简要报告",
        ),
        "docs/canal-sections.xlsx": _write_sections_xlsx,
        "docs/canal-cities.csv": _write_cities_csv,
        "docs/grand-canal-slides.pptx": lambda p: _write_pptx(_load_yaml("data/slides.yaml"), p),
    }
    docs.mkdir(parents=True, exist_ok=True)
    documents = []
    for entry in listed:
        path = entry["path"]
        makers[path](folder / path)
        documents.append(
            Document(
                path=path,
                title=entry["title"],
                description=entry["description"],
                content_type=CONTENT_TYPES[Path(path).suffix],
                lang=entry.get("lang", "en"),
            )
        )
    return documents


# ---------------------------------------------------------------------------- public API


def build_site(folder: Path) -> SiteIndex:
    """Render every page and generate every document of the demo site into ``folder``.

    Args:
        folder: Target folder; created if missing. Existing files of the same names are
            overwritten.

    Returns:
        The index of pages, documents and redirects that were written.
    """
    folder = Path(folder)
    for sub in ("en", "zh", "docs", "assets"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / "assets/site.css").write_text(
        (CONTENT / "site.css").read_text(encoding="utf-8"), encoding="utf-8"
    )
    sources = _load_sources()
    pages = _render_pages(folder, sources)
    _write_site_map(folder, sources)
    documents = _build_documents(folder)
    return SiteIndex(folder=folder, pages=pages, documents=documents, redirects=dict(REDIRECTS))


def search_corpus(base_url: str, index: SiteIndex) -> list[dict[str, str]]:
    """List ``{title, url, text}`` for every page and document, for the search endpoints.

    Pages carry their main text; documents a short description. A page that an old address
    redirects to is listed under that old address, as search engines often still do, so a
    fetch of that result follows the 301.

    Args:
        base_url: The served site's root, e.g. ``http://127.0.0.1:PORT/``.
        index: What ``build_site`` returned.
    """
    root = base_url.rstrip("/") + "/"
    listed_as = {new: old for old, new in index.redirects.items()}
    corpus = [
        {"title": p.title, "url": root + listed_as.get(p.path, p.path), "text": p.text}
        for p in index.pages
    ]
    corpus += [
        {"title": d.title, "url": root + d.path, "text": d.description} for d in index.documents
    ]
    return corpus


class _SiteHandler(SimpleHTTPRequestHandler):
    """Static files with explicit content types, the redirects, and no directory listings."""

    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        **CONTENT_TYPES,
    }
    redirects: ClassVar[dict[str, str]] = {}
    requests: ClassVar[list[str]] = []

    def _redirect(self) -> bool:
        path = urlsplit(self.path).path.lstrip("/")
        target = self.redirects.get(path)
        if target is None:
            return False
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", "/" + target)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def do_GET(self) -> None:
        self.requests.append(urlsplit(self.path).path)
        if not self._redirect():
            super().do_GET()

    def do_HEAD(self) -> None:
        if not self._redirect():
            super().do_HEAD()

    def list_directory(self, path: str) -> None:  # type: ignore[override]
        self.send_error(HTTPStatus.NOT_FOUND, "No such page")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        return None


@contextlib.contextmanager
def serve_site(
    folder: Path,
    redirects: dict[str, str] | None = None,
    requests: list[str] | None = None,
    port: int = 0,
) -> Iterator[str]:
    """Serve a built site on 127.0.0.1 at ``port`` (default: a free one); yield its base URL.

    The server runs in a background thread and is shut down and closed on exit. The path
    of every GET request is appended to ``requests`` when it is given.

    Args:
        folder: A folder written by ``build_site``.
        redirects: Old path -> new path answered with 301 (default: the site's own).
    """
    handler = type(
        "DemoSiteHandler",
        (_SiteHandler,),
        {
            "redirects": dict(REDIRECTS if redirects is None else redirects),
            "requests": requests if requests is not None else [],
        },
    )

    def factory(*args: Any, **kwargs: Any) -> _SiteHandler:
        return handler(*args, directory=str(folder), **kwargs)

    server = ThreadingHTTPServer(("127.0.0.1", port), factory)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, args=(POLL_SECONDS,), name="demo-site", daemon=True
    )
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# ---------------------------------------------------------------------------- sample inputs


def _write_itinerary_xlsx(out: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    data = _load_yaml("inputs/itinerary.yaml")
    book = Workbook()
    sheet = book.active
    sheet.title = "Itinerary"
    sheet.append(data["header"])
    for row in data["rows"]:
        sheet.append(row)
    sheet.append(["", "Total days", "", "", f"=COUNTA(A2:A{sheet.max_row})"])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    notes = book.create_sheet(data["notes_sheet"])
    for row in data["notes"]:
        notes.append(row)
    book.save(out)


def _write_placard_png(out: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    lines = _load_yaml("inputs/placard.yaml")["lines"]
    font_file = next((f for f in IMAGE_FONTS if f.exists()), None)
    size = 44
    font = ImageFont.truetype(str(font_file), size) if font_file else ImageFont.load_default()
    width, line_height = 1100, int(size * 1.7)
    image = Image.new("RGB", (width, 60 + line_height * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((50, 30 + i * line_height), line, fill="black", font=font)
    image.save(out, format="PNG")


def write_sample_inputs(folder: Path) -> list[Path]:
    """Write the demo's sample input folder: PDF, XLSX, GBK CSV, PPTX, Markdown and PNG.

    Args:
        folder: Target folder; created if missing.

    Returns:
        The written files, in a stable order.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    brief = folder / "research-brief.pdf"
    _pdf_from_markdown(
        (CONTENT / "inputs/brief.md").read_text(encoding="utf-8"),
        brief,
        lang="en",
        title="Research brief",
    )
    written.append(brief)

    itinerary = folder / "field-trip-plan.xlsx"
    _write_itinerary_xlsx(itinerary)
    written.append(itinerary)

    cities = folder / "canal-cities-gbk.csv"
    _write_cities_csv(cities, encoding="gbk", chinese=True)
    written.append(cities)

    talk = folder / "talk-outline.pptx"
    _write_pptx(_load_yaml("inputs/talk.yaml"), talk)
    written.append(talk)

    notes = folder / "reading-notes.md"
    notes.write_text((CONTENT / "inputs/notes.md").read_text(encoding="utf-8"), encoding="utf-8")
    written.append(notes)

    placard = folder / "museum-placard.png"
    _write_placard_png(placard)
    written.append(placard)
    return written
