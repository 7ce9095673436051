"""The brief in the report: its requirements listed with whether each was met.

:func:`answer_brief` closes a report with the section "What the brief asked": each
requirement with its verdict (:func:`research.requirements.judge`), judged on what the
report says (:func:`report_view`) — and, for a topic it does not say, on what the notes'
candidates say, to tell a topic no source gave from one left out for length. The
requirements it could not meet are named again in "Limits of this report", in one line
that points back here for why ("Not done as the brief asks: how the weir worked (see
…)."). The writer follows the brief before that: see
:func:`subagents.generate.writer.shape`.
"""

from __future__ import annotations

import re

from research.labels import LABELS, label
from research.question import entity
from research.requirements import (
    LENGTH,
    SECTION,
    UNMET,
    ReportView,
    Verdict,
    brief_requirements,
    judge,
    read_requirement,
    without_label,
)

from .notes import Draft, Point, Section

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])")

#: The label that words each verdict: by status, or by status and feature.
VERDICT_LABELS = {
    "length": "req_length",
    "covered": "req_covered",
    "partly covered": "req_partly",
    "not covered": "req_not",
    "met": "req_met",
    ("not met", "section"): "req_section_not",
    ("not met", "tables"): "req_no_tables",
    ("not met", "citations"): "req_no_citations",
    "not needed": "req_no_disagreements",
    "noted": "req_noted",
    "not checked": "req_not_checked",
}


def report_view(draft: Draft, lang: str = "", found: Draft | None = None) -> ReportView:
    """What a report says, for judging its brief's requirements: the sentences of its
    summary and sections (not those on what it could not do), each row of its tables,
    each with the heading of its section, its headings, and the features it has. A
    summary line is read with the heading of the part it answers (see
    :func:`_answered_part`), as the same line would be in that part's section.

    Args:
        draft: the report's draft.
        lang: the report's language ("" for any).
        found: the notes the report was written from, whose part sections hold the
            summary's lines the report's sections do not repeat; None when there are none.

    Returns:
        The view; the subject is the one its title (the question) names.
    """
    sections = [s for s in draft.sections if s.kind != "not_found"]
    parts = [s for d in (draft, found) if d is not None for s in d.sections if s.kind == "part"]
    said = [(_answered_part(p, parts), s) for p in draft.lead for s in _SENTENCE_END.split(p.text)]
    features: dict[str, str] = {}
    for section in sections:
        under = [s for p in section.points for s in _SENTENCE_END.split(p.text)]
        for table in section.tables:
            under += [" ".join(table.header), *(" ".join(row) for row in table.rows)]
            under += table.notes
            features.setdefault("tables", section.heading)
        said += [(section.heading, s) for s in under]
        if section.kind == "disagreements":
            features.setdefault("disagreements", section.heading)
    if any(p.cites() for p in draft.points()):
        features["citations"] = ""
    kept = [(heading, s.strip()) for heading, s in said if s.strip()]
    return ReportView(
        sentences=tuple(s for _, s in kept),
        contexts=tuple(heading for heading, _ in kept),
        headings=tuple(s.heading for s in sections),
        features=features,
        subject=entity(draft.title) if draft.title else "",
        lang=lang,
    )


def _answered_part(line: Point, parts: list[Section]) -> str:
    """The heading of the part a summary line answers: the first part section that
    quotes it (its words, whatever its markers are numbered; "" for a line no part
    quotes)."""
    words = _words(line.text)
    if not words:
        return ""
    return next(
        (s.heading for s in parts for p in s.points if f" {words} " in f" {_words(p.text)} "), ""
    )


def _words(text: str) -> str:
    """``text``'s words and figures alone, in lower case, to find one line in another."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def _listed(items: tuple[str, ...], lang: str) -> str:
    """``a``, ``a or b``, ``a, b or c`` (``a、b或c``)."""
    if lang == "zh":
        return "、".join(items)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {label(lang, 'or')} {items[-1]}"


def _gaps(verdict: Verdict, lang: str) -> str:
    """What a topic requirement lacks: the topics no source gave, then those left out."""
    gaps = []
    if verdict.missing:
        gaps.append(label(lang, "gap_missing").format(missing=_listed(verdict.missing, lang)))
    if verdict.left_out:
        gaps.append(label(lang, "gap_left").format(left=_listed(verdict.left_out, lang)))
    return label(lang, "gaps_joined").join(gaps)


def verdict_line(verdict: Verdict, lang: str) -> str:
    """A requirement with its verdict, in the report's words."""
    if verdict.status == "followed":
        key = "req_followed" if verdict.where else "req_followed_here"
    elif verdict.kind == "section" and verdict.left_out:
        key = "req_section_left"
    else:
        key = (
            VERDICT_LABELS.get(verdict.status)
            or VERDICT_LABELS[(verdict.status, verdict.feature or verdict.kind)]
        )
    return label(lang, key).format(
        requirement=without_label(verdict.requirement),
        missing=_listed(verdict.missing, lang),
        gaps=_gaps(verdict, lang),
        left=_listed(verdict.left_out, lang),
        where=verdict.where,
    )


