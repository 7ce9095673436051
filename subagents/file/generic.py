"""Generic file tools: directories, file facts, and plain-text read, write, edit, delete."""

import asyncio
import builtins
import datetime as dt
import difflib

from agentscope.tool import ToolResponse
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from ..results import ok
from ..untrusted import SAFE_LT, restore
from .converted import converted_for
from .guard import ToolInputError, file_tool
from .limits import (
    DEFAULT_LINES,
    MAX_BODY_CHARS,
    MAX_DIR_ENTRIES,
    MAX_LINE_CHARS,
    clip,
)
from .lines import count_lines, iter_lines, line_of, line_start
from .reading import read_once
from .sniff import binary_kind, decode_text, encode_like


class TextEdit(BaseModel):
    """One exact replacement in a text file."""

    old_text: str = Field(
        description="Text to find; it must occur exactly once in the file, "
        "whitespace and line breaks included."
    )
    new_text: str = Field(description="Text that replaces it (may be empty to remove it).")


_EDITS = TypeAdapter(list[TextEdit])

#: File name endings and the tool that reads them, for hints in results.
_READERS = {
    ".pdf": "pdf_read_text",
    ".csv": "csv_read",
    ".tsv": "csv_read",
    ".xlsx": "xlsx_read_cells",
    ".xlsm": "xlsx_read_cells",
    ".pptx": "pptx_read_outline",
    ".docx": "read_text_file",
    ".odt": "read_text_file",
    ".rtf": "read_text_file",
    ".epub": "read_text_file",
    ".png": "image_qa",
    ".jpg": "image_qa",
    ".jpeg": "image_qa",
    ".gif": "image_qa",
    ".webp": "image_qa",
    ".bmp": "image_qa",
    ".tif": "image_qa",
    ".tiff": "image_qa",
}


def reader_for(path: str) -> str:
    """The tool that reads ``path``, judged by its name."""
    dot = path.rfind(".")
    return (
        _READERS.get(path[dot:].lower(), "read_text_file")
        if dot > path.rfind("/")
        else ("read_text_file")
    )


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


async def load_text(path: str, svc: object, documents: bool = True) -> tuple[str, str]:
    """Read ``path`` as text through the service; return ``(text, encoding)``.

    A document read_text_file converts (Word, OpenDocument text, EPUB, RTF, HTML; see
    :mod:`.converted`) is converted when ``documents`` is true; its "encoding" then says
    so. An RTF or HTML file is converted only where it cannot be written (the user's own
    files): one that may be edited is read as the text it is, so that an edit copied
    from what was read applies. A Word, OpenDocument or EPUB file is never read as plain
    text. Raises ToolInputError naming the right tool when the file is binary, and saying
    why when a document cannot be read.
    """
    svc.check(path, "read_file")
    data = await svc.read_bytes(path)
    kind = binary_kind(data)
    doc = converted_for(path, data, kind)
    if doc is not None and not doc.binary and svc.can(path, "write"):
        doc = None
    if doc is not None and documents:
        # Checking an archive and parsing the document is CPU work: kept off the event
        # loop, done once for the same bytes (see .reading).
        text = await read_once(doc.convert, path, data, libraries=doc.libraries)
        return text, doc.encoding
    if doc is not None and doc.binary:
        article = "an" if doc.kind[:1] in "AEIOU" else "a"
        raise ToolInputError(
            f"Error: {path} is {article} {doc.kind}, not a plain-text file; it cannot be "
            "edited here. Read it with read_text_file and write a new file instead."
        )
    if kind is not None:
        name, tool = kind
        use = f"Use {tool} for it." if tool else "No tool here reads it as text."
        raise ToolInputError(f"Error: {path} is a {name}, not a text file. {use}")
    try:
        return decode_text(data)
    except UnicodeDecodeError as exc:
        raise ToolInputError(
            f"Error: {path} is not text in UTF-8, GBK/GB18030 or another recognised encoding "
            f"(undecodable byte at offset {exc.start}); it is probably binary. "
            "Check it with get_file_info."
        ) from None


