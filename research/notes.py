"""The research notes handed to the writer: the findings by sub-question.

The notes are Markdown in the notes format the Generate subagent reads:

- the question as the title, and a lead that answers each answered part with its best
  cited sentence (the report's summary);
- one section per sub-question, its heading the sub-question, holding its candidate
  evidence, best first (sources mixed, no sentence twice in the notes), and the table
  that best answers it with its notes (a caveat under it), captioned with its source;
- a section for each section the brief asks for that no part is (its topic's table, from
  the sources read, where one is about it);
- "Where the sources disagree": each quantity the sources give differently, every value
  a source gives as its own cited, and a sentence that tells how others give it quoted
  whole;
- "Limits of this report": the parts left unanswered and what was searched for them,
  the parts only partly answered and why, and the requests that failed.

When nothing relevant was found at all, the notes say only that, with what was searched,
what failed and what was read but off-topic — and cite nothing.

The notes read the run's research state through :class:`Findings` (the Host's research
state provides it); the only things they add to it are the evidence items that cite the
disagreements' values and the tables of the sections the brief asks for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from .answer import answer_span, gives_answer, sure_span
from .coverage import ANSWERED_ITEMS, Coverage
from .disagreements import Disagreement, Stored, find_disagreements, measure_name, value_text
from .inputs import FileUse
from .labels import RESEARCH_MARKER, label
from .lines import summary_choice as choose_summary
from .plan import Plan, SubQuestion
from .question import Focus, _zh_entity, entity
from .relevance import LEARNED, evidence_threshold
from .requirements import (
    SECTION,
    TOPIC,
    ReportView,
    covers,
    meaningful,
    names_section,
    read_requirement,
    same_language,
    section_heading,
    without_label,
)
from .selection import Quote
from .tables import (
    Found,
    TableOption,
    about_topic,
    announces_table,
    choose,
    table_after,
    tables_in,
)
from .text import STOP_WORDS, is_cross_reference, is_verb_form, language, readings, terms
from .topics import Read, topic_focus, topic_heading, topic_quotes


class Cited(Protocol):
    """An evidence item as the notes read it."""

    url: str
    span: str
    start: int
    page_path: str


class SourceRead(Protocol):
    """A page or file read in the run."""

    url: str
    title: str
    kind: str  # "web" or "file"
    relevant_to: set[str]
    #: a web page's own date (ISO 8601; "" when unknown)
    published: str


class Findings(Protocol):
    """What the notes read of a run's research (see ``host.research.Research``)."""

    plan: Plan
    focus: dict[str, Focus]
    #: per part, its evidence ids and their scores
    evidence: dict[str, dict[str, float]]
    #: per part, the probability the sentence model gives that an evidence item holds
    #: the part's answer (see :func:`research.lines.line_features`), by evidence id
    likelihood: dict[str, dict[str, float]]
    #: per part, the tables relevant to it (evidence ids) and their scores
    tables: dict[str, dict[str, float]]
    found_tables: dict[str, Found]
    sources: dict[str, SourceRead]
    texts: dict[str, str]
    #: what the run's brief is about, by its title ("" for none: see
    #: :func:`research.topics.brief_subject`)
    brief_about: str
    queries: dict[str, list[str]]
    unresearched: set[str]
    failures: list[str]

    def item(self, ev_id: str) -> Cited | None:
        """The evidence item with this id (None when there is none)."""

    def cite(self, path: str, start: int, end: int, locator: str = "") -> Any:
        """The evidence item quoting ``start:end`` of the source read at ``path``."""

    def select(self, limit: int) -> dict[str, list[str]]:
        """The evidence each part's section quotes, at most ``limit`` ids each."""

    def off_topic(self) -> list[SourceRead]:
        """Pages read that answer no part."""

    def coverage(self, sub_id: str) -> Coverage:
        """How well a part is answered (see :func:`research.coverage.coverage`)."""


#: Candidate sentences per sub-question handed to the writer (it keeps what fits).
CANDIDATES = 8
#: Failed requests the limits of a report name (the rest are counted).
FAILURES_SHOWN = 4


def _sentence(research: Findings, ev_id: str) -> str:
    item = research.item(ev_id)
    if item is None:
        return ""
    return f"{' '.join(item.span.split())} [{ev_id}]"


def summary_choice(research: Findings, sub_id: str, ids: list[str]) -> str | None:
    """The candidate that best answers a part on its own, for the summary line (see
    :func:`research.lines.summary_choice`)."""
    scores = research.evidence[sub_id]
    candidates = [
        (Quote(i, item.url, item.span, item.start, _published(research, item)), scores.get(i, 0.0))
        for i in ids
        if (item := research.item(i)) is not None
    ]
    likelihood = research.likelihood.get(sub_id, {})
    return choose_summary(research.focus[sub_id], candidates, research.plan.language, likelihood)


