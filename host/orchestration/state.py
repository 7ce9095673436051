"""The run under way, in two parts made when they exist.

:class:`RunState` is made as the run starts: its folder, its result, the Host's agent and
its clock are there from then on. :class:`Planned` is made once the run is planned: the
research of the plan and the Host's ``task`` tool. (What the Host's parts share for the
Host's whole lifetime is :class:`~.context.HostContext`.)
"""

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


@dataclass(frozen=True)
class Planned:
    """What exists once the run is planned.

    Attributes:
        research: the research state of the plan.
        delegator: the Host's ``task`` tool and its delegations.
    """

    research: Research
    delegator: Delegator


@dataclass
class RunState:
    """The run under way, made as it starts.

    Attributes:
        run: the run's folder.
        result: what the run produced, filled as it goes and as it ends.
        host_agent: the Host's own agent.
        started: when this process started the run (``time.perf_counter``).
        prior_seconds: the time the run took before it was resumed.
        resumed: how many times the run was resumed.
        calls: every tool call of every task, in the order they ended.
        planned: the research of the plan and the ``task`` tool, set once when the
            research starts (None while the run is planning, or if it ended before).
    """

    run: RunFolder
    result: RunResult
    host_agent: HostAgent
    started: float = field(default_factory=time.perf_counter)
    prior_seconds: float = 0.0
    resumed: int = 0
    calls: list[ToolCallRecord] = field(default_factory=list)
    planned: Planned | None = None

    @property
    def research(self) -> Research:
        """The research state of the plan.

        Raises:
            RuntimeError: the run is not planned yet.
        """
        return self._planned().research

    @property
    def delegator(self) -> Delegator:
        """The Host's ``task`` tool and its delegations.

        Raises:
            RuntimeError: the run is not planned yet.
        """
        return self._planned().delegator

    def _planned(self) -> Planned:
        if self.planned is None:
            raise RuntimeError("the run is not planned yet")
        return self.planned

    def seconds(self) -> float:
        """The run's time so far, the time before a resume included."""
        return self.prior_seconds + time.perf_counter() - self.started
