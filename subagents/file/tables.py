"""Table tools: CSV (read, write) and Excel .xlsx cells (read, write)."""

import asyncio
import builtins
import csv
import datetime as dt
import html
import io
import itertools
import re
import zipfile
from collections.abc import Iterator
from typing import Any

from agentscope.tool import ToolResponse
from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.utils.cell import coordinate_from_string, get_column_letter, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException

from ..cells import NUMBER as _NUMBER
from ..cells import csv_field, formula_like
from ..failures import plain_reason
from ..results import ok
from ..settings import ToolSettings
from .guard import ToolInputError, file_tool
from .limits import (
    CSV_FIELD_LIMIT,
    CSV_SNIFF_CHARS,
    MAX_BODY_CHARS,
    MAX_CELL_CHARS,
    MAX_CELLS,
    MAX_COUNT_FIELDS,
    MAX_EXPANDED_CELLS,
    MAX_PARSE_LINE_CHARS,
    MAX_READ_COLUMNS,
    MAX_ROW_CHARS,
    MAX_ROW_FIELDS,
    MAX_WRITE_CELLS,
    clip,
)
from .lines import LINE_BREAK
from .reading import read_once
from .safezip import require_office_zip
from .sniff import binary_kind, decode_text

# Fields are parsed up to 1 MiB (the csv default stops at 128 KiB); display is clipped.
csv.field_size_limit(CSV_FIELD_LIMIT)

_FORMULA_TAG = re.compile(rb"<(?:\w{1,32}:)?f[\s>/]")
#: Elements whose ``ref`` area openpyxl fills with one object per cell when it loads a
#: workbook for editing: merged areas and hyperlink ranges.
_AREA_TAG = re.compile(rb"<(?:\w{1,32}:)?(?:mergeCell|hyperlink)[\s/>]")
_REF_ATTR = re.compile(rb"""\sref\s*=\s*(?:"([^"]*)"|'([^']*)')""")
#: Bytes of a worksheet part read at a time when scanning it, and the longest element
#: start tag accepted while looking for an area (a longer one is refused, not skipped).
_SCAN_CHUNK = 1 << 20
_MAX_TAG_BYTES = 64 * 1024


# ---------------------------------------------------------------- CSV


def _sample(text: str) -> str:
    """The start of ``text`` the delimiter is guessed from, ending at a line break.

    csv.Sniffer takes time quadratic in its sample on some inputs (about a minute for
    64 KiB of ``,"``), so it sees only a few KiB.
    """
    sample = text[:CSV_SNIFF_CHARS]
    cut = max(sample.rfind("\n"), sample.rfind("\r"))
    return sample[:cut] if cut > 0 else sample


def _sniff_delimiter(sample: str, path: str) -> str:
    if path.lower().endswith(".tsv"):
        return "\t"
    try:
        return csv.Sniffer().sniff(sample, delimiters=",\t;|").delimiter
    except csv.Error:
        return ","