def _published(research: Findings, item: Cited) -> str:
    """The own date of the page an evidence item quotes ("" when unknown)."""
    source = research.sources.get(item.page_path)
    return source.published if source is not None else ""


def table_caption(section: str, where: str, lang: str) -> str:
    """A table's caption: what it is (the heading that names it) and where it is from, in
    the report's punctuation; a heading that is the page's own title is not repeated, nor
    the bare "Table" a CSV file's table stands under (it names nothing)."""
    if section.strip().lower() in ("table", "tables"):
        section = ""
    if section.startswith("Sheet "):  # "bridge-spans.xlsx, sheet Spans"
        sheet = f"{label(lang, 'sheet')} {section.removeprefix('Sheet ')}"
        return f"{where}，{sheet}" if lang == "zh" else f"{where}, {sheet}"
    if not section or where.startswith(section):
        return where
    return f"{section}（{where}）" if lang == "zh" else f"{section} ({where})"


#: What would open a Markdown block other than a paragraph ("* Estimates.", "1. …").
_LEADING_BLOCK = re.compile(r"^(\s*)([*+#>-]|\d+[.)])")


def _table(research: Findings, ev_id: str, lang: str) -> list[str]:
    found = research.found_tables[ev_id]
    item = research.item(ev_id)
    source = research.sources.get(item.page_path) if item else None
    where = (source.title if source else "") or (item.url.rsplit("/", 1)[-1] if item else "")
    cells = [[c.replace("|", "/") for c in row] for row in [found.header, *found.rows]]
    width = len(found.header)
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join((row + [""] * width)[:width]) + " |" for row in cells[1:]]
    caption = table_caption(found.section, where, lang)
    end = "。" if lang == "zh" else "."
    # its notes stand between it and its caption, which cites them with it
    notes = [line for note in found.notes for line in ("", _LEADING_BLOCK.sub(r"\1\\\2", note))]
    return [*lines, *notes, "", f"Table: {caption}{end} [{ev_id}]", ""]


def _listed(items: list[str], lang: str) -> str:
    """``a, b and c`` (``a、b和c``)."""
    if len(items) < 2:
        return "".join(items)
    if lang == "zh":
        return "、".join(items[:-1]) + "和" + items[-1]
    return ", ".join(items[:-1]) + " and " + items[-1]


def _about(found: Disagreement, lang: str, subject: str = "") -> str:
    """What a disagreement is about, as its sentence names it: a measure of the thing
    itself as the subject's ("the river's length", 长江的全长), any other measure by its
    name alone ("the date", "the number of ships": a date or a count is of something the
    clauses say, not of the subject)."""
    name = measure_name(found, lang)
    if not subject or not found.of_a_thing:
        return name
    if lang == "zh":
        return f"{subject}的{name}"
    return f"the {subject}'s {name[4:]}" if name.startswith("the ") else name


def _disagreement_line(found: Disagreement, lang: str, subject: str = "") -> str:
    """One sentence giving every value of a quantity, each followed by its citation (values
    a source gives together share its one citation): "Sources give the river's length as
    6,650 km [ev-…], about 6,695–6,700 km [ev-…] and about 6,800 km [ev-…]"."""
    by_source: dict[str, list[str]] = {}
    for claim in found.claims:
        by_source.setdefault(claim.ev_id, []).append(value_text(claim, lang))
    # Values one source gives together are its alternatives ("1,747公里或1,800公里"): in
    # Chinese, "和" is kept for the sources' list.
    together = [
        "或".join(texts) if lang == "zh" else _listed(texts, lang) for texts in by_source.values()
    ]
    values = [f"{text} [{ev}]" for text, ev in zip(together, by_source, strict=True)]
    about = _about(found, lang, subject)
    if lang == "zh":
        return f"- 关于{about}，来源说法不一：{_listed(values, lang)}。"
    return f"- Sources give {about} as {_listed(values, lang)}."


#: How a disagreement's account (a sentence telling how others give a figure) is shown:
#: whole, as the source says it, never split into values; or, when a part's section
#: quotes it already, cited without its words (a sentence is shown once).
ACCOUNT_LINE = {
    "en": "- On {about}, one source says: “{said}” [{ev}]",
    "zh": "- 关于{about}，有来源写道：“{said}” [{ev}]",
}
ACCOUNT_QUOTED = {
    "en": "- On {about}, one source reports how others give it [{ev}].",
    "zh": "- 关于{about}，有来源提到了其他说法 [{ev}]。",
}


