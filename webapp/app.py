"""The web app: start a run, watch it live, answer its questions, read its report.

Pages are rendered on the server (Jinja2); one small script follows a run's events
(server-sent events) and sends the user's answers. Everything it serves comes from this
package or the runs folder: nothing from a CDN.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import mimetypes
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from markupsafe import Markup
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from host.brains.access import check_spec, provider_statuses
from host.config import FORMATS, ConfigError, parse_formats
from host.durability.run_files import FileTooLarge, read_text
from host.durability.runs import (
    CHECKPOINT_JSON,
    MAX_CHECKPOINT_BYTES,
    MAX_QUESTION_CHARS,
    MAX_RECORD_BYTES,
    RUN_JSON,
    RunDetail,
    RunNotFound,
    RunSummary,
    find_run,
    list_runs,
    read_run,
)
from subagents.file.kinds import READABLE_KINDS
from subagents.search.reach import web_reachable
from subagents.settings import ToolSettings

from .documents import (
    MAX_SHOWN_BYTES,
    Quoted,
    inputs_used,
    laid_out,
    linked_report,
    quoted,
    stored_meta,
    workspace_text,
)
from .live import TOOL_WORDS
from .past_runs import (
    MAX_QUESTION,
    MAX_SEARCH,
    NotDeleted,
    again_refusal,
    follow_up_input,
    follow_up_refusal,
    hide_input,
    hide_run,
    matching,
    own_input,
    purge,
    recorded_fields,
    remembered_fields,
    saved_model,
    search_words,
    unshared_input,
)
from .reading import InlineReport, inline_report, stored_page, stored_text
from .runner import Job, QueueFull, Runner
from .security import DOCUMENT_CSP, Guard, GuardMiddleware, check_csrf, whole_number
from .sending import as_chunks, disposition, sent_file, zipped
from .uploads import UploadRefused, check_uploads, save_uploads

HERE = Path(__file__).resolve().parent
QUEUE_FULL = "Too many runs are waiting already: try again once some have started."
templates = Jinja2Templates(directory=str(HERE / "templates"))
#: The tools a run may be asked to put to the user before each call.
ASKABLE = ("http_download", "write_file", "delete_file", "browser_type", "browser_click")
#: What each tool one may be asked about does, as the start form names it.
ASK_LABELS = TOOL_WORDS
DOWNLOADS = {
    "md": "text/markdown",
    "html": "text/html",
    "pdf": "application/pdf",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    # the reports with their images and stored copies, for reading elsewhere
    "zip": "application/zip",
}
#: Form fields other than files a run form may have.
MAX_FIELDS = 40
#: Seconds the start page trusts its last look at whether the web can be reached.
REACH_FRESH = 60.0
#: Threads that read run records and lay out documents. Each such piece of work may
#: hold tens of megabytes for a while (a record of 8 MB, a report of 30,000 tags), so
#: however many requests come at once, no more than this many hold memory together;
#: the others wait their turn.
HEAVY_THREADS = 2
#: The text files of a run's workspace sent as text (an HTML one laid out when it can be).
TEXT_SUFFIXES = (".html", ".htm", ".md", ".json", ".txt", ".csv", ".jsonl")
#: The most rows of each list a run's page shows (its plan's parts, its failures, the
#: user's files): a record from elsewhere may hold a hundred thousand, and the page is
#: drawn on the event loop.
MAX_ROWS = 200
#: The most characters of a model's name a page shows (a record from elsewhere may name
#: one of megabytes).
MAX_MODEL_CHARS = 100
#: The images of a run's workspace shown in a page; any other file is a download.
IMAGES = ("image/png", "image/jpeg", "image/gif", "image/webp")
T = TypeVar("T")


class App:
    """The app's state: the runs folder, the runner and the security settings."""

    def __init__(self, runs_dir: Path, guard: Guard, runner: Runner) -> None:
        self.runs_dir, self.guard, self.runner = Path(runs_dir), guard, runner
        #: whether the web was reached at the last look, and when (monotonic seconds)
        self.reached: tuple[bool, float] | None = None
        self.heavy = ThreadPoolExecutor(HEAVY_THREADS, thread_name_prefix="heavy")

    async def off_loop(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in one of the :data:`HEAVY_THREADS` threads, off the event
        loop (reading run records, laying out documents)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.heavy, functools.partial(work, *args))

    async def web_reached(self) -> bool:
        """Whether the search sources' web can be reached from here: looked at again
        when the last look is older than :data:`REACH_FRESH` seconds."""
        now = time.monotonic()
        if self.reached is None or now - self.reached[1] > REACH_FRESH:
            self.reached = (await web_reachable(ToolSettings.from_env()), now)
        return self.reached[0]

    def page(self, request: Request, name: str, status: int = 200, **context: Any) -> Response:
        context = {"csrf": self.guard.csrf, "formats": FORMATS, "askable": ASKABLE, **context}
        return templates.TemplateResponse(request, name, context, status_code=status)

    def error(self, request: Request, status: int, message: str) -> Response:
        return self.page(request, "error.html", status=status, message=message)

    async def form(self, request: Request, **limits: Any) -> Any:
        """The request's form when it carries the CSRF token; None otherwise."""
        form = await request.form(max_fields=MAX_FIELDS, **limits)
        return form if check_csrf(form, self.guard) else None

    async def run_folder(self, run_id: str) -> Path | None:
        """The folder of run ``run_id`` (its exact id), or None; never one that is, or
        whose ``workspace`` or ``internal`` is, a symbolic link (a run folder copied from
        elsewhere may point outside the runs folder). The runs folder is listed off the
        event loop."""
        return await asyncio.to_thread(_run_folder, self.runs_dir, run_id)

    def live_job(self, run_id: str) -> Job | None:
        jobs = [j for j in self.runner.jobs.values() if j.run_id == run_id]
        return jobs[-1] if jobs else None

    # -- pages -------------------------------------------------------------------------

    async def home(self, request: Request) -> Response:
        await self.web_reached()
        return self.start_page(request)

    def start_page(
        self, request: Request, status: int = 200, notice: str = "", form: Any = None
    ) -> Response:
        """The start page; with ``notice``, the form sent back with what was wrong and
        what was written in it (the question, the demo choice) kept."""
        from demo.site import EXAMPLE_QUESTIONS

        jobs = sorted(self.runner.jobs.values(), key=lambda j: j.created, reverse=True)
        return self.page(
            request,
            "home.html",
            status=status,
            jobs=jobs,
            runner=self.runner,
            positions=self.runner.positions(),
            examples=EXAMPLE_QUESTIONS,
            readable=READABLE_KINDS,
            providers=provider_statuses(),
            no_web=self.reached is not None and not self.reached[0],
            ask_labels=ASK_LABELS,
            notice=notice,
            asked=str(form.get("question") or "") if form is not None else "",
            demo_on=form is not None and form.get("demo") == "on",
        )

    async def start(self, request: Request) -> Response:
        try:
            form = await self.form(request, max_files=100, max_part_size=64 * 1024)
        except Exception:  # a malformed or over-long form
            return self.error(request, 400, "The form could not be read.")
        if form is None:
            return self.error(request, 403, "The form is out of date: reload the page.")
        question = str(form.get("question") or "").strip()
        use_demo = form.get("demo") == "on"
        try:
            job = self._job_fields(form)
            files = [f for f in form.getlist("files") if isinstance(f, UploadFile)]
            uploads = check_uploads(files)
        except (UploadRefused, ConfigError, ValueError) as exc:
            await form.close()
            return self.start_page(request, 400, str(exc), form)
        if not question and not use_demo:
            await form.close()
            return self.start_page(
                request, 400, "Write the question to research, or choose the demo web.", form
            )
        if len(question) > MAX_QUESTION_CHARS:  # no listing of the runs would show it whole
            await form.close()
            words = f"The question is longer than {MAX_QUESTION_CHARS:,} characters: shorten it."
            return self.start_page(request, 400, words, form)
        if not question:
            from demo.web import DEMO_QUESTION

            question = DEMO_QUESTION
        if self.runner.full:
            await form.close()
            return self.error(request, 503, QUEUE_FULL)
        job_id = self.runner.new_id()
        try:
            folder = save_uploads(uploads, self.runner.uploads, job_id)
        except UploadRefused as exc:
            return self.error(request, 400, f"The files could not be kept: {exc}")
        except OSError:  # its message names the runs folder: the page says what happened
            return self.error(request, 400, "The files could not be kept: the disk refused them.")
        finally:
            await form.close()
        return self._queued(request, question, job, use_demo, folder, job_id)

    def _queued(
        self,
        request: Request,
        question: str,
        job: dict[str, Any],
        use_demo: bool,
        folder: Path | None,
        job_id: str,
    ) -> Response:
        """Queue a new run of ``question`` with the checked settings ``job`` (its input
        folder, when it has one); its job's page, or the refusal of a full queue."""
        job |= {"question": question, "use_demo": use_demo}
        if folder is not None:
            job["input_dir"] = str(folder)
        try:
            entry = self.runner.submit("run", question, job, job_id=job_id)
        except QueueFull:
            return self.error(request, 503, QUEUE_FULL)
        return RedirectResponse(f"/jobs/{entry.id}", status_code=303)

    @staticmethod
    def _job_fields(form: Any) -> dict[str, Any]:
        """The run's settings from the form, checked as the CLI checks its flags."""
        formats = [f for f in form.getlist("formats") if f in FORMATS] or list(FORMATS)
        parse_formats(",".join(formats))
        job: dict[str, Any] = {"kind": "run", "formats": formats}
        for name, low, high in (("max_pages", 1, 500), ("max_rounds", 1, 20)):
            raw = str(form.get(name) or "").strip()
            if raw:
                number = whole_number(raw)
                if number is None or not low <= number <= high:
                    raise ValueError(f"{name.replace('_', '-')} must be a number {low}–{high}")
                job[name] = number
        model = str(form.get("model") or "").strip()
        if model:
            check_spec(model)  # a provider it knows, with its key set: said now, not later
            job["model"] = model
        job["approve"] = [t for t in form.getlist("approve") if t in ASKABLE]
        job["review_plan"] = form.get("review_plan") == "on"
        job["record"] = form.get("record") == "on"
        return job

    async def job_page(self, request: Request) -> Response:
        job = self.runner.jobs.get(request.path_params["job"])
        if job is None:
            return self.error(request, 404, "There is no such run in this server.")
        position = self.runner.position(job)
        return self.page(request, "job.html", job=job, position=position, waiting=job.waiting)

    async def job_events(self, request: Request) -> Response:
        job = self.runner.jobs.get(request.path_params["job"])
        if job is None:
            return Response("no such run", status_code=404)
        raw = request.headers.get("last-event-id") or request.query_params.get("after")
        after = whole_number(raw) or 0

        async def events() -> AsyncIterator[dict[str, Any]]:
            async for event in job.follow(after):
                yield {"id": str(event.id), "event": event.kind, "data": event.data}
            yield {"event": "end", "data": "{}"}

        return EventSourceResponse(events(), ping=15, headers={"cache-control": "no-store"})

    async def job_result(self, request: Request) -> Response:
        """The part of a job's page that shows its result (fetched once it ends)."""
        job = self.runner.jobs.get(request.path_params["job"])
        if job is None or job.run_id is None:
            return HTMLResponse("", status_code=404)
        folder = await self.run_folder(job.run_id)
        detail, inputs = await self.off_loop(_read, folder) if folder else (None, {})
        report = await self.report_of(folder, job.run_id, detail)
        return self.page(
            request,
            "_result.html",
            detail=detail,
            run_id=job.run_id,
            inputs=inputs,
            report=report,
        )

    async def job_stop(self, request: Request) -> Response:
        job = self.runner.jobs.get(request.path_params["job"])
        if job is None:
            return self.error(request, 404, "There is no such run in this server.")
        form = await self.form(request)
        if form is None:
            return self.error(request, 403, "The form is out of date: reload the page.")
        self.runner.stop(job, now=form.get("now") == "on")
        return self._answered(request, f"/jobs/{job.id}", {"ok": True})

    async def job_answer(self, request: Request) -> Response:
        """An approval decision or a reviewed plan; only the first answer counts. An
        approval with ``always`` allows its tool for the rest of the run."""
        job = self.runner.jobs.get(request.path_params["job"])
        form = await self.form(request)
        if job is None or form is None:
            return self.error(request, 403 if job else 404, "The form is out of date.")
        ask = whole_number(str(form.get("ask") or "")) or 0
        question = job.pending.get(ask)
        if question is not None and question.get("type") == "plan_review":
            text = str(form.get("parts") or "")
            answer = {"parts": [line.strip() for line in text.splitlines() if line.strip()]}
        elif question is not None:
            answer, wrong = _decision(form)
            if wrong:
                return self.error(request, 400, wrong)
            if answer.get("always"):
                done = job.allow(ask)
                return self._answered(request, f"/jobs/{job.id}", *_said(done))
        if question is None or not job.answer(ask, answer):
            return self._answered(request, f"/jobs/{job.id}", *_said(False))
        return self._answered(request, f"/jobs/{job.id}", *_said(True))

    @staticmethod
    def _answered(request: Request, back: str, data: dict[str, Any], status: int = 200) -> Response:
        if request.headers.get("accept", "").startswith("application/json"):
            return JSONResponse(data, status_code=status)
        return RedirectResponse(back, status_code=303)

    async def runs(self, request: Request) -> Response:
        """The runs list; with ``?q=``, only the runs whose question holds its words."""
        every = await self.off_loop(_listed, self.runs_dir)
        query = str(request.query_params.get("q") or "")[:MAX_SEARCH]
        deleted = str(request.query_params.get("deleted") or "")
        if not _plain_id(deleted) or deleted in {r.id for r in every}:
            deleted = ""
        busy = self.busy_runs()
        shown = matching(every, search_words(query))
        return self.page(
            request,
            "runs.html",
            runs=shown,
            total=len(every),
            query=query.strip(),
            busy=busy,
            again={r.id for r in shown if not again_refusal(r, r.id in busy)},
            follow_up={r.id for r in shown if not follow_up_refusal(r, r.id in busy)},
            deleted=deleted,
            runs_dir=self.runs_dir,
        )

    def busy_runs(self) -> set[str]:
        """The ids of the runs a job of this server works on or waits to work on (a
        resume, a replay, a run under way)."""
        ids: set[str] = set()
        for job in self.runner.jobs.values():
            if not job.done:
                ids |= {str(job.run_id or ""), str(job.job.get("run_id") or "")}
        return ids - {""}

    def remembered(self, run_id: str) -> dict[str, Any] | None:
        """The settings of the start form that made run ``run_id``, when this server
        started it and still remembers it."""
        jobs = [j for j in self.runner.jobs.values() if j.run_id == run_id and j.kind == "run"]
        return jobs[-1].job if jobs else None

    async def run_delete(self, request: Request) -> Response:
        """Delete a run: first a page asking to confirm (naming its question), then,
        when confirmed, its folder removed; never a run a job works on."""
        found = await self._posted_run(request)
        if isinstance(found, Response):
            return found
        run_id, form, folder = found
        if run_id in self.busy_runs():
            message = "This run is working or waiting to work: stop it before deleting it."
            return self.error(request, 409, message)
        question = (await self.off_loop(read_run, folder)).summary.question
        if form.get("confirm") != "yes":
            return self.page(request, "delete.html", run_id=run_id, question=question)
        waiting = {str(j.job.get("input_dir")) for j in self.runner.jobs.values() if not j.done}
        inputs = await asyncio.to_thread(
            unshared_input, folder, self.runs_dir, self.runner.uploads, waiting
        )
        try:
            hidden = [hide_run(self.runs_dir, folder)]
        except NotDeleted as exc:
            return self.error(request, 400, f"The run was not deleted: {exc}.")
        except OSError:  # its message names the runs folder: the page says what happened
            return self.error(request, 500, "The run was not deleted: the disk refused it.")
        with contextlib.suppress(OSError):  # the run is gone; its uploads go when they can
            hidden += [hide_input(self.runner.uploads, inputs)] if inputs else []
        for gone in hidden:
            await asyncio.to_thread(purge, gone)
        return RedirectResponse(f"/runs?deleted={run_id}", status_code=303)

    async def run_again(self, request: Request) -> Response:
        """Start a past run's question again with its settings, through the start form's
        checks and queue: any run whose question can be read (finished, found nothing,
        stopped, failed)."""
        return await self._from_past(request, follow_up=False)

    async def run_follow_up(self, request: Request) -> Response:
        """Start a new question with a past run's settings, the run's Markdown report
        given to it as the user's own file (refused when it wrote none)."""
        return await self._from_past(request, follow_up=True)

    async def _posted_run(self, request: Request) -> tuple[str, Any, Path] | Response:
        """The run a form was posted about (its id, the form and its folder), or the
        error page when the form is out of date or there is no such run."""
        run_id = request.path_params["run"]
        form = await self.form(request)
        if form is None:
            return self.error(request, 403, "The form is out of date: reload the page.")
        folder = await self.run_folder(run_id)
        if folder is None:
            return self.error(request, 404, f"There is no run {run_id}.")
        return run_id, form, folder

    async def _from_past(self, request: Request, follow_up: bool) -> Response:
        found = await self._posted_run(request)
        if isinstance(found, Response):
            return found
        run_id, form, folder = found
        detail = await self.off_loop(read_run, folder)
        refusal = follow_up_refusal if follow_up else again_refusal
        refused = refusal(detail.summary, run_id in self.busy_runs())
        if refused:  # what the pages do not offer (opened before the run changed, or by hand)
            return self.error(request, 409, refused)
        question = detail.summary.question
        if follow_up:
            question = str(form.get("question") or "").strip()[:MAX_QUESTION]
            if not question:
                return self.error(request, 400, "Write the follow-up question.")
        try:
            job, use_demo, inputs = await asyncio.to_thread(self._past_settings, run_id, folder)
        except (ConfigError, ValueError) as exc:
            return self.error(request, 400, f"It cannot start with that run's settings: {exc}")
        if self.runner.full:
            return self.error(request, 503, QUEUE_FULL)
        job_id = self.runner.new_id()
        if follow_up:
            relative = await asyncio.to_thread(_report_file, folder, detail, "md")
            if relative is None:
                return self.error(request, 409, "That run wrote no Markdown report to read.")
            try:
                inputs = await asyncio.to_thread(
                    follow_up_input, folder, relative, self.runner.uploads, job_id
                )
            except (OSError, ValueError):  # no path in what the page says
                return self.error(request, 400, "The report could not be given to the run.")
        return self._queued(request, question, job, use_demo, inputs, job_id)

    def _past_settings(self, run_id: str, folder: Path) -> tuple[dict[str, Any], bool, Path | None]:
        """A past run's settings, checked as the start form's: those the form gave it
        when this server remembers them, else those its record keeps."""
        remembered = self.remembered(run_id)
        if remembered is not None:
            fields = remembered_fields(remembered)
            use_demo = bool(remembered.get("use_demo"))
            inputs = own_input(remembered.get("input_dir"), self.runner.uploads)
        else:
            fields, use_demo, inputs = recorded_fields(folder, self.runner.uploads)
        return self._job_fields(fields), use_demo, inputs

    async def run_page(self, request: Request) -> Response:
        run_id = request.path_params["run"]
        folder = await self.run_folder(run_id)
        if folder is None:
            return self.error(request, 404, f"There is no run {run_id}.")
        detail, inputs = await self.off_loop(_read, folder)
        recorded = await asyncio.to_thread(_recorded, folder)
        return self.page(
            request,
            "run.html",
            detail=detail,
            rows=MAX_ROWS,
            run_id=run_id,
            job=self.live_job(run_id),
            resumable=detail.summary.resumable,
            again=not again_refusal(detail.summary, run_id in self.busy_runs()),
            inputs=inputs,
            recorded=recorded,
            report=await self.report_of(folder, run_id, detail),
        )

    async def report_of(
        self, folder: Path | None, run_id: str, detail: RunDetail | None
    ) -> InlineReport | None:
        """The run's HTML report as the run page shows it (sanitised, off the event
        loop), or None when the run wrote none (or it was refused on the way)."""
        if folder is None or detail is None:
            return None
        found = await asyncio.to_thread(_report_file, folder, detail, "html")
        if found is None or not found.startswith("workspace/"):
            return None
        relative = found.removeprefix("workspace/")
        try:
            text = await self.off_loop(read_text, folder, found, MAX_SHOWN_BYTES)
        except FileTooLarge:
            return InlineReport(body="", lang="", too_large=True)
        except OSError:  # not there, or refused on the way (a link swapped in)
            return None
        address = f"/runs/{run_id}/workspace/{relative}"
        return await self.off_loop(inline_report, text, run_id, address)

    async def run_action(self, request: Request) -> Response:
        """Resume a stopped run, or replay a recorded one, as a new job; the page of the
        job at work on the run when there is one. A run that cannot be resumed, or was
        not recorded (its page was opened before it changed, or the form was sent by
        hand), is refused in words, as its page offers neither."""
        run_id, action = request.path_params["run"], request.path_params["action"]
        folder = await self.run_folder(run_id)
        if folder is None or action not in ("resume", "replay"):
            return self.error(request, 404, f"There is no run {run_id}.")
        if await self.form(request) is None:
            return self.error(request, 403, "The form is out of date: reload the page.")
        busy = self.live_job(run_id)
        if busy is not None and not busy.done:
            return RedirectResponse(f"/jobs/{busy.id}", status_code=303)
        detail = await self.off_loop(read_run, folder)
        if action == "resume" and detail.summary.not_resumable:
            return self.error(request, 409, _not_resumed(detail.summary))
        if action == "resume":
            unusable = await asyncio.to_thread(_unusable_model, folder)
            if unusable:
                return self.error(request, 409, unusable)
        if action == "replay" and not await asyncio.to_thread(_recorded, folder):
            return self.error(request, 409, _not_replayed(detail.summary))
        if self.runner.full:
            return self.error(request, 503, QUEUE_FULL)
        use_demo = await asyncio.to_thread(_researched_demo, folder)
        job = {"kind": action, "run_id": run_id, "use_demo": use_demo}
        entry = self.runner.submit(action, detail.summary.question, job)
        if action == "resume":
            entry.run_id = run_id
        return RedirectResponse(f"/jobs/{entry.id}", status_code=303)

    async def run_zip(self, request: Request) -> Response:
        run_id = request.path_params["run"]
        folder = await self.run_folder(run_id)
        if folder is None:
            return self.error(request, 404, f"There is no run {run_id}.")
        data = await self.off_loop(zipped, folder, run_id)
        return StreamingResponse(
            as_chunks(data),
            media_type="application/zip",
            headers={"content-disposition": disposition(f"{run_id}.zip")},
            background=BackgroundTask(data.close),
        )

    async def run_download(self, request: Request) -> Response:
        """A report of the run, sent from the descriptor it was opened on (a link put in
        its place is refused, never followed), named as the run named it."""
        run_id, fmt = request.path_params["run"], request.path_params["fmt"]
        folder = await self.run_folder(run_id)
        if folder is None or fmt not in DOWNLOADS:
            return self.error(request, 404, "There is no such report.")
        detail = await self.off_loop(read_run, folder)
        found = await asyncio.to_thread(_report_file, folder, detail, fmt)
        headers = {"content-security-policy": DOCUMENT_CSP}
        name = PurePosixPath(found).name if found else ""
        sent = await sent_file(folder, found, DOWNLOADS[fmt], headers, name) if found else None
        return sent or self.error(request, 404, f"The run wrote no {fmt} report.")

    async def run_file(self, request: Request) -> Response:
        """A file of the run's workspace: the report (its citations linked), a stored
        page as plain text, a chart; all under a policy that runs no script. Each is
        read without following a link at any level; what is sent as it is comes from
        the descriptor it was opened on, a chunk at a time."""
        run_id, relative = request.path_params["run"], request.path_params["path"]
        folder = await self.run_folder(run_id)
        if folder is None:
            return Response("not found", status_code=404, media_type="text/plain")
        headers = {"content-security-policy": DOCUMENT_CSP, "cache-control": "no-store"}
        name = PurePosixPath(relative).name
        suffix = PurePosixPath(name).suffix
        if suffix in (".html", ".htm"):
            text = await self.off_loop(workspace_text, folder, relative)
            if text is not None and laid_out(text):
                html = await self.off_loop(linked_report, text, run_id)
                return HTMLResponse(html, headers=headers)
            # too large to lay out, or refused: sent as its text, or not at all
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if suffix in TEXT_SUFFIXES:
            sent = await sent_file(
                folder, f"workspace/{relative}", "text/plain; charset=utf-8", headers
            )
        elif kind in IMAGES:
            sent = await sent_file(folder, f"workspace/{relative}", kind, headers)
        else:
            sent = await sent_file(folder, f"workspace/{relative}", kind, headers, name)
        return sent or Response("not found", status_code=404, media_type="text/plain")

    async def cite(self, request: Request) -> Response:
        run_id, evidence = request.path_params["run"], request.path_params["evidence"]
        folder = await self.run_folder(run_id)
        found = await self.off_loop(quoted, folder, evidence) if folder else None
        if found is None:
            return self.error(request, 404, "The run has no stored copy of that quote.")
        response = self.page(request, "cite.html", quote=found, run_id=run_id)
        response.headers["content-security-policy"] = DOCUMENT_CSP
        return response

    async def quote_panel(self, request: Request) -> Response:
        """The side panel's content for a citation: the stored page rendered, the
        quoted span marked, with its title and address."""
        run_id, evidence = request.path_params["run"], request.path_params["evidence"]
        folder = await self.run_folder(run_id)
        found = await self.off_loop(quoted, folder, evidence) if folder else None
        if found is None:
            return HTMLResponse("", status_code=404)
        body = await self.off_loop(stored_page, found)
        return self.panel(request, found, body, f"/runs/{run_id}/cite/{evidence}#quote")

    async def stored_panel(self, request: Request) -> Response:
        """The side panel's content for a stored copy of a page (a Markdown file of
        the run's workspace), rendered."""
        run_id, relative = request.path_params["run"], request.path_params["path"]
        folder = await self.run_folder(run_id)
        if folder is None or not relative.endswith(".md"):
            return HTMLResponse("", status_code=404)
        text = await self.off_loop(workspace_text, folder, relative)
        if text is None:
            return HTMLResponse("", status_code=404)
        body = await self.off_loop(stored_text, text)
        title, url = await asyncio.to_thread(stored_meta, folder, relative)
        shown = Quoted(title=title, url=url, before=text, span="", after="", locator="")
        return self.panel(request, shown, body, f"/runs/{run_id}/workspace/{relative}")

    def panel(self, request: Request, quote: Quoted, body: str, page: str) -> Response:
        """The panel's content: ``body`` (sanitised HTML) under the page's title and
        address, with a link to ``page``, its own page."""
        web = quote.url.startswith(("http://", "https://"))
        response = self.page(
            request, "_panel.html", quote=quote, body=Markup(body), web=web, own_page=page
        )
        response.headers["cache-control"] = "no-store"
        return response


