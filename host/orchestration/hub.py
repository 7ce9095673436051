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
and ``run.json``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg
from agentscope.pipeline import MsgHub
from agentscope.token import CharTokenCounter
from agentscope.tool import Toolkit

from research.plan import Plan, PlanModel, checked, offline_plan, replaced_by_offline
from research.relevance import Glossary
from subagents import PIPELINE_ORDER, SPECS, build
from subagents.browser import BrowserSession, attach_browser_hooks
from subagents.evidence import EvidenceLedger, PageRegistry
from subagents.secrets import scrub, secret_scope
from subagents.spec import SubAgentSpec, check_allowlist, for_tasks
from subagents.tape import Tape, taping
from subagents.untrusted import UNTRUSTED_RULE

from ..brains import (
    Brain,
    ModelCallError,
    ModelCallStats,
    RetryPolicy,
    TokenCounter,
    TokenLedger,
    resilient_model,
    tool_scope,
)
from ..brains.arguments import RawArguments, repaired
from ..brains.offline import HostPolicy, OfflinePolicy
from ..brains.wrapping import ScrubbedModel
from ..config import Settings
from ..durability import checkpoint
from ..durability.run_folder import AREAS, RunFolder
from ..durability.tape import STREAM, RecordingModel
from ..durability.transcript import Transcript, save_evidence, save_json, save_run_json
from ..mcp.client import attach_mcp_tools, mcp_client
from ..research import Research
from .approval import Approval, Ask, check_tools, default_approver
from .audit import HostAudit
from .budget import check_prices, spent
from .delegation import Delegation, Delegator, task
from .guards import ToolCallRecord, ToolGuard, evicted_name
from .interrupt import Interrupt, Interruptible, RunInterrupted, wait_until
from .task_schema import subagent_lines, task_json_schema
from .workers import WorkerAgent

MAX_ITERS = 12
HOST_ITERS = 40
PLAN_ITERS = 4
PLAN_JSON = "/internal/plan.json"

HOST_PROMPT = """You are the Host of a research team. You never answer from memory: you plan,
delegate with your task tool, judge coverage, and have the report written.

Planning: break the question into 2 to 6 sub-questions that together cover it, each a
complete question naming its subject, each with 2 to 4 short keyword search queries.

Research, with task(description, subagent_type, context), one subagent per task:
{subagents}

1. Read the user's input files first.
2. For every sub-question, find sources, then read the best unread pages the result
   lists. Tasks for different sub-questions can be sent together; they run at the same
   time.
3. Each result reports the coverage of every sub-question. For one that is not answered,
   run another round with the suggested queries or links, while rounds and pages last.
   A refused task means its budget is spent: move on.
4. Have the documents saved read, and again whenever a result lists "downloads_unread".
5. Have the report written. Then reply with a short summary.
"""


def host_prompt(specs: dict[str, SubAgentSpec]) -> str:
    """The Host's system prompt, naming the subagents ``specs`` registers."""
    return HOST_PROMPT.replace("{subagents}", subagent_lines(specs)) + UNTRUSTED_RULE


RESEARCH_REQUEST = """Research the question with your task tool, following the plan below,
then have the report written with a "{writer}" task.

<plan>
{plan}
</plan>

Budgets: at most {rounds} research rounds per sub-question, {pages} pages in all, and
{concurrency} tasks at once."""

RESUME_REQUEST = """The run stopped and is now resumed from its last checkpoint. Every task
whose result is above was finished; a task whose result says "Cancelled" did not finish.
Continue the research with your task tool from where it stopped, following the same plan
and budgets, then have the report written with a "{writer}" task."""