def _account_line(found: Disagreement, said: str, ev_id: str, lang: str, subject: str = "") -> str:
    """The line of an account with its citation, quoting it whole ("On the river's length,
    one source says: “… some older atlases give 6,650 km.” [ev-…]"), or without its words
    when ``said`` is empty (a part's section quotes it)."""
    lines = ACCOUNT_LINE if said else ACCOUNT_QUOTED
    line = lines.get(lang, lines["en"])
    return line.format(about=_about(found, lang, subject), said=said, ev=ev_id)


def _disagreement_lines(
    research: Findings, found: Disagreement, quoted: list[Cited], subject: str = ""
) -> list[str]:
    """The lines of one disagreement: the values the sources give as their own (when they
    disagree), then its best account (the first), quoted whole unless a part's section
    quotes it already (``quoted``: the evidence the parts show)."""
    lang = research.plan.language
    lines = [_disagreement_line(found, lang, subject)] if found.claims else []
    account = found.accounts[0] if found.accounts else None
    item = research.item(account.ev_id) if account else None
    if account and item is not None:
        shown = any(_overlaps(item, q) for q in quoted)
        said = "" if shown else " ".join(item.span.split())
        lines.append(_account_line(found, said, account.ev_id, lang, subject))
    return lines


def _overlaps(a: Cited, b: Cited) -> bool:
    """Whether two evidence items quote overlapping text of one stored source."""
    return a.page_path == b.page_path and a.start < b.end and b.start < a.end


def _disagreements(research: Findings, cited: set[str]) -> list[Disagreement]:
    """The quantities and dates the sources the report cites for its parts (by address;
    and the files relevant to the question) give differently, each value cited by the
    sentence that gives it and the best account by its own (see
    :class:`research.disagreements.Disagreement`): a page the report passed over for a
    part, as one that names the subject in passing, gives values of other things (another
    station's floor area)."""
    read = [
        Stored(path, source.url, research.texts[path])
        for path, source in research.sources.items()
        if source.relevant_to
        and path in research.texts
        and (source.url in cited or source.kind == "file")
    ]
    found = find_disagreements(read, research.plan.language, entity(research.plan.question))
    for claim in (c for d in found for c in [*d.claims, *d.accounts[:1]]):  # its best account
        locator = claim.section if research.sources[claim.path].kind == "file" else ""
        claim.ev_id = research.cite(claim.path, claim.start, claim.end, locator).id
    return found


def _subject(research: Findings, lang: str) -> str:
    """What the question is about, for the disagreements' sentences: "river" (from "the
    Nile River"), "长江"."""
    named = entity(research.plan.question)
    if lang == "zh":
        # The nouns that name it, never a run of the question's words ("长江今天发挥着"
        # from questions that open alike gives 长江).
        return _zh_entity(named) if named else ""
    last = named.split()[-1].lower() if named else ""
    return last if last.isalpha() and _names_a_thing(last) else ""


def _names_a_thing(word: str) -> bool:
    """Whether an English word (lower case) can name what a length or an area is of: a
    noun, a name the dictionary does not hold, or a bare word that is also a verb
    ("dam"); not a stop word, an inflected verb ("assumed") or an adjective or adverb
    alone ("first"), which a question's last words can be."""
    if word in STOP_WORDS:
        return False
    kinds = readings(word)
    return not kinds or "NOUN" in kinds or ("VERB" in kinds and not is_verb_form(word))


def _wants_table(research: Findings, ev_id: str, shown: str | None) -> bool:
    """Whether a quote announces a table ("The table below lists …") that its section
    does not show: without its table it says nothing."""
    item = research.item(ev_id)
    if item is None or not announces_table(item.span):
        return False
    table = table_after(research.texts.get(item.page_path, ""), item.start)
    shown_item = research.item(shown) if shown else None
    found = research.found_tables.get(shown) if shown else None
    return not (
        table is not None
        and shown_item is not None
        and found is not None
        and shown_item.page_path == item.page_path
        and found.start == table.start
    )


def _quotable(research: Findings, ev_id: str, shown: str | None) -> bool:
    """Whether a part's section may quote an evidence item: not a sentence that only
    points to where something is told (see :func:`research.text.is_cross_reference`),
    nor one that belongs beside a table the part does not show."""
    item = research.item(ev_id)
    if item is not None and is_cross_reference(item.span):
        return False
    return not _wants_table(research, ev_id, shown)


