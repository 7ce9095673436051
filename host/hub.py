"""The Host: four silent ReActAgents in one MsgHub, run stage by stage.

For each stage the Host sends a delegation message (task text plus ``<context>``), lets
the subagent work under its guards, turns the outcome into a ``Msg``, broadcasts it to
every participant and appends both to ``/internal/transcript.jsonl``. A failed or
timed-out stage is recorded and the run goes on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentscope.agent import AgentBase, ReActAgent
from agentscope.memory import InMemoryMemory
from agentscope.message import Msg
from agentscope.pipeline import MsgHub
from agentscope.token import CharTokenCounter

from subagents import PIPELINE_ORDER, SPECS, build_toolkit, check_allowlist
from subagents.browser import BrowserSession, attach_browser_hooks
from subagents.evidence import EvidenceLedger
from subagents.models import scrub

from .brains import Brain
from .brains.offline import OfflinePolicy
from .config import Settings
from .guards import ToolCallRecord, ToolGuard, delegation_scope, evicted_name
from .mcp import attach_mcp_tools
from .run import RunFolder
from .stages import browser_outputs, delegation_msg, search_urls, summarize, written_paths
from .transcript import Transcript, save_evidence, save_run_json

MAX_ITERS = 12


class HostAgent(AgentBase):
    """The Host's seat in the hub: it observes every broadcast and never replies itself."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "Host"
        self.seen: list[Msg] = []

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        if msg is not None:
            self.seen.extend(msg if isinstance(msg, list) else [msg])

    async def reply(self, *args: Any, **kwargs: Any) -> Msg:
        return Msg("Host", "The Host coordinates; it does not answer directly.", "assistant")

    async def handle_interrupt(self, *args: Any, **kwargs: Any) -> Msg:
        return await self.reply()


@dataclass
class StageResult:
    name: str
    seconds: float = 0.0
    tool_calls: int = 0
    failed_calls: int = 0
    error: str | None = None
    reply: str = ""