class _Lines:
    """The physical lines of a text for the csv reader, each cut at MAX_PARSE_LINE_CHARS.

    Lines end at ``\r\n``, ``\n`` or ``\r``. A longer line is cut (a quote left open by
    the cut is closed), so that one line of fifty million commas costs what 65,536 do.
    ``cut`` lists the line numbers that were cut.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.cut: list[int] = []

    def __iter__(self) -> Iterator[str]:
        text, pos, number = self.text, 0, 0
        while pos < len(text):
            number += 1
            brk = LINE_BREAK.search(text, pos)
            stop, nxt = (brk.start(), brk.end()) if brk else (len(text), len(text))
            if stop - pos > MAX_PARSE_LINE_CHARS:
                kept = text[pos : pos + MAX_PARSE_LINE_CHARS]
                self.cut.append(number)
                yield kept + ('"' if kept.count('"') % 2 else "") + "\n"
            else:
                yield text[pos:nxt]
            pos = nxt


def _csv_line(fields: list[str], delimiter: str) -> str:
    """One row as CSV text: at most MAX_ROW_FIELDS fields, sharing MAX_ROW_CHARS."""
    shown = fields[:MAX_ROW_FIELDS]
    per_field = max(20, min(MAX_CELL_CHARS, MAX_ROW_CHARS // max(len(shown), 1)))
    # A line terminator the writer knows makes it quote fields holding a line break, so
    # that a multi-line field is not read as two rows.
    buf = io.StringIO()
    csv.writer(buf, delimiter=delimiter, lineterminator="\n").writerow(
        [clip(f, per_field) for f in shown]
    )
    line = buf.getvalue().removesuffix("\n")
    if len(fields) > len(shown):
        line += f" …[+{len(fields) - len(shown):,} more fields]"
    return clip(line, MAX_ROW_CHARS + 200)


@file_tool
async def csv_read(path: str, service: object) -> ToolResponse:
    """Read a CSV or TSV file as rows of fields.

    The encoding (UTF-8, UTF-8 with BOM, GBK/GB18030) and the delimiter are detected and
    reported. Rows keep their own length (no padding). Very long fields and rows are
    shortened in the text; a large file is shown in part, with the line range to read
    the rest.

    Args:
        path (str): Logical absolute path of the CSV file, e.g. /userinput/data.csv.
    """
    data = await service.read_bytes(path)
    # Decoding and parsing a large file is CPU work: kept off the event loop, done once
    # for the same bytes (see .reading).
    return await read_once(_csv_result, path, data, libraries=("charset-normalizer",))


def _csv_text(data: bytes, path: str) -> tuple[str, str]:
    kind = binary_kind(data)
    if kind is not None:
        use = f"Use {kind[1]} for it." if kind[1] else "It cannot be read as CSV."
        raise ToolInputError(f"Error: {path} is a {kind[0]}, not a CSV file. {use}")
    try:
        return decode_text(data)
    except UnicodeDecodeError as exc:
        raise ToolInputError(
            f"Error: {path} is not text in UTF-8 or GBK/GB18030 (undecodable byte at offset "
            f"{exc.start}); it may be binary. Check it with get_file_info."
        ) from None


class _CsvView:
    """What csv_read shows of a file: the first rows that fit, and counts of the rest."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.used = 0
        self.rows = 0
        self.widths: tuple[int, int] | None = None
        self.hidden_from: int | None = None  # file line where the first hidden row starts
        self.clipped = False
        self.counted_fields = 0

    def add(self, row: list[str], start_line: int, delimiter: str) -> bool:
        """Take one parsed row; False once counting should stop."""
        self.rows += 1
        low, high = self.widths or (len(row), len(row))
        self.widths = (min(low, len(row)), max(high, len(row)))
        if self.hidden_from is None:
            line = f"{self.rows}: {_csv_line(row, delimiter)}"
            if self.lines and self.used + len(line) + 1 > MAX_BODY_CHARS:
                self.hidden_from = start_line
            else:
                self.lines.append(line)
                self.used += len(line) + 1
                self.clipped |= len(row) > MAX_ROW_FIELDS or any(
                    len(f) > MAX_CELL_CHARS for f in row
                )
                return True
        self.counted_fields += max(len(row), 1)
        return self.counted_fields <= MAX_COUNT_FIELDS