def _tables(research: Findings) -> dict[str, str]:
    """The table each part shows, by evidence id (see :func:`research.tables.choose`)."""
    lang = research.plan.language
    options = []
    for sid, tables in research.tables.items():
        for ev_id, value in tables.items():
            item = research.item(ev_id)
            if ev_id not in research.found_tables or item is None:
                continue
            source = research.sources.get(item.page_path)
            text = research.found_tables[ev_id].text()
            from_file = source is not None and source.kind == "file"
            options.append(TableOption(sid, ev_id, value, from_file, language(text) == lang))
    return choose(options)


def no_web_label(research: Findings) -> str:
    """The key of what a report that reached no web source says: it answers from the
    files read (``no_web``), or there were none (``no_web_no_files``)."""
    files = any(s.kind == "file" for s in research.sources.values())
    return "no_web" if files else "no_web_no_files"


def research_notes(
    research: Findings,
    interrupted: bool = False,
    budget: tuple[str, str] | None = None,
    no_web: bool = False,
    requirements: Sequence[str] = (),
    files: Sequence[FileUse] = (),
    answer_lines: Mapping[str, list[str]] | None = None,
) -> str:
    """The notes for the writer, in the question's language.

    Args:
        research: the run's findings.
        interrupted: the user stopped the research before it finished.
        budget: the budget that stopped it, and its limit as text (``("tokens", "1200
            tokens")``, ``("cost", "0.0500")``).
        no_web: the web could not be reached: what the report says comes from the files.
        requirements: the brief's requirements (see :mod:`research.requirements`).
        files: the user's files with what became of them so far (see
            :mod:`research.inputs`): those no reader takes are named in the limits.
        answer_lines: the summary's lines as :func:`summary_lines` gives them, when the
            caller has read them already (they are chosen once).
    """
    plan = research.plan
    lang = plan.language
    lines = _opening(research, interrupted, budget, no_web)
    tables = _tables(research)  # a part a table answers is answered, by its table
    answered = _answered(research, tables)
    if not answered:
        tried = _tried(research, lang, files)
        return "\n".join([*lines, label(lang, "nothing"), "", *tried]) + "\n"
    chosen = _chosen(research, tables)
    if answer_lines is None:
        answer_lines = _summary_lines(research, answered, chosen)
    lines += _summary(research, answer_lines)
    lines += _part_sections(research, chosen, tables)
    lines += _asked_sections(research, requirements, tables)
    lines += _asked_topics(research, requirements, chosen)
    lines += _disagreement_section(research, chosen, tables)
    lines += _not_found_section(research, answered, files)
    return "\n".join(lines)


def _opening(
    research: Findings, interrupted: bool, budget: tuple[str, str] | None, no_web: bool
) -> list[str]:
    """The notes' first lines: the marker, the question as the title and what cut the
    research short.

    Args:
        research: the run's findings.
        interrupted: the user stopped the research before it finished.
        budget: the budget that stopped it and its limit as text, or None.
        no_web: the web could not be reached.

    Returns:
        The lines, each followed by a blank line.
    """
    plan = research.plan
    lang = plan.language
    lines = [RESEARCH_MARKER, "", f"# {plan.question}", ""]
    if no_web:
        lines += [label(lang, no_web_label(research)), ""]
    if interrupted:
        lines += [label(lang, "interrupted"), ""]
    elif budget is not None:
        lines += [label(lang, f"budget_{budget[0]}").format(limit=budget[1])]
        lines.append("")
    return lines


def _chosen(research: Findings, tables: dict[str, str]) -> dict[str, list[str]]:
    """Per part, the evidence ids its section quotes (see :func:`_quotable`)."""
    return {
        sid: [i for i in ids if _quotable(research, i, tables.get(sid))]
        for sid, ids in research.select(CANDIDATES).items()
    }


#: How a part's summary line is chosen from its candidates: the findings, the part's id
#: and the candidates' evidence ids in its section's order give the chosen id.
Chooser = Callable[[Findings, str, list[str]], "str | None"]


def summary_lines(research: Findings, choose: Chooser = summary_choice) -> dict[str, list[str]]:
    """The summary's lines as the notes give them: each line's evidence id, with the
    parts it answers (see :func:`_summary_lines`); ``choose`` picks a part's line
    (``scripts/train_lines.py`` passes one that also records the candidates)."""
    tables = _tables(research)
    return _summary_lines(research, _answered(research, tables), _chosen(research, tables), choose)


def _answered(research: Findings, tables: dict[str, str]) -> list[SubQuestion]:
    """The parts with evidence or a table, in plan order."""
    return [s for s in research.plan.subquestions if research.evidence[s.id] or s.id in tables]


