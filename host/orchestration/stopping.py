"""How a run stops early: at the user's Ctrl-C, or when a model budget is spent.

The first Ctrl-C (or a spent budget) winds the run down: the tasks in flight get the
grace period, then the Host agent is stopped and the report is written from what was
found; the first Ctrl-C also writes the run's last checkpoint. A second Ctrl-C cancels
the run at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .budget import spent
from .checkpointing import Checkpointer
from .context import HostContext
from .interrupt import wait_until
from .state import RunState


class Stopper:
    """Answers the stop requests of the run under way.

    A stop may be asked for before a run starts, so the stopper is made with the Host
    and is handed each run's state as the run starts (:meth:`start`).

    Args:
        context: what the Host's parts share: the stop requests, the settings (their
            budgets), the token ledger and the event callback.
        checkpoints: the run's checkpoints (the first Ctrl-C writes the last one).

    Attributes:
        state: the run under way (None before a run starts).
        main: the task running the whole run, cancelled at a second Ctrl-C (None before
            a run starts).
    """

    def __init__(self, context: HostContext, *, checkpoints: Checkpointer) -> None:
        self.context, self.checkpoints = context, checkpoints
        self.state: RunState | None = None
        self.main: asyncio.Task[Any] | None = None
        self._winding_down: asyncio.Task[None] | None = None

    def start(self, state: RunState, main: asyncio.Task[Any] | None) -> None:
        """Answer the stop requests of the run of ``state`` from now on; ``main`` runs it."""
        self.state, self.main = state, main

    def on_interrupt(self, count: int) -> None:
        """First request: wind down; second: stop at once."""
        interrupt = self.context.interrupt
        self.context.emit("interrupt", count=count, grace=interrupt.grace)
        if count == 1:
            state = self.state
            if state is not None and state.planned is not None:
                state.result.interrupted_after = state.delegator.started
            self.checkpoints.stop(state)
            self._winding_down = asyncio.ensure_future(self._wind_down())
        elif self.main is not None:
            self.main.cancel()

    def check_budget(self) -> None:
        """After a model call: once a budget is spent, stop the research as a first Ctrl-C
        would, and record which budget ended it."""
        context, state = self.context, self.state
        if context.interrupt.requested or state is None:
            return
        stop = spent(context.tokens, context.settings.max_tokens, context.settings.max_cost)
        if stop is None:
            return
        state.result.budget_stop = stop
        context.interrupt.spend(stop)
        context.emit("budget", stop=stop)
        self._winding_down = asyncio.ensure_future(self._wind_down())

    async def _wind_down(self) -> None:
        """Give the tasks in flight the grace period, then stop the Host agent."""
        state = self.state
        if state is None:
            return
        if state.planned is not None:
            await wait_until(state.delegator.idle, self.context.interrupt.grace)
        await state.host_agent.interrupt()

    def cancel(self) -> None:
        """Stop winding down (the run has ended)."""
        if self._winding_down is not None:
            self._winding_down.cancel()
