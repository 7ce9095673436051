"""What the Host needs to delegate file reading and remember what was handed over."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from research.plan import SubQuestion

    from ..spec import Delegated, Desk

#: The tools that read one file for the Host (a file task's reads become sources).
READERS = (
    "read_text_file",
    "csv_read",
    "xlsx_read_cells",
    "pdf_read_text",
    "pptx_read_outline",
    "image_qa",
)

INPUT = "/userinput/"
DOWNLOADS = "/workspace/downloads/"


def prepare(
    desk: Desk, sub: SubQuestion | None, ctx: dict[str, Any], base: dict[str, Any]
) -> tuple[str | None, dict[str, Any]]:
    """The paths to read: the request's, else the input folder first and the downloads
    after; the files already read are skipped."""
    paths = [str(p) for p in ctx.get("paths") or []] or (
        [INPUT] if not desk.files_read else [DOWNLOADS]
    )
    return None, {**base, "paths": paths, "skip": list(desk.files_read)}


def read_path(args: Mapping[str, Any]) -> str:
    """The file a reader call names (``path``, or ``img_path`` for ``image_qa``)."""
    return str(args.get("path") or args.get("img_path") or "")


def handed_files(d: Delegated) -> list[str]:
    """The files a file task tried to read (read or not), and, when it finished, the files
    it was named (a file no reader takes is then handed over only once)."""
    named = [str(p) for p in d.context.get("paths") or [] if not str(p).endswith("/")]
    tried = [read_path(r.input) for r in d.records if r.name in READERS]
    return [p for p in dict.fromkeys([*tried, *(named if d.status == "ok" else [])]) if p]


def absorb(desk: Desk, d: Delegated, sub_id: str | None, carried: dict[str, Any]) -> list[str]:
    """Every file handed over is remembered, so that none is handed over twice."""
    desk.files_tried.extend(p for p in handed_files(d) if p not in desk.files_tried)
    return []