def _summary_lines(
    research: Findings,
    answered: list[SubQuestion],
    chosen: dict[str, list[str]],
    choose: Chooser = summary_choice,
) -> dict[str, list[str]]:
    """For each answered part, the cited sentence that best answers it, with the parts
    each sentence answers.

    A part's line is the one ``choose`` picks among the sentences its section quotes.
    When that is a line already summing up an earlier part, it answers both if it surely
    gives the later part's answer too (a date, a figure, a name in the role asked: see
    :func:`research.answer.sure_span`), one it does not give for the earlier part already:
    "When and by whom …" is answered by one line giving the date and the name, while one
    date does not answer two parts asking when. Otherwise the later part's line is the
    best of its other sentences, when it has another; when it has none, the line answers
    it too (it is all the part found, and its section, which repeats no summary line,
    would otherwise show nothing of it), listed once. A line the later part would not
    choose itself never answers it, however surely it holds a span of the kind asked (a
    page that answers several parts lends each of them its best sentences), unless its
    own pick gives no such span surely (see :func:`_surer_line`).

    Args:
        research: the run's findings.
        answered: the parts with evidence or a table, in plan order.
        chosen: per part, the evidence ids its section quotes.
        choose: picks a part's line among its candidates.
    """
    summary: dict[str, list[str]] = {}
    for sub in answered:
        best = choose(research, sub.id, chosen[sub.id])
        if best in summary and _answers_too(research, sub.id, best, summary[best]):
            summary[best].append(sub.id)
            continue
        fresh = [i for i in chosen[sub.id] if i not in summary]
        if best in summary and fresh:  # a line already summing up another part
            best = choose(research, sub.id, fresh)
        if shared := _surer_line(research, sub.id, best, summary):
            summary[shared].append(sub.id)
        elif best and best not in summary:
            summary[best] = [sub.id]
        elif best:
            summary[best].append(sub.id)
    return summary


def _surer_line(
    research: Findings, sub_id: str, best: str | None, summary: Mapping[str, list[str]]
) -> str | None:
    """A line already summing up an earlier part that asks what part ``sub_id`` asks
    under another question word (the two split from one clause), and that surely gives
    this part's answer (see :func:`_answers_too`), when the part's own pick ``best``
    gives none surely: "When and by whom was it built?" asks of one event, answered by
    one line giving the date and "by the state of …", not by another line whose only
    name has no role. A part whose own pick surely answers it keeps it, and a line on
    another thing asked ("first lit" for "who keeps it today") never stands for it."""
    item = research.item(best) if best else None
    focus = research.focus[sub_id]
    if item is not None and sure_span(focus, item.span):
        return None
    for line, ids in summary.items():
        same = any(research.focus[o].asked == focus.asked for o in ids)
        if same and _answers_too(research, sub_id, line, ids):
            return line
    return None


def _summary(research: Findings, summary: Mapping[str, list[str]]) -> list[str]:
    """The lead: for each answered part, the cited sentence that best answers it (see
    :func:`_summary_lines`), then a blank line."""
    lines = [f"- {_answer_line(research, ids, best)}" for best, ids in summary.items()]
    lines.append("")
    return lines


def _answers_too(research: Findings, sub_id: str, ev_id: str, others: list[str]) -> bool:
    """Whether line ``ev_id`` surely gives part ``sub_id``'s answer (see
    :func:`research.answer.sure_span`), and one the line does not give already for the
    parts ``others`` it answers: one date in a sentence answers one "when", so two parts
    asking when two things happened are not both answered by it."""
    item = research.item(ev_id)
    if item is None:
        return False
    span = sure_span(research.focus[sub_id], item.span)
    return bool(span) and all(sure_span(research.focus[o], item.span) != span for o in others)


def _answer_line(research: Findings, sub_ids: list[str], ev_id: str) -> str:
    """A line answering one or more parts: for a part that asks when, how many, who or
    where, the date, quantity or name that answers it (see
    :func:`research.answer.answer_span`; several parts' spans joined by "; "), then the
    cited sentence it comes from; for any other part the sentence alone. A part no
    strongly relevant quote gives the kind of answer for (see
    :attr:`research.coverage.Coverage.lacking`) shows no span: its line says so first,
    as its section does ("Partly answered: no closely relevant quote gives a figure for
    it."), and a figure of something else is not set in bold as its answer."""
    line = _sentence(research, ev_id)
    item = research.item(ev_id)
    lang = research.plan.language
    short = {s: cov for s in sub_ids if (cov := research.coverage(s)).lacking}
    if short and len(short) == len(sub_ids):
        given = _gives_kind(research, sub_ids[0], [ev_id])
        return f"{_status_line(short[sub_ids[0]], lang, given)} {line}"
    answered = [s for s in sub_ids if s not in short]
    spans = [answer_span(research.focus[s], item.span) for s in answered] if item else []
    span = "; ".join(dict.fromkeys(s for s in spans if s))
    if not span:
        return line
    return f"**{span}**：{line}" if lang == "zh" else f"**{span}** — {line}"


