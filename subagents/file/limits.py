"""Bounds on what the file tools read, show and accept."""

#: Characters of text a tool puts in front of the model in one result.
MAX_TEXT_CHARS = 30_000
#: Characters of one line, field or cell shown before it is cut (with a note).
MAX_FIELD_CHARS = 1_000
#: Lines read_text_file shows when no range is given.
DEFAULT_LINES = 2_000
#: Entries list_directory shows.
MAX_DIR_ENTRIES = 500
#: Cells xlsx_read_cells reads in one call.
MAX_CELLS = 200_000
#: Cells xlsx_write_cells writes in one call.
MAX_WRITE_CELLS = 100_000
#: Slides pptx_write accepts in one call, and bullets per slide.
MAX_SLIDES = 300
MAX_BULLETS = 60

#: Office files (.xlsx/.pptx are zip archives): caps checked on the zip's central directory.
MAX_ZIP_ENTRIES = 10_000
MAX_ZIP_TOTAL_BYTES = 256 * 1024 * 1024
MAX_ZIP_MEMBER_RATIO = 200
#: Members smaller than this are not held to the ratio (tiny XML compresses very well).
ZIP_RATIO_FLOOR_BYTES = 4 * 1024 * 1024

#: Image files: bytes read, pixels decoded, OCR text shown, seconds allowed.
MAX_IMAGE_BYTES = 32 * 1024 * 1024
MAX_IMAGE_PIXELS = 64_000_000
MAX_OCR_CHARS = 8_000
OCR_TIMEOUT_S = 60
VISION_TIMEOUT_S = 60
#: Longest side of the picture sent to a vision model.
VISION_MAX_SIDE = 2_048


def clip(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """``text`` cut at ``limit`` characters with a visible marker saying how much is left."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[+{len(text) - limit} chars]"


#: Characters of one CSV field or spreadsheet cell shown in a result.
MAX_CELL_CHARS = 300
#: Pages pdf_read_text extracts in one call.
MAX_PDF_PAGES = 500
