"""The Search subagent's offline plan: each query to the sources that suit it.

The first query goes to every search tool the subagent has; further queries go to the
general web tools (the encyclopedia and code sources get one keyword query each), so a
sub-question costs a handful of calls, not every tool times every query. The tools the
context names in ``try_last`` (sources that failed lately for the queries' language) are
called once every other call has been made.
"""

from __future__ import annotations

from typing import Any

from ..offline import Call, CallResult, called, succeeded
from .render import result_list

#: Tools worth a second and third query: general web search.
WEB_TOOLS = ("search_google", "search_bing", "search_sogou")
MAX_QUERIES = 3


def plan(ctx: dict[str, Any], done: list[CallResult], tools: set[str]) -> list[Call]:
    """Search calls not made yet: query 1 to every source, later queries to the web ones;
    the calls to the tools the context names in ``try_last`` once no other is left."""
    calls = _search_calls(ctx, done, tools)
    named = ctx.get("try_last")
    last = {str(tool) for tool in named} if isinstance(named, list) else set()
    first = [call for call in calls if call[0] not in last]
    return first or calls


def _search_calls(ctx: dict[str, Any], done: list[CallResult], tools: set[str]) -> list[Call]:
    """Search calls not made yet: query 1 to every source, later queries to the web ones."""
    queries = [str(q) for q in ctx.get("queries") or [] if str(q).strip()][:MAX_QUERIES]
    if not queries and ctx.get("subquestion"):
        queries = [str(ctx["subquestion"])]
    sources = sorted(t for t in tools if t.startswith("search_"))
    calls: list[Call] = []
    for i, query in enumerate(queries):
        for tool in sources:
            if i and tool not in WEB_TOOLS:
                continue
            if query not in called(done, tool, "query"):
                calls.append((tool, {"query": query}))
    return calls


def result_items(done: list[CallResult]) -> list[dict[str, Any]]:
    """Every result item (title, url, snippet, source) of the successful searches."""
    items: list[dict[str, Any]] = []
    for rec in done:
        if not rec.name.startswith("search_") or not rec.ok:
            continue
        items.extend(i for i in result_list(rec.text) if i.get("url"))
    return items


def outcome(ctx: dict[str, Any], done: list[CallResult]) -> dict[str, Any]:
    """URLs found by most sources first, then by their best rank."""
    votes: dict[str, list[int]] = {}
    for rec in done:
        if not rec.name.startswith("search_") or not rec.ok:
            continue
        for rank, item in enumerate(result_items([rec])):
            votes.setdefault(str(item["url"]), []).append(rank)
    urls = sorted(votes, key=lambda u: (-len(votes[u]), min(votes[u])))
    searched = [r for r in done if r.name.startswith("search_")]
    failed = [r.name for r in searched if not r.ok]
    ok = len(succeeded_any(done))
    gaps = [f"{name} was unavailable" for name in dict.fromkeys(failed)]
    if not urls:
        gaps.append("no results for any query")
    return {
        "summary": f"{ok} of {len(searched)} searches answered; {len(urls)} distinct results.",
        "evidence_ids": [],
        "gaps": gaps,
        "urls": urls[:20],
    }


def succeeded_any(done: list[CallResult]) -> list[CallResult]:
    return [r for r in done if r.name.startswith("search_") and r.ok]


__all__ = ["outcome", "plan", "result_items", "succeeded"]
