"""What the Host needs to delegate a search and take in its results.

A search task's context names in ``try_last`` the search tools it tries after the
others: those the experience logs record as failing for the language of one of its
queries (the desk's ``sources_last``), counted in the desk's ``moved_last``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentscope.tool import ToolResponse

from research.lang import text_language

from ..evidence import url_key

if TYPE_CHECKING:
    from research.plan import SubQuestion

    from ..spec import Delegated, Desk

#: Queries one search task runs at most.
QUERIES_PER_TASK = 3
#: Unread pages a search task's result lists, best first (one browser task's worth).
READ_NEXT = 4


def prepare(
    desk: Desk, sub: SubQuestion | None, ctx: dict[str, Any], base: dict[str, Any]
) -> tuple[str | None, dict[str, Any]] | ToolResponse:
    """The sub-question's queries: the request's, else the suggested ones for a gap, else
    the plan's not yet tried; each search opens a research round."""
    refusal = desk.open_round(sub, new_round=True)
    if refusal is not None:
        return refusal
    research = desk.research
    queries = [str(q) for q in ctx.get("queries") or [] if str(q).strip()]
    if not queries:
        tried = research.queries[sub.id]
        suggested = research.suggestions(sub.id)["queries"] if tried else []
        queries = suggested or [q for q in sub.queries if q not in tried] or sub.queries
    chosen = queries[:QUERIES_PER_TASK]
    prepared = {**base, "queries": chosen}
    last = tried_last(desk.sources_last, chosen)
    if last:
        prepared["try_last"] = last
        for tool in last:
            desk.moved_last[tool] = desk.moved_last.get(tool, 0) + 1
    return sub.id, prepared


def tried_last(sources_last: Mapping[str, frozenset[str]], queries: Sequence[str]) -> list[str]:
    """The search tools a task with ``queries`` tries last: those ``sources_last`` (tools
    by language of query) names for the language of one of the queries, sorted."""
    if not sources_last:
        return []
    languages = {text_language(query) for query in queries}
    return sorted({tool for lang in languages for tool in sources_last.get(lang, ())})


def absorb(desk: Desk, d: Delegated, sub_id: str | None, carried: dict[str, Any]) -> list[str]:
    """A search task is one research round of its sub-question."""
    if sub_id:
        desk.research.rounds[sub_id] += 1
    return []


def report(desk: Desk, d: Delegated) -> tuple[list[str], dict[str, Any]]:
    """The most relevant unread pages for the sub-question, for the next browser task."""
    if not d.subquestion:
        return [], {}
    research = desk.research
    read_next = research.reading_list(d.subquestion, READ_NEXT)
    lines = [f"Most relevant unread pages for {d.subquestion}:"]
    lines += [
        f"{i}. {url} — {research.candidates[url_key(url)].title[:100]}"
        for i, url in enumerate(read_next, 1)
    ]
    return lines, {"read_next": read_next}
