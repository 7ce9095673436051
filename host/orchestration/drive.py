"""The research of a plan: the research state, the Host's ``task`` tool, and the Host
agent driven until a report is written (also after a stop, a spent budget or the Host's
own model failing: the report is written from what was found)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping

from agentscope.message import Msg
from agentscope.pipeline import MsgHub

from research.plan import Plan
from research.question import Glossary
from subagents.failures import plain_reason
from subagents.secrets import scrub
from subagents.spec import SubAgentSpec, for_tasks

from ..durability.transcript import Transcript
from ..research import Research
from .audit import HostAudit
from .context import HostContext
from .delegation import Delegator, task
from .factory import Worker
from .interrupt import RunInterrupted
from .result import failure_of
from .state import Planned, RunState
from .task_schema import task_json_schema

logger = logging.getLogger(__name__)


class ResearchDrive:
    """Starts the research of a planned run and drives the Host agent through it.

    Args:
        context: what the Host's parts share: the subagents by name, the settings
            (budgets, glossary), the evidence ledger, the stop requests and the event
            callback.
        make_worker: builds a fresh subagent for a delegation.
        checkpoint: ``async (state)``, writes the checkpoint of the run of ``state``
            after a task.

    Attributes:
        sources_last: the search tools tried last, by language of query (what the
            experience logs say; set by the Host, empty by default).
        sites_last: the sites whose pages are read after the other candidates for a
            part, by the kind of question the part asks (what the experience logs say;
            set by the Host, empty by default).
    """

    def __init__(
        self,
        context: HostContext,
        *,
        make_worker: Callable[[SubAgentSpec], Awaitable[Worker]],
        checkpoint: Callable[[RunState], Awaitable[None]],
    ) -> None:
        self.context, self.make_worker, self.checkpoint = context, make_worker, checkpoint
        self.sources_last: Mapping[str, frozenset[str]] = {}
        self.sites_last: Mapping[str, frozenset[str]] = {}

    @property
    def writer(self) -> str:
        """The name of the subagent that writes the report."""
        return next((n for n, s in self.context.specs.items() if s.writes_report), "")

    def start(self, state: RunState, hub: MsgHub, transcript: Transcript, plan: Plan) -> Planned:
        """The research state and the Host's ``task`` tool for ``plan``, the plan of
        ``state``'s run, with the ``task`` tool registered in the Host agent's toolkit.

        Returns:
            What exists once the run is planned, for the run's
            :attr:`~.state.RunState.planned` (the ``task`` tool's checkpoints read it
            there).
        """
        context, run = self.context, state.run
        settings, specs = context.settings, context.specs
        research = Research(
            plan,
            context.ledger,
            run.host_service,
            settings.max_rounds,
            Glossary.of(settings.glossary),
        )
        research.read_last = self.sites_last
        delegator = Delegator(
            {n: for_tasks(specs[n]) for n in specs},
            research,
            self.make_worker,
            run.host_service,
            hub,
            transcript,
            settings,
            context.emit,
        )
        delegator.checkpoint = lambda: self.checkpoint(state)
        delegator.interrupt = context.interrupt
        delegator.sources_last = self.sources_last
        agent = state.host_agent
        agent.toolkit.register_tool_function(
            task, preset_kwargs={"delegator": delegator}, json_schema=task_json_schema(specs)
        )
        HostAudit(agent.toolkit, delegator.refusals, transcript)
        return Planned(research, delegator)

    async def drive(self, state: RunState, request: Msg) -> None:
        """Let the Host agent of the planned run of ``state`` research ``request``; then
        have the report written if it was not (again after a stop: a report from before
        it is written anew)."""
        interrupt, agent, result = self.context.interrupt, state.host_agent, state.result
        research, delegator = state.research, state.delegator
        try:
            if not interrupt.requested:
                await asyncio.ensure_future(agent(request))
            interrupt.stop_now_if_asked()
        except RunInterrupted:  # its next request was refused: a budget is spent
            pass
        except Exception as exc:  # the Host brain failed: still write what was found
            logger.debug("the Host failed", exc_info=True)  # the class name: the log only
            result.errors.append(scrub(f"Host: {plain_reason(exc)}"))
            result.host_failure = failure_of(exc)
            research.abandon()
        if set(agent.toolkit.tools) - {"task", "generate_response"}:
            raise RuntimeError(f"the Host's toolkit changed: {sorted(agent.toolkit.tools)}")
        if interrupt.requested:  # a stop or a spent budget: the rest was never searched
            research.abandon()
            if interrupt.count:
                result.status = "interrupted"
            interrupt.reporting = True
            delegator.outputs = []  # a report from before the stop is written again
        if not delegator.outputs:
            await delegator.task("Write the report from the research notes.", self.writer, {})
        interrupt.stop_now_if_asked()