def _run_folder(runs_dir: Path, run_id: str) -> Path | None:
    """The folder of run ``run_id`` in ``runs_dir`` (see :meth:`App.run_folder`)."""
    try:
        folder = find_run(runs_dir, run_id)
    except (RunNotFound, ValueError, OSError):
        return None
    linked = any(p.is_symlink() for p in (folder, folder / "workspace", folder / "internal"))
    return folder if folder.name == run_id and not linked else None


def _listed(runs_dir: Path) -> list[Any]:
    """The runs of ``runs_dir`` (none when it is not a folder), newest first."""
    return list_runs(runs_dir) if runs_dir.is_dir() else []


def _read(folder: Path) -> tuple[RunDetail, dict[str, int]]:
    """What a run's pages show of it: its detail and its use of the user's files."""
    return read_run(folder), inputs_used(folder)


def _plain_id(text: str) -> bool:
    """Whether ``text`` could be a run's id (letters, digits and dashes, short)."""
    return 0 < len(text) <= 40 and all(c.isascii() and (c.isalnum() or c == "-") for c in text)


def _decision(form: Any) -> tuple[dict[str, Any], str]:
    """The approval decision a form sends, or what is wrong with it."""
    action = str(form.get("action") or "")
    if action not in ("approve", "reject", "edit"):
        return {}, "Choose approve, reject or edit."
    answer: dict[str, Any] = {"action": action, "reason": str(form.get("reason") or "")[:500]}
    if action == "approve" and form.get("always") == "on":
        answer["always"] = True
    if action == "edit":
        try:
            answer["arguments"] = json.loads(str(form.get("arguments") or ""))
        except ValueError:
            return {}, "The edited arguments are not JSON."
    return answer, ""


