"""The agents of a run: a fresh subagent for each delegation, and the Host's own agent.

A subagent gets the toolkit its spec registers (and the tools of its MCP servers), the
run's guard around it, and a model: the brain's, counted and behind a timeout and
retries, or the offline policy (always after an interrupt, when the report is written
without a model). Its system prompt (:func:`worker_prompt`) ends with its skills: its
spec's and the user's (``[quartet.skills]``), the bodies of those relevant to the run's
question in full. The Host's own agent gets no skills.

With experience on (``experience`` in ``quartet.toml``), each subagent is also given
the meta tool ``evolve_skill``, bound to its own skills and writing through the run's
memory store (:mod:`host.durability.memory`), and its prompt ends with a note on when to
use it; with experience off, every toolkit is exactly its spec's allowlist. With
experience on, a subagent's prompt also carries what its skills' experience logs held
when the run started (:func:`subagents.experience.recall_prompt`, at most
:data:`~subagents.experience.MAX_RECALL_CHARS` characters), after its skills.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.memory import InMemoryMemory
from agentscope.token import CharTokenCounter
from agentscope.tool import Toolkit

from fs_service import FsError
from subagents import build
from subagents.browser import BrowserSession, attach_browser_hooks
from subagents.evolve import EVOLVE_SKILL, META_GROUP, evolve_skill
from subagents.experience import Evolved, recall_prompt
from subagents.generate.report import Colophon
from subagents.secrets import scrub
from subagents.settings import ToolSettings
from subagents.skills import Skill, bound_skills, skills_prompt
from subagents.spec import SubAgentSpec, check_allowlist
from subagents.tape import Tape
from subagents.untrusted import UNTRUSTED_RULE

from ..brains import RetryPolicy, TokenCounter, resilient_model, tool_scope
from ..brains.arguments import RawArguments
from ..brains.offline import HostPolicy, OfflinePolicy
from ..brains.tape import STREAM, RecordingModel
from ..brains.wrapping import ScrubbedModel
from ..durability.memory import SkillMemory, open_memory, recall_logs
from ..durability.run_folder import AREAS, RunFolder
from .context import HostContext
from .guards import ToolGuard, evicted_name
from .host_agent import HOST_ITERS, HostAgent, host_prompt
from .interrupt import Interruptible
from .workers import WorkerAgent

MAX_ITERS = 12

#: A subagent's agent, its guard and the names of the tools it was given beyond its
#: allowlist: the meta tool ``evolve_skill`` (with experience on), then its MCP tools.
Worker = tuple[ReActAgent, ToolGuard, tuple[str, ...]]


class WorkerFactory:
    """Builds the agents of one run.

    Args:
        context: what the Host's parts share: the settings, the brain (the model and
            formatter of every agent), the evidence ledger the tools write, the stop
            requests (after one, agents think offline), the approvals, the MCP clients
            whose tools join their subagents' toolkits, whether calls go one at a time
            (``exact``), the event callback, and the callback each tool call's record is
            handed to as it ends.

    Attributes:
        run: the run's folder (set when the run starts).
        question: the run's question (set when the run starts), which decides the skills
            whose bodies the subagents' prompts carry.
        browser: the run's browser (set when the run starts).
        counted_model: the brain's model as the agents call it; None offline.
        memory: the memory store the meta tool writes (opened when the run starts with
            experience on; None otherwise).
        memory_error: why the memory store could not be opened, if it could not (the
            run goes on without the meta tool).
        experiences: the experience logs the memory store held when the run started, by
            skill name (empty without the store), which the subagents' prompts carry.
        browser_sites: the sites those logs name as needing the browser, whose pages
            the tools read in Chromium at once (set by the Host; empty by default).
    """

    def __init__(self, context: HostContext) -> None:
        self.context = context
        self.run: RunFolder | None = None
        self.question: str | None = None
        self.browser: BrowserSession | None = None
        self.counted_model: TokenCounter | None = None
        self.memory: SkillMemory | None = None
        self.memory_error: str | None = None
        self.experiences: dict[str, Evolved] = {}
        self.browser_sites: frozenset[str] = frozenset()

    def start(self, run: RunFolder, tape: Tape | None, question: str | None = None) -> None:
        """Get ready for ``run``: the brain's model behind a request timeout and retries,
        recorded onto ``tape`` when one is being recorded, counting the context's model
        calls and tokens (no model offline); ``question`` is the run's. With experience
        on, the memory store is opened and its experience logs are read."""
        self.run, self.question = run, question
        context = self.context
        if context.settings.experience and self.memory is None:
            self.open_memory()
        self.experiences = self.recall()
        brain, settings = context.brain, context.settings
        if brain.offline:
            self.counted_model = None
            return
        policy = RetryPolicy(timeout=settings.model_timeout, attempts=settings.model_attempts)
        model = ScrubbedModel(RawArguments(resilient_model(brain, policy, context.model_calls)))
        if tape is not None and not tape.replaying:
            model = RecordingModel(model, tape)
        model = Interruptible(model, context.interrupt)
        self.counted_model = TokenCounter(model, context.tokens, brain.spec)

    def open_memory(self) -> None:
        """Open the memory store; when it cannot be, say why in :attr:`memory_error`."""
        try:
            self.memory = open_memory(self.context.settings)
        except FsError as exc:
            self.memory_error = scrub(str(exc).removeprefix("Error: "))

    def recall(self) -> dict[str, Evolved]:
        """The experience logs of the open memory store, by skill; none without the store
        or when it cannot be read (the run's recording then meets the same trouble and
        reports it)."""
        if self.memory is None:
            return {}
        try:
            return recall_logs(self.memory)
        except FsError:
            return {}

    def close_memory(self) -> None:
        """Close the memory store, if it is open."""
        memory, self.memory = self.memory, None
        if memory is not None:
            memory.close()

    def open_browser(self) -> BrowserSession:
        """The run's browser (started on its first use)."""
        tools = self.context.settings.tools
        self.browser = BrowserSession(executable=tools.browser_path, allow=tools.network)
        self.browser.on_launch = lambda state: self.context.emit("browser", state=state)
        return self.browser

    def compression(self) -> ReActAgent.CompressionConfig | None:
        """Long histories are summarised by an LLM once they pass the threshold."""
        if self.context.brain.offline:
            return None
        return ReActAgent.CompressionConfig(
            enable=True,
            agent_token_counter=CharTokenCounter(),
            trigger_threshold=self.context.settings.history_chars,
            keep_recent=4,
        )

    def announcer(self, stage: str) -> Callable[..., AsyncGenerator[Any, None]]:
        """Toolkit middleware: a ``tool_start`` event as each call starts, so that the
        progress display can say what a task is doing while a slow call runs."""

        async def announce(
            kwargs: dict[str, Any], next_handler: Callable[..., Any]
        ) -> AsyncGenerator[Any, None]:
            call = kwargs["tool_call"]
            arguments = call.get("input")
            self.context.emit(
                "tool_start",
                stage=stage,
                name=str(call.get("name") or ""),
                input=arguments if isinstance(arguments, dict) else {},
                task=current_task(),
            )
            async for chunk in await next_handler(**kwargs):
                yield chunk

        return announce

    async def worker(self, spec: SubAgentSpec, colophon: Colophon | None = None) -> Worker:
        """A fresh subagent for one delegation: its agent, its guard, and the tools it
        was given beyond its allowlist (``evolve_skill`` with experience on, MCP tools).

        Args:
            spec: the subagent to delegate to.
            colophon: what the run's report ends with, for a subagent that writes it.
        """
        run = self.run
        assert run is not None
        users = self.context.settings.skills.get(spec.name, ())
        toolkit = self._toolkit(spec, run, colophon)
        meta = self._meta_tools(toolkit, bound_skills(spec.skills, users))
        extra = [*meta, *await self.context.mcp.attach(toolkit, spec.name)]
        guard = self._guard(spec, toolkit, run)
        # After an interrupt the report is written without a model.
        offline = self.context.brain.offline or self.context.interrupt.requested
        agent = WorkerAgent(
            guard=guard,
            name=spec.name,
            sys_prompt=worker_prompt(
                spec, run, self.question, users, experience=bool(meta), logs=self.experiences
            ),
            model=(
                OfflinePolicy(spec)
                if offline or self.counted_model is None
                else self.counted_model.for_stage(spec.name)
            ),
            formatter=OpenAIChatFormatter() if offline else self.context.brain.formatter,
            toolkit=toolkit,
            memory=InMemoryMemory(),
            max_iters=MAX_ITERS,
            parallel_tool_calls=not self.context.exact,
            compression_config=self.compression(),
        )
        agent.set_console_output_enabled(False)
        if "browser" in spec.requires and self.browser is not None:
            attach_browser_hooks(agent, self.browser)
        check_allowlist(toolkit, spec, extra=tuple(extra))
        return agent, guard, tuple(extra)

    def _toolkit(self, spec: SubAgentSpec, run: RunFolder, colophon: Colophon | None) -> Toolkit:
        """The toolkit ``spec`` registers, with the dependencies it requires."""
        deps: dict[str, Any] = {
            "service": run.subagent_service,
            "evidence": self.context.ledger,
            "model": (
                self.counted_model.for_tools(spec.name)
                if self.counted_model and not self.context.interrupt.requested
                else None
            ),
            "settings": self.tool_settings(),
            "browser": self.browser,
            "colophon": colophon,
        }
        wanted = {k: v for k, v in deps.items() if k in spec.requires}
        if "service" in wanted:
            wanted["areas"] = run.area_services
        toolkit = build(spec, wanted)
        toolkit.register_middleware(tool_scope)
        toolkit.register_middleware(self.announcer(spec.name))
        return toolkit

    def tool_settings(self) -> ToolSettings:
        """The tools' settings for this run: the configured ones, with the sites read in
        Chromium at once."""
        tools = self.context.settings.tools
        if not self.browser_sites:
            return tools
        return replace(tools, browser_sites=self.browser_sites)

    def _meta_tools(self, toolkit: Toolkit, skills: Sequence[Skill]) -> list[str]:
        """Register the meta tools experience allows in ``toolkit``; their names.

        With experience on and the memory store open, ``evolve_skill`` is registered in
        the :data:`~subagents.evolve.META_GROUP` group, bound to ``skills`` (the
        subagent's own) and the store; otherwise nothing is.
        """
        if not self.context.settings.experience or self.memory is None or not skills:
            return []
        toolkit.create_tool_group(
            META_GROUP, description="Tools about the subagent's own skills.", active=True
        )
        toolkit.register_tool_function(
            evolve_skill,
            group_name=META_GROUP,
            preset_kwargs={"memory": self.memory, "skills": tuple(s.name for s in skills)},
        )
        return [EVOLVE_SKILL]

    def _guard(self, spec: SubAgentSpec, toolkit: Toolkit, run: RunFolder) -> ToolGuard:
        """The guard around ``toolkit``: its call cap, eviction to ``/internal/evicted/``,
        the stop after an interrupt, and approvals."""

        async def evict(tool: str, text: str) -> str:
            path = f"/internal/evicted/{evicted_name(tool, text)}"
            await run.host_service.write_text(path, scrub(text))
            return path

        cap = self.context.settings.tool_call_cap
        return ToolGuard(
            spec.name,
            toolkit,
            cap=min(cap, spec.call_cap or cap),
            evict=evict,
            on_call=self.context.record_call,
            stopped=lambda: self.context.interrupt.blocks,
            approval=self.context.approval,
        )

    def host_agent(self, specs: dict[str, SubAgentSpec]) -> HostAgent:
        """The Host's own agent, naming the subagents ``specs`` registers."""
        agent = HostAgent(
            name="Host",
            sys_prompt=host_prompt(specs),
            model=HostPolicy(specs)
            if self.counted_model is None
            else self.counted_model.for_stage("host"),
            formatter=self.context.brain.formatter,
            toolkit=Toolkit(),
            memory=InMemoryMemory(),
            max_iters=HOST_ITERS,
            parallel_tool_calls=not self.context.exact,
            compression_config=self.compression(),
        )
        agent.set_console_output_enabled(False)
        return agent


