"""A local web for any set of pages: caller-given articles and the demo's search engines.

:func:`corpus_world` writes the pages as plain HTML articles (title, heading, paragraphs,
a little navigation and footer boilerplate), serves them on 127.0.0.1 with the demo's
static server and the demo's search engines over them, and yields a
:class:`~demo.web.DemoWorld` that :func:`demo.settings.demo_settings` turns into settings, as
it does for the bundled demo. :func:`research` runs the offline Host against such a world,
quietly. Benchmarks on public reading-comprehension data build their worlds this way::

    pages = [CorpusPage("Branson-on-Lake", "en/branson-on-lake", ["Branson-on-Lake is ..."])]
    with corpus_world(pages, Path("/tmp/site")) as world:
        result = asyncio.run(research("Who founded Branson-on-Lake?", world, Path("/tmp/runs")))
        report = read_report(result)

The second half reads the Markdown report a run writes
(``<run folder>/workspace/reports/<name>.md``) back into its parts:
:func:`report_parts` gives each section's cited lines with the sources they cite, and
:func:`parts_by_subquestion` pairs the sections with the plan's sub-questions of the run's
``internal/run.json``.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .search_web import Document, SearchWeb
from .site import Page as SitePage
from .site import SiteIndex, search_corpus, serve_site
from .web import DemoWorld

if TYPE_CHECKING:
    from host.orchestration.result import RunResult

#: The name the served site gives itself, by language (``zh-Hant``: Chinese in
#: Traditional characters).
SITE_NAMES = {"en": "Open Reference Library", "zh": "开放百科文库", "zh-Hant": "開放百科文庫"}

_HOME = {"en": "Home", "zh": "首页", "zh-Hant": "首頁"}
_RELATED = {"en": "Related articles", "zh": "相关条目", "zh-Hant": "相關條目"}
_INDEX_TITLE = {"en": "All articles", "zh": "全部条目", "zh-Hant": "全部條目"}
_SEARCH = {"en": "Search", "zh": "搜索", "zh-Hant": "搜索"}
_FOOTER = {
    "en": (
        "<p>Text is available under the Creative Commons Attribution-ShareAlike License; "
        'additional terms may apply. <a href="/index.html">All articles</a></p>'
        "<p>Privacy policy · About · Disclaimers · Contact · Cookie statement</p>"
    ),
    "zh": (
        "<p>本站文字在知识共享 署名-相同方式共享 协议之条款下提供。"
        '<a href="/index.html">全部条目</a></p>'
        "<p>隐私政策 · 关于本站 · 免责声明 · 联系我们</p>"
    ),
    "zh-Hant": (
        "<p>本站文字在知識共享 署名-相同方式共享 協議之條款下提供。"
        '<a href="/index.html">全部條目</a></p>'
        "<p>隱私政策 · 關於本站 · 免責聲明 · 聯繫我們</p>"
    ),
}


def _words_of(lang: str) -> str:
    """The language the site's own words are in for a page in ``lang``: Chinese for
    ``zh`` (Traditional characters for ``zh-Hant``), English for every other language."""
    return lang if lang in SITE_NAMES else "en"


@dataclass(frozen=True)
class CorpusPage:
    """One article of a corpus world.

    Attributes:
        title: The page's title (its ``<title>`` and ``<h1>``).
        slug: Its path under the site without the extension, e.g. ``en/branson-on-lake``
            (served as ``/en/branson-on-lake.html``).
        paragraphs: The body text; each becomes a ``<p>``, one written as ``## Heading``
            becomes an ``<h2>``, and paragraphs written as ``- item`` in a row become
            the items of one ``<ul>``; ``[text](/path.html)`` inside one is a link to
            that page of the site.
        lang: The page's language, e.g. ``en``, ``zh``, ``zh-Hant`` (Chinese in
            Traditional characters) or ``de`` (its ``lang`` attribute); the site's own
            words (navigation, footer) are Chinese for ``zh`` and ``zh-Hant`` (in the
            page's characters) and English for every other language.
        site: The name of the site the page is on, in its header, ``<title>`` and footer
            (empty: the name :data:`SITE_NAMES` gives its language).
        nav: The link texts of a navigation list under the site's header.
        aside: The link texts of a "related articles" list beside the article.
        footer: Lines the footer shows before the site's own.
    """

    title: str
    slug: str
    paragraphs: list[str]
    lang: str = "en"
    site: str = ""
    nav: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()
    footer: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The page's path on the site, e.g. ``en/branson-on-lake.html``."""
        return self.slug.strip("/") + ".html"

    @property
    def text(self) -> str:
        """The plain text a reader sees in the article: the title, then each paragraph."""
        body = [_bare(p) for p in self.paragraphs]
        return "\n".join([self.title, *(b for b in body if b)])


#: A link inside a paragraph, written ``[text](/path.html)``: the path of a page on the
#: same site.
_LINK = re.compile(r"\[([^\]\n]+)\]\((/[\w./-]+\.html)\)")


def _bare(paragraph: str) -> str:
    """A paragraph's text without its heading or list-item mark, its links as their text."""
    text = _LINK.sub(r"\1", paragraph.strip())
    for mark in ("## ", "- "):
        if text.startswith(mark):
            return text[len(mark) :].strip()
    return text


def _inline(text: str) -> str:
    """A paragraph's HTML: its text escaped, a link written ``[text](/path.html)`` an
    ``<a>``."""
    out: list[str] = []
    at = 0
    for link in _LINK.finditer(text):
        out.append(html.escape(text[at : link.start()]))
        out.append(f'<a href="{html.escape(link.group(2))}">{html.escape(link.group(1))}</a>')
        at = link.end()
    return "".join(out) + html.escape(text[at:])


def _lang_attr(lang: str) -> str:
    return "zh-CN" if lang == "zh" else lang


def _links(items: Sequence[str]) -> str:
    """A ``<ul>`` of links to the site map, one per text."""
    return (
        "<ul>\n"
        + "\n".join(f'<li><a href="/index.html">{html.escape(item)}</a></li>' for item in items)
        + "\n</ul>"
    )


def _shell(lang: str, title: str, main_html: str, page: CorpusPage | None = None) -> str:
    """A whole HTML page: head, site header with navigation, main content, footer (with
    ``page``'s own site name, navigation list and footer lines when it has them)."""
    key = _words_of(lang)
    site = html.escape(page.site) if page is not None and page.site else SITE_NAMES[key]
    nav = f'\n<nav class="links">{_links(page.nav)}</nav>' if page is not None and page.nav else ""
    lines = page.footer if page is not None else ()
    footer = "".join(f"<p>{html.escape(line)}</p>" for line in lines) + _FOOTER[key]
    search = _SEARCH[key]
    return f"""<!DOCTYPE html>
<html lang="{_lang_attr(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} — {site}</title>
</head>
<body>
<header class="site"><a class="brand" href="/index.html">{site}</a>
<nav class="top"><a href="/index.html">{_HOME[key]}</a> · <a href="/index.html">{
        _INDEX_TITLE[key]
    }</a></nav>
<form class="search" role="search"><input name="q" placeholder="{search}"><button>{
        search
    }</button></form></header>{nav}
{main_html}
<footer class="site">{footer}</footer>
</body>
</html>
"""


def page_html(page: CorpusPage) -> str:
    """The HTML of one article: its title, ``<h1>``, paragraphs, headings and lists."""
    blocks: list[str] = []
    items: list[str] = []
    for paragraph in [*page.paragraphs, ""]:
        if paragraph.startswith("- "):
            items.append(f"<li>{_inline(paragraph.strip()[2:].strip())}</li>")
            continue
        if items:
            blocks.append("<ul>\n" + "\n".join(items) + "\n</ul>")
            items = []
        if paragraph.startswith("## "):
            blocks.append(f"<h2>{html.escape(_bare(paragraph))}</h2>")
        elif paragraph.strip():
            blocks.append(f"<p>{_inline(paragraph.strip())}</p>")
    article = "\n".join(blocks)
    aside = ""
    if page.aside:
        heading = _RELATED[_words_of(page.lang)]
        aside = f'\n<aside class="related"><h2>{heading}</h2>\n{_links(page.aside)}</aside>'
    title = html.escape(page.title)
    main = f"<main><article>\n<h1>{title}</h1>\n{article}\n</article>{aside}</main>"
    return _shell(page.lang, page.title, main, page)


def _index_html(pages: Sequence[CorpusPage]) -> str:
    """The site map: every article, by language."""
    langs = sorted({p.lang for p in pages})
    lang = langs[0] if len(langs) == 1 else "en"
    items = "\n".join(
        f'<li><a href="/{html.escape(p.path)}" hreflang="{_lang_attr(p.lang)}">'
        f"{html.escape(p.title)}</a></li>"
        for p in pages
    )
    title = _INDEX_TITLE[_words_of(lang)]
    main = f"<main><h1>{title}</h1>\n<ul>\n{items}\n</ul></main>"
    return _shell(lang, title, main)


#: The list of files ``write_corpus`` wrote in a folder, kept there.
MANIFEST = ".corpus.json"


def write_corpus(pages: Sequence[CorpusPage], folder: Path) -> SiteIndex:
    """Write every page and the site map into ``folder``; return the site's index.

    The files an earlier call wrote into the same folder that are not pages now are
    removed, so a page left out of a corpus cannot still be fetched at its old address;
    no other file is touched.

    Raises:
        ValueError: Two pages share a slug, or a slug leaves the folder (``..``).
    """
    paths = [p.path for p in pages]
    if len(set(paths)) != len(paths):
        raise ValueError("two corpus pages share a slug")
    if any(".." in Path(path).parts or path == MANIFEST for path in paths):
        raise ValueError("a corpus page's slug must stay inside the site folder")
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / MANIFEST
    if manifest.is_file():
        for old in set(json.loads(manifest.read_text(encoding="utf-8"))) - set(paths):
            (folder / old).unlink(missing_ok=True)
    manifest.write_text(json.dumps(paths, ensure_ascii=False), encoding="utf-8")
    index = SiteIndex(folder=folder, redirects={})
    for page in pages:
        out = folder / page.path
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(page_html(page), encoding="utf-8")
        index.pages.append(SitePage(page.path, page.lang, page.title, "article", page.text))
    (folder / "index.html").write_text(_index_html(pages), encoding="utf-8")
    return index


def _host_port(url: str) -> str:
    """``127.0.0.1:PORT`` of ``http://127.0.0.1:PORT/...``."""
    return url.split("://", 1)[-1].split("/", 1)[0]


@contextmanager
def corpus_world(
    pages: Sequence[CorpusPage], folder: Path, input_dir: Path | None = None
) -> Iterator[DemoWorld]:
    """Serve ``pages`` and search engines over them on free 127.0.0.1 ports.

    The pages are written as HTML into ``folder`` (created when missing); the site and the
    engines (Google, Bing, Sogou, GitHub and MediaWiki wire formats, from
    :class:`~demo.search_web.SearchWeb`) run in background threads until the block ends.

    Args:
        pages: The articles to serve; their slugs must differ.
        folder: Where the site's files are written.
        input_dir: A folder to mount as ``/userinput/`` in runs, or None for no inputs.

    Yields:
        The running world, in the shape :func:`demo.settings.demo_settings` accepts; its
        question fields are empty strings.
    """
    index = write_corpus(pages, Path(folder))
    requests: list[str] = []
    with serve_site(index.folder, redirects={}, requests=requests) as base_url:
        corpus = [Document(d["title"], d["url"], d["text"]) for d in search_corpus(base_url, index)]
        with SearchWeb(corpus) as engines:
            yield DemoWorld(
                question="",
                question_zh="",
                # demo_settings and the Host take None as "no input files"
                input_dir=input_dir,  # type: ignore[arg-type]
                site_url=base_url,
                endpoints=dict(engines.urls),
                hosts=(_host_port(base_url), _host_port(engines.base)),
                site_requests=requests,
            )


def url_of(world: DemoWorld, page: CorpusPage) -> str:
    """The address at which ``world`` serves ``page``."""
    return world.site_url.rstrip("/") + "/" + page.path


async def research(
    question: str,
    world: DemoWorld,
    runs_dir: Path,
    *,
    formats: Sequence[str] = ("md",),
    max_pages: int | None = None,
    max_rounds: int | None = None,
) -> RunResult:
    """Research ``question`` with the offline brain against ``world``; print nothing.

    Settings are resolved as the command line resolves them (environment variables and
    ``quartet.toml`` apply), with the offline brain, ``formats``, ``runs_dir`` and the
    given budgets, then pointed at the world by :func:`demo.settings.demo_settings`.

    Args:
        question: The question to research.
        world: A running world from :func:`corpus_world` (or the demo's).
        runs_dir: The runs folder; the run's folder is made inside it.
        formats: The report formats to write (``md``, ``html``, ``pdf``, ``pptx``).
        max_pages: The pages read in the whole run (None: the setting's default).
        max_rounds: The research rounds per sub-question (None: the setting's default).

    Returns:
        The finished run's result (``result.run.path`` is its folder).
    """
    return (await research_run(question, world, runs_dir, formats, max_pages, max_rounds))[1]


async def research_run(
    question: str,
    world: DemoWorld,
    runs_dir: Path,
    formats: Sequence[str] = ("md",),
    max_pages: int | None = None,
    max_rounds: int | None = None,
) -> tuple[Any, RunResult]:
    """:func:`research`, with the Host that ran it (``host.state.research`` holds the
    run's findings, which ``scripts/train_lines.py`` reads)."""
    from host.brains import make_brain
    from host.config import load_settings, make_runs_dir
    from host.orchestration.hub import Host

    from .settings import demo_settings

    flags = {
        "model": "offline",
        "formats": ",".join(formats),
        "runs_dir": str(runs_dir),
        "max_pages": max_pages,
        "max_rounds": max_rounds,
        "quiet": True,
    }
    settings = load_settings(flags)
    # each question is measured on its own: the corpus's pages are served anew, at
    # addresses another set's server may have used before
    settings.page_cache = False
    make_runs_dir(settings.runs_dir)
    host = Host(demo_settings(settings, world), make_brain("offline"))
    return host, await host.run(question)


# ------------------------------------------------------------------------ reading a report

_MARKER = re.compile(r"\[(\d+)\]")
_MARKERS = re.compile(r"(?:\s*\[\d+\])+")
_ESCAPED = re.compile(r"\\([\\`*_\[\]<>&|~.)+\-=#!])")
_SOURCE_HEAD = re.compile(r"^- (?:\*\*(?P<title>.*?)(?<!\\)\*\*)?(?: — )?(?P<rest>.*)$")
_QUOTE_LINE = re.compile(r"^\s+- \[(\d+)\] ")
_EVIDENCE_ID = re.compile(r"`(ev-[0-9a-fA-F]+)`")
_COMMENT = re.compile(r"<!-- (\{.*\}) -->\s*$")
_TABLE_ROW = re.compile(r"^\|.*\|$")
_TABLE_RULE = re.compile(r"^\|(?:\s*:?-+:?\s*\|)+$")

#: The headings of a report's sources list, in the languages reports are written in.
SOURCES_HEADINGS = ("Sources", "来源")
#: The headings of the sections that are not a part of the question.
OTHER_HEADINGS = (
    "Where the sources disagree",
    "What could not be found",
    "来源之间的分歧",
    "未能找到的内容",
)
#: The key under which :func:`report_parts` gives the summary's cited lines.
SUMMARY = ""


@dataclass
class CitedLine:
    """A sentence or bullet of a report with the sources its ``[n]`` markers cite.

    Attributes:
        text: The sentence as a reader sees it (Markdown escapes and markers removed).
        sources: The URL (web pages) or path (files) of each cited source, each once.
        numbers: The citation numbers the line carries.
        evidence: The evidence id (``ev-…``) behind each number, when the Sources list
            records it (in the comment of the quote's line).
    """

    text: str
    sources: list[str]
    numbers: list[int] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)


