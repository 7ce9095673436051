"""Check an Office file's zip container before any parser decompresses it.

.xlsx, .pptx, .docx, .odt and .epub files are zip archives. A crafted archive can expand
to gigabytes (a "zip bomb"). Python's zipfile never yields more than the size an entry declares in
the central directory, so checking the declared sizes bounds what a parser can inflate.
"""

import io
import zipfile

from .guard import ToolInputError
from .limits import (
    MAX_ZIP_ENTRIES,
    MAX_ZIP_MEMBER_RATIO,
    MAX_ZIP_TOTAL_BYTES,
    ZIP_RATIO_FLOOR_BYTES,
)

#: The part every well-formed file of each kind has.
REQUIRED_PART = {
    "xlsx": "xl/workbook.xml",
    "pptx": "ppt/presentation.xml",
    "docx": "word/document.xml",
    "odt": "content.xml",
    "epub": "META-INF/container.xml",
}


class UnsafeArchive(ValueError):
    """The archive is not a usable Office file, or would expand past the caps."""


def check_office_zip(data: bytes, kind: str, path: str) -> None:
    """Raise UnsafeArchive unless ``data`` is a sane ``kind`` container ("xlsx", "pptx",
    "docx", "odt" or "epub")."""
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise UnsafeArchive(
            f"Error: {path} is not a valid .{kind} file (it is not a zip archive; it may be "
            "truncated, an old binary Office format, or another kind of file). "
            "Check the file type with get_file_info."
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise UnsafeArchive(f"Error: {path} is a damaged .{kind} archive ({exc}).") from None
    if len(infos) > MAX_ZIP_ENTRIES:
        raise UnsafeArchive(
            f"Error: {path} holds {len(infos)} archive entries (cap {MAX_ZIP_ENTRIES}); "
            "refusing to open it."
        )
    total = sum(i.file_size for i in infos)
    if total > MAX_ZIP_TOTAL_BYTES:
        raise UnsafeArchive(
            f"Error: {path} would expand to {total:,} bytes (cap {MAX_ZIP_TOTAL_BYTES:,}); "
            "refusing to open it (possible zip bomb). Ask for a smaller or split file."
        )
    for info in infos:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > ZIP_RATIO_FLOOR_BYTES and ratio > MAX_ZIP_MEMBER_RATIO:
            raise UnsafeArchive(
                f"Error: {path} entry {info.filename!r} expands {ratio:,.0f}-fold "
                f"({info.file_size:,} bytes; cap {MAX_ZIP_MEMBER_RATIO}-fold); refusing to "
                "open it (possible zip bomb)."
            )
    names = {i.filename for i in infos}
    if REQUIRED_PART[kind] not in names:
        raise UnsafeArchive(
            f"Error: {path} is a zip archive but not a .{kind} file (no {REQUIRED_PART[kind]})."
        )


def require_office_zip(data: bytes, kind: str, path: str) -> None:
    """:func:`check_office_zip` for a file tool: a refusal is raised as ToolInputError,
    whose message the tool returns."""
    try:
        check_office_zip(data, kind, path)
    except UnsafeArchive as exc:
        raise ToolInputError(str(exc)) from None