@file_tool
async def list_allowed_directories(service: object) -> ToolResponse:
    """List the directories you may use and what you may do in each (read only, or read and write).

    Call this first when unsure where input files are or where results may be written.
    """
    grants = [
        {"path": g.prefix, "access": g.describe(), "writable": not g.read_only}
        for g in sorted(service.grants, key=lambda g: g.prefix)
    ]
    return ok(service.describe_grants_markdown(), paths=[g["path"] for g in grants])


@file_tool
async def list_directory(path: str, service: object) -> ToolResponse:
    """List the files and subdirectories directly inside a directory, with sizes.

    Args:
        path (str): Logical absolute path of the directory, e.g. /userinput/ or /workspace/pages/.
    """
    entries = await service.list_dir(path)
    lines = [f"{path} — {len(entries)} entries:"]
    used = 0
    for e in entries[:MAX_DIR_ENTRIES]:
        if e.is_dir:
            line = f"[DIR]  {e.name}/"
        elif e.special:
            line = f"[OTHER] {e.name} ({e.kind}; not a regular file, never opened)"
        else:
            line = f"[FILE] {e.name} ({e.size:,} bytes)"
        if used + len(line) + 1 > MAX_BODY_CHARS:
            break
        lines.append(line)
        used += len(line) + 1
    if not entries:
        lines.append("(empty)")
    shown = len(lines) - 1
    if len(entries) > shown:
        lines.append(
            f"[… {len(entries) - shown} more entries not shown (only the first {shown}, by "
            "name). List a subdirectory, or use get_file_info on a known name.]"
        )
    return ok("\n".join(lines), paths=[path])


@file_tool
async def get_file_info(path: str, service: object) -> ToolResponse:
    """Show facts about a file or directory: kind, size, time, allowed actions, reading tool.

    Args:
        path (str): Logical absolute path of the file or directory.
    """
    entry = await service.stat(path)
    if entry.special:
        return ok(
            f"path: {entry.path}\nkind: {entry.kind}\nThis is not a regular file: it is never "
            "opened (reading it could wait forever or never end), and no tool reads it.",
            paths=[entry.path],
        )
    kind = "directory" if entry.is_dir else "file"
    actions = [
        word
        for op, word in (("read_binary", "read"), ("write", "write"), ("delete", "delete"))
        if service.can(path, op)
    ]
    lines = [f"path: {entry.path}", f"kind: {kind}"]
    if not entry.is_dir:
        lines.append(f"size: {entry.size:,} bytes")
        if entry.modified:
            lines.append(f"modified: {_when(entry.modified)}")
        tool = reader_for(entry.path)
        if service.can(path, "read_binary"):
            head = await service.read_bytes(path, max_bytes=None) if entry.size <= 1 << 20 else b""
            found = binary_kind(head) if head else None
            if found is not None:
                tool = found[1] or tool
                lines.append(f"type: {found[0]}")
        lines.append(f"read with: {tool}")
    lines.append(f"allowed: {', '.join(actions) or 'nothing but listing'}")
    return ok("\n".join(lines), paths=[entry.path])


def _parse_range(rng: object, total: int) -> tuple[int, int]:
    """1-based inclusive ``(start, end)`` from ``[start, end]``; negatives count from the end."""
    if (
        not isinstance(rng, (list, tuple))
        or len(rng) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in rng)
    ):
        raise ToolInputError(
            f"Error: range must be two whole numbers [start, end], e.g. [1, 200]; got {rng!r}."
        )
    start, end = (x if x > 0 else total + 1 + x for x in rng)
    if rng[0] == 0 or rng[1] == 0:
        raise ToolInputError("Error: line numbers start at 1; use e.g. range=[1, 200].")
    if total == 0:
        raise ToolInputError("Error: the file is empty; there are no lines to read.")
    start = max(start, 1)
    if start > total:
        raise ToolInputError(f"Error: the file has {total} lines; start must be at most {total}.")
    end = min(end, total)
    if end < start:
        raise ToolInputError(f"Error: range end {rng[1]} is before start {rng[0]}.")
    return start, end