def unescape(text: str) -> str:
    """Markdown text as plain text: the report's backslash escapes removed."""
    return _ESCAPED.sub(r"\1", text)


def _quotes(report_md: str) -> dict[int, tuple[str, str]]:
    """Quote number → (the source's URL or path, the quote's evidence id or "")."""
    parts = re.split(r"^## (?:Sources|来源)\s*$", report_md, flags=re.M)
    if len(parts) < 2:
        return {}
    out: dict[int, tuple[str, str]] = {}
    source = ""
    for line in parts[-1].splitlines():
        if line.startswith("- "):
            head = _SOURCE_HEAD.match(line)
            rest = head.group("rest") if head else line[2:]
            source = unescape(rest.split(" — ")[0].strip().strip("<>"))
        elif m := _QUOTE_LINE.match(line):
            where, ev = source, _EVIDENCE_ID.search(line)
            ev_id = ev.group(1).lower() if ev else ""
            if c := _COMMENT.search(line):
                with suppress(json.JSONDecodeError):
                    loc = json.loads(c.group(1))
                    where = str(loc.get("url") or source)
                    ev_id = ev_id or str(loc.get("id") or "").lower()
            out[int(m.group(1))] = (where, ev_id)
    return out


def report_sources(report_md: str) -> dict[int, str]:
    """The Sources list of a Markdown report: quote number → the source's URL or path.

    The URL comes from the locator comment of the quote's line when it has one (what was
    fetched), else from the source's own line.
    """
    return {n: where for n, (where, _) in _quotes(report_md).items()}


