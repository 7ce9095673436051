"""What the Host's parts share for the Host's whole lifetime, in one immutable object.

The Host makes one :class:`HostContext` as it is made and hands it to each of its parts
(:class:`~.factory.WorkerFactory`, :class:`~.checkpointing.Checkpointer`,
:class:`~.stopping.Stopper`, :class:`~.drive.ResearchDrive`) in place of a list of
arguments. What exists only once a run starts is in :class:`~.state.RunState`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from subagents.evidence import EvidenceLedger
    from subagents.spec import SubAgentSpec

    from ..brains import Brain, ModelCallStats, TokenLedger
    from ..config import Settings
    from ..core.records import ToolCallRecord
    from ..mcp.client import McpConnections
    from .approval import Approval
    from .interrupt import Interrupt


@dataclass(frozen=True, kw_only=True)
class HostContext:
    """The Host's settings, brain, ledgers, controls and callbacks, as its parts share them.

    Frozen: a part can neither replace one of these nor hand its own to the others. (The
    objects held, such as the ledgers, change as the run goes; which objects they are
    does not.)

    Attributes:
        settings: the resolved settings (one task and one tool call at a time when
            ``exact``).
        brain: the model and formatter of the Host and every subagent.
        specs: the subagents by name.
        ledger: the evidence ledger the tools write.
        tokens: the token ledger every model call is counted in.
        model_calls: the statistics of the model calls (retries, failures).
        interrupt: the user's stop requests (and a spent budget's).
        approval: who decides on the calls that need approval (None: no such calls).
        mcp: the MCP clients, whose tools are added to their subagents' toolkits.
        exact: one task and one tool call at a time, so that a recording's replay asks
            the same things in the same order (a recording, or its replay).
        emit: the Host's ``(kind, **data)`` event callback.
        record_call: called with the record of each tool call as it ends.
    """

    settings: Settings
    brain: Brain
    specs: dict[str, SubAgentSpec]
    ledger: EvidenceLedger
    tokens: TokenLedger
    model_calls: ModelCallStats
    interrupt: Interrupt
    approval: Approval | None
    mcp: McpConnections
    exact: bool
    emit: Callable[..., None]
    record_call: Callable[[ToolCallRecord], None]


__all__ = ["HostContext"]
