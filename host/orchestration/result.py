"""What a run produced (:class:`RunResult`, the content of ``run.json``) and how it is
gathered from the run's parts when the run ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from research.plan import Plan
from subagents.evidence import EvidenceLedger

from ..brains import ModelCallError, ModelCallStats, TokenLedger
from ..config import Settings
from ..core.records import ToolCallRecord
from ..durability.run_folder import RunFolder
from ..version import quartet_version
from .delegation import Delegation, Delegator

if TYPE_CHECKING:
    from ..research import Research


@dataclass
class RunResult:
    """What a finished run produced, for the CLI summary and for scripts."""

    run: RunFolder
    question: str
    plan: Plan | None = None
    delegations: list[Delegation] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    citations: int = 0
    #: how the report's citations fared (see :func:`subagents.generate.spec.carry`)
    citation_check: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    tokens: dict[str, Any] = field(default_factory=lambda: {"input": 0, "output": 0})
    model_calls: dict[str, Any] = field(default_factory=dict)
    calls: list[ToolCallRecord] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    pages_read: int = 0
    #: where each page and download stored in the run came from: its address, path,
    #: ``fetched_at``, and whether its copy came from the page cache (``from_cache``,
    #: ``revalidated``)
    web_sources: list[dict[str, Any]] = field(default_factory=list)
    #: how many search tasks tried each search tool last, because the experience logs
    #: record it as failing for the language of their queries
    sources_moved_last: dict[str, int] = field(default_factory=dict)
    #: the files (input and downloaded) the file tasks read, each once
    files_read: int = 0
    #: each of the user's files with what became of it (see :mod:`research.inputs`)
    files: list[dict[str, Any]] = field(default_factory=list)
    evidence: int = 0
    requirements: list[str] = field(default_factory=list)
    resumed: int = 0
    #: finished; interrupted (stopped early, report written); stopped (at once: resumable)
    status: str = "finished"
    #: how many tasks had started when the user interrupted the run
    interrupted_after: int | None = None
    #: the Host's refused and unknown tool calls: tool, arguments, status, reason
    host_refusals: list[dict[str, Any]] = field(default_factory=list)
    #: the decisions taken on calls that needed approval
    approvals: list[dict[str, Any]] = field(default_factory=list)
    #: the brain (``offline`` or PROVIDER:NAME)
    brain: str = "offline"
    #: each search source's result lists (query, part, URLs) and failures
    search_results: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: what a resumed or replayed run must keep of the settings (see :func:`run_settings`)
    settings: dict[str, Any] = field(default_factory=dict)
    #: the budget that ended the research, ``{"budget", "limit", "used"}`` (see
    #: :mod:`host.orchestration.budget`); None when none was spent
    budget_stop: dict[str, Any] | None = None
    #: why the Host's own model failed and ended the research early (None if it did not)
    host_failure: str | None = None
    #: when the web was tried and none of it reached, what the report says of it (the
    #: key of its label in :mod:`research.labels`: ``no_web`` or ``no_web_no_files``)
    no_web: str | None = None

    @property
    def failed_sources(self) -> list[str]:
        """The search sources with a failed call, each once."""
        return sorted(
            s for s, rows in self.search_results.items() if any("error" in r for r in rows)
        )

    @property
    def failed_stages(self) -> list[str]:
        """The stages that did not end well, e.g. ``browser d7 (timed out)`` or
        ``host (empty reply)``."""
        host = [f"host ({self.host_failure})"] if self.host_failure else []
        return host + [
            f"{d.subagent} {d.id} ({d.status})" for d in self.delegations if d.status != "ok"
        ]

    @property
    def answered(self) -> int:
        """Sub-questions the report answers (with at least one relevant, verified item)."""
        if self.plan is None:
            return 0
        return sum(1 for s in self.plan.subquestions if s.evidence_ids)

    @property
    def exit_code(self) -> int:
        """0 answers something, 3 a report that answers nothing, 1 no report, 130 the
        user interrupted the run."""
        if self.status != "finished":
            return 130
        if not self.outputs:
            return 1
        return 0 if self.answered and self.citations else 3

    def record(self) -> dict[str, Any]:
        """The content of ``/internal/run.json``."""
        return {
            "id": self.run.id,
            "question": self.question,
            "version": quartet_version(),
            "brain": self.brain,
            "settings": self.settings,
            "status": self.status,
            "interrupted_after": self.interrupted_after,
            "budget_stop": self.budget_stop,
            "plan": self.plan.to_dict() if self.plan else None,
            "answered": self.answered,
            "exit_code": self.exit_code,
            "seconds": round(self.seconds, 3),
            "tokens": self.tokens,
            "model_calls": self.model_calls,
            "pages_read": self.pages_read,
            "web_sources": self.web_sources,
            "files_read": self.files_read,
            "evidence_items": self.evidence,
            "requirements": self.requirements,
            "resumed": self.resumed,
            "delegations": [d.summary() for d in self.delegations],
            "outputs": self.outputs,
            "citations": self.citations,
            "citation_check": self.citation_check,
            "files": self.files,
            "tool_calls": [call.summary() for call in self.calls],
            "search_results": self.search_results,
            "failed_sources": self.failed_sources,
            "sources_moved_last": self.sources_moved_last,
            "no_web": self.no_web,
            "failed_stages": self.failed_stages,
            "approvals": self.approvals,
            "host_refusals": self.host_refusals,
            "errors": self.errors,
        }


def run_settings(settings: Settings) -> dict[str, Any]:
    """What a resumed or replayed run must keep of its settings: budgets, formats, inputs,
    origin, and what the tools were pointed at (endpoints, network policy, the names of
    the keys set; never their values)."""
    network = settings.tools.network
    return {
        "model": settings.model,
        "record": settings.record,
        "endpoints": dict(settings.tools.endpoints),
        "network": {"entries": network.entries(), "only": network.only},
        "key_names": sorted(settings.tools.keys),
        "formats": list(settings.formats),
        "max_rounds": settings.max_rounds,
        "max_pages": settings.max_pages,
        "concurrency": settings.concurrency,
        "max_tokens": settings.max_tokens,
        "max_cost": settings.max_cost,
        "input_dir": str(settings.input_dir) if settings.input_dir else None,
        "origin": settings.extra.get("origin"),
        "glossary": [
            {key: list(group.get(key, ())) for key in ("same", "related")}
            for group in settings.glossary
        ],
    }


def gather(
    result: RunResult,
    research: Research | None,
    delegator: Delegator | None,
    formats: tuple[str, ...],
) -> None:
    """Fill ``result`` with what the research state and the delegator hold at the end.

    Every sub-question is taken as finished, so the plan shows its final statuses; after
    a stop, each the research never reached is *not researched* (never *not found*).
    """
    if research is not None:
        if result.status == "stopped":  # stopped at once: the report was not written
            research.abandon()
        research.finished |= {s.id for s in research.plan.subquestions}
        research.update_plan()
        result.requirements = list(research.requirements)
        result.no_web = research.no_web()
    if delegator is not None:
        result.delegations = list(delegator.delegations)
        result.outputs = _ordered(delegator.outputs, formats)
        result.citations = delegator.citations
        result.citation_check = dict(delegator.citation_check)
        result.files_read = len(dict.fromkeys(delegator.files_read))
        result.files = [use.to_json() for use in delegator.file_uses()]
        result.host_refusals = list(delegator.refusals)
        result.sources_moved_last = dict(delegator.moved_last)
        result.errors += [
            f"{d.subagent} ({d.id}): {d.error}" for d in delegator.delegations if d.error
        ]
    result.search_results = search_results(research, result.calls)


def count(
    result: RunResult,
    ledger: EvidenceLedger,
    tokens: TokenLedger,
    model_calls: ModelCallStats,
) -> None:
    """Fill ``result`` with the run's counts: tokens, model calls, pages and evidence."""
    result.tokens = tokens.summary()
    result.model_calls = model_calls.summary()
    result.pages_read = ledger.pages.pages
    result.web_sources = [dict(source) for source in ledger.pages.sources]
    result.evidence = len(ledger)


