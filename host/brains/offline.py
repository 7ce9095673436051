"""The offline brain: a deterministic chat model that makes the calls a careful agent would.

It runs inside the same ReActAgent loop, toolkit, guards and hub as an LLM. Each time it
is asked for the next step it reads the ``<context>`` block of the delegation from the
messages and the results of the calls already made in this delegation (through the
subagent's :class:`~host.guards.ToolGuard`), and answers with the next batch of tool
calls, or with a final text when nothing is left to do:

- search: every search tool, with the question (a keyword form for wiki and GitHub);
- browser: ``viewer_fetch`` with the question on the best distinct pages, then
  ``http_download`` of every linked document;
- file: list the input and download folders, read every file with the reader for its
  type, then write ``/workspace/notes/files.md``;
- generate: one generator per requested format.
"""

from __future__ import annotations

import re
import secrets
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from agentscope.message import TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.model._model_usage import ChatUsage

from subagents.file.generic import reader_for

from ..guards import ToolCallRecord, ToolGuard
from ..stages import DOCUMENT_EXTENSIONS, find_context, is_document_url

Call = tuple[str, dict[str, Any]]

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "today",
    ]
)
TEXT_EXTENSIONS = (".md", ".txt", ".json", ".yaml", ".yml", ".html", ".htm", ".xml")
NOTES_PATH = "/workspace/notes/files.md"
LINK_RE = re.compile(
    r"(?:\]\(|href=[\"']|(?<![\w/.:]))((?:https?://|/|\.\.?/)?[^\s()\"'<>\]]+?\.(?:"
    + "|".join(e[1:] for e in DOCUMENT_EXTENSIONS)
    + r"))(?=[\s)\"'<>\],;:.!?]|$)",
    re.IGNORECASE,
)


def keywords(question: str, limit: int = 6) -> str:
    """A short keyword query: the question's significant words (CJK text kept whole)."""
    if re.search(r"[\u4e00-\u9fff]", question):
        return question.strip("？?。 ")
    words = [w for w in re.findall(r"[\w'-]+", question) if w.lower() not in STOPWORDS]
    return " ".join(words[:limit]) or question


def safe_name(url: str) -> str:
    """A file name for a download: the URL's last segment, reduced to safe characters."""
    name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or "download"
    name = re.sub(r"[^\w.\-]+", "_", name).strip("._") or "download"
    return name[:120]


def _ok(records: list[ToolCallRecord], name: str) -> list[ToolCallRecord]:
    return [r for r in records if r.name == name and not r.failed]


def _called(records: list[ToolCallRecord], name: str, key: str) -> set[str]:
    return {str(r.input.get(key)) for r in records if r.name == name}


def plan_search(ctx: dict, done: list[ToolCallRecord], tools: set[str]) -> list[Call]:
    if done:
        return []
    question = ctx.get("question", "")
    short = keywords(question)
    return [
        (t, {"query": short if t in ("search_wiki", "search_github") else question})
        for t in ("search_google", "search_bing", "search_sogou", "search_github", "search_wiki")
        if t in tools
    ]


def document_links(records: list[ToolCallRecord]) -> list[str]:
    """Absolute URLs of documents linked from the pages fetched so far."""
    out = []
    for rec in _ok(records, "viewer_fetch"):
        base = rec.metadata.get("final_url") or rec.metadata.get("url") or rec.input.get("url")
        for link in LINK_RE.findall(rec.text):
            absolute = urljoin(str(base), link)
            if absolute.startswith(("http://", "https://")):
                out.append(absolute)
    return list(dict.fromkeys(out))


def plan_browser(ctx: dict, done: list[ToolCallRecord], tools: set[str]) -> list[Call]:
    """Read each page plainly (its links show), then ask it the question; fetch documents."""
    question = ctx.get("question", "")
    urls = [u["url"] if isinstance(u, dict) else str(u) for u in ctx.get("urls", [])]
    pages = [u for u in urls if not is_document_url(u)][: int(ctx.get("max_pages", 8))]
    read = {
        str(r.input.get("url"))
        for r in done
        if r.name == "viewer_fetch" and not r.input.get("query")
    }
    asked = {
        str(r.input.get("url")) for r in done if r.name == "viewer_fetch" and r.input.get("query")
    }
    readable = {str(r.input.get("url")) for r in _ok(done, "viewer_fetch")}
    calls: list[Call] = [("viewer_fetch", {"url": u}) for u in pages if u not in read]
    if not calls:
        calls = [
            ("viewer_fetch", {"url": u, "query": question})
            for u in pages
            if u in readable and u not in asked
        ]
    docs = [u for u in urls if is_document_url(u)] + document_links(done)
    return calls + plan_downloads(docs, done, tools, int(ctx.get("max_downloads", 6)))