def _csv_result(data: bytes, path: str) -> ToolResponse:
    text, encoding = _csv_text(data, path)
    delimiter = _sniff_delimiter(_sample(text), path)
    lines = _Lines(text)
    reader = csv.reader(lines, delimiter=delimiter)
    view = _CsvView()
    stopped = ""
    start = 1
    try:
        for row in reader:
            if not view.add(row, start, delimiter):
                stopped = "counting stopped"
                break
            start = reader.line_num + 1
    except csv.Error as exc:
        if not view.rows:
            raise ToolInputError(
                f"Error: {path} is not valid CSV near line {reader.line_num}: {exc}. "
                "Read it with read_text_file instead."
            ) from None
        stopped = f"parsing stopped near line {reader.line_num}: {exc}"
        view.hidden_from = view.hidden_from or start
    name = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}[delimiter]
    count = f"at least {view.rows}" if stopped else str(view.rows)
    head = f"{path} — {count} rows ({encoding}, {name}-separated)"
    if view.widths and view.widths[0] != view.widths[1]:
        head += f"; rows have {view.widths[0]:,} to {view.widths[1]:,} fields (kept as they are)"
    out = [head, *view.lines]
    if view.clipped:
        out.append(
            f"[Fields longer than {MAX_CELL_CHARS} characters are shortened above (and fields "
            f"past the first {MAX_ROW_FIELDS} of a row left out); read_text_file shows the "
            "lines as they are.]"
        )
    if lines.cut:
        where = ", ".join(str(n) for n in lines.cut[:5]) + (" …" if len(lines.cut) > 5 else "")
        out.append(
            f"[Lines longer than {MAX_PARSE_LINE_CHARS:,} characters were parsed only in part: "
            f"line {where}.]"
        )
    if stopped:
        out.append(f"[The file was not read to its end ({clip(stopped, 200)}).]")
    shown = len(view.lines)
    if view.hidden_from is not None:
        first = view.hidden_from
        out.append(
            f"[Rows {shown + 1}–{count} not shown. To read them, call read_text_file with "
            f"range=[{first}, {first + shown}] (file line numbers; row {shown + 1} starts on "
            f"line {first}).]"
        )
    return ok("\n".join(out), paths=[path])


def _as_text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    raise ToolInputError(f"Error: {where} must be text, got {type(value).__name__}.")


def _formulas_allowed(settings: object) -> bool:
    """Whether the Host's settings let the writers store formulas (off unless configured).

    The choice is the user's, made in ``quartet.toml`` (``spreadsheet_formulas``) or the
    environment, never a tool parameter: a model cannot turn it on.
    """
    return isinstance(settings, ToolSettings) and settings.spreadsheet_formulas is True


def _grid(values: object, name: str) -> list[list[str]]:
    """Validate a list of rows of strings (numbers are accepted and turned into text)."""
    if not isinstance(values, list) or not all(isinstance(r, list) for r in values):
        raise ToolInputError(
            f"Error: {name} must be a list of rows, each a list of strings, e.g. "
            f'[["name", "score"], ["张三", "90"]].'
        )
    return [
        [_as_text(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)]
        for i, row in enumerate(values)
    ]


@file_tool
async def csv_write(
    path: str, rows: list[list[str]], service: object, settings: object = None
) -> ToolResponse:
    """Create or replace a CSV file from rows of text fields (UTF-8 with BOM, comma-separated).

    The byte-order mark lets spreadsheet programs show Chinese text correctly. Fields
    with commas, quotes or line breaks are quoted as CSV requires. A field starting with
    =, +, -, @, a tab or a carriage return (other than a plain number such as "-3") is
    written with a leading apostrophe, so that a spreadsheet program shows it as text
    instead of running it as a formula.

    Args:
        path (str): Logical absolute path of the CSV file to write, e.g. /workspace/table.csv.
        rows (list[list[str]]): The rows, first row usually the header,
            e.g. [["name", "city"], ["张三", "北京"]].
    """
    grid = _grid(rows, "rows")
    service.check(path, "write")
    if not _formulas_allowed(settings):
        grid = [[csv_field(f) for f in row] for row in grid]
    buf = io.StringIO()
    # Rows end in CRLF (RFC 4180), which also makes the writer quote a field holding a
    # lone carriage return; with "\n" it would be written bare and split the row.
    csv.writer(buf, lineterminator="\r\n").writerows(grid)
    entry = await service.write_bytes(path, buf.getvalue().encode("utf-8-sig"))
    cols = max((len(r) for r in grid), default=0)
    return ok(
        f"Wrote {path}: {len(grid)} rows, up to {cols} columns, {entry.size:,} bytes "
        "(UTF-8 with BOM).",
        paths=[path],
    )


