"""The runs list of ``quartet serve`` in Chromium: search, delete, run again, follow-up.

One server and one browser serve the module (the fixtures of ``test_serve``). The
scenario starts a demo run A from the start form with downloads to approve; from the runs
list it runs A again (X) at a desk's size and asks a follow-up question of A (Y) at a
phone's, both at once; then it starts a run R that waits for its plan to be reviewed, to
try deleting a run at work. The tests read what it saw; the deletions come last, at
both sizes, against copies of A.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from serve_support import DESK, PHONE, SIZES, Served, shot, viewport
from test_serve import WAIT_MS, browser, ended, server, start  # noqa: F401 - fixtures
from test_serve import _run_id as run_of

from demo.site import DEMO_QUESTION

FOLLOW_UP = "What is the difference between a pound lock and a flash lock?"


def finish(page: Page) -> int:
    """Wait for the job shown in ``page`` to end, allowing each tool the run asks about
    for the rest of the run; how many times it asked."""
    asked, always = 0, ".ask[data-ask] button[data-action=always]"
    page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
    while True:
        page.wait_for_selector(f"#job[data-ended=true], {always}", timeout=WAIT_MS)
        if ended(page):
            return asked
        page.locator(always).first.click()
        asked += 1
        page.wait_for_selector(always, state="detached", timeout=WAIT_MS)


def row(page: Page, run_id: str) -> Any:
    """The runs list's row of run ``run_id``."""
    return page.locator(f"table.runs tr[data-run='{run_id}']")


def job_of(page: Page) -> str:
    """The id of the job whose page ``page`` shows."""
    page.wait_for_url("**/jobs/*", timeout=WAIT_MS)
    return page.url.rsplit("/", 1)[1]


def runs_listed(page: Page) -> list[str]:
    """The ids of the runs the runs list shows."""
    rows = page.locator("table.runs tr[data-run]")
    return [rows.nth(n).get_attribute("data-run") or "" for n in range(rows.count())]


