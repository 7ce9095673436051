"""One run of the web app (a new run, a resume or a replay), in its own process:
``python -m webapp.worker``.

The server starts one worker per run and talks to it in JSON lines: the job on the first
line of standard input, then the user's decisions (approvals, the reviewed plan); the
run's events on standard output. Anything else the run prints goes to standard error.

The run itself is the CLI's: the same settings (:func:`demo.settings.job_settings`,
which applies the demo world as ``quartet demo`` does), the same
:class:`host.orchestration.hub.Host`, and the same :class:`host.display.progress.Progress`
turning its events into the readable lines ``quartet run`` prints when piped, and its
:class:`host.orchestration.live.Tally` counting the figures its live view shows. A replay
is made as ``quartet replay`` makes it, and its events are sent as a run's. A stop
from the page is a SIGINT to this process, which the Host takes as one Ctrl-C.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from webapp.runner import plain_reason

#: The events after which the parts' rows are sent again.
PART_EVENTS = frozenset(
    {"plan", "delegation_start", "tool_start", "tool", "delegation_end", "coverage", "run_end"}
)


class Channel:
    """The worker's side of the conversation with the server."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.asked = 0

    def send(self, message: dict[str, Any]) -> None:
        """Write one message (a JSON line) to the server."""
        self.out.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
        self.out.flush()

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a question (an approval, a plan to review) and wait for its answer."""
        self.asked += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.asked] = future
        self.send({**message, "ask": self.asked})
        return await future

    def listen(self) -> None:
        """Read the server's answers from standard input in a thread of their own (it
        ends with the process) and hand each to the question waiting for it."""
        loop = asyncio.get_running_loop()

        def read() -> None:
            for line in sys.stdin:
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if isinstance(answer, dict):
                    loop.call_soon_threadsafe(self._answer, answer)

        threading.Thread(target=read, name="answers", daemon=True).start()

    def _answer(self, answer: dict[str, Any]) -> None:
        future = self.waiting.pop(int(answer.get("ask", 0) or 0), None)
        if future is not None and not future.done():
            future.set_result(answer)


#: What the first stop tells the page's user to do to stop at once (the page's button,
#: not the terminal's Ctrl-C).
STOP_HINT = "Press Stop now to stop at once."


class Watcher:
    """An ``on_event`` callback: the CLI's :class:`~host.display.progress.Progress` (piped, one
    line an event) for the lines of the feed and what each task is doing, and its
    :class:`~host.orchestration.live.Tally` for the figures (the ones the CLI's live view
    shows), sent to the server."""

    def __init__(self, channel: Channel) -> None:
        from rich.console import Console

        from host.display.progress import Progress

        self.channel = channel
        self.buffer = io.StringIO()
        console = Console(
            file=self.buffer, width=100_000, color_system=None, highlight=False, soft_wrap=True
        )
        self.progress = Progress(console=console, live=False, stop_hint=STOP_HINT)
        self.host: Any = None
        self.tally = self.progress.tally

    def attach(self, host: Any) -> None:
        """Count the run of ``host``: its page registry and its rounds per part."""
        self.host = host
        self.tally.registry = host.ledger.pages
        self.tally.max_rounds = max(1, int(host.settings.max_rounds))

    def __call__(self, kind: str, data: dict[str, Any]) -> None:
        self.progress(kind, data)
        message: dict[str, Any] = {"type": "event", "kind": kind}
        lines = self._lines()
        if lines:
            message["lines"] = lines
        if kind == "run_start":
            run = data["run"]
            message["run"] = {"id": run.id, "path": str(run.path)}
        if kind in PART_EVENTS and self.host is not None:
            message["parts"] = self.tally.rows(self.doing())
            message["pages"] = self.tally.pages
            message["page_budget"] = self.tally.budget
            message["steps"] = self.tally.progress()
        if kind in ("coverage", "run_end") and self.host is not None:
            message["tokens"] = tokens(self.host)
        if kind == "run_end":
            result = data["result"]
            recorded = result.record().get("tokens")
            if isinstance(recorded, dict) and recorded.get("input"):
                message["tokens"] = {k: v for k, v in recorded.items() if k != "by_stage"}
            message["result"] = {
                "status": result.status,
                "exit_code": result.exit_code,
                "outputs": list(result.outputs),
            }
        if len(message) > 2:
            self.channel.send(message)

    def _lines(self) -> list[str]:
        """The feed's lines for one event: the CLI's (whose figures are the table's), after
        any search that failed."""
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        lines = [line for line in text.splitlines() if line.strip()]
        return [*self.tally.failures, *lines]

    def doing(self) -> dict[str | None, str]:
        """What the latest task of each part (and of no part, under None) is doing."""
        return {step.part: step.words for step in self.progress.steps.values()}


def tokens(host: Any) -> dict[str, Any]:
    """The model tokens and cost the run has used so far, as its record will say them
    (empty for the offline brain)."""
    try:
        summary = host.token_ledger.summary()
    except Exception:  # a figure the page can do without
        return {}
    if not isinstance(summary, dict) or not summary.get("input"):
        return {}
    return {k: v for k, v in summary.items() if isinstance(v, int | float)}


def approver(channel: Channel) -> Callable[[str, str, dict[str, Any]], Awaitable[Any]]:
    """The Host's ``ask``: the decision comes from the page. A tool the user allowed
    for the rest of the run is approved without asking again."""
    from host.orchestration.approval import Decision

    allowed: dict[str, str] = {}

    async def ask(stage: str, tool: str, arguments: dict[str, Any]) -> Decision:
        if tool in allowed:
            return Decision("approve", allowed[tool])
        answer = await channel.ask(
            {"type": "approval", "stage": stage, "tool": tool, "arguments": arguments}
        )
        action = str(answer.get("action", "reject"))
        edited = answer.get("arguments") if action == "edit" else None
        if action == "edit" and not isinstance(edited, dict):
            action, edited = "reject", None
        if action == "approve" and answer.get("always"):
            allowed[tool] = str(answer.get("reason") or "allowed for the rest of this run")
        return Decision(action, str(answer.get("reason", "")), edited)

    return ask


def plan_reviewer(channel: Channel) -> Callable[[Any], Awaitable[Any]]:
    """The Host's ``review_plan``: the plan is shown in the page, edited there."""
    from research.plan import Plan, SubQuestion, keyword_queries

    async def review(plan: Plan) -> Plan:
        parts = [{"text": s.text, "queries": list(s.queries)} for s in plan.subquestions]
        answer = await channel.ask({"type": "plan_review", "parts": parts})
        texts = [str(t).strip() for t in answer.get("parts") or [] if str(t).strip()]
        if not texts or texts == [p["text"] for p in parts]:
            return plan
        old = {s.text: list(s.queries) for s in plan.subquestions}
        subs = [
            SubQuestion(f"q{i}", text, old.get(text) or keyword_queries(text, plan.question))
            for i, text in enumerate(texts[:6], 1)
        ]
        return Plan(
            plan.question, plan.language, subs, planner=f"{plan.planner}, edited by the user"
        )

    return review


def _settings(job: dict[str, Any]) -> Any:
    """The run's settings, as a batch job's: flags, environment, ``quartet.toml``, and
    the demo world when the job researches it; the approval policy the page chose."""
    from demo.settings import job_settings

    settings = job_settings(job)
    if job.get("approve"):
        settings = replace(settings, approve_tools=tuple(job["approve"]))
    if job.get("record"):
        settings = replace(settings, record=True)
    return settings


def _made_here(job: dict[str, Any]) -> Callable[[Path], bool]:
    """Whether an input folder a run's record names is one this server made for its
    uploads: only such a folder is mounted again for a resume or a replay."""
    uploads = Path(job["uploads_root"]).resolve()

    def made(folder: Path) -> bool:
        return Path(folder).resolve().parent == uploads

    return made


async def _resume_settings(job: dict[str, Any], stack: Any) -> tuple[Any, Path]:
    """The settings and folder of a stopped run, read as ``quartet resume`` reads them."""
    from demo.settings import demo_settings
    from host.config import load_settings
    from host.durability.resume import demo_ports, resumable, resumed_settings
    from host.durability.runs import chosen_input

    base = load_settings({"runs_dir": job["runs_dir"], "quiet": True})
    folder, saved = resumable(base, job["run_id"])
    origin = saved.get("origin") if isinstance(saved.get("origin"), dict) else {}
    inputs = None
    if origin.get("kind") != "demo":
        inputs = chosen_input(folder.name, saved.get("input_dir"), None, _made_here(job))
    settings = resumed_settings(base, saved, None, inputs)
    if origin.get("kind") == "demo":
        from types import SimpleNamespace

        from demo.web import demo_world

        ports = demo_ports(origin)
        served = job.get("demo")
        if served and tuple(served["ports"]) == ports:
            world = SimpleNamespace(
                endpoints=served["endpoints"],
                hosts=tuple(served["hosts"]),
                ports=ports,
                input_dir=Path(served["input_dir"]),
                glossary=(),
            )
        else:
            world = stack.enter_context(demo_world(settings.runs_dir, ports=ports))
        settings = demo_settings(settings, world)
    return settings, folder


async def _research(
    job: dict[str, Any], channel: Channel, watcher: Watcher, stack: Any
) -> tuple[Any, Awaitable[Any]]:
    """The Host of a new run or a resumed one, and its work (not begun yet)."""
    from host.brains import make_brain
    from host.durability.run_folder import RunFolder
    from host.orchestration.hub import Host

    if job["kind"] == "resume":
        settings, folder = await _resume_settings(job, stack)
    else:
        settings, folder = _settings(job), None
    human: dict[str, Any] = {"ask": approver(channel)}
    if job.get("review_plan") and folder is None:
        human["review_plan"] = plan_reviewer(channel)
    host = Host(settings, make_brain(settings.model), on_event=watcher, **human)
    if folder is not None:
        return host, host.resume(RunFolder.open(folder, settings.input_dir))
    return host, host.run(job["question"])


async def _replay(
    job: dict[str, Any], channel: Channel, watcher: Watcher
) -> tuple[Any, Awaitable[Any]]:
    """The Host of a replay of a recorded run, as ``quartet replay`` makes it, and its
    work (not begun yet): the run again, then its verdict, written beside it as the
    command writes it and sent to the server last."""
    from demo.web import cached_inputs
    from host.brains.providers import replay_brain
    from host.config import load_settings
    from host.durability.replay import compare, open_recording, replay_input, replay_settings
    from host.durability.run_folder import RunFolder
    from host.orchestration.hub import Host
    from subagents.tape import Tape

    base = load_settings({"runs_dir": job["runs_dir"], "quiet": True})
    recording = open_recording(base.runs_dir, job["run_id"])
    inputs = replay_input(base, recording, None, _made_here(job), cached_inputs)
    settings = replay_settings(base, recording, inputs)
    tape = await Tape.load(RunFolder.open(recording.folder, settings.input_dir).host_service)
    host = Host(settings, replay_brain(settings.model, tape), on_event=watcher, tape=tape)

    async def replayed() -> Any:
        result = await host.run(str(recording.record["question"]))
        verdict = compare(recording, result, tape)
        said = json.dumps(verdict.to_dict(), ensure_ascii=False, indent=2)
        await result.run.host_service.write_text("/internal/replay.json", said)
        first = verdict.divergences[:1]
        channel.send({"type": "replay", "reproduced": verdict.reproduced, "differences": first})
        return result

    return host, replayed()


async def run(job: dict[str, Any], channel: Channel) -> int:
    """Run, resume or replay the job's research; its exit status, as the CLI's run's."""
    import contextlib

    channel.listen()
    watcher = Watcher(channel)
    with contextlib.ExitStack() as stack:
        if job["kind"] == "replay":
            host, work = await _replay(job, channel, watcher)
        else:
            host, work = await _research(job, channel, watcher, stack)
        watcher.attach(host)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, host.interrupt.request)
        try:
            result = await work
        except asyncio.CancelledError:  # a second stop: at once, resumable
            channel.send({"type": "stopped"})
            return 130
        finally:
            loop.remove_signal_handler(signal.SIGINT)
    return result.exit_code if result.status != "interrupted" else 130


def main() -> int:
    """Read the job, run it, report its end; the exit status is the run's."""
    protocol = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # what the run prints goes to standard error, not into the protocol
    sys.stdout = sys.stderr
    channel = Channel(protocol)
    job = json.loads(sys.stdin.readline())
    try:
        code = asyncio.run(run(job, channel))
    except Exception as exc:  # said to the page, then the process ends
        channel.send({"type": "failed", "reason": plain_reason(exc)})
        return 1
    channel.send({"type": "exit", "code": code})
    return code


if __name__ == "__main__":
    raise SystemExit(main())