def _part_sections(
    research: Findings, chosen: dict[str, list[str]], tables: dict[str, str]
) -> list[str]:
    """One section per part: its heading, its quoted evidence (or that nothing was found
    when it has no table either) and its table.

    Args:
        research: the run's findings.
        chosen: per part, the evidence ids its section quotes.
        tables: per part, the evidence id of the table it shows.

    Returns:
        The sections' lines, in plan order.
    """
    lang = research.plan.language
    lines: list[str] = []
    for sub in research.plan.subquestions:
        lines += [f"## {sub.text}", ""]
        given = _gives_kind(research, sub.id, chosen[sub.id])
        relevant = _relevant(research, sub.id)
        status = _status_line(research.coverage(sub.id), lang, given, relevant)
        if status and (chosen[sub.id] or sub.id in tables):
            lines += [f"> {status}", ""]
        ids = chosen[sub.id]
        if ids:
            lines += [f"- {_sentence(research, i)}" for i in ids]
            lines.append("")
        elif sub.id not in tables:
            lines += [label(lang, "missing"), ""]
        if sub.id in tables:
            lines += _table(research, tables[sub.id], lang)
    return lines


def _relevant(research: Findings, sub_id: str) -> int:
    """How many of a part's quotes are relevant evidence: every one under the learned
    model (which takes no leads), else those scoring at least the threshold (a lead, the
    nearest quote of a part none answers, scores under it)."""
    scores = research.evidence[sub_id].values()
    if LEARNED:
        return len(scores)
    bar = evidence_threshold(research.focus[sub_id])
    return sum(score >= bar for score in scores)


def _gives_kind(research: Findings, sub_id: str, ids: list[str]) -> bool:
    """Whether one of the quotes ``ids`` gives the kind of answer a part asks for (a date,
    a figure: see :func:`research.answer.gives_answer`)."""
    focus = research.focus[sub_id]
    return any((item := research.item(i)) and gives_answer(focus, item.span) for i in ids)


def _status_line(cov: Coverage, lang: str, given: bool = False, relevant: int = 0) -> str:
    """What a part's section says of its status when the part is only partly answered:
    the kind of answer no closely relevant quote gave ("no closely relevant quote gives a
    date for it"; when a quote shown gives one, that only quotes not closely about the
    part do), or how little evidence there is: with no closely relevant quote, how many
    relevant ones answer it, or that those shown are only the nearest when none is
    relevant (leads); nothing for an answered part (a part with no evidence says so in
    its section already).

    Args:
        cov: the part's coverage.
        lang: the report's language.
        given: whether a quote shown with the line gives the kind of answer lacking.
        relevant: how many of the part's quotes are relevant evidence (see
            :func:`_relevant`).

    Returns:
        The line, or ``""``.
    """
    if cov.status != "partly answered":
        return ""
    if cov.lacking:
        why = label(lang, f"lacking_{cov.lacking}" + ("_given" if given else ""))
    elif not cov.strong and relevant:
        why = label(lang, "loosely").format(quotes=_counted(relevant, "quote", lang))
    elif not cov.strong:
        why = label(lang, "near")
    elif cov.strong < ANSWERED_ITEMS:
        why = label(lang, "few_quotes").format(quotes=_counted(cov.strong, "quote", lang))
    elif cov.strong_sources:
        sources = _counted(cov.strong_sources, "source", lang)
        why = label(lang, "few_sources").format(sources=sources)
    else:
        why = label(lang, "off_pages")
    return label(lang, "partly").format(status=label(lang, "partly_answered"), why=why)


def _counted(n: int, noun: str, lang: str) -> str:
    """``n`` of a labelled noun, singular or plural ("1 quote", "3 sources", "3 条引文")."""
    return label(lang, f"{noun}_one" if n == 1 else f"{noun}_many").format(n=n)


