"""The questions file of ``quartet batch``: a text file (one question a line), or a CSV or
XLSX file with a ``question`` column and optional ``input`` and ``formats`` columns.

A relative ``input`` folder is read from the questions file's folder. Every problem is a
:class:`~host.config.ConfigError` naming the file and the row.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from host.config import ConfigError, parse_formats
from subagents.failures import plain_reason

COLUMNS = ("question", "input", "formats")


@dataclass(frozen=True)
class Question:
    """One row of the batch.

    Attributes:
        question: what to research.
        input_dir: the folder mounted as ``/userinput/`` (None: the batch's default).
        formats: the report formats (empty: the batch's default).
    """

    question: str
    input_dir: str | None = None
    formats: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "formats": list(self.formats)}


def _lines(text: str) -> list[str]:
    """The lines of ``text``, broken at line feeds and carriage returns only: a vertical
    tab, a form feed or U+2028 inside a question does not make two questions of it."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _rows_from_text(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    rows = []
    for number, line in enumerate(_lines(text), start=1):
        line = line.strip()
        if line and not line.startswith("#"):
            rows.append((number, {"question": line}))
    return rows


def _header(path: Path, names: list[Any]) -> list[str]:
    header = [str(n or "").strip().lower() for n in names]
    if "question" not in header:
        shown = ", ".join(h for h in header if h) or "none"
        raise ConfigError(f"{path}: no 'question' column in the first row (columns: {shown})")
    return header


def _rows_from_csv(path: Path, text: str) -> list[tuple[int, dict[str, str]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = _header(path, next(reader))
    except StopIteration:
        raise ConfigError(f"{path}: the file is empty") from None
    except csv.Error as exc:
        raise ConfigError(f"{path}: not a readable CSV file ({exc})") from None
    rows = []
    try:
        for cells in reader:
            row = {h: c for h, c in zip(header, cells, strict=False) if h in COLUMNS}
            rows.append((reader.line_num, row))
    except csv.Error as exc:
        raise ConfigError(f"{path}: line {reader.line_num}: {exc}") from None
    return rows


def _rows_from_xlsx(path: Path) -> list[tuple[int, dict[str, str]]]:
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:
        raise ConfigError(f"{path}: not a readable XLSX workbook ({plain_reason(exc)})") from None
    try:
        sheet = book.worksheets[0]
        lines = sheet.iter_rows(values_only=True)
        first = next(lines, None)
        if first is None:
            raise ConfigError(f"{path}: the first sheet is empty")
        header = _header(path, list(first))
        rows = []
        for number, cells in enumerate(lines, start=2):
            row = {
                h: "" if c is None else str(c)
                for h, c in zip(header, cells, strict=False)
                if h in COLUMNS
            }
            rows.append((number, row))
        return rows
    finally:
        book.close()


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save it as UTF-8") from None


def read_questions(path: Path) -> list[Question]:
    """The questions in ``path``, in order; a ConfigError when the file cannot be used.

    Args:
        path: a ``.csv``, ``.xlsx`` or any other file read as text, one question a line
            (blank lines and lines starting with ``#`` are skipped).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such questions file")
    suffix = path.suffix.lower()
    if suffix == ".xls":
        raise ConfigError(f"{path}: old .xls workbooks are not read; save it as .xlsx")
    try:
        if suffix == ".csv":
            rows = _rows_from_csv(path, _read_text(path))
        elif suffix in (".xlsx", ".xlsm"):
            rows = _rows_from_xlsx(path)
        else:
            rows = _rows_from_text(path, _read_text(path))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    questions = []
    for number, row in rows:
        if not any((v or "").strip() for v in row.values()):
            continue  # a blank row
        questions.append(_question(path, number, row))
    if not questions:
        raise ConfigError(f"{path}: no questions in it")
    return questions


def _question(path: Path, number: int, row: dict[str, str]) -> Question:
    where = f"{path}: row {number}"
    text = " ".join((row.get("question") or "").split())
    if not text:
        raise ConfigError(f"{where}: the question is empty")
    input_dir = None
    if (row.get("input") or "").strip():
        folder = Path(row["input"].strip()).expanduser()
        if not folder.is_absolute():
            folder = path.parent / folder
        if not folder.is_dir():
            raise ConfigError(f"{where}: input {row['input'].strip()} is not a folder")
        input_dir = str(folder.resolve())
    formats: tuple[str, ...] = ()
    if (row.get("formats") or "").strip():
        try:
            formats = parse_formats(row["formats"].replace(";", ","))
        except ConfigError as exc:
            raise ConfigError(f"{where}: {str(exc).removeprefix('--formats: ')}") from None
    return Question(text, input_dir, formats)
