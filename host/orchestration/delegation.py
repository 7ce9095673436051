"""Delegation: the Host's ``task`` tool and what happens behind it.

``task(description, subagent_type, context)`` (the seed's delegation tool) is a tool of
the Host agent only. Each call builds a fresh subagent (its own toolkit, guard and
memory, so concurrent tasks never share state), hands it a delegation message with the
context the Host completed (the sub-question, the evidence already known, what is still
missing, the pages or files to work on), runs it under its timeout and the delegation
depth cap, and asks for a structured outcome (agentscope structured completion). What
the subagent's calls produced is carried into the run's :class:`~host.research.Research`,
and the tool result tells the Host brain the new coverage of every sub-question and what
to try next. At most ``concurrency`` tasks run at once; one task's failure never touches
another's results.

Every document saved under ``/workspace/downloads/`` is read before the report: a task
result lists the downloads no file task has read yet (``downloads_unread``), and a
``generate`` task asked for while some are unread first has the File subagent read them,
whichever brain asked and whenever the documents were saved.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agentscope.agent import ReActAgent
from agentscope.message import Msg
from agentscope.tool import ToolResponse

from fs_service import FsError
from research.inputs import FileUse, file_uses
from research.notes import research_notes, summary_lines
from research.requirements import BRIEF_HEADER
from subagents.evidence import url_key
from subagents.failures import plain_reason
from subagents.file.stage import INPUT, READERS, read_path
from subagents.offline import CallResult
from subagents.results import error, json_block, ok, refused
from subagents.secrets import scrub
from subagents.spec import SubAgentSpec, check_allowlist
from subagents.untrusted import neutralise

from ..brains.tape import stream_scope
from ..core.records import ToolCallRecord, call_signature
from ..core.stages import delegation_msg, kept, summarize
from ..research import Research
from ..sources import file_source
from .budget import amount
from .guards import DelegationDepthError, ToolGuard, delegation_scope
from .interrupt import Interrupt, RunInterrupted, replied

logger = logging.getLogger(__name__)

FINISH = "generate_response"
NOTES_PATH = "/workspace/notes/research.md"
DOWNLOADS = "/workspace/downloads/"
#: The description of the file task a report asked for while downloads were unread runs.
#: The outcome fields that name paths (see :mod:`subagents.outcomes`).
OUTCOME_PATHS = ("pages", "files", "outputs")
READ_DOWNLOADS = "Read the downloaded documents not read yet, before the report is written."


@dataclass
class Delegation:
    """One finished (or refused) task."""

    id: str
    subagent: str
    subquestion: str | None
    description: str
    context: dict[str, Any]
    seconds: float = 0.0
    status: str = "ok"  # ok | failed | timed out | interrupted | stopped | capped | refused
    error: str | None = None
    outcome: dict[str, Any] | None = None
    records: list[ToolCallRecord] = field(default_factory=list)
    #: evidence ids the outcome names that the ledger does not hold
    unknown_evidence_ids: list[str] = field(default_factory=list)
    #: paths the outcome names (pages, files, outputs) that were never stored
    unknown_paths: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready line for run.json."""
        return {
            "id": self.id,
            "subagent": self.subagent,
            "subquestion": self.subquestion,
            "status": self.status,
            "error": self.error,
            "seconds": round(self.seconds, 3),
            "tool_calls": len(self.records),
            "failed_calls": sum(r.failed for r in self.records),
            "outcome": self.outcome,
            "unknown_evidence_ids": self.unknown_evidence_ids,
            "unknown_paths": self.unknown_paths,
        }


MakeWorker = Callable[[SubAgentSpec], Awaitable[tuple[ReActAgent, ToolGuard, tuple[str, ...]]]]


