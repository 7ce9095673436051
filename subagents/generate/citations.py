"""Resolving citation markers to evidence and checking each against its stored page.

A marker survives only if its evidence id is known — in the run's
:class:`~subagents.evidence.EvidenceLedger` or in the sidecars of the from_paths — and the
item's span is still exactly ``text[start:end]`` of the page text read through the
FileDomainService from the item's ``page_path``. Survivors are numbered 1, 2, … source by
source (sources in order of first citation, see :func:`by_source`); every other marker is
removed and reported with the reason.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, replace

from fs_service import FsError
from research.support import supports
from subagents.evidence import EvidenceItem, sidecar_path, span_matches

from .notes import Cite, Draft, Point


@dataclass(frozen=True)
class Citation:
    """A checked citation: its number, the evidence item, the page title, when the
    page's stored copy was fetched and the page's own date (ISO 8601, from its sidecar;
    "" when unknown)."""

    number: int
    item: EvidenceItem
    title: str = ""
    fetched: str = ""
    published: str = ""


@dataclass(frozen=True)
class Dropped:
    """A marker that was removed, and why; ``unsupported`` when its evidence is real but
    does not say what the claim beside it says."""

    key: str
    reason: str
    unsupported: bool = False

    def describe(self) -> str:
        key = f"[{self.key[1:]}]" if self.key.startswith("#") else f"[{self.key}]"
        return f"{key} {self.reason}"


#: Characters of a span's page on either side of it that count as the sentences around it.
AROUND = 300


class CitationChecker:
    """Looks evidence ids up and checks spans against stored pages, caching page texts."""

    def __init__(
        self,
        svc: object,
        ledger: object | None,
        pool: dict[str, EvidenceItem],
        titles: dict[str, str] | None = None,
    ) -> None:
        self._svc = svc
        self._ledger = ledger
        self._pool = pool
        self._titles = titles or {}
        self._pages: dict[str, str | FsError] = {}
        self._verdicts: dict[str, EvidenceItem | str] = {}
        self._sidecars: dict[str, dict] = {}

    def candidates(self, key: str) -> list[EvidenceItem]:
        found = []
        if self._ledger is not None and not key.startswith("#"):
            item = self._ledger.get(key)
            if item is not None:
                found.append(item)
        if key in self._pool and self._pool[key] not in found:
            found.append(self._pool[key])
        return found

    async def _page_text(self, path: str) -> str | FsError:
        if path not in self._pages:
            try:
                self._pages[path] = await self._svc.read_text(path)
            except FsError as exc:
                self._pages[path] = exc
        return self._pages[path]

    async def check(self, key: str) -> EvidenceItem | str:
        """The verified item for ``key``, or the reason it cannot be cited."""
        if key in self._verdicts:
            return self._verdicts[key]
        items = self.candidates(key)
        reason = "is not an evidence id of this run or of the given pages"
        if key.startswith("#"):
            reason = "is a numbered marker with no matching entry in a Sources list"
        verdict: EvidenceItem | str = reason
        for item in items:
            if not item.page_path:
                verdict = "has no stored page to check its span against"
                continue
            text = await self._page_text(item.page_path)
            if isinstance(text, FsError):
                verdict = f"cannot be checked: its page {item.page_path} is unreadable ({text})"
                continue
            if span_matches(text, item):
                verdict = item
                break
            verdict = (
                f"quotes a span that is not at {item.start}–{item.end} of {item.page_path} "
                "(altered span or changed page)"
            )
        self._verdicts[key] = verdict
        return verdict

    async def around(self, item: EvidenceItem) -> str:
        """The text beside a verified span on its page (the sentences around it)."""
        text = await self._page_text(item.page_path) if item.page_path else ""
        if isinstance(text, FsError):
            return ""
        return (
            f"{text[max(0, item.start - AROUND) : item.start]} {text[item.end : item.end + AROUND]}"
        )

    async def _sidecar(self, page_path: str) -> dict:
        """The stored sidecar of the page at ``page_path`` ({} when it has none)."""
        if page_path not in self._sidecars:
            raw: object = {}
            with contextlib.suppress(FsError, ValueError):
                raw = json.loads(await self._svc.read_text(sidecar_path(page_path)))
            self._sidecars[page_path] = raw if isinstance(raw, dict) else {}
        return self._sidecars[page_path]

    async def title_of(self, item: EvidenceItem) -> str:
        """The page's title: from the given pages, else from its stored sidecar."""
        title = self._titles.get(item.page_path) or self._titles.get(item.url)
        if title is None and item.page_path:
            raw = (await self._sidecar(item.page_path)).get("title")
            title = raw.strip() if isinstance(raw, str) else ""
            self._titles[item.page_path] = title
        return title or ""

    async def fetched_of(self, item: EvidenceItem) -> str:
        """When the copy of a web page the item quotes was fetched, from its stored
        sidecar ("" for a file, or when the sidecar does not say)."""
        if not item.page_path or not item.url.startswith(("http://", "https://")):
            return ""
        raw = (await self._sidecar(item.page_path)).get("fetched_at")
        return raw if isinstance(raw, str) else ""

    async def published_of(self, item: EvidenceItem) -> str:
        """The own date of the web page the item quotes (published or updated), from its
        stored sidecar ("" for a file, or when the page gives none)."""
        if not item.page_path or not item.url.startswith(("http://", "https://")):
            return ""
        raw = (await self._sidecar(item.page_path)).get("published")
        return raw if isinstance(raw, str) else ""

    async def citation(self, number: int, item: EvidenceItem) -> Citation:
        """Citation ``number`` of a verified item, with its page's title, fetch time and
        own date."""
        title = await self.title_of(item)
        return Citation(
            number, item, title, await self.fetched_of(item), await self.published_of(item)
        )