def _asked_sections(
    research: Findings, requirements: Sequence[str], tables: dict[str, str]
) -> list[str]:
    """A section for each section the brief asks for that no part's heading names: the
    table of the sources read most plainly about its topic (see
    :func:`~research.tables.about_topic`), one in a file the requirement names first,
    then one in the report's language, then the longest; nothing where no source has one
    (the report then says it could not be made).

    Args:
        research: the run's findings.
        requirements: the brief's requirements.
        tables: per part, the evidence id of the table it shows (not shown twice).

    Returns:
        The sections' lines.
    """
    lang = research.plan.language
    shown = {(i.page_path, i.start) for t in tables.values() if (i := research.item(t))}
    lines: list[str] = []
    for requirement in requirements:
        asked = read_requirement(requirement)
        parts = [s.text for s in research.plan.subquestions]
        if asked.kind != SECTION or any(names_section(h, asked.topic) for h in parts):
            continue
        # a brief in another language than the report's finds a table in its own words
        topic = meaningful(asked.topic)
        named = set(terms(without_label(requirement)))
        options = [
            (about, len(named & set(terms(source.title))) >= 2, found, path)
            for path, source in research.sources.items()
            for found in tables_in(research.texts.get(path, ""))
            if len(found.rows) >= 2
            and (path, found.start) not in shown
            and (about := about_topic(found, topic))
        ]
        if not options:
            continue
        best = max(
            options,
            key=lambda o: (o[0], o[1], language(o[2].text()) == lang, len(o[2].rows)),
        )
        found, path = best[2], best[3]
        file = research.sources[path].kind == "file"
        item = research.cite(path, found.start, found.end, found.section if file else "")
        research.found_tables[item.id] = found
        shown.add((path, found.start))
        lines += [f"## {section_heading(asked.topic)}", "", *_table(research, item.id, lang)]
    return lines


def _asked_topics(
    research: Findings, requirements: Sequence[str], chosen: dict[str, list[str]]
) -> list[str]:
    """A section for each topic the brief asks the report to cover that the parts'
    sections do not say, quoting what the pages and files read say of it (see
    :mod:`research.topics`); nothing for a topic nothing read answers (the report then
    says that no source gave it).

    Args:
        research: the run's findings.
        requirements: the brief's requirements.
        chosen: per part, the evidence ids its section quotes.

    Returns:
        The sections' lines.
    """
    lang, plan = research.plan.language, research.plan
    view = _parts_view(research, chosen)
    parts = [s.text for s in plan.subquestions]
    read = [
        Read(path, text, research.sources[path].title)
        for path, text in research.texts.items()
        if path in research.sources
    ]
    said = list(view.sentences)
    lines: list[str] = []
    for requirement in requirements:
        asked = read_requirement(requirement)
        if asked.kind != TOPIC or not same_language(requirement, lang):
            continue
        for topic in asked.topics:
            if covers(topic, view):
                continue
            focus = topic_focus(topic, plan.question, parts)
            quotes = topic_quotes(focus, read, said)
            if not quotes:
                continue
            items = [research.cite(q.path, q.start, q.end) for q in quotes]
            said += [item.span for item in items]
            spans = [item.span for item in items]
            lines += [f"## {topic_heading(topic, plan.question, spans, research.brief_about)}", ""]
            lines += [f"- {_sentence(research, item.id)}" for item in items]
            lines.append("")
    return lines


def _parts_view(research: Findings, chosen: dict[str, list[str]]) -> ReportView:
    """What the parts' sections say, as a brief's topics are judged on it."""
    pairs = [
        (item.span, sub.text)
        for sub in research.plan.subquestions
        for i in chosen.get(sub.id, [])
        if (item := research.item(i)) is not None
    ]
    return ReportView(
        sentences=tuple(span for span, _ in pairs),
        headings=tuple(s.text for s in research.plan.subquestions),
        subject=entity(research.plan.question),
        lang=research.plan.language,
        contexts=tuple(heading for _, heading in pairs),
    )


def _disagreement_section(
    research: Findings, chosen: dict[str, list[str]], tables: dict[str, str]
) -> list[str]:
    """The section "Where the sources disagree", read from the sources the notes cite (at
    most four quantities); nothing when they agree.

    Args:
        research: the run's findings.
        chosen: per part, the evidence ids its section quotes.
        tables: per part, the evidence id of the table it shows.

    Returns:
        The section's lines, or an empty list.
    """
    lang = research.plan.language
    used = [*(i for ids in chosen.values() for i in ids), *tables.values()]
    quoted = [item for i in used if (item := research.item(i)) is not None]
    disagreements = _disagreements(research, {item.url for item in quoted})
    subject = _subject(research, lang)
    said = [
        ln for d in disagreements[:4] for ln in _disagreement_lines(research, d, quoted, subject)
    ]
    if not said:
        return []
    return [f"## {label(lang, 'disagreements')}", "", *said, ""]


