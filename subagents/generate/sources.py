"""Reading ``from_paths`` through the FileDomainService into the material of a report.

Three kinds of input are told apart:

- a stored page: a ``.md`` file with a :class:`~subagents.evidence.PageRecord` sidecar
  beside it (or the ``.json`` sidecar itself). Its text is never copied into the report;
  it contributes its title, URL and the evidence items listed in the sidecar.
- an earlier report written by ``generate_markdown`` (first line :data:`REPORT_MARKER`).
- notes: any other ``.md``/``.markdown``/``.txt`` file, in the format of :mod:`.notes`.

A folder stands for the readable files below it, in name order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from fs_service import FsError
from subagents.evidence import EvidenceItem, PageRecord, evidence_id, sidecar_path

from .notes import Draft, is_report, is_research, parse_notes, parse_report
from .prose import is_prose_cache

TEXT_SUFFIXES = (".md", ".markdown", ".txt")


class MaterialError(Exception):
    """A from_path cannot be used; the message starts with ``Error:`` and says why."""


@dataclass
class Page:
    """A stored page named by a from_path: where it came from and its quoted spans."""

    markdown_path: str
    url: str
    title: str
    evidence: list[EvidenceItem] = field(default_factory=list)


@dataclass
class Material:
    """Everything read from the from_paths."""

    notes: list[tuple[str, str, Draft]] = field(default_factory=list)  # (path, raw text, draft)
    pages: list[Page] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    cited_before: list[EvidenceItem] = field(default_factory=list)
    titles_before: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "path (why)" for unreadable folder files

    def evidence(self) -> dict[str, EvidenceItem]:
        """Evidence items of the pages' sidecars and of earlier reports, by id."""
        found = {item.id: item for item in self.cited_before}
        found.update((item.id, item) for page in self.pages for item in page.evidence)
        return found

    def titles(self) -> dict[str, str]:
        """Page title by page path and by URL."""
        out: dict[str, str] = dict(self.titles_before)
        for page in self.pages:
            if page.title:
                out[page.markdown_path] = page.title
                out[page.url] = page.title
        return out


def _page_from_record(record: PageRecord, md_path: str) -> Page:
    page_path = record.markdown_path or md_path
    items = []
    for raw in record.evidence:
        try:
            item = EvidenceItem.from_dict({"url": record.final_url or record.url, **raw})
        except (KeyError, TypeError, ValueError):
            continue
        if not item.page_path:
            item = EvidenceItem(**{**item.to_dict(), "page_path": page_path})
        if not item.id:
            item = EvidenceItem(**{**item.to_dict(), "id": evidence_id(item)})
        items.append(item)
    return Page(page_path, record.final_url or record.url, record.title, items)


def _record(text: str, path: str) -> PageRecord:
    try:
        if not isinstance(json.loads(text), dict):
            raise ValueError("it is not a JSON object")
        record = PageRecord.from_json(text)
        if not isinstance(record.evidence, list):
            raise ValueError("its evidence is not a list")
    except (json.JSONDecodeError, TypeError, ValueError) as exc:
        raise MaterialError(
            f"Error: {path} is not a page sidecar (PageRecord JSON): {exc}. Pass the page's "
            ".md file, a notes file, or a folder of them."
        ) from None
    return record


async def _rebuild(svc: object, ev_id: str, loc: dict) -> EvidenceItem | None:
    """The evidence item an earlier report cited, rebuilt from its stored page.

    The span is read back from the page at the recorded offsets and must hash to the
    recorded id; if the page changed, the item gets a span that cannot match, so the
    citation is dropped as changed.
    """
    try:
        url, page_path = str(loc["url"]), str(loc["page_path"])
        start, end = int(loc["start"]), int(loc["end"])
    except (KeyError, TypeError, ValueError):
        return None
    try:
        text = await svc.read_text(page_path)
    except FsError:
        text = ""
    locator = str(loc.get("locator") or "")
    item = EvidenceItem(url, text[start:end], start, end, page_path, ev_id, locator)
    if not item.span or evidence_id(item) != ev_id:
        item = EvidenceItem(url, "\x00", start, end, page_path, ev_id, locator)
    return item


