"""The user's requests to stop a run (Ctrl-C).

The first request stops the research: no new task, tool call or model request starts;
the tasks in flight get :attr:`Interrupt.grace` seconds to finish; then the report is
written from what exists, without a model, and marked as interrupted (exit status 130).
The second request stops at once; the last checkpoint still allows ``quartet resume``.

A spent budget (``--max-tokens``, ``--max-cost``) stops the research the same way as a
first request, without counting as one: the run is not marked as interrupted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..brains.wrapping import ModelWrapper
from .budget import NAMES

T = TypeVar("T")

#: Seconds the tasks in flight get after the first request.
GRACE = 5.0


class RunInterrupted(RuntimeError):
    """A call that was not started because the user interrupted the run."""


class Interrupt:
    """How many times the user asked to stop, and what that allows.

    Args:
        grace: seconds the tasks in flight get after the first request.
    """

    def __init__(self, grace: float = GRACE) -> None:
        self.grace = grace
        self.count = 0
        self.reporting = False
        #: the budget that stopped the research (``{"budget", "limit", "used"}``), if any
        self.budget: dict[str, Any] | None = None
        self._listeners: list[Callable[[int], None]] = []

    @property
    def requested(self) -> bool:
        """The research is stopping: the user asked (once or more), or a budget is spent."""
        return self.count > 0 or self.budget is not None

    def spend(self, budget: dict[str, Any]) -> None:
        """Stop the research because ``budget`` is spent (see :mod:`host.orchestration.budget`)."""
        self.budget = budget

    @property
    def blocks(self) -> bool:
        """New research calls are refused: stopping, and not writing the final report."""
        return self.requested and not self.reporting

    @property
    def at_once(self) -> bool:
        """The user asked twice: stop now."""
        return self.count > 1

    def stop_now_if_asked(self) -> None:
        """Raise CancelledError after a second request.

        Agents turn a cancellation into an "interrupted" reply instead of raising it, so
        the code that awaited them checks here and carries the stop on upwards.
        """
        if self.at_once:
            raise asyncio.CancelledError

    def request(self) -> None:
        """One more request to stop (a signal handler calls this)."""
        self.count += 1
        for listener in list(self._listeners):
            listener(self.count)

    def on_request(self, listener: Callable[[int], None]) -> None:
        """Call ``listener(count)`` on every request."""
        self._listeners.append(listener)

    def check(self, what: str) -> None:
        """Raise :class:`RunInterrupted` instead of starting ``what`` once stopping."""
        if self.count:
            raise RunInterrupted(f"the run was interrupted, so {what} was not started")
        if self.budget is not None:
            name = NAMES.get(self.budget["budget"], self.budget["budget"])
            raise RunInterrupted(f"the run's {name} budget is spent, so {what} was not started")


class Interruptible(ModelWrapper):
    """A model that starts no request once the user has interrupted the run."""

    def __init__(self, model: Any, interrupt: Interrupt) -> None:
        super().__init__(model)
        self.interrupt = interrupt

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.interrupt.check("a model request")
        return await self.model(*args, **kwargs)


async def replied(reply: Awaitable[T]) -> T:
    """Await an agent's ``reply``, raising a cancel of the caller that came while it
    worked: an agentscope agent turns a cancel into an interrupted reply instead of
    raising it, so without this the user's stop at once would be lost with the reply
    and the run would go on."""
    caller = asyncio.current_task()
    asked = caller.cancelling() if caller is not None else 0
    result = await reply
    if caller is not None and caller.cancelling() > asked:
        raise asyncio.CancelledError
    return result


async def wait_until(event: asyncio.Event, seconds: float) -> bool:
    """Wait for ``event`` at most ``seconds``; whether it was set."""
    try:
        async with asyncio.timeout(seconds):  # wait_for may drop a cancel on Python 3.11
            await event.wait()
    except TimeoutError:
        return False
    return True
