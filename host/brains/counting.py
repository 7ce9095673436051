"""Counting tokens by who asked: the Host, a subagent, or a tool of a subagent.

The Host builds one :class:`TokenCounter` per run in front of the resilient model and
hands out views of it: ``for_stage("host")`` to its own agent, ``for_stage("browser")``
to a subagent's agent, and ``for_tools("browser")`` to that subagent's tools (injected as
their ``model``). A tool view enters its calls under ``browser/<tool>``: the
:func:`tool_scope` toolkit middleware names the tool running in the current task. The
stage also names the call's role, whose output limit the request carries
(:mod:`host.brains.output`).
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from collections.abc import AsyncGenerator, Callable
from typing import Any

from .exchange import watch
from .ledger import TokenLedger, usage_of
from .output import speaking_as
from .wrapping import ModelWrapper

_TOOL: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "quartet_running_tool", default=None
)


async def tool_scope(kwargs: dict[str, Any], next_handler: Callable[..., Any]) -> AsyncGenerator:
    """Toolkit middleware: model calls made while a tool runs are entered under its name."""
    token = _TOOL.set(str(kwargs["tool_call"].get("name") or "") or None)
    try:
        async for chunk in await next_handler(**kwargs):
            yield chunk
    finally:
        # A consumer that stops early leaves the generator to be closed later, in another
        # context, where the name was never set: there is nothing to undo there.
        with contextlib.suppress(ValueError):
            _TOOL.reset(token)


class TokenCounter(ModelWrapper):
    """Enters the usage of every call in the run's token ledger, by stage and model.

    Args:
        model: the model to call (the run's resilient model).
        ledger: the run's token ledger.
        label: the model as the ledger and the price table name it (``provider:name``).
        stage: the caller the calls are entered under (``host``, a subagent's name).
        tools_of: for a tool view, the subagent whose tools call; the stage becomes
            ``<subagent>/<tool>`` (``<subagent>/tools`` when no tool is known).
    """

    def __init__(
        self,
        model: Any,
        ledger: TokenLedger,
        label: str,
        stage: str = "host",
        tools_of: str | None = None,
    ) -> None:
        super().__init__(model)
        self.ledger, self.label = ledger, label
        self._stage, self._tools_of = stage, tools_of

    def for_stage(self, stage: str) -> TokenCounter:
        """A view that enters its calls under ``stage``."""
        return TokenCounter(self.model, self.ledger, self.label, stage)

    def for_tools(self, stage: str) -> TokenCounter:
        """A view for ``stage``'s tools: calls are entered under ``stage/<tool>``."""
        return TokenCounter(self.model, self.ledger, self.label, stage, tools_of=stage)

    @property
    def stage(self) -> str:
        """Where the call being made now is entered."""
        if self._tools_of is None:
            return self._stage
        return f"{self._tools_of}/{_TOOL.get() or 'tools'}"

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        stage = self.stage
        with watch() as exchange, speaking_as(stage):
            response = await self.model(*args, **kwargs)
        if inspect.isasyncgen(response):
            return self._counted_stream(response, stage)
        self.ledger.add(stage, self.label, usage_of(response, exchange.usage))
        return response

    async def _counted_stream(self, chunks: AsyncGenerator, stage: str) -> AsyncGenerator:
        """Pass a streamed response through; enter the usage its last chunk reports."""
        last = None
        async for chunk in chunks:
            last = chunk
            yield chunk
        self.ledger.add(stage, self.label, usage_of(last))
