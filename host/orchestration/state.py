"""The run under way: the parts the Host and its helpers share, in one plain object."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.records import ToolCallRecord
    from ..durability.run_folder import RunFolder
    from ..research import Research
    from .delegation import Delegator
    from .host_agent import HostAgent
    from .result import RunResult


@dataclass
class RunState:
    """What the run under way has built so far (None before it is built).

    Attributes:
        run: the run's folder.
        result: what the run produced, filled as it ends.
        research: the research state of the plan.
        delegator: the Host's ``task`` tool and its delegations.
        host_agent: the Host's own agent.
        calls: every tool call of every task, in the order they ended.
        started: when this process started the run (``time.perf_counter``).
        prior_seconds: the time the run took before it was resumed.
        resumed: how many times the run was resumed.
    """

    run: RunFolder | None = None
    result: RunResult | None = None
    research: Research | None = None
    delegator: Delegator | None = None
    host_agent: HostAgent | None = None
    calls: list[ToolCallRecord] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    prior_seconds: float = 0.0
    resumed: int = 0

    def seconds(self) -> float:
        """The run's time so far, the time before a resume included."""
        return self.prior_seconds + time.perf_counter() - self.started