@dataclass
class Checked:
    """A draft whose markers are all checked: ``Cite`` keys are now ``#n`` numbers;
    ``claims`` is how many cited claims were checked for support, ``supported`` how many
    of them their spans support."""

    draft: Draft
    citations: list[Citation]
    dropped: list[Dropped]
    claims: int = 0
    supported: int = 0

    @property
    def accuracy(self) -> float | None:
        """Supported ÷ checked claims (None when none was checked)."""
        return self.supported / self.claims if self.claims else None


_LAST_SENTENCE = re.compile(r"(?:(?<=[.!?])\s+|(?<=[。！？]))(?=\S)")


def _without_last_sentence(text: str) -> str:
    """``text`` without its last sentence (the claim a failed citation stood behind)."""
    cuts = [m.end() for m in _LAST_SENTENCE.finditer(text.rstrip())]
    return text[: cuts[-1]] if cuts else ""


def last_sentence(text: str) -> str:
    """The last sentence of ``text``: the claim the markers after it stand behind."""
    return text[len(_without_last_sentence(text)) :].strip()


def _claims_to_check(draft: Draft) -> set[int]:
    """The points whose claims are checked for support: the summary and the body of each
    part (the writer's own words), not table captions, disagreements or what could not
    be found, which the research core wrote from the spans themselves."""
    points = [
        *draft.lead,
        *(p for s in draft.sections if s.kind in ("part", "other") for p in s.points),
    ]
    return {id(p) for p in points}