def _cited_lines(block: str, numbered: dict[int, tuple[str, str]]) -> list[CitedLine]:
    """Every cited sentence of one section's text, in order.

    A paragraph or bullet is cut after each group of markers: the text up to a group is
    one cited line. A table is read as text and joined to its caption, whose markers cite
    it.
    """
    out: list[CitedLine] = []
    table: list[str] = []
    for raw in block.splitlines():
        line = raw.strip()
        if not line or line.startswith(("![", "<!--")):
            continue
        if _TABLE_ROW.match(line):
            if not _TABLE_RULE.match(line):
                cells = [unescape(c.strip()) for c in line.strip("|").split(" | ")]
                table.append(" | ".join(cells))
            continue
        if line.startswith("- "):
            line = line[2:]
        start = 0
        for group in _MARKERS.finditer(line):
            text = unescape(line[start : group.start()]).strip()
            text = text.lstrip(" ,;.。，；").strip()
            start = group.end()
            numbers = [int(n) for n in _MARKER.findall(group.group())]
            if table:
                text = "\n".join([*table, text])
                table = []
            known = [numbered[n] for n in numbers if n in numbered]
            sources = list(dict.fromkeys(where for where, _ in known))
            evidence = [ev for _, ev in known if ev]
            if text:
                out.append(CitedLine(text, sources, numbers, evidence))
        table = [] if start else table
    return out