# ---------------------------------------------------------------- XLSX


def _split_range(rng: object) -> tuple[str | None, str]:
    """``"Sheet 1!A1:C3"`` → ``("Sheet 1", "A1:C3")``; the sheet part is optional."""
    if not isinstance(rng, str) or not rng.strip():
        raise ToolInputError(
            "Error: range must be A1 notation such as 'A1:D20' or 'Sheet2!B2:C10'."
        )
    rng = rng.strip()
    sheet: str | None = None
    if "!" in rng:
        sheet, rng = rng.rsplit("!", 1)
        if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
            sheet = sheet[1:-1].replace("''", "'")
    return sheet, rng.replace("$", "").upper().strip()


def _bounds(ref: str) -> tuple[int | None, int | None, int | None, int | None]:
    try:
        return range_boundaries(ref)
    except (ValueError, TypeError):
        raise ToolInputError(
            f"Error: {ref!r} is not A1 notation; use e.g. 'A1:D20', 'B2', 'A:C' or 'Sheet2!A1:F50'."
        ) from None


def _quote(sheet: str) -> str:
    """A sheet name as A1 notation writes it: bare when it is one word, else quoted."""
    if re.fullmatch(r"\w+", sheet):
        try:
            coordinate_from_string(sheet)
        except CellCoordinatesException:
            return sheet
    return "'" + sheet.replace("'", "''") + "'"


def _a1(sheet: str, c1: int, r1: int, c2: int, r2: int) -> str:
    area = f"{get_column_letter(c1)}{r1}:{get_column_letter(c2)}{r2}"
    return f"{_quote(sheet)}!{area}"


def _cell_value(value: Any) -> Any:
    """A JSON-friendly form of a cached cell value."""
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _show(value: Any, limit: int = MAX_CELL_CHARS) -> str:
    if value is None:
        return ""
    text = str(value)[: limit * 4].replace("|", "\\|").replace("\r\n", " ⏎ ").replace("\n", " ⏎ ")
    return clip(text, limit)


def _names(names: list[str], limit: int = 800) -> str:
    """Sheet names for a result's header, cut to about ``limit`` characters."""
    shown: list[str] = []
    used = 0
    for name in names:
        name = clip(name, 60)
        if shown and used + len(name) + 2 > limit:
            return ", ".join(shown) + f", … (+{len(names) - len(shown)} more)"
        shown.append(name)
        used += len(name) + 2
    return ", ".join(shown)


def _sheet_parts(zf: zipfile.ZipFile) -> list[str]:
    return [n for n in zf.namelist() if n.startswith("xl/worksheets/") and n.endswith(".xml")]


def _chunks(zf: zipfile.ZipFile, name: str) -> Iterator[bytes]:
    """A worksheet part in pieces, so that scanning it never holds the whole part."""
    with zf.open(name) as fh:
        while chunk := fh.read(_SCAN_CHUNK):
            yield chunk


def _count_formulas(data: bytes, stop_at: int | None = None) -> int:
    """Formula cells in the worksheets of ``data`` (counting stops at ``stop_at``)."""
    count = 0
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in _sheet_parts(zf):
            tail = b""
            for chunk in _chunks(zf, name):
                buf = tail + chunk
                # A tag cut at the chunk's end is counted with the next chunk.
                keep = max(len(buf) - 40, 0)
                count += sum(1 for m in _FORMULA_TAG.finditer(buf) if m.start() < keep)
                tail = buf[keep:]
                if stop_at is not None and count >= stop_at:
                    return count
            count += sum(1 for _ in _FORMULA_TAG.finditer(tail))
    return count


def _has_formulas(data: bytes) -> bool:
    return _count_formulas(data, stop_at=1) > 0


