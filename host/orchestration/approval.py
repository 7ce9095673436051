"""Human approval of chosen tools, and the user's review of the plan.

``--approve TOOL[,TOOL]`` (or ``[quartet.approve] tools = [...]``) puts tools behind a
decision: the guard asks before each call and the user approves it, rejects it with a
reason (the reason is the call's result, so the model reads it), or edits its
arguments. In a terminal the question is asked there, showing the call's arguments;
without one the configured default applies (``deny`` unless set), and a denial is an
ordinary tool result.

``--review-plan`` shows the sub-question plan in the terminal before research starts
and lets the user edit it; ``--plan FILE`` supplies a plan without a terminal.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml

from research.plan import (
    MAX_QUERIES,
    MAX_SUBQUESTIONS,
    Plan,
    SubQuestion,
    keyword_queries,
    validated,
)

from ..printable import printable, printable_json

T = TypeVar("T")
DEFAULTS = ("deny", "approve")


@dataclass(frozen=True)
class Decision:
    """What the user decided about one call: ``approve``, ``reject`` or ``edit``."""

    action: str
    reason: str = ""
    arguments: dict[str, Any] | None = None


Ask = Callable[[str, str, dict[str, Any]], Awaitable[Decision]]


@dataclass
class Approval:
    """The tools that need a decision and who decides.

    Attributes:
        tools: tool names whose every call is put to :attr:`ask`.
        ask: ``async (stage, tool, arguments) -> Decision``.
    """

    tools: frozenset[str]
    ask: Ask
    decisions: list[dict[str, Any]] = field(default_factory=list)

    def needs(self, tool: str) -> bool:
        return tool in self.tools

    async def decide(self, stage: str, tool: str, arguments: dict[str, Any]) -> Decision:
        """Ask, and keep the decision for the run record."""
        decision = await self.ask(stage, tool, arguments)
        self.decisions.append(
            {"stage": stage, "tool": tool, "action": decision.action, "reason": decision.reason}
        )
        return decision


def check_tools(names: tuple[str, ...], known: set[str]) -> None:
    """ValueError naming the tools that no subagent has, with the nearest known names."""
    import difflib

    unknown = [n for n in names if n not in known]
    if unknown:
        hints = [
            f"{n} (did you mean {', '.join(difflib.get_close_matches(n, sorted(known), 2))}?)"
            if difflib.get_close_matches(n, sorted(known), 2)
            else n
            for n in unknown
        ]
        raise ValueError(f"--approve: no subagent has the tool {', '.join(hints)}")


async def in_thread(fn: Callable[[], T]) -> T:
    """Run a blocking terminal read in a daemon thread (a pending prompt never keeps
    the process alive after the run stops)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def run() -> None:
        try:
            value = fn()
        except BaseException as exc:  # EOF or an interrupt while reading
            loop.call_soon_threadsafe(_settle, future, None, exc)
        else:
            loop.call_soon_threadsafe(_settle, future, value, None)

    threading.Thread(target=run, name="quartet-prompt", daemon=True).start()
    return await future