def report_parts(report_md: str) -> dict[str, list[CitedLine]]:
    """Each section of a Markdown report with its cited lines.

    Args:
        report_md: The text of a Markdown report.

    Returns:
        Section heading (as written, escapes removed; for a part of the question, the
        sub-question) → its cited lines, in the report's order. The summary's cited lines
        are under :data:`SUMMARY` (the empty string) when the report has a summary. The
        Sources list is not a section.
    """
    numbered = _quotes(report_md)
    body = re.split(r"^## (?:Sources|来源)\s*$", report_md, flags=re.M)[0]
    chunks = re.split(r"^## ", body, flags=re.M)
    head = "\n".join(ln for ln in chunks[0].splitlines() if not ln.startswith(("# ", "<!--")))
    out: dict[str, list[CitedLine]] = {}
    if head.strip():
        out[SUMMARY] = _cited_lines(head, numbered)
    for chunk in chunks[1:]:
        heading, _, text = chunk.partition("\n")
        out.setdefault(unescape(heading.strip()), []).extend(_cited_lines(text, numbered))
    return out


def cited_sources(report_md: str) -> list[str]:
    """Every source the report's text cites (summary and sections), each once, in order."""
    seen: dict[str, None] = {}
    for lines in report_parts(report_md).values():
        for line in lines:
            seen.update(dict.fromkeys(line.sources))
    return list(seen)


