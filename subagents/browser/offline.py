"""The Browser subagent's offline plan: read the given pages with the sub-question, then
download the documents they link to.

Every page is read once, with the sub-question as ``query``, so that its answer comes
with quoted evidence and its links; documents (PDF, spreadsheets, slides) named in the
context or linked from the pages read are downloaded into ``/workspace/downloads/``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..offline import Call, CallResult, called, safe_name, succeeded
from ..untrusted import outside

DOCUMENT_SUFFIXES = (".pdf", ".xlsx", ".xls", ".csv", ".pptx", ".docx")
_LINK = re.compile(r"^- \[[^\]]*\]\((https?://[^)\s]+)\)$", re.M)
_EVIDENCE = re.compile(r"^- \[(ev-[0-9a-f]{12})\] ", re.M)
_STORED = re.compile(r"^Stored: (\S+)", re.M)


def is_document(url: str) -> bool:
    return urlsplit(url).path.lower().endswith(DOCUMENT_SUFFIXES)


def document_links(done: list[CallResult]) -> list[str]:
    """Documents listed under "Links on the page" of the pages read so far."""
    out: list[str] = []
    for rec in succeeded(done, "viewer_fetch"):
        _, _, tail = outside(rec.text).partition("\nLinks on the page:\n")
        out.extend(u for u in _LINK.findall(tail) if is_document(u))
    return list(dict.fromkeys(out))


def plan(ctx: dict[str, Any], done: list[CallResult], tools: set[str]) -> list[Call]:
    """Pages not read yet, then downloads of the documents found."""
    question = str(ctx.get("subquestion") or ctx.get("question") or "")
    urls = [str(u) for u in ctx.get("urls") or [] if not is_document(str(u))]
    read = called(done, "viewer_fetch", "url")
    calls: list[Call] = [
        ("viewer_fetch", {"url": u, "query": question} if question else {"url": u})
        for u in dict.fromkeys(urls)
        if u not in read and "viewer_fetch" in tools
    ]
    if calls:
        return calls
    docs = [str(u) for u in ctx.get("documents") or []]
    return downloads(docs, done, tools, int(ctx.get("max_downloads", 3)))


def downloads(docs: list[str], done: list[CallResult], tools: set[str], limit: int) -> list[Call]:
    """``http_download`` calls for documents not fetched yet, each to a free file name."""
    if "http_download" not in tools:
        return []
    fetched = called(done, "http_download", "url")
    taken = called(done, "http_download", "save_path")
    calls: list[Call] = []
    for url in dict.fromkeys(docs):
        if len(fetched) + len(calls) >= limit:
            break
        if url in fetched:
            continue
        name, n = safe_name(url), 1
        path = f"/workspace/downloads/{name}"
        while path in taken:
            n += 1
            path = f"/workspace/downloads/{n}-{name}"
        taken.add(path)
        calls.append(("http_download", {"url": url, "save_path": path}))
    return calls


def outcome(ctx: dict[str, Any], done: list[CallResult]) -> dict[str, Any]:
    """Evidence ids and stored pages as the results gave them; failed pages as gaps."""
    reads = [r for r in done if r.name == "viewer_fetch"]
    ok = [r for r in reads if r.ok]
    evidence = [e for r in ok for e in _EVIDENCE.findall(r.text)]
    pages = [p for r in ok for p in _STORED.findall(outside(r.text))]
    gaps = [f"could not read {r.input.get('url')}" for r in reads if not r.ok]
    saved = len(succeeded(done, "http_download"))
    return {
        "summary": f"Read {len(ok)} of {len(reads)} pages and saved {saved} documents; "
        f"{len(set(evidence))} quoted evidence items.",
        "evidence_ids": list(dict.fromkeys(evidence)),
        "gaps": gaps if ok or not reads else [*gaps, "no page could be read"],
        "pages": list(dict.fromkeys(pages)),
    }
