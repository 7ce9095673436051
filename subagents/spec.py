"""Declarative subagent specs and the builder that turns one into an agentscope Toolkit.

A subagent is described by data: its name, description, system prompt, and tool groups
(each an exact allowlist of tool functions). ``build`` registers exactly those functions,
injecting dependencies through ``preset_kwargs`` so that they never reach the schema.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from agentscope.tool import Toolkit, ToolResponse
from pydantic import BaseModel

from research.plan import Plan, SubQuestion

from .offline import Call, CallResult
from .outcomes import Outcome

#: Parameter names a tool may receive from the Host instead of the model.
INJECTABLE = ("service", "settings", "browser", "evidence", "model", "colophon")


@dataclass(frozen=True)
class ToolGroup:
    """A named set of tools, registered together and switched on or off together.

    ``"basic"`` is always active; other groups start as ``active`` says. ``areas`` names,
    for a tool that stores what it fetches, the workspace area only it writes (``pages``,
    ``downloads``, ``screenshots``): the Host gives such a tool a service that may write
    there and nowhere else, and every other tool one that may only read there.
    """

    name: str
    tools: tuple[Callable[..., Any], ...]
    description: str = ""
    active: bool = True
    writes: frozenset[str] = frozenset()
    areas: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.__name__ for t in self.tools)


class Found(Protocol):
    """A search result the run pooled: its page's title (the Host's candidate)."""

    title: str


@runtime_checkable
class DeskResearch(Protocol):
    """The run's research state, as a subagent's callbacks read and change it (the Host's
    :class:`host.research.Research`)."""

    plan: Plan
    #: research rounds each sub-question has had, by its id
    rounds: MutableMapping[str, int]
    #: queries each sub-question has searched, by its id
    queries: Mapping[str, list[str]]
    #: pages handed to a task for each sub-question, by its id
    assigned: Mapping[str, list[str]]
    #: documents handed to a task to download
    assigned_docs: set[str]
    #: sub-questions with nothing left to do
    finished: set[str]
    #: the search results pooled so far, by their URL's key (:func:`subagents.evidence.url_key`)
    candidates: Mapping[str, Found]

    def fetched(self, url: str) -> bool:
        """Whether the page at ``url`` is stored."""
        ...

    def reading_list(self, sub_id: str, limit: int, exclude: set[str] | None = None) -> list[str]:
        """The best unread pages for a sub-question, no one handed them yet."""
        ...

    def documents(self) -> list[str]:
        """Documents found and not yet downloaded or handed out, the best first."""
        ...

    def suggestions(self, sub_id: str) -> dict[str, list[str]]:
        """New queries and links for a sub-question's gap."""
        ...

    async def absorb_file(self, source: Any) -> None:
        """Keep a text as a source the research scores, as a file read is kept (``source``
        is a :class:`host.sources.FileSource`: its stored path, extract and title)."""
        ...


class DeskSettings(Protocol):
    """The run's settings a subagent's callbacks read."""

    max_pages: int
    formats: Sequence[str]


class Delegated(Protocol):
    """A finished (or refused) task, as a subagent's callbacks read it."""

    subagent: str
    subquestion: str | None
    status: str
    context: dict[str, Any]
    #: the task's tool calls, each with its ``name`` and ``input``
    records: Sequence[Any]


@runtime_checkable
class Desk(Protocol):
    """What a subagent's :data:`Prepare`, :data:`Absorb` and :data:`Report` callbacks may
    use of the Host's delegator (:class:`host.orchestration.delegation.Delegator`), and
    all they may: the research state, the settings, the tasks done and the files read,
    and the budget checks."""

    research: DeskResearch
    settings: DeskSettings
    #: every task so far, in order
    delegations: Sequence[Delegated]
    #: the kind of the last task for each sub-question, by its id (``"browser"``)
    last_kind: Mapping[str, str]
    #: the files read so far, and the files handed to a file task (read or not)
    files_read: list[str]
    files_tried: list[str]
    #: where the Host writes the research notes the writer reads
    notes_path: str
    #: the reports written, and the citations they kept
    outputs: list[str]
    citations: int
    #: the search tools a task tries last, by language of query (what the experience
    #: logs say failed), and how many tasks each was moved last in
    sources_last: Mapping[str, frozenset[str]]
    moved_last: dict[str, int]

    def open_round(self, sub: SubQuestion | None, new_round: bool) -> ToolResponse | None:
        """None when a task for ``sub`` may start; else the refusal to return."""
        ...

    def pages_left(self) -> int:
        """The pages the run may still read."""
        ...

    def known_url(self, url: str) -> bool:
        """Whether ``url`` is one the Host may hand on (a search result or a link)."""
        ...

    def requirements(self) -> str:
        """What the writer is asked for: the question, then any brief's requirements."""
        ...