async def check_draft(draft: Draft, checker: CitationChecker, support: bool = False) -> Checked:
    """Number the verified markers of ``draft``; a claim none of whose markers verifies is
    removed with them (in place), so no claim is left behind uncited.

    With ``support`` (for a writer that words its own claims), a claim whose markers all
    verify is also removed with them unless one of their spans supports it (see
    :func:`research.support.supports`): its numbers, dates and names are there, and
    enough of its words."""
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    dropped: dict[str, Dropped] = {}
    checked = _claims_to_check(draft) if support else set()
    claims = supported = 0
    for point in draft.points():
        parts: list = []
        cited_here: set[int] = set()
        removed_last = False
        i = 0
        while i < len(point.parts):
            part = point.parts[i]
            if not isinstance(part, Cite):
                parts.append(part)
                i += 1
                removed_last = removed_last and not re.search(r"\w", part)
                continue
            run: list[Cite] = []
            while i < len(point.parts) and isinstance(point.parts[i], Cite):
                run.append(point.parts[i])
                i += 1
            verified: list[tuple[Cite, EvidenceItem]] = []
            for cite in run:
                verdict = await checker.check(cite.key)
                if isinstance(verdict, str):
                    dropped.setdefault(cite.key, Dropped(cite.key, verdict))
                    continue
                verified.append((cite, verdict))
            claim = last_sentence(parts[-1]) if parts and isinstance(parts[-1], str) else ""
            if verified and id(point) in checked and claim:
                claims += 1
                verdicts = [supports(claim, i.span, await checker.around(i)) for _, i in verified]
                if any(v.supported for v in verdicts):
                    supported += 1
                else:
                    for (cite, _), v in zip(verified, verdicts, strict=True):
                        dropped.setdefault(
                            cite.key,
                            Dropped(cite.key, f"does not support its claim: {v.reason()}", True),
                        )
                    verified = []
            kept: list[int] = []
            for _, verdict in verified:
                if verdict.id not in numbers:
                    numbers[verdict.id] = len(numbers) + 1
                    citations.append(await checker.citation(numbers[verdict.id], verdict))
                kept.append(numbers[verdict.id])
            if not kept:
                if parts and isinstance(parts[-1], str):
                    parts[-1] = _without_last_sentence(parts[-1])
                removed_last = True
                continue
            removed_last = False
            for n in kept:
                if n not in cited_here:
                    cited_here.add(n)
                    parts.append(Cite(f"#{n}"))
        if parts and isinstance(parts[-1], str):
            parts[-1] = parts[-1].rstrip()
        last = parts[-1] if parts else None
        if removed_last and len(parts) > 1 and isinstance(last, str) and not re.search(r"\w", last):
            parts.pop()  # the full stop of a removed claim, left after a kept marker
        point.parts = [p for p in parts if p != ""]
        if not any(isinstance(p, str) and p.strip() for p in point.parts):
            point.parts = []
    draft.lead = [p for p in draft.lead if p.parts]
    for section in draft.sections:
        section.points = [p for p in section.points if p.parts]
        section.tables = [t for t in section.tables if t.caption.cites()]  # sourced tables only
    draft.sections = [s for s in draft.sections if s.points or s.tables]
    citations = by_source(draft, citations)
    return Checked(draft, citations, list(dropped.values()), claims, supported)


def by_source(draft: Draft, citations: list[Citation]) -> list[Citation]:
    """``citations`` numbered source by source, so that the quotes listed under one source
    carry consecutive numbers ([3] [4] [5], not [3] [6] [13]): sources in order of their
    first citation, a source's quotes in the order they are first cited. The ``#n``
    markers of ``draft`` are renumbered (in place) to match, each run of markers in
    increasing order."""
    groups: dict[str, list[Citation]] = {}
    for c in citations:
        groups.setdefault(c.item.url, []).append(c)
    ordered = [c for group in groups.values() for c in group]
    renumber = {c.number: n for n, c in enumerate(ordered, 1)}
    for point in draft.points():
        parts: list = []
        for part in point.parts:
            if isinstance(part, Cite) and part.key.startswith("#"):
                part = Cite(f"#{renumber.get(int(part.key[1:]), int(part.key[1:]))}")
            parts.append(part)
        point.parts = _sorted_runs(parts)
    return [replace(c, number=renumber[c.number]) for c in ordered]


def _sorted_runs(parts: list) -> list:
    """``parts`` with each run of adjacent numbered markers in increasing order."""
    out: list = []
    run: list[Cite] = []
    for part in [*parts, None]:
        if isinstance(part, Cite) and part.key.startswith("#"):
            run.append(part)
            continue
        out.extend(sorted(run, key=lambda c: int(c.key[1:])))
        run = []
        if part is not None:
            out.append(part)
    return out


__all__ = ["Checked", "Citation", "CitationChecker", "Dropped", "Point", "check_draft"]