def _not_found_section(
    research: Findings, answered: list[SubQuestion], files: Sequence[FileUse] = ()
) -> list[str]:
    """The section "Limits of this report": each part left unanswered with what was
    searched for it, each part only partly answered with why, the requests that
    failed, and the user's files no reader takes; nothing when every part was answered
    and nothing failed.

    Args:
        research: the run's findings.
        answered: the parts with evidence or a table.
        files: the user's files with what became of them.

    Returns:
        The section's lines, or an empty list.
    """
    lang = research.plan.language
    lines = [
        _tried_line(research, s, lang) for s in research.plan.subquestions if s not in answered
    ]
    for sub in answered:
        status = _status_line(research.coverage(sub.id), lang, relevant=_relevant(research, sub.id))
        if status:
            lines.append(f"- {sub.text} {status}")
    failed = list(dict.fromkeys(_failure_shown(f) for f in research.failures))
    if failed:
        shown = "; ".join(failed[:FAILURES_SHOWN])
        more = len(failed) - FAILURES_SHOWN
        extra = label(lang, "and_more").format(n=more) if more > 0 else ""
        requests = _counted(len(failed), "request", lang)
        lines.append(
            f"- {label(lang, 'failed_requests').format(requests=requests)}: {shown}{extra}."
        )
    lines += _files_lines(files, lang)
    lines += _language_lines(research.plan, lang)
    if not lines:
        return []
    return [f"## {label(lang, 'limits')}", "", *lines, ""]


def _files_lines(files: Sequence[FileUse], lang: str) -> list[str]:
    """The user's files of a type no reader takes, named so that none is passed over in
    silence (a file a reader failed on is among the failed requests; what became of the
    files read, quoted or not, is in ``run.json`` and the command line's closing table)."""
    unread = [f.name for f in files if f.use == "not read"]
    if not unread:
        return []
    sep = "、" if lang == "zh" else ", "
    return [f"- {label(lang, 'files_unread').format(files=sep.join(unread))}"]


def _language_lines(plan: Plan, lang: str) -> list[str]:
    """That the question was read by the generic path, when its language has no data of
    its own (see :data:`research.lang.SERVED`): its parts may be cut less well."""
    found = plan.read_as
    if found["read"] != "generic":
        return []
    return [f"- {label(lang, 'generic_language').format(name=found['name'])}"]


#: A tool's name before its failure ("pdf_read_text: …"), and a path inside the run.
_TOOL_PREFIX = re.compile(r"^[a-z_]+:\s*")
_RUN_PATH = re.compile(r"/workspace/(?:[\w.-]+/)*([\w.-]+)")


def _failure_shown(failure: str) -> str:
    """A failed request as a reader reads it: without the tool's name, a file in the run
    named by its name, only the first sentence (the rest is advice for the agent)."""
    said = _RUN_PATH.sub(r"\1", _TOOL_PREFIX.sub("", failure.strip(), count=1))
    first = re.split(r"(?<=[.!?])\s+", said, maxsplit=1)[0]
    return first.rstrip(".。 ")


def _tried_line(research: Findings, sub: SubQuestion, lang: str) -> str:
    """What was searched for a part, or that the research ended before it began."""
    if sub.id in research.unresearched:
        return f"- {sub.text} {label(lang, 'not_researched')}."
    tried = ", ".join(f'"{q}"' for q in research.queries[sub.id][:4]) or "—"
    return f"- {sub.text} {label(lang, 'tried')}: {tried}."


def _tried(research: Findings, lang: str, files: Sequence[FileUse] = ()) -> list[str]:
    """What was searched, read and failed, for a report that found nothing (with the
    user's files it could not use)."""
    lines = [f"## {label(lang, 'searched')}", ""]
    for sub in research.plan.subquestions:
        lines.append(_tried_line(research, sub, lang))
    read = {s.url for s in research.sources.values()}  # a file read sheet by sheet is one
    lines.append(f"- {len(read)} {label(lang, 'read')}.")
    lines += _files_lines(files, lang)
    lines += _language_lines(research.plan, lang)
    off = research.off_topic()
    if off:
        lines += ["", f"## {label(lang, 'off_topic')}", ""]
        lines += [f"- {s.title or s.url} ({s.url})" for s in off[:12]]
    if research.failures:
        lines += ["", f"## {label(lang, 'failed')}", ""]
        lines += [f"- {f}" for f in list(dict.fromkeys(research.failures))[:10]]
    return [*lines, ""]
