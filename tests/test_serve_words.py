"""Run again where Resume cannot work, and a run's status in one set of words, in
``quartet serve`` driven in Chromium at a desk's size and a phone's.

Two past runs are put in the server's runs folder as the Host leaves them: one failed
(its record's error led by a class name, as an older version wrote it) and one stopped
before its first checkpoint. Neither offers Resume; each offers Run again, which starts
a new run of the same question with the same settings: the demo web, asked a question
nothing on it answers, so the new runs find nothing. Their live pages, once they end, say
so in the words of their runs' pages, as the start page's list of the session's runs does.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import test_serve
from playwright.sync_api import Browser, Page, expect
from serve_support import SIZES, Served, shot, viewport
from test_serve import WAIT_MS

browser = test_serve.browser
server = test_serve.server

#: A question the demo web has nothing on: a run of it on the demo finds nothing (exit 3).
QUESTION = "How do heat pumps work?"
#: The settings the two past runs recorded: the demo web, a small budget.
SETTINGS = {
    "model": "offline",
    "formats": ["md"],
    "max_pages": 4,
    "max_rounds": 1,
    "origin": {"kind": "demo"},
}
FAILED = "20260101-000000-fa11ed"
EARLY = "20260101-000001-ea121e"
#: A run that finished with an HTML report only, and one stopped with its checkpoint.
HTML_ONLY = "20260101-000002-0a7c11"
RESUMABLE = "20260101-000003-5a7ed0"
#: A follow-up question asked of the past runs.
FOLLOW_UP = "Which refrigerants do they use?"
#: Why the failed run failed, as its record keeps it and as the pages tell it.
RECORDED_ERROR = "RuntimeError: the research could not begin"
FAILED_WORDS = "failed: the research could not begin"
FOUND_NOTHING = "finished: found nothing"
#: An exception's class name, as none of the pages may show one.
CLASS_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")


def _past_run(runs: Path, run_id: str, record: dict[str, Any]) -> None:
    """A run folder holding ``record`` as its run.json, and nothing else."""
    folder = runs / run_id
    (folder / "internal").mkdir(parents=True)
    (folder / "workspace" / "reports").mkdir(parents=True)
    text = json.dumps({"question": QUESTION, "settings": SETTINGS, **record})
    (folder / "internal" / "run.json").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def past(server: Served) -> Served:
    """The server, with the failed run and the run stopped before its first checkpoint
    in its runs folder."""
    failed = {"status": "finished", "exit_code": 1, "errors": [RECORDED_ERROR], "outputs": []}
    _past_run(server.runs_dir, FAILED, failed)
    _past_run(server.runs_dir, EARLY, {"status": "stopped", "exit_code": 130})
    html = {"status": "finished", "exit_code": 0, "outputs": ["/workspace/reports/report.html"]}
    _past_run(server.runs_dir, HTML_ONLY, html)
    _past_run(server.runs_dir, RESUMABLE, {"status": "interrupted", "exit_code": 130})
    (server.runs_dir / RESUMABLE / "internal" / "checkpoint.json").write_text("{}")
    return server


def _run_again(page: Page, served: Served, run_id: str, status: str, picture: Path) -> str:
    """Open run ``run_id``'s page, check its status says ``status`` and it offers Run
    again and not Resume (its screenshot: ``picture``), and start it again; the new
    job's id, once its page shows."""
    page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
    page.goto(f"{served.url}/runs/{run_id}")
    assert page.locator("#run-status").inner_text() == status
    expect(page.locator("#again")).to_be_visible()
    expect(page.locator("#resume")).to_have_count(0)
    assert not CLASS_NAME.search(page.locator("main").inner_text())
    shot(page, picture.parent, picture.name)
    with page.expect_navigation(timeout=WAIT_MS):
        page.click("#again")
    assert re.search(r"/jobs/[0-9a-f]+$", page.url), page.locator("main").inner_text()
    expect(page.locator("h1.question")).to_have_text(QUESTION)
    return page.url.rsplit("/", 1)[1]