class Delegator:
    """Runs the Host's tasks and keeps the research state up to date.

    Args:
        specs: the subagents that may be delegated to, by name.
        research: the run's research state.
        make_worker: ``async (spec) -> (agent, guard, mcp tool names)`` for a fresh worker.
        service: the Host's file service (reads the workspace, writes notes).
        hub: the run's MsgHub; workers join it while they work.
        transcript: where every delegation and outcome is appended.
        settings: the run's settings (formats, budgets, timeouts, depth cap).
        emit: progress callback ``(kind, **data)``.
    """

    def __init__(
        self,
        specs: dict[str, SubAgentSpec],
        research: Research,
        make_worker: MakeWorker,
        service: Any,
        hub: Any,
        transcript: Any,
        settings: Any,
        emit: Callable[..., None],
    ) -> None:
        self.specs, self.research, self.make_worker = specs, research, make_worker
        self.service, self.hub, self.transcript = service, hub, transcript
        self.settings, self.emit = settings, emit
        self.checkpoint: Callable[[], Awaitable[None]] | None = None
        self.results: dict[str, str] = {}
        #: What tasks still running were handed (pages, documents), by task.
        self.running: dict[int, dict[str, Any]] = {}
        #: The same for the tasks a restored checkpoint says were running.
        self.unfinished: list[dict[str, Any]] = []
        #: Set while no task runs.
        self.idle = asyncio.Event()
        self.idle.set()
        self.interrupt = Interrupt()
        self.semaphore = asyncio.Semaphore(max(1, int(settings.concurrency)))
        self.delegations: list[Delegation] = []
        self.outputs: list[str] = []
        self.citations = 0
        #: how the report's citations fared: dropped, unsupported, checked, accuracy
        self.citation_check: dict[str, Any] = {}
        self.files_read: list[str] = []
        #: Files handed to the File subagent (read or not), so none is handed over twice.
        self.files_tried: list[str] = []
        #: The files a reader failed on, with the reason it gave.
        self.files_failed: dict[str, str] = {}
        #: The files in the input folder, listed when the report is asked for.
        self.inputs: list[str] = []
        #: The report's citations per source address.
        self.cited: dict[str, int] = {}
        #: Documents the finished browser tasks saved, in the order they reported them.
        self.downloads: list[str] = []
        self.last_kind: dict[str, str] = {}
        #: the Host's refused and unknown tool calls (see :mod:`host.orchestration.audit`)
        self.refusals: list[dict[str, Any]] = []
        #: where the research notes the report is written from are kept
        self.notes_path = NOTES_PATH
        #: the search tools tried last, by language of query (from the experience logs)
        self.sources_last: Mapping[str, frozenset[str]] = {}
        #: how many search tasks tried each tool last
        self.moved_last: dict[str, int] = {}
        self._count = 0

    # -- the task tool -----------------------------------------------------------------

    async def task(
        self, description: str, subagent_type: str, context: dict[str, Any] | None
    ) -> ToolResponse:
        """Validate and complete a task request, run it, absorb it, and report."""
        if self.interrupt.blocks:
            who = "the user interrupted the run" if self.interrupt.count else "a budget is spent"
            return refused(
                f"{who}, so no new task starts. Reply now with a short "
                "summary; the report is written from what was found."
            )
        spec = self.specs.get(str(subagent_type))
        if spec is None:
            return error(
                f"unknown subagent_type {subagent_type!r}; choose one of {', '.join(self.specs)}."
            )
        ctx = dict(context) if isinstance(context, dict) else {}
        try:
            notes = await self._read_downloads_first() if spec.writes_report else []
            prepared = self._prepare(spec, ctx)
            if isinstance(prepared, ToolResponse):
                return prepared
            sub_id, ctx = prepared
            if spec.writes_report:
                stop = self.interrupt.budget
                self.inputs = await self._input_files()
                # read before the notes add the items that cite disagreements' values
                answer_lines = summary_lines(self.research)
                _record_answer_lines(self.research, answer_lines)
                written = research_notes(
                    self.research,
                    interrupted=self.interrupt.count > 0,
                    budget=(stop["budget"], amount(stop, "limit")) if stop else None,
                    no_web=self.research.web_unreached,
                    requirements=self.research.requirements,
                    files=self.file_uses(),
                    answer_lines=answer_lines,
                )
                await self.service.write_text(NOTES_PATH, written)
            delegation = await self._delegate(spec, description, ctx, sub_id)
        except DelegationDepthError as exc:
            return refused(str(exc))
        notes += await self._absorb(spec, delegation, sub_id)
        text = self._report(delegation, notes)
        self.results[call_signature(subagent_type, context)] = text
        if self.checkpoint is not None:
            await self.checkpoint()
        return ok(text, paths=self.outputs if spec.writes_report else ())

    async def _delegate(
        self, spec: SubAgentSpec, description: str, ctx: dict[str, Any], sub_id: str | None
    ) -> Delegation:
        """Run one task, known as running (with its pages and documents) until it ends."""
        token = id(ctx)
        self.idle.clear()
        self.running[token] = {
            "subquestion": sub_id,
            "urls": list(ctx.get("urls") or []),
            "documents": list(ctx.get("documents") or []),
        }
        try:
            delegation = await self.run(spec, description, ctx, sub_id)
            self.interrupt.stop_now_if_asked()
        finally:
            self.running.pop(token, None)
            if not self.running:
                self.idle.set()
        return delegation

    async def _read_downloads_first(self) -> list[str]:
        """Have the File subagent read the downloaded documents no file task has read yet.

        A report is written from what was read: a document saved after the last file task
        (or by a Host that went straight to the report) would otherwise never be read. The
        tasks still running finish first, so what they save is read too. A run being
        stopped starts no new task, so nothing is read then.

        Returns:
            A note for the report task's result naming what was read first; none when
            nothing was unread.
        """
        spec = next((s for s in self.specs.values() if s.reads_downloads), None)
        if spec is None or self.interrupt.requested:
            return []
        await self.idle.wait()
        unread = await self.unread_on_disk()
        if not unread:
            return []
        prepared = self._prepare(spec, {"paths": unread})
        if isinstance(prepared, ToolResponse):  # not so for a file task; kept for the types
            return []
        _, ctx = prepared
        delegation = await self._delegate(spec, READ_DOWNLOADS, ctx, None)
        await self._absorb(spec, delegation, None)
        if self.checkpoint is not None:
            await self.checkpoint()
        return [
            f"{len(unread)} downloaded document(s) no {spec.name} task had read went to task "
            f"{delegation.id} ({spec.name}, {delegation.status}) before the report: "
            f"{', '.join(unread)}"
        ]

    async def _input_files(self) -> list[str]:
        """Every file in the input folder but hidden ones (``.DS_Store``, a ``.git``
        folder's), none when no folder is mounted."""
        try:
            entries = await self.service.walk_files(INPUT)
        except FsError:
            return []
        return sorted(e.path for e in entries if "/." not in e.path[len(INPUT) - 1 :])

    def file_uses(self) -> list[FileUse]:
        """What became of each of the user's files so far (see :mod:`research.inputs`)."""
        return file_uses(
            self.inputs,
            [p for p in self.files_read if p.startswith(INPUT)],
            {p: why for p, why in self.files_failed.items() if p.startswith(INPUT)},
            self.research.briefs,
            self.cited,
        )

    def unread_downloads(self) -> list[str]:
        """The documents finished tasks saved that no file task has been handed yet."""
        handled = {*self.files_read, *self.files_tried}
        return [p for p in self.downloads if p not in handled]

    async def unread_on_disk(self) -> list[str]:
        """Every file under ``/workspace/downloads/`` no file task has been handed yet,
        sorted; unlike :meth:`unread_downloads`, this includes what a task that never
        finished saved."""
        try:
            entries = await self.service.walk_files(DOWNLOADS)
        except FsError:
            return []
        handled = {*self.files_read, *self.files_tried}
        return sorted(e.path for e in entries if e.path not in handled)

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the delegations: their summaries and results."""
        return {
            "delegations": [d.summary() for d in self.delegations],
            "outputs": self.outputs,
            "citations": self.citations,
            "citation_check": self.citation_check,
            "files_read": self.files_read,
            "files_tried": self.files_tried,
            "files_failed": self.files_failed,
            "inputs": self.inputs,
            "cited": self.cited,
            "downloads": self.downloads,
            "last_kind": self.last_kind,
            "count": self._count,
            "results": self.results,
            "running": list(self.running.values()),
            "refusals": self.refusals,
            "moved_last": self.moved_last,
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint: earlier delegations count, their results are known."""
        for raw in state["delegations"]:
            d = Delegation(raw["id"], raw["subagent"], raw["subquestion"], "", {})
            d.seconds, d.status, d.error = raw["seconds"], raw["status"], raw["error"]
            d.outcome = raw.get("outcome")
            d.unknown_evidence_ids = list(raw.get("unknown_evidence_ids") or [])
            d.unknown_paths = list(raw.get("unknown_paths") or [])
            self.delegations.append(d)
        self.outputs, self.citations = list(state["outputs"]), int(state["citations"])
        self.citation_check = dict(state.get("citation_check") or {})
        self.files_read = list(state["files_read"])
        self.files_tried = list(state.get("files_tried", []))
        self.files_failed = dict(state.get("files_failed") or {})
        self.inputs = list(state.get("inputs") or [])
        self.cited = dict(state.get("cited") or {})
        self.downloads = list(state.get("downloads", []))
        self.last_kind = dict(state["last_kind"])
        self._count = int(state["count"])
        self.results = dict(state["results"])
        self.unfinished = list(state.get("running", []))
        self.refusals[:] = list(state.get("refusals") or [])
        self.moved_last = dict(state.get("moved_last") or {})

    def _prepare(
        self, spec: SubAgentSpec, ctx: dict[str, Any]
    ) -> tuple[str | None, dict] | ToolResponse:
        """The completed context of a task, or a refusal saying what to change: the
        question's context, completed by the subagent's own ``prepare``."""
        research = self.research
        plan = research.plan
        sub_id = str(ctx.get("subquestion") or ctx.get("subquestion_id") or "") or None
        sub = plan.get(sub_id) if sub_id else None
        base: dict[str, Any] = {"question": plan.question}
        if sub is not None:
            base |= {
                "subquestion_id": sub.id,
                "subquestion": sub.text,
                "known_evidence_ids": research.best(sub.id, limit=10),
                "missing": research.missing(sub.id),
            }
        if spec.prepare is None:
            return sub_id, {**base, **ctx}
        return spec.prepare(self, sub, ctx, base)

    def open_round(self, sub: Any, new_round: bool) -> ToolResponse | None:
        """None when a task for sub-question ``sub`` may start; else what to change: name
        a sub-question, or move on when ``new_round`` would pass its research rounds."""
        research = self.research
        if sub is None:
            ids = ", ".join(s.id for s in research.plan.subquestions)
            return error(
                f'context must name the sub-question, e.g. {{"subquestion": "q1"}}; '
                f"the plan has {ids}."
            )
        if new_round and research.rounds[sub.id] >= research.max_rounds:
            research.finished.add(sub.id)
            return refused(
                f"no research rounds left for {sub.id} ({research.max_rounds} used); what "
                "is still missing stays recorded as not found. Move on."
            )
        return None

    @property
    def started(self) -> int:
        """How many tasks have started so far."""
        return self._count

    def pages_left(self) -> int:
        return self.settings.max_pages - self.research.ledger.pages.pages

    def known_url(self, url: str) -> bool:
        """A URL the Host may hand on: a search result or a link of a page read."""
        if url_key(url) in self.research.candidates:
            return True
        research = self.research
        return any(
            url == target
            for path, text in research.texts.items()
            for _, target in research.page_links(path, text)
        )

    def requirements(self) -> str:
        """What the writer is asked for: the question, then any brief's requirements."""
        lines = [self.research.plan.question]
        if self.research.requirements:
            lines += ["", BRIEF_HEADER]
            lines += [f"- {r}" for r in self.research.requirements]
        return "\n".join(lines)

    # -- running a worker ----------------------------------------------------------------

    async def run(
        self, spec: SubAgentSpec, description: str, ctx: dict[str, Any], sub_id: str | None
    ) -> Delegation:
        """Run one delegation to completion (or failure), under the depth cap and timeout."""
        self._count += 1
        delegation = Delegation(f"d{self._count}", spec.name, sub_id, description, ctx)
        with delegation_scope(self.settings.depth_cap):
            async with self.semaphore:
                await self._run_worker(spec, delegation)
        self.delegations.append(delegation)
        if sub_id:
            self.last_kind[sub_id] = spec.name
        return delegation

    async def _run_worker(self, spec: SubAgentSpec, delegation: Delegation) -> None:
        started = time.perf_counter()
        self.emit("delegation_start", delegation=delegation, title=spec.title or spec.name)
        agent = guard = None
        try:
            agent, guard, extra = await self.make_worker(spec)
            msg = delegation_msg(spec, delegation.description, delegation.context)
            await self.transcript.append(msg)
            self.hub.add(agent)
            timeout = self.settings.stage_timeouts.get(spec.name, self.settings.stage_timeout)
            with stream_scope(delegation.id):  # the worker's model requests, in order
                reply, timed_out = await run_with_timeout(
                    agent(msg, structured_model=spec.outcome), timeout
                )
            if timed_out:  # the reply is the worker's interruption note: not an outcome
                delegation.status, delegation.error = "timed out", f"timed out after {timeout:g} s"
            elif reply is not None and (reply.metadata or {}).get("_is_interrupted"):
                delegation.status, delegation.error = "interrupted", "stopped by the user"
            elif reply is not None and (reply.metadata or {}).get("_is_capped"):
                cap = guard.cap if guard is not None else self.settings.tool_call_cap
                delegation.status, delegation.error = "capped", f"ended at the {cap}-call cap"
            elif reply is not None and isinstance(reply.metadata, dict) and reply.metadata:
                delegation.outcome = _validated(spec, reply.metadata)
            check_allowlist(agent.toolkit, spec, extra=(*extra, FINISH))
        except DelegationDepthError:
            raise
        except RunInterrupted as exc:  # its next request was refused: a budget is spent
            delegation.status, delegation.error = "stopped", scrub(str(exc))
        except Exception as exc:  # one failed task must not sink the run
            logger.debug("task %s failed", delegation.id, exc_info=True)  # the class: here
            delegation.status = "failed"
            delegation.error = scrub(plain_reason(exc, "the task failed without saying why"))
        finally:
            if agent is not None:
                self.hub.delete(agent)
            if guard is not None:  # calls finished before a timeout or failure count too
                delegation.records = list(guard.records)
            delegation.seconds = time.perf_counter() - started
        if delegation.error:
            delegation.error += f"; {kept(delegation.records)}"
        await self._flag_unknown(delegation)
        outcome = Msg(
            spec.name,
            summarize(spec.name, delegation.records, delegation.outcome, delegation.error),
            "assistant",
            metadata={"delegation": delegation.summary()},
        )
        await self.hub.broadcast(outcome)
        await self.transcript.append(outcome)
        self.emit("delegation_end", delegation=delegation)

    async def _flag_unknown(self, d: Delegation) -> None:
        """Flag the evidence ids and paths the outcome names that do not exist."""
        if not d.outcome:
            return
        ledger = self.research.ledger
        ids = [str(i) for i in d.outcome.get("evidence_ids") or []]
        d.unknown_evidence_ids = [i for i in dict.fromkeys(ids) if ledger.get(i) is None]
        named = [str(p) for key in OUTCOME_PATHS for p in d.outcome.get(key) or []]
        d.unknown_paths = [p for p in dict.fromkeys(named) if not await self._stored(p)]

    async def _stored(self, path: str) -> bool:
        """Whether ``path`` exists in the file domain (a refused path does not)."""
        try:
            return bool(await self.service.exists(path))
        except FsError:
            return False

    # -- what a task leaves behind -------------------------------------------------------

    async def _absorb(self, spec: SubAgentSpec, d: Delegation, sub_id: str | None) -> list[str]:
        """Carry a finished task's results into the research state; notes for the report."""
        research = self.research
        done = [CallResult(r.name, r.input, r.text) for r in d.records if not r.failed]
        carried = spec.carry(done) if spec.carry is not None else {}
        found = spec.absorb(self, d, sub_id, carried) if spec.absorb is not None else []
        notes = list(await found if inspect.isawaitable(found) else found)
        target = sub_id or research.plan.subquestions[0].id  # what its searches were for
        for result in carried.get("results", []):
            research.add_results(target, result["tool"], result["text"], result["query"])
        if "pages" in carried:  # a page reader's task: every page stored is scored
            new = await research.absorb_pages()
            notes.append(f"{len(new)} new page(s) scored against every sub-question")
        saved = [str(p) for p in carried.get("downloads", []) if str(p).startswith(DOWNLOADS)]
        self.downloads.extend(p for p in dict.fromkeys(saved) if p not in self.downloads)
        for read in carried.get("reads", []):
            self.files_read.append(read["path"])
            source = file_source(read["tool"], read["path"], read["text"], research.plan.language)
            if source is not None:
                await research.absorb_file(source)
        if "outputs" in carried:
            self.outputs = list(carried["outputs"])
            self.citations = int(carried.get("citations", 0))
            self.citation_check = dict(carried.get("citation_check") or {})
            self.cited = dict(carried.get("cited") or {})
        for r in d.records:
            if r.failed and spec.name == "search" and r.input.get("query"):
                research.note_query(target, r.input["query"])
            if r.failed and r.name != FINISH:
                # the envelope's reason is for people; the text may carry advice for
                # the model ("try another search tool")
                why = str(r.metadata.get("reason") or r.text)[:160]
                research.failures.append(why if why.startswith(r.name) else f"{r.name}: {why}")
                if r.name in READERS:
                    self.files_failed[read_path(r.input)] = why
        if spec.web:
            research.note_web_calls([r.status for r in d.records if r.name != FINISH])
        research.update_plan()
        if sub_id:
            cov = research.coverage(sub_id)
            step = {"round": research.rounds[sub_id], "subquestion": sub_id, "task": d.id}
            step |= {"subagent": spec.name, "status": d.status, "coverage": cov.status}
            step |= {"evidence": cov.items, "sources": cov.sources}
            step |= {key: list(d.context.get(key, [])) for key in spec.step_fields}
            research.plan.rounds.append(step)
        self.emit("coverage", plan=research.plan, research=research)
        return notes

    def _report(self, d: Delegation, notes: list[str]) -> str:
        """The task result the Host brain reads: outcome, coverage, what to do next."""
        lines = _outcome_lines(d, notes)
        facts: dict[str, Any] = {"task": d.id, "subagent": d.subagent, "status": d.status}
        if d.subquestion:
            facts["subquestion"] = d.subquestion
        spec = self.specs.get(d.subagent)
        if spec is not None and spec.report is not None:
            more, found = spec.report(self, d)
            lines.extend(more)
            facts |= found
        lines += self._next_steps(facts)
        lines.append(json_block(facts))
        # Summaries, gaps and titles may quote pages: they cannot forge a block either.
        return neutralise("\n".join(lines))

    def _next_steps(self, facts: dict[str, Any]) -> list[str]:
        """The coverage of every sub-question and what to do next: downloads to read,
        queries and links for the gaps, the budget left. The same go into ``facts``."""
        research = self.research
        report = research.report()
        lines = ["Coverage:"]
        for row in report["subquestions"]:
            lines.append(
                f"- {row['id']} {row['status']}: {row['evidence']} evidence item(s) from "
                f"{row['sources']} source(s), {row['rounds']} round(s) — {row['text']}"
            )
        suggestions = {
            sid: research.suggestions(sid) for sid in research.open_gaps() if self.pages_left() > 0
        }
        facts["coverage"] = report["subquestions"]
        facts["documents_left"] = len(research.documents())
        unread = self.unread_downloads()
        if unread:
            facts["downloads_unread"] = unread
            reader = next((n for n, s in self.specs.items() if s.reads_downloads), "")
            writer = next((n for n, s in self.specs.items() if s.writes_report), "")
            lines.append(
                f'Downloaded documents not read yet: {", ".join(unread)}. Have a "{reader}" '
                f'task read {DOWNLOADS} before the report; "{writer}" reads them first '
                "otherwise."
            )
        facts["suggestions"] = suggestions
        facts["budget"] = {
            "pages_left": max(0, self.pages_left()),
            "rounds_left": {
                s.id: max(0, research.max_rounds - research.rounds[s.id])
                for s in research.plan.subquestions
            },
        }
        if suggestions:
            lines.append("To close the gaps:")
            for sid, found in suggestions.items():
                lines.append(
                    f"- {sid}: queries {json.dumps(found['queries'], ensure_ascii=False)}; "
                    f"links {json.dumps(found['links'])}"
                )
        return lines


