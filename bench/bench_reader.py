"""Reader check of the offline reports: what a reader of each report would trip over.

Runs the README's demo questions (the demo's own question, then every ``bash run.sh demo
--question "…"`` line of the README's "Other questions to ask the demo", read from the
README at run time, the heat-pumps one that finds nothing included) through ``python -m
host demo`` in a child process each, then ``--files`` questions (2 unless told; 0 for
none) of the benchmark's own-files set (``bench/bench_shapes.py``'s ``files``: a gold
article as the one input file, no web; the data is read from ``/tmp/xquad.git`` at run
time, and the row says so when it is not there). For every report it counts:

- **heads**: part sections whose heading names no subject ("When?", "Why did it
  decline?"): no entity (:func:`research.question.entity`), or a pronoun with nothing
  named for it (:func:`research.facts.points_back`).
- **leaning**: cited quotes that open by pointing back, or whose pronoun has nothing named
  before it (:func:`research.facts.points_back`), or whose "there" points at no place
  named before it.
- **repeated**: lines of the body (summary, sections, disagreements, limits; not the
  Sources) that say what an earlier line said (:func:`research.selection.near_duplicate`).
- **nav/todo**: cited quotes that are instructions or to-do lines
  (:func:`research.text.is_instruction`, a "To check:" label, a check box), cross-references
  ("see section 3", 参见下文) or link lists (links are most of the quote in its stored
  page).
- **status**: parts whose status in ``run.json`` is not "answered" and that the report
  does not show so: neither their section nor a limits section states the status in the
  report's language (the statuses' labels of :mod:`research.labels`, or the status
  itself).
- **reqs**: the brief's requirements (``run.json``) the report does not list: neither the
  requirement nor its words after its section's name ("What the report should cover: …")
  are in the title, summary or sections ("n/a" when the run had none).
- **md, html, pdf, pptx**: links and images that no longer resolve once the reports folder
  alone is copied elsewhere: relative or file targets outside the copy or missing,
  in-document anchors with no target (HTML ids, PDF named destinations). Absolute web
  addresses and ``data:`` URIs count as fine and are not fetched.
- **pdf [n]**: ``[n]`` markers of the PDF's body with no link on their page.

It prints one row per report (question shortened, language) and a totals row per kind of
question; the README's demo questions are done when their totals row is all 0.

Usage::

    .venv/bin/python bench/bench_reader.py [--quick] [--questions N] [--files N]
        [--formats md,html,pdf,pptx] [--runs-dir DIR] [--json] [--details]

``--quick`` runs the first 3 demo questions and 1 own-files question; ``--questions``
keeps the first N demo questions; ``--json`` prints every report's counts
and the offending lines, and the totals, as JSON instead of the table; ``--details``
prints the offending lines under the table. About 25 s a demo question on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The research core's own word lists, so that the check reads text as the writer does: the
# pointing words of a question (``_POINTS_BACK``, "there" among them), a named thing before
# a pronoun (``_NAMED``) and the auxiliaries ("there *were*": no place pointed at).
from research.facts import _NAMED, points_back  # noqa: E402
from research.labels import LABELS, SOURCES_HEADINGS, label  # noqa: E402
from research.plan import _AUX  # noqa: E402
from research.question import _POINTS_BACK, entity  # noqa: E402
from research.selection import near_duplicate  # noqa: E402
from research.text import is_bare_verb, is_cjk, is_instruction, links, plain  # noqa: E402
from subagents.generate.notes import Point, parse_notes, without_colophon  # noqa: E402

README = ROOT / "README.md"
FORMATS = ("md", "html", "pdf", "pptx")
#: Exit codes of a demo run that leave a report to read (3: nothing was found).
REPORTED = (0, 3)
#: Characters a body sentence needs to be compared for repeats ("Yes." is no line).
MIN_LINE = 20
COUNTS = ("heads", "leaning", "repeated", "navigation", "status", "requirements")


# ----------------------------------------------------------------------- the questions


def readme_questions(readme: Path = README) -> list[str]:
    """The questions of the README's "Other questions to ask the demo" block, in order.

    Args:
        readme: the README to read.

    Returns:
        The text of every ``bash run.sh demo --question "…"`` line of the block.
    """
    text = readme.read_text(encoding="utf-8")
    start = text.find("### Other questions to ask the demo")
    block = text[start:] if start >= 0 else ""
    fence = re.search(r"```bash\n(.*?)```", block, re.S)
    lines = fence.group(1) if fence else ""
    return re.findall(r'^bash run\.sh demo --question "([^"]+)"', lines, re.M)


def demo_questions(readme: Path = README) -> list[str | None]:
    """The demo's own question (None: the demo's default), then the README's."""
    return [None, *readme_questions(readme)]


