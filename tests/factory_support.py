"""A Host's worker factory on its own, for tests of the subagents' toolkits and prompts."""

from __future__ import annotations

from host.brains import Brain, ModelCallStats, TokenLedger, make_brain
from host.config import Settings
from host.mcp.client import McpConnections
from host.orchestration.context import HostContext
from host.orchestration.factory import WorkerFactory
from host.orchestration.interrupt import Interrupt
from subagents import SPECS
from subagents.evidence import EvidenceLedger


def worker_factory(settings: Settings, brain: Brain | None = None) -> WorkerFactory:
    """A worker factory with the built-in subagents, ``brain`` (the offline one by
    default), fresh ledgers, no approval, no MCP servers and callbacks that do nothing."""
    context = HostContext(
        settings=settings,
        brain=brain or make_brain("offline"),
        specs=dict(SPECS),
        ledger=EvidenceLedger(),
        tokens=TokenLedger({}),
        model_calls=ModelCallStats(),
        interrupt=Interrupt(),
        approval=None,
        mcp=McpConnections(),
        exact=False,
        emit=lambda kind, **data: None,
        record_call=lambda record: None,
    )
    return WorkerFactory(context)