def _outcome_lines(d: Delegation, notes: list[str]) -> list[str]:
    """A task's own lines in its result: its status and counts, its error, what its
    outcome names that does not exist, its summary and gaps, and the Host's notes."""
    failed = sum(r.failed for r in d.records)
    lines = [
        f"Task {d.id} ({d.subagent}"
        + (f", {d.subquestion}" if d.subquestion else "")
        + f") {d.status}: {len(d.records)} tool calls, {failed} failed, {d.seconds:.1f} s."
    ]
    if d.error:
        lines.append(f"Error: {d.error}")
    if d.unknown_evidence_ids or d.unknown_paths:
        unknown = [*d.unknown_evidence_ids, *d.unknown_paths]
        lines.append(f"Flagged: the outcome names what does not exist: {', '.join(unknown)}")
    if d.outcome:
        lines.append(f"Outcome: {d.outcome.get('summary', '')}")
        for gap in d.outcome.get("gaps") or []:
            lines.append(f"- gap: {gap}")
    lines.extend(f"Note: {n}." for n in notes)
    return lines


def _validated(spec: SubAgentSpec, raw: dict[str, Any]) -> dict[str, Any] | None:
    try:
        return spec.outcome.model_validate(raw).model_dump()
    except Exception:
        return None


async def run_with_timeout(coro: Any, timeout: float) -> tuple[Any, bool]:
    """Await ``coro``, cancelling it after ``timeout`` seconds.

    Returns the result and whether time ran out. Agents turn cancellation into an
    interrupted reply instead of raising, so expiry is tracked here, not inferred; a
    cancel of the caller while it waits (the user's stop at once) is raised once the
    agent has replied (see :func:`~host.orchestration.interrupt.replied`).
    """
    task = asyncio.ensure_future(coro)
    expired = False

    def expire() -> None:
        nonlocal expired
        expired = True
        task.cancel()

    handle = asyncio.get_running_loop().call_later(timeout, expire)
    try:
        return await replied(task), expired
    except asyncio.CancelledError:
        if not expired:
            raise
        return None, True
    finally:
        handle.cancel()


