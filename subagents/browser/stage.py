"""What the Host needs to delegate page reading and take in what was stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentscope.tool import ToolResponse

from ..results import refused

if TYPE_CHECKING:
    from research.plan import SubQuestion

    from ..spec import Delegated, Desk

#: Pages one browser task reads at most.
PAGES_PER_TASK = 4
#: Documents one browser task downloads at most.
DOWNLOADS_PER_TASK = 3


def prepare(
    desk: Desk, sub: SubQuestion | None, ctx: dict[str, Any], base: dict[str, Any]
) -> tuple[str | None, dict[str, Any]] | ToolResponse:
    """The pages to read for the sub-question (the request's, if known and unread, then
    the best unread ones) and the documents to download, within the page budget; with no
    sub-question and ``download``, only the documents found."""
    research = desk.research
    if sub is None and ctx.get("download"):
        docs = research.documents()[:DOWNLOADS_PER_TASK]
        research.assigned_docs.update(docs)
        extra = {"urls": [], "documents": docs, "max_downloads": DOWNLOADS_PER_TASK}
        return None, {**base, **extra}
    again = sub is not None and desk.last_kind.get(sub.id) == "browser"  # a second read
    refusal = desk.open_round(sub, new_round=again)
    if refusal is not None:
        return refusal
    left = desk.pages_left()
    if left <= 0:
        research.finished.add(sub.id)
        return refused(
            f"the page budget ({desk.settings.max_pages} pages) is spent; no more pages "
            "can be read in this run. Move on to the files and the report."
        )
    allowance = min(PAGES_PER_TASK, left)
    given = [str(u) for u in ctx.get("urls") or []]
    claimed = {u for urls in research.assigned.values() for u in urls}
    urls = [
        u
        for u in dict.fromkeys(given)
        if desk.known_url(u) and u not in claimed and not research.fetched(u)
    ][:allowance]
    urls += research.reading_list(sub.id, max(0, allowance - len(urls)), set(urls))
    research.assigned[sub.id].extend(urls)
    docs = research.documents()[:DOWNLOADS_PER_TASK]
    research.assigned_docs.update(docs)
    extra = {"urls": urls, "documents": docs, "max_downloads": DOWNLOADS_PER_TASK}
    skipped = [u for u in given if u not in urls]
    if skipped:
        extra["not_read_again"] = skipped[:10]
    return sub.id, {**base, **extra}


def absorb(desk: Desk, d: Delegated, sub_id: str | None, carried: dict[str, Any]) -> list[str]:
    """A second browser task in a row for a sub-question opens a new research round."""
    if sub_id:
        kinds = [x.subagent for x in desk.delegations if x.subquestion == sub_id]
        if len(kinds) >= 2 and kinds[-1] == kinds[-2] == d.subagent:
            desk.research.rounds[sub_id] += 1
    return []
