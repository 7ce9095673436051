"""viewer_fetch: read a web page as Markdown, store it, and optionally answer from it."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any
from urllib.parse import urlsplit

from agentscope.tool import ToolResponse

from fs_service import FsError
from research.text import links

from ..evidence import PageBudgetError, PageRecord, identified, sidecar_path
from ..failures import plain_reason
from ..results import bounded, error, ok, refused, unavailable
from ..settings import browser_sites, network_policy
from ..untrusted import neutralise, wrap
from .evidence import Answer, answer_with_model
from .tiers import FetchError, PageText, fetch_page_text
from .workers import answer_from_text

PAGES_DIR = "/workspace/pages/"
SHOW_CHARS = 8_000
SLUG_CHARS = 60
#: Links listed under an answer (documents first).
MAX_LINKS = 40
DOCUMENT_SUFFIXES = (".pdf", ".xlsx", ".xls", ".csv", ".pptx", ".docx")


def page_path(url: str) -> str:
    """``/workspace/pages/<readable-slug>-<short-hash>.md`` for a URL."""
    parts = urlsplit(url)
    readable = f"{parts.hostname or 'page'}{parts.path}"
    ascii_only = unicodedata.normalize("NFKD", readable).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_only).strip("-").lower()[:SLUG_CHARS].strip("-")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:10]
    return f"{PAGES_DIR}{slug or 'page'}-{digest}.md"


def _record(page: PageText, path: str, text: str) -> PageRecord:
    """The sidecar of a page stored at ``path``: where it came from, when it was fetched
    (by an earlier run, when the copy came from the page cache) and the page's own date
    when its markup gives one."""
    return PageRecord(
        url=page.url,
        final_url=page.final_url,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        tier=page.tier,
        extractor=page.extracted.extractor,
        markdown_path=path,
        title=page.extracted.title,
        content_type=page.content_type,
        browser_first=page.browser_first,
        published=page.extracted.published,
        **page.provenance.record(),
    )


def source_of(record: PageRecord) -> dict[str, Any]:
    """A stored page's entry in the run's ``web_sources``."""
    return {
        "kind": "page",
        "url": record.url,
        "final_url": record.final_url,
        "path": record.markdown_path,
        "fetched_at": record.fetched_at,
        "from_cache": record.from_cache,
        "revalidated": record.revalidated,
        "tier": record.tier,
        "browser_first": record.browser_first,
        "sha256": record.sha256,
        "published": record.published,
    }


def cache_line(record: PageRecord) -> str:
    """What the reply says of a copy from the page cache ("" for a page fetched now)."""
    if not record.from_cache:
        return ""
    how = "the site confirmed it unchanged" if record.revalidated else "still fresh"
    return f"Cached copy: fetched {record.fetched_at}, from the page cache ({how})."


async def _answer(text: str, query: str, url: str, path: str, model: Any) -> Answer:
    if model is not None:
        try:
            return await answer_with_model(model, text, query, url, path)
        except Exception as exc:  # a provider failure: fall back to BM25 and say so
            fallback = await answer_from_text(text, query, url, path)
            why = plain_reason(exc, "it gave no reason")[:120]
            return Answer(fallback.text, fallback.items, f"bm25 (the model failed: {why})")
    return await answer_from_text(text, query, url, path)


def _header(record: PageRecord, chars: int, notes: list[str], reused: bool) -> str:
    moved = f" (from {record.url})" if record.final_url != record.url else ""
    lines = [
        f"URL: {record.final_url}{moved}",
        f"Title: {neutralise(record.title) if record.title else '(none)'}",
        f"Read by: {record.tier} tier, {record.extractor} extractor"
        + (f" ({'; '.join(notes)})" if notes else ""),
        f"Stored: {record.markdown_path} ({chars} characters; the full text is there)",
    ]
    if cached := cache_line(record):
        lines.append(cached)
    if reused:
        lines.append("Already read in this run: served from the stored copy, not fetched again.")
    return "\n".join(lines)


def link_lines(text: str, limit: int = MAX_LINKS) -> str:
    """The page's links as Markdown list lines: documents first, then other pages."""
    found = [(a, u) for a, u in links(text) if u.startswith(("http://", "https://"))]
    docs = [(a, u) for a, u in found if urlsplit(u).path.lower().endswith(DOCUMENT_SUFFIXES)]
    pages = [(a, u) for a, u in found if (a, u) not in docs]
    chosen = list(dict.fromkeys([*docs, *pages]))[:limit]
    more = len(dict.fromkeys(found)) - len(chosen)
    lines = [neutralise(f"- [{a or u}]({u})") for a, u in chosen]
    if more > 0:
        lines.append(f"- … and {more} more links in the stored page")
    return "\n".join(lines)


