"""Tables in the sources: spreadsheet and CSV results as clean Markdown tables, and the
tables of stored pages and extracts found again as citable blocks.

A spreadsheet result (``xlsx_read_cells``) shows cells under their column letters and row
numbers; a CSV result shows numbered lines. :func:`sheet_markdown` turns either into a
plain table whose first row is the header, with the letters and numbers gone. A formula
the file saved without a value is computed when it is a simple aggregate of the table's
own cells (SUM, AVERAGE, MIN, MAX, COUNT, COUNTA) and shown as "not computed" otherwise;
it is never left blank. A long note in the first column of an otherwise empty row is kept
as a line under the table.

:func:`tables_in` finds every Markdown table of a stored text with its exact offsets, so
that a table can be cited like a sentence: its span is the table's text. A table is named
by the heading above it only when it opens that heading's section or the sentence just
before it announces it ("The table below …", "下表…"); a table at the end of a section on
something else keeps no name rather than a wrong one.

:func:`choose_tables` picks the table each part of the question shows. A file's table
(a spreadsheet or CSV file the user gave or a page linked to) has no page title to say
what it is about: a file read for the question is taken to be about its subject (a name
such as ``canal-sections.xlsx`` does not say which canal). When it is relevant to a part
it is preferred to a page's table that is not clearly better, since it is the data itself
(numbers as numbers, every column) where a page's table is a rendering of it. A table in
the report's language comes before one in another language, however well that one scores
(a workbook's Chinese sheet matches an English part through the Chinese words it shares
with it, such as 开凿 for "built"): another language's table is shown only for a part that
has none in the report's language.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from research.text import blocks, language, plain
from subagents.evidence import EvidenceItem

_FORMULA = re.compile(r"⟨formula (=.*?); no cached value⟩")
_AGGREGATE = re.compile(
    r"^=\s*(SUM|AVERAGE|MIN|MAX|COUNT|COUNTA)\(\s*([A-Z]+)(\d+):([A-Z]+)(\d+)\s*\)$", re.I
)
_CSV_LINE = re.compile(r"^(\d+): (.*)$")
_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
#: Words by which a paragraph announces the table that follows it.
_ANNOUNCES = re.compile(
    r"\b(?:below|following|table|tabulated|listed|as follows)\b|下表|如下|以下|见表|列表|表中", re.I
)
#: How much a file's table is preferred to a page's (added to its score when choosing).
FILE_PREFERENCE = 0.1
NOT_COMPUTED = {"en": "not computed", "zh": "未计算"}


@dataclass(frozen=True)
class Found:
    """A Markdown table in a stored text: its offsets, header and rows."""

    start: int
    end: int
    header: list[str]
    rows: list[list[str]]
    section: str

    def text(self) -> str:
        """The table's words, for scoring it against a sub-question."""
        cells = [*self.header, *(c for row in self.rows for c in row)]
        return " ".join(c for c in cells if c)


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


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
        cells = _cells(line)
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


def sheet_markdown(tool: str, text: str, lang: str = "en") -> str:
    """A spreadsheet or CSV result as a Markdown table (header first), notes below it."""
    rows, notes = _xlsx_table(text, lang) if tool == "xlsx_read_cells" else (_csv_table(text), [])
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    used = [i for i in range(width) if any(i < len(r) and r[i].strip() for r in rows)]
    grid = [[_escape(r[i]) if i < len(r) else "" for i in used] for r in rows]
    header, body = grid[0], grid[1:]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines) + "".join(f"\n\n{note}" for note in notes)


def tables_in(text: str) -> list[Found]:
    """Every Markdown table of ``text`` with its exact offsets (its span is citable), each
    named by the heading above it when the heading is about it (see the module notes)."""
    found = []
    before = ""  # the block just before, since the last heading ("" right after one)
    for block in blocks(text):
        if block.kind == "heading":
            before = ""
            continue
        if block.kind != "table":
            before = text[block.start : block.end]
            continue
        lines = text[block.start : block.end].splitlines()
        named = not before or bool(_ANNOUNCES.search(before))
        before = text[block.start : block.end]
        if len(lines) < 3 or not re.match(r"^\s*\|?[\s:|-]+\|?\s*$", lines[1]):
            continue
        header = [plain(c) for c in _cells(lines[0])]
        rows = [[plain(c) for c in _cells(line)] for line in lines[2:]]
        section = block.section if named else ""
        found.append(Found(block.start, block.end, header, rows, section))
    return found


Scorer = Callable[[Any, Found, str], float]


def file_title(name: str) -> str:
    """A file name as words: ``canal-sections.xlsx`` → ``canal sections``."""
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_.]+", " ", stem).strip()


def _file_tables(research: Any, score: Scorer, threshold: float) -> dict[str, dict[str, float]]:
    """By part, the tables of the files read that are relevant to it, with their scores.

    Each file table is scored as about the question's subject (the subject's name joins
    the file's name and sheet as its title) and, when relevant, is cited as its exact
    block with its sheet as locator.
    """
    from research.relevance import entity

    subject = entity(research.plan.question)
    out: dict[str, dict[str, float]] = {sid: {} for sid in research.focus}
    for path, source in research.sources.items():
        if source.kind != "file":
            continue
        text = research.texts.get(path, "")
        for found in tables_in(text):
            if len(found.rows) < 2:
                continue
            title = f"{subject} {file_title(source.url)} {found.section}"
            scores = {sid: score(focus, found, title) for sid, focus in research.focus.items()}
            if max(scores.values(), default=0.0) < threshold:
                continue
            item = research.ledger.add(
                EvidenceItem(
                    url=source.url,
                    span=text[found.start : found.end],
                    start=found.start,
                    end=found.end,
                    page_path=path,
                    locator=found.section,
                )
            )
            research.found_tables[item.id] = found
            for sid, value in scores.items():
                if value >= threshold:
                    out[sid][item.id] = value
    return out


def choose_tables(research: Any, score: Scorer, threshold: float) -> dict[str, str]:
    """The table each part of the question shows (by evidence id): the best relevant one
    in the report's language while the part has one, a file's table preferred by
    ``FILE_PREFERENCE``; each table in one part only.

    Args:
        research: the run's research state (its plan, focus, sources, texts, ledger and
            the tables already scored).
        score: how well a table answers a part: ``score(focus, found, title)``.
        threshold: the score from which a table is relevant.
    """
    files = _file_tables(research, score, threshold)
    lang = research.plan.language

    def mine(ev_id: str) -> bool:
        found = research.found_tables.get(ev_id)
        return found is not None and language(found.text()) == lang

    pairs = sorted(
        (
            (
                mine(ev_id),
                value + (FILE_PREFERENCE if ev_id in files.get(sid, {}) else 0.0),
                sid,
                ev_id,
            )
            for sid, tables in research.tables.items()
            for ev_id, value in {**tables, **files.get(sid, {})}.items()
        ),
        reverse=True,
    )
    chosen: dict[str, str] = {}
    used: set[str] = set()
    for _, _, sid, ev_id in pairs:
        if sid not in chosen and ev_id not in used:
            chosen[sid] = ev_id
            used.add(ev_id)
    return chosen
