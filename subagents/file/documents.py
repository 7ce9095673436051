"""Document tools: PDF text (read) and PowerPoint outlines (read, write)."""

import asyncio
import io
import logging
from typing import Any

from agentscope.tool import ToolResponse
from pptx import Presentation
from pptx.enum.text import MSO_AUTO_SIZE
from pptx.shapes.group import GroupShape
from pptx.util import Inches, Pt
from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

from ..failures import plain_reason
from ..results import ok
from .guard import ToolInputError, file_tool
from .limits import MAX_BODY_CHARS, MAX_BULLETS, MAX_PDF_PAGES, MAX_SLIDES, clip
from .reading import read_once
from .safezip import require_office_zip

# pypdf reports every recoverable oddity of a damaged file as a warning; the tool
# reports problems itself.
logging.getLogger("pypdf").setLevel(logging.ERROR)


# ---------------------------------------------------------------- PDF


def _open_pdf(data: bytes, path: str) -> tuple[PdfReader, str]:
    """A reader over ``data``, or ToolInputError saying why the PDF cannot be read."""
    if b"%PDF-" not in data[:1024]:
        raise ToolInputError(
            f"Error: {path} is not a PDF (no %PDF header). Check its type with get_file_info."
        )
    if b"%%EOF" not in data[-2048:]:
        raise ToolInputError(
            f"Error: {path} is a truncated or damaged PDF (its end marker is missing). "
            "Ask for a complete copy of the file."
        )
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        note = ""
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except (FileNotDecryptedError, NotImplementedError, PdfReadError, ValueError):
                opened = 0
            if not opened:
                raise ToolInputError(
                    f"Error: {path} is an encrypted PDF that needs a password to open; its text "
                    "cannot be read. Ask for an unprotected copy."
                )
            note = " (encrypted with an empty password; opened without one)"
        _ = len(reader.pages)
    except ToolInputError:
        raise
    except (PdfReadError, PdfStreamError, ValueError, KeyError, TypeError, OSError) as exc:
        raise ToolInputError(
            f"Error: {path} is a damaged PDF that cannot be parsed "
            f"({clip(plain_reason(exc), 200)}). Ask for a complete or re-exported copy."
        ) from None
    return reader, note


def _page_text(reader: PdfReader, number: int) -> str:
    try:
        text = reader.pages[number - 1].extract_text() or ""
    except Exception as exc:  # a broken page must not hide the others
        return f"[page {number} could not be read: {clip(plain_reason(exc), 120)}]"
    # CJK text set in CFF (OpenType/PostScript) fonts comes out with NULs between characters.
    return text.replace("\x00", "").strip()


def _page_list(pages: object, count: int) -> list[int]:
    if (
        not isinstance(pages, list)
        or not pages
        or not all(isinstance(p, int) and not isinstance(p, bool) for p in pages)
    ):
        raise ToolInputError(
            f"Error: pages must be a list of page numbers such as [1, 2, 3]; got {pages!r}."
        )
    bad = [p for p in pages if not 1 <= p <= count]
    if bad:
        raise ToolInputError(
            f"Error: page(s) {bad} do not exist; the PDF has {count} pages, numbered 1–{count}."
        )
    unique = list(dict.fromkeys(pages))
    if len(unique) > MAX_PDF_PAGES:
        raise ToolInputError(
            f"Error: ask for at most {MAX_PDF_PAGES} pages per call; split the list."
        )
    return unique


def _next_pages(start: int, count: int, step: int) -> str:
    nxt = list(range(start, min(count, start + max(step, 1) - 1) + 1))
    return "[" + ", ".join(str(p) for p in nxt) + "]"


@file_tool
async def pdf_read_text(path: str, service: object, pages: list[int] | None = None) -> ToolResponse:
    """Extract the text of a PDF, page by page.

    Without pages, pages are read from the first until the result is full; the result
    then names the pages to ask for next. Scanned pages without a text layer come back
    empty and are marked.

    Args:
        path (str): Logical absolute path of the PDF, e.g. /userinput/report.pdf.
        pages (list[int] | None): Page numbers to read, 1-based, e.g. [1, 2, 3]. Omit to
            read from page 1.
    """
    data = await service.read_bytes(path)
    # Parsing and text extraction are CPU work: kept off the event loop, done once for
    # the same bytes (see .reading).
    return await read_once(_pdf_result, path, data, pages, libraries=("pypdf",))