@pytest.fixture(scope="module")
def past(
    server: Served,  # noqa: F811 - the imported fixtures
    browser: Browser,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    shots = tmp_path_factory.mktemp("runs-shots")
    context = browser.new_context(viewport=viewport(DESK))
    phone = browser.new_context(viewport=viewport(PHONE))
    a, x, y = context.new_page(), context.new_page(), phone.new_page()
    seen: dict[str, Any] = {"context": context, "shots": shots}
    seen["a"] = start(a, server.url, ("md",), max_pages=6, max_rounds=1, approve=("http_download",))
    seen["a_asked"] = finish(a)
    seen["a_run"] = run_of(server, seen["a"])
    for page in (x, y):
        page.goto(server.url + "/runs")
    x.bring_to_front()
    shot(x, shots, "runs")
    row(x, seen["a_run"]).locator("button[data-again]").click()
    seen["x"] = job_of(x)
    y.bring_to_front()
    mine = row(y, seen["a_run"])
    mine.locator("details.follow-up summary").click()
    mine.locator("input[name=question]").fill(FOLLOW_UP)
    shot(y, shots, "follow-up-asked")
    mine.locator("button[data-follow-up]").click()
    seen["y"] = job_of(y)
    seen["y_question"] = y.locator("h1").inner_text()
    seen["x_asked"] = finish(x)
    finish(y)
    shot(x, shots, "run-again-job")
    shot(y, shots, "follow-up-job")
    seen["x_run"], seen["y_run"] = run_of(server, seen["x"]), run_of(server, seen["y"])
    y.goto(f"{server.url}/runs/{seen['y_run']}")
    seen["y_files"] = y.locator("#files").inner_text()
    shot(y, shots, "follow-up-run")
    yield seen
    context.close()
    phone.close()


def record(served: Served, run_id: str) -> dict[str, Any]:
    return json.loads((served.runs_dir / run_id / "internal/run.json").read_text())


def test_run_again_queues_a_run_of_the_same_question_with_the_same_settings(
    server: Served,  # noqa: F811
    past: Any,
):
    first, again = record(server, past["a_run"]), record(server, past["x_run"])
    assert past["x_run"] != past["a_run"]
    assert again["question"] == first["question"] == DEMO_QUESTION
    assert again["settings"]["origin"]["kind"] == "demo"  # the demo web again
    for name in ("formats", "max_pages", "max_rounds", "model"):
        assert again["settings"][name] == first["settings"][name], name
    assert again["settings"]["formats"] == ["md"] and again["settings"]["max_pages"] == 6
    # the same approvals: the run asked before downloading, as the first one did
    assert past["a_asked"] >= 1 and past["x_asked"] >= 1
    assert {d["tool"] for d in again["approvals"]} == {"http_download"}


def test_a_follow_up_reads_the_previous_report_as_the_users_own_file(
    server: Served,  # noqa: F811
    past: Any,
):
    follow = record(server, past["y_run"])
    assert follow["question"] == past["y_question"] == FOLLOW_UP
    inputs = Path(follow["settings"]["input_dir"])
    uploads = (server.runs_dir / ".uploads").resolve()
    assert inputs.resolve().parent == uploads and inputs.name == past["y"]
    (report,) = (server.runs_dir / past["a_run"] / "workspace/reports").glob("*.md")
    (given,) = inputs.iterdir()
    assert given.name == report.name and given.read_bytes() == report.read_bytes()
    assert f"{report.name} — read" in past["y_files"]  # the run read it as the user's file
    used = [f for f in follow["files"] if f["path"] == f"/userinput/{report.name}"]
    assert [f["use"] for f in used] == ["read"]
    assert not list(uploads.glob(".*.partial"))  # made whole, nothing half-written left
    for name in ("follow-up-asked", "follow-up-job", "follow-up-run"):
        assert (past["shots"] / f"{name}-{PHONE[0]}.png").exists(), name
    for name in ("runs", "run-again-job"):
        assert (past["shots"] / f"{name}-{DESK[0]}.png").exists(), name


@SIZES
def test_the_search_box_narrows_the_runs_list(
    server: Served,  # noqa: F811
    past: Any,
    browser: Browser,  # noqa: F811
    tmp_path: Path,
    size: tuple[int, int],
):
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    page.goto(server.url + "/runs")
    every = runs_listed(page)
    assert {past["a_run"], past["x_run"], past["y_run"]} <= set(every)
    shot(page, tmp_path, "runs")  # and no sideways scrolling
    mine = row(page, past["a_run"])  # A's follow-up form, opened (not sent) at this size
    mine.locator("details.follow-up summary").click()
    for field in ("input[name=question]", "button[data-follow-up]"):
        box = mine.locator(field).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size[0], field
    shot(page, tmp_path, "runs-follow-up")
    page.fill("#q", "POUND  lock")  # any case, any spacing: words of the question
    page.click("#search button[type=submit]")
    page.wait_for_url("**/runs?q=*")
    assert runs_listed(page) == [past["y_run"]]
    assert page.input_value("#q") == "POUND  lock"  # the search is shown as typed
    assert "1 of" in page.locator("#matched").inner_text()
    page.goto(server.url + "/runs?q=grand+CANAL+water")
    canal = runs_listed(page)
    assert {past["a_run"], past["x_run"]} <= set(canal) and past["y_run"] not in canal
    page.goto(server.url + "/runs?q=zeppelin+canal")
    expect(page.locator("#no-match")).to_contain_text("zeppelin canal")
    assert runs_listed(page) == [] and page.input_value("#q") == "zeppelin canal"
    shot(page, tmp_path, "runs-none")
    assert len(list(tmp_path.glob("*.png"))) == 3
    context.close()


def _form(served: Served, **fields: str) -> dict[str, str]:
    return {"csrf": served.csrf(), **fields}


def _post(served: Served, path: str, data: dict[str, str]) -> httpx.Response:
    with served.client(cookies=served.cookies()) as http:
        return http.post(path, data=data, headers={"Origin": served.url})


def test_a_run_at_work_cannot_be_deleted_started_again_or_followed_up(
    server: Served,  # noqa: F811
    past: Any,
):
    """R waits for its plan to be reviewed: its folder exists and a job works on it."""
    page = past["context"].new_page()
    job = start(page, server.url, ("md",), max_pages=4, max_rounds=1, review_plan=True)
    page.wait_for_selector(".ask textarea[name=parts]", timeout=WAIT_MS)
    page.wait_for_selector("#run-link a", timeout=WAIT_MS)
    run_id = run_of_page(page)
    folder = server.runs_dir / run_id
    assert folder.is_dir()
    listing = past["context"].new_page()
    listing.goto(server.url + "/runs")
    expect(row(listing, run_id).locator("[data-busy]")).to_have_text("working now")
    assert row(listing, run_id).locator("button[data-delete]").count() == 0
    refused = _post(server, f"/runs/{run_id}/delete", _form(server, confirm="yes"))
    assert refused.status_code == 409 and "stop it before deleting it" in refused.text
    assert folder.is_dir()
    # nor started again, nor asked a follow-up: the list offers neither while it works
    for action, said in (("again", "start it again"), ("follow-up", "ask your follow-up")):
        assert row(listing, run_id).locator(f"[data-{action}]").count() == 0
        sent = _post(server, f"/runs/{run_id}/{action}", _form(server, question=FOLLOW_UP))
        assert sent.status_code == 409, (action, sent.status_code)
        assert f"This run is working or waiting to work: {said} once it has ended." in sent.text
    page.bring_to_front()
    page.click("#stop")
    page.wait_for_selector("#job[data-ended=true]", timeout=WAIT_MS)
    assert job and folder.is_dir()  # stopped, kept
    listing.close()
    page.close()


def run_of_page(page: Page) -> str:
    """The run id a job page links to."""
    href = page.locator("#run-link a").get_attribute("href") or ""
    found = re.fullmatch(r"/runs/([\w-]+)", href)
    assert found, href
    return found.group(1)


@SIZES
def test_deleting_asks_first_naming_the_question_then_removes_the_folder(
    server: Served,  # noqa: F811
    past: Any,
    browser: Browser,  # noqa: F811
    tmp_path: Path,
    size: tuple[int, int],
):
    run_id = {DESK: "20991230-000000-de1e7e", PHONE: "20991230-000000-de1e7f"}[size]  # A's copy
    folder = server.runs_dir / run_id
    shutil.copytree(server.runs_dir / past["a_run"], folder, symlinks=True)
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    page.goto(server.url + "/runs")
    row(page, run_id).locator("button[data-delete]").click()
    page.wait_for_url(f"**/runs/{run_id}/delete")
    expect(page.locator("#delete-question")).to_have_text(DEMO_QUESTION)
    shot(page, tmp_path, "delete-asked")
    assert folder.is_dir()  # asking removed nothing
    page.click("#keep")
    page.wait_for_url("**/runs")
    assert folder.is_dir() and run_id in runs_listed(page)
    row(page, run_id).locator("button[data-delete]").click()
    page.click("#confirm-delete")
    page.wait_for_url("**/runs?deleted=*")
    expect(page.locator("#deleted")).to_contain_text(run_id)
    shot(page, tmp_path, "deleted")
    assert not folder.exists() and run_id not in runs_listed(page)
    assert not [p for p in server.runs_dir.iterdir() if p.name.startswith(".deleting-")]
    assert (server.runs_dir / past["a_run"]).is_dir()  # the others stay
    stale = _post(server, f"/runs/{run_id}/delete", {"csrf": "stale", "confirm": "yes"})
    assert stale.status_code == 403
    context.close()


def test_deleting_refuses_links_prefixes_and_paths_outside_the_runs_folder(
    server: Served,  # noqa: F811
    past: Any,
    tmp_path: Path,
):
    source = server.runs_dir / past["a_run"]
    outside = tmp_path / "elsewhere"
    shutil.copytree(source, outside / past["a_run"], symlinks=True)
    linked = server.runs_dir / "20991231-235959-0000aa"  # the whole folder a link
    linked.symlink_to(outside / past["a_run"], target_is_directory=True)
    planted = server.runs_dir / "20991231-235959-0000bb"  # a real folder, a linked workspace
    (planted / "internal").mkdir(parents=True)
    shutil.copy(source / "internal/run.json", planted / "internal/run.json")
    (planted / "workspace").symlink_to(outside / past["a_run"] / "workspace")
    before = sorted(str(p) for p in outside.rglob("*"))
    try:
        for run_id in (linked.name, planted.name, past["a_run"][:10], "..", "%2E%2E"):
            answer = _post(server, f"/runs/{run_id}/delete", _form(server, confirm="yes"))
            assert answer.status_code in (404, 405), (run_id, answer.status_code)
            assert str(server.runs_dir) not in answer.text  # no path said
        climbing = _post(server, "/runs/..%2F..%2Felsewhere/delete", _form(server, confirm="yes"))
        assert climbing.status_code in (404, 405)
        assert sorted(str(p) for p in outside.rglob("*")) == before
        assert linked.is_symlink() and (planted / "workspace").is_symlink()
        assert source.is_dir()
    finally:
        linked.unlink()
        shutil.rmtree(planted)


def test_run_again_and_follow_up_need_the_forms_token_and_a_question(
    server: Served,  # noqa: F811
    past: Any,
):
    run_id = past["a_run"]
    jobs_before = sorted((server.runs_dir / ".uploads").iterdir())
    for action in ("again", "follow-up"):
        stale = _post(server, f"/runs/{run_id}/{action}", {"csrf": "stale", "question": "x"})
        assert stale.status_code == 403
    empty = _post(server, f"/runs/{run_id}/follow-up", _form(server, question="  "))
    assert empty.status_code == 400 and "Write the follow-up question" in empty.text
    assert sorted((server.runs_dir / ".uploads").iterdir()) == jobs_before


def test_an_older_runs_settings_are_read_from_its_record(
    server: Served,  # noqa: F811
    past: Any,
):
    """A run the server no longer remembers (started elsewhere, or before a restart) is
    run again with the settings its ``run.json`` keeps, checked as the start form's."""
    from webapp.app import App
    from webapp.past_runs import recorded_fields, remembered_fields

    folder, uploads = server.runs_dir / past["a_run"], server.runs_dir / ".uploads"
    fields, demo, inputs = recorded_fields(folder, uploads)
    assert demo and inputs is None  # the demo web brings its own files
    checked = App._job_fields(fields)
    assert checked["formats"] == ["md"] and checked["approve"] == ["http_download"]
    assert (checked["max_pages"], checked["max_rounds"], checked["model"]) == (6, 1, "offline")
    remembered = {"formats": ["md"], "max_pages": 6, "max_rounds": 1, "model": "offline"}
    form = App._job_fields(remembered_fields({**remembered, "approve": ["http_download"]}))
    assert {k: checked[k] for k in form} == form
    follow = server.runs_dir / past["y_run"]
    _, _, given = recorded_fields(follow, uploads)  # a follow-up's files: this server's own
    assert given is not None and given.name == past["y"]
