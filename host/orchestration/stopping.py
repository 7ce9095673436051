"""How a run stops early: at the user's Ctrl-C, or when a model budget is spent.

The first Ctrl-C (or a spent budget) winds the run down: the tasks in flight get the
grace period, then the Host agent is stopped and the report is written from what was
found; the first Ctrl-C also writes the run's last checkpoint. A second Ctrl-C cancels
the run at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..brains import TokenLedger
from ..config import Settings
from .budget import spent
from .checkpointing import Checkpointer
from .interrupt import Interrupt, wait_until
from .state import RunState


class Stopper:
    """Answers the stop requests of the run in ``state``.

    Args:
        state: the run under way.
        interrupt: the user's stop requests.
        settings: the run's settings (its budgets).
        tokens: the run's token ledger.
        checkpoints: the run's checkpoints.
        emit: the Host's ``(kind, **data)`` event callback.

    Attributes:
        main: the task running the whole run, cancelled at a second Ctrl-C.
    """

    def __init__(
        self,
        state: RunState,
        interrupt: Interrupt,
        settings: Settings,
        tokens: TokenLedger,
        checkpoints: Checkpointer,
        emit: Callable[..., None],
    ) -> None:
        self.state, self.interrupt, self.settings = state, interrupt, settings
        self.tokens, self.checkpoints, self.emit = tokens, checkpoints, emit
        self.main: asyncio.Task[Any] | None = None
        self._winding_down: asyncio.Task[None] | None = None

    def on_interrupt(self, count: int) -> None:
        """First request: wind down; second: stop at once."""
        self.emit("interrupt", count=count, grace=self.interrupt.grace)
        if count == 1:
            result, delegator = self.state.result, self.state.delegator
            if result is not None and delegator is not None:
                result.interrupted_after = delegator.started
            self.checkpoints.stop()
            self._winding_down = asyncio.ensure_future(self._wind_down())
        elif self.main is not None:
            self.main.cancel()

    def check_budget(self) -> None:
        """After a model call: once a budget is spent, stop the research as a first Ctrl-C
        would, and record which budget ended it."""
        result = self.state.result
        if self.interrupt.requested or result is None:
            return
        stop = spent(self.tokens, self.settings.max_tokens, self.settings.max_cost)
        if stop is None:
            return
        result.budget_stop = stop
        self.interrupt.spend(stop)
        self.emit("budget", stop=stop)
        self._winding_down = asyncio.ensure_future(self._wind_down())

    async def _wind_down(self) -> None:
        """Give the tasks in flight the grace period, then stop the Host agent."""
        delegator, agent = self.state.delegator, self.state.host_agent
        if delegator is not None:
            await wait_until(delegator.idle, self.interrupt.grace)
        if agent is not None:
            await agent.interrupt()

    def cancel(self) -> None:
        """Stop winding down (the run has ended)."""
        if self._winding_down is not None:
            self._winding_down.cancel()
