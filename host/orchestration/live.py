"""A run's live figures, counted from its events as its record keeps them.

Whoever shows a run while it works (the command line's live view, the web app's page)
feeds each of the Host's events to a :class:`Tally` and shows its figures, so that what is
shown live agrees with the closing table, ``run.json`` and ``quartet show`` afterwards:

- a part's status and its evidence are the plan's (``status`` and ``evidence_ids``, the
  best quotes kept for the part's section), as each research step leaves them and as
  ``run.json`` records them;
- the pages read are the run's page count (the pages fetched against the page budget,
  the ``pages_read`` of ``run.json``), read again on every event; each is put to the part
  whose task fetched it, and what no part's task fetched is "other work", so the rows
  always add up to the total. A page served from its stored copy was counted when it was
  fetched: reading it again is no page read;
- a search that failed is kept in its part's row with its reason, in words.

The progress is an estimate from the plan: each part has up to ``max_rounds`` research
rounds of two steps (a search, then reading what it found), and the report is one last
step. A part counts as done once no more research is planned for it (answered, out of
rounds, or given up), so a part answered in its first round moves the bar at once.

Nothing here knows how the figures are shown.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: The tool that reads one page against the run's page budget.
PAGE_TOOL = "viewer_fetch"
#: The tool every task ends with: an internal step.
FINISH = "generate_response"
#: Failed searches kept for a part's row (the latest ones).
KEPT_FAILURES = 3
#: Characters of a failure's reason and of a failed search's query that are kept.
REASON_CHARS = 200
QUERY_CHARS = 300
#: An exception's class name in brackets, as a failure's text may end with it.
CLASS_NAME = re.compile(r" ?\((?:[A-Z][a-z0-9]+){1,6}(?:Error|Exception|Timeout)\)")


@dataclass
class PartState:
    """One part of the plan as it stands: its status, evidence kept, pages read for it
    and its latest failed searches."""

    id: str
    text: str
    status: str = "pending"
    evidence: int = 0
    pages: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Task:
    """A task of the run under way or done: its subagent and the part it works on."""

    subagent: str
    part: str | None


class Tally:
    """Counts a run's parts, pages and progress from its events.

    Args:
        max_rounds: research rounds allowed per part (the run's setting; each research
            step's event brings it again).
        registry: the run's page registry (``pages``, ``budget``, ``fetched``), or None
            to take the one the ``run_start`` event names.
    """

    def __init__(self, max_rounds: int = 1, registry: Any = None) -> None:
        self.max_rounds = max(1, int(max_rounds))
        self.registry = registry
        self.parts: dict[str, PartState] = {}
        self.tasks: dict[str, Task] = {}
        self.running: set[str] = set()
        self.reads: Counter[str] = Counter()
        self.searches: dict[str, int] = {}
        self.closed: set[str] = set()
        self.claimed: Counter[str] = Counter()
        self.pages = 0
        self.done = 0
        self.reported = False
        self.ended = False
        #: what the latest event said failed (a failed search), in words
        self.failures: list[str] = []
        #: the address of the page the latest event read against the budget, if any
        self.read: str | None = None

    # -- events ------------------------------------------------------------------------

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        """Take in one event of the run (others than those below change nothing)."""
        handler = getattr(self, f"_on_{kind}", None)
        self.failures, self.read = [], None
        if handler is not None:
            handler(data)
        self._count_pages()

    def _on_run_start(self, data: dict[str, Any]) -> None:
        if self.registry is None:
            self.registry = data.get("pages")

    def _on_resume(self, data: dict[str, Any]) -> None:
        """The pages fetched before the stop are in the count already, for no part."""
        self.claimed = Counter(getattr(self.registry, "fetched", None) or [])

    def _on_plan(self, data: dict[str, Any]) -> None:
        self._take_plan(data["plan"])

    def _on_delegation_start(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        part = d.subquestion if d.subquestion in self.parts else None
        self.tasks[d.id] = Task(d.subagent, part)
        self.running.add(d.id)

    def _on_tool(self, data: dict[str, Any]) -> None:
        rec = data["record"]
        task = self.tasks.get(str(data.get("task")))
        part = task.part if task is not None else None
        if rec.name == PAGE_TOOL:
            self._claim(str(rec.input.get("url") or ""), part)
        if rec.failed and rec.stage == "search" and rec.name.startswith("search_"):
            self._failed_search(rec, part)

    def _on_delegation_end(self, data: dict[str, Any]) -> None:
        d = data["delegation"]
        self.running.discard(d.id)
        task = self.tasks.get(d.id)
        if task is None:
            return
        if task.subagent == "browser" and task.part:
            self.reads[task.part] += 1
        if task.subagent == "generate" and d.status == "ok":
            self.reported = True

    def _on_coverage(self, data: dict[str, Any]) -> None:
        research = data["research"]
        self._take_plan(data["plan"])
        self.max_rounds = max(1, int(getattr(research, "max_rounds", self.max_rounds)))
        self.searches = {k: int(v) for k, v in getattr(research, "rounds", {}).items()}
        gaps = set(research.open_gaps()) if hasattr(research, "open_gaps") else set()
        self.closed = {p for p in self.parts if p not in gaps}

    def _on_run_end(self, data: dict[str, Any]) -> None:
        result = data["result"]
        if getattr(result, "plan", None) is not None:
            self._take_plan(result.plan)
        self.ended = True
        self.running.clear()
        self.pages = int(getattr(result, "pages_read", self.pages))

    def _take_plan(self, plan: Any) -> None:
        """Each part's text, status and kept evidence, as the plan holds them now."""
        for sub in plan.subquestions:
            part = self.parts.setdefault(sub.id, PartState(sub.id, sub.text))
            part.text, part.status = sub.text, sub.status
            part.evidence = len(sub.evidence_ids or [])

    # -- pages ---------------------------------------------------------------------------

    @property
    def budget(self) -> int | None:
        """The run's page budget (None when it has none, or before the run starts)."""
        budget = getattr(self.registry, "budget", None)
        return int(budget) if budget else None

    @property
    def other(self) -> int:
        """The pages read that no part's task fetched ("other work")."""
        return max(0, self.pages - sum(p.pages for p in self.parts.values()))

    def _count_pages(self) -> None:
        """The run's page count, as its record will say it."""
        if self.registry is not None and not self.ended:
            self.pages = int(self.registry.pages)

    def _claim(self, url: str, part: str | None) -> None:
        """Put a page fetched against the budget to ``part``: once per fetch of ``url``
        (a page served from its stored copy was counted when it was fetched)."""
        fetched = getattr(self.registry, "fetched", None) or []
        if not url or fetched.count(url) <= self.claimed[url]:
            return
        self.claimed[url] += 1
        self.read = url
        if part is not None:
            self.parts[part].pages += 1

    # -- failed searches -----------------------------------------------------------------

    def _failed_search(self, rec: Any, part: str | None) -> None:
        source = rec.name.removeprefix("search_")
        reason = plain(str(rec.metadata.get("reason") or rec.text or rec.status), rec.name)
        query = " ".join(str(rec.input.get("query") or "").split())[:QUERY_CHARS]
        failure = {"source": source, "query": query, "reason": reason}
        where = f" for {part}" if part else ""
        self.failures.append(f"✗ The search on {source}{where} failed: {reason}")
        if part is not None:
            kept = self.parts[part].failed
            kept[:] = [*kept, failure][-KEPT_FAILURES:]

    # -- the figures ---------------------------------------------------------------------

    def rows(self, doing: dict[str | None, str]) -> list[dict[str, Any]]:
        """Each part's row (status, what it is doing now, pages, evidence, failed
        searches), then "other work" (id "") when a task works on no part or pages were
        read for none.

        Args:
            doing: what the latest task of each part, and of no part (under None), is
                doing now, in words.
        """
        rows = [
            {
                "id": p.id,
                "text": p.text,
                "status": p.status,
                "doing": doing.get(p.id, ""),
                "pages": p.pages,
                "evidence": p.evidence,
                "failed": list(p.failed),
            }
            for p in self.parts.values()
        ]
        if doing.get(None) or self.other:
            rows.append({"id": "", "text": "", "status": "", "doing": doing.get(None, "")})
            rows[-1]["pages"] = self.other
        return rows

    def progress(self) -> dict[str, int]:
        """Steps done and steps in all (see the module's docstring); none before the
        plan. The steps done never go back, and reach the total when the run ends."""
        if not self.parts:
            return {}
        per_part = 2 * self.max_rounds
        total = per_part * len(self.parts) + 1
        if self.ended:
            return {"done": total, "total": total}
        busy = {self.tasks[t].part for t in self.running if t in self.tasks}
        done = sum(
            per_part
            if part in self.closed and part not in busy
            else min(per_part - 1, self.searches.get(part, 0) + self.reads[part])
            for part in self.parts
        )
        self.done = max(self.done, min(total - 1, done + int(self.reported)))
        return {"done": self.done, "total": total}


def plain(reason: str, tool: str) -> str:
    """A tool's failure as a person reads it: without "Error:", the tool's name before
    it, or the class name of an exception after it (``(ConnectError)``); on one line.

    Args:
        reason: the failure as the tool said it.
        tool: the tool's name.
    """
    reason = " ".join(reason[: REASON_CHARS * 2].split()).removeprefix("Error: ")
    reason = reason.removeprefix(f"{tool}: ")
    reason = CLASS_NAME.sub("", reason).strip()
    return reason[:REASON_CHARS] or "it failed without saying why"
