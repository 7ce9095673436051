"""The offline brains: deterministic chat models that make the calls a careful agent would.

They run inside the same ReActAgent loop, toolkits, guards and hub as an LLM, and they
decide only from what a model is shown: the formatted messages. Each reads the latest
Host-authored message (never a tool result or another agent's message) for its task, and
the text of the tool results that followed it.

- :class:`OfflinePolicy` is a subagent's brain: its spec's offline plan gives the next
  calls; when there are none it finishes with the structured outcome.
- :class:`HostPolicy` is the Host's brain: it plans the question (the offline
  decomposition), then drives the research through ``task``: input files first, then
  rounds of search and reading per sub-question (concurrently), further rounds for the
  gaps while the budget lasts, the downloaded documents (again whenever a result says
  documents were saved that no file task has read), and finally the report.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from agentscope.message import TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.model._model_usage import ChatUsage

from research.plan import offline_plan
from subagents.offline import CallResult
from subagents.spec import SubAgentSpec

from ..core.stages import CANCELLED, HOST_NAME, find_context, message_text

FINISH = "generate_response"
_JSON = re.compile(r"```json\n(\{.*?\})\n```", re.S)
_TAG = re.compile(r"<(question|plan)>\s*(.*?)\s*</\1>", re.S)


def calls_since_task(
    messages: list[dict[str, Any]],
    author: str,
    start: int | None = None,
    by_arrival: bool = False,
) -> list[CallResult]:
    """The tool calls (with their results' text) made since the last message of ``author``
    (or since ``messages[start]`` when ``start`` is given), in the order they were made,
    or with ``by_arrival`` in the order their results came in (calls made together end in
    any order: the last result is then the one that saw the most done)."""
    if start is None:
        start = 0
        for i, message in enumerate(messages):
            if message.get("role") == "user" and message.get("name") == author:
                start = i
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    order: list[str] = []
    results: dict[str, str] = {}
    for message in messages[start:]:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                fn = call.get("function", {})
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except json.JSONDecodeError:
                    args = {}
                pending[call.get("id", "")] = (
                    fn.get("name", ""),
                    args if isinstance(args, dict) else {},
                )
                order.append(call.get("id", ""))
        elif message.get("role") == "tool":
            results[message.get("tool_call_id", "")] = message_text(message)
    ids = list(results) if by_arrival else order
    return [
        CallResult(pending[cid][0], pending[cid][1], results[cid])
        for cid in ids
        if cid in results and cid in pending
    ]


def _response(blocks: list[Any]) -> ChatResponse:
    return ChatResponse(content=blocks, usage=ChatUsage(input_tokens=0, output_tokens=0, time=0.0))


def _tool(name: str, args: dict[str, Any]) -> ToolUseBlock:
    return ToolUseBlock(type="tool_use", id="off-" + secrets.token_hex(6), name=name, input=args)


class OfflinePolicy(ChatModelBase):
    """A subagent's deterministic brain: its spec's offline plan, then its outcome."""

    def __init__(self, spec: SubAgentSpec) -> None:
        super().__init__(model_name="offline", stream=False)
        self.spec = spec

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        names = {t["function"]["name"] for t in tools or []}
        ctx = find_context(messages)
        done = calls_since_task(messages, HOST_NAME)
        if any(r.text.startswith("Error: tool-call limit reached") for r in done):
            calls = []  # over the cap: wrap up
        elif self.spec.offline_plan is not None:
            calls = self.spec.offline_plan(ctx, [r for r in done if r.name != FINISH], names)
        else:
            calls = []
        if calls:
            return _response([_tool(name, args) for name, args in calls])
        outcome = (
            self.spec.offline_outcome(ctx, done)
            if self.spec.offline_outcome is not None
            else {"summary": "Done."}
        )
        text = TextBlock(type="text", text=str(outcome.get("summary", "Done.")))
        if FINISH in names and not any(r.name == FINISH for r in done):
            return _response([text, _tool(FINISH, outcome)])
        return _response([text])


# --- the Host's brain ---------------------------------------------------------------------


#: Tasks of one part that may fail before the part gets no more (a failure can be passing).
TASK_ATTEMPTS = 2


@dataclass
class _Progress:
    """What the Host has delegated so far, read back from its task calls and results."""

    kinds: dict[str, list[str]] = field(default_factory=dict)
    read_next: dict[str, list[str]] = field(default_factory=dict)
    files: int = 0
    downloads: int = 0
    generated: bool = False
    last: dict[str, Any] = field(default_factory=dict)
    #: The kind of the last task that ran to the end, failed or not.
    last_kind: str = ""
    #: The kind of every task that ran to the end, failed or not.
    ran: set[str] = field(default_factory=set)
    failures: dict[str, int] = field(default_factory=dict)

    @property
    def refused(self) -> set[str]:
        """The parts given up: those whose tasks failed :data:`TASK_ATTEMPTS` times."""
        return {sub for sub, n in self.failures.items() if n >= TASK_ATTEMPTS}

    @property
    def unread_downloads(self) -> bool:
        """The last result lists downloaded documents no file task has read, the task just
        before was not a file task (one that could not read them is not repeated) and the
        report is not written yet."""
        unread = bool(self.last.get("downloads_unread"))
        return unread and self.last_kind != "file" and not self.generated


def _facts(text: str) -> dict[str, Any]:
    found = _JSON.findall(text)
    try:
        return json.loads(found[-1]) if found else {}
    except json.JSONDecodeError:
        return {}


def _progress(done: list[CallResult]) -> _Progress:
    state = _Progress()
    for rec in done:
        if rec.name != "task" or rec.text.startswith(CANCELLED):
            continue  # a cancelled task never ran to the end: it is to be done again
        kind = str(rec.input.get("subagent_type", ""))
        ctx = rec.input.get("context") or {}
        sub = str(ctx.get("subquestion", "")) if isinstance(ctx, dict) else ""
        facts = _facts(rec.text)
        state.last_kind = kind
        state.ran.add(kind)
        if facts:
            state.last = facts
        if rec.text.startswith("Error"):
            if sub:  # a part is given up after its second failed task, not its first
                state.failures[sub] = state.failures.get(sub, 0) + 1
            continue
        if kind == "file":
            state.files += 1
        elif kind == "browser" and isinstance(ctx, dict) and ctx.get("download"):
            state.downloads += 1
        elif kind == "generate":
            state.generated = True
        elif sub:
            state.kinds.setdefault(sub, []).append(kind)
            if kind == "search":
                state.read_next[sub] = list(facts.get("read_next") or [])
    return state


def _task(kind: str, description: str, **context: Any) -> tuple[str, dict[str, Any]]:
    return "task", {"description": description, "subagent_type": kind, "context": context}


class HostPolicy(ChatModelBase):
    """The Host's deterministic brain: plan, then delegate round by round, then report.

    Args:
        specs: the run's subagents; each with an ``offline_host_task`` gets that task
            once, after the research and before the report.
    """

    def __init__(self, specs: dict[str, SubAgentSpec] | None = None) -> None:
        super().__init__(model_name="offline-host", stream=False)
        self.extra = [
            (name, spec.offline_host_task)
            for name, spec in (specs or {}).items()
            if spec.offline_host_task
        ]

    async def __call__(
        self,
        messages: list[dict],
        tools: list[dict] | None = None,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ChatResponse:
        names = {t["function"]["name"] for t in tools or []}
        start, request = self._request(messages)
        if "question" in request and FINISH in names and "task" not in names:
            return self._plan(request["question"], messages)
        plan = _json(request.get("plan", ""))
        # From the research request on, across a resume's "continue" message.
        # by arrival: the coverage report read is the last one made, whatever task
        # of a round happened to end last
        done = calls_since_task(messages, "user", start, by_arrival=True)
        calls = self.next_calls(plan, done) if plan else []
        if calls:
            return _response([_tool(name, args) for name, args in calls])
        state = _progress(done)
        text = "Research finished; the report is written." if state.generated else "Done."
        return _response([TextBlock(type="text", text=text)])

    @staticmethod
    def _request(messages: list[dict]) -> tuple[int, dict[str, str]]:
        """Where the latest request to the Host with a ``<question>`` or ``<plan>`` is,
        and its tags."""
        for i in range(len(messages) - 1, -1, -1):
            message = messages[i]
            if message.get("role") == "user" and message.get("name") == "user":
                tags = {k: v for k, v in _TAG.findall(message_text(message))}
                if tags:
                    return i, tags
        return len(messages), {}

    def _plan(self, question: str, messages: list[dict]) -> ChatResponse:
        done = calls_since_task(messages, "user")
        if any(r.name == FINISH for r in done):
            return _response([TextBlock(type="text", text="The plan is ready.")])
        plan = offline_plan(question)
        subs = [{"text": s.text, "queries": s.queries} for s in plan.subquestions]
        text = TextBlock(type="text", text=f"Plan: {len(subs)} sub-questions.")
        return _response([text, _tool(FINISH, {"subquestions": subs})])

    def next_calls(self, plan: dict[str, Any], done: list[CallResult]) -> list[tuple[str, dict]]:
        """The next batch of tasks, from the plan and the task results so far."""
        state = _progress(done)
        subs = [str(s["id"]) for s in plan.get("subquestions", [])]
        if state.files == 0:
            return [_task("file", "Read the user's input files.")]
        # A round: search every open sub-question, then read the best pages for each.
        to_read = [
            s
            for s in subs
            if state.kinds.get(s, [])[-1:] == ["search"]
            and state.read_next.get(s)
            and s not in state.refused
        ]
        if to_read:
            # No URLs: the Host picks each part's pages as the task starts, when every search
            # of the round has reported, so which part reads what does not depend on which
            # search happened to finish first.
            return [
                _task("browser", f"Read the best pages for {s}.", subquestion=s) for s in to_read
            ]
        fresh = [s for s in subs if not state.kinds.get(s) and s not in state.refused]
        if fresh:
            return [_task("search", f"Find sources for {s}.", subquestion=s) for s in fresh]
        gaps = self._gaps(state, subs)
        if gaps:
            return gaps
        if state.downloads == 0 and int(state.last.get("documents_left", 0)) > 0:
            return [_task("browser", "Download the documents found.", download=True)]
        if state.files == 1 or state.unread_downloads:
            return [
                _task("file", "Read the downloaded documents.", paths=["/workspace/downloads/"])
            ]
        extra = [_task(name, task) for name, task in self.extra if name not in state.ran]
        if extra and not state.generated:
            return extra
        if not state.generated:
            return [_task("generate", "Write the report from the research notes.")]
        return []

    @staticmethod
    def _gaps(state: _Progress, subs: list[str]) -> list[tuple[str, dict]]:
        """Another round for each sub-question the last coverage report calls open."""
        facts = state.last
        budget = facts.get("budget") or {}
        if int(budget.get("pages_left", 0)) <= 0:
            return []
        rounds_left = budget.get("rounds_left") or {}
        suggestions = facts.get("suggestions") or {}
        calls = []
        for row in facts.get("coverage") or []:
            sid = str(row.get("id"))
            if sid not in subs or sid in state.refused or row.get("status") == "answered":
                continue
            if int(rounds_left.get(sid, 0)) <= 0:
                continue
            found = suggestions.get(sid) or {}
            if found.get("queries"):
                queries = found["queries"]
                calls.append(
                    _task("search", f"Search again for {sid}.", subquestion=sid, queries=queries)
                )
            elif found.get("links"):
                links = found["links"]
                calls.append(
                    _task("browser", f"Follow links for {sid}.", subquestion=sid, urls=links)
                )
        return calls


def _json(text: str) -> dict[str, Any]:
    try:
        found = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}