async def _stored_page(service: Any, path: str) -> tuple[str, PageRecord] | None:
    """A page stored earlier in the run: its text and sidecar, or None if unreadable."""
    try:
        text = await service.read_text(path)
        record = PageRecord.from_json(await service.read_text(sidecar_path(path)))
    except (FsError, ValueError, TypeError, KeyError):
        return None
    return text, record


async def viewer_fetch(
    url: str,
    query: str | None = None,
    service: object = None,
    browser: object = None,
    evidence: object = None,
    model: object = None,
    settings: object = None,
) -> ToolResponse:
    """Read a web page as Markdown and store its text; optionally answer a question from it.

    The page is fetched over HTTP and converted to Markdown (tables and links kept); pages
    that need JavaScript or block plain requests are rendered in a browser instead. The
    full text is stored under /workspace/pages/ and the reply shows its beginning and
    where it is stored. With `query`, the reply is an answer backed by exact quotes
    from the page (each with an evidence id and its character offsets in the stored
    text, for citing later) and the page's links. A page already read in this run is
    served from its stored copy.

    Args:
        url (str): The http or https address of the page, e.g. https://en.wikipedia.org/wiki/Tea.
        query (str, optional): A question to answer from this page, e.g. "When was the
            company founded?". Leave it out to get the page text.
    """
    registry = getattr(evidence, "pages", None)
    if registry is None:
        return await _fetch_and_answer(url, query, service, browser, evidence, model, settings)
    async with registry.lock(url):
        path = registry.stored(url)
        stored = await _stored_page(service, path) if path else None
        if stored is not None:
            text, record = stored
            return await _reply(text, record, query, service, evidence, model, [], reused=True)
        try:
            registry.take_page(url)
        except PageBudgetError as exc:
            return refused(str(exc))
        return await _fetch_and_answer(url, query, service, browser, evidence, model, settings)


async def _fetch_and_answer(
    url: str,
    query: str | None,
    service: Any,
    browser: Any,
    evidence: Any,
    model: Any,
    settings: Any,
) -> ToolResponse:
    try:
        page = await fetch_page_text(
            url, browser, network_policy(settings), browser_sites(settings)
        )
    except FetchError as exc:
        return unavailable(str(exc)) if exc.outside else error(str(exc))
    text = page.extracted.markdown
    if not text.strip():
        return unavailable(f"{url[:200]} has no readable text")
    path = page_path(page.final_url)
    record = _record(page, path, text)
    try:
        await service.write_text(path, text)
    except FsError as exc:
        return error(str(exc))
    registry = getattr(evidence, "pages", None)
    if registry is not None:
        registry.record(url, path, page.final_url)
        registry.note_source(source_of(record))
    return await _reply(text, record, query, service, evidence, model, page.notes, reused=False)


async def _reply(
    text: str,
    record: PageRecord,
    query: str | None,
    service: Any,
    evidence: Any,
    model: Any,
    notes: list[str],
    reused: bool,
) -> ToolResponse:
    """Write the sidecar (with any new evidence) and answer the model."""
    path = record.markdown_path
    header = _header(record, len(text), notes, reused)
    try:
        if not query:
            if not reused:
                await service.write_text(sidecar_path(path), record.to_json())
            shown = bounded(
                text, SHOW_CHARS, f"The full text is stored at {path}; read it with the file tools."
            )
            source = record.final_url or record.url
            return ok(f"{header}\n\n{wrap(shown, 'page', source)}", paths=[path])
        result = await _answer(text, query, record.final_url or record.url, path, model)
        items = [
            evidence.add(item) if evidence is not None else identified(item)
            for item in result.items
        ]
        known = {e.get("id") for e in record.evidence}
        record.evidence.extend(i.to_dict() for i in items if i.id not in known)
        await service.write_text(sidecar_path(path), record.to_json())
    except FsError as exc:
        return error(str(exc))
    quotes = "\n".join(
        f'- [{item.id}] "{item.span}" (characters {item.start}–{item.end})' for item in items
    )
    dropped = (
        f"\n({result.dropped} quote(s) not found in the page were dropped.)"
        if result.dropped
        else ""
    )
    page_links = link_lines(text) if record.has_links else ""
    said = (
        f"Answer ({result.method}): {result.text or '(none)'}\n\n"
        f"Evidence (exact quotes of the stored page, cite them by id):\n"
        f"{quotes or '(no verified quote)'}{dropped}"
    )
    body = (
        f"{header}\n\nQuestion: {query}\n{wrap(said, 'page', record.final_url or record.url)}"
        + (f"\n\nLinks on the page:\n{page_links}" if page_links else "")
    )
    return ok(body, paths=[path], evidence_ids=[item.id for item in items])