def plan_downloads(
    docs: list[str], done: list[ToolCallRecord], tools: set[str], limit: int
) -> list[Call]:
    """``http_download`` calls for documents not fetched yet, each to a free file name."""
    if "http_download" not in tools:
        return []
    downloaded = _called(done, "http_download", "url")
    taken = _called(done, "http_download", "save_path")
    calls: list[Call] = []
    for url in dict.fromkeys(docs):
        if len(downloaded) + len(calls) >= limit:
            break
        if url in downloaded:
            continue
        name, n = safe_name(url), 1
        path = f"/workspace/downloads/{name}"
        while path in taken:
            n += 1
            path = f"/workspace/downloads/{n}-{name}"
        taken.add(path)
        calls.append(("http_download", {"url": url, "save_path": path}))
    return calls


def _reader_call(path: str) -> Call | None:
    """The File tool call that reads ``path``, chosen by its type; None for unknown binaries."""
    tool = reader_for(path)
    if tool == "read_text_file" and not path.lower().endswith(TEXT_EXTENSIONS):
        return None
    if tool == "xlsx_read_cells":
        return tool, {"path": path, "range": "A1:L60"}
    if tool == "image_qa":
        return tool, {"img_path": path}
    return tool, {"path": path}


def plan_file(ctx: dict, done: list[ToolCallRecord], tools: set[str]) -> list[Call]:
    roots = ["/userinput/", "/workspace/downloads/"]
    listed = _called(done, "list_directory", "path")
    files: list[str] = []
    dirs = list(roots)
    for rec in _ok(done, "list_directory"):
        for entry in rec.metadata.get("entries", []):
            (dirs if entry.get("is_dir") else files).append(entry["path"])
    pending_dirs = [d for d in dict.fromkeys(dirs) if d not in listed]
    if pending_dirs:
        return [("list_directory", {"path": d}) for d in pending_dirs]
    read = {str(r.input.get("path") or r.input.get("img_path")) for r in done}
    calls = [
        call
        for path in dict.fromkeys(files)
        if path not in read and (call := _reader_call(path)) and call[0] in tools
    ]
    if calls:
        return calls
    if "write_file" in tools and not _called(done, "write_file", "path"):
        return [("write_file", {"path": NOTES_PATH, "content": file_notes(ctx, done)})]
    return []


MAX_NOTE_ITEMS = 12


def _sentences(text: str, limit: int) -> list[str]:
    """The first ``limit`` sentences of extracted text, with line breaks undone."""
    flat = re.sub(r"\s*\n\s*", " ", text).strip()
    parts = re.split(r"(?<=[.!?。！？])\s+", flat)
    return [p for p in parts if len(p) > 20][:limit]


def _row_bullet(row: list[Any]) -> str:
    return " — ".join(str(c) for c in row if c not in (None, ""))


def note_items(rec: ToolCallRecord) -> list[str]:
    """What one read contributes to the notes, as short bullet texts."""
    meta = rec.metadata
    if rec.name == "pdf_read_text":
        text = " ".join(str(p.get("text", "")) for p in meta.get("pages", []))
        return _sentences(text, MAX_NOTE_ITEMS)
    if rec.name in ("csv_read", "xlsx_read_cells"):
        rows = meta.get("rows") or meta.get("cells") or []
        return [_row_bullet(r) for r in rows[:MAX_NOTE_ITEMS] if _row_bullet(r)]
    if rec.name == "pptx_read_outline":
        return [
            f"{s.get('title', '')}: " + "; ".join(b.get("text", "") for b in s.get("bullets", []))
            for s in meta.get("slides", [])[:MAX_NOTE_ITEMS]
        ]
    if rec.name == "image_qa":
        lines = [ln for ln in str(meta.get("ocr_text") or "").splitlines() if ln.strip()]
        return [f"Text in the image: {ln}" for ln in lines[:MAX_NOTE_ITEMS]]
    body = rec.text.split("\n", 1)[1] if "\n" in rec.text else rec.text
    lines = [ln.strip(" -*#\t") for ln in body.splitlines()]
    return [ln for ln in lines if len(ln) > 3][:MAX_NOTE_ITEMS]


