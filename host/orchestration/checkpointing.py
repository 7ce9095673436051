"""The run's checkpoints: written after the plan and after every task, and brought back
when a stopped run is resumed (the state itself: :mod:`host.durability.checkpoint`).

The user's first Ctrl-C writes one at once, with the tasks in flight recorded as running,
and it stays the last: the tasks cut short afterwards and the report written from what
was found are not research that a resume should take as done, so ``quartet resume``
continues the research from the stop. (A run stopped during planning still writes its
plan's checkpoint.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from subagents.evidence import EvidenceLedger

from ..brains import ModelCallStats, TokenLedger
from ..config import Settings
from ..core.records import ToolCallRecord
from ..durability import checkpoint
from .host_agent import HostAgent
from .result import run_settings
from .state import RunState


class Checkpointer:
    """Writes the checkpoints of the run in ``state`` and restores one into it.

    Args:
        state: the run under way.
        settings: the run's settings (what a resume keeps of them is saved).
        brain: the brain's spec (``offline`` or PROVIDER:NAME).
        ledger: the run's evidence ledger.
        tokens: the run's token ledger.
        model_calls: the run's model call statistics.
        emit: the Host's ``(kind, **data)`` event callback.

    Attributes:
        stopping: set at the user's first Ctrl-C: the checkpoint written then is the last.
    """

    def __init__(
        self,
        state: RunState,
        settings: Settings,
        brain: str,
        ledger: EvidenceLedger,
        tokens: TokenLedger,
        model_calls: ModelCallStats,
        emit: Callable[..., None],
    ) -> None:
        self.state, self.settings, self.brain = state, settings, brain
        self.ledger, self.tokens, self.model_calls, self.emit = ledger, tokens, model_calls, emit
        self.lock = asyncio.Lock()
        self.stopping = False
        self._at_stop: asyncio.Future[None] | None = None
        self._noting: set[asyncio.Future[None]] = set()

    async def save(self, phase: str = "research", at_stop: bool = False) -> None:
        """Write everything needed to continue this run; after the first Ctrl-C only the
        checkpoint written at once (``at_stop``) and the plan's are written."""
        state = self.state
        run, research, delegator = state.run, state.research, state.delegator
        assert run is not None and research is not None and delegator is not None
        assert state.host_agent is not None and state.result is not None
        async with self.lock:
            if self.stopping and not at_stop and phase != "planned":
                return
            saved = {
                "phase": phase,
                "question": state.result.question,
                "settings": run_settings(self.settings),
                "brain": self.brain,
                "plan": research.plan.to_dict(),
                "research": research.state(),
                "ledger": checkpoint.ledger_state(self.ledger),
                "delegator": delegator.state(),
                "host_memory": state.host_agent.memory.state_dict(),
                "calls": [c.summary() for c in state.calls],
                "tokens": self.tokens.state(),
                "model_calls": self.model_calls.summary(),
                "seconds": state.seconds(),
                "resumed": state.resumed,
            }
            await checkpoint.save(run.host_service, saved)

    def stop(self) -> None:
        """At the user's first Ctrl-C: write the last checkpoint now."""
        self.stopping = True
        if self.state.research is not None:
            self._at_stop = asyncio.ensure_future(self.save(at_stop=True))

    def note_stored_soon(self) -> None:
        """Note the stored addresses in the background (after a page is stored)."""
        noting = asyncio.ensure_future(self._note_stored())
        self._noting.add(noting)
        noting.add_done_callback(self._noting.discard)

    async def _note_stored(self) -> None:
        """Note the stored addresses now, so a stop before the next checkpoint loses none."""
        assert self.state.run is not None
        async with self.lock:
            await checkpoint.note_stored(self.state.run.host_service, self.ledger.pages)

    async def settle(self) -> None:
        """Wait for the checkpoint written at the stop and the notes still being written,
        so that they are written before the run is recorded as ended."""
        if self._at_stop is not None:
            await asyncio.gather(self._at_stop, return_exceptions=True)
        if self._noting:
            await asyncio.gather(*self._noting, return_exceptions=True)

    async def restore(self, saved: dict[str, Any], agent: HostAgent) -> None:
        """Bring the checkpoint ``saved`` back into the run before research continues."""
        state = self.state
        research, delegator, run = state.research, state.delegator, state.run
        assert research is not None and delegator is not None and run is not None
        checkpoint.restore_ledger(self.ledger, saved["ledger"])
        await checkpoint.recover_stored(run.host_service, self.ledger.pages)
        await research.restore(saved["research"])
        delegator.restore(saved["delegator"])
        research.release(delegator.unfinished)
        await research.absorb_pages()  # pages stored by tasks that did not finish
        research.update_plan()
        state.calls = [ToolCallRecord.from_summary(c) for c in saved.get("calls", [])]
        self.tokens.restore(saved.get("tokens") or [])
        self.model_calls.restore(saved.get("model_calls") or {})
        state.prior_seconds = float(saved.get("seconds", 0.0))
        state.resumed = int(saved.get("resumed", 0)) + 1
        memory = saved.get("host_memory")
        if memory:
            agent.memory.load_state_dict(memory)
            checkpoint.patch_dangling(agent.memory.content, delegator.results)
        self.emit("resume", calls=len(state.calls), delegations=len(delegator.delegations))