def _ended_words(page: Page, folder: Path, name: str) -> tuple[str, str]:
    """What the job page says once its run ended, and what its run's page says."""
    page.bring_to_front()
    expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    live = page.locator("#state").inner_text()
    shot(page, folder, name)
    page.click("#run-link a")
    page.wait_for_url("**/runs/*", timeout=WAIT_MS)
    return live, page.locator("#run-status").inner_text()


@SIZES
def test_run_again_starts_over_where_resume_cannot_and_the_end_is_told_alike(
    past: Served, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    """A failed run and one stopped before its first checkpoint offer Run again, not
    Resume; the failed one tells its reason without the class name. Run again starts a
    new run of the same question on the demo web; it finds nothing, and its live page,
    its run's page and the session's list say so in the same words."""
    context = browser.new_context(viewport=viewport(size))
    failed, early = context.new_page(), context.new_page()
    jobs = [
        _run_again(failed, past, FAILED, FAILED_WORDS, tmp_path / "failed-run"),
        _run_again(early, past, EARLY, "stopped", tmp_path / "stopped-run"),
    ]
    told = [
        _ended_words(failed, tmp_path, "again-of-failed-job"),
        _ended_words(early, tmp_path, "again-of-stopped-job"),
    ]
    assert told == [(FOUND_NOTHING, FOUND_NOTHING)] * 2, told
    shot(failed, tmp_path, "found-nothing-run")
    failed.goto(past.url + "/")
    for job in jobs:
        listed = failed.locator(f'.jobs li:has(a[href="/jobs/{job}"]) [data-job-state]')
        expect(listed).to_have_text(FOUND_NOTHING)
        assert "state-not-found" in (listed.get_attribute("class") or "")
    shot(failed, tmp_path, "session-runs")
    with past.client(cookies=past.cookies()) as http:  # the page as the server draws it
        drawn = http.get(f"/jobs/{jobs[0]}").text
    assert re.search(rf'class="state state-not-found" id="state"[^>]*>{FOUND_NOTHING}<', drawn)
    assert len(list(tmp_path.glob(f"*-{size[0]}.png"))) == 6
    context.close()


def test_resume_is_refused_in_words_where_it_cannot_work(past: Served):
    """A Resume sent from a page opened before (or by hand) for a run that cannot resume
    is refused with the reason in words, and starts nothing."""
    before = sorted(p.name for p in past.runs_dir.iterdir())
    form = {"csrf": past.csrf()}
    with past.client(cookies=past.cookies()) as http:
        queued = http.get("/").text.count("data-job-state")
        for run_id, why in (
            (EARLY, "it stopped before its first checkpoint; there is nothing to resume"),
            (FAILED, "it failed, and a failed run is not resumed"),
        ):
            sent = http.post(f"/runs/{run_id}/resume", data=form, headers={"Origin": past.url})
            assert sent.status_code == 409, (run_id, sent.status_code)
            said = f"This run cannot be resumed: {why}. Run it again to start over."
            assert said in sent.text, sent.text[-800:]
            assert not CLASS_NAME.search(sent.text)
        assert http.get("/").text.count("data-job-state") == queued  # no job was queued
    assert sorted(p.name for p in past.runs_dir.iterdir()) == before


def _row(listing: str, run_id: str) -> str:
    """The runs list's row of run ``run_id``, as the server draws it."""
    return listing.split(f'<tr data-run="{run_id}">', 1)[1].split("</tr>", 1)[0]


def test_what_the_pages_do_not_offer_is_refused_in_words(past: Served):
    """A replay of a run never recorded, Run again of a run that can be resumed, and a
    follow-up question of a run without a Markdown report (failed, stopped early, or
    written as HTML only): the pages offer none of them, and each, sent anyway, is
    refused with the reason in words and starts nothing."""
    before = sorted(p.name for p in past.runs_dir.iterdir())
    form, origin = {"csrf": past.csrf()}, {"Origin": past.url}
    none = "A follow-up question reads the Markdown report of a finished run, and this run"
    refused = [
        (FAILED, "replay", "This run cannot be replayed: it was not recorded"),
        (RESUMABLE, "again", "This run can be resumed: resume it to go on where it stopped."),
        *((run_id, "follow-up", f"{none} has none.") for run_id in (FAILED, EARLY, HTML_ONLY)),
    ]
    with past.client(cookies=past.cookies()) as http:
        listing = http.get("/runs").text
        for run_id in (FAILED, EARLY, HTML_ONLY, RESUMABLE):
            assert "data-follow-up" not in _row(listing, run_id), run_id
            assert 'id="replay"' not in http.get(f"/runs/{run_id}").text, run_id
        assert "data-again" not in _row(listing, RESUMABLE)
        assert 'id="again"' not in http.get(f"/runs/{RESUMABLE}").text
        queued = http.get("/").text.count("data-job-state")
        for run_id, action, said in refused:
            fields = {**form, "question": FOLLOW_UP}
            sent = http.post(f"/runs/{run_id}/{action}", data=fields, headers=origin)
            assert sent.status_code == 409, (run_id, action, sent.status_code)
            assert said in sent.text, sent.text[-800:]
            assert not CLASS_NAME.search(sent.text) and str(past.runs_dir) not in sent.text
        assert http.get("/").text.count("data-job-state") == queued  # no job was queued
    assert sorted(p.name for p in past.runs_dir.iterdir()) == before


def _ended(runs: Path, ends: list[tuple[str, str | None, str, str]]) -> dict[str, Any]:
    """Each of ``ends`` (a job's name, its run's id, the state it ends in and why it
    failed) ended by a runner of ``runs``: what the job then says, its style, and what
    its last event says. Run in a thread of its own, with its own event loop (the
    module's browser holds the test's thread)."""
    from webapp.runner import Job, Runner

    async def end_each() -> dict[str, Any]:
        runner = Runner(runs)
        ended: dict[str, Any] = {}
        for name, run_id, state, reason in ends:
            job = Job(name, "run", QUESTION, {}, state="running", run_id=run_id)
            await runner.end(job, state, reason)
            ended[name] = (job.told, job.style, json.loads(job.events[-1].data)["told"])
        return ended

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, end_each()).result(timeout=120)