class HostAgent(WorkerAgent):
    """The Host's agent. Hub broadcasts are recorded in :attr:`seen`, not added to its
    memory: every outcome already reaches it as the result of its own task call.

    Compression never summarises the user's requests (the question, the plan, a resume)
    or the latest round of task results.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[Msg] = []

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        if msg is not None:
            self.seen.extend(msg if isinstance(msg, list) else [msg])

    async def _compress_memory_if_needed(self) -> None:
        memory = await self.memory.get_memory(prepend_summary=False)
        self.task_ids |= {m.id for m in memory if m.role == "user"}
        await super()._compress_memory_if_needed()


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
            "evidence_items": self.evidence,
            "requirements": self.requirements,
            "resumed": self.resumed,
            "delegations": [d.summary() for d in self.delegations],
            "outputs": self.outputs,
            "citations": self.citations,
            "citation_check": self.citation_check,
            "tool_calls": [call.summary() for call in self.calls],
            "search_results": self.search_results,
            "failed_sources": self.failed_sources,
            "no_web": self.no_web,
            "failed_stages": self.failed_stages,
            "approvals": self.approvals,
            "host_refusals": self.host_refusals,
            "errors": self.errors,
        }


class Host:
    """Plans a question and researches it with the four subagents.

    Args:
        settings: resolved settings (caps, budgets, timeouts, formats, runs folder, tools).
        brain: the model and formatter of the Host and every subagent.
        on_event: optional ``(kind, data)`` callback for progress display.
        specs: the subagents by name (default: the four built-in ones).
        ask: ``async (stage, tool, arguments) -> Decision``, who decides on the calls of
            ``settings.approve_tools`` (default: the configured default decision, as when
            there is no terminal).
        plan: a plan to research instead of planning (``--plan FILE``).
        tape: a recorded run's tape, to replay it (``settings.record`` records a new one).
        review_plan: ``async (plan) -> plan``, the user's review before research starts.
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
    ) -> None:
        self.settings, self.brain = settings, brain
        self.on_event = on_event or (lambda kind, data: None)
        self.specs = dict(specs or SPECS)
        self.given_plan, self.review_plan = plan, review_plan
        self.tape = tape
        #: one task and one tool call at a time, so that a recording's replay asks the
        #: same things in the same order
        self.exact = settings.record or tape is not None
        if self.exact:
            self.settings = settings = replace(settings, concurrency=1)
        self.approval: Approval | None = None
        if settings.approve_tools:
            known = {name for spec in self.specs.values() for name in spec.allowlist()}
            check_tools(settings.approve_tools, known)
            self.approval = Approval(
                frozenset(settings.approve_tools),
                ask or default_approver(settings.approve_default),
            )
        self.ledger = EvidenceLedger(pages=PageRegistry(budget=settings.max_pages))
        self.browser: BrowserSession | None = None
        self.counted_model: TokenCounter | None = None
        check_prices(settings.max_cost, brain.spec, settings.prices)
        self.token_ledger = TokenLedger(settings.prices)
        self.token_ledger.on_add = self._check_budget
        self.model_calls = ModelCallStats()
        self.mcp_clients: dict[str, list[tuple[Any, tuple[str, ...]]]] = {}
        self.mcp_tools: dict[str, list[str]] = {}
        self.cleanup_errors: list[str] = []
        self.host_agent: HostAgent | None = None
        self.delegator: Delegator | None = None
        self.research: Research | None = None
        self._calls: list[ToolCallRecord] = []
        self._run: RunFolder | None = None
        self._result: RunResult | None = None
        self._checkpoint_lock = asyncio.Lock()
        self._noting: set[asyncio.Future[None]] = set()
        self._started = time.perf_counter()
        self._prior_seconds = 0.0
        self._resumed = 0
        self.interrupt = Interrupt()
        self.interrupt.on_request(self._on_interrupt)
        self._main: asyncio.Task[Any] | None = None
        self._winding_down: asyncio.Task[None] | None = None
        #: Set at the user's first Ctrl-C: the checkpoint written then is the last one.
        self._stopping = False
        self._stop_checkpoint: asyncio.Future[None] | None = None

    @property
    def run_folder(self) -> RunFolder | None:
        """The folder of the run under way (None before it starts)."""
        return self._run

    def _emit(self, kind: str, **data: Any) -> None:
        self.on_event(kind, data)

    # -- building agents -----------------------------------------------------------------

    def _compression(self) -> ReActAgent.CompressionConfig | None:
        """Long histories are summarised by an LLM once they pass the threshold."""
        if self.brain.offline:
            return None
        return ReActAgent.CompressionConfig(
            enable=True,
            agent_token_counter=CharTokenCounter(),
            trigger_threshold=self.settings.history_chars,
            keep_recent=4,
        )

    def _counted_model(self) -> TokenCounter:
        """The brain's model behind a request timeout and retries, counting tokens."""
        policy = RetryPolicy(
            timeout=self.settings.model_timeout, attempts=self.settings.model_attempts
        )
        model = ScrubbedModel(RawArguments(resilient_model(self.brain, policy, self.model_calls)))
        if self.tape is not None and not self.tape.replaying:
            model = RecordingModel(model, self.tape)
        model = Interruptible(model, self.interrupt)
        return TokenCounter(model, self.token_ledger, self.brain.spec)

    def _record_call(self, record: ToolCallRecord) -> None:
        self._calls.append(record)
        self._emit("tool", record=record, task=_task())
        if record.stage == "browser" and not record.failed and self._run is not None:
            noting = asyncio.ensure_future(self._note_stored())
            self._noting.add(noting)
            noting.add_done_callback(self._noting.discard)

    def _announcer(self, stage: str) -> Callable[..., AsyncGenerator[Any, None]]:
        """Toolkit middleware: a ``tool_start`` event as each call starts, so that the
        progress display can say what a task is doing while a slow call runs."""

        async def announce(
            kwargs: dict[str, Any], next_handler: Callable[..., Any]
        ) -> AsyncGenerator[Any, None]:
            call = kwargs["tool_call"]
            arguments = call.get("input")
            self._emit(
                "tool_start",
                stage=stage,
                name=str(call.get("name") or ""),
                input=arguments if isinstance(arguments, dict) else {},
                task=_task(),
            )
            async for chunk in await next_handler(**kwargs):
                yield chunk

        return announce

    async def _note_stored(self) -> None:
        """Note the stored addresses now, so a stop before the next checkpoint loses none."""
        assert self._run is not None
        async with self._checkpoint_lock:
            await checkpoint.note_stored(self._run.host_service, self.ledger.pages)

    async def _connect_mcp(self) -> None:
        """Connect every configured MCP server once for the run and check its tools: a
        listed tool the server lacks, or one that would replace a built-in tool, is a
        configuration error before any research starts."""
        for server in self.settings.mcp_servers:
            spec = self.specs.get(server.subagent)
            if spec is None:
                raise ValueError(f"MCP server {server.name!r}: no subagent {server.subagent!r}")
            clash = sorted(set(server.tools) & set(spec.allowlist()))
            if clash:
                raise ValueError(f"MCP tools {', '.join(clash)} would replace built-in tools")
            client = mcp_client(server)
            self.mcp_clients.setdefault(server.subagent, []).append((client, server.tools))
            if hasattr(client, "connect"):
                await client.connect()
            offered = {tool.name for tool in await client.list_tools()}
            missing = sorted(set(server.tools) - offered)
            if missing:
                raise ValueError(
                    f"MCP server {server.name!r} does not offer {', '.join(missing)}; it offers "
                    f"{', '.join(sorted(offered)) or 'nothing'}"
                )

    async def make_worker(
        self, spec: SubAgentSpec
    ) -> tuple[ReActAgent, ToolGuard, tuple[str, ...]]:
        """A fresh subagent for one delegation: its toolkit, guard and agent."""
        run = self._run
        assert run is not None
        deps: dict[str, Any] = {
            "service": run.subagent_service,
            "evidence": self.ledger,
            "model": (
                self.counted_model.for_tools(spec.name)
                if self.counted_model and not self.interrupt.requested
                else None
            ),
            "settings": self.settings.tools,
            "browser": self.browser,
        }
        wanted = {k: v for k, v in deps.items() if k in spec.requires}
        if "service" in wanted:
            wanted["areas"] = run.area_services
        toolkit = build(spec, wanted)
        toolkit.register_middleware(tool_scope)
        toolkit.register_middleware(self._announcer(spec.name))
        extra: list[str] = []
        for client, names in self.mcp_clients.get(spec.name, []):
            extra += await attach_mcp_tools(toolkit, client, names)
        if extra:
            self.mcp_tools[spec.name] = sorted(set(self.mcp_tools.get(spec.name, [])) | set(extra))

        async def evict(tool: str, text: str) -> str:
            path = f"/internal/evicted/{evicted_name(tool, text)}"
            await run.host_service.write_text(path, scrub(text))
            return path

        # After an interrupt the report is written without a model.
        offline = self.brain.offline or self.interrupt.requested
        guard = ToolGuard(
            spec.name,
            toolkit,
            cap=min(self.settings.tool_call_cap, spec.call_cap or self.settings.tool_call_cap),
            evict=evict,
            on_call=self._record_call,
            stopped=lambda: self.interrupt.blocks,
            approval=self.approval,
        )
        agent = WorkerAgent(
            guard=guard,
            name=spec.name,
            sys_prompt=f"{spec.sys_prompt}\n\n{UNTRUSTED_RULE}\n\n{_grants_prompt(spec, run)}",
            model=(
                OfflinePolicy(spec)
                if offline or self.counted_model is None
                else self.counted_model.for_stage(spec.name)
            ),
            formatter=OpenAIChatFormatter() if offline else self.brain.formatter,
            toolkit=toolkit,
            memory=InMemoryMemory(),
            max_iters=MAX_ITERS,
            parallel_tool_calls=not self.exact,
            compression_config=self._compression(),
        )
        agent.set_console_output_enabled(False)
        if "browser" in spec.requires and self.browser is not None:
            attach_browser_hooks(agent, self.browser)
        check_allowlist(toolkit, spec, extra=tuple(extra))
        return agent, guard, tuple(extra)

    def _make_host_agent(self) -> HostAgent:
        agent = HostAgent(
            name="Host",
            sys_prompt=host_prompt(self.specs),
            model=HostPolicy(self.specs)
            if self.counted_model is None
            else self.counted_model.for_stage("host"),
            formatter=self.brain.formatter,
            toolkit=Toolkit(),
            memory=InMemoryMemory(),
            max_iters=HOST_ITERS,
            parallel_tool_calls=not self.exact,
            compression_config=self._compression(),
        )
        agent.set_console_output_enabled(False)
        return agent

    # -- the run ---------------------------------------------------------------------------

    async def plan(self, agent: HostAgent, question: str) -> Plan:
        """The Host agent's plan (structured output), checked and mended, or the offline
        fallback; see :func:`research.plan.checked` (every fallback keeps its reason)."""
        request = Msg(
            "user",
            "Plan the research for this question: break it into sub-questions with search "
            f"queries.\n\n<question>{question}</question>",
            "user",
        )
        agent.max_iters = PLAN_ITERS
        try:
            reply = await agent(request, structured_model=PlanModel)
            raw = reply.metadata if isinstance(reply.metadata, dict) else None
            if self.brain.offline:  # the offline policy answers with this very plan
                plan = offline_plan(question)
            else:
                cut = repaired(await _finish_arguments(agent))
                plan = checked(raw, question, repaired=cut)
        except Exception as exc:  # a provider failure: plan offline and say so
            cause = str(exc) if isinstance(exc, ModelCallError) else type(exc).__name__
            plan = replaced_by_offline(
                offline_plan(question), scrub(f"the planning call failed ({cause})")
            )
        finally:
            agent.max_iters = HOST_ITERS
        return plan

    async def run(self, question: str) -> RunResult:
        """Plan and research ``question`` in a new run folder; return what the run produced."""
        if not question.strip():
            raise ValueError("the question is empty")
        run = RunFolder.create(self.settings.runs_dir, self.settings.input_dir)
        return await self._go(run, question, None)

    async def resume(self, run: RunFolder) -> RunResult:
        """Continue a stopped run from its last checkpoint, in its own folder.

        Pages and downloads stored before the stop are served from their stored copies;
        tasks that had not finished are run again.
        """
        state = await checkpoint.load(run.host_service)
        return await self._go(run, str(state["question"]), state)

    async def _go(self, run: RunFolder, question: str, state: dict[str, Any] | None) -> RunResult:
        if self.tape is None and self.settings.record:
            self.tape = Tape(run.host_service)
        with taping(self.tape), secret_scope(self._secrets()):
            return await self._taped(run, question, state)

    def _secrets(self) -> list[str]:
        """What the run masks wherever it writes: the settings' secrets, the tools' keys
        (a replay's placeholders too) and the model's key."""
        settings = self.settings
        keys = [*settings.tools.keys.values(), *settings.models.keys.values()]
        return [*settings.secrets, *keys, *self.brain.secrets]

    async def _taped(
        self, run: RunFolder, question: str, state: dict[str, Any] | None
    ) -> RunResult:
        self._run = run
        result = self._result = RunResult(run, question, settings=run_settings(self.settings))
        transcript = Transcript(run.host_service)
        self._emit("run_start", run=run)
        started = self._started = time.perf_counter()
        self._main = asyncio.current_task()
        self.counted_model = None if self.brain.offline else self._counted_model()
        try:
            await self._connect_mcp()
            self.browser = BrowserSession(
                executable=self.settings.tools.browser_path, allow=self.settings.tools.network
            )
            agent = self.host_agent = self._make_host_agent()
            announcement = Msg("user", f"Research request: {question}", "user")
            async with MsgHub(
                participants=[agent], announcement=announcement, enable_auto_broadcast=False
            ) as hub:
                if state is None:
                    await transcript.append(announcement)
                    result.plan = self.given_plan or await self.plan(agent, question)
                    if self.review_plan is not None:
                        result.plan = await self.review_plan(result.plan)
                    request = self._research_request(result.plan)
                else:
                    await transcript.load()
                    result.plan = Plan.from_dict(state["plan"])
                    request = Msg("user", RESUME_REQUEST.format(writer=self._writer()), "user")
                await save_json(run.host_service, PLAN_JSON, result.plan.to_dict())
                self._emit("plan", plan=result.plan)
                self._start_research(agent, hub, transcript, result.plan)
                if state is None:
                    await self._checkpoint(phase="planned")
                elif state.get("phase") == "planned":
                    await self._restore(state, agent, result)
                    request = self._research_request(result.plan)
                else:
                    await self._restore(state, agent, result)
                await self._research(agent, request, result)
        except asyncio.CancelledError:  # stopped at once: the checkpoint allows resume
            result.status = "stopped"
            raise
        except Exception as exc:
            result.errors.append(scrub(f"{type(exc).__name__}: {exc}"))
            raise
        finally:
            await self._finish(result, started)
        return result

    def _writer(self) -> str:
        """The name of the subagent that writes the report."""
        return next((n for n, s in self.specs.items() if s.writes_report), "")

    def _research_request(self, plan: Plan) -> Msg:
        text = RESEARCH_REQUEST.format(
            writer=self._writer(),
            plan=_plan_json(plan),
            rounds=self.settings.max_rounds,
            pages=self.settings.max_pages,
            concurrency=self.settings.concurrency,
        )
        return Msg("user", text, "user")

    def _start_research(
        self, agent: HostAgent, hub: MsgHub, transcript: Transcript, plan: Plan
    ) -> None:
        """The research state and the Host's ``task`` tool for ``plan``."""
        run = self._run
        assert run is not None
        research = self.research = Research(
            plan,
            self.ledger,
            run.host_service,
            self.settings.max_rounds,
            Glossary.of(self.settings.glossary),
        )
        delegator = self.delegator = Delegator(
            {n: for_tasks(self.specs[n]) for n in self.specs},
            research,
            self.make_worker,
            run.host_service,
            hub,
            transcript,
            self.settings,
            self._emit,
        )
        delegator.checkpoint = self._checkpoint
        delegator.interrupt = self.interrupt
        agent.toolkit.register_tool_function(
            task, preset_kwargs={"delegator": delegator}, json_schema=task_json_schema(self.specs)
        )
        HostAudit(agent.toolkit, delegator.refusals, transcript)

    async def _research(self, agent: HostAgent, request: Msg, result: RunResult) -> None:
        delegator = self.delegator
        assert delegator is not None
        try:
            if not self.interrupt.requested:
                await asyncio.ensure_future(agent(request))
            self.interrupt.stop_now_if_asked()
        except RunInterrupted:  # its next request was refused: a budget is spent
            pass
        except Exception as exc:  # the Host brain failed: still write what was found
            result.errors.append(scrub(f"Host: {type(exc).__name__}: {exc}"))
            result.host_failure = _failure(exc)
            if self.research is not None:
                self.research.abandon()
        if set(agent.toolkit.tools) - {"task", "generate_response"}:
            raise RuntimeError(f"the Host's toolkit changed: {sorted(agent.toolkit.tools)}")
        if self.interrupt.requested:
            if self.interrupt.count:
                result.status = "interrupted"
            self.interrupt.reporting = True
            delegator.outputs = []  # a report from before the stop is written again
        if not delegator.outputs:
            await delegator.task("Write the report from the research notes.", self._writer(), {})
        self.interrupt.stop_now_if_asked()

    # -- interrupts --------------------------------------------------------------------------

    def _on_interrupt(self, count: int) -> None:
        """First request: wind down; second: stop at once."""
        self._emit("interrupt", count=count, grace=self.interrupt.grace)
        if count == 1:
            if self._result is not None and self.delegator is not None:
                self._result.interrupted_after = self.delegator.started
            self._stopping = True
            if self.research is not None:
                self._stop_checkpoint = asyncio.ensure_future(self._checkpoint(at_stop=True))
            self._winding_down = asyncio.ensure_future(self._wind_down())
        elif self._main is not None:
            self._main.cancel()

    def _check_budget(self) -> None:
        """After a model call: once a budget is spent, stop the research as a first Ctrl-C
        would, and record which budget ended it."""
        if self.interrupt.requested or self._result is None:
            return
        stop = spent(self.token_ledger, self.settings.max_tokens, self.settings.max_cost)
        if stop is None:
            return
        self._result.budget_stop = stop
        self.interrupt.spend(stop)
        self._emit("budget", stop=stop)
        self._winding_down = asyncio.ensure_future(self._wind_down())

    async def _wind_down(self) -> None:
        """Give the tasks in flight the grace period, then stop the Host agent."""
        delegator, agent = self.delegator, self.host_agent
        if delegator is not None:
            await wait_until(delegator.idle, self.interrupt.grace)
        if agent is not None:
            await agent.interrupt()

    # -- checkpoints -----------------------------------------------------------------------

    async def _checkpoint(self, phase: str = "research", at_stop: bool = False) -> None:
        """Write everything needed to continue this run (see :mod:`host.durability.checkpoint`).

        The user's first Ctrl-C writes one at once (``at_stop``), with the tasks in flight
        recorded as running, and it stays the last: the tasks cut short afterwards and
        the report written from what was found are not research that a resume should
        take as done, so ``quartet resume`` continues the research from the stop. (A
        run stopped during planning still writes its plan's checkpoint.)
        """
        run, research, delegator = self._run, self.research, self.delegator
        assert run is not None and research is not None and delegator is not None
        assert self.host_agent is not None and self._result is not None
        async with self._checkpoint_lock:
            if self._stopping and not at_stop and phase != "planned":
                return
            state = {
                "phase": phase,
                "question": self._result.question,
                "settings": run_settings(self.settings),
                "brain": self.brain.spec,
                "plan": research.plan.to_dict(),
                "research": research.state(),
                "ledger": checkpoint.ledger_state(self.ledger),
                "delegator": delegator.state(),
                "host_memory": self.host_agent.memory.state_dict(),
                "calls": [c.summary() for c in self._calls],
                "tokens": self.token_ledger.state(),
                "model_calls": self.model_calls.summary(),
                "seconds": self._prior_seconds + time.perf_counter() - self._started,
                "resumed": self._resumed,
            }
            await checkpoint.save(run.host_service, state)

    async def _restore(self, state: dict[str, Any], agent: HostAgent, result: RunResult) -> None:
        """Bring a checkpoint's state back into this Host before research continues."""
        research, delegator = self.research, self.delegator
        assert research is not None and delegator is not None
        run = self._run
        assert run is not None
        checkpoint.restore_ledger(self.ledger, state["ledger"])
        await checkpoint.recover_stored(run.host_service, self.ledger.pages)
        await research.restore(state["research"])
        delegator.restore(state["delegator"])
        research.release(delegator.unfinished)
        await research.absorb_pages()  # pages stored by tasks that did not finish
        research.update_plan()
        self._calls = [ToolCallRecord.from_summary(c) for c in state.get("calls", [])]
        self.token_ledger.restore(state.get("tokens") or [])
        self.model_calls.restore(state.get("model_calls") or {})
        self._prior_seconds = float(state.get("seconds", 0.0))
        self._resumed = int(state.get("resumed", 0)) + 1
        memory = state.get("host_memory")
        if memory:
            agent.memory.load_state_dict(memory)
            checkpoint.patch_dangling(agent.memory.content, delegator.results)
        self._emit("resume", calls=len(self._calls), delegations=len(delegator.delegations))

    async def _finish(self, result: RunResult, started: float) -> None:
        if self._winding_down is not None:
            self._winding_down.cancel()
        if self._stop_checkpoint is not None:  # written before the run is recorded as ended
            await asyncio.gather(self._stop_checkpoint, return_exceptions=True)
        if self._noting:
            await asyncio.gather(*self._noting, return_exceptions=True)
        await self.close()
        run = self._run
        assert run is not None
        if self.research is not None:
            self.research.finished |= {s.id for s in self.research.plan.subquestions}
            self.research.update_plan()
            result.requirements = list(self.research.requirements)
            result.no_web = self.research.no_web()
        if self.delegator is not None:
            result.delegations = list(self.delegator.delegations)
            result.outputs = _ordered(self.delegator.outputs, self.settings.formats)
            result.citations = self.delegator.citations
            result.citation_check = dict(self.delegator.citation_check)
            result.host_refusals = list(self.delegator.refusals)
            result.errors += [
                f"{d.subagent} ({d.id}): {d.error}" for d in self.delegator.delegations if d.error
            ]
        result.errors += self.cleanup_errors
        result.calls = list(self._calls)
        result.brain = self.brain.spec
        result.search_results = self._search_results()
        result.approvals = list(self.approval.decisions) if self.approval else []
        result.tokens = self.token_ledger.summary()
        result.model_calls = self.model_calls.summary()
        result.pages_read = self.ledger.pages.pages
        result.evidence = len(self.ledger)
        result.seconds = self._prior_seconds + time.perf_counter() - started
        result.resumed = self._resumed
        await save_evidence(run.host_service, self.ledger)
        if result.plan is not None:
            await save_json(run.host_service, PLAN_JSON, result.plan.to_dict())
        await save_run_json(run.host_service, result.record())
        self._emit("run_end", result=result)

    def _search_results(self) -> dict[str, list[dict[str, Any]]]:
        """Each search source's result lists, then its failed calls."""
        found: dict[str, list[dict[str, Any]]] = {}
        for row in self.research.result_lists if self.research else []:
            found.setdefault(row["source"], []).append(
                {k: v for k, v in row.items() if k != "source"}
            )
        for call in self._calls:
            if call.stage == "search" and call.name.startswith("search_") and call.failed:
                entry = {"query": call.input.get("query", ""), "error": call.text[:300]}
                found.setdefault(call.name, []).append(entry)
        return found

    async def close(self) -> None:
        """Close the browser and every MCP client; one failure does not stop the rest."""
        closers = [self.browser.aclose] if self.browser is not None else []
        for clients in self.mcp_clients.values():
            closers += [c.close for c, _ in reversed(clients) if getattr(c, "is_connected", False)]
        for close in closers:
            try:
                await close()
            except Exception as exc:  # cleanup must reach every resource
                self.cleanup_errors.append(scrub(f"{type(exc).__name__}: {exc}"))


