"""Input and downloaded files as sources: what a reader tool returned, kept citable.

After the File subagent reads a file, the text its reader returned (the same text the
model saw) is stored under ``/workspace/sources/`` as Markdown with one section per
locator (``## Page 3``, ``## Slide 2``, ``## Sheet Cities``), beside a sidecar that names
the file. Sentences of that text are scored against the sub-questions like a page's, and
a citation of one is checked against the stored text like any other.

A brief (a file telling the writer what to do: the length wanted, what to cover, which
files to use for what) is read sentence by sentence (:func:`research.brief.read_brief`):
its instructions become requirements for the writer, and its facts are its text as a
source, cited like any other file's.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

from research.brief import BriefReading, read_brief
from research.facts import names_subject
from research.question import entity, telling_term
from research.text import CJK, CJK_TEXT_CLASS, Sentence, terms
from research.topics import brief_subject
from subagents.evidence import PageRecord
from subagents.untrusted import unwrap

from .sheets import sheet_markdown

SOURCES_DIR = "/workspace/sources/"
#: Reader tools and the file type they read.
READERS = {
    "pdf_read_text": "PDF",
    "pptx_read_outline": "slides",
    "xlsx_read_cells": "spreadsheet",
    "csv_read": "CSV",
    "read_text_file": "text",
    "image_qa": "image",
}

_PDF_PAGE = re.compile(r"^--- page (\d+) ---$", re.M)
_SLIDE = re.compile(r"^Slide (\d+): (.*)$", re.M)
_SHEET = re.compile(r"sheet '([^']*)'")
_OCR = re.compile(r"Text found by OCR[^\n]*:\n", re.M)
#: Chinese, Japanese and Korean characters and full-width punctuation: a line break
#: beside one is no word space.
_CJK = re.compile(rf"[\u2e80-\u2fff{CJK_TEXT_CLASS}\ufe30-\ufe4f]")
_BRIEF_HEADINGS = re.compile(
    r"\b(brief|instructions?|requirements?|guidelines?|for the writer|notes for|should cover|"
    r"what the report|length|deliverables?|question)\b|要求|说明|写作|篇幅|提纲|任务",
    re.I,
)
_BRIEF_TITLE = re.compile(r"\b(research brief|brief|assignment|instructions)\b|任务书|要求", re.I)


@dataclass
class FileSource:
    """One file's extracted text as a stored, citable source."""

    file_path: str
    path: str
    text: str
    title: str
    kind: str
    brief: bool = False
    requirements: list[str] = field(default_factory=list)
    #: for a brief, what it is about by its title (see :func:`research.topics.brief_subject`)
    about: str = ""