@file_tool
async def read_text_file(
    path: str, service: object, range: list[int] | None = None
) -> ToolResponse:
    """Read a text file (txt, md, json, csv, code…) or a document (docx, odt, epub, rtf, html).

    UTF-8, UTF-8 with BOM and GBK/GB18030 are recognised; a file is read whole or by lines.
    A Word (.docx), OpenDocument (.odt), EPUB (.epub) or HTML (.html, .htm) document is
    read as text converted to Markdown: headings as # lines, lists as - items, tables as
    pipe tables; an RTF document (.rtf) as its plain paragraphs. HTML and RTF files you
    may edit are shown as they are, markup included. Long files are shown in parts: the
    result ends with the exact range to ask for next. For PDF, Excel, PowerPoint and
    images use pdf_read_text, xlsx_read_cells, pptx_read_outline and image_qa.

    Args:
        path (str): Logical absolute path of the file, e.g. /userinput/notes.txt or
            /userinput/report.docx.
        range (list[int] | None): Lines to read as [start, end], 1-based and inclusive,
            e.g. [1, 200]; negative numbers count from the end ([-50, -1] = last 50 lines).
            Omit it to read from the start.
    """
    text, encoding = await load_text(path, service)
    # Counting and walking lines of a large text is CPU work: keep it off the event loop.
    return await asyncio.to_thread(_text_result, text, encoding, path, range)


def _text_result(text: str, encoding: str, path: str, rng: object) -> ToolResponse:
    total = count_lines(text)
    if rng is None:
        start, end = 1, min(total, DEFAULT_LINES)
    else:
        start, end = _parse_range(rng, total)
    out: list[str] = []
    used = 0
    last = start - 1
    lines = iter_lines(text, line_start(text, start), MAX_LINE_CHARS)
    for no, (line, extra) in zip(builtins.range(start, end + 1), lines, strict=False):
        if extra:
            line = f"{line}…[+{extra} chars]"
        if out and used + len(line) + 1 > MAX_BODY_CHARS:
            break
        out.append(line)
        used += len(line) + 1
        last = no
    header = (
        f"{path} — lines {start}–{last} of {total} ({encoding})"
        if total
        else f"{path} — empty file ({encoding})"
    )
    parts = [header, "\n".join(out)]
    if last < end or (rng is None and last < total):
        step = max(last - start + 1, 1)
        parts.append(
            f"[{total - last} more lines not shown. To read on, call read_text_file with "
            f"range=[{last + 1}, {min(total, last + step)}].]"
        )
    return ok("\n".join(parts), paths=[path])


@file_tool
async def write_file(path: str, content: str, service: object) -> ToolResponse:
    """Create or replace a text file with the given content (UTF-8).

    The write is atomic: on any failure the old file stays as it was. Only writable
    directories accept it (see list_allowed_directories).

    Args:
        path (str): Logical absolute path of the file to write, e.g. /workspace/notes.md.
        content (str): The complete new text of the file.
    """
    if not isinstance(content, str):
        raise ToolInputError("Error: content must be a string of text.")
    existed = await service.exists(path) if service.can(path, "file") else False
    service.check(path, "write")
    entry = await service.write_text(path, content)
    verb = "Replaced" if existed else "Created"
    n_lines = count_lines(content)
    return ok(
        f"{verb} {path}: {entry.size:,} bytes, {n_lines} lines (UTF-8).",
        paths=[path],
    )


def _hunk(number: int, text: str, at: int, old: str, new: str) -> str:
    """The diff of one edit: the lines it touches, before and after, from its first line.

    Only the touched lines are diffed, each cut to a bounded window around the edit, so a
    diff never costs more than the edit (a one-line file of 50 MB stays cheap).
    """
    start = max(text.rfind("\n", 0, at) + 1, at - MAX_LINE_CHARS)
    end_of_old = at + len(old)
    stop = text.find("\n", end_of_old)
    stop = min(len(text) if stop < 0 else stop, end_of_old + MAX_LINE_CHARS)
    before = text[start:stop]
    after = text[start:at] + new + text[end_of_old:stop]
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=1)
    body = [clip(d, MAX_LINE_CHARS) for d in diff if not d.startswith(("---", "+++", "@@"))]
    return f"@@ edit {number}, line {line_of(text, at)} @@\n" + "\n".join(body)


