"""The Host: an agent that plans the question and researches it through its ``task`` tool.

A run goes:

1. **Plan.** The Host agent breaks the question into sub-questions with search queries,
   as structured output (``structured_model=PlanModel``). An LLM's plan is validated; one
   that does not validate is replaced by the offline decomposition, and the fallback is
   recorded. The plan is the run's todo list (``/internal/plan.json``).
2. **Research.** The Host agent drives the run with ``task(description, subagent_type,
   context)``: the user's files, rounds of search and reading per sub-question
   (concurrently), more rounds for the gaps within the budgets, the downloaded
   documents, and the report. Each task runs a fresh subagent in the run's MsgHub (see
   :mod:`host.orchestration.delegation`); coverage is checked after every task.
3. **Report.** If the Host agent stopped without a report, the Host has one written; the
   report says plainly which parts were answered and which were not.

Everything is recorded in ``/internal/``: the transcript, the evidence ledger, the plan
and ``run.json``. With experience on, the sites whose pages only Chromium could read are
recorded in the ``browser-access`` skill's experience log once the run is over, and the
search sources that failed for a language of query and the sites that answered nothing
for a kind of question in the ``search-sources`` skill's; a run reads them back as it
starts, reads those sites' pages in Chromium at once, tries those sources last and reads
the pages of those silent sites after the others for that kind of question (not when
recording or replaying a tape; see :mod:`host.durability.memory`). While the run's store
is open (with experience on, or for the page cache), the run's file domain shows the
store's memories at ``/memories/``, granted to the Host's own service only (see
:mod:`host.durability.run_folder`).

:class:`Host` composes the parts of a run: the agents (:mod:`.factory`), the MCP clients
(:mod:`host.mcp.client`), the checkpoints (:mod:`.checkpointing`), the answer to a stop
(:mod:`.stopping`), the research of the plan (:mod:`.drive`) and the result
(:mod:`.result`). What they share for the Host's lifetime is one immutable
:class:`.context.HostContext`, made with the Host; the run under way is a
:class:`.state.RunState`, made as the run starts and handed to the parts that need it,
and what exists once the run is planned is its :class:`.state.Planned`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import date
from typing import Any

from agentscope.message import Msg
from agentscope.pipeline import MsgHub

from fs_service import FsError
from research.lang import asked_in, text_language
from research.plan import Plan
from research.present import as_of
from research.text import reading
from subagents.evidence import EvidenceLedger, PageRegistry
from subagents.failures import plain_reason
from subagents.generate.report import Colophon
from subagents.net.pagecache import RunCache, caching
from subagents.registry import current
from subagents.registry_value import Registry, using
from subagents.search.reach import web_reachable
from subagents.secrets import scrub, secret_scope
from subagents.spec import SubAgentSpec
from subagents.tape import Tape, taping

from ..brains import Brain, ModelCallStats, TokenLedger
from ..config import Settings
from ..core.records import ToolCallRecord
from ..durability import checkpoint
from ..durability.memory import (
    BROWSER_SKILL,
    SEARCH_SKILL,
    PartReading,
    SkillMemory,
    browser_findings,
    record_findings,
    routing,
    silent_site_findings,
    silent_sites,
    source_expired,
    source_failures,
    source_findings,
)
from ..durability.page_cache import run_cache
from ..durability.run_folder import RunFolder
from ..durability.transcript import Transcript, save_plan, save_records
from ..mcp.client import McpConnections
from ..prepared import Preparing
from .approval import Approval, Ask, check_tools, default_approver
from .budget import check_prices
from .checkpointing import Checkpointer
from .colophon import run_colophon, run_date
from .context import HostContext
from .drive import ResearchDrive
from .factory import Worker, WorkerFactory, current_task
from .host_agent import HostAgent, plan_question, research_request, resume_request
from .interrupt import Interrupt
from .result import RunResult, count, gather, run_settings
from .state import RunState
from .stopping import Stopper
from .warming import Warming

logger = logging.getLogger(__name__)


class Host:
    """Plans a question and researches it with the registered subagents.

    Args:
        settings: resolved settings (caps, budgets, timeouts, formats, runs folder, tools).
        brain: the model and formatter of the Host and every subagent.
        on_event: optional ``(kind, data)`` callback for progress display.
        specs: the subagents by name (default: the registry's).
        registry: the subagents and search sources the run uses (default: the current
            one, see :func:`subagents.registry.current`); set for each run (see
            :func:`subagents.registry_value.using`).
        ask: ``async (stage, tool, arguments) -> Decision``, who decides on the calls of
            ``settings.approve_tools`` (default: the configured default decision, as when
            there is no terminal).
        plan: a plan to research instead of planning (``--plan FILE``).
        review_plan: ``async (plan) -> plan``, the user's review before research starts.
        tape: a recorded run's tape, to replay it (``settings.record`` records a new one).

    Attributes:
        context: what the Host's parts share for its lifetime (settings, brain, ledgers,
            stop requests, approvals, MCP clients, callbacks), made here and immutable.
        state: the run under way, made as it starts (None before); once it is planned,
            its ``research`` and ``delegator`` are there too.
    """

    def __init__(
        self,
        settings: Settings,
        brain: Brain,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
        specs: dict[str, SubAgentSpec] | None = None,
        ask: Ask | None = None,
        plan: Plan | None = None,
        review_plan: Callable[[Plan], Awaitable[Plan]] | None = None,
        tape: Tape | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.registry = current() if registry is None else registry
        self.brain, self.specs, self.tape = brain, dict(specs or self.registry.specs), tape
        self.on_event = on_event or (lambda kind, data: None)
        self.given_plan, self.review_plan = plan, review_plan
        #: one task and one tool call at a time, so that a recording's replay asks the
        #: same things in the same order
        self.exact = settings.record or tape is not None
        self.settings = settings = replace(settings, concurrency=1) if self.exact else settings
        self.approval = approval_of(settings, self.specs, ask)
        self.ledger = EvidenceLedger(pages=PageRegistry(budget=settings.max_pages))
        check_prices(settings.max_cost, brain.spec, settings.prices)
        self.token_ledger = TokenLedger(settings.prices)
        self.model_calls = ModelCallStats()
        self.mcp, self.interrupt = McpConnections(), Interrupt()
        #: the run under way (None before it starts)
        self.state: RunState | None = None
        self.cleanup_errors: list[str] = []
        #: the run's use of the page cache (None before the run starts, or without one)
        self.page_cache: RunCache | None = None
        #: the run's prepared documents and Chinese word cuts (see ..prepared)
        self.preparing = Preparing()
        self.page_cache_error: str | None = None
        self.context = HostContext(
            settings=settings,
            brain=brain,
            specs=self.specs,
            ledger=self.ledger,
            tokens=self.token_ledger,
            model_calls=self.model_calls,
            interrupt=self.interrupt,
            approval=self.approval,
            mcp=self.mcp,
            exact=self.exact,
            emit=self._emit,
            record_call=self._record_call,
        )
        self.workers = WorkerFactory(self.context)
        self.checkpoints = Checkpointer(self.context)
        self.stopper = Stopper(self.context, checkpoints=self.checkpoints)
        self.drive = ResearchDrive(
            self.context, make_worker=self.make_worker, checkpoint=self.checkpoints.save
        )
        self.token_ledger.on_add = self.stopper.check_budget
        self.interrupt.on_request(self.stopper.on_interrupt)

    @property
    def run_folder(self) -> RunFolder | None:
        """The folder of the run under way (None before it starts)."""
        return self.state.run if self.state is not None else None

    def _emit(self, kind: str, **data: Any) -> None:
        self.on_event(kind, data)

    async def make_worker(self, spec: SubAgentSpec) -> Worker:
        """A fresh subagent for one delegation: its agent, guard and MCP tools (and, for
        the one that writes the report, the run's colophon as it stands then)."""
        colophon = self.colophon() if "colophon" in spec.requires else None
        return await self.workers.worker(spec, colophon)

    def colophon(self) -> Colophon | None:
        """What the report's last line says of the run so far: its date, Quartet's
        version, the brain, and the web pages and files read (None before it starts)."""
        state = self.state
        if state is None:
            return None
        files = state.delegator.files_read if state.planned is not None else []
        return run_colophon(state.run.id, self.brain.spec, self.ledger.pages.pages, files)

    def _make_host_agent(self) -> HostAgent:
        return self.workers.host_agent(self.specs)

    def _record_call(self, record: ToolCallRecord) -> None:
        """Keep the record of a tool call of the run under way, and say it ended."""
        state = self.state
        if state is None:
            raise RuntimeError(f"a tool call outside a run: {record.name}")
        state.calls.append(record)
        self._emit("tool", record=record, task=current_task())
        if record.stage == "browser" and not record.failed:
            self.checkpoints.note_stored_soon(state.run)

    async def run(self, question: str) -> RunResult:
        """Plan and research ``question`` in a new run folder; return what the run produced."""
        if not question.strip():
            raise ValueError("the question is empty")
        settings = self.settings
        run = RunFolder.create(settings.runs_dir, settings.input_dir, question, settings.run_id)
        return await self._go(run, question, None)

    async def resume(self, run: RunFolder) -> RunResult:
        """Continue a stopped run from its last checkpoint, in its own folder.

        Pages and downloads stored before the stop are served from their stored copies;
        tasks that had not finished are run again.
        """
        state = await checkpoint.load(run.host_service)
        return await self._go(run, str(state["question"]), state)

    async def _go(self, run: RunFolder, question: str, saved: dict[str, Any] | None) -> RunResult:
        replaying = self.tape is not None and self.tape.replaying  # a new recording is not
        self.page_cache, self.page_cache_error = await asyncio.to_thread(
            run_cache, self.settings, recording=self.settings.record, replaying=replaying
        )
        self._mount_memories(run)
        self.preparing = Preparing()  # the run's own
        try:
            if self.tape is None and self.settings.record:
                self.tape = Tape(run.host_service)
            language = text_language(question)  # told once; every part is read in it
            with (
                using(self.registry),
                taping(self.tape),
                caching(self.page_cache),
                secret_scope(secrets_of(self.settings, self.brain)),
                reading(language),
                asked_in(language),
                as_of(date.fromisoformat(run_date(run.id))),  # what "now" is for the run
                self.preparing.scope(),
            ):
                return await self._taped(run, question, saved)
        finally:
            run.mount_memories(None)  # the store is closed with the run

    def _mount_memories(self, run: RunFolder) -> None:
        """Open the memory store (with experience on) and mount the run's store at
        ``/memories/`` of ``run``'s file domain, before any part of the run takes a
        service: the memory's store, else the page cache's (the same namespace); with
        neither open, the run folder stays on disk alone."""
        workers = self.workers
        if self.settings.experience and workers.memory is None:
            workers.open_memory()
        if workers.memory is not None:
            run.mount_memories(workers.memory.store)
        elif self.page_cache is not None:
            run.mount_memories(self.page_cache.cache.store)

    def _start_run(self, run: RunFolder, question: str) -> RunState:
        """Start the run of ``question`` in ``run``: its result, the agents' model, the
        Host's own agent and the routing by experience; the run's state, handed to the
        parts that answer for the run from now on."""
        result = RunResult(run, question, settings=run_settings(self.settings))
        self._emit("run_start", run=run, pages=self.ledger.pages)  # the page registry
        started = time.perf_counter()
        self.workers.start(run, self.tape, question)
        state = self.state = RunState(run, result, self._make_host_agent(), started=started)
        self._route_by_experience()
        return state

    async def _taped(
        self, run: RunFolder, question: str, saved: dict[str, Any] | None
    ) -> RunResult:
        state = self._start_run(run, question)
        result = state.result
        self.stopper.start(state, asyncio.current_task())
        # the page workers and the renderers load while the run plans, searches and reads
        # (at the page cache's first miss when it reads the cache: see .warming)
        warming = Warming(self.page_cache)
        warming.begin()
        try:
            browser = self.workers.open_browser()
            if not self.settings.tools.network.only:
                # the open web's first pages often need Chromium (a challenge, a page its
                # script writes): it starts while the run plans, once that web answers,
                # not when the first such page waits on it; a web of named hosts (the
                # demo's) starts it on first use, and a run with no web not at all
                browser.launch_ahead(lambda: web_reachable(self.settings.tools))
            await self.preparing.begin()
            await self.mcp.connect(self.settings.mcp_servers, self.specs)
            agent = state.host_agent
            announcement = Msg("user", f"Research request: {question}", "user")
            async with MsgHub(
                participants=[agent], announcement=announcement, enable_auto_broadcast=False
            ) as hub:
                transcript = Transcript(run.host_service)
                request = await self._begin(state, hub, transcript, announcement, saved)
                await self.drive.drive(state, request)
        except asyncio.CancelledError:  # stopped at once: the checkpoint allows resume
            result.status = "stopped"
            raise
        except Exception as exc:
            logger.debug("the run failed", exc_info=True)  # the class name: the log only
            result.errors.append(scrub(plain_reason(exc, "the run failed without saying why")))
            raise
        finally:
            warming.close()
            await self._finish(state)
        return result

    async def _begin(
        self,
        state: RunState,
        hub: MsgHub,
        transcript: Transcript,
        announcement: Msg,
        saved: dict[str, Any] | None,
    ) -> Msg:
        """Plan (or take the saved plan back), start the research, and write the first
        checkpoint (or restore the saved one); the Host agent's first request."""
        run, result = state.run, state.result
        if saved is None:
            await transcript.append(announcement)
            plan = result.plan = self.given_plan or await plan_question(
                state.host_agent, result.question, self.brain.offline
            )
            if self.review_plan is not None:
                plan = result.plan = await self.review_plan(plan)
        else:
            await transcript.load()
            plan = result.plan = Plan.from_dict(saved["plan"])
        await save_plan(run.host_service, plan.to_dict())
        self._emit("plan", plan=plan)
        state.planned = self.drive.start(state, hub, transcript, plan)
        await state.planned.research.recall()  # what earlier runs made of the same texts
        if saved is None:
            await self.checkpoints.save(state, phase="planned")
            return research_request(plan, self.settings, self.drive.writer)
        await self.checkpoints.restore(state, saved)
        if saved.get("phase") == "planned":
            return research_request(plan, self.settings, self.drive.writer)
        return resume_request(self.drive.writer)

    async def _finish(self, state: RunState) -> None:
        """Close the run's resources and record what it produced (``run.json``)."""
        result = state.result
        self.stopper.cancel()
        await self.checkpoints.settle()  # written before the run is recorded as ended
        await self._record_experience(state)
        await self.preparing.end()
        cache_errors = self._cache_errors()
        await self.close()
        result.calls = list(state.calls)
        planned = state.planned
        gather(
            result,
            planned.research if planned else None,
            planned.delegator if planned else None,
            self.settings.formats,
        )
        count(result, self.ledger, self.token_ledger, self.model_calls)
        result.errors += self.cleanup_errors + cache_errors
        result.brain = self.brain.spec
        result.approvals = list(self.approval.decisions) if self.approval else []
        result.seconds, result.resumed = state.seconds(), state.resumed
        await save_records(
            state.run.host_service,
            self.ledger,
            None if result.plan is None else result.plan.to_dict(),
            result.record(),
        )
        self._emit("run_end", result=result)

    def _has_skill(self, subagent: str, skill: str) -> bool:
        """Whether the run's subagent ``subagent`` has the skill ``skill``."""
        spec = self.specs.get(subagent)
        return spec is not None and skill in spec.skills

    def _route_by_experience(self) -> None:
        """Hand the run what the experience logs it started with say (none without
        them, or when recording or replaying a tape, which must make the same calls
        whatever the store holds): the sites read in Chromium at once, the search
        sources tried last, and the sites whose pages are read last for a kind of
        question."""
        if self.exact:
            return
        found = routing(
            self.workers.experiences,
            date.today(),
            browser=self._has_skill("browser", BROWSER_SKILL),
            search=self._has_skill("search", SEARCH_SKILL),
        )
        self.workers.browser_sites = found.browser_sites
        self.drive.sources_last = found.sources_last
        self.drive.sites_last = found.sites_last

    def _record_findings(self, memory: SkillMemory, state: RunState) -> None:
        """Record in ``browser-access`` one finding per site whose pages this run read
        only in Chromium, and in ``search-sources`` one per search source and language
        of query for which the source failed or timed out and never answered, and one
        per site and kind of question for which the site's pages answered nothing
        (again once the last such finding is
        :data:`~host.durability.memory.FAILING_SOURCE_DAYS` days old)."""
        today = date.today()
        if self._has_skill("browser", BROWSER_SKILL):
            record_findings(memory, BROWSER_SKILL, browser_findings(state.run.path), today)
        if self._has_skill("search", SEARCH_SKILL):
            failing = source_findings(source_failures(search_calls(state.calls)), today)
            silent = silent_site_findings(silent_sites(part_readings(state)), today)
            record_findings(
                memory, SEARCH_SKILL, failing + silent, today, lambda e: source_expired(e, today)
            )

    async def _record_experience(self, state: RunState) -> None:
        """With experience on, record what the run of ``state`` showed of sites and
        search sources (see :meth:`_record_findings`; not when replaying a recording); a
        failure to record is one of the run's errors, not its end."""
        if not self.settings.experience:
            return
        memory, result = self.workers.memory, state.result
        if memory is None:
            if self.workers.memory_error:
                result.errors.append(f"experience not recorded: {self.workers.memory_error}")
            return
        if self.tape is not None and self.tape.replaying:
            return
        try:
            await asyncio.to_thread(self._record_findings, memory, state)
        except (FsError, ValueError) as exc:
            why = str(exc).removeprefix("Error: ")
            result.errors.append(scrub(f"experience not recorded: {why}"))

    def _cache_errors(self) -> list[str]:
        """What went wrong with the page cache, for the run's errors."""
        if self.page_cache_error:
            return [f"page cache not used: {self.page_cache_error}"]
        errors = self.page_cache.errors if self.page_cache is not None else []
        return [scrub(f"page cache: {error}") for error in errors]

    async def close(self) -> None:
        """Close the browser, every MCP client, the memory store and the page cache; one
        failure does not stop the rest."""
        cache, self.page_cache = self.page_cache, None
        for close in (self.workers.close_memory, *([cache.cache.close] if cache else [])):
            try:
                close()
            except Exception as exc:  # cleanup must reach every resource
                logger.debug("closing failed", exc_info=True)
                self.cleanup_errors.append(scrub(f"closing: {plain_reason(exc)}"))
        browser = self.workers.browser
        for close in ([browser.aclose] if browser is not None else []) + self.mcp.closers():
            try:
                await close()
            except Exception as exc:  # cleanup must reach every resource
                logger.debug("closing failed", exc_info=True)
                self.cleanup_errors.append(scrub(f"closing: {plain_reason(exc)}"))


def approval_of(
    settings: Settings, specs: dict[str, SubAgentSpec], ask: Ask | None
) -> Approval | None:
    """Who decides on the calls of ``settings.approve_tools`` (None when there are none).

    Raises:
        ValueError: a tool to approve is none of the subagents' tools.
    """
    if not settings.approve_tools:
        return None
    check_tools(settings.approve_tools, {n for spec in specs.values() for n in spec.allowlist()})
    return Approval(
        frozenset(settings.approve_tools), ask or default_approver(settings.approve_default)
    )


def search_calls(calls: list[ToolCallRecord]) -> list[tuple[str, str, str]]:
    """``(tool, language of the query, status)`` of each search call of ``calls``."""
    return [
        (call.name, text_language(str(call.input.get("query", ""))), call.status)
        for call in calls
        if call.stage == "search" and call.name.startswith("search_")
    ]


def part_readings(state: RunState) -> list[PartReading]:
    """What the run of ``state`` read for each part of its question, and where each part
    took evidence from (nothing before the run is planned)."""
    if state.planned is None:
        return []
    research = state.planned.research
    return [
        PartReading(
            research.focus[sub.id].kind,
            tuple(research.pages_read(sub.id)),
            frozenset(research.answered_from(sub.id)),
        )
        for sub in research.plan.subquestions
    ]


def secrets_of(settings: Settings, brain: Brain) -> list[str]:
    """What the run masks wherever it writes: the settings' secrets, the tools' keys (a
    replay's placeholders too) and the model's key."""
    keys = [*settings.tools.keys.values(), *settings.models.keys.values()]
    return [*settings.secrets, *keys, *brain.secrets]


__all__ = ["Host", "HostAgent", "RunResult"]
