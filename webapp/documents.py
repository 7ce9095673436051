"""A run's documents as the app shows them: the HTML report with each citation leading
to its quoted span, the stored copy of a page with that span marked, and files read
safely from the run folder, never more of them than a page can show.

Every file is read through :mod:`host.durability.run_files`: a symbolic link anywhere
below the runs folder is refused, never followed, and what is read is capped. The reads
here block: the app calls them off its event loop."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import lxml.html

from host.durability.run_files import read_text, text_lines

#: The evidence ids the report's list of sources carries (``data-ev="ev-…"``).
_EVIDENCE = re.compile(r"ev-[0-9a-f]{6,40}")
#: The evidence ledger a run keeps (one JSON object a line).
LEDGER = "internal/evidence.jsonl"
#: The most bytes of a ledger read (a long run's is a few megabytes).
MAX_LEDGER_BYTES = 64 * 1024 * 1024
#: The most bytes of a document of a run's workspace laid out in a page (a report, a
#: stored page: a page is stored from at most 2 MB of HTML, see
#: :data:`subagents.browser.tiers.MAX_PAGE_BYTES`); a larger file is sent as it is.
MAX_SHOWN_BYTES = 4 * 1024 * 1024
#: The most tags of an HTML document laid out (a report has about a thousand): the
#: parser holds a kilobyte or more for each, and a crafted report of a megabyte made
#: 24,000 of them. A document with more is sent as its text.
MAX_LAID_OUT_TAGS = 30_000
#: The most bytes of a stored page's record read.
MAX_META_BYTES = 1024 * 1024


def laid_out(html: str) -> bool:
    """Whether the HTML document ``html`` is laid out in a page: it has at most
    :data:`MAX_LAID_OUT_TAGS` tags (counted as its ``<``, more than it can have)."""
    return html.count("<") <= MAX_LAID_OUT_TAGS


def workspace_text(run: Path, relative: str, limit: int = MAX_SHOWN_BYTES) -> str | None:
    """The text of the file ``relative`` of the run's workspace, read without following
    a symbolic link at any level; None when it is not there, is refused or is larger
    than ``limit`` bytes.

    Args:
        run: the run's folder.
        relative: the file's path inside the run's workspace.
        limit: the most bytes read.
    """
    try:
        return read_text(run, f"workspace/{relative}", limit)
    except OSError:  # not there, or refused (a link, not a plain file, too large)
        return None


def cite_href(run_id: str, evidence: str) -> str:
    return f"/runs/{run_id}/cite/{evidence}#quote"


def linked_report(html: str, run_id: str) -> str:
    """The report with each citation (``[3]``) and each quote in its list of sources
    leading to the quoted span in the stored page (see :func:`link_citations`)."""
    doc = lxml.html.document_fromstring(html)
    link_citations(doc, run_id)
    return lxml.html.tostring(doc, encoding="unicode", doctype="<!DOCTYPE html>")


def link_citations(doc: lxml.html.HtmlElement, run_id: str) -> None:
    """Make each citation (``[3]``) and each quote in the report's list of sources lead
    to the quoted span in the stored page.

    The report is parsed as HTML (lxml, in time linear in its size), never searched with
    patterns that could take time out of proportion to a crafted file; each quote's own
    link to its live page gives way to the link to its span, as a link cannot hold
    another.

    Args:
        doc: the parsed report, changed in place.
        run_id: the run's id.
    """
    items = doc.xpath('//li[starts-with(@id, "src-")][@data-ev]')
    quotes = {
        li.get("id")[4:]: li.get("data-ev")
        for li in items
        if _EVIDENCE.fullmatch(li.get("data-ev"))
    }
    for link in doc.xpath('//a[starts-with(@href, "#src-")]'):
        evidence = quotes.get(link.get("href")[5:])
        if evidence:
            link.set("href", cite_href(run_id, evidence))
    for li in items:
        evidence = li.get("data-ev")
        if not _EVIDENCE.fullmatch(evidence):
            continue
        for live in li.xpath('.//a[@class="at-quote"]'):
            live.drop_tag()
        opening = lxml.html.Element(
            "a", {"class": "open-quote", "href": cite_href(run_id, evidence)}
        )
        opening.text, li.text = li.text, None
        for child in list(li):
            opening.append(child)
        li.append(opening)


@dataclass(frozen=True)
class Quoted:
    """A stored page split around one quoted span."""

    title: str
    url: str
    before: str
    span: str
    after: str
    locator: str


def find_evidence(run: Path, evidence: str) -> dict[str, object] | None:
    """The ledger's item ``evidence`` of the run (``internal/evidence.jsonl``); None when
    there is none, or the ledger is refused (see :mod:`host.durability.run_files`)."""
    if not _EVIDENCE.fullmatch(evidence):
        return None
    try:
        with text_lines(run, LEDGER, MAX_LEDGER_BYTES) as lines:
            for line in lines:
                try:
                    item = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if isinstance(item, dict) and item.get("id") == evidence:
                    return item
    except OSError:  # not there, or refused
        return None
    return None


def quoted(run: Path, evidence: str) -> Quoted | None:
    """The stored page of a cited item, split around its span; None when the run has no
    such item or its page is not stored in the run's workspace."""
    item = find_evidence(run, evidence)
    if item is None:
        return None
    page = str(item.get("page_path") or "")
    if not page.startswith("/workspace/"):
        return None
    text = workspace_text(run, page.removeprefix("/workspace/"))
    if text is None:
        return None
    start, end = _offset(item.get("start")), _offset(item.get("end"))
    span = str(item.get("span") or "")
    if not (0 <= start <= end <= len(text)) or (span and text[start:end] != span):
        found = text.find(span) if span else -1  # offsets from another reading: find it
        start, end = (found, found + len(span)) if found >= 0 else (0, 0)
    title = str(item.get("title") or "") or _title_of(run, page)
    return Quoted(
        title=title,
        url=str(item.get("url") or ""),
        before=text[:start],
        span=text[start:end],
        after=text[end:],
        locator=str(item.get("locator") or ""),
    )