def _pdf_result(data: bytes, path: str, pages: list[int] | None) -> ToolResponse:
    reader, note = _open_pdf(data, path)
    count = len(reader.pages)
    wanted = list(range(1, count + 1)) if pages is None else _page_list(pages, count)
    parts = [f"{path} — {count} pages{note}"]
    used = len(parts[0])
    shown: list[int] = []
    for number in wanted:
        text = _page_text(reader, number)
        block = f"--- page {number} ---\n" + (
            text or "[no text layer on this page; it may be a scanned image]"
        )
        if shown and used + len(block) + 1 > MAX_BODY_CHARS:
            if pages is None:
                break
            continue
        if used + len(block) + 1 > MAX_BODY_CHARS:
            block = block[: MAX_BODY_CHARS - used] + (
                f"\n[… page {number} continues for {used + len(block) - MAX_BODY_CHARS:,} "
                "more characters that this tool cannot show at once.]"
            )
        parts.append(block)
        used += len(block) + 1
        shown.append(number)
    rest = [p for p in wanted if p not in set(shown)]
    if rest:
        if pages is None:
            parts.append(
                f"[Pages {rest[0]}–{count} not shown. To read on, call pdf_read_text with "
                f"pages={_next_pages(rest[0], count, len(shown))}.]"
            )
        else:
            parts.append(
                f"[Pages {clip(str(rest), 300)} were read but do not fit in this result. "
                "Call pdf_read_text "
                f"with pages={rest[: max(len(shown), 1)]} to see them.]"
            )
    return ok("\n".join(parts), paths=[path])


# ---------------------------------------------------------------- PPTX


class SlideSpec(BaseModel):
    """One slide to write."""

    title: str = Field(description="Slide title.")
    bullets: list[str] = Field(
        default_factory=list,
        description="Bullet lines; start a line with two spaces per level for sub-bullets.",
    )
    notes: str | None = Field(default=None, description="Speaker notes (optional).")


_SLIDES = TypeAdapter(list[SlideSpec])


def _open_pptx(data: bytes, path: str) -> Any:
    require_office_zip(data, "pptx", path)
    try:
        return Presentation(io.BytesIO(data))
    except Exception as exc:  # python-pptx raises many kinds on damaged files
        raise ToolInputError(
            f"Error: {path} could not be opened as a PowerPoint file "
            f"({clip(plain_reason(exc), 200)}). Only .pptx is supported."
        ) from None


def _shape_lines(shape: Any) -> list[tuple[int, str]]:
    """``(level, text)`` of the paragraphs and table cells of one shape."""
    out: list[tuple[int, str]] = []
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for para in shape.text_frame.paragraphs:
            text = "".join(r.text for r in para.runs).strip() or para.text.strip()
            if text:
                out.append((para.level, text))
    if getattr(shape, "has_table", False) and shape.has_table:
        for row in shape.table.rows:
            cells = [c.text.strip().replace("\n", " ") for c in row.cells]
            if any(cells):
                out.append((0, " | ".join(cells)))
    if isinstance(shape, GroupShape):
        for inner in shape.shapes:
            out.extend(_shape_lines(inner))
    return out


def _slide_outline(slide: Any, number: int) -> dict[str, Any]:
    title_shape = slide.shapes.title
    title = title_shape.text_frame.text.strip() if title_shape is not None else ""
    bullets: list[dict[str, Any]] = []
    for shape in slide.shapes:
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        bullets.extend({"level": lv, "text": tx} for lv, tx in _shape_lines(shape))
    if not title and bullets:
        title = bullets.pop(0)["text"]
    notes = ""
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame.text.strip()
    return {"slide": number, "title": title, "bullets": bullets, "notes": notes}


def _render_slide(s: dict[str, Any], per_bullet: int, max_bullets: int) -> str:
    lines = [f"Slide {s['slide']}: {clip(s['title'] or '(untitled)', 200)}"]
    for b in s["bullets"][:max_bullets]:
        lines.append("  " * (b["level"] + 1) + "- " + clip(b["text"], per_bullet))
    if len(s["bullets"]) > max_bullets:
        lines.append(f"    [+{len(s['bullets']) - max_bullets} more lines]")
    if s["notes"]:
        lines.append("  Notes: " + clip(s["notes"].replace("\n", " "), per_bullet))
    return "\n".join(lines)


@file_tool
async def pptx_read_outline(path: str, service: object) -> ToolResponse:
    """Read the outline of a PowerPoint file (.pptx): slide titles, bullets, tables, notes.

    A long deck is shown with shortened lines so that every slide appears.

    Args:
        path (str): Logical absolute path of the presentation, e.g. /userinput/deck.pptx.
    """
    data = await service.read_bytes(path)
    return await read_once(_outline_result, path, data, libraries=("python-pptx",))