@dataclass
class PartOfRun:
    """One sub-question of a finished run with what its report section cites.

    Attributes:
        id: The sub-question's id in the plan (``q1``...).
        text: The sub-question.
        status: Its final status (answered, partly answered, not found...).
        lines: The cited lines of its section of the report (empty when it has none).
        summary: The summary's cited line that answers this part (see
            :func:`parts_by_subquestion`), or none.
        evidence: The part's evidence ids as the plan records them (its best ones).
    """

    id: str
    text: str
    status: str
    lines: list[CitedLine]
    summary: list[CitedLine] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)

    @property
    def answer_line(self) -> list[CitedLine]:
        """The line that answers this part first: its summary line, else the first line
        of its section (none when the report says nothing for it)."""
        return self.summary[:1] or self.lines[:1]

    @property
    def answer_lines(self) -> list[CitedLine]:
        """Everything the report says for this part: its summary line, then its section."""
        return [*self.summary, *self.lines]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", unescape(text)).strip().casefold()


def markdown_report(run_folder: Path) -> Path | None:
    """The Markdown report a run wrote, as its record lists it (named after the
    question), or None.

    Args:
        run_folder: The run's folder.

    Returns:
        The report's path on disk, or None when the run wrote no Markdown report.
    """
    from host.durability.runs import read_run

    return read_run(run_folder).report("md")