@dataclass
class RunResult:
    """What a finished run produced, for the CLI summary and for scripts."""

    run: RunFolder
    question: str
    stages: list[StageResult] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    outputs: list[str] = field(default_factory=list)
    citations: int = 0
    seconds: float = 0.0
    tokens: dict[str, int] = field(default_factory=lambda: {"input": 0, "output": 0})
    calls: list[ToolCallRecord] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The content of ``/internal/run.json``."""
        return {
            "id": self.run.id,
            "question": self.question,
            "seconds": round(self.seconds, 3),
            "tokens": self.tokens,
            "stages": [s.__dict__ for s in self.stages],
            "outputs": self.outputs,
            "citations": self.citations,
            "tool_calls": [call.summary() for call in self.calls],
            "context": self.context,
            "errors": [f"{s.name}: {s.error}" for s in self.stages if s.error],
        }


class TokenCounter:
    """Wraps a chat model and adds up the usage it reports."""

    def __init__(self, model: Any, totals: dict[str, int]) -> None:
        self.inner_model, self._totals = model, totals

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner_model, name)

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        response = await self.inner_model(*args, **kwargs)
        usage = getattr(response, "usage", None)
        if usage is not None:
            self._totals["input"] += int(getattr(usage, "input_tokens", 0) or 0)
            self._totals["output"] += int(getattr(usage, "output_tokens", 0) or 0)
        return response


async def run_with_timeout(coro: Any, timeout: float) -> tuple[Any, bool]:
    """Await ``coro``, cancelling it after ``timeout`` seconds.

    Returns the result and whether time ran out. Agents turn cancellation into an
    interrupted reply instead of raising, so expiry is tracked here, not inferred.
    """
    task = asyncio.ensure_future(coro)
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    handle = asyncio.get_running_loop().call_later(timeout, expire)
    try:
        return await task, expired
    except asyncio.CancelledError:
        if not expired:
            raise
        return None, True
    finally:
        handle.cancel()


class Host:
    """Builds the run's subagents and hub and runs Search → Browser → File → Generate.

    Args:
        settings: resolved settings (caps, timeouts, formats, runs folder).
        brain: the model and formatter every subagent uses.
        on_event: optional ``(kind, data)`` callback for progress display.
    """

    def __init__(
        self,
        settings: Settings,
        brain: Brain,
        on_event: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        self.settings, self.brain = settings, brain
        self.on_event = on_event or (lambda kind, data: None)
        self.ledger = EvidenceLedger()
        self.agents: dict[str, ReActAgent] = {}
        self.guards: dict[str, ToolGuard] = {}
        self.host_agent = HostAgent()
        self.browser: Any = None
        self.hook_state: Any = None
        self.counted_model: TokenCounter | None = None
        self.mcp_clients: list[Any] = []
        self.mcp_tools: dict[str, list[str]] = {}
        self.cleanup_errors: list[str] = []

    async def close(self) -> None:
        """Close the browser and every MCP client; one failure does not stop the rest."""
        closers = [self.browser.aclose] if self.browser is not None else []
        closers += [
            c.close for c in reversed(self.mcp_clients) if getattr(c, "is_connected", False)
        ]
        for close in closers:
            try:
                await close()
            except Exception as exc:  # cleanup must reach every resource
                self.cleanup_errors.append(scrub(f"{type(exc).__name__}: {exc}"))

    def _emit(self, kind: str, **data: Any) -> None:
        self.on_event(kind, data)

    def _compression(self) -> ReActAgent.CompressionConfig | None:
        """Long histories are summarised by the model once they pass the threshold.

        The offline brain plans from tool results, not from history, so it needs none.
        """
        if self.brain.offline:
            return None
        return ReActAgent.CompressionConfig(
            enable=True,
            agent_token_counter=CharTokenCounter(),
            trigger_threshold=self.settings.history_chars,
            keep_recent=4,
        )

    def _agent_model(self, name: str, result: RunResult) -> Any:
        """The brain of subagent ``name``: its own offline policy, or the shared counted LLM."""
        if self.brain.offline:
            return OfflinePolicy()
        return self.counted_model

    async def build_agents(self, run: RunFolder, result: RunResult) -> None:
        """One toolkit, guard and silent ReActAgent per built subagent, MCP tools attached."""
        self.counted_model = (
            None if self.brain.offline else TokenCounter(self.brain.model, result.tokens)
        )
        deps: dict[str, Any] = {
            "service": run.subagent_service,
            "evidence": self.ledger,
            "model": self.counted_model,
        }
        self.browser = deps["browser"] = BrowserSession()

        async def evict(tool: str, text: str) -> str:
            path = f"/internal/evicted/{evicted_name(tool, text)}"
            await run.host_service.write_text(path, text)
            return path

        for name in PIPELINE_ORDER:
            spec = SPECS[name]
            toolkit = build_toolkit(name, **{k: v for k, v in deps.items() if k in spec.requires})
            for server in self.settings.mcp_servers:
                if server.subagent == name:
                    client = server.client()
                    if hasattr(client, "connect"):
                        await client.connect()
                    self.mcp_clients.append(client)
                    added = await attach_mcp_tools(toolkit, client, server.tools)
                    self.mcp_tools.setdefault(name, []).extend(added)
            guard = ToolGuard(
                name,
                toolkit,
                cap=self.settings.tool_call_cap,
                evict=evict,
                on_call=lambda rec: self._emit("tool", record=rec),
            )
            model = self._agent_model(name, result)
            if isinstance(model, OfflinePolicy):
                model.bind(guard)
            agent = ReActAgent(
                name=name,
                sys_prompt=f"{spec.sys_prompt}\n\n{run.subagent_service.describe_grants_markdown()}",
                model=model,
                formatter=self.brain.formatter,
                toolkit=toolkit,
                memory=InMemoryMemory(),
                max_iters=MAX_ITERS,
                parallel_tool_calls=True,
                compression_config=self._compression(),
            )
            agent.set_console_output_enabled(False)
            if name == "browser":
                self.hook_state = attach_browser_hooks(agent, self.browser)
            check_allowlist(toolkit, spec, extra=tuple(self.mcp_tools.get(name, ())))
            self.agents[name], self.guards[name] = agent, guard

    async def run_stage(
        self, hub: MsgHub, name: str, context: dict[str, Any], transcript: Transcript
    ) -> tuple[StageResult, list[ToolCallRecord]]:
        """Delegate one stage, broadcast its outcome and return the calls it made."""
        agent, guard = self.agents[name], self.guards[name]
        stage = StageResult(name)
        guard.reset()
        since = len(guard.records)
        if isinstance(agent.model, OfflinePolicy):
            agent.model.start_delegation()
        msg = delegation_msg(name, context)
        await transcript.append(msg)
        self._emit("stage_start", stage=name)
        started = time.perf_counter()
        timeout = self.settings.stage_timeouts.get(name, self.settings.stage_timeout)
        try:
            with delegation_scope(self.settings.depth_cap):
                reply, timed_out = await run_with_timeout(agent(msg), timeout)
            stage.reply = reply.get_text_content() or "" if reply is not None else ""
            if timed_out:
                stage.error = f"timed out after {timeout:g} s"
        except Exception as exc:  # a failed stage must not sink the run
            stage.error = scrub(f"{type(exc).__name__}: {exc}")
        stage.seconds = time.perf_counter() - started
        records = guard.records[since:]
        stage.tool_calls = len(records)
        stage.failed_calls = sum(r.failed for r in records)
        check_allowlist(agent.toolkit, SPECS[name], extra=tuple(self.mcp_tools.get(name, ())))
        outcome = Msg(
            name,
            summarize(name, records, stage.reply)
            + (f"\nStage error: {stage.error}" if stage.error else ""),
            "assistant",
            metadata={
                "stage": name,
                "tool_calls": stage.tool_calls,
                "failed_calls": stage.failed_calls,
                "error": stage.error,
            },
        )
        await hub.broadcast(outcome)
        await transcript.append(outcome)
        self._emit("stage_end", stage=name, result=stage)
        return stage, records

    def carry_forward(
        self, name: str, records: list[ToolCallRecord], context: dict[str, Any]
    ) -> None:
        """Update the shared context with what stage ``name`` produced."""
        if name == "search":
            context["urls"] = search_urls(records)
        elif name == "browser":
            out = browser_outputs(records)
            context["pages"], context["downloads"] = out["pages"], out["downloads"]
            context["evidence_ids"] = [item.id for item in self.ledger.items()]
        elif name == "file":
            context["notes"] = written_paths(records, ("write_file", "edit_file"))
        elif name == "generate":
            written = written_paths(
                records, ("generate_markdown", "generate_html", "generate_pdf", "generate_pptx")
            )
            order = {fmt: i for i, fmt in enumerate(self.settings.formats)}
            context["outputs"] = sorted(
                written, key=lambda p: order.get(p.rsplit(".", 1)[-1], len(order))
            )
            context["citations"] = max(
                (int(r.metadata.get("citations_kept", 0)) for r in records if not r.failed),
                default=0,
            )
        context["paths"] = [*context.get("pages", []), *context.get("notes", [])]

    async def run(self, question: str) -> RunResult:
        """Run the whole pipeline for ``question`` and return what it produced."""
        if not question.strip():
            raise ValueError("the question is empty")
        run = RunFolder.create(self.settings.runs_dir, self.settings.input_dir)
        result = RunResult(run, question)
        transcript = Transcript(run.host_service)
        context: dict[str, Any] = {
            "question": question,
            "formats": list(self.settings.formats),
            "max_pages": self.settings.max_pages,
        }
        self._emit("run_start", run=run)
        started = time.perf_counter()
        try:
            await self.build_agents(run, result)
            announcement = Msg("Host", f"Research request: {question}", "user")
            async with MsgHub(
                participants=[self.host_agent, *self.agents.values()],
                announcement=announcement,
                enable_auto_broadcast=False,
            ) as hub:
                await transcript.append(announcement)
                for name in PIPELINE_ORDER:
                    stage, records = await self.run_stage(hub, name, context, transcript)
                    result.stages.append(stage)
                    result.calls.extend(records)
                    self.carry_forward(name, records, context)
                    await save_evidence(run.host_service, self.ledger)
        finally:
            await self.close()
            result.seconds = time.perf_counter() - started
            result.context = context
            result.outputs = list(context.get("outputs", []))
            result.citations = int(context.get("citations", 0))
            await save_run_json(run.host_service, result.record())
            self._emit("run_end", result=result)
        return result