def _offset(raw: object) -> int:
    """A span's offset as the ledger gives it; 0 when it is not a whole number."""
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else 0


def _title_of(run: Path, page: str) -> str:
    meta = workspace_text(
        run, page.removeprefix("/workspace/").rsplit(".", 1)[0] + ".json", MAX_META_BYTES
    )
    if meta is not None:
        try:
            return str(json.loads(meta).get("title") or "")
        except (ValueError, AttributeError, RecursionError):
            return ""
    return ""


def stored_meta(run: Path, relative: str) -> tuple[str, str]:
    """The title and address of a stored page of the run's workspace (``pages/x.md``),
    or of its copy beside the report (``reports/copies/x.md``), from the record stored
    with the page; empty strings where there is none.

    Args:
        run: the run folder.
        relative: the stored page's path inside the run's workspace.
    """
    stem = relative.rsplit(".", 1)[0]
    name = stem.rsplit("/", 1)[-1]
    for candidate in (stem, f"pages/{name}", f"sources/{name}"):
        meta = workspace_text(run, f"{candidate}.json", MAX_META_BYTES)
        if meta is None:
            continue
        try:
            record = json.loads(meta)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict):
            return str(record.get("title") or ""), str(record.get("url") or "")
    return "", ""


def inputs_used(run: Path) -> dict[str, int]:
    """How many evidence items the run took from each of the user's files, by name (none
    when the ledger is not there or is refused)."""
    used: dict[str, int] = {}
    try:
        with text_lines(run, LEDGER, MAX_LEDGER_BYTES) as lines:
            for line in lines:
                try:
                    url = json.loads(line).get("url")
                except (ValueError, AttributeError, RecursionError):
                    continue
                if isinstance(url, str) and url.startswith("/userinput/"):
                    name = url.removeprefix("/userinput/")
                    used[name] = used.get(name, 0) + 1
    except OSError:  # not there, or refused
        return {}
    return used