def search_results(
    research: Research | None, calls: list[ToolCallRecord]
) -> dict[str, list[dict[str, Any]]]:
    """Each search source's result lists, then its failed calls."""
    found: dict[str, list[dict[str, Any]]] = {}
    for row in research.result_lists if research else []:
        found.setdefault(row["source"], []).append({k: v for k, v in row.items() if k != "source"})
    for call in calls:
        if call.stage == "search" and call.name.startswith("search_") and call.failed:
            entry = {"query": call.input.get("query", ""), "error": call.text[:300]}
            found.setdefault(call.name, []).append(entry)
    return found


def _ordered(outputs: list[str], formats: tuple[str, ...]) -> list[str]:
    """Report paths in the order the formats were asked for."""
    order = {fmt: i for i, fmt in enumerate(formats)}
    return sorted(outputs, key=lambda p: order.get(p.rsplit(".", 1)[-1], len(order)))


#: The Host's failure in run.json's ``failed_stages``, by the cause of a model call's end.
HOST_FAILURES = {
    "empty": "empty reply",
    "truncated": "reply cut at the output limit",
}


def failure_of(exc: BaseException) -> str:
    """Why the Host stopped, in a few words (``empty reply``, ``http_503``; ``failed``
    for any other failure, whose reason is among the run's errors: never a class name)."""
    if isinstance(exc, ModelCallError):
        return HOST_FAILURES.get(exc.fault.cause, exc.fault.cause)
    return "failed"