OfflinePlan = Callable[[dict[str, Any], list[CallResult], set[str]], list[Call]]
OfflineOutcome = Callable[[dict[str, Any], list[CallResult]], dict[str, Any]]
Carry = Callable[[list[CallResult]], dict[str, Any]]
#: ``(desk, sub, context, base) -> (sub_id, context)`` or a refusal (a ToolResponse): the
#: task's whole context, from the request's ``context`` and the research state. ``desk``
#: is what the callbacks may use of the Host (:class:`Desk`), ``sub`` the sub-question
#: the request names (or None) and ``base`` the context every task gets (the question
#: and, for a sub-question, its text, known evidence and what is missing).
Prepare = Callable[
    [Desk, SubQuestion | None, dict[str, Any], dict[str, Any]],
    tuple[str | None, dict[str, Any]] | ToolResponse,
]
#: ``(desk, delegation, sub_id, carried) -> notes``: what a finished task changes in the
#: research state beyond what every task's carried results change (the search results,
#: pages, downloads, file reads and reports its ``carry`` names are absorbed for any
#: subagent); notes for the task's result. It may be a coroutine function.
Absorb = Callable[[Desk, Delegated, str | None, dict[str, Any]], Any]
#: ``(desk, delegation) -> (lines, facts)``: what the task's result adds for the Host brain.
Report = Callable[[Desk, Delegated], tuple[list[str], dict[str, Any]]]


@dataclass(frozen=True)
class SubAgentSpec:
    """Everything the Host needs to know to build and delegate to one subagent.

    Attributes:
        name, description, sys_prompt, groups, read_only, requires: what the subagent is
            and which tools (and injected dependencies) it has.
        task: the opening of every delegation message to it.
        title: what the progress display calls its work ("Searching").
        outcome: the structured outcome its delegations end with.
        carry: what its finished calls hand on to the Host (e.g. search results, stored
            pages), read from the results' text.
        offline_plan, offline_outcome: the offline brain's next calls and outcome.
        call_cap: the tool calls one of its tasks may make at most, when its work is
            bounded below the run's cap (a search task runs its queries on its sources
            once); None leaves the run's cap.
        task_read_only: the Host's tasks for it only read (the File subagent reads the
            input and downloaded files), so each delegated worker gets the read-only
            subset of its allowlist, ``allowlist(read_only=True)`` (see :func:`for_tasks`).
        host_line: what it does, as the Host's prompt and the ``task`` tool describe it.
        prepare: how the Host builds a task's context from the research state (see
            :data:`Prepare`); None passes the request's context on, under the question's.
        absorb: what a finished task adds to the research state (see :data:`Absorb`).
        report: what its task's result adds for the Host brain (see :data:`Report`).
        step_fields: the context keys its round steps record in the plan (``queries``).
        web: its calls go to the web (they tell whether the web was reached at all).
        reads_downloads: it reads the documents the run downloaded; before the report,
            the Host hands it any no task has read.
        writes_report: it writes the report, from the research notes the Host writes
            first; its outputs are the run's.
        offline_host_task: the offline Host sends it one task with this description once
            the research is done, before the report ("" for none; the built-in
            subagents' tasks are the offline Host's own research script).
        skills: the names of its skill folders (see :mod:`subagents.skills`), whose field
            knowledge its system prompt carries; the Host loads none.
    """

    name: str
    description: str
    sys_prompt: str
    groups: tuple[ToolGroup, ...]
    read_only: bool = False
    requires: tuple[str, ...] = field(default_factory=tuple)
    task: str = ""
    title: str = ""
    outcome: type[BaseModel] = Outcome
    carry: Carry | None = None
    offline_plan: OfflinePlan | None = None
    offline_outcome: OfflineOutcome | None = None
    task_read_only: bool = False
    call_cap: int | None = None
    host_line: str = ""
    prepare: Prepare | None = None
    absorb: Absorb | None = None
    report: Report | None = None
    step_fields: tuple[str, ...] = ()
    web: bool = False
    reads_downloads: bool = False
    writes_report: bool = False
    offline_host_task: str = ""
    skills: tuple[str, ...] = ()

    def allowlist(self, read_only: bool | None = None) -> list[str]:
        """Tool names this subagent may have, in registration order."""
        ro = self.read_only if read_only is None else read_only
        return [
            t.__name__ for g in self.groups for t in g.tools if not (ro and t.__name__ in g.writes)
        ]