async def _expand(svc: object, paths: list[str]) -> list[tuple[str, bool]]:
    """(path, named_explicitly) for each from_path, folders replaced by their files (the
    kept prose of earlier formats left out: it is the model's answer, not material)."""
    out: list[tuple[str, bool]] = []
    for path in paths:
        entry = await svc.stat(path)
        if not entry.is_dir:
            out.append((entry.path, True))
            continue
        files = sorted(f.path for f in await svc.walk_files(path) if not is_prose_cache(f.path))
        out.extend((f, False) for f in files)
    return out


async def read_material(svc: object, from_paths: list[str], labels: set[str]) -> Material:
    """Read every from_path through ``svc``.

    A file found inside a from_paths folder that cannot be read (not UTF-8, a broken
    sidecar) is passed over and listed in ``Material.skipped``; a file named directly
    must be readable.

    Raises:
        FsError: a named path is refused, missing or unreadable (the message says why).
        MaterialError: a named file is of a kind a report cannot be made from.
    """
    material = Material()
    seen_pages: set[str] = set()
    files = await _expand(svc, from_paths)
    file_set = {p for p, _ in files}
    for path, explicit in files:
        try:
            await _read_one(svc, path, explicit, material, file_set, seen_pages, labels)
        except (FsError, MaterialError) as exc:
            if explicit:
                raise
            reason = str(exc).removeprefix("Error: ").split(". ")[0].rstrip(".")
            material.skipped.append(f"{path} ({reason})")
    return material


async def _read_one(
    svc: object,
    path: str,
    explicit: bool,
    material: Material,
    file_set: set[str],
    seen_pages: set[str],
    labels: set[str],
) -> None:
    """Add one file's notes, page or earlier report to ``material``."""
    lower = path.lower()
    if lower.endswith(".json"):
        text = await svc.read_text(path)
        try:
            record = _record(text, path)
        except MaterialError:
            if explicit or path[: -len(".json")] + ".md" in file_set:
                raise  # named, or the sidecar of a page beside it: say so
            return  # other JSON in a folder is not a page sidecar
        page = _page_from_record(record, record.markdown_path)
        if page.markdown_path not in seen_pages:
            seen_pages.add(page.markdown_path)
            material.pages.append(page)
        material.read.append(path)
        return
    if not lower.endswith(TEXT_SUFFIXES):
        if explicit:
            raise MaterialError(
                f"Error: {path} is not a notes file, stored page or Markdown report "
                f"(accepted: {', '.join(TEXT_SUFFIXES)}, page sidecars .json). Extract its "
                "text into a notes file under /workspace/notes/ first."
            )
        return
    if lower.endswith(".md"):
        side = sidecar_path(path)
        if side in file_set:
            return  # the sidecar stands for the page
        if await svc.exists(side):
            record = _record(await svc.read_text(side), side)
            page = _page_from_record(record, path)
            if page.markdown_path not in seen_pages:
                seen_pages.add(page.markdown_path)
                material.pages.append(page)
            material.read.append(path)
            return
    text = await svc.read_text(path)
    if is_report(text):
        draft, locators = parse_report(text, labels)
        for ev_id, loc in locators.items():
            item = await _rebuild(svc, ev_id, loc)
            if item is not None:
                material.cited_before.append(item)
                if loc.get("title"):
                    material.titles_before[item.page_path] = str(loc["title"])
                    material.titles_before[item.url] = str(loc["title"])
    elif is_research(text):
        draft = parse_notes(text.lstrip("\ufeff").split("\n", 1)[1] if "\n" in text else "")
    else:
        draft = parse_notes(text)
    material.notes.append((path, text, draft))
    material.read.append(path)
