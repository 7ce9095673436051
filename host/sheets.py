"""Spreadsheet and CSV results as clean Markdown tables.

A spreadsheet result (``xlsx_read_cells``) shows cells under their column letters and row
numbers; a CSV result shows numbered lines. :func:`sheet_markdown` turns either into a
plain table whose first row is the header, with the letters and numbers gone. A formula
the file saved without a value is computed when it is a simple aggregate of the table's
own cells (SUM, AVERAGE, MIN, MAX, COUNT, COUNTA) and shown as "not computed" otherwise;
it is never left blank. A long note in the first column of an otherwise empty row is kept
as a line under the table. A header written as an identifier (``colonies_surveyed``) is
shown as words (``colonies surveyed``).
"""

from __future__ import annotations

import csv
import io
import re

from research.tables import row_cells

_FORMULA = re.compile(r"⟨formula (=.*?); no cached value⟩")
_AGGREGATE = re.compile(
    r"^=\s*(SUM|AVERAGE|MIN|MAX|COUNT|COUNTA)\(\s*([A-Z]+)(\d+):([A-Z]+)(\d+)\s*\)$", re.I
)
_CSV_LINE = re.compile(r"^(\d+): (.*)$")
_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
_IDENTIFIER = re.compile(r"^[^\W\d_][^\W_]*(?:_+[^\W_]+)+$")
NOT_COMPUTED = {"en": "not computed", "zh": "未计算"}


def _letters_to_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - 64)
    return n - 1


def _value(text: str) -> float | None:
    clean = text.replace(",", "").strip()
    try:
        return float(clean) if _NUMBER.match(text.strip()) else None
    except ValueError:
        return None


def _compute(formula: str, grid: dict[tuple[int, int], str], lang: str) -> str:
    """The value of a simple aggregate formula over the grid, or "not computed"."""
    match = _AGGREGATE.match(formula.strip())
    if not match:
        return NOT_COMPUTED.get(lang, NOT_COMPUTED["en"])
    name, c1, r1, c2, r2 = match.groups()
    cols = range(_letters_to_index(c1), _letters_to_index(c2) + 1)
    rows = range(int(r1), int(r2) + 1)
    cells = [grid.get((r, c), "") for r in rows for c in cols]
    numbers = [v for v in (_value(c) for c in cells) if v is not None]
    name = name.upper()
    if name == "COUNTA":
        result: float = sum(1 for c in cells if c.strip())
    elif name == "COUNT":
        result = len(numbers)
    elif not numbers:
        return NOT_COMPUTED.get(lang, NOT_COMPUTED["en"])
    elif name == "SUM":
        result = sum(numbers)
    elif name == "AVERAGE":
        result = sum(numbers) / len(numbers)
    elif name == "MIN":
        result = min(numbers)
    else:
        result = max(numbers)
    return f"{result:,.0f}" if float(result).is_integer() else f"{result:,.2f}"


def _grid_rows(text: str) -> list[tuple[int, list[str]]]:
    """``(row number, cells)`` of an ``xlsx_read_cells`` table (letters row dropped)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("|") or re.match(r"^\|[\s|:-]+\|?$", line):
            continue
        cells = row_cells(line)
        if cells and cells[0].isdigit():
            out.append((int(cells[0]), cells[1:]))
    return out


def _xlsx_table(text: str, lang: str) -> tuple[list[list[str]], list[str]]:
    numbered = _grid_rows(text)
    grid = {(r, c): v for r, cells in numbered for c, v in enumerate(cells)}
    rows: list[list[str]] = []
    notes: list[str] = []
    for _, row in numbered:
        cells = [_FORMULA.sub(lambda m: _compute(m.group(1), grid, lang), c) for c in row]
        filled = [c for c in cells if c]
        if len(filled) == 1 and cells[0] and len(cells[0]) > 60:
            notes.append(cells[0])
            continue
        if filled:
            rows.append(cells)
    return rows, notes


def _csv_table(text: str) -> list[list[str]]:
    rows = []
    for line in text.splitlines():
        match = _CSV_LINE.match(line)
        if match:
            rows.extend(csv.reader(io.StringIO(match.group(2))))
    return [r for r in rows if any(c.strip() for c in r)]


def _escape(cell: str) -> str:
    return re.sub(r"\s+", " ", cell.replace("|", "/")).strip()


def header_words(cell: str) -> str:
    """A header written as an identifier in words: ``loss_pct`` → ``loss pct``; any other
    header as it is."""
    return re.sub(r"_+", " ", cell) if _IDENTIFIER.match(cell) else cell


def sheet_markdown(tool: str, text: str, lang: str = "en") -> str:
    """A spreadsheet or CSV result as a Markdown table (header first), notes below it."""
    rows, notes = _xlsx_table(text, lang) if tool == "xlsx_read_cells" else (_csv_table(text), [])
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    used = [i for i in range(width) if any(i < len(r) and r[i].strip() for r in rows)]
    grid = [[_escape(r[i]) if i < len(r) else "" for i in used] for r in rows]
    header, body = [header_words(c) for c in grid[0]], grid[1:]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines) + "".join(f"\n\n{note}" for note in notes)
