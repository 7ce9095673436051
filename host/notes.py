"""The research notes the Host hands the writer: the findings by sub-question.

The notes are Markdown in the notes format of the Generate subagent:

- the question as the title, and a lead that answers each answered part with its best
  cited sentence (the report's summary);
- one section per sub-question, its heading the sub-question, holding its candidate
  evidence, best first (sources mixed, no sentence twice in the notes), and the table
  that best answers it, captioned with its source;
- "Where the sources disagree": each quantity the sources give differently, every value
  cited;
- "What could not be found": the parts left unanswered and what was searched for them.

When nothing relevant was found at all, the notes say only that, with what was searched,
what failed and what was read but off-topic — and cite nothing.
"""

from __future__ import annotations

from subagents.generate.labels import label
from subagents.generate.notes import RESEARCH_MARKER

from .disagreements import NAMES, Disagreement, find_disagreements
from .research import Research

#: Candidate sentences per sub-question handed to the writer (it keeps what fits).
CANDIDATES = 8


def _sentence(research: Research, ev_id: str) -> str:
    item = research.ledger.get(ev_id)
    if item is None:
        return ""
    return f"{' '.join(item.span.split())} [{ev_id}]"


def _table(research: Research, ev_id: str) -> list[str]:
    found = research.found_tables[ev_id]
    item = research.ledger.get(ev_id)
    source = research.sources.get(item.page_path) if item else None
    where = (source.title if source else "") or (item.url.rsplit("/", 1)[-1] if item else "")
    cells = [[c.replace("|", "/") for c in row] for row in [found.header, *found.rows]]
    width = len(found.header)
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join((row + [""] * width)[:width]) + " |" for row in cells[1:]]
    caption = f"{found.section} ({where})" if found.section else where
    return [*lines, "", f"Table: {caption}. [{ev_id}]", ""]


def _tables(research: Research) -> dict[str, str]:
    """The table each part shows: its best one, each table in one part only."""
    chosen: dict[str, str] = {}
    pairs = sorted(
        (
            (score, sid, ev_id)
            for sid, tables in research.tables.items()
            for ev_id, score in tables.items()
        ),
        reverse=True,
    )
    used: set[str] = set()
    for _, sid, ev_id in pairs:
        if sid not in chosen and ev_id not in used:
            chosen[sid] = ev_id
            used.add(ev_id)
    return chosen


def _disagreement_line(found: Disagreement, lang: str) -> str:
    """One sentence giving every value of a quantity, each followed by its citation (values
    a source gives together share its one citation)."""
    name = NAMES.get(lang, NAMES["en"]).get(found.measure, found.measure)
    by_source: dict[str, list[str]] = {}
    for claim in found.claims:
        by_source.setdefault(claim.ev_id, []).append(claim.text)
    if lang == "zh":
        values = "；".join(f"{'、'.join(texts)}[{ev}]" for ev, texts in by_source.items())
        return f"- 关于{name}，来源说法不一：{values}。"
    values = "; as ".join(f"{' and '.join(texts)} [{ev}]" for ev, texts in by_source.items())
    return f"- Sources give {name} as {values}."


def research_notes(research: Research, interrupted: bool = False) -> str:
    """The notes for the writer, in the question's language; ``interrupted`` says the
    user stopped the research before it finished."""
    plan = research.plan
    lang = plan.language
    lines = [RESEARCH_MARKER, "", f"# {plan.question}", ""]
    if interrupted:
        lines += [label(lang, "interrupted"), ""]
    answered = [s for s in plan.subquestions if research.evidence[s.id]]
    if not answered:
        return "\n".join([*lines, label(lang, "nothing"), "", *_tried(research, lang)]) + "\n"
    chosen = research.select(CANDIDATES)
    for sub in answered:
        if chosen[sub.id]:
            lines.append(f"- {_sentence(research, chosen[sub.id][0])}")
    lines.append("")
    tables = _tables(research)
    for sub in plan.subquestions:
        lines += [f"## {sub.text}", ""]
        ids = chosen[sub.id]
        if not ids:
            lines += [label(lang, "missing"), ""]
        else:
            lines += [f"- {_sentence(research, i)}" for i in ids]
            lines.append("")
        if sub.id in tables:
            lines += _table(research, tables[sub.id])
    disagreements = find_disagreements(research)
    if disagreements:
        lines += [f"## {label(lang, 'disagreements')}", ""]
        lines += [_disagreement_line(d, lang) for d in disagreements[:4]]
        lines.append("")
    missing = [s for s in plan.subquestions if not research.evidence[s.id]]
    if missing:
        lines += [f"## {label(lang, 'not_found')}", ""]
        for sub in missing:
            tried = ", ".join(f'"{q}"' for q in research.queries[sub.id][:4]) or "—"
            lines.append(f"- {sub.text} {label(lang, 'tried')}: {tried}.")
        lines.append("")
    return "\n".join(lines)


def _tried(research: Research, lang: str) -> list[str]:
    """What was searched, read and failed, for a report that found nothing."""
    lines = [f"## {label(lang, 'searched')}", ""]
    for sub in research.plan.subquestions:
        tried = ", ".join(f'"{q}"' for q in research.queries[sub.id][:4]) or "—"
        lines.append(f"- {sub.text} {label(lang, 'tried')}: {tried}.")
    lines.append(f"- {len(research.sources)} {label(lang, 'read')}.")
    off = research.off_topic()
    if off:
        lines += ["", f"## {label(lang, 'off_topic')}", ""]
        lines += [f"- {s.title or s.url} ({s.url})" for s in off[:12]]
    if research.failures:
        lines += ["", f"## {label(lang, 'failed')}", ""]
        lines += [f"- {f}" for f in list(dict.fromkeys(research.failures))[:10]]
    return [*lines, ""]