def _not_resumed(run: RunSummary) -> str:
    """Why ``run`` is not resumed, as the page says it, with what can be done instead."""
    again = " Run it again to start over." if run.can_run_again else ""
    return f"This run cannot be resumed: {run.not_resumable}.{again}"


def _unusable_model(folder: Path) -> str:
    """Why the run in ``folder`` cannot be resumed with the model it started with (a
    provider this does not know, or one whose key is not set), in words; ``""`` when it
    can. Read without following a symbolic link, off the event loop."""
    model = saved_model(folder)[:MAX_MODEL_CHARS]
    try:
        check_spec(model)
    except ValueError as exc:  # the model's own words; no class name
        return f"This run cannot be resumed now with its model {model}: {exc}."
    return ""


def _not_replayed(run: RunSummary) -> str:
    """Why ``run`` is not replayed (it was not recorded), as the page says it, with what
    can be done instead."""
    again = "" if again_refusal(run, busy=False) else " Run it again to start over."
    return (
        "This run cannot be replayed: it was not recorded (a run is recorded when "
        f"“Record it” is chosen as it starts).{again}"
    )


def _said(done: bool) -> tuple[dict[str, Any], int]:
    """What an answer's JSON reply says, and its status: refused when it came late."""
    return ({"ok": True}, 200) if done else ({"ok": False, "said": "already answered"}, 409)