def _outline_result(data: bytes, path: str) -> ToolResponse:
    prs = _open_pptx(data, path)
    slides = [_slide_outline(s, i) for i, s in enumerate(prs.slides, 1)]
    head = f"{path} — {len(slides)} slides"
    # Shrink detail until every slide fits: full text, then shorter lines, then titles only.
    for per_bullet, max_bullets in ((1000, 1000), (200, 12), (80, 4), (60, 0)):
        blocks = [_render_slide(s, per_bullet, max_bullets) for s in slides]
        if len(head) + sum(len(b) + 1 for b in blocks) <= MAX_BODY_CHARS:
            break
    text_parts = [head]
    used = len(head)
    shown = 0
    for block in blocks:
        if shown and used + len(block) + 1 > MAX_BODY_CHARS:
            break
        text_parts.append(block)
        used += len(block) + 1
        shown += 1
    if max_bullets < 1000:
        text_parts.append(
            "[The deck is long, so lines are shortened above so that every slide appears.]"
        )
    if shown < len(slides):
        text_parts.append(
            f"[Slides {shown + 1}–{len(slides)} not shown: even their titles exceed what one "
            "result can hold.]"
        )
    return ok("\n".join(text_parts), paths=[path])


def _set_bullets(frame: Any, bullets: list[str]) -> None:
    frame.clear()
    first = True
    for raw in bullets:
        stripped = raw.lstrip(" ")
        level = min((len(raw) - len(stripped)) // 2, 4)
        if stripped[:2] in ("- ", "• ", "* "):
            stripped = stripped[2:]
        para = frame.paragraphs[0] if first else frame.add_paragraph()
        para.text = stripped.rstrip()
        para.level = level
        first = False
    frame.auto_size = MSO_AUTO_SIZE.TEXT_TO_FIT_SHAPE
    frame.word_wrap = True


@file_tool
async def pptx_write(path: str, slides_spec: list[SlideSpec], service: object) -> ToolResponse:
    """Create or replace a PowerPoint file (.pptx, 16:9) with one title-and-bullets slide per entry.

    Args:
        path (str): Logical absolute path of the .pptx file, e.g. /workspace/reports/deck.pptx.
        slides_spec (list[SlideSpec]): The slides in order, e.g.
            [{"title": "概览", "bullets": ["要点一", "  细节"], "notes": "讲稿"}].
    """
    if not path.lower().endswith(".pptx"):
        raise ToolInputError(f"Error: {path} must end in .pptx; pptx_write writes .pptx files.")
    try:
        slides = _SLIDES.validate_python(slides_spec)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        raise ToolInputError(
            'Error: slides_spec must be a list of {"title": str, "bullets": [str, ...], '
            f'"notes": str (optional)}}; at {where}: {first["msg"]}.'
        ) from None
    if not slides:
        raise ToolInputError("Error: slides_spec is empty; give at least one slide.")
    if len(slides) > MAX_SLIDES:
        raise ToolInputError(f"Error: at most {MAX_SLIDES} slides per file; got {len(slides)}.")
    crowded = [i for i, s in enumerate(slides, 1) if len(s.bullets) > MAX_BULLETS]
    if crowded:
        raise ToolInputError(
            f"Error: slide(s) {crowded} have more than {MAX_BULLETS} bullets; split them."
        )
    service.check(path, "write")
    existed = await service.exists(path)
    data = await asyncio.to_thread(_deck_bytes, slides)
    entry = await service.write_bytes(path, data)
    return ok(
        f"{'Replaced' if existed else 'Created'} {path}: {len(slides)} slides, "
        f"{entry.size:,} bytes.",
        paths=[path],
    )


def _deck_bytes(slides: list[SlideSpec]) -> bytes:
    """The .pptx file of ``slides`` (CPU work, run in a worker thread)."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    layout = prs.slide_layouts[1]  # Title and Content
    for spec in slides:
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = spec.title
        body = slide.placeholders[1]
        body.left, body.top = Inches(0.6), Inches(1.5)
        body.width, body.height = Inches(12.1), Inches(5.5)
        slide.shapes.title.left, slide.shapes.title.width = Inches(0.6), Inches(12.1)
        _set_bullets(body.text_frame, spec.bullets)
        for para in body.text_frame.paragraphs:
            for run in para.runs:
                run.font.size = Pt(24 if para.level == 0 else 20)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = spec.notes
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()
