"""The notes format, and its parser into a report draft.

Notes are Markdown files the Host and the agents write under ``/workspace/notes/``
(any ``.md`` or ``.txt`` file that is not a stored page works)::

    # Title of the report                      (optional; the first level-1 heading)

    A short lead paragraph: it becomes the report's summary.   (optional)

    ## A section heading                       (every level-2..6 heading starts a section)

    > Partly answered: no source gives a date.  (optional: a quoted line is the section's
                                                 status, shown under its heading)

    A claim taken from a page. [ev-1a2b3c4d5e6f]
    - A bullet point, cited twice. [ev-1a2b3c4d5e6f][ev-0f9e8d7c6b5a]
    - **1,800 km** — An answer line: the answer in bold, a dash, the sentence. [ev-…]

    | A table | quoted from a source |
    |---|---|
    | its rows | … |

    A note under the table, as its source has it.   (optional: uncited paragraphs between
                                                     a table and its caption are its notes)

    Table: the caption that cites it. [ev-…]

A citation marker is an evidence id in square brackets, ``[ev-` + 12 hex digits + `]``,
placed after the words it supports; several ids may share one pair of brackets,
separated by commas (``[ev-…, ev-…]``). Evidence ids come from the run's evidence ledger
and from the ``evidence`` lists of stored pages' sidecars (``/workspace/pages/*.json``).
Inline Markdown (emphasis, links, code) is read as plain text; raw HTML is kept as text;
code blocks are left out.

A report written earlier by ``generate_markdown`` reads back the same way: its numbered
markers ``[n]`` are mapped to evidence ids through its Sources list, so it can be turned
into another format and its citations are checked again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from research.labels import RESEARCH_MARKER, section_kind

#: First line of every Markdown report this package writes.
REPORT_MARKER = "<!-- quartet-report: [n] markers cite the numbered Sources below -->"
#: The line before a Markdown report's colophon (its last paragraph: when and how the
#: report was made); what follows it is no part of the report's content.
COLOPHON_MARKER = "<!-- quartet-colophon: when and how this report was made -->"
_COLOPHON_LINE = re.compile(rf"^{re.escape(COLOPHON_MARKER)}[ \t]*$", re.M)

EV_ID = r"ev-[0-9a-fA-F]{12}"
_KEY = rf"(?:{EV_ID}|\d{{1,4}})"
_MARKER = re.compile(rf"\[\s*({_KEY}(?:\s*[,;]\s*{_KEY})*)\s*\]")
_EV_ANYWHERE = re.compile(rf"\b({EV_ID})\b")
_SOURCE_LINE = re.compile(r"^\s*(?:-\s*\[(\d{1,4})\]|(\d{1,4})[.)])\s")
#: Where a Sources line keeps its machine provenance: an HTML comment (a reader never sees
#: it) with the evidence id and where the span lives; older reports showed the id in
#: backticks before it.
_SOURCE_COMMENT = re.compile(r"<!-- (\{.*\}) -->\s*$")
_SOURCE_ID = re.compile(rf"`({EV_ID})`")


@dataclass(frozen=True)
class Cite:
    """A citation marker: an evidence id (``ev-…``) or a report number (``#3``)."""

    key: str


Part = str | Cite


@dataclass
class Point:
    """One paragraph or bullet: text pieces and citation markers, in reading order, and,
    for a part's answer line, the answer it opens with (a date or a quantity the cited
    sentence gives, written in bold before it in the notes: ``**486 BCE** — The …``)."""

    parts: list[Part]
    bullet: bool = False
    answer: str = ""

    @property
    def text(self) -> str:
        """The words alone, markers left out."""
        return "".join(p for p in self.parts if isinstance(p, str))

    def cites(self) -> list[Cite]:
        return [p for p in self.parts if isinstance(p, Cite)]


@dataclass
class Chart:
    """A bar chart of a table's numeric column(s): one bar (group) per label."""

    title: str
    labels: list[str]
    series: list[tuple[str, list[float]]]  # (column name, one value per label)
    unit: str = ""
    by: str = ""  # the name of the column the labels come from


@dataclass
class Table:
    """A table quoted from a source: header, rows, and the caption that cites its source.

    ``caption`` is a point (text and markers) so that its citation is checked like any
    other; a table whose caption keeps no verified citation is left out of the report.
    ``notes`` are its source's notes under it (a caveat row of a sheet, "Note: …"), shown
    between it and its caption and cited by the caption with it.
    """

    header: list[str]
    rows: list[list[str]]
    caption: Point = field(default_factory=lambda: Point([]))
    chart: Chart | None = None
    notes: list[str] = field(default_factory=list)


#: What a section holds: a part of the question, the disagreements between sources,
#: what could not be found, the tables no part asks about (an appendix), or anything else
#: the notes had.
SECTION_KINDS = ("part", "disagreements", "not_found", "appendix", "other")


@dataclass
class Section:
    """A section: its heading, points and tables, what kind of section it is, and, for a
    part of the question not fully answered, its status in words ("Partly answered: …")."""

    heading: str
    points: list[Point] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    kind: str = "part"
    status: str = ""


@dataclass
class Draft:
    """A report before its citations are checked: title, lead points, sections."""

    title: str = ""
    lead: list[Point] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)

    def points(self) -> list[Point]:
        """Every point, table captions included (their citations are checked too)."""
        return [
            *self.lead,
            *(p for s in self.sections for p in [*s.points, *(t.caption for t in s.tables)]),
        ]

    def is_empty(self) -> bool:
        return not self.points()