def parts_by_subquestion(run_folder: Path, report: str = "") -> list[PartOfRun]:
    """The plan's sub-questions of a finished run, each with its section's cited lines.

    A section belongs to the sub-question whose text is its heading (compared without
    case, Markdown escapes or extra spaces). The report's parts come in the plan's order,
    so a heading that matches no text is given to the next unmatched sub-question in
    order.

    The summary holds one line for each part that has evidence, in the plan's order, and
    that line is not repeated in the section (a part whose only evidence is its summary
    line has no section at all). A part whose record names its summary line (its
    ``answer_id``, the evidence the line cites) has that line, and one line may answer
    several parts ("When and by whom …"). Other summary lines (a record from before
    ``answer_id``, a report a model wrote) are paired with the remaining parts that have
    evidence in order; a line whose evidence id the plan records for a later part skips
    to that part.

    Args:
        run_folder: The run's folder (holding ``internal/run.json`` and
            ``workspace/reports/``).
        report: The Markdown report's file name in ``workspace/reports/``; by default
            the one the run's record lists (see :func:`markdown_report`).

    Returns:
        One :class:`PartOfRun` per sub-question, in the plan's order; empty when the run
        has no plan.
    """
    record = json.loads((run_folder / "internal" / "run.json").read_text(encoding="utf-8"))
    subs = (record.get("plan") or {}).get("subquestions") or []
    path = run_folder / "workspace" / "reports" / report if report else markdown_report(run_folder)
    found = report_parts(path.read_text(encoding="utf-8")) if path and path.is_file() else {}
    parts = [
        PartOfRun(s["id"], s["text"], s.get("status", ""), [], [], list(s.get("evidence_ids", [])))
        for s in subs
    ]
    headings = [h for h in found if h != SUMMARY and h not in OTHER_HEADINGS]
    by_text = {_norm(p.text): p for p in parts}
    unmatched: list[str] = []
    taken: set[str] = set()
    for heading in headings:
        part = by_text.get(_norm(heading))
        if part is not None and part.id not in taken:
            part.lines = found[heading]
            taken.add(part.id)
        else:
            unmatched.append(heading)
    rest = [p for p in parts if p.id not in taken]
    for heading, part in zip(unmatched, rest, strict=False):
        part.lines = found[heading]
    answer_ids = {s["id"]: str(s.get("answer_id") or "") for s in subs}
    lines = found.get(SUMMARY, [])
    for line in lines:  # the record names each part's summary line where it can
        for part in parts:
            if answer_ids[part.id] and answer_ids[part.id] in line.evidence:
                part.summary.append(line)
    named = {id(line) for p in parts for line in p.summary}
    answered = [p for p in parts if (p.evidence or p.lines) and not p.summary]
    at = 0
    for line in [ln for ln in lines if id(ln) not in named]:
        later = [
            i for i in range(at, len(answered)) if set(line.evidence) & set(answered[i].evidence)
        ]
        at = later[0] if later else at
        if at >= len(answered):
            break
        answered[at].summary.append(line)
        at += 1
    return parts


def read_report(result: RunResult) -> str:
    """The Markdown report a run wrote (empty when it wrote none)."""
    path = next((result.run.real_path(p) for p in result.outputs if p.endswith(".md")), None)
    return path.read_text(encoding="utf-8") if path is not None and path.is_file() else ""