def _area_cells(ref: bytes) -> int:
    """How many cells an area such as ``A1:C3`` covers (a cell alone is one)."""
    text = html.unescape(ref.decode("utf-8", "replace")).replace("$", "").strip()
    total = 0
    for part in text.split():
        try:
            c1, r1, c2, r2 = range_boundaries(part)
        except (ValueError, TypeError):
            continue
        if None in (c1, r1, c2, r2):
            c1, r1 = c1 or 1, r1 or 1
            c2, r2 = c2 or 16_384, r2 or 1_048_576
        total += (c2 - c1 + 1) * (r2 - r1 + 1)
    return total


def _expanded_cells(data: bytes, path: str) -> int:
    """Cells that merged areas and hyperlink ranges cover, over every worksheet.

    openpyxl makes an object for each of them when it loads the workbook for editing, so
    a merged area of A1:XFD1048576 would be seventeen billion objects.
    """
    total = 0
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for name in _sheet_parts(zf):
            buf = b""
            # The empty chunk at the end says "no more data" to the tag search.
            for chunk in itertools.chain(_chunks(zf, name), [b""]):
                buf += chunk
                pos = 0
                while match := _AREA_TAG.search(buf, pos):
                    end = buf.find(b">", match.end())
                    if end < 0 and chunk:
                        if len(buf) - match.start() > _MAX_TAG_BYTES:
                            raise ToolInputError(
                                f"Error: {path} has a malformed worksheet (an element over "
                                f"{_MAX_TAG_BYTES:,} bytes); it cannot be edited here. Write "
                                "to a new workbook instead."
                            )
                        pos = match.start()
                        break
                    ref = _REF_ATTR.search(buf, match.end() - 1, end if end >= 0 else len(buf))
                    if ref:
                        total += _area_cells(ref.group(1) or ref.group(2) or b"")
                    pos = end + 1 if end >= 0 else len(buf)
                else:
                    pos = max(pos, len(buf) - 48)
                buf = buf[pos:]
                if total > MAX_EXPANDED_CELLS:
                    return total
    return total


async def _load_xlsx_bytes(path: str, service: object) -> bytes:
    data = await service.read_bytes(path)
    require_office_zip(data, "xlsx", path)
    return data


def _open_xlsx(data: bytes, path: str, **kwargs: Any) -> Any:
    try:
        return load_workbook(io.BytesIO(data), **kwargs)
    except Exception as exc:
        raise ToolInputError(
            f"Error: {path} could not be opened as an Excel workbook "
            f"({clip(plain_reason(exc), 200)}). Only .xlsx/.xlsm files are supported."
        ) from None


def _pick_sheet(wb: Any, sheet: str | None, path: str) -> Any:
    names = wb.sheetnames
    if sheet is None:
        return wb.worksheets[0]
    if sheet not in names:
        raise ToolInputError(
            f"Error: {path} has no sheet {sheet!r}; its sheets are: "
            f"{', '.join(repr(n) for n in names)}."
        )
    ws = wb[sheet]
    if not hasattr(ws, "iter_rows"):
        raise ToolInputError(f"Error: sheet {sheet!r} is a chart, not a grid of cells.")
    return ws