def _report_file(folder: Path, detail: RunDetail, fmt: str) -> str | None:
    """Where the run's report in ``fmt`` (``zip``: with its sources) is inside its
    folder, ``/``-separated, or None. run.json names the reports: one outside the run
    folder is none (a ``..`` or a link on the way is refused when it is opened)."""
    found = detail.archive if fmt == "zip" else detail.report(fmt)
    if found is None or not found.is_relative_to(folder):
        return None
    return found.relative_to(folder).as_posix()


def _researched_demo(folder: Path) -> bool:
    """Whether the run researched the demo web (its world is then served again); read
    without following a symbolic link, off the event loop."""
    for name, limit in ((CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES), (RUN_JSON, MAX_RECORD_BYTES)):
        try:
            saved = json.loads(read_text(folder, name, limit))
            origin = saved["settings"]["origin"]
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            continue
        return isinstance(origin, dict) and origin.get("kind") == "demo"
    return False


def _recorded(folder: Path) -> bool:
    """Whether the run was recorded (its model answers kept to replay it); read without
    following a symbolic link, off the event loop."""
    if not (folder / "internal" / "tape").is_dir():
        return False
    try:
        record = json.loads(read_text(folder, RUN_JSON, MAX_RECORD_BYTES))
        return bool(record["settings"]["record"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return False


def build_app(
    runs_dir: Path,
    guard: Guard,
    limit: int = 2,
    demo: Callable[[], dict[str, Any]] | None = None,
    on_close: Callable[[], None] | None = None,
) -> Any:
    """The ASGI app for ``runs_dir``, behind ``guard``.

    Args:
        runs_dir: where run folders are (and are made).
        guard: the access token, allowed hosts and CSRF token.
        limit: runs working at once.
        demo: starts the demo world on first use; its data for the workers.
        on_close: called once the server stops (after the runs are stopped).
    """
    runner = Runner(runs_dir, limit=limit, demo=demo)
    app = App(runs_dir, guard, runner)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await runner.close()
            app.heavy.shutdown(wait=False, cancel_futures=True)
            if on_close is not None:
                on_close()

    routes = [
        Route("/", app.home),
        Route("/favicon.ico", lambda _: Response(status_code=204)),
        Route("/jobs", app.start, methods=["POST"]),
        Route("/jobs/{job}", app.job_page),
        Route("/jobs/{job}/events", app.job_events),
        Route("/jobs/{job}/result", app.job_result),
        Route("/jobs/{job}/stop", app.job_stop, methods=["POST"]),
        Route("/jobs/{job}/answer", app.job_answer, methods=["POST"]),
        Route("/runs", app.runs),
        Route("/runs/{run}", app.run_page),
        Route("/runs/{run}/zip", app.run_zip),
        Route("/runs/{run}/download/{fmt}", app.run_download),
        Route("/runs/{run}/cite/{evidence}", app.cite),
        Route("/runs/{run}/quote/{evidence}", app.quote_panel),
        Route("/runs/{run}/stored/{path:path}", app.stored_panel),
        Route("/runs/{run}/workspace/{path:path}", app.run_file),
        Route("/runs/{run}/delete", app.run_delete, methods=["POST"]),
        Route("/runs/{run}/again", app.run_again, methods=["POST"]),
        Route("/runs/{run}/follow-up", app.run_follow_up, methods=["POST"]),
        Route("/runs/{run}/{action}", app.run_action, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    starlette = Starlette(routes=routes, lifespan=lifespan)
    starlette.state.app = app
    return GuardMiddleware(starlette, guard)
