"""Tables as evidence: the Markdown tables of a stored text found with their exact
offsets, how well a table answers a part, which table each part shows, and which
sentences only make sense beside their table.

:func:`tables_in` finds every Markdown table of a stored text with its exact offsets, so
that a table can be cited like a sentence: its span is the table's text. A table is named
by the heading above it only when it opens that heading's section or the sentence just
before it announces it ("The table below …", "下表…"); a table at the end of a section on
something else keeps no name rather than a wrong one. A table keeps its notes, the
paragraphs right under it that qualify it: on a page, those that open as a note ("Note:",
"Source:", "*", 注：); in a spreadsheet's sheet, every paragraph after it (the sheet's note
rows, which the File source writes there: a caveat such as "the rows do not add up to the
total"). Its citable span runs to the end of its notes, so that they are shown and cited
with it.

:func:`table_score` says how well a table answers a part, counting only what more than
one row says; :func:`file_table_score` does so for a file's table, which is taken to be
about the question's subject but answers a part only through what it says itself.

:func:`choose` picks the table each part of the question shows. A file's table (a
spreadsheet or CSV file the user gave or a page linked to) is preferred to a page's
table that is not clearly better, since it is the data itself (numbers as numbers, every
column) where a page's table is a rendering of it. A table in the report's language
comes before one in another language, however well that one scores (a workbook's Chinese
sheet matches an English part through the Chinese words it shares with it): another
language's table is shown only for a part that has none in the report's language.

:func:`about_topic` tells whether a table is about a topic a brief asks a section on.

:func:`announces_table` tells a sentence that points to a table ("The table below lists
…", "见下表"); such a sentence says nothing without it, and is quoted only in a section
that shows the table that follows it (:func:`table_after`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from .question import Focus
from .relevance import evidence_threshold, score_text
from .text import Block, blocks, plain, terms

#: Words by which a paragraph announces the table that follows it.
_ANNOUNCES = re.compile(
    r"\b(?:below|following|table|tabulated|listed|as follows)\b|下表|如下|以下|见表|列表|表中", re.I
)
#: A sentence that points to a table rather than saying anything itself.
_POINTS_TO_TABLE = re.compile(
    r"\b(?:this|these|the following|following)\s+tables?\b|\btables?\s+(?:below|above|\d+)\b"
    r"|\b(?:shown|listed|given|set out|summari[sz]ed)\s+(?:below|in the (?:following )?table)\b"
    r"|\bas follows\b|下表|如下表|见表|(?<!代)表中|下列表格|如下[：:]",
    re.I,
)
#: A paragraph that opens as a note on the table above it: a note mark, "Note:",
#: "Sources:", "N.B.", 注：, 说明：, 资料来源：.
_NOTE = re.compile(
    r"^\s*(?:[*†‡]|\(?(?:notes?|sources?|n\.\s?b\.?)\s*[:.)]"
    r"|(?:注|附注|说明|备注|资料来源|数据来源|来源)\s*[:：])",
    re.I,
)
#: How the File source names the section of a spreadsheet's sheet ("## Sheet Cities").
_SHEET = re.compile(r"^Sheet\s")
#: How much a file's table is preferred to a page's (added to its score when choosing).
FILE_PREFERENCE = 0.1


@dataclass(frozen=True)
class Found:
    """A Markdown table in a stored text: its offsets (through its notes), header, rows,
    the heading that names it and its notes (the paragraphs under it that qualify it)."""

    start: int
    end: int
    header: list[str]
    rows: list[list[str]]
    section: str
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The table's words, for scoring it against a sub-question."""
        cells = [*self.header, *(c for row in self.rows for c in row)]
        return " ".join(c for c in cells if c)


def row_cells(line: str) -> list[str]:
    """The cells of one Markdown table row, trimmed."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def tables_in(text: str, sheets: bool = False) -> list[Found]:
    """Every Markdown table of ``text`` with its exact offsets (its span, through its
    notes, is citable), each named by the heading above it when the heading is about it
    and kept with its notes (see the module notes). ``sheets``: ``text`` is a file's
    extract, whose ``Sheet …`` sections are a spreadsheet's sheets."""
    found = []
    before = ""  # the block just before, since the last heading ("" right after one)
    listed = blocks(text)
    for i, block in enumerate(listed):
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
        header = [plain(c) for c in row_cells(lines[0])]
        rows = [[plain(c) for c in row_cells(line)] for line in lines[2:]]
        section = block.section if named else ""
        sheet = sheets and bool(_SHEET.match(block.section))
        notes = _notes_under(text, listed[i + 1 :], sheet)
        end = notes[-1].end if notes else block.end
        said = [" ".join(plain(text[n.start : n.end]).split()) for n in notes]
        found.append(Found(block.start, end, header, rows, section, said))
    return found


