"""viewer_fetch: read a web page as Markdown, store it, and optionally answer from it."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from agentscope.tool import ToolResponse

from fs_service import FsError

from ..evidence import PageRecord, sidecar_path
from ..results import bounded, error, ok, unavailable
from .evidence import Answer, answer_bm25, answer_with_model
from .tiers import FetchError, PageText, fetch_page_text

PAGES_DIR = "/workspace/pages/"
SHOW_CHARS = 8_000
SLUG_CHARS = 60


def page_path(url: str) -> str:
    """``/workspace/pages/<readable-slug>-<short-hash>.md`` for a URL."""
    parts = urlsplit(url)
    readable = f"{parts.hostname or 'page'}{parts.path}"
    ascii_only = unicodedata.normalize("NFKD", readable).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_only).strip("-").lower()[:SLUG_CHARS].strip("-")
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:10]
    return f"{PAGES_DIR}{slug or 'page'}-{digest}.md"


def _record(page: PageText, path: str, text: str) -> PageRecord:
    return PageRecord(
        url=page.url,
        final_url=page.final_url,
        fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        tier=page.tier,
        extractor=page.extracted.extractor,
        markdown_path=path,
        title=page.extracted.title,
        content_type=page.content_type,
    )


async def _answer(text: str, query: str, page: PageText, path: str, model: Any) -> Answer:
    if model is not None:
        try:
            return await answer_with_model(model, text, query, page.final_url, path)
        except Exception as exc:  # a provider failure: fall back to BM25 and say so
            fallback = answer_bm25(text, query, page.final_url, path)
            return Answer(
                fallback.text, fallback.items, f"bm25 (the model failed: {type(exc).__name__})"
            )
    return answer_bm25(text, query, page.final_url, path)


def _header(page: PageText, path: str, chars: int) -> str:
    lines = [
        f"URL: {page.final_url}" + (f" (from {page.url})" if page.final_url != page.url else ""),
        f"Title: {page.extracted.title or '(none)'}",
        f"Read by: {page.tier} tier, {page.extracted.extractor} extractor"
        + (f" ({'; '.join(page.notes)})" if page.notes else ""),
        f"Stored: {path} ({chars} characters; the full text is there)",
    ]
    return "\n".join(lines)


async def viewer_fetch(
    url: str,
    query: str | None = None,
    service: object = None,
    browser: object = None,
    evidence: object = None,
    model: object = None,
) -> ToolResponse:
    """Read a web page as Markdown and store its text; optionally answer a question from it.

    The page is fetched over HTTP and converted to Markdown (tables and links kept); pages
    that need JavaScript or block plain requests are rendered in a browser instead. The
    full text is stored under /workspace/pages/ and the reply shows its beginning and
    where it is stored. With `query`, the reply is an answer backed by exact quotes
    from the page (each with its character offsets in the stored text), which can be
    cited later.

    Args:
        url (str): The http or https address of the page, e.g. https://en.wikipedia.org/wiki/Tea.
        query (str, optional): A question to answer from this page, e.g. "When was the
            company founded?". Leave it out to get the page text.
    """
    try:
        page = await fetch_page_text(url, browser)  # type: ignore[arg-type]
    except FetchError as exc:
        return unavailable(str(exc), {"url": url}) if exc.outside else error(str(exc))
    text = page.extracted.markdown
    if not text.strip():
        return unavailable(f"{url[:200]} has no readable text", {"url": url})
    path = page_path(page.final_url)
    record = _record(page, path, text)
    try:
        await service.write_text(path, text)  # type: ignore[attr-defined]
        header = _header(page, path, len(text))
        if not query:
            await service.write_text(sidecar_path(path), record.to_json())  # type: ignore[attr-defined]
            shown = bounded(
                text, SHOW_CHARS, f"The full text is stored at {path}; read it with the file tools."
            )
            return ok(
                f"{header}\n\n{shown}",
                {"url": page.final_url, "markdown_path": path, "tier": page.tier},
            )
        result = await _answer(text, query, page, path, model)
        items = [evidence.add(item) if evidence is not None else item for item in result.items]  # type: ignore[attr-defined]
        record.evidence = [item.to_dict() for item in items]
        await service.write_text(sidecar_path(path), record.to_json())  # type: ignore[attr-defined]
    except FsError as exc:
        return error(str(exc))
    quotes = "\n".join(
        f'[{n}] "{item.span}" (characters {item.start}–{item.end})'
        for n, item in enumerate(items, 1)
    )
    dropped = (
        f"\n({result.dropped} quote(s) not found in the page were dropped.)"
        if result.dropped
        else ""
    )
    body = (
        f"{header}\n\nQuestion: {query}\nAnswer ({result.method}): {result.text or '(none)'}\n\n"
        f"Evidence:\n{quotes or '(no verified quote)'}{dropped}"
    )
    return ok(
        body,
        {
            "answer": result.text,
            "evidence": [item.public() for item in items],
            "url": page.final_url,
            "markdown_path": path,
            "tier": page.tier,
        },
    )