def source_path(file_path: str) -> str:
    """``/workspace/sources/<readable-name>-<hash>.md`` for a file's logical path."""
    name = file_path.rsplit("/", 1)[-1]
    ascii_only = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^A-Za-z0-9]+", "-", ascii_only).strip("-").lower()[:60] or "file"
    digest = hashlib.sha256(file_path.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{SOURCES_DIR}{slug}-{digest}.md"


def _body(text: str) -> str:
    """The tool's text without its first line (the "<path> — N pages" header)."""
    return text.split("\n", 1)[1] if "\n" in text else ""


def _pdf(text: str) -> str:
    parts = _PDF_PAGE.split(_body(text))
    out = []
    for number, page in zip(parts[1::2], parts[2::2], strict=False):
        page = re.sub(r"\n?\[(?:Pages|… page) [^\]]*\]\s*$", "", page.strip())
        body = _pdf_blocks(page)
        if body.strip():
            out.append(f"## Page {number}\n\n{body}")
    return "\n\n".join(out)


def join_lines(lines: list[str]) -> str:
    """Wrapped lines as one paragraph: a space where a line break stood between words,
    none where a Chinese character or full-width mark meets the break ("…开济州河，" +
    "1289年开会通河" → "…开济州河，1289年开会通河")."""
    text = ""
    for line in lines:
        cjk = text and (_CJK.match(text[-1]) or _CJK.match(line[:1]))
        text += line if not text or cjk else " " + line
    return text


#: A line ending on a mark that joins it to what follows (a comma, an enumeration comma,
#: a semicolon, an opening bracket, a dash): a wrapped line, whatever the next line looks
#: like.
_CONTINUED = re.compile(r"[,，、;；(（\[【—–-]$")


#: The marks a PDF's list items open with.
_BULLETS = "•·▪◦*-"


def _pdf_blocks(page: str) -> str:
    """A PDF page's lines as Markdown: short title-like lines become headings, wrapped
    lines are joined into paragraphs (see :func:`_paragraph_ends`), and stray list
    markers are dropped."""
    lines = [ln.strip() for ln in page.splitlines()]
    lines = [ln for ln in lines if ln and not re.fullmatch(rf"(?:\d{{1,3}}[.)]?|[{_BULLETS}])", ln)]
    blocks: list[str] = []
    para: list[str] = []
    full = _full_width(lines)
    for i, line in enumerate(lines):
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if _heading_like(line, full) and following and not para:
            blocks.append(f"### {line}")
            continue
        para.append(line)
        if _paragraph_ends(line, following, full):
            blocks.append(join_lines(para))
            para = []
    if para:
        blocks.append(join_lines(para))
    return "\n\n".join(blocks)


#: A line that opens a list item: a number or a bullet, then its text.
_LIST_ITEM = re.compile(rf"(?:\d{{1,3}}[.)]|[{_BULLETS}])\s")


def _paragraph_ends(line: str, following: str, full: int) -> bool:
    """Whether a PDF paragraph ends with ``line``, the next line being ``following``: it
    closes a sentence; or it ends on a colon and a list item or a heading follows (a
    colon before the rest of its sentence joins the two: "西岸的渡口有：" +
    "Tolby 渡口和 Mirn 渡口。"); or a heading follows and it does not end on a joining
    mark (:data:`_CONTINUED`: a short capitalised line after "… the towns of Alder," is
    the rest of its sentence, not a heading)."""
    if re.search(r"[.!?。！？]$", line):
        return True
    heading = _heading_like(following, full)
    if re.search(r"[:：]$", line):
        return heading or bool(_LIST_ITEM.match(following))
    return heading and not _CONTINUED.search(line)


def _paragraphs(text: str) -> str:
    """Extracted text with line wraps undone inside paragraphs."""
    blocks = re.split(r"\n\s*\n", text)
    return "\n\n".join(
        join_lines([ln.strip() for ln in b.splitlines() if ln.strip()]) for b in blocks if b.strip()
    )


#: A line at least this share of a page's full line width (see :func:`_full_width`) is
#: a wrapped line of a paragraph, whatever spaces it holds (pypdf puts some between the
#: words of a Chinese line).
FULL_LINE = 0.8


def _width(line: str) -> int:
    """How wide a line is set: a wide (CJK) character counts as two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def _full_width(lines: list[str]) -> int:
    """The width of a page's full lines: the widest quarter's narrowest (0 for a page of
    too few lines to tell)."""
    if len(lines) < 4:
        return 0
    widths = sorted(_width(ln) for ln in lines)
    return widths[(3 * len(widths)) // 4]


def _heading_like(line: str, full: int = 0) -> bool:
    """A short line that names what follows: capitalised (or numbered "2. …"), few words,
    no sentence mark, not a row of figures, not as long as the page's ``full`` lines."""
    line = re.sub(r"^\d{1,2}[.)]\s+", "", line)
    if not line or re.search(r"[.!?。！？,，;；]$", line) or len(line) > 80:
        return False
    if re.search(r"\d\s*$", line) or len(re.findall(r"\d+", line)) >= 2:
        return False
    if full and _width(line) >= FULL_LINE * full:
        return False  # as long as the page's full lines: a wrapped line of a paragraph
    first = line[0]
    return (first.isupper() or bool(CJK.match(first))) and (
        len(line.split()) <= 8 if " " in line else len(line) <= 20
    )


def _slides(text: str) -> str:
    parts = _SLIDE.split(_body(text))
    out = []
    for number, title, body in zip(parts[1::3], parts[2::3], parts[3::3], strict=False):
        lines = []
        for line in body.splitlines():
            stripped = line.strip()
            if not stripped or stripped.startswith("[+"):
                continue
            if stripped.startswith("Notes:"):
                lines.append("\n" + stripped.removeprefix("Notes:").strip())
            else:
                lines.append("- " + stripped.lstrip("- ").strip())
        out.append(f"## Slide {number}: {title.strip()}\n\n" + "\n".join(lines))
    return "\n\n".join(out)


def _table(text: str, tool: str, lang: str) -> str:
    """A spreadsheet or CSV result as a clean table under its sheet's name (or the file's)."""
    first = text.split("\n", 1)[0]
    sheet = _SHEET.search(first)
    heading = f"## Sheet {sheet.group(1)}" if sheet else "## Table"
    table = sheet_markdown(tool, text, lang)
    return f"{heading}\n\n{table}" if table else ""


def _image(text: str) -> str:
    match = _OCR.search(text)
    if match:
        return "## Text in the image\n\n" + _paragraphs(text[match.end() :])
    vision = text.split(":\n", 1)
    return "## Description\n\n" + (vision[1].strip() if len(vision) == 2 else "")


def extract_markdown(tool: str, text: str, lang: str = "en") -> str:
    """The reader's text as Markdown with one ``##`` section per page, slide or sheet."""
    if tool == "pdf_read_text":
        return _pdf(text)
    if tool == "pptx_read_outline":
        return _slides(text)
    if tool in ("xlsx_read_cells", "csv_read"):
        return _table(text, tool, lang)
    if tool == "image_qa":
        return _image(text)
    return _body(text).strip()


def requirements_of(text: str) -> tuple[bool, BriefReading]:
    """Whether a file is a brief, and what it asks for and states (nothing when it is
    none)."""
    head = text[:400]
    headings = re.findall(r"^#{1,6}\s+(.*)$", text, re.M)
    labelled = [h for h in headings if _BRIEF_HEADINGS.search(h)]
    is_brief = bool(_BRIEF_TITLE.search(head)) and (len(labelled) >= 1 or not headings)
    if not is_brief:
        return False, BriefReading([], [])
    return True, read_brief(text)


def facts_text(text: str, facts: list[Sentence]) -> str:
    """A brief's facts as its stored text: each under the page, slide or sheet it is on
    (so that a citation of one names its place) and the heading above it."""
    out: list[str] = []
    place_seen: str | None = None
    section_seen: str | None = None
    for fact in facts:
        place = file_place(text, fact.start)
        if place != place_seen:
            out += [f"## {place}", ""] if place else []
            place_seen, section_seen = place, None
        if fact.section != section_seen:
            out += [f"### {fact.section}", ""] if fact.section not in ("", place) else []
            section_seen = fact.section
        out += [" ".join(fact.text.split()), ""]
    return "\n".join(out).strip()


def _sheet_suffix(tool: str, text: str) -> str:
    sheet = _SHEET.search(text.split("\n", 1)[0]) if tool == "xlsx_read_cells" else None
    return f"#{sheet.group(1)}" if sheet else ""


def file_record(source: FileSource, url: str = "") -> PageRecord:
    """The sidecar of a stored file extract; ``url`` is where a downloaded file came from
    (a reader's file is named by its path)."""
    return PageRecord(
        url=url or source.file_path,
        final_url=url or source.file_path,
        fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
        sha256=hashlib.sha256(source.text.encode("utf-8")).hexdigest(),
        tier="file",
        extractor=source.kind,
        markdown_path=source.path,
        title=source.title,
        content_type=source.kind,
        kind="file",
    )


def own_file(url: str) -> bool:
    """Whether a source cited from ``url`` is a file of the user's own folder."""
    return url.startswith(BRIEFS_FROM)


def speaks_of_subject(title: str, text: str, cores: Sequence[Sequence[str]]) -> bool:
    """Whether a file speaks of the question's subject at all: it names a telling word of
    a part's subject head (``cores``; "colonies" for the head colonies Vermont of
    "honeybee colonies in Vermont"; see :func:`~research.question.telling_term`), a
    Chinese head as written, or the whole of a head none of whose words is telling ("new
    areas": "new" and "area" alone are said of anything). Notes or a brief on the subject
    do; an article on something else kept in the same folder seldom does."""
    said = f"{title} {text}"
    found = set(terms(said))

    def speaks(core: Sequence[str]) -> bool:
        telling = [t for t in core if CJK.match(t) or telling_term(t)]
        if not telling:
            return names_subject(said, core)
        return any((CJK.match(t) and t in said) or t in found for t in telling)

    return any(speaks(core) for core in cores)


def lent_title(question: str, title: str, text: str, cores: Sequence[Sequence[str]]) -> str:
    """The title a file of the user's own is read under once the user's files are known
    to be about the question's subject (see :func:`speaks_of_subject`): the subject
    before its own title, as notes, a brief or a dataset given for a question are about
    its subject though they seldom name it in full. A file that names the subject itself
    (a part's ``cores``, see :func:`research.facts.names_subject`) is read as it is: it
    is judged on its own words already. "" when the title stays the file's own.
    """
    about = entity(question)
    if not about or any(names_subject(f"{title} {text}", core) for core in cores):
        return ""
    return f"{about}: {title}"


def addressed_title(url: str, title: str, text: str, cores: Sequence[Sequence[str]]) -> str:
    """The title a web page is read under when its address names a part's subject and its
    title does not: the words of its address that name the subject before its own title
    ("apollo program: The suits" for ``/apollo-program-4.html`` titled "The suits"), as
    a site's pages on one subject often leave the subject out of their titles but not out
    of their addresses. A page whose text never speaks of the subject (see
    :func:`speaks_of_subject`) keeps its title. "" when the title stays the page's own.

    Args:
        url: the page's address.
        title: its title.
        text: its text.
        cores: the subject heads of the plan's parts (see
            :attr:`research.question.Focus.core`).
    """
    path = unquote(urlsplit(url).path)
    words = [w for w in re.split(r"[\W_]+", path) if w and not w.isdigit()]
    if not words or any(names_subject(title, core) for core in cores):
        return ""
    said = {w: set(terms(w)) for w in words}
    for core in cores:
        naming = [w for w, found in said.items() if found & set(core)]
        named = set().union(*(said[w] for w in naming))
        if core and set(core) <= named and speaks_of_subject("", text, [core]):
            return f"{' '.join(naming)}: {title}"
    return ""


def read_as(
    question: str, pages: Sequence[tuple[str, str, str]], cores: Sequence[Sequence[str]]
) -> list[str]:
    """The title each of a run's stored ``pages`` (``(address, title, text)``) was read
    under: when a file of the user's own speaks of the question's subject (see
    :func:`speaks_of_subject`), every such file by :func:`lent_title`; a web page whose
    address names the subject by :func:`addressed_title`; every other source by its own
    title."""
    own = [i for i, (url, _, _) in enumerate(pages) if own_file(url)]
    lent = any(speaks_of_subject(pages[i][1], pages[i][2], cores) for i in own)
    return [
        (lent and i in own and lent_title(question, title, text, cores))
        or (i not in own and addressed_title(url, title, text, cores))
        or title
        for i, (url, title, text) in enumerate(pages)
    ]


_PLACE = re.compile(r"^## ((?:Page|Slide|Sheet) \S.*?)\s*$", re.M)


def file_place(text: str, offset: int) -> str:
    """Where ``offset`` of a stored file extract is: the page, slide or sheet whose
    ``##`` heading is above it (``Page 3``), whatever smaller headings a PDF page's text
    has under it; empty when the extract has no such heading."""
    places = list(_PLACE.finditer(text, 0, offset))
    return places[-1].group(1) if places else ""


#: Only the user's own files can be a brief: the writer's requirements never come from a
#: file the research downloaded.
BRIEFS_FROM = "/userinput/"


def file_source(tool: str, file_path: str, text: str, lang: str = "en") -> FileSource | None:
    """The source made of one successful reader result, or None when it holds no text.

    Several results for one file (the sheets of a workbook) become one source each: the
    sheet's name goes into the stored path.
    """
    if tool not in READERS:
        return None
    text = unwrap(text)
    body = extract_markdown(tool, text, lang)
    if not body.strip():
        return None
    name = file_path.rsplit("/", 1)[-1]
    brief, reading = requirements_of(body)
    if not own_file(file_path):
        # a downloaded file that reads like a brief is a page of the web, not the user's
        # words: it is a source like any other and sets nothing for the writer
        brief, reading = False, BriefReading([], [])
    # a brief's instructions are requirements, never evidence: its text is its facts
    stored = facts_text(body, reading.facts) if brief else body
    return FileSource(
        file_path=file_path,
        path=source_path(file_path + _sheet_suffix(tool, text)),
        text=stored + "\n" if stored else "",
        title=name,
        kind=READERS[tool],
        brief=brief,
        requirements=reading.requirements,
        about=brief_subject(body) if brief else "",
    )