def current_task() -> str:
    """The id of the task whose worker is running (``d3``), as its model stream names it."""
    return STREAM.get().split("/", 1)[0]


def worker_prompt(
    spec: SubAgentSpec,
    run: RunFolder,
    question: str | None,
    extra_skills: Sequence[Path] = (),
    experience: bool = False,
    logs: Mapping[str, Evolved] | None = None,
) -> str:
    """A subagent's system prompt: its own, the rule on untrusted text, its grants, its
    skills and what their experience logs hold.

    Args:
        spec: the subagent.
        run: the run's folder, whose grants the prompt states.
        question: the run's question; the bodies of the skills it is relevant to are
            included (None: skill names and descriptions only).
        extra_skills: the user's skill folders for this subagent, after its spec's; one
            named like a spec's skill replaces it.
        experience: the subagent has ``evolve_skill``: the prompt ends with when to use
            it (:func:`experience_prompt`).
        logs: experience logs by skill name; those of the subagent's skills are shown
            after its skills (:func:`~subagents.experience.recall_prompt`).

    Returns:
        The prompt, its skills section (none when the subagent has no skills), its
        experiences (none when its skills have no log) and the note on experience last.
    """
    prompt = f"{spec.sys_prompt}\n\n{UNTRUSTED_RULE}\n\n{grants_prompt(spec, run)}"
    skills = bound_skills(spec.skills, extra_skills)
    own = [(s.name, logs[s.name]) for s in skills if logs and s.name in logs]
    sections = [
        skills_prompt(skills, question),
        recall_prompt(own),
        experience_prompt(skills) if experience else "",
    ]
    return "\n\n".join([prompt, *(s for s in sections if s)])


def experience_prompt(skills: Sequence[Skill]) -> str:
    """The note that tells a subagent when to record a lesson with ``evolve_skill``,
    naming the skills whose experience logs it may write ("" when it has none)."""
    if not skills:
        return ""
    names = ", ".join(s.name for s in skills)
    return (
        "## Experience\n"
        f"When this task taught you a valuable lesson that you verified, record it with "
        f"{EVOLVE_SKILL} so that later tasks know it: a short title, the scene it applies "
        "to and the lesson. Record rarely, never a guess or the task's findings, and name "
        f"one of your own skills only: {names}."
    )


def grants_prompt(spec: SubAgentSpec, run: RunFolder) -> str:
    """What a subagent may read and write, and which of its tools write the read-only areas."""
    lines = [run.subagent_service.describe_grants_markdown()]
    lines += [
        f"- `{AREAS[area]}` is written by {tool} only."
        for group in spec.groups
        for tool, area in group.areas.items()
        if area in AREAS
    ]
    return "\n".join(lines)
