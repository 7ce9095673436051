"""Stages: the delegation message each subagent gets, and what the Host keeps from it.

A delegation is the seed's ``task(description, subagent_type, context)``: the task text
plus a ``<context>`` JSON block (question, URLs, paths, evidence ids). After a stage the
Host reads its tool-call records and carries forward what the next stage needs.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import yaml
from agentscope.message import Msg

from .guards import ToolCallRecord

TASKS = {
    "search": (
        "Find sources for the research question. Call every search tool you have with a "
        "focused query (a shorter keyword query for the wiki and GitHub tools), then reply "
        "with the most relevant distinct URLs, best first."
    ),
    "browser": (
        "Read the most promising URLs in the context with viewer_fetch, passing the "
        "question as `query` so that every answer comes with exact quoted evidence. "
        "Download linked documents (PDF, XLSX, CSV, PPTX) with http_download into "
        "/workspace/downloads/. Skip pages that fail; reply with what you found."
    ),
    "file": (
        "Read every file under /userinput/ and /workspace/downloads/ with the reader for "
        "its type, then write what matters for the question as notes to "
        "/workspace/notes/files.md. Reply with a short summary of each file."
    ),
    "generate": (
        "Write the report that answers the question, from the stored pages, notes and "
        "evidence listed in the context, in each requested format under "
        "/workspace/reports/. Cite only evidence that exists; never invent a source."
    ),
}

CONTEXT_RE = re.compile(r"<context>\s*(\{.*?\})\s*</context>", re.DOTALL)
DOCUMENT_EXTENSIONS = (".pdf", ".xlsx", ".xls", ".csv", ".pptx", ".docx")


def delegation_msg(stage: str, context: dict[str, Any]) -> Msg:
    """The Host's message delegating ``stage`` with its context block."""
    body = json.dumps(context, ensure_ascii=False, indent=1)
    return Msg("Host", f"{TASKS[stage]}\n\n<context>\n{body}\n</context>", "user")


def find_context(texts: list[str]) -> dict[str, Any]:
    """The last ``<context>`` JSON block among ``texts`` (empty when there is none)."""
    for text in reversed(texts):
        for match in reversed(CONTEXT_RE.findall(text)):
            try:
                return json.loads(match)
            except json.JSONDecodeError:
                continue
    return {}


def is_document_url(url: str) -> bool:
    return urlsplit(url).path.lower().endswith(DOCUMENT_EXTENSIONS)


def search_urls(records: list[ToolCallRecord]) -> list[dict[str, str]]:
    """Distinct results of the search stage, interleaved across sources (best of each first)."""
    per_source: list[list[dict[str, str]]] = []
    for rec in records:
        if rec.failed or not rec.name.startswith("search_"):
            continue
        try:
            items = yaml.safe_load(rec.text)
        except yaml.YAMLError:
            continue
        if isinstance(items, list):
            per_source.append([i for i in items if isinstance(i, dict) and i.get("url")])
    out, seen = [], set()
    for rank in range(max((len(s) for s in per_source), default=0)):
        for items in per_source:
            if rank < len(items):
                url = str(items[rank]["url"])
                key = url.rstrip("/")
                if key not in seen:
                    seen.add(key)
                    out.append({"url": url, "title": str(items[rank].get("title", ""))})
    return out


def browser_outputs(records: list[ToolCallRecord]) -> dict[str, list[str]]:
    """Stored pages and downloads the browser stage produced."""
    pages, downloads = [], []
    for rec in records:
        if rec.failed:
            continue
        if rec.name == "viewer_fetch" and rec.metadata.get("markdown_path"):
            pages.append(rec.metadata["markdown_path"])
        if rec.name == "http_download" and rec.metadata.get("path"):
            downloads.append(rec.metadata["path"])
    return {"pages": list(dict.fromkeys(pages)), "downloads": list(dict.fromkeys(downloads))}


def written_paths(records: list[ToolCallRecord], tools: tuple[str, ...]) -> list[str]:
    """Paths written by successful calls of ``tools``."""
    out = []
    for rec in records:
        if rec.failed or rec.name not in tools:
            continue
        path = (
            rec.metadata.get("artifact_path") or rec.metadata.get("path") or rec.input.get("path")
        )
        if path:
            out.append(str(path))
    return list(dict.fromkeys(out))


def summarize(stage: str, records: list[ToolCallRecord], reply_text: str) -> str:
    """The text of the Msg the Host broadcasts for a finished stage."""
    ok = sum(not r.failed for r in records)
    failed = [r for r in records if r.failed]
    lines = [f"[{stage}] {len(records)} tool calls, {ok} succeeded, {len(failed)} failed."]
    for r in failed[:10]:
        lines.append(f"- {r.name} failed: {r.text[:200]}")
    if reply_text:
        lines.append(reply_text[:2000])
    return "\n".join(lines)