def _read_area(data: bytes, path: str, sheet: str | None, ref: str) -> dict[str, Any]:
    """Read the cached values (and, where missing, the formulas) of one area."""
    wb = _open_xlsx(data, path, read_only=True, data_only=True)
    try:
        ws = _pick_sheet(wb, sheet, path)
        bc1, br1, bc2, br2 = _bounds(ref) if ref else (None, None, None, None)
        max_row, max_col = ws.max_row, ws.max_column
        recorded = max_row is not None and max_col is not None
        if not recorded:
            if bc2 is None or br2 is None:
                # The file records no dimension: find it by scanning the sheet once.
                ws.calculate_dimension(force=True)
                max_row, max_col = ws.max_row or 1, ws.max_column or 1
            else:
                max_row, max_col = br2, bc2
        used_known = recorded or bc2 is None or br2 is None
        c1, r1 = bc1 or 1, br1 or 1
        if ref and ":" not in ref:
            c2, r2 = c1, r1
        else:
            # Never read past the used range, but always at least the first asked cell.
            c2 = min(bc2 or max_col, max(max_col, c1))
            r2 = min(br2 or max_row, max(max_row, r1))
        wanted_r2, wanted_c2 = r2, c2
        c2 = min(c2, c1 + MAX_READ_COLUMNS - 1)
        width = c2 - c1 + 1
        cut = r2 - r1 + 1 > MAX_CELLS // width
        if cut:
            r2 = r1 + MAX_CELLS // width - 1
        rows = [
            [_cell_value(v) for v in row]
            for row in ws.iter_rows(
                min_row=r1, max_row=r2, min_col=c1, max_col=c2, values_only=True
            )
        ]
        title = ws.title
        sheets = wb.sheetnames
        used = (
            f"A1:{get_column_letter(max_col)}{max_row}"
            if used_known
            else "not recorded in the file"
        )
    finally:
        wb.close()
    missing: dict[tuple[int, int], str] = {}
    if any(v is None for row in rows for v in row) and _has_formulas(data):
        fwb = _open_xlsx(data, path, read_only=True, data_only=False)
        try:
            fws = fwb[title]
            for i, row in enumerate(
                fws.iter_rows(min_row=r1, max_row=r2, min_col=c1, max_col=c2, values_only=True)
            ):
                for j, v in enumerate(row):
                    if isinstance(v, str) and v.startswith("=") and rows[i][j] is None:
                        missing[(i, j)] = v
        finally:
            fwb.close()
    return {
        "sheet": title,
        "sheets": sheets,
        "used": used,
        "box": (c1, r1, c2, r2),
        "wanted_r2": wanted_r2,
        "wanted_c2": wanted_c2,
        "rows": rows,
        "missing": missing,
        "cut": cut,
    }


@file_tool
async def xlsx_read_cells(path: str, range: str, service: object) -> ToolResponse:
    """Read cells of an Excel workbook (.xlsx) as a table.

    Formula cells show the value last saved with the file (never recalculated); a
    formula saved without a value is marked as such. A large area is shown in part, with
    the range to ask for next. The result also lists the sheets and the used range.

    Args:
        path (str): Logical absolute path of the workbook, e.g. /userinput/sales.xlsx.
        range (str): Cells in A1 notation, optionally with a sheet: 'A1:D20',
            'Sheet2!B2:C10', "'My Sheet'!A:C" (whole columns) or 'Sheet2!' (its used range).
            Without a sheet name the first sheet is read.
    """
    sheet, ref = _split_range(range)
    if ref:
        _bounds(ref)
    data = await _load_xlsx_bytes(path, service)
    return await read_once(_xlsx_result, path, data, sheet, ref, libraries=("openpyxl",))