def _key(raw: str) -> str:
    return f"#{int(raw)}" if raw.isdigit() else raw.lower()


def _citation(state: StateInline, silent: bool) -> bool:
    """Inline rule: ``[ev-…]``, ``[3]`` or ``[ev-…, 4]`` become one citation token."""
    if state.src[state.pos] != "[":
        return False
    m = _MARKER.match(state.src, state.pos, state.posMax)
    if m is None:
        return False
    if not silent:
        token = state.push("citation", "", 0)
        token.meta = {"keys": [_key(k) for k in re.split(r"\s*[,;]\s*", m.group(1))]}
    state.pos = m.end()
    return True


def parser() -> MarkdownIt:
    """A CommonMark parser with raw HTML off, images off and the citation rule on.

    Numbered markers (``[3]``) are citations too: in notes or a model's text they match
    nothing and are dropped, so a bare number can never pass for a checked citation.
    """
    md = MarkdownIt("commonmark", {"html": False})
    md.enable("table")
    md.disable("image")
    md.inline.ruler.before("link", "citation", _citation)
    return md


def _flatten(children: list[Token] | None) -> list[Part]:
    parts: list[Part] = []
    for tok in children or []:
        if tok.type in ("text", "code_inline", "html_inline"):
            parts.append(tok.content)
        elif tok.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif tok.type == "citation":
            parts.extend(Cite(k) for k in tok.meta["keys"])
    return _merge(parts)


def _merge(parts: list[Part]) -> list[Part]:
    """Join neighbouring strings and collapse runs of whitespace."""
    out: list[Part] = []
    for p in parts:
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] += p
        else:
            out.append(p)
    cleaned: list[Part] = []
    for p in out:
        if isinstance(p, str):
            p = re.sub(r"\s+", " ", p)
            if not p:
                continue
        cleaned.append(p)
    if cleaned and isinstance(cleaned[0], str):
        cleaned[0] = cleaned[0].lstrip()
    if cleaned and isinstance(cleaned[-1], str):
        cleaned[-1] = cleaned[-1].rstrip()
    return [p for p in cleaned if p != ""]


_CAPTION = re.compile(r"^(?:Table|表)\s*[:：]\s*")
#: What follows the bold answer of an answer line.
ANSWER_SEPARATOR = re.compile(r"^\s*(?:—|：)\s*")


def _answer_of(children: list[Token] | None, parts: list[Part]) -> tuple[str, list[Part]]:
    """A line opening with a bold answer and a dash (``**486 BCE** — The oldest …``):
    the answer, and the line's parts without it; otherwise ``""`` and the parts."""
    tokens = [t for t in children or [] if t.type != "text" or t.content]
    kinds = [t.type for t in tokens[:4]]
    if kinds[:3] != ["strong_open", "text", "strong_close"] or len(tokens) < 4:
        return "", parts
    answer, rest = tokens[1].content.strip(), tokens[3]
    if rest.type != "text" or not ANSWER_SEPARATOR.match(rest.content) or not answer:
        return "", parts
    first = parts[0] if parts and isinstance(parts[0], str) else ""
    if not first.startswith(answer):
        return "", parts
    remainder = ANSWER_SEPARATOR.sub("", first[len(answer) :], count=1)
    return answer, [remainder, *parts[1:]] if remainder else parts[1:]


