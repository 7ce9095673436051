"""Recognise file types from their first bytes and decode text in common encodings."""

import codecs
import io
import zipfile
import zlib

#: Magic prefixes of binary formats, with a name and the tool that reads them.
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"%PDF-", "PDF document", "pdf_read_text"),
    (b"\x89PNG\r\n\x1a\n", "PNG image", "image_qa"),
    (b"\xff\xd8\xff", "JPEG image", "image_qa"),
    (b"GIF87a", "GIF image", "image_qa"),
    (b"GIF89a", "GIF image", "image_qa"),
    (b"BM", "BMP image", "image_qa"),
    (b"II*\x00", "TIFF image", "image_qa"),
    (b"MM\x00*", "TIFF image", "image_qa"),
    (b"\xd0\xcf\x11\xe0", "old binary Office document (.doc/.xls/.ppt)", ""),
    (b"\x1f\x8b", "gzip archive", ""),
    (b"\x7fELF", "executable program", ""),
)

#: Byte-order marks, longest first, and the codec each implies.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def binary_kind(data: bytes) -> tuple[str, str] | None:
    """``(description, tool)`` when ``data`` is a known binary format or looks binary."""
    head = data[:8192]
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "WebP image", "image_qa"
    for magic, name, tool in _MAGIC:
        if head.startswith(magic) and (magic != b"BM" or len(head) > 26):
            if magic == b"BM" and b"\x00" not in head[:32]:
                continue
            return name, tool
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return None
    if b"\x00" in head:
        return "binary file", ""
    return None


#: What reading a damaged zip archive's directory or first bytes may raise.
_ZIP_ERRORS = (
    zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError, EOFError,
    zlib.error,
)  # fmt: skip


def _zip_kind(data: bytes) -> tuple[str, str]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except _ZIP_ERRORS:
        return "zip archive (damaged)", ""
    if "xl/workbook.xml" in names:
        return "Excel workbook (.xlsx)", "xlsx_read_cells"
    if "ppt/presentation.xml" in names:
        return "PowerPoint presentation (.pptx)", "pptx_read_outline"
    if "word/document.xml" in names:
        return "Word document (.docx)", "read_text_file"
    media = _zip_media_type(data) if "mimetype" in names else ""
    if media == "application/vnd.oasis.opendocument.text":
        return "OpenDocument text (.odt)", "read_text_file"
    if media == "application/epub+zip":
        return "EPUB book (.epub)", "read_text_file"
    if media.startswith(_OPEN_DOCUMENT):
        return f"OpenDocument file ({media[len(_OPEN_DOCUMENT) :]})", ""
    return "zip archive", ""


_OPEN_DOCUMENT = "application/vnd.oasis.opendocument."


def _zip_media_type(data: bytes) -> str:
    """The media type an OpenDocument or EPUB archive names in its ``mimetype`` entry;
    empty when it cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf, zf.open("mimetype") as entry:
            media = entry.read(100)  # stored first and uncompressed: a few bytes
    except _ZIP_ERRORS:
        return ""
    return media.decode("ascii", "replace").strip()


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode ``data`` as text; return ``(text, encoding name)``.

    A byte-order mark decides first; then strict UTF-8; then GB18030 (a superset of
    GBK and GB2312, the usual encodings of Chinese files); then the best guess of
    charset-normalizer. Raises UnicodeDecodeError when nothing fits.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            name = "UTF-8 with BOM" if codec == "utf-8-sig" else f"{codec.upper()} with BOM"
            return data.decode(codec), name
    try:
        return data.decode("utf-8"), "UTF-8"
    except UnicodeDecodeError as exc:
        first_error = exc
    try:
        return data.decode("gb18030"), "GBK/GB18030"
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - installed with requests
        raise first_error from None
    best = from_bytes(data[:262_144]).best()
    if best is None:
        raise first_error
    return data.decode(best.encoding, errors="strict"), best.encoding


def encode_like(text: str, encoding: str) -> bytes:
    """Encode ``text`` in the encoding :func:`decode_text` reported."""
    codec = {
        "UTF-8": "utf-8",
        "UTF-8 with BOM": "utf-8-sig",
        "GBK/GB18030": "gb18030",
        "UTF-16 with BOM": "utf-16",
        "UTF-32 with BOM": "utf-32",
    }.get(encoding, encoding)
    return text.encode(codec)
