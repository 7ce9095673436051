"""PPTX rendering (python-pptx), and the generate_pptx tool.

Deck: a title slide (title + summary), one slide per section with its points as bullets
(a long section continues on further slides), and a sources slide. Each slide's speaker
notes list the citations used on it, with URL and quoted span.
"""

from __future__ import annotations

import io
import re

from agentscope.tool import ToolResponse
from pptx import Presentation
from pptx.util import Pt

from .flow import Format, generate
from .markdown import tight
from .notes import Cite, Point
from .report import Report

MAX_BULLETS = 6
MAX_CHARS = 650
BULLET_CHARS = 320


def _plain(point: Point) -> str:
    text = "".join(f"[{p.key[1:]}]" if isinstance(p, Cite) else p for p in tight(point))
    return re.sub(r"\s+", " ", text).strip()


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _chunks(points: list[Point]) -> list[list[Point]]:
    """Points split so that no slide holds more than it can show."""
    chunks: list[list[Point]] = [[]]
    size = 0
    for point in points:
        n = min(len(_plain(point)), BULLET_CHARS)
        if chunks[-1] and (len(chunks[-1]) >= MAX_BULLETS or size + n > MAX_CHARS):
            chunks.append([])
            size = 0
        chunks[-1].append(point)
        size += n
    return chunks


def _bullet_text(point: Point) -> str:
    """A point as one bullet: long points keep their start and their markers."""
    text = _plain(point)
    if len(text) <= BULLET_CHARS:
        return text
    markers = "".join(f"[{p.key[1:]}]" for p in point.cites())
    return _shorten(point.text.strip(), BULLET_CHARS - len(markers) - 1) + " " + markers


def _fill(frame, lines: list[str], size: int) -> None:
    frame.word_wrap = True
    for i, line in enumerate(lines):
        para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        para.text = line
        for run in para.runs:
            run.font.size = Pt(size)


def _notes(report: Report, numbers: list[int]) -> str:
    lines = [f"{report.label('cited')}:"] if numbers else []
    for n in numbers:
        c = report.citations[n - 1]
        head = f"[{n}] {c.title} — {c.item.url}" if c.title else f"[{n}] {c.item.url}"
        span = re.sub(r"\s+", " ", c.item.span).strip()
        lines.append(f"{head}\n“{span}” ({c.item.id})")
    return "\n".join(lines)


def _cited(points: list[Point]) -> list[int]:
    seen: dict[int, None] = {}
    for p in points:
        for c in p.cites():
            seen.setdefault(int(c.key[1:]), None)
    return list(seen)


def _content_slide(prs, report: Report, title: str, lines: list[str], notes: str, size: int):
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = title
    slide.shapes.title.text_frame.word_wrap = True
    for run in slide.shapes.title.text_frame.paragraphs[0].runs:
        run.font.size = Pt(30 if len(title) < 40 else 24)
    _fill(slide.placeholders[1].text_frame, lines, size)
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    return slide


def render_pptx(report: Report) -> bytes:
    """The report as PPTX bytes."""
    prs = Presentation()
    title_slide = prs.slides.add_slide(prs.slide_layouts[0])
    title_slide.shapes.title.text = _shorten(report.title, 120)
    for run in title_slide.shapes.title.text_frame.paragraphs[0].runs:
        run.font.size = Pt(36 if len(report.title) < 50 else 28)
    subtitle = " ".join(_plain(p) for p in report.summary)
    _fill(title_slide.placeholders[1].text_frame, [_shorten(subtitle, 300)], 16)
    notes = _notes(report, _cited(report.summary))
    if notes:
        title_slide.notes_slide.notes_text_frame.text = notes
    for section in report.sections:
        for i, chunk in enumerate(_chunks(section.points)):
            heading = (
                section.heading if i == 0 else (f"{section.heading} ({report.label('continued')})")
            )
            lines = [_bullet_text(p) for p in chunk]
            size = 20 if sum(map(len, lines)) <= 400 else 16
            _content_slide(
                prs, report, _shorten(heading, 90), lines, _notes(report, _cited(chunk)), size
            )
    if report.citations:
        per_slide = 8
        for start in range(0, len(report.citations), per_slide):
            batch = report.citations[start : start + per_slide]
            lines = [
                _shorten(f"[{c.number}] {c.title + ' — ' if c.title else ''}{c.item.url}", 160)
                for c in batch
            ]
            title = report.label("sources")
            if start:
                title += f" ({report.label('continued')})"
            _content_slide(prs, report, title, lines, _notes(report, [c.number for c in batch]), 14)
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


PPTX = Format("PPTX", (".pptx",), render_pptx)


async def generate_pptx(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
) -> ToolResponse:
    """Write the report as a slide deck: title slide, one slide per section, sources slide.

    Bullets carry the [n] citation numbers; each slide's speaker notes list its citations
    with URL and quoted span. Built from the same notes and evidence as generate_markdown
    (notes: "## Section" headings, markers such as [ev-1a2b3c4d5e6f] after claims).
    Citations that do not verify against their stored page are dropped and listed in the
    result; the file is written whole, or not at all.

    Args:
        requirements (str): What the deck is for: topic, audience, focus; evidence ids
            named here (e.g. ev-1a2b3c4d5e6f) are cited too. Its first line is the title
            when the notes have none.
        out_path (str): Where to write the deck, a .pptx path you may write, e.g.
            /workspace/reports/report.pptx.
        from_paths (list[str] | None): Notes files, stored pages (/workspace/pages/*.md
            with their .json sidecars), a report.md written by generate_markdown, or
            folders of them. Omit to report on all evidence collected in this run.
    """
    return await generate(PPTX, requirements, out_path, from_paths, service, evidence, model)
