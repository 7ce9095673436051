"""The research notes the Host hands the writer: the findings by sub-question.

The notes are Markdown in the notes format of the Generate subagent: the question as the
title, a lead that answers each sub-question in one cited sentence, one section per
sub-question holding its best evidence (alternating between sources), a section saying
what could not be found and what was tried, and — when nothing relevant was found at
all — only that statement, with what was searched, what failed and what was off-topic,
and no citation.
"""

from __future__ import annotations

from .research import Research

#: Evidence sentences per sub-question section.
ITEMS_PER_SECTION = 6

LABELS = {
    "en": {
        "nothing": "No relevant evidence was found for any part of this question, so this "
        "report cites nothing.",
        "not_found": "What could not be found",
        "searched": "What was searched",
        "off_topic": "What was read but off-topic",
        "failed": "What failed",
        "missing": "No relevant evidence was found for this part.",
        "tried": "Searched for",
        "read": "pages and files examined",
    },
    "zh": {
        "nothing": "本问题的各个部分都没有找到相关证据，因此本报告不引用任何来源。",
        "not_found": "未能找到的内容",
        "searched": "检索了什么",
        "off_topic": "已阅读但与问题无关的页面",
        "failed": "失败的来源",
        "missing": "这一部分没有找到相关证据。",
        "tried": "检索词",
        "read": "个页面和文件已检查",
    },
}


def _sentence(research: Research, ev_id: str) -> str:
    item = research.ledger.get(ev_id)
    if item is None:
        return ""
    text = " ".join(item.span.split())
    return f"{text} [{ev_id}]"


def research_notes(research: Research) -> str:
    """The notes for the writer, in the question's language."""
    plan = research.plan
    labels = LABELS.get(plan.language, LABELS["en"])
    lines = [f"# {plan.question}", ""]
    answered = [s for s in plan.subquestions if research.evidence[s.id]]
    if not answered:
        return "\n".join([*lines, labels["nothing"], "", *_tried(research, labels)]) + "\n"
    chosen = research.select(ITEMS_PER_SECTION)
    for sub in answered:
        if chosen[sub.id]:
            lines.append(f"- {_sentence(research, chosen[sub.id][0])}")
    lines.append("")
    for sub in plan.subquestions:
        lines += [f"## {sub.text}", ""]
        ids = chosen[sub.id]
        if not ids:
            lines += [labels["missing"], ""]
            continue
        lines += [f"- {_sentence(research, i)}" for i in ids]
        lines.append("")
    missing = [s for s in plan.subquestions if not research.evidence[s.id]]
    if missing:
        lines += [f"## {labels['not_found']}", ""]
        for sub in missing:
            tried = ", ".join(f'"{q}"' for q in research.queries[sub.id][:4]) or "—"
            lines.append(f"- {sub.text} {labels['tried']}: {tried}.")
        lines.append("")
    return "\n".join(lines)


def _tried(research: Research, labels: dict[str, str]) -> list[str]:
    """What was searched, read and failed, for a report that found nothing."""
    lines = [f"## {labels['searched']}", ""]
    for sub in research.plan.subquestions:
        tried = ", ".join(f'"{q}"' for q in research.queries[sub.id][:4]) or "—"
        lines.append(f"- {sub.text} {labels['tried']}: {tried}.")
    lines.append(f"- {len(research.sources)} {labels['read']}.")
    off = research.off_topic()
    if off:
        lines += ["", f"## {labels['off_topic']}", ""]
        lines += [f"- {s.title or s.url} ({s.url})" for s in off[:12]]
    if research.failures:
        lines += ["", f"## {labels['failed']}", ""]
        lines += [f"- {f}" for f in list(dict.fromkeys(research.failures))[:10]]
    return [*lines, ""]