def _notes_under(text: str, after: list[Block], sheet: bool) -> list[Block]:
    """The paragraphs right under a table that are its notes: in a sheet, every one up to
    the next heading or table; elsewhere, those that open as a note (:data:`_NOTE`)."""
    notes = []
    for block in after:
        if block.kind != "para" or not (sheet or _NOTE.match(text[block.start : block.end])):
            break
        notes.append(block)
    return notes


def file_title(name: str) -> str:
    """A file name as words: ``station-distances.xlsx`` → ``station distances``."""
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return re.sub(r"[-_.]+", " ", stem).strip()


def about_topic(found: Found, topic: frozenset[str]) -> int:
    """How plainly a table is about a topic (its content terms): 2 when its first column
    names it (each row is one of the topic's things: "City" for "cities"), 1 when its
    heading or another column does, else 0."""
    if not topic:
        return 0
    first = set(terms(found.header[0])) if found.header else set()
    if topic <= first:
        return 2
    named = [found.section, *found.header[1:]]
    return 1 if any(topic <= set(terms(n)) for n in named) else 0


def table_score(focus: Focus, found: Found, title: str) -> float:
    """How well a table answers a part, counting only what more than one row says.

    A table whose match rests on a single cell (a trip plan with one "museum" stop)
    is not about the part: the score is the lowest left after taking out any one row.
    """
    bar = evidence_threshold(focus)
    score = score_text(focus, found.text()[:4000] + ".", title)
    if score < bar or len(found.rows) < 3:
        return score
    for j in range(len(found.rows)):
        rows = [row for k, row in enumerate(found.rows) if k != j]
        without = replace(found, rows=rows)
        score = min(score, score_text(focus, without.text()[:4000] + ".", title))
        if score < bar:
            break
    return score


def file_table_score(focus: Focus, found: Found, subject: str, name: str) -> float:
    """How well a table of a file (a spreadsheet or CSV file, with no page title to say
    what it is about) answers a part.

    Such a file, read for the question, is taken to be about the question's ``subject``
    (a name such as ``sections.xlsx`` does not say which river): the subject joins the
    file's ``name`` and the table's sheet as its title. That lends the table the subject,
    never an answer. A part that asks for nothing beyond its subject ("What is X?") is
    answered by the table only when the table's own words and name say so, and a part
    with no words of its own ("Why?") by no table: the table goes under the part whose
    own words it says.
    """
    own = f"{file_title(name)} {found.section}"
    if focus.facets:
        return table_score(focus, found, f"{subject} {own}")
    return table_score(focus, found, own) if focus.subject else 0.0


@dataclass(frozen=True)
class TableOption:
    """A table a part could show: its key (an evidence id), its score for the part,
    whether it comes from a file, and whether it is in the report's language."""

    part: str
    key: str
    score: float
    from_file: bool = False
    in_language: bool = True


def choose(options: Iterable[TableOption]) -> dict[str, str]:
    """The table each part shows (by key): the best in the report's language while the
    part has one, a file's table preferred by :data:`FILE_PREFERENCE`; each table in one
    part only."""
    ranked = sorted(
        options,
        key=lambda o: (o.in_language, o.score + FILE_PREFERENCE * o.from_file, o.part, o.key),
        reverse=True,
    )
    chosen: dict[str, str] = {}
    used: set[str] = set()
    for option in ranked:
        if option.part not in chosen and option.key not in used:
            chosen[option.part] = option.key
            used.add(option.key)
    return chosen


def announces_table(sentence: str) -> bool:
    """Whether a sentence points to a table ("The table below lists the stations",
    "各段长度见下表"): without the table it says nothing."""
    return bool(_POINTS_TO_TABLE.search(plain(sentence)))


def table_after(text: str, offset: int) -> Found | None:
    """The table that follows the block holding ``offset`` in ``text``, if the next block
    is one (the table a sentence there announces)."""
    after = [b for b in blocks(text) if b.end > offset]
    if len(after) < 2 or after[1].kind != "table":
        return None
    return next((t for t in tables_in(text) if t.start == after[1].start), None)