def quartet_version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("quartet")
    except PackageNotFoundError:
        return "0+unknown"


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


async def _finish_arguments(agent: HostAgent) -> str | None:
    """The arguments text of the agent's last structured-output call, as the provider
    sent it (None when none was kept)."""
    for msg in reversed(await agent.memory.get_memory(prepend_summary=False)):
        for block in reversed(msg.get_content_blocks("tool_use")):
            if block.get("name") == agent.finish_function_name:
                raw = block.get("raw_input")
                return raw if isinstance(raw, str) else None
    return None


def _task() -> str:
    """The id of the task whose worker is running (``d3``), as its model stream names it."""
    return STREAM.get().split("/", 1)[0]


def _plan_json(plan: Plan) -> str:
    import json

    subs = [{"id": s.id, "text": s.text, "queries": s.queries} for s in plan.subquestions]
    return json.dumps({"question": plan.question, "subquestions": subs}, ensure_ascii=False)


def _grants_prompt(spec: SubAgentSpec, run: RunFolder) -> str:
    """What a subagent may read and write, and which of its tools write the read-only areas."""
    lines = [run.subagent_service.describe_grants_markdown()]
    lines += [
        f"- `{AREAS[area]}` is written by {tool} only."
        for group in spec.groups
        for tool, area in group.areas.items()
        if area in AREAS
    ]
    return "\n".join(lines)


def _ordered(outputs: list[str], formats: tuple[str, ...]) -> list[str]:
    """Report paths in the order the formats were asked for."""
    order = {fmt: i for i, fmt in enumerate(formats)}
    return sorted(outputs, key=lambda p: order.get(p.rsplit(".", 1)[-1], len(order)))


__all__ = ["PIPELINE_ORDER", "Host", "HostAgent", "RunResult", "TokenCounter"]


#: The Host's failure in run.json's ``failed_stages``, by the cause of a model call's end.
HOST_FAILURES = {
    "empty": "empty reply",
    "truncated": "reply cut at the output limit",
}


def _failure(exc: BaseException) -> str:
    """Why the Host stopped, in a few words (``empty reply``, ``http_503``)."""
    if isinstance(exc, ModelCallError):
        return HOST_FAILURES.get(exc.fault.cause, exc.fault.cause)
    return type(exc).__name__