async def task(
    description: str,
    subagent_type: str,
    context: dict | None = None,
    delegator: object = None,
) -> ToolResponse:
    """Delegate one task to a subagent and wait for it; the result reports the new coverage.

    Tasks for different sub-questions may run at the same time. The result lists every
    sub-question's status, what to read next, and new queries and links for the gaps.

    Args:
        description (str): What the subagent should do, in one or two sentences.
        subagent_type (str): The subagent that does the task.
        context (dict, optional): A JSON object for the task: the keys its subagent
            reads, e.g. {"subquestion": "q2"} for a task about one sub-question.
    """
    if not isinstance(delegator, Delegator):
        return error("task is not available here: only the Host delegates.")
    return await delegator.task(description, subagent_type, context)


def _record_answer_lines(research: Research, answer_lines: Mapping[str, list[str]]) -> None:
    """Record on each part of the plan the evidence id of the line that answers it in the
    notes' summary (``answer_lines``: each line's evidence id with the parts it answers,
    see :func:`research.notes.summary_lines`), so that the run's record says which
    summary line is each part's answer."""
    lines = {sub_id: ev_id for ev_id, ids in answer_lines.items() for sub_id in ids}
    for sub in research.plan.subquestions:
        sub.answer_id = lines.get(sub.id, "")


__all__ = ["Delegation", "Delegator", "run_with_timeout", "task"]