def _xlsx_result(data: bytes, path: str, sheet: str | None, ref: str) -> ToolResponse:
    """What xlsx_read_cells shows of the area ``ref`` of ``sheet`` (the first without
    one) of the workbook ``data``."""
    area = _read_area(data, path, sheet, ref)
    c1, r1, c2, r2 = area["box"]
    rows, missing, title = area["rows"], area["missing"], area["sheet"]
    letters = [get_column_letter(c) for c in builtins.range(c1, c2 + 1)]
    # Every cell gets an equal share of a row's characters, so that one row always fits.
    per_cell = max(20, min(MAX_CELL_CHARS, MAX_ROW_CHARS // len(letters)))
    head = (
        f"{path} — sheet {clip(title, 60)!r} (sheets: {_names(area['sheets'])}; "
        f"used range {area['used']})"
    )
    table = ["| | " + " | ".join(letters) + " |", "|---" * (len(letters) + 1) + "|"]
    used = len(head) + sum(len(t) for t in table)
    shown = 0
    for i, row in enumerate(rows):
        cells = [
            f"⟨formula {clip(missing[(i, j)], 120)}; no cached value⟩"
            if (i, j) in missing
            else _show(v, per_cell)
            for j, v in enumerate(row)
        ]
        line = f"| {r1 + i} | " + " | ".join(cells) + " |"
        if shown and used + len(line) + 1 > MAX_BODY_CHARS:
            break
        table.append(line)
        used += len(line) + 1
        shown += 1
    last_row = r1 + shown - 1
    lines = [f"{head}\nCells {_a1(title, c1, r1, c2, max(last_row, r1))}:", *table]
    if not rows:
        lines.append("(no cells in this range)")
    if missing:
        lines.append(
            f"[{len(missing)} formula cell(s) have no cached value: the file was saved by a "
            "program that did not calculate them. Values are never computed here; open and "
            "save the workbook in a spreadsheet program to get them.]"
        )
    if shown < len(rows):
        nxt = last_row + 1
        lines.append(
            f"[Rows {nxt}–{r2} not shown. To read on, call xlsx_read_cells with "
            f'range="{_a1(title, c1, nxt, c2, min(r2, nxt + shown - 1))}".]'
        )
    elif area["cut"]:
        nxt, end = r2 + 1, area["wanted_r2"]
        ask = _a1(title, c1, nxt, c2, min(end, nxt + shown - 1))
        lines.append(
            f"[Rows {nxt}–{end} not read (at most {MAX_CELLS:,} cells per call). To read on, "
            f'call xlsx_read_cells with range="{ask}".]'
        )
    if area["wanted_c2"] > c2:
        nxt, end = c2 + 1, area["wanted_c2"]
        ask = _a1(title, nxt, r1, min(end, nxt + MAX_READ_COLUMNS - 1), max(last_row, r1))
        lines.append(
            f"[Columns {get_column_letter(nxt)}–{get_column_letter(end)} not read (at most "
            f"{MAX_READ_COLUMNS} columns per call). To read them, call xlsx_read_cells with "
            f'range="{ask}".]'
        )
    return ok("\n".join(lines), paths=[path])


def _typed(value: str) -> Any:
    """Plain numbers become numbers; anything else stays as it is."""
    s = value.strip()
    if _NUMBER.fullmatch(s):
        digits = s.lstrip("+-").split(".")[0].split("e")[0].split("E")[0]
        if (len(digits) > 1 and digits.startswith("0")) or len(digits) > 15:
            return value
        try:
            return int(s) if re.fullmatch(r"[+-]?\d+", s) else float(s)
        except ValueError:
            return value
    return value


@file_tool
async def xlsx_write_cells(
    path: str,
    range: str,
    values: list[list[str]],
    service: object,
    settings: object = None,
) -> ToolResponse:
    """Write values into cells of an Excel workbook (.xlsx); creates the file or sheet if needed.

    Other cells, sheets and formulas of an existing workbook are kept. Text that looks
    like a plain number ("42", "-3", "3.5") is stored as a number (but not "007" or 16+
    digit IDs). Text starting with =, +, -, @, a tab or a carriage return is stored as
    text, never as a formula.

    Args:
        path (str): Logical absolute path of the .xlsx file, e.g. /workspace/summary.xlsx.
        range (str): Where to write in A1 notation, optionally with a sheet: the top-left
            cell ('B2', 'Sheet2!A1') or the exact area ('A1:C3', whose size must match values).
        values (list[list[str]]): Rows of cell values, e.g. [["城市", "人口"], ["北京", "2189"]].
    """
    if not path.lower().endswith(".xlsx"):
        raise ToolInputError(f"Error: {path} must end in .xlsx; xlsx_write_cells writes .xlsx.")
    grid = _grid(values, "values")
    if not grid or not any(grid):
        raise ToolInputError("Error: values is empty; give at least one row with one value.")
    height, width = len(grid), max(len(r) for r in grid)
    if height * width > MAX_WRITE_CELLS:
        raise ToolInputError(
            f"Error: {height}×{width} cells is more than {MAX_WRITE_CELLS:,} per call; split it."
        )
    for i, row in enumerate(grid):
        for j, text in enumerate(row):
            bad = ILLEGAL_CHARACTERS_RE.search(text)
            if bad:
                raise ToolInputError(
                    f"Error: values[{i}][{j}] contains the control character "
                    f"U+{ord(bad.group()):04X}, which .xlsx cells cannot hold; replace it with "
                    "a space (or remove it) and call again. Nothing was written."
                )
    sheet, ref = _split_range(range)
    c1, r1, c2, r2 = _bounds(ref)
    if None in (c1, r1):
        raise ToolInputError(
            "Error: give a cell ('B2') or an area ('B2:D5'), not whole rows or columns."
        )
    if ":" in ref and (r2 - r1 + 1, c2 - c1 + 1) != (height, width):
        raise ToolInputError(
            f"Error: range {ref} is {r2 - r1 + 1} rows × {c2 - c1 + 1} columns but values is "
            f"{height} rows × {width} columns. Give only the top-left cell, e.g. "
            f"'{get_column_letter(c1)}{r1}', or an area of the same size."
        )
    service.check(path, "write")
    created = not await service.exists(path)
    data = None if created else await _load_xlsx_bytes(path, service)
    # openpyxl loads and saves whole workbooks: CPU work, kept off the event loop.
    out, title, sheets, formulas = await asyncio.to_thread(
        _write_cells, data, path, sheet, r1, c1, grid, _formulas_allowed(settings)
    )
    entry = await service.write_bytes(path, out)
    target = _a1(title, c1, r1, c1 + width - 1, r1 + height - 1)
    text = (
        f"Wrote {sum(len(r) for r in grid)} cells to {target} in "
        f"{'a new' if created else 'the existing'} workbook {path} ({entry.size:,} bytes; "
        f"sheets: {', '.join(sheets)})."
    )
    if formulas:
        text += (
            f" The workbook holds {formulas} formula cell(s); they are saved without computed "
            "values, which a spreadsheet program fills in when it opens the file."
        )
    return ok(text, paths=[path])


def _write_cells(
    data: bytes | None,
    path: str,
    sheet: str | None,
    r1: int,
    c1: int,
    grid: list[list[str]],
    formulas: bool = False,
) -> tuple[bytes, str, list[str], int]:
    """Write ``grid`` at (r1, c1) into the workbook ``data`` (a new one when None).

    Text that a spreadsheet program could take for a formula is stored as text with the
    quote prefix (what typing an apostrophe first does), unless ``formulas`` asks for
    formulas starting with "=".

    Returns the saved file, the sheet written, every sheet name and the formula count.
    """
    if data is not None and (covered := _expanded_cells(data, path)) > MAX_EXPANDED_CELLS:
        raise ToolInputError(
            f"Error: {path} has merged areas or hyperlink ranges covering {covered:,}+ cells "
            f"(at most {MAX_EXPANDED_CELLS:,} can be edited here); editing it would build an "
            "object for each. Write the values to a new workbook instead."
        )
    wb = Workbook() if data is None else _open_xlsx(data, path)
    try:
        if data is None:
            wb.active.title = sheet or "Sheet1"
        if sheet is None:
            ws = wb.worksheets[0]
        elif sheet in wb.sheetnames:
            ws = wb[sheet]
        else:
            ws = wb.create_sheet(sheet)
    except ValueError as exc:
        raise ToolInputError(f"Error: {sheet!r} is not a valid sheet name ({exc}).") from None
    for i, row in enumerate(grid):
        for j, text in enumerate(row):
            cell = ws.cell(row=r1 + i, column=c1 + j, value=_typed(text))
            if isinstance(cell.value, str) and formula_like(text):
                if formulas and text.startswith("="):
                    continue
                cell.data_type = "s"
                cell.quotePrefix = True
    buf = io.BytesIO()
    wb.save(buf)
    out = buf.getvalue()
    # Counted in the saved file, never by walking the grid: a cell at XFD1048576 would
    # make the grid seventeen billion cells.
    return out, ws.title, list(wb.sheetnames), _count_formulas(out)