def file_notes(ctx: dict, done: list[ToolCallRecord]) -> str:
    """Notes in the Generate notes format: one section per file read, user input first."""
    reads = [r for r in done if not r.failed and r.name not in ("list_directory", "write_file")]
    reads.sort(
        key=lambda r: (
            not str(r.input.get("path") or r.input.get("img_path") or "").startswith("/userinput/")
        )
    )
    sections = []
    for rec in reads:
        path = str(rec.input.get("path") or rec.input.get("img_path") or "")
        items = note_items(rec)
        if not items:
            continue
        where = "input file" if path.startswith("/userinput/") else "downloaded file"
        name = path.rsplit("/", 1)[-1]
        body = "\n".join(f"- {item}" for item in items)
        sections.append(f"## From the {where} {name}\n\n{body}\n")
    return "\n".join(sections)


FORMAT_TOOLS = {
    "md": ("generate_markdown", "report.md"),
    "html": ("generate_html", "report.html"),
    "pdf": ("generate_pdf", "report.pdf"),
    "pptx": ("generate_pptx", "report.pptx"),
}


def plan_generate(ctx: dict, done: list[ToolCallRecord], tools: set[str]) -> list[Call]:
    if done:
        return []
    requirements = (
        f"{ctx.get('question', '')}\n\n"
        "Answer this question from the stored pages, the evidence and the notes; "
        "cite every claim."
    )
    if ctx.get("evidence_ids"):
        requirements += "\nEvidence ids: " + ", ".join(ctx["evidence_ids"])
    from_paths = list(ctx.get("paths", []))
    calls = []
    for fmt in ctx.get("formats", ["md", "html", "pdf", "pptx"]):
        tool, name = FORMAT_TOOLS[fmt]
        if tool in tools:
            args = {"requirements": requirements, "out_path": f"/workspace/reports/{name}"}
            if from_paths:
                args["from_paths"] = from_paths
            calls.append((tool, args))
    return calls


PLANS = (
    ("search_wiki", plan_search),
    ("viewer_fetch", plan_browser),
    ("list_directory", plan_file),
    ("generate_markdown", plan_generate),
)


def message_text(message: dict) -> str:
    """The text of a formatted chat message (a string or a list of blocks)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return ""


class OfflinePolicy(ChatModelBase):
    """A deterministic ``ChatModelBase`` that plans tool calls from context and results."""

    def __init__(self) -> None:
        super().__init__(model_name="offline", stream=False)
        self.guard: ToolGuard | None = None
        self.since = 0

    def bind(self, guard: ToolGuard) -> None:
        """See this subagent's tool results through its guard."""
        self.guard = guard

    def start_delegation(self) -> None:
        """Forget the calls of earlier delegations."""
        self.since = len(self.guard.records) if self.guard else 0

    def next_calls(self, tools: set[str], ctx: dict) -> list[Call]:
        done = self.guard.records[self.since :] if self.guard else []
        if any(r.refused for r in done):
            return []  # over the cap: wrap up
        for marker, plan in PLANS:
            if marker in tools or (
                marker == "generate_markdown" and any(t.startswith("generate_") for t in tools)
            ):
                return plan(ctx, done, tools)
        return []

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        names = {t["function"]["name"] for t in tools or []}
        ctx = find_context([message_text(m) for m in messages])
        calls = self.next_calls(names, ctx)
        usage = ChatUsage(input_tokens=0, output_tokens=0, time=0.0)
        if not calls:
            return ChatResponse(
                content=[TextBlock(type="text", text=self._final(ctx))], usage=usage
            )
        blocks = [
            ToolUseBlock(type="tool_use", id="off-" + secrets.token_hex(6), name=name, input=args)
            for name, args in calls
        ]
        return ChatResponse(content=blocks, usage=usage)

    def _final(self, ctx: dict) -> str:
        done = self.guard.records[self.since :] if self.guard else []
        ok = [r for r in done if not r.failed]
        lines = [f"Finished: {len(ok)} of {len(done)} tool calls succeeded."]
        for r in ok[:40]:
            target = (
                r.input.get("url")
                or r.input.get("path")
                or r.input.get("out_path")
                or r.input.get("query")
                or r.input.get("img_path")
                or ""
            )
            lines.append(f"- {r.name}: {target}")
        return "\n".join(lines)