# ------------------------------------------------------------------------ the runs


@dataclass
class Run:
    """One finished run to check: its folder, whether it asked a demo question or an
    own-files one, its exit code, and why it left no report ("" when it did)."""

    path: Path
    kind: str  # "demo" or "files"
    exit_code: int
    note: str = ""


def _new_folders(runs_dir: Path, before: set[str]) -> list[Path]:
    """The run folders made in ``runs_dir`` since ``before`` was listed."""
    made = {p.name for p in runs_dir.iterdir() if p.is_dir() and not p.name.startswith(".")}
    return sorted(runs_dir / name for name in made - before)


def run_demo(question: str | None, runs_dir: Path, formats: Sequence[str]) -> Run:
    """Run the offline demo on ``question`` in a child process.

    Args:
        question: the question, or None for the demo's own.
        runs_dir: the runs folder (the demo keeps its built site in it).
        formats: the report formats to write.

    Returns:
        The run; its ``note`` says why when no report was written.
    """
    runs_dir.mkdir(parents=True, exist_ok=True)
    before = {p.name for p in runs_dir.iterdir()}
    asked = ["--question", question] if question is not None else []
    proc = subprocess.run(
        [sys.executable, "-m", "quartet", "demo", *asked, "--quiet",
         "--formats", ",".join(formats), "--runs-dir", str(runs_dir)],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    made = _new_folders(runs_dir, before)
    note = "" if proc.returncode in REPORTED else proc.stderr.strip()[-500:]
    path = made[-1] if made else runs_dir / "missing"
    return Run(path, "demo", proc.returncode, note)


def run_files(n: int, runs_dir: Path, formats: Sequence[str], seed: int = 0) -> list[Run]:
    """Run ``n`` questions of the own-files set (``bench_shapes``), English and Chinese
    in turn, each with its gold article as the one input file and no web.

    Args:
        n: how many questions.
        runs_dir: the runs folder.
        formats: the report formats to write.
        seed: the set's seed.

    Returns:
        The runs, or one whose note says why none could be run (no data).
    """
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_general import XQUAD_GIT, load_xquad, quiet_logs
    from bench_shapes import build_files, no_web_world

    from demo.corpus import research

    if not XQUAD_GIT.exists():
        return [Run(runs_dir / "missing", "files", -1, f"no XQuAD data at {XQUAD_GIT}")]
    langs = ["en", "zh"]
    wanted = {lang: (n + 1 - i) // 2 for i, lang in enumerate(langs)}
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="bench-reader-files-") as tmp:
        for lang in langs:
            built = build_files(load_xquad(XQUAD_GIT, lang), "tune", (wanted[lang], 0), seed)
            for i, shaped in enumerate(built.questions[: wanted[lang]]):
                assert shaped.input_file is not None
                folder = Path(tmp) / f"input-{lang}-{i}"
                folder.mkdir(parents=True)
                (folder / shaped.input_file[0]).write_bytes(shaped.input_file[1])
                with quiet_logs(), contextlib.redirect_stdout(io.StringIO()):
                    result = asyncio.run(
                        research(
                            shaped.case.question,
                            no_web_world(folder),
                            runs_dir,
                            formats=tuple(formats),
                        )
                    )
                runs.append(Run(Path(result.run.path), "files", result.exit_code))
    return runs


# ------------------------------------------------------------------ reading a report


@dataclass
class Quote:
    """One numbered quote of the Sources list: its number, its words as shown, and
    where it lives (the comment's fields: ``page_path``, ``start``, ``end``, …)."""

    number: int
    text: str
    where: dict[str, Any] = field(default_factory=dict)


@dataclass
class Reading:
    """A Markdown report as a reader meets it: title, language (``run.json``'s when
    known), summary lines, sections (the Sources left out) with their kinds, and the
    numbered quotes."""

    title: str
    lang: str
    lead: list[str]
    sections: list[tuple[str, str, list[str]]]  # heading, kind, lines
    quotes: dict[int, Quote]


_QUOTE_LINE = re.compile(r"^\s*-\s*\[(\d{1,4})\]\s*\[?“(.*)”(?:\]\(<[^>]*>\))?")
_COMMENT = re.compile(r"<!--\s*(\{.*\})\s*-->")
_ESCAPE = re.compile(r"\\(.)")


def quote_of(line: str) -> Quote | None:
    """The numbered quote of a Sources line (``- [n] “…” (locator) <!-- {…} -->``, the
    quote a link to its page when it is from the web: ``[“…”](<url#:~:text=…>)``)."""
    comment = _COMMENT.search(line)
    shown = _QUOTE_LINE.match(_COMMENT.sub("", line))
    if shown is None:
        return None
    where: dict[str, Any] = {}
    if comment:
        with contextlib.suppress(json.JSONDecodeError):
            where = json.loads(comment.group(1))
    return Quote(int(shown.group(1)), _ESCAPE.sub(r"\1", shown.group(2)), where)


def _words(point: Point) -> str:
    """A point's words as one line (its ``[n]`` markers left out)."""
    return " ".join(point.text.split())


def read_markdown(text: str) -> Reading:
    """Read a Markdown report (as the Markdown renderer writes it) for the checks.

    Args:
        text: the report's text.

    Returns:
        Its reading: the colophon and the Sources list are not body text.
    """
    body = without_colophon(text)
    if body.startswith("<!--"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
    draft = parse_notes(body)
    quotes = {q.number: q for line in body.splitlines() if (q := quote_of(line)) is not None}
    sections = [
        (s.heading, s.kind, [_words(p) for p in s.points])
        for s in draft.sections
        if s.heading not in SOURCES_HEADINGS
    ]
    lang = "zh" if is_cjk(draft.title) else "en"
    return Reading(draft.title, lang, [_words(p) for p in draft.lead], sections, quotes)


def _labels() -> set[str]:
    """Every fixed label of every language (a label line is no content)."""
    return {" ".join(v.split()) for labels in LABELS.values() for v in labels.values()}


# ------------------------------------------------------------------------ the checks


def lacks_subject(heading: str) -> bool:
    """Whether a part's heading names nothing for a reader who meets it alone: no entity,
    or a pronoun standing for nothing it names ("Why did it decline?")."""
    return not entity(heading) or points_back(heading)


def subjectless_headings(reading: Reading) -> list[str]:
    """The part headings of a report that name no subject (see :func:`lacks_subject`)."""
    labels = _labels()
    return [
        heading
        for heading, kind, _ in reading.sections
        if kind == "part" and heading not in labels and lacks_subject(heading)
    ]


def unresolved_there(text: str) -> bool:
    """Whether an English sentence's "there" points at a place it names nowhere before
    it ("Boats were hauled up there"), not the "there" of "there were …"."""
    said = plain(text)
    if is_cjk(said[:12]):
        return False
    for word in _POINTS_BACK.finditer(said):
        if word.group(0).lower() != "there":
            continue
        after = said[word.end() :].split(maxsplit=1)
        existential = bool(after) and after[0].lower().strip(",.;") in _AUX
        if not existential and not _NAMED.search(said[: word.start()]):
            return True
    return False


def leaning(text: str) -> bool:
    """Whether a quote read alone leans on words it does not give: it opens by pointing
    back or its pronoun stands for nothing named before it (:func:`points_back`), or its
    "there" points nowhere (:func:`unresolved_there`)."""
    return points_back(text) or unresolved_there(text)


def leaning_quotes(reading: Reading) -> list[str]:
    """The cited quotes that lean on words they do not give (see :func:`leaning`)."""
    return [f"[{n}] {q.text}" for n, q in sorted(reading.quotes.items()) if leaning(q.text)]


def body_lines(reading: Reading) -> list[str]:
    """The lines a reader reads as the report's body: the summary, then every section's
    lines (the Sources list and the fixed labels left out)."""
    labels = _labels()
    lines = [*reading.lead, *(ln for _, _, lines in reading.sections for ln in lines)]
    return [ln for ln in lines if ln.strip() and ln.strip() not in labels]


def repeated_lines(reading: Reading) -> list[str]:
    """The body lines that say what an earlier body line said (near duplicates, markup
    and ``[n]`` markers aside)."""
    seen: list[str] = []
    repeats: list[str] = []
    for line in body_lines(reading):
        said = re.sub(r"\[\d{1,4}\]", "", line).strip()
        if len(said) < MIN_LINE:
            continue
        if near_duplicate(said, seen):
            repeats.append(said)
        seen.append(said)
    return repeats


#: A cross-reference to another place of the source, which the report does not have: "(see
#: locks and gates)", "see section 3", "is explained under water supply", "described on
#: a page of their own", "the table below", （见南水北调东线）, 详见下文, 下表.
CROSS_REFERENCE = re.compile(
    r"\(\s*(?:see|cf\.)\s|^\s*see\s|\bsee\s+also\b"
    r"|\b(?:see|cf\.|refer\s+to)\s+(?:the\s+)?(?:(?:next|previous|following|preceding)\s+)?"
    r"(?:sections?|chapters?|pages?|tables?|figures?|appendix|below|above)\b"
    r"|\b(?:explained|described|covered|discussed|treated|listed|shown|given)\s+"
    r"(?:under\s|elsewhere\b|below\b|above\b|on\s+(?:this|another|a\s+separate)\s+(?:site|page)\b"
    r"|on\s+(?:a|its|their)\s+(?:own\s+)?page(?:\s+of\s+(?:its|their)\s+own)?\b"
    r"|in\s+the\s+(?:next|previous|following|preceding)\s+(?:section|chapter|page)\b)"
    r"|\b(?:tables?|lists?|maps?|figures?|charts?|sections?|lengths?)\s+(?:below|above)\b"
    r"|\b(?:has|have)\s+(?:its|their)\s+own\s+page\b"
    r"|[（(]\s*(?:见|详见|参见|参看|另见)|详见|参见|参看|另见|(?:见|如|据)[上下][文图表]"
    r"|下[表图](?:列|所|中|显示)|本页|本站",
    re.I,
)
#: A note to oneself: a short label saying what is still to do ("To check:", "Key dates
#: to verify:", "TODO:", 待核实：); an English label's last word is a verb (see
#: :func:`to_do`), so that "Water was led to Nanwang:" is none.
TO_DO = re.compile(
    r"^\s*(?:to[\s-]?do|(?:\w+\s+){0,3}to\s+(?P<verb>\w+)|待办|待查|待核实|待确认|待补充)\s*[:：]",
    re.I,
)
#: What opens a check-box line in a stored page ("- [ ] ", "* [x] ").
CHECK_BOX = re.compile(r"^\s*(?:[-*+]\s+)?\[[ xX]\]\s")


@dataclass(frozen=True)
class Stored:
    """A cited span as its stored page writes it (links and all), and what its line
    holds before it."""

    span: str = ""
    before: str = ""


def stored_span(run_dir: Path, where: dict[str, Any]) -> Stored:
    """The quote's span as its stored page writes it (empty when the page is gone).

    Args:
        run_dir: the run's folder.
        where: the quote's fields (``page_path``, ``start``, ``end``).

    Returns:
        The span and the start of its line before it.
    """
    page = str(where.get("page_path") or "")
    start, end = where.get("start"), where.get("end")
    if not page or not isinstance(start, int) or not isinstance(end, int):
        return Stored()
    path = run_dir / page.lstrip("/")
    if not path.is_file():
        return Stored()
    text = path.read_text(encoding="utf-8", errors="replace")
    return Stored(text[start:end], text[text.rfind("\n", 0, start) + 1 : start])


def link_list(raw: str) -> bool:
    """Whether a stored span is mostly link text (a navigation line, a list of links)."""
    said = plain(raw)
    anchors = sum(len(anchor) for anchor, _ in links(raw))
    return bool(said) and anchors * 2 > len(said)


def to_do(text: str) -> bool:
    """Whether a line opens with a to-do label (see :data:`TO_DO`)."""
    label_ = TO_DO.match(plain(text))
    if label_ is None:
        return False
    verb = label_.group("verb")
    return verb is None or (verb.islower() and is_bare_verb(verb))


def navigation(text: str, stored: Stored | None = None) -> bool:
    """Whether a cited quote is navigation or a to-do line rather than a statement.

    Args:
        text: the quote as the report shows it.
        stored: its span as its stored page writes it (None when unknown).

    Returns:
        True for an instruction, a to-do label, a cross-reference, a check-box line, or a
        span that is mostly links.
    """
    if is_instruction(text) or to_do(text) or CROSS_REFERENCE.search(text):
        return True
    if stored is None:
        return False
    return bool(CHECK_BOX.match(stored.before + stored.span)) or link_list(stored.span)


def navigation_quotes(reading: Reading, run_dir: Path | None = None) -> list[str]:
    """The cited quotes that are navigation or to-do lines (see :func:`navigation`)."""
    found = []
    for n, quote in sorted(reading.quotes.items()):
        stored = stored_span(run_dir, quote.where) if run_dir is not None else None
        if navigation(quote.text, stored):
            found.append(f"[{n}] {quote.text}")
    return found


#: Labels of :mod:`research.labels` that state a status, beyond the one named after it
#: (``not_researched`` for "not researched"): a part "not found" is shown so by the line
#: saying nothing was found for it or by the limits heading (and, for every part, by the
#: report saying nothing was found at all: see :func:`status_shown`).
STATUS_LABELS = {"not found": ("missing", "not_found")}


def status_words(status: str, lang: str) -> list[str]:
    """The words that state ``status`` in a report in ``lang``: the status itself and
    the labels of :mod:`research.labels` for it (none for a status with no label)."""
    keys = (status.replace(" ", "_"), *STATUS_LABELS.get(status, ()))
    labels = LABELS.get(lang, LABELS["en"])
    words = [status, *(labels[k] for k in keys if k in labels)]
    return [_norm(w) for w in words]


def _norm(text: str) -> str:
    """Text compared as a reader reads it: plain, one space, case folded, no end mark."""
    return " ".join(plain(text).split()).casefold().rstrip(".。:：")


def status_shown(reading: Reading, part: str, status: str) -> bool:
    """Whether a report states a part's status: in the part's own section, in a limits
    section (its line naming the part, and the line or the heading the status), or, for
    a part not found, by saying nothing was found for any part.

    Args:
        reading: the report.
        part: the part's text (its heading).
        status: its status in ``run.json``.

    Returns:
        Whether a reader can tell the part's status.
    """
    words = status_words(status, reading.lang)

    def says(text: str) -> bool:
        return any(w and w in _norm(text) for w in words)

    name = _norm(part)
    nothing = _norm(label(reading.lang, "nothing"))
    if status == "not found" and any(nothing in _norm(line) for line in reading.lead):
        return True
    for heading, kind, lines in reading.sections:
        if kind == "part" and _norm(heading) == name and any(map(says, lines)):
            return True
        if kind == "not_found":
            naming = [ln for ln in lines if name in _norm(ln)]
            if naming and (says(heading) or any(map(says, naming))):
                return True
    return False


def unshown_statuses(reading: Reading, parts: Iterable[dict[str, Any]]) -> list[str]:
    """The parts not answered whose status the report does not show (see
    :func:`status_shown`), as ``status: part``."""
    return [
        f"{p.get('status')}: {p.get('text')}"
        for p in parts
        if p.get("status") != "answered"
        and not status_shown(reading, str(p.get("text") or ""), str(p.get("status") or ""))
    ]


def unlisted_requirements(reading: Reading, requirements: Sequence[str]) -> list[str] | None:
    """The brief's requirements the report's body does not list, or None when the run
    had none. A requirement is listed when its words, or its words after its section's
    name ("What the report should cover: …"), are in the title, summary or sections; one
    that holds another requirement whole (a brief's header line bundling its length) is
    listed when that one is."""
    if not requirements:
        return None
    shown = _norm(" ".join([reading.title, *reading.lead, *_section_text(reading)]))

    def listed(wanted: str) -> bool:
        tail = wanted.split(": ", 1)[-1]
        return _norm(wanted) in shown or _norm(tail) in shown

    missing = []
    for wanted in requirements:
        bundled = [o for o in requirements if o != wanted and o in wanted]
        if not listed(wanted) and not (bundled and all(map(listed, bundled))):
            missing.append(wanted)
    return missing


def _section_text(reading: Reading) -> list[str]:
    return [t for heading, _, lines in reading.sections for t in (heading, *lines)]


# ----------------------------------------------------------------------- the links


def _fine_elsewhere(target: str) -> bool:
    """Whether a link target is not the copy's to resolve: a web or mail address, a
    ``data:`` URI, or another scheme no file stands behind."""
    scheme = urlsplit(target).scheme.lower()
    return bool(scheme) and scheme != "file" and len(scheme) > 1  # "C:" is a drive


def resolves(target: str, folder: Path, anchors: set[str] | None = None) -> bool:
    """Whether a link target still works in a copy of the reports folder.

    Args:
        target: the link's target as written.
        folder: the copied folder (the document's own folder).
        anchors: the document's anchor names, to check a ``#name`` target against (None:
            in-document anchors are not checked).

    Returns:
        True for a web address or ``data:`` URI, an anchor the document has, and a file
        inside ``folder`` that exists; False for anything outside the copy or missing.
    """
    target = target.strip().strip("<>")
    if not target:
        return False
    if target.startswith("#"):
        return anchors is None or unquote(target[1:]) in anchors
    if _fine_elsewhere(target):
        return True
    parts = urlsplit(target)
    path = unquote(parts.path)
    base = folder.resolve()
    found = (Path(path) if Path(path).is_absolute() else base / path).resolve()
    return found.is_relative_to(base) and found.exists()


def markdown_targets(text: str) -> list[str]:
    """Every link and image target of a Markdown text (autolinks, ``[a](<b>)``, tables)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    found: list[str] = []
    for token in md.parse(text):
        for child in token.children or []:
            if child.type == "link_open":
                found.append(str(child.attrs.get("href", "")))
            elif child.type == "image":
                found.append(str(child.attrs.get("src", "")))
    return found


class _Targets(HTMLParser):
    """The ``href``/``src`` targets and the anchor names (``id``, ``name``) of HTML."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.targets: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src", "xlink:href"):
                self.targets.append(value)
            elif name == "id" or (name == "name" and tag == "a"):
                self.anchors.add(value)


def html_broken(text: str, folder: Path) -> list[str]:
    """The link and image targets of an HTML report that do not resolve in ``folder``."""
    found = _Targets()
    found.feed(text)
    return [t for t in found.targets if not resolves(t, folder, found.anchors)]


def markdown_broken(text: str, folder: Path) -> list[str]:
    """The link and image targets of a Markdown report that do not resolve in ``folder``
    (an in-document ``#anchor`` is not checked)."""
    return [t for t in markdown_targets(text) if not resolves(t, folder)]


def _pdf_target(annot: Any) -> tuple[str, str]:
    """A PDF link annotation's target as (kind, target): ``uri``, ``file`` or ``dest``."""
    action = annot.get("/A")
    action = action.get_object() if action is not None else None
    if action is None:
        dest = annot.get("/Dest")
        return ("dest", str(dest)) if dest is not None else ("", "")
    kind = str(action.get("/S", ""))
    if kind == "/URI":
        return "uri", str(action.get("/URI", ""))
    if kind in ("/GoToR", "/Launch"):
        spec = action.get("/F")
        spec = spec.get_object() if spec is not None else ""
        name = spec.get("/F", spec.get("/UF", "")) if hasattr(spec, "get") else spec
        return "file", str(name)
    if kind == "/GoTo":
        return "dest", str(action.get("/D", ""))
    return "", ""


def pdf_check(path: Path) -> tuple[list[str], int]:
    """A PDF report's links that do not resolve beside it, and how many ``[n]`` markers
    of its body (before the Sources heading) have no in-document link on their page."""
    import pypdf

    reader = pypdf.PdfReader(path)
    names = set(reader.named_destinations)
    broken: list[str] = []
    unlinked = 0
    in_sources = False
    for page in reader.pages:
        jumps = 0
        for ref in page.get("/Annots") or []:
            annot = ref.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            kind, target = _pdf_target(annot)
            if kind == "dest":
                jumps += 1
                named = not target.startswith("[")  # an explicit [page /XYZ …] destination
                if named and target not in names:
                    broken.append(f"#{target}")
            elif kind in ("uri", "file") and not resolves(target, path.parent):
                broken.append(target)
        markers = 0
        for line in (page.extract_text() or "").splitlines():
            if line.strip() in SOURCES_HEADINGS or line.strip().title() in SOURCES_HEADINGS:
                in_sources = True
            if not in_sources:
                markers += len(re.findall(r"\[\d{1,4}\]", line))
        unlinked += max(0, markers - jumps)
    return broken, unlinked


def pptx_broken(path: Path) -> list[str]:
    """The external link targets of a PowerPoint report (hyperlinks, linked pictures, on
    slides and notes alike) that do not resolve beside it."""
    from pptx import Presentation

    deck = Presentation(str(path))
    broken = []
    for part in deck.part.package.iter_parts():
        for rel in part.rels.values():
            if rel.is_external and not resolves(rel.target_ref, path.parent):
                broken.append(rel.target_ref)
    return broken


def broken_links(
    reports: Path, formats: Sequence[str], name: str = "report"
) -> tuple[dict[str, list[str]], int]:
    """Copy the reports folder alone to a fresh folder and check each format's links.

    Args:
        reports: the run's reports folder.
        formats: the formats to check (a missing file counts as one broken link).
        name: the reports' file name without its suffix (the run names them after the
            question).

    Returns:
        The broken targets per format, and the PDF's ``[n]`` markers with no link.
    """
    broken: dict[str, list[str]] = {}
    unlinked = 0
    with tempfile.TemporaryDirectory(prefix="bench-reader-copy-") as tmp:
        copy = Path(tmp) / "reports"
        shutil.copytree(reports, copy)
        for fmt in formats:
            path = copy / f"{name}.{fmt}"
            if not path.is_file():
                broken[fmt] = [f"{name}.{fmt} missing"]
            elif fmt == "md":
                broken[fmt] = markdown_broken(path.read_text(encoding="utf-8"), copy)
            elif fmt == "html":
                broken[fmt] = html_broken(path.read_text(encoding="utf-8"), copy)
            elif fmt == "pdf":
                broken[fmt], unlinked = pdf_check(path)
            elif fmt == "pptx":
                broken[fmt] = pptx_broken(path)
    return broken, unlinked


# ---------------------------------------------------------------------- one report


@dataclass
class Check:
    """One report's findings: per count, the lines that make it up."""

    question: str
    lang: str
    kind: str
    exit_code: int
    heads: list[str] = field(default_factory=list)
    leaning: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    navigation: list[str] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    requirements: list[str] | None = None
    links: dict[str, list[str]] = field(default_factory=dict)
    unlinked_markers: int = 0
    note: str = ""


def check_report(
    reading: Reading,
    record: dict[str, Any],
    reports: Path,
    formats: Sequence[str],
    run_dir: Path | None = None,
    name: str = "report",
) -> Check:
    """Every count of one report.

    Args:
        reading: the Markdown report, read.
        record: the run's ``run.json``.
        reports: the run's reports folder.
        formats: the formats to check the links of.
        run_dir: the run's folder, to read cited spans as their pages store them.
        name: the reports' file name without its suffix.

    Returns:
        The report's findings.
    """
    parts = (record.get("plan") or {}).get("subquestions") or []
    links_, unlinked = broken_links(reports, formats, name)
    return Check(
        question=str(record.get("question") or reading.title),
        lang=reading.lang,
        kind="",
        exit_code=int(record.get("exit_code") or 0),
        heads=subjectless_headings(reading),
        leaning=leaning_quotes(reading),
        repeated=repeated_lines(reading),
        navigation=navigation_quotes(reading, run_dir),
        status=unshown_statuses(reading, parts),
        requirements=unlisted_requirements(reading, record.get("requirements") or []),
        links=links_,
        unlinked_markers=unlinked,
    )


def _markdown_report(run_dir: Path, record: dict[str, Any]) -> Path:
    """The run's Markdown report as its record lists it (named after the question), or
    ``report.md`` for a record that lists none."""
    listed = [str(p) for p in record.get("outputs") or [] if str(p).endswith(".md")]
    logical = listed[0] if listed else "/workspace/reports/report.md"
    return run_dir / logical.lstrip("/")


def check_run(run: Run, formats: Sequence[str]) -> Check:
    """Check one finished run's reports (a run with no report is one failed row)."""
    record_path = run.path / "internal" / "run.json"
    record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.is_file() else {}
    report = _markdown_report(run.path, record)
    if run.note or not record or not report.is_file():
        note = run.note or "no report written"
        return Check(run.path.name, "", run.kind, run.exit_code, note=note)
    reading = read_markdown(report.read_text(encoding="utf-8"))
    reading.lang = str((record.get("plan") or {}).get("language") or reading.lang)
    found = check_report(reading, record, report.parent, formats, run.path, report.stem)
    found.kind, found.exit_code = run.kind, run.exit_code
    return found


# ---------------------------------------------------------------------------- output


def figures(check: Check) -> dict[str, int | None]:
    """A report's counts: how many lines each finding holds (None: nothing to check)."""
    out: dict[str, int | None] = {
        "heads": len(check.heads),
        "leaning": len(check.leaning),
        "repeated": len(check.repeated),
        "navigation": len(check.navigation),
        "status": len(check.status),
        "requirements": None if check.requirements is None else len(check.requirements),
    }
    out |= {fmt: len(found) for fmt, found in check.links.items()}
    if "pdf" in check.links:
        out["pdf_markers"] = check.unlinked_markers
    return out


def _short(question: str, width: int) -> str:
    """A question cut to ``width`` display columns (a Chinese character takes two)."""
    out, used = "", 0
    for ch in question:
        w = 2 if is_cjk(ch) or ch in "？，。：；" else 1
        if used + w > width - 1:
            return out + "…" + " " * (width - used - 1)
        out, used = out + ch, used + w
    return out + " " * (width - used)


HEADERS = {
    "heads": "heads",
    "leaning": "leaning",
    "repeated": "repeated",
    "navigation": "nav/todo",
    "status": "status",
    "requirements": "reqs",
    "md": "md",
    "html": "html",
    "pdf": "pdf",
    "pptx": "pptx",
    "pdf_markers": "pdf [n]",
}


#: The width of the report column, in display columns.
NAME_WIDTH = 44
#: What each kind of run is called on its totals row.
KINDS = {"demo": "README demo questions", "files": "own-files questions"}


def _cells(values: dict[str, int | None], columns: Sequence[str]) -> str:
    """A row's counts, right-aligned under their headers ("n/a": nothing to check)."""
    return " ".join(
        f"{'n/a' if values.get(c) is None else values[c]:>{max(4, len(HEADERS[c]))}}"
        for c in columns
    )


def _row(check: Check, columns: Sequence[str]) -> str:
    """One report's row: its question, shortened, its language and its counts."""
    name = _short(("[files] " if check.kind == "files" else "") + check.question, NAME_WIDTH)
    if check.note:
        return f"{name} {check.lang:<4} not checked: {check.note[:80]}"
    return f"{name} {check.lang:<4} " + _cells(figures(check), columns)


def totals(checks: Sequence[Check], columns: Sequence[str]) -> dict[str, int | None]:
    """Each count summed over the reports that were checked ("n/a" counts as 0)."""
    done = [figures(c) for c in checks if not c.note]
    return {col: sum(f.get(col) or 0 for f in done) for col in columns}


def table(checks: Sequence[Check], formats: Sequence[str]) -> str:
    """One row per report, then a totals row per kind of question (the README's demo
    questions, the own-files ones)."""
    columns = [*COUNTS, *formats, *(["pdf_markers"] if "pdf" in formats else [])]
    head = f"{'report':<{NAME_WIDTH}} {'lang':<4} " + " ".join(
        f"{HEADERS[c]:>{max(4, len(HEADERS[c]))}}" for c in columns
    )
    rows = [head, "-" * len(head), *(_row(c, columns) for c in checks), "-" * len(head)]
    for kind, name in KINDS.items():
        mine = [c for c in checks if c.kind == kind]
        if mine:
            label_ = f"total, {len(mine)} {name}"
            rows.append(f"{label_:<{NAME_WIDTH}} {'':<4} " + _cells(totals(mine, columns), columns))
    return "\n".join(rows)


def details(checks: Sequence[Check]) -> str:
    """The offending lines of every report, under its question."""
    out = []
    for check in checks:
        found = [
            (name, lines)
            for name, lines in (
                ("heading without a subject", check.heads),
                ("leaning quote", check.leaning),
                ("repeated line", check.repeated),
                ("navigation or to-do quote", check.navigation),
                ("status not shown", check.status),
                ("requirement not listed", check.requirements or []),
                *((f"broken {fmt} link", t) for fmt, t in check.links.items()),
            )
            if lines
        ]
        if not found:
            continue
        out.append(f"\n{check.question}")
        out += [f"  {name}: {line[:160]}" for name, lines in found for line in lines]
    return "\n".join(out)


# ------------------------------------------------------------------------------ main


#: What ``--quick`` runs: the first demo questions (the demo's own, in English and in
#: Chinese, and a Chinese one-part question) and own-files questions.
QUICK = (3, 1)


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line's options (the Markdown is always written: the checks read it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--questions", type=int, default=None, help="first N demo questions")
    parser.add_argument(
        "--files", type=int, default=None, help="own-files questions, English and Chinese in turn"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"the first {QUICK[0]} demo questions and "
        f"{QUICK[1]} own-files question (unless told otherwise)",
    )
    parser.add_argument("--formats", default=",".join(FORMATS), help="md,html,pdf,pptx")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.add_argument("--details", action="store_true", help="print the offending lines")
    args = parser.parse_args(argv)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        parser.error(f"--formats: unknown {', '.join(unknown)}")
    args.formats = ["md", *(f for f in formats if f != "md")]
    if args.quick:
        args.questions = QUICK[0] if args.questions is None else args.questions
        args.files = QUICK[1] if args.files is None else args.files
    args.files = 2 if args.files is None else args.files
    return args


def _progress(label_: str, check: Check) -> None:
    print(f"  [{label_}] exit {check.exit_code} {check.question[:70]}", file=sys.stderr, flush=True)


def collect(args: argparse.Namespace, runs_dir: Path) -> list[Check]:
    """Run the demo questions (and the own-files ones) and check every report."""
    questions = demo_questions()[: args.questions]
    checks: list[Check] = []
    for i, question in enumerate(questions, 1):
        checks.append(check_run(run_demo(question, runs_dir, args.formats), args.formats))
        _progress(f"{i}/{len(questions)}", checks[-1])
    if args.files:
        for run in run_files(args.files, runs_dir, args.formats):
            checks.append(check_run(run, args.formats))
            _progress("files", checks[-1])
    return checks


def as_json(checks: Sequence[Check], formats: Sequence[str]) -> str:
    """Every report's findings and counts, and the totals per kind of question."""
    columns = [*COUNTS, *formats, *(["pdf_markers"] if "pdf" in formats else [])]
    reports = [asdict(c) | {"counts": figures(c)} for c in checks]
    sums = {
        kind: totals([c for c in checks if c.kind == kind], columns)
        for kind in KINDS
        if any(c.kind == kind for c in checks)
    }
    return json.dumps({"reports": reports, "totals": sums}, ensure_ascii=False, indent=1)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    with tempfile.TemporaryDirectory(prefix="bench-reader-") as tmp:
        checks = collect(args, args.runs_dir or Path(tmp) / "runs")
    if args.json:
        print(as_json(checks, args.formats))
        return 0
    print(table(checks, args.formats))
    if args.details:
        print(details(checks))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
