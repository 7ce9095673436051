"""The File subagent's offline plan: list the input and download folders, then read every
file with the reader for its type (every sheet of a workbook)."""

from __future__ import annotations

import re
from typing import Any

from ..offline import Call, CallResult, called, succeeded
from .generic import reader_for
from .stage import read_path

ROOTS = ("/userinput/", "/workspace/downloads/")
#: Files read_text_file reads in the offline plan (Word, OpenDocument, EPUB, RTF and HTML
#: documents as converted text).
TEXT_EXTENSIONS = (
    ".md", ".txt", ".json", ".yaml", ".yml", ".html", ".htm", ".xml", ".csv", ".docx",
    ".odt", ".epub", ".rtf",
)  # fmt: skip
_ENTRY = re.compile(r"^\[(FILE|DIR)\]\s+(.+?)(?:/| \([\d,]+ bytes\))$", re.M)
_SHEETS = re.compile(r"\(sheets: ([^;]*); used range")


def reader_call(path: str) -> Call | None:
    """The call that reads ``path``, chosen by its type; None for unknown binaries."""
    tool = reader_for(path)
    if tool == "read_text_file" and not path.lower().endswith(TEXT_EXTENSIONS):
        return None
    if tool == "xlsx_read_cells":
        return tool, {"path": path, "range": "A1:Z200"}
    if tool == "image_qa":
        return tool, {"img_path": path}
    return tool, {"path": path}


def listed_files(done: list[CallResult]) -> tuple[list[str], list[str]]:
    """Files and folders named by the directory listings so far."""
    files: list[str] = []
    dirs: list[str] = []
    for rec in succeeded(done, "list_directory"):
        base = str(rec.input.get("path", "")).rstrip("/") + "/"
        for kind, name in _ENTRY.findall(rec.text):
            (dirs if kind == "DIR" else files).append(f"{base}{name}{'/' if kind == 'DIR' else ''}")
    return files, dirs


def _other_sheets(done: list[CallResult]) -> list[Call]:
    calls: list[Call] = []
    asked = called(done, "xlsx_read_cells", "range")
    for rec in succeeded(done, "xlsx_read_cells"):
        found = _SHEETS.search(rec.text.split("\n", 1)[0])
        for sheet in (s.strip() for s in (found.group(1) if found else "").split(",")):
            quoted = f"'{sheet}'!" if re.search(r"[^\w]", sheet) else f"{sheet}!"
            first = f"sheet {sheet!r}" in rec.text.split("\n", 1)[0]
            if sheet and not first and quoted not in asked:
                calls.append(("xlsx_read_cells", {"path": rec.input["path"], "range": quoted}))
                asked.add(quoted)
    return calls


def plan(ctx: dict[str, Any], done: list[CallResult], tools: set[str]) -> list[Call]:
    """Listings first, then one reader call per file not read yet."""
    skip = {str(p) for p in ctx.get("skip") or []}
    named = [str(p) for p in ctx.get("paths") or []]
    roots = [p for p in named if p.endswith("/")] or ([] if named else list(ROOTS))
    files, dirs = listed_files(done)
    listed = called(done, "list_directory", "path")
    pending = [d for d in dict.fromkeys([*roots, *dirs]) if d not in listed]
    if pending and "list_directory" in tools:
        return [("list_directory", {"path": d}) for d in pending]
    read = {read_path(r.input) for r in done}
    wanted = [p for p in dict.fromkeys([*(p for p in named if not p.endswith("/")), *files])]
    calls = [
        call
        for path in wanted
        if path not in read
        and path not in skip
        and (call := reader_call(path))
        and call[0] in tools
    ]
    return calls or [c for c in _other_sheets(done) if c[0] in tools]


def outcome(ctx: dict[str, Any], done: list[CallResult]) -> dict[str, Any]:
    reads = [r for r in done if r.name not in ("list_directory", "list_allowed_directories")]
    ok = [read_path(r.input) for r in reads if r.ok]
    failed = [read_path(r.input) for r in reads if not r.ok]
    return {
        "summary": f"Read {len(set(ok))} files" + (f"; {len(failed)} failed." if failed else "."),
        "evidence_ids": [],
        "gaps": [f"could not read {p}" for p in dict.fromkeys(failed)],
        "files": list(dict.fromkeys(ok)),
    }