def verdict_lines(verdicts: list[Verdict], lang: str) -> list[str]:
    """The lines of "What the brief asked": each requirement with its verdict, in the
    brief's order, except that requirements the report could not judge (a brief in
    another language than the report's) are listed together in one line at the end when
    there are several, the reason said once rather than after each."""
    unjudged = [v for v in verdicts if v.status == "not checked"]
    alone = len(unjudged) < 2
    lines = [verdict_line(v, lang) for v in verdicts if alone or v.status != "not checked"]
    if not alone:
        items = ("；" if lang == "zh" else " ").join(without_label(v.requirement) for v in unjudged)
        lines.append(label(lang, "req_not_checked_many").format(items=items))
    return lines


def limits_lines(verdicts: list[Verdict], lang: str) -> list[str]:
    """What the limits of a report say of the requirements it did not meet: one line
    naming each (a topic, a section, a form), which "What the brief asked" gives with its
    reason ("Not done as the brief asks: how the weir worked, the section on towns (see
    …)."), and one naming those it could not judge (a brief in another language than the
    report's); none when every requirement is met, and nothing for a length."""
    unmet = [v for v in verdicts if v.status in UNMET and v.kind != LENGTH]
    items: list[str] = []
    for verdict in unmet:
        if verdict.kind == "topic":
            items += [*verdict.missing, *verdict.left_out]
        elif verdict.kind == "section":
            for topic in (*verdict.missing, *verdict.left_out):
                items.append(label(lang, "section_on").format(topic=topic))
        else:
            items.append(f"“{without_label(verdict.requirement)}”")
    lines = [_limits_line("unmet_brief", items, lang)] if items else []
    unchecked = [_unchecked(v) for v in verdicts if v.status == "not checked"]
    if unchecked:
        lines.append(_limits_line("unchecked_brief", [u for us in unchecked for u in us], lang))
    return lines


def _unchecked(verdict: Verdict) -> list[str]:
    """What a requirement the report could not judge asks for, as the brief words it:
    its topics, or its section."""
    asked = read_requirement(verdict.requirement)
    if asked.kind == SECTION:
        return [f"“{without_label(verdict.requirement)}”"]
    return list(asked.topics) or [f"“{without_label(verdict.requirement)}”"]


def _limits_line(key: str, items: list[str], lang: str) -> str:
    """A line of the limits naming ``items`` (each once) under the label ``key``."""
    joined = ("、" if lang == "zh" else ", ").join(dict.fromkeys(items))
    return label(lang, key).format(items=joined)


def brief_verdicts(
    requirements: str, draft: Draft, lang: str = "", found: Draft | None = None
) -> list[Verdict]:
    """Each requirement of the brief with its verdict on ``draft``, a report in ``lang``
    (none without a brief).

    Args:
        requirements: what the writer was asked for.
        draft: the report's draft.
        lang: the report's language ("" for any).
        found: the notes, whose candidates tell a topic left out from one no source
            gave; None when there are none.

    Returns:
        The verdicts, in the brief's order.
    """
    asked = brief_requirements(requirements)
    if not asked:
        return []
    view = report_view(draft, lang, found)
    gave = report_view(found, lang) if found is not None else None
    return [judge(r, view, gave) for r in asked]


def _section(verdicts: list[Verdict], lang: str) -> Section:
    """The section "What the brief asked" listing ``verdicts``."""
    points = [Point([line], bullet=True) for line in verdict_lines(verdicts, lang)]
    return Section(LABELS[lang]["brief"], points, kind="not_found")


def brief_section(
    requirements: str, draft: Draft, lang: str, found: Draft | None = None
) -> Section | None:
    """The section "What the brief asked": each requirement of the brief with its
    verdict, judged on what the report says; None without a brief.

    Args:
        requirements: what the writer was asked for.
        draft: the report's checked draft.
        lang: the report's language.
        found: the notes the report was written from (see :func:`brief_verdicts`).

    Returns:
        The section, or None.
    """
    verdicts = brief_verdicts(requirements, draft, lang, found)
    return _section(verdicts, lang) if verdicts else None


def answer_brief(
    requirements: str, draft: Draft, lang: str, found: Draft | None = None
) -> list[Section]:
    """The closing sections a brief adds to a report: "What the brief asked", and, for
    each requirement not met, its lines in "Limits of this report" (the draft's own, or
    a new one before the brief's section).

    Args:
        requirements: what the writer was asked for.
        draft: the report's checked draft; an earlier brief section is taken out of it,
            and its limits section takes the unmet requirements.
        lang: the report's language.
        found: the notes the report was written from (see :func:`brief_verdicts`).

    Returns:
        The sections to close the report with (none without a brief).
    """
    verdicts = brief_verdicts(requirements, draft, lang, found)
    if not verdicts:
        return []
    closing = _section(verdicts, lang)
    draft.sections = [s for s in draft.sections if s.heading != closing.heading]
    unmet = [Point([line], bullet=True) for line in limits_lines(verdicts, lang)]
    if not unmet:
        return [closing]
    limits = next((s for s in draft.sections if s.heading == LABELS[lang]["limits"]), None)
    if limits is not None:
        limits.points.extend(unmet)
        return [closing]
    return [Section(LABELS[lang]["limits"], unmet, kind="not_found"), closing]