def _settle(future: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
    if future.done():
        return
    if exc is not None:
        future.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
    else:
        future.set_result(value)


class Terminal:
    """Line prompts on the user's terminal, one at a time.

    While a prompt is open :attr:`asking` is true, so that a progress display can hold
    its lines back; ``after`` is called when the prompt is answered.
    """

    def __init__(
        self,
        read: Callable[[str], str] | None = None,
        write: Callable[[str], Any] | None = None,
        after: Callable[[], None] | None = None,
    ) -> None:
        self.read = read or _read_line
        self.write = write or _write
        self.after = after
        self.lock = asyncio.Lock()
        self.asking = False

    async def prompt(self, dialogue: Callable[[], T]) -> T:
        """Run one dialogue with the user (questions and answers), alone on the terminal."""
        async with self.lock:
            self.asking = True
            try:
                return await in_thread(dialogue)
            finally:
                self.asking = False
                if self.after is not None:
                    self.after()


def _read_line(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError("the terminal closed")
    return line.rstrip("\n")


def _write(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def has_terminal() -> bool:
    """Whether the user can be asked: stdin and stderr are a terminal."""
    return sys.stdin.isatty() and sys.stderr.isatty()


# -- tool approval --------------------------------------------------------------------


def terminal_approver(terminal: Terminal) -> Ask:
    """Ask about each call in the terminal (approve, reject with a reason, or edit)."""

    def ask_once(stage: str, tool: str, arguments: dict[str, Any]) -> Decision:
        shown = printable_json(arguments, indent=2)
        terminal.write(
            f"\nApproval needed: {printable(stage)} wants to call {printable(tool)} with\n{shown}\n"
        )
        while True:
            answer = terminal.read("[a]pprove, [r]eject or [e]dit? ").strip().lower()
            if answer in ("a", "approve", "y", "yes"):
                return Decision("approve")
            if answer in ("r", "reject", "n", "no"):
                reason = terminal.read("Reason (the model reads it): ").strip()
                return Decision("reject", reason or "the user rejected this call")
            if answer in ("e", "edit"):
                edited = _edited(terminal, arguments)
                if edited is not None:
                    return Decision("edit", "edited by the user", edited)
            else:
                terminal.write("Answer a, r or e.\n")

    async def ask(stage: str, tool: str, arguments: dict[str, Any]) -> Decision:
        return await terminal.prompt(lambda: ask_once(stage, tool, arguments))

    return ask


def _edited(terminal: Terminal, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """New arguments typed as one JSON object; None (and a message) when they don't parse."""
    line = terminal.read("New arguments as one JSON object (Enter keeps them): ").strip()
    if not line:
        return dict(arguments)
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        terminal.write(f"That is not JSON ({exc.msg}); try again.\n")
        return None
    if not isinstance(value, dict):
        terminal.write("The arguments must be a JSON object; try again.\n")
        return None
    return value


def default_approver(default: str) -> Ask:
    """Decide without asking: the configured default (``deny`` or ``approve``)."""

    async def ask(stage: str, tool: str, arguments: dict[str, Any]) -> Decision:
        if default == "approve":
            return Decision("approve", "approved by the configured default")
        return Decision(
            "reject",
            f"{tool} needs a person's approval and there is no terminal to ask one; the "
            "configured default is to deny it",
        )

    return ask


# -- the plan -----------------------------------------------------------------------


#: The largest plan file read: six parts with four queries each fit in a few KiB.
MAX_PLAN_BYTES = 64 * 1024
#: The longest text of a part and of a query in a plan file (the planner's own limits).
MAX_PART_CHARS, MAX_QUERY_CHARS = 400, 200


class _PlanLoader(yaml.SafeLoader):
    """YAML without aliases. A plan has no use for them, and a few nested ones expand to
    gigabytes once the plan is read (the "billion laughs"), so the first is refused
    before anything is built."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not accepted in a plan", mark
            )
        return super().compose_node(parent, index)


def _plan_data(path: Path) -> Any:
    """The parsed plan file: at most :data:`MAX_PLAN_BYTES`, UTF-8, YAML without aliases
    (JSON is YAML too). ValueError says what is wrong."""
    try:
        with Path(path).open("rb") as fh:
            data = fh.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--plan {path}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_PLAN_BYTES:
        raise ValueError(
            f"--plan {path}: larger than {MAX_PLAN_BYTES // 1024} KiB; a plan is a short "
            "list of sub-questions"
        )
    try:
        return yaml.load(data.decode("utf-8"), Loader=_PlanLoader)  # a SafeLoader
    except UnicodeDecodeError:
        raise ValueError(f"--plan {path}: not UTF-8 text") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = " ".join(str(exc.problem or exc.context or "not YAML").split())
        raise ValueError(f"--plan {path}: cannot read it ({problem}{where})") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"--plan {path}: cannot read it ({' '.join(str(exc).split())})") from None
    except RecursionError:
        raise ValueError(f"--plan {path}: nested too deeply to be a plan") from None


def _plan_part(item: Any, number: int) -> dict[str, Any]:
    """Part ``number`` of a plan file as ``{"text", "queries"}``, its types and lengths
    checked; ValueError (without the file name) says what is wrong."""
    if isinstance(item, str):
        text, queries = item, []
    elif isinstance(item, dict) and isinstance(item.get("text"), str):
        text, queries = item["text"], item.get("queries") or []
    else:
        raise ValueError(f"sub-question {number}: each sub-question is a text or has a 'text'")
    if len(text) > MAX_PART_CHARS:
        raise ValueError(f"sub-question {number}: longer than {MAX_PART_CHARS} characters")
    scalar = (str, int, float)
    if not isinstance(queries, list) or not all(
        isinstance(q, scalar) and not isinstance(q, bool) for q in queries
    ):
        raise ValueError(f"sub-question {number}: 'queries' must be a list of texts")
    if len(queries) > MAX_QUERIES:
        raise ValueError(f"sub-question {number}: at most {MAX_QUERIES} queries")
    if any(len(str(q)) > MAX_QUERY_CHARS for q in queries):
        raise ValueError(
            f"sub-question {number}: a query is longer than {MAX_QUERY_CHARS} characters"
        )
    return {"text": text, "queries": [str(q) for q in queries]}


def plan_from_file(path: Path, question: str) -> Plan:
    """A plan written by the user, in YAML or JSON.

    Either ``{"subquestions": [...]}`` or the list alone; each item a sub-question's
    text or ``{"text": ..., "queries": [...]}``. Missing queries are made from the text.
    The file is checked before anything is built from it: its size, no YAML aliases, and
    the types, counts and lengths of its parts and queries. ValueError says what is wrong.
    """
    raw = _plan_data(path)
    items = raw.get("subquestions") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise ValueError(f"--plan {path}: expected a list of sub-questions")
    if len(items) > MAX_SUBQUESTIONS:
        raise ValueError(
            f"--plan {path}: {len(items)} sub-questions; a plan has at most {MAX_SUBQUESTIONS}"
        )
    try:
        subs = [_plan_part(item, n) for n, item in enumerate(items, 1)]
    except ValueError as exc:
        raise ValueError(f"--plan {path}: {exc}") from None
    plan, why = validated({"subquestions": subs}, question)
    if plan is None:
        raise ValueError(f"--plan {path}: {why}")
    plan.planner = f"user ({Path(path).name})"
    return plan


HELP = (
    "Enter accepts the plan. Or: e N (new text for part N), q N (new queries for part N), "
    "d N (delete part N), a (add a part).\n"
)


def terminal_plan_review(terminal: Terminal) -> Callable[[Plan], Awaitable[Plan]]:
    """Show the plan in the terminal and let the user edit it before research starts."""

    async def review(plan: Plan) -> Plan:
        return await terminal.prompt(lambda: _review(terminal, plan))

    return review


def _show(terminal: Terminal, plan: Plan) -> None:
    count = len(plan.subquestions)
    terminal.write(f"\nThe plan ({count} part{'s' if count != 1 else ''}):\n")
    for i, sub in enumerate(plan.subquestions, 1):
        queries = printable("; ".join(sub.queries))
        terminal.write(f"  {i}. {printable(sub.text)}\n     queries: {queries}\n")
    terminal.write(HELP)


def _review(terminal: Terminal, plan: Plan) -> Plan:
    subs = [SubQuestion(s.id, s.text, list(s.queries), own=s.own) for s in plan.subquestions]
    changed = False
    while True:
        _show(terminal, Plan(plan.question, plan.language, subs, planner=plan.planner))
        command = terminal.read("plan> ").strip()
        if not command:
            break
        verb, _, rest = command.partition(" ")
        index = int(rest) - 1 if rest.strip().isdigit() else -1
        if verb == "a" and len(subs) < MAX_SUBQUESTIONS:
            text = terminal.read("Text of the new part: ").strip()
            if text:
                subs.append(SubQuestion("", text, keyword_queries(text, plan.question)))
                changed = True
        elif verb in ("e", "q", "d") and 0 <= index < len(subs):
            if verb == "d" and len(subs) > 1:
                del subs[index]
            elif verb == "e":
                text = terminal.read(f"New text for part {index + 1}: ").strip()
                if text:
                    subs[index] = SubQuestion("", text, keyword_queries(text, plan.question))
            elif verb == "q":
                line = terminal.read("Queries, separated by ';': ")
                queries = [q.strip() for q in line.split(";") if q.strip()]
                if queries:
                    subs[index].queries = queries[:4]
            changed = True
        else:
            terminal.write("Not understood.\n")
    if not changed:
        return plan
    for i, sub in enumerate(subs, 1):
        sub.id = f"q{i}"
    return Plan(plan.question, plan.language, subs, planner=f"{plan.planner}, edited by the user")