def parse_notes(text: str) -> Draft:
    """Parse notes (or an earlier report's body) into a :class:`Draft`.

    A Markdown table becomes a :class:`Table` of its section; a paragraph right after it
    that starts with "Table:" (or "表：") is its caption, with the markers citing it, and
    the paragraphs without markers between the two are its notes. A block quote without
    markers in a section is the section's status.
    """
    tokens = parser().parse(text)
    draft = Draft()
    current: Section | None = None
    heading_level = 0
    list_depth = 0
    quote_depth = 0
    table: Table | None = None
    row: list[str] | None = None
    in_head = False
    last_table: Table | None = None
    pending: list[Point] = []  # uncited paragraphs after last_table: its notes if captioned
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            heading_level = int(tok.tag[1])
        elif tok.type == "heading_close":
            heading_level = 0
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif tok.type in ("blockquote_open", "blockquote_close"):
            quote_depth += 1 if tok.type == "blockquote_open" else -1
        elif tok.type == "table_open":
            table, last_table, pending = Table([], []), None, []
        elif tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "tr_close" and table is not None and row is not None:
            if in_head:
                table.header = row
            else:
                table.rows.append(row)
            row = None
        elif tok.type == "table_close" and table is not None:
            if current is None:
                current = Section("")
                draft.sections.append(current)
            current.tables.append(table)
            last_table, table = table, None
        elif tok.type == "inline":
            parts = _flatten(tok.children)
            words = "".join(p for p in parts if isinstance(p, str)).strip()
            if row is not None:
                row.append(words)
            elif heading_level:
                if heading_level == 1 and not draft.title and current is None:
                    draft.title = words
                elif words:
                    current = Section(words, kind=section_kind(words))
                    draft.sections.append(current)
                last_table, pending = None, []
            elif parts and i > 0 and tokens[i - 1].type == "paragraph_open":
                caption = _CAPTION.match(words) if last_table is not None else None
                if caption and isinstance(parts[0], str):
                    parts[0] = _CAPTION.sub("", parts[0].lstrip(), count=1)
                    last_table.caption = Point(parts)
                    last_table.notes = _as_notes(current, pending)
                    last_table, pending = None, []
                    continue
                if (
                    quote_depth
                    and current is not None
                    and not any(isinstance(p, Cite) for p in parts)
                ):
                    current.status = " ".join(filter(None, [current.status, words]))
                    last_table, pending = None, []
                    continue
                answer, parts = _answer_of(tok.children, parts)
                point = Point(parts, bullet=list_depth > 0, answer=answer)
                (current.points if current else draft.lead).append(point)
                if last_table is not None and not point.bullet and not point.cites():
                    pending.append(point)  # a note of the table, if its caption follows
                else:
                    last_table, pending = None, []
    return draft


def _as_notes(section: Section | None, pending: list[Point]) -> list[str]:
    """The uncited paragraphs between a table and its caption, taken out of the section's
    points: the table's notes."""
    if section is not None:
        section.points = [p for p in section.points if all(p is not q for q in pending)]
    return [p.text for p in pending]


def is_research(text: str) -> bool:
    """Whether ``text`` is research notes the Host wrote (candidates for the writer)."""
    return text.lstrip("\ufeff").startswith(RESEARCH_MARKER)


def is_report(text: str) -> bool:
    """Whether ``text`` is a Markdown report this package wrote."""
    return text.lstrip("\ufeff").startswith(REPORT_MARKER)


def without_colophon(text: str) -> str:
    """A Markdown report without its colophon (the marker line and what follows it)."""
    found = _COLOPHON_LINE.search(text)
    return text[: found.start()].rstrip() + "\n" if found else text


def locator_comment(
    url: str, page_path: str, start: int, end: int, title: str, ev_id: str = "", locator: str = ""
) -> str:
    """Where a cited span lives, as an HTML comment for a report's Sources line: the
    evidence id, the span's page and offsets, the source's title and the place in a file
    (machine provenance, out of the reader's sight)."""
    fields = {"id": ev_id} if ev_id else {}
    fields |= {"url": url, "page_path": page_path, "start": start, "end": end, "title": title}
    if locator:
        fields["locator"] = locator
    raw = json.dumps(fields, ensure_ascii=False)
    return "<!-- " + raw.replace("--", "-\\u002d") + " -->"


def _source_line(line: str) -> tuple[str, str, dict | None] | None:
    """A Sources quote line as (``#n``, evidence id, locator fields), or None."""
    m = _SOURCE_LINE.match(line)
    if m is None:
        return None
    loc = None
    if comment := _SOURCE_COMMENT.search(line):
        try:
            loc = json.loads(comment.group(1))
        except json.JSONDecodeError:
            loc = None
    loc = loc if isinstance(loc, dict) else None
    shown = _SOURCE_ID.search(line)
    ev_id = shown.group(1) if shown else str((loc or {}).get("id") or "")
    if not re.fullmatch(EV_ID, ev_id):
        return None
    return f"#{int(m.group(1) or m.group(2))}", ev_id.lower(), loc


def parse_report(text: str, sources_headings: set[str]) -> tuple[Draft, dict[str, dict]]:
    """Read an earlier Markdown report back: ``[n]`` → ``ev-…`` through its Sources list.

    Returns the draft and, by evidence id, the locators (url, page_path, start, end) its
    Sources lines recorded.
    """
    numbers: dict[str, str] = {}
    locators: dict[str, dict] = {}
    text = without_colophon(text)  # the new report gets its own
    for line in text.splitlines():
        found = _source_line(line)
        if found is not None:
            number, ev_id, loc = found
            numbers[number] = ev_id
            if loc is not None:
                locators[ev_id] = loc
    draft = parse_notes(text.split("\n", 1)[1] if "\n" in text else "")
    draft.sections = [s for s in draft.sections if s.heading not in sources_headings]
    for point in draft.points():
        point.parts = [
            Cite(numbers.get(p.key, p.key)) if isinstance(p, Cite) else p for p in point.parts
        ]
    return draft, locators


def ids_in(text: str) -> list[str]:
    """Evidence ids mentioned anywhere in free text (e.g. the requirements), in order."""
    seen: dict[str, None] = {}
    for m in _EV_ANYWHERE.finditer(text or ""):
        seen.setdefault(m.group(1).lower(), None)
    return list(seen)