def with_tools(spec: SubAgentSpec, tools: Iterable[Callable[..., Any]]) -> SubAgentSpec:
    """``spec`` with each of ``tools`` it lacks (by name) added to its first group; ``spec``
    itself when it lacks none."""
    have = set(spec.allowlist(read_only=False))
    new = {t.__name__: t for t in tools if t.__name__ not in have}
    if not new:
        return spec
    first, *rest = spec.groups
    return replace(spec, groups=(replace(first, tools=(*first.tools, *new.values())), *rest))


def for_tasks(spec: SubAgentSpec) -> SubAgentSpec:
    """The spec the Host delegates with: read-only when its tasks only read.

    Args:
        spec: a registered subagent's spec.

    Returns:
        ``spec`` with ``read_only`` set when ``spec.task_read_only``; ``spec`` otherwise.
        :func:`build` and :func:`check_allowlist` then hold its workers to the read-only
        allowlist, exactly.
    """
    return replace(spec, read_only=True) if spec.task_read_only else spec


class AllowlistError(RuntimeError):
    """A toolkit holds a tool outside its subagent's allowlist, or lacks one."""


def injected_params(func: Callable[..., Any]) -> list[str]:
    """Parameters of ``func`` that the Host injects (annotated ``object``)."""
    sig = inspect.signature(func)
    return [
        name
        for name, p in sig.parameters.items()
        if name in INJECTABLE and p.annotation in (object, "object", Any, "Any")
    ]


def build(spec: SubAgentSpec, deps: Mapping[str, Any], read_only: bool | None = None) -> Toolkit:
    """Build a fresh Toolkit holding exactly ``spec``'s allowlist.

    ``deps["areas"]``, when given, maps a workspace area to the service its writing tool
    gets instead of ``deps["service"]`` (see :class:`ToolGroup`).
    """
    missing = [d for d in spec.requires if d not in deps]
    if missing:
        raise TypeError(f"build_toolkit({spec.name!r}) needs: {', '.join(missing)}")
    ro = spec.read_only if read_only is None else read_only
    toolkit = Toolkit()
    for group in spec.groups:
        if group.name != "basic":
            toolkit.create_tool_group(
                group.name, description=group.description, active=group.active
            )
        for func in group.tools:
            if ro and func.__name__ in group.writes:
                continue
            wanted = injected_params(func)
            absent = [p for p in wanted if p not in deps]
            if absent:
                raise TypeError(
                    f"{spec.name}.{func.__name__} needs {', '.join(absent)} injected "
                    "(pass None where it is optional); without it the parameter would "
                    "reach the model's schema"
                )
            preset = {p: deps[p] for p in wanted}
            area = group.areas.get(func.__name__)
            if area and "service" in preset and deps.get("areas") is not None:
                if area not in deps["areas"]:
                    raise TypeError(
                        f"{spec.name}.{func.__name__} writes area {area!r}, not granted"
                    )
                preset["service"] = deps["areas"][area]
            _register(toolkit, func, group.name, preset)
    check_allowlist(toolkit, spec, read_only=ro)
    return toolkit


#: Each tool's schema as the toolkit made it, by the tool and the parameters injected into
#: it: every task builds its subagent's toolkit afresh, and reading a tool's signature
#: and docstring into a schema is most of that work.
_schemas: dict[tuple[Callable[..., Any], frozenset[str]], str] = {}


def _register(toolkit: Toolkit, func: Callable[..., Any], group: str, preset: dict) -> None:
    """Register ``func`` in ``toolkit``'s ``group`` with ``preset`` injected, with the
    schema an earlier registration of it with the same parameters injected made."""
    key = (func, frozenset(preset))
    known = _schemas.get(key)
    toolkit.register_tool_function(
        func,
        group_name=group,
        preset_kwargs=preset or None,
        json_schema=json.loads(known) if known is not None else None,
    )
    if known is None:
        _schemas[key] = json.dumps(toolkit.tools[func.__name__].json_schema)


def check_allowlist(
    toolkit: Toolkit, spec: SubAgentSpec, read_only: bool | None = None, extra: tuple[str, ...] = ()
) -> None:
    """Raise AllowlistError unless the toolkit holds exactly the allowlist (plus ``extra``)."""
    want = set(spec.allowlist(read_only)) | set(extra)
    have = set(toolkit.tools)
    if have != want:
        raise AllowlistError(
            f"{spec.name}: toolkit differs from its allowlist; "
            f"extra {sorted(have - want)}, missing {sorted(want - have)}"
        )


def all_schemas(toolkit: Toolkit) -> list[dict]:
    """JSON schemas of every registered tool, inactive groups included, as agentscope emits them."""
    saved = {name: g.active for name, g in toolkit.groups.items()}
    try:
        for g in toolkit.groups.values():
            g.active = True
        return toolkit.get_json_schemas()
    finally:
        for name, active in saved.items():
            toolkit.groups[name].active = active
