"""Bounds on what the file tools read, show and accept."""

#: Characters of text a tool puts in front of the model in one result, whatever the
#: input's shape (``file_tool`` cuts any result that would be longer).
MAX_TEXT_CHARS = 30_000
#: Characters of a result's body (lines, rows, pages, entries): the rest of
#: MAX_TEXT_CHARS is left for its header and the notes that say how to read on.
MAX_BODY_CHARS = MAX_TEXT_CHARS - 2_000
#: Characters of one line, field or cell shown before it is cut (with a note).
MAX_FIELD_CHARS = 1_000
#: Characters of one line read_text_file shows.
MAX_LINE_CHARS = 4 * MAX_FIELD_CHARS
#: Lines read_text_file shows when no range is given.
DEFAULT_LINES = 2_000
#: Entries list_directory shows.
MAX_DIR_ENTRIES = 500
#: Cells xlsx_read_cells reads in one call, and columns (the rest are named for a next call).
MAX_CELLS = 200_000
MAX_READ_COLUMNS = 60
#: Characters of one shown row of a table (a CSV row, a spreadsheet row): cells get an
#: equal share of it, at most MAX_CELL_CHARS each.
MAX_ROW_CHARS = 6_000
#: Cells that merged areas and hyperlink ranges of a workbook may cover before it is
#: edited: openpyxl makes an object for every cell such an area covers.
MAX_EXPANDED_CELLS = 200_000
#: Cells xlsx_write_cells writes in one call.
MAX_WRITE_CELLS = 100_000
#: Slides pptx_write accepts in one call, and bullets per slide.
MAX_SLIDES = 300
MAX_BULLETS = 60

#: Office files (.xlsx/.pptx/.docx are zip archives): caps checked on the zip's central directory.
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
#: Fields of one CSV row shown (the rest are counted).
MAX_ROW_FIELDS = 200
#: CSV parsing bounds: characters of one physical line parsed (the rest of a longer line
#: is skipped), characters of one (multi-line, quoted) field, fields counted after the
#: result is full before counting stops, and characters the delimiter is guessed from.
MAX_PARSE_LINE_CHARS = 65_536
CSV_FIELD_LIMIT = 1_048_576
MAX_COUNT_FIELDS = 2_000_000
CSV_SNIFF_CHARS = 4_096
#: Pages pdf_read_text extracts in one call.
MAX_PDF_PAGES = 500