def test_an_ended_job_tells_its_runs_words_unless_they_say_less(tmp_path: Path):
    """A job that ended says what its run's page says (a failed one, its run's reason);
    a job waiting for the user says "waiting for you"; a resume that failed says why,
    not the stopped run's words; a job whose run cannot be read, or that had none, says
    its own."""
    from webapp.runner import Job

    runs = tmp_path / "runs"
    _past_run(runs, "20260101-000000-aaaaaa", {"status": "finished", "exit_code": 3})
    _past_run(runs, "20260101-000001-aaaaaa", {"status": "interrupted", "exit_code": 130})
    (runs / "20260101-000001-aaaaaa" / "internal" / "checkpoint.json").write_text("{}")
    failed = {"status": "finished", "exit_code": 1, "errors": [RECORDED_ERROR]}
    _past_run(runs, "20260101-000002-aaaaaa", failed)
    gone, said_nothing = (
        "failed: its input folder is gone",
        "failed: the run failed without saying why",
    )
    ended = _ended(
        runs,
        [
            ("nothing", "20260101-000000-aaaaaa", "finished", ""),
            ("stopped", "20260101-000001-aaaaaa", "stopped", ""),
            ("resume failed", "20260101-000001-aaaaaa", "failed", "its input folder is gone"),
            ("run failed", "20260101-000002-aaaaaa", "failed", "exit 1"),
            ("no such run", "20260101-000009-aaaaaa", "stopped", ""),
            ("no run", None, "failed", ""),
        ],
    )
    assert ended == {
        "nothing": (FOUND_NOTHING, "not-found", FOUND_NOTHING),
        "stopped": (
            "stopped early, report written, can be resumed",
            "interrupted",
            "stopped early, report written, can be resumed",
        ),
        "resume failed": (gone, "failed", gone),
        "run failed": (FAILED_WORDS, "failed", FAILED_WORDS),
        "no such run": ("stopped", "stopped", "stopped"),
        "no run": (said_nothing, "failed", said_nothing),
    }
    waiting = Job("w", "run", QUESTION, {}, state="running")
    waiting.pending[1] = {"type": "plan_review"}
    assert (waiting.told, waiting.style) == ("waiting for you", "waiting-for-you")
