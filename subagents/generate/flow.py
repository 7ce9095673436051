"""The steps every generate_* tool shares: check out_path, read, write the report, render, save.

The file is built in memory and written with one atomic ``write_bytes`` through the
FileDomainService, so a generation that fails at any step leaves nothing at ``out_path``.
Beside it go the files it refers to: its chart images, and a copy of each cited source's
stored text under ``copies/`` (see :data:`.report.COPIES`), so that the report's links
work wherever its folder is copied; last, ``<stem>.zip`` (``tidal-mills.zip`` beside
``tidal-mills.md``) is rewritten to hold the report's files, every format of it written so far,
its images and the copies, for reading elsewhere.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import io
import math
import weakref
import zipfile
from dataclasses import dataclass

from agentscope.tool import ToolResponse

from fs_service import FsError
from research.requirements import pages_wanted
from subagents.failures import plain_reason
from subagents.results import error, json_block, ok

from .charts import attach_charts
from .formats import Format, Rendered
from .pdf import printed_length
from .report import (
    COPIES,
    SOURCES_HEADINGS,
    Colophon,
    Report,
    build_report,
    for_readers,
    stored_link,
)
from .sources import Material, MaterialError, read_material


def _summary_text(report: Report, fmt: Format, path: str, size: int) -> str:
    lines = [
        f"Wrote {path} ({fmt.name}, {size:,} bytes): {report.title!r}, "
        f"{len(report.sections)} sections, {len(report.citations)} citations "
        f"from {len(report.sources())} pages, prose {report.prose}."
    ]
    if report.dropped:
        lines.append(
            f"Dropped {len(report.dropped)} citation(s) that do not verify or do not support "
            "their claims; the markers and claims were removed:"
        )
        lines.extend(f"- {d.describe()}" for d in report.dropped[:20])
        if len(report.dropped) > 20:
            lines.append(f"- … and {len(report.dropped) - 20} more")
    lines.extend(f"Note: {n}." for n in report.notes)
    facts = {
        "path": path,
        "format": fmt.name,
        "sections": len(report.sections),
        "citations": len(report.citations),
        "dropped": len(report.dropped),
        "unsupported": report.unsupported,
        "claims_checked": report.claims,
        "citation_accuracy": report.citation_accuracy,
        "empty": report.empty,
        "cited": {e.url: len(e.quotes) for e in report.source_entries()},
    }
    lines.append(json_block(facts))
    return "\n".join(lines)


async def _copies(report: Report, svc: object) -> dict[str, bytes]:
    """Each cited source's stored text, by its name under ``copies/`` (a stored copy the
    run can no longer read is left out)."""
    out: dict[str, bytes] = {}
    for entry in report.source_entries():
        if not entry.stored:
            continue
        try:
            text = await svc.read_text(entry.stored)
        except FsError:
            continue
        out[stored_link(entry.stored)] = text.encode("utf-8")
    return out


def stem_of(path: str) -> str:
    """A file's name without its folder and suffix: ``/workspace/reports/x.md`` → ``x``."""
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0]


#: One lock per reports folder and event loop: formats written at once (a model may ask
#: for them in one turn) zip the folder one after the other, so the last zip holds every
#: format written before it.
_ZIP_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = (
    weakref.WeakKeyDictionary()
)


async def _zip_report(svc: object, out_path: str) -> str:
    """Write ``<stem>.zip`` beside ``out_path`` holding the report's files there — every
    file named ``<stem>.…`` or ``<stem>-…`` (its formats, its chart images) and the
    copies under ``copies/`` — at their paths relative to the folder; returns its path."""
    folder = out_path.rsplit("/", 1)[0]
    locks = _ZIP_LOCKS.setdefault(asyncio.get_running_loop(), {})
    async with locks.setdefault(folder, asyncio.Lock()):
        return await _write_zip(svc, folder, stem_of(out_path))


async def _write_zip(svc: object, folder: str, stem: str) -> str:
    archive_path = f"{folder}/{stem}.zip"
    mine = [
        e.name
        for e in await svc.list_dir(folder + "/")
        if not e.is_dir and not e.special and e.name.startswith((f"{stem}.", f"{stem}-"))
    ]
    copies = f"{folder}/{COPIES}/"
    listed = await svc.list_dir(copies) if await svc.exists(copies) else []
    mine += [f"{COPIES}/{e.name}" for e in listed if not e.is_dir and not e.special]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel in sorted(n for n in mine if n != f"{stem}.zip"):
            archive.writestr(rel, await svc.read_bytes(f"{folder}/{rel}"))
    await svc.write_bytes(archive_path, buffer.getvalue())
    return archive_path


#: How many times a report that prints longer than asked is written again shorter.
FIT_TRIES = 3
#: How far under the printed length's share of the pages asked a rewrite aims, so that
#: a report just over its last page does not land on it again.
FIT_MARGIN = 0.98


