"""The research of a plan: the research state, the Host's ``task`` tool, and the Host
agent driven until a report is written (also after a stop, a spent budget or the Host's
own model failing: the report is written from what was found)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

from agentscope.message import Msg
from agentscope.pipeline import MsgHub

from research.plan import Plan
from research.question import Glossary
from subagents.evidence import EvidenceLedger
from subagents.secrets import scrub
from subagents.spec import SubAgentSpec, for_tasks

from ..config import Settings
from ..durability.transcript import Transcript
from ..research import Research
from .audit import HostAudit
from .delegation import Delegator, task
from .factory import Worker
from .host_agent import HostAgent
from .interrupt import Interrupt, RunInterrupted
from .result import RunResult, failure_of
from .state import RunState
from .task_schema import task_json_schema


class ResearchDrive:
    """Starts the research of the run in ``state`` and drives the Host agent through it.

    Args:
        state: the run under way; its research state and delegator are set here.
        specs: the subagents by name.
        settings: the run's settings (budgets, glossary).
        ledger: the run's evidence ledger.
        interrupt: the user's stop requests.
        make_worker: builds a fresh subagent for a delegation.
        checkpoint: writes the run's checkpoint after a task.
        emit: the Host's ``(kind, **data)`` event callback.

    Attributes:
        sources_last: the search tools tried last, by language of query (what the
            experience logs say; set by the Host, empty by default).
    """

    def __init__(
        self,
        state: RunState,
        specs: dict[str, SubAgentSpec],
        settings: Settings,
        ledger: EvidenceLedger,
        interrupt: Interrupt,
        make_worker: Callable[[SubAgentSpec], Awaitable[Worker]],
        checkpoint: Callable[..., Awaitable[None]],
        emit: Callable[..., None],
    ) -> None:
        self.state, self.specs, self.settings, self.ledger = state, specs, settings, ledger
        self.interrupt, self.make_worker = interrupt, make_worker
        self.checkpoint, self.emit = checkpoint, emit
        self.sources_last: Mapping[str, frozenset[str]] = {}

    @property
    def writer(self) -> str:
        """The name of the subagent that writes the report."""
        return next((n for n, s in self.specs.items() if s.writes_report), "")

    def start(self, agent: HostAgent, hub: MsgHub, transcript: Transcript, plan: Plan) -> None:
        """The research state and the Host's ``task`` tool for ``plan``."""
        run = self.state.run
        assert run is not None
        research = self.state.research = Research(
            plan,
            self.ledger,
            run.host_service,
            self.settings.max_rounds,
            Glossary.of(self.settings.glossary),
        )
        delegator = self.state.delegator = Delegator(
            {n: for_tasks(self.specs[n]) for n in self.specs},
            research,
            self.make_worker,
            run.host_service,
            hub,
            transcript,
            self.settings,
            self.emit,
        )
        delegator.checkpoint = self.checkpoint
        delegator.interrupt = self.interrupt
        delegator.sources_last = self.sources_last
        agent.toolkit.register_tool_function(
            task, preset_kwargs={"delegator": delegator}, json_schema=task_json_schema(self.specs)
        )
        HostAudit(agent.toolkit, delegator.refusals, transcript)

    async def drive(self, agent: HostAgent, request: Msg, result: RunResult) -> None:
        """Let the Host agent research ``request``; then have the report written if it was
        not (again after a stop: a report from before it is written anew)."""
        delegator = self.state.delegator
        assert delegator is not None
        try:
            if not self.interrupt.requested:
                await asyncio.ensure_future(agent(request))
            self.interrupt.stop_now_if_asked()
        except RunInterrupted:  # its next request was refused: a budget is spent
            pass
        except Exception as exc:  # the Host brain failed: still write what was found
            result.errors.append(scrub(f"Host: {type(exc).__name__}: {exc}"))
            result.host_failure = failure_of(exc)
            if self.state.research is not None:
                self.state.research.abandon()
        if set(agent.toolkit.tools) - {"task", "generate_response"}:
            raise RuntimeError(f"the Host's toolkit changed: {sorted(agent.toolkit.tools)}")
        if self.interrupt.requested:  # a stop or a spent budget: the rest was never searched
            if self.state.research is not None:
                self.state.research.abandon()
            if self.interrupt.count:
                result.status = "interrupted"
            self.interrupt.reporting = True
            delegator.outputs = []  # a report from before the stop is written again
        if not delegator.outputs:
            await delegator.task("Write the report from the research notes.", self.writer, {})
        self.interrupt.stop_now_if_asked()
