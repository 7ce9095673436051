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
from typing import Any

from ..core.records import ToolCallRecord
from ..durability import checkpoint
from ..durability.run_folder import RunFolder
from .context import HostContext
from .result import run_settings
from .state import RunState


class Checkpointer:
    """Writes the checkpoints of a run and restores one into it.

    Each call is handed the state of the run it is for; the checkpointer itself keeps
    only what its checkpoints share (the lock they are written under, and the stop).

    Args:
        context: what the Host's parts share: the settings (what a resume keeps of them
            is saved), the brain's spec (``offline`` or PROVIDER:NAME), the evidence
            ledger, the token ledger, the model call statistics and the event callback.

    Attributes:
        stopping: set at the user's first Ctrl-C: the checkpoint written then is the last.
    """

    def __init__(self, context: HostContext) -> None:
        self.context = context
        self.lock = asyncio.Lock()
        self.stopping = False
        self._at_stop: asyncio.Future[None] | None = None
        self._noting: set[asyncio.Future[None]] = set()

    async def save(self, state: RunState, phase: str = "research", at_stop: bool = False) -> None:
        """Write everything needed to continue the planned run of ``state``; after the
        first Ctrl-C only the checkpoint written at once (``at_stop``) and the plan's are
        written.

        Raises:
            RuntimeError: the run is not planned yet.
        """
        context = self.context
        research, delegator = state.research, state.delegator
        async with self.lock:
            if self.stopping and not at_stop and phase != "planned":
                return
            saved = {
                "phase": phase,
                "question": state.result.question,
                "settings": run_settings(context.settings),
                "brain": context.brain.spec,
                "plan": research.plan.to_dict(),
                "research": research.state(),
                "ledger": checkpoint.ledger_state(context.ledger),
                "delegator": delegator.state(),
                "host_memory": state.host_agent.memory.state_dict(),
                "calls": [c.summary() for c in state.calls],
                "tokens": context.tokens.state(),
                "model_calls": context.model_calls.summary(),
                "seconds": state.seconds(),
                "resumed": state.resumed,
            }
            await checkpoint.save(state.run.host_service, saved)

    def stop(self, state: RunState | None) -> None:
        """At the user's first Ctrl-C: write the last checkpoint of ``state``'s run now
        (none when no run is under way, or while it is still planning)."""
        self.stopping = True
        if state is not None and state.planned is not None:
            self._at_stop = asyncio.ensure_future(self.save(state, at_stop=True))

    def note_stored_soon(self, run: RunFolder) -> None:
        """Note the stored addresses in ``run``'s folder in the background (after a page
        is stored)."""
        noting = asyncio.ensure_future(self._note_stored(run))
        self._noting.add(noting)
        noting.add_done_callback(self._noting.discard)

    async def _note_stored(self, run: RunFolder) -> None:
        """Note the stored addresses now, so a stop before the next checkpoint loses none."""
        async with self.lock:
            await checkpoint.note_stored(run.host_service, self.context.ledger.pages)

    async def settle(self) -> None:
        """Wait for the checkpoint written at the stop and the notes still being written,
        so that they are written before the run is recorded as ended."""
        if self._at_stop is not None:
            await asyncio.gather(self._at_stop, return_exceptions=True)
        if self._noting:
            await asyncio.gather(*self._noting, return_exceptions=True)

    async def restore(self, state: RunState, saved: dict[str, Any]) -> None:
        """Bring the checkpoint ``saved`` back into the planned run of ``state`` (and its
        Host agent's memory) before research continues.

        Raises:
            RuntimeError: the run is not planned yet.
        """
        context = self.context
        research, delegator, agent = state.research, state.delegator, state.host_agent
        checkpoint.restore_ledger(context.ledger, saved["ledger"])
        await checkpoint.recover_stored(state.run.host_service, context.ledger.pages)
        await research.restore(saved["research"])
        delegator.restore(saved["delegator"])
        research.release(delegator.unfinished)
        await research.absorb_pages()  # pages stored by tasks that did not finish
        research.update_plan()
        state.calls = [ToolCallRecord.from_summary(c) for c in saved.get("calls", [])]
        context.tokens.restore(saved.get("tokens") or [])
        context.model_calls.restore(saved.get("model_calls") or {})
        state.prior_seconds = float(saved.get("seconds", 0.0))
        state.resumed = int(saved.get("resumed", 0)) + 1
        memory = saved.get("host_memory")
        if memory:
            agent.memory.load_state_dict(memory)
            checkpoint.patch_dangling(agent.memory.content, delegator.results)
        context.emit("resume", calls=len(state.calls), delegations=len(delegator.delegations))