@dataclass(frozen=True)
class _Writing:
    """What one report is written from."""

    requirements: str
    material: Material
    svc: object
    ledger: object | None
    model: object | None
    whole_ledger: bool
    colophon: object | None

    def key(self) -> str:
        """What the report is written from, as one digest: the requirements, the
        material's text and evidence, and the run's ledger, model and colophon (by
        identity: they are the same objects for every format of one run)."""
        material = self.material
        parts: list[object] = [
            self.requirements,
            self.whole_ledger,
            id(self.svc),
            id(self.ledger),
            id(self.model),
            repr(self.colophon),
            [raw for _, raw, _ in material.notes],
            [(p.markdown_path, [i.id for i in p.evidence]) for p in material.pages],
            [i.id for i in material.cited_before],
            material.read,
        ]
        if self.whole_ledger and self.ledger is not None:
            parts.append(len(self.ledger.items()))
        return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()

    async def report(self, room: float = 1.0) -> Report:
        """The report as every format shows it, its writer's estimate of a page's
        room scaled by ``room``."""
        report = await build_report(
            self.requirements,
            self.material,
            self.svc,
            self.ledger,
            self.model,
            whole_ledger=self.whole_ledger,
            room=room,
        )
        report = for_readers(report)  # checked against the exact spans; shown without Cf
        report.colophon = self.colophon if isinstance(self.colophon, Colophon) else None
        # each chart drawn for the part it stands in, or moved to an appendix
        report.sections = attach_charts(report.sections, report.lang, report.title)
        return report


#: Reports being written, by what they are written from (see :meth:`_Writing.key`), for
#: each event loop: formats asked for at once wait for one report.
_WRITING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Future]] = (
    weakref.WeakKeyDictionary()
)


async def _shared(writing: _Writing) -> Report:
    """The report ``writing`` gives, written once for every format asked for while it is
    being written (a run asks for its formats at once: one report, one model call, one
    layout, and every format says the same); each caller gets its own copy to render."""
    writing_now = _WRITING.setdefault(asyncio.get_running_loop(), {})
    key = writing.key()
    task = writing_now.get(key)
    if task is None:
        task = writing_now[key] = asyncio.ensure_future(_fitted(writing))
        task.add_done_callback(lambda _: writing_now.pop(key, None))
    return copy.deepcopy(await asyncio.shield(task))


async def _fitted(writing: _Writing) -> Report:
    """The report, within the most pages the requirements ask for (see
    :func:`research.requirements.pages_wanted`) when its printed pages are over: the
    extractive writer fits research notes by an estimate of how much a page holds, and
    a report its printed pages show over is written again with less room, the same
    in every format. Each part keeps its least lines, so a report may still be over
    after :data:`FIT_TRIES`; a report that cannot be laid out is left as written."""
    report = await writing.report()
    if not report.fitted:
        return report
    high = pages_wanted(writing.requirements)[1]
    room = 1.0
    for _ in range(FIT_TRIES):
        try:
            length = await asyncio.to_thread(printed_length, report)
        except Exception:  # a layout failure is the PDF's to report, not every format's
            break
        if math.ceil(length) <= high:
            break
        room *= high / length * FIT_MARGIN
        report = await writing.report(room)
    return report


async def generate(
    fmt: Format,
    requirements: str | None,
    out_path: str,
    from_paths: list[str] | None,
    svc: object,
    ledger: object | None,
    model: object | None,
    colophon: object | None = None,
) -> ToolResponse:
    """Run one generation end to end; every failure comes back as an ``Error:`` result.

    ``colophon`` (a :class:`.report.Colophon`, which the Host injects in a run) is the
    line every format ends with; anything else leaves it out.
    """
    try:
        clean = svc.check(out_path, "write")
    except FsError as exc:
        return error(str(exc))
    if not clean.lower().endswith(fmt.suffixes):
        return error(
            f"out_path {clean} must end with {' or '.join(fmt.suffixes)} for a {fmt.name} "
            f"report, e.g. /workspace/reports/report{fmt.suffixes[0]}."
        )
    paths = list(from_paths or [])
    if isinstance(from_paths, str):
        paths = [from_paths]
    try:
        material = await read_material(svc, paths, SOURCES_HEADINGS)
    except FsError as exc:
        return error(f"could not read from_paths, nothing was written: {exc}")
    except MaterialError as exc:
        return error(f"{exc} Nothing was written.")
    report = await _shared(
        _Writing(requirements or "", material, svc, ledger, model, not paths, colophon)
    )
    report.notes.extend(f"passed over {skipped}" for skipped in material.skipped[:10])
    try:
        rendered = await asyncio.to_thread(fmt.render, report, stem_of(clean))
    except Exception as exc:  # a renderer failure is reported, never raised to the agent
        return error(
            f"could not render the {fmt.name} file ({plain_reason(exc)}); nothing was written."
        )
    if not isinstance(rendered, Rendered):
        rendered = Rendered(rendered)
    folder = clean.rsplit("/", 1)[0] + "/"
    written: list[str] = []
    try:
        attachments = {**rendered.attachments, **await _copies(report, svc)}
        for name, data in attachments.items():
            await svc.write_bytes(folder + name, data)
            written.append(folder + name)
        entry = await svc.write_bytes(clean, rendered.data)
        written.append(await _zip_report(svc, clean))
    except FsError as exc:
        return error(f"{exc} Nothing was written.")
    return ok(
        _summary_text(report, fmt, clean, entry.size),
        paths=[clean, *written, *material.read],
        evidence_ids=[c.item.id for c in report.citations],
    )