def _apply_edits(text: str, edits: list[TextEdit]) -> tuple[str, list[str]]:
    """Apply each edit in order; every old_text must occur exactly once when its turn comes.

    Returns the new text and the diff of each edit.
    """
    crlf = "\r\n" in text
    hunks: list[str] = []
    for i, edit in enumerate(edits, 1):
        old, new = edit.old_text, edit.new_text
        if not old:
            raise ToolInputError(f"Error: edit {i} has an empty old_text; give the text to find.")
        if SAFE_LT in old and old not in text and restore(old) in text:
            # copied from a neutralised read (see subagents.untrusted): the file has "<"
            old, new = restore(old), restore(new)
        if crlf and old not in text and old.replace("\n", "\r\n") in text:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        count = text.count(old)
        if count != 1:
            where = "is not in the file" if count == 0 else f"occurs {count} times"
            fix = (
                "Read the file again and copy the text exactly."
                if count == 0
                else "Include more surrounding text so it matches once."
            )
            after = f" once edits 1–{i - 1} are applied" if i > 1 else ""
            raise ToolInputError(
                f"Error: edit {i}: old_text {clip(old, 200)!r} {where}{after}. {fix} "
                "Nothing was changed."
            )
        at = text.index(old)
        hunks.append(_hunk(i, text, at, old, new))
        text = text[:at] + new + text[at + len(old) :]
    return text, hunks


@file_tool
async def edit_file(path: str, edits: list[TextEdit], service: object) -> ToolResponse:
    """Change a text file by exact replacements; all of them apply or none does.

    Each old_text must occur exactly once in the file at the time it is applied (edits
    apply in order). The file keeps its encoding. The result shows a diff.

    Args:
        path (str): Logical absolute path of the text file to change.
        edits (list[TextEdit]): Replacements as [{"old_text": ..., "new_text": ...}, ...].
    """
    try:
        parsed = _EDITS.validate_python(edits)
    except ValidationError as exc:
        raise ToolInputError(
            'Error: edits must be a list of {"old_text": str, "new_text": str} objects '
            f"({exc.error_count()} problems, first: {exc.errors()[0]['msg']})."
        ) from None
    if not parsed:
        raise ToolInputError("Error: edits is empty; give at least one replacement.")
    service.check(path, "write")
    text, encoding = await load_text(path, service, documents=False)
    new_text, hunks = await asyncio.to_thread(_apply_edits, text, parsed)
    try:
        data = encode_like(new_text, encoding)
    except UnicodeEncodeError:
        data, encoding = new_text.encode("utf-8"), "UTF-8"
    await service.write_bytes(path, data)
    diff = "\n".join([f"--- {path}", f"+++ {path}", *hunks])
    if len(diff) > MAX_BODY_CHARS:
        diff = diff[:MAX_BODY_CHARS] + (
            f"\n[… diff cut at {MAX_BODY_CHARS:,} characters; read the file with "
            "read_text_file to see the result.]"
        )
    return ok(f"Applied {len(parsed)} edit(s) to {path} ({encoding}).\n{diff}", paths=[path])


@file_tool
async def delete_file(path: str, service: object) -> ToolResponse:
    """Delete one file. Directories are not deleted. Only writable directories allow it.

    Args:
        path (str): Logical absolute path of the file to delete, e.g. /workspace/old.txt.
    """
    entry = await service.stat(path)
    if entry.is_dir:
        raise ToolInputError(f"Error: {path} is a directory; delete_file removes files only.")
    await service.delete(path)
    return ok(f"Deleted {path} ({entry.size:,} bytes).", paths=[path])


__all__ = [
    "TextEdit",
    "delete_file",
    "edit_file",
    "get_file_info",
    "list_allowed_directories",
    "list_directory",
    "load_text",
    "read_text_file",
    "reader_for",
    "write_file",
]
