"""``quartet serve`` driven in Chromium against the demo web, and attacked over HTTP.

One server and one browser serve the whole module. The scenario starts three demo runs
from the page with two allowed at once: A (the report, watched and reloaded mid-run),
B (an uploaded file, an approval policy for downloads, answered in the page, from two
tabs) and C (queued behind them, stopped from the page, then resumed). The tests below
read what the scenario saw; the attacks run once the runs are done, against their
folders.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cli_support import demo_runs_dir
from playwright.sync_api import Browser, Page, expect, sync_playwright
from serve_support import DESK, PHONE, SIZES, Served, serve, shot, tree, viewport

from subagents.browser.session import CHROMIUM_FLAGS, chromium_path

FINAL = {"answered", "partly answered", "not found", "not researched"}
SCENARIO_TIMEOUT = 420.0
WAIT_MS = 240_000
NOTES = (
    "# Field notes on the Grand Canal\n\n"
    "The summit section at Nanwang was supplied with water by the Wen River, which the "
    "Daicun Dam turned towards the canal in 1411.\n"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    runs = tmp_path_factory.mktemp("serve") / "runs"
    runs.mkdir()
    with serve(demo_runs_dir(runs)) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Any:
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path(), args=list(CHROMIUM_FLAGS))
        try:
            yield chromium
        finally:
            chromium.close()


def start(page: Page, url: str, formats: tuple[str, ...], **options: Any) -> str:
    """Fill the start form for a demo run and submit it; the job's id."""
    page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
    page.goto(url + "/")
    page.check("#demo")
    page.click("details summary")
    for box in page.locator("input[name=formats]").all():
        if box.get_attribute("value") not in formats:
            box.uncheck()
    if options.get("files"):
        page.set_input_files("#files", options["files"])
    for field in ("max_pages", "max_rounds"):
        if options.get(field):
            page.fill(f"#{field}", str(options[field]))
    for tool in options.get("approve", ()):
        page.check(f"#ask-{tool}")
    if options.get("review_plan"):
        page.check("#review_plan")
    page.click("#start button[type=submit]")
    page.wait_for_url("**/jobs/*")
    return page.url.rsplit("/", 1)[1]


def ended(page: Page) -> bool:
    return page.locator("#job[data-ended=true]").count() == 1


def events(served: Served, job: str, last: int | None = None) -> list[dict[str, Any]]:
    """A finished job's events as the server sends them (after ``last``, when given)."""
    headers = {"Last-Event-ID": str(last)} if last is not None else {}
    found: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    with served.client() as http, http.stream("GET", f"/jobs/{job}/events", headers=headers) as r:
        for line in r.iter_lines():
            if not line:
                if current.get("event") not in (None, "end"):
                    found.append(current)
                current = {}
            elif ":" in line and not line.startswith(":"):
                name, _, value = line.partition(":")
                current[name] = value.removeprefix(" ")
    for event in found:
        event["id"] = int(event["id"])
        event["data"] = json.loads(event["data"])
    return found


def _approve(page: Page, other: Page | None, served: Served, seen: dict[str, Any]) -> Page:
    """Approve the call the page asks about; the first time, from one of two tabs."""
    card = page.locator(".ask[data-ask]").first
    ask = card.get_attribute("data-ask")
    if other is None:
        other = page.context.new_page()
        other.goto(page.url)
        other.wait_for_selector(f'.ask[data-ask="{ask}"]', timeout=WAIT_MS)
        page.bring_to_front()
        card.locator("button[data-action=approve]").click()
        other.wait_for_selector(f'.ask[data-ask="{ask}"]', state="detached", timeout=WAIT_MS)
        form = {"csrf": served.csrf(), "ask": ask, "action": "reject"}
        with served.client() as http:
            again = http.post(
                page.url.removeprefix(served.url) + "/answer",
                data=form,
                headers={"Origin": served.url, "Accept": "application/json"},
            )
        seen["second_answer"] = again.status_code
    else:
        page.bring_to_front()
        card.locator("button[data-action=approve]").click()
    page.wait_for_selector(f'.ask[data-ask="{ask}"]', state="detached", timeout=WAIT_MS)
    seen["approvals"] = seen.get("approvals", 0) + 1
    return other


@pytest.fixture(scope="module")
def scenario(server: Served, browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Any:
    notes = tmp_path_factory.mktemp("inputs") / "field-notes.md"
    notes.write_text(NOTES, encoding="utf-8")
    shots = tmp_path_factory.mktemp("scenario-shots")
    context = browser.new_context(viewport=viewport(DESK))
    a, b, c = context.new_page(), context.new_page(), context.new_page()
    seen: dict[str, Any] = {}
    seen["a"] = start(a, server.url, ("md", "html"), max_pages=8)
    seen["b"] = start(
        b,
        server.url,
        ("md",),
        files=[str(notes)],
        approve=("http_download",),
        max_pages=6,
        max_rounds=1,
    )
    seen["c"] = start(c, server.url, ("md",), max_pages=6, max_rounds=1, review_plan=True)
    seen["c_first_state"] = c.locator("#state").inner_text()
    other: Page | None = None
    stopped = False
    deadline = time.monotonic() + SCENARIO_TIMEOUT
    while not (stopped and ended(a) and ended(b) and ended(c)):
        assert time.monotonic() < deadline, "the runs did not end in time"
        if "reload" not in seen and not ended(a) and a.locator("#feed li.line").count() >= 8:
            seen["reload"] = a.locator("#state").inner_text()
            a.reload()
        if b.locator(".ask[data-ask]").count():
            other = _approve(b, other, server, seen)
        if "c_plan" not in seen and c.locator(".ask textarea[name=parts]").count():
            c.bring_to_front()
            parts = c.locator(".ask textarea[name=parts]").input_value().splitlines()
            seen["c_plan"] = [*parts[:-1], "How deep is the canal at Yangzhou?"]
            c.fill(".ask textarea[name=parts]", "\n".join(seen["c_plan"]))
            c.click(".ask button")
        reading = c.locator("#feed li.line", has_text="▶ Searching").count()
        if not stopped and reading and c.locator("#run-link a").count():
            c.bring_to_front()
            c.click("#stop")
            stopped = True
        a.wait_for_timeout(100)  # the next look at the three pages
    for page in (a, b, c):
        page.wait_for_selector("#job[data-ended=true]", timeout=WAIT_MS)
    seen["a_feed"] = a.locator("#feed li.line").all_inner_texts()
    seen["a_last"] = a.locator("#job").get_attribute("data-last")
    seen["a_seen"] = a.locator("#job").get_attribute("data-seen")
    seen["a_rows"] = a.locator("#parts tbody tr[data-part^=q]").count()
    seen["a_statuses"] = a.locator("#parts [data-status]").all_inner_texts()
    a.wait_for_selector("#result #open-report", timeout=WAIT_MS)
    seen["a_report"] = a.locator("#open-report").get_attribute("href")
    seen["a_report_text"] = a.locator("#result #report").inner_text()
    seen["a_questions"] = a.locator("h1").all_inner_texts()
    b.wait_for_selector("#result #inputs", timeout=WAIT_MS)
    seen["b_inputs"] = b.locator("#inputs").inner_text()
    seen["c_state"] = c.locator("#state").inner_text()
    for name, page in (("report-job", a), ("approved-job", b), ("stopped-job", c)):
        page.bring_to_front()
        shot(page, shots, name)
    c.bring_to_front()
    c.click("#run-link a")
    seen["c_run_url"] = c.url
    seen["c_status_stopped"] = c.locator("#run-status").inner_text()
    shot(c, shots, "stopped-run")
    seen["c_phone"] = _offered_on_a_phone(browser, c.url, shots)
    c.bring_to_front()
    c.click("#resume")
    c.wait_for_url("**/jobs/*")
    seen["c_resume"] = c.url.rsplit("/", 1)[1]
    c.wait_for_selector("#job[data-ended=true]", timeout=WAIT_MS)
    seen["c_resumed_state"] = c.locator("#state").inner_text()
    c.goto(seen["c_run_url"])
    seen["c_status_resumed"] = c.locator("#run-status").inner_text()
    seen["context"], seen["shots"] = context, shots
    yield seen
    context.close()


def _offered_on_a_phone(browser: Browser, url: str, shots: Path) -> dict[str, Any]:
    """What the page at ``url`` (a run's) says and offers on a phone: its status, and
    how many Resume and Run again buttons it shows (its screenshot under ``shots``)."""
    phone = browser.new_context(viewport=viewport(PHONE))
    page = phone.new_page()
    page.goto(url)
    expect(page.locator("#resume")).to_be_visible(timeout=WAIT_MS)
    offered = {
        "status": page.locator("#run-status").inner_text(),
        "resume": page.locator("#resume").count(),
        "again": page.locator("#again").count(),
    }
    shot(page, shots, "stopped-run")
    phone.close()
    return offered


def _state_times(served: Served, job: str) -> dict[str, float]:
    return {
        e["data"]["state"]: e["data"]["at"] for e in events(served, job) if e["event"] == "state"
    }


def _run_id(served: Served, job: str) -> str:
    return next(e["data"]["run_id"] for e in events(served, job) if e["event"] == "run")


def test_each_part_of_the_demo_run_reaches_its_final_status(server: Served, scenario: Any):
    run_id = _run_id(server, scenario["a"])
    plan = json.loads((server.runs_dir / run_id / "internal/plan.json").read_text())
    statuses = [s["status"] for s in plan["subquestions"]]
    assert scenario["a_rows"] == len(statuses) >= 2
    assert scenario["a_statuses"] == statuses
    assert set(statuses) <= FINAL


def test_a_reload_mid_run_loses_no_event_and_shows_none_twice(server: Served, scenario: Any):
    assert scenario["reload"] == "running"  # the page was reloaded while the run worked
    sent = events(server, scenario["a"])
    assert [e["id"] for e in sent] == list(range(1, len(sent) + 1))
    assert scenario["a_last"] == scenario["a_seen"] == str(len(sent))
    lines = [
        line.strip()
        for e in sent
        if e["event"] == "progress"
        for line in e["data"].get("lines", [])
    ]
    assert scenario["a_feed"] == lines
    # A dropped connection comes back with the id of the last event it had.
    later = events(server, scenario["a"], last=5)
    assert [e["id"] for e in later] == list(range(6, len(sent) + 1))


@SIZES
def test_the_report_opens_in_the_page_and_a_citation_leads_to_its_highlighted_span(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    responses: dict[str, httpx.Headers] = {}
    page.on("response", lambda r: responses.__setitem__(r.url.split("#")[0], r.headers))
    page.goto(server.url + scenario["a_report"])
    # the job page showed the report in the page, the question once: as its heading
    title = page.locator("h1").first.inner_text()
    assert scenario["a_questions"] == [title]
    summary = page.locator(".summary li").first.inner_text()
    assert _words(summary) in _words(scenario["a_report_text"])
    shot(page, tmp_path, "report")
    citation = page.locator("main a[href*='/cite/']").first
    href = citation.get_attribute("href") or ""
    evidence = href.split("/cite/")[1].split("#")[0]
    quote = page.locator(f"li[data-ev='{evidence}'] .quote").inner_text().strip("“”")
    citation.click()
    page.wait_for_url("**/cite/**")
    mark = page.locator("mark#quote")
    assert _words(mark.inner_text()) == _words(quote)
    assert mark.is_visible()
    box = mark.bounding_box()
    assert box is not None and 0 <= box["y"] < size[1]  # scrolled to the span
    shot(page, tmp_path, "cited-span")
    for url in (server.url + scenario["a_report"], page.url.split("#")[0]):
        policy = responses[url]["content-security-policy"]
        assert "sandbox" in policy and "script-src 'none'" in policy
    context.close()


def _words(text: str) -> str:
    """Text without Markdown emphasis, its spaces and line breaks made one space."""
    return " ".join(text.replace("*", "").split())


def test_two_runs_work_at_once_and_the_third_waits_in_the_queue(server: Served, scenario: Any):
    a, b, c = (_state_times(server, scenario[k]) for k in "abc")
    assert a["running"] < b["finished"] and b["running"] < a["finished"]
    assert scenario["c_first_state"].startswith("queued")
    assert c["queued"] < c["running"]
    assert c["running"] >= min(a["finished"], b["finished"])


def test_uploaded_files_are_the_runs_input_and_are_used(server: Served, scenario: Any):
    assert "field-notes.md" in scenario["b_inputs"]
    (kept,) = (server.runs_dir / ".uploads").glob(f"{scenario['b']}/*")
    assert kept.name == "field-notes.md" and kept.read_text(encoding="utf-8") == NOTES
    run_id = _run_id(server, scenario["b"])
    ledger = (server.runs_dir / run_id / "internal/evidence.jsonl").read_text()
    assert '"/userinput/field-notes.md"' in ledger


def test_a_download_is_approved_in_the_page_and_a_second_answer_is_refused(
    server: Served, scenario: Any
):
    assert scenario["approvals"] >= 1
    assert scenario["second_answer"] == 409
    run_id = _run_id(server, scenario["b"])
    record = json.loads((server.runs_dir / run_id / "internal/run.json").read_text())
    decided = [(d["tool"], d["action"]) for d in record["approvals"]]
    assert decided == [("http_download", "approve")] * scenario["approvals"]


def test_a_run_stopped_from_the_page_keeps_its_report_and_resumes(server: Served, scenario: Any):
    told = {  # what the two jobs said, to explain a failure
        job: [e["data"] for e in events(server, scenario[job]) if e["event"] != "progress"]
        for job in ("c", "c_resume")
    }
    # the job and its run say it in the same words: stopped, with its report written
    assert scenario["c_status_stopped"].startswith("stopped early, report written"), told
    assert scenario["c_state"] == scenario["c_status_stopped"], told
    feed = [
        line
        for e in events(server, scenario["c"])
        if e["event"] == "progress"
        for line in e["data"].get("lines", [])
    ]
    stopping = [line for line in feed if "Interrupted" in line]
    assert stopping and all("Stop now" in line for line in stopping), feed  # no Ctrl-C
    assert not any("Ctrl-C" in line for line in feed), feed
    assert scenario["c_status_resumed"].startswith("finished"), told
    assert scenario["c_resumed_state"] == scenario["c_status_resumed"], told
    run_id = scenario["c_run_url"].rsplit("/", 1)[1]
    record = json.loads((server.runs_dir / run_id / "internal/run.json").read_text())
    assert record["status"] == "finished" and record["resumed"] == 1
    # a phone is offered the same: Resume (the run left a checkpoint), not Run again
    phone = scenario["c_phone"]
    assert phone == {"status": scenario["c_status_stopped"], "resume": 1, "again": 0}, phone
    for name in ("report-job", "approved-job", "stopped-job", "stopped-run"):
        assert (scenario["shots"] / f"{name}-{DESK[0]}.png").exists(), name
    assert (scenario["shots"] / f"stopped-run-{PHONE[0]}.png").exists()


def test_the_plan_is_reviewed_and_edited_in_the_page_before_research(server: Served, scenario: Any):
    run_id = scenario["c_run_url"].rsplit("/", 1)[1]
    plan = json.loads((server.runs_dir / run_id / "internal/plan.json").read_text())
    assert [s["text"] for s in plan["subquestions"]] == scenario["c_plan"]
    assert plan["planner"].endswith("edited by the user")


@SIZES
def test_pages_fit_the_screen_without_sideways_scrolling(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    run_id = _run_id(server, scenario["a"])
    pages = {
        "start": "/",
        "job": f"/jobs/{scenario['a']}",
        "runs": "/runs",
        "run": f"/runs/{run_id}",
    }
    for name, path in pages.items():
        page.goto(server.url + path)
        if path.startswith("/jobs/"):
            page.wait_for_selector("#result #report", timeout=WAIT_MS)
        shot(page, tmp_path, name)  # and no sideways scrolling
    assert len(list(tmp_path.glob(f"*-{size[0]}.png"))) == len(pages)
    context.close()


#: A quoted span the panel shows as it is written: words, figures and plain punctuation,
#: no Markdown but bold, and no line that starts a list or a quote.
PLAIN_SPAN = re.compile(r"[\w\s.,;:'’“”()—–*-]+")


def _bare(text: str) -> str:
    """Text without spaces, line breaks and Markdown bold: what a span shows."""
    return re.sub(r"[\s*]", "", text)


def _ledger(run: Path) -> dict[str, dict[str, Any]]:
    lines = (run / "internal/evidence.jsonl").read_text(encoding="utf-8").splitlines()
    items = (json.loads(line) for line in lines if line.strip())
    return {item["id"]: item for item in items}


def _plain_citation(page: Page, ledger: dict[str, dict[str, Any]]) -> tuple[Any, dict[str, Any]]:
    """The first ``[n]`` of the report in the page whose quote is plain text, and its
    evidence item."""
    links = page.locator("#report sup.cite a[href*='/cite/']")
    for n in range(links.count()):
        href = links.nth(n).get_attribute("href") or ""
        item = ledger.get(href.split("/cite/")[1].split("#")[0], {})
        span = str(item.get("span") or "")
        if PLAIN_SPAN.fullmatch(span) and not re.search(r"\n\s*([-*+>]|\d+[.)])", span):
            return links.nth(n), item
    raise AssertionError("the report cites no quote of plain text")


@SIZES
def test_the_report_is_part_of_the_run_page_and_shows_the_question_once(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    run_id = _run_id(server, scenario["a"])
    context = browser.new_context(viewport=viewport(size), color_scheme="dark")
    page = context.new_page()
    page.goto(f"{server.url}/runs/{run_id}")
    report = page.locator("main #report")
    expect(report).to_be_visible(timeout=WAIT_MS)
    assert page.locator("iframe").count() == 0
    # in the app's colours: dark mode's light text on the page's own background
    colours = "e => [getComputedStyle(e).color, getComputedStyle(document.body).color]"
    text, body = report.locator("li").first.evaluate(colours)
    assert text == body == "rgb(230, 232, 234)"
    own = context.new_page()  # the report on its own page, for its text
    own.goto(server.url + scenario["a_report"])
    question = own.locator("h1").first.inner_text()
    summary = own.locator(".summary li").first.inner_text()
    own.close()
    assert _words(summary) in _words(report.inner_text())
    assert page.locator("h1").all_inner_texts() == [question]
    assert report.locator("h1, h2").count() == 0  # its headings sit under "Report"
    # its sources' links reach what the app serves, not addresses relative to the page
    stored = report.locator("a.src-stored").first.get_attribute("href") or ""
    assert stored.startswith(f"/runs/{run_id}/workspace/reports/copies/")
    shot(page, tmp_path, "run-report-dark")
    context.close()


@SIZES
def test_a_script_planted_in_a_report_is_removed_and_never_runs(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    run_id = _run_id(server, scenario["a"])
    planted_id = "20991231-235959-5c41f7"
    copy = server.runs_dir / planted_id
    shutil.copytree(server.runs_dir / run_id, copy, symlinks=True)
    try:
        (report,) = (copy / "workspace/reports").glob("*.html")
        planted = (
            '<p id="planted">Planted paragraph.<img src="/static/none.png" '
            'onerror="window.planted = 1"><script>window.planted = 2</script>'
            '<a href="javascript:window.planted = 3" onclick="window.planted = 4">Go</a></p>'
            '<svg onload="window.planted = 5"><script>window.planted = 6</script></svg>'
            "<style>main { display: none }</style>"
        )
        text = report.read_text(encoding="utf-8")
        footer = '<footer class="colophon">'
        report.write_text(text.replace(footer, planted + footer, 1), encoding="utf-8")
        context = browser.new_context(viewport=viewport(size))
        page = context.new_page()
        page.goto(f"{server.url}/runs/{planted_id}")
        paragraph = page.locator("#report #r-planted")
        expect(paragraph).to_have_text("Planted paragraph.Go", timeout=WAIT_MS)
        expect(page.locator("#report")).to_be_visible()
        page.locator("#report #r-planted a").click()
        hidden = "#report script, #report style, #report svg, #report [onerror], #report [onclick]"
        assert page.locator(hidden).count() == 0
        assert page.locator("#report #r-planted a").get_attribute("href") is None
        assert page.evaluate("window.planted") is None
        shot(page, tmp_path, "planted-report")
        with server.client() as http:
            served = http.get(f"/runs/{planted_id}").text
        assert "Planted paragraph." in served and "window.planted" not in served
        context.close()
    finally:
        shutil.rmtree(copy)


@SIZES
def test_a_citation_opens_its_stored_page_in_a_panel_beside_the_report(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    """A side panel on a desk, a bottom sheet on a phone: the stored page with the quoted
    span marked, its address, and the report still in place; Escape closes it."""
    width, height = size
    run_id = _run_id(server, scenario["a"])
    ledger = _ledger(server.runs_dir / run_id)
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    page.goto(f"{server.url}/runs/{run_id}")
    expect(page.locator("#report")).to_be_visible(timeout=WAIT_MS)
    citation, item = _plain_citation(page, ledger)
    citation.click()
    panel = page.locator("#source-panel")
    expect(panel).to_be_visible(timeout=WAIT_MS)
    expect(panel).to_be_focused(timeout=WAIT_MS)
    marks = panel.locator(".stored-copy mark")
    expect(marks.first).to_be_in_viewport(timeout=WAIT_MS)
    assert _bare("".join(marks.all_inner_texts())) == _bare(item["span"])
    expect(panel.locator("a.panel-url")).to_have_attribute("href", item["url"])
    assert page.url == f"{server.url}/runs/{run_id}"
    expect(page.locator("main #report")).to_be_visible()
    box = panel.bounding_box()
    assert box is not None
    if width < 700:  # a bottom sheet, the whole width, over the lower part of the screen
        assert box["width"] == pytest.approx(width, abs=1) and box["y"] > height / 4
        assert box["y"] + box["height"] == pytest.approx(height, abs=1)
    else:  # a side panel at the right, the whole height, the report visible beside it
        assert box["x"] + box["width"] == pytest.approx(width, abs=1)
        assert box["height"] == pytest.approx(height, abs=1) and box["width"] < width / 2
    shot = tmp_path / f"citation-panel-{width}x{height}.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 0
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden(timeout=WAIT_MS)
    expect(citation).to_be_focused(timeout=WAIT_MS)
    expect(page.locator("main #report")).to_be_visible()
    context.close()


@SIZES
def test_without_javascript_a_citation_opens_the_stored_page_on_its_own(
    server: Served, scenario: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    run_id = _run_id(server, scenario["a"])
    context = browser.new_context(viewport=viewport(size), java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{server.url}/runs/{run_id}")
    page.locator("#report sup.cite a[href*='/cite/']").first.click()
    page.wait_for_url("**/cite/**", timeout=WAIT_MS)
    expect(page.locator("mark#quote")).to_be_in_viewport(timeout=WAIT_MS)
    shot(page, tmp_path, "cited-without-script")
    context.close()


@SIZES
def test_the_start_page_offers_examples_and_says_what_it_reads(
    server: Served, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    """A newcomer sees example questions (one click fills the question and chooses the
    demo web), the kinds of file read, and approvals named for what they do."""
    from demo.site import DEMO_QUESTION

    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    page.goto(server.url + "/")
    assert not page.is_checked("#demo")
    page.click("#examples button[data-example] >> nth=0")
    assert page.input_value("#question") == DEMO_QUESTION
    assert page.is_checked("#demo")
    readable = page.locator("#readable").inner_text()
    assert "PDF (.pdf)" in readable and "Word (.docx)" in readable
    page.click("details summary")
    assert page.locator("label[for=ask-http_download]").inner_text() == "downloading a file"
    assert page.locator("label[for=ask-browser_type]").inner_text() == "typing into a page"
    shot(page, tmp_path, "start-example")  # and no sideways scrolling
    context.close()


# -- attacks: each is refused, and the run folders stay as they were -------------------


def _post(served: Served, path: str, **kwargs: Any) -> httpx.Response:
    with served.client(cookies=served.cookies()) as http:
        return http.post(path, **kwargs)


def test_a_cross_site_post_is_refused(server: Served, scenario: Any):
    before = tree(server.runs_dir)
    form = {"csrf": server.csrf(), "question": "x", "demo": "on"}
    evil = _post(server, "/jobs", data=form, headers={"Origin": "http://evil.example"})
    bare = _post(server, "/jobs", data=form)  # neither Origin nor Referer
    no_token = _post(server, "/jobs", data={"question": "x"}, headers={"Origin": server.url})
    assert (evil.status_code, bare.status_code, no_token.status_code) == (403, 403, 403)
    run_id = _run_id(server, scenario["a"])
    resume = _post(server, f"/runs/{run_id}/resume", headers={"Origin": "http://evil.example"})
    assert resume.status_code == 403
    assert tree(server.runs_dir) == before


def test_a_rebinding_host_name_is_refused(server: Served, scenario: Any):
    before = tree(server.runs_dir)
    port = server.url.rsplit(":", 1)[1]
    host = {"Host": f"attacker.example:{port}"}
    with server.client() as http:
        assert http.get("/runs", headers=host).status_code == 421
        form = {"csrf": server.csrf(), "question": "x"}
        origin = {**host, "Origin": f"http://attacker.example:{port}"}
        assert http.post("/jobs", data=form, headers=origin).status_code == 421
    assert tree(server.runs_dir) == before


def _claiming(served: Served, length: int) -> str:
    """The status line of a POST whose headers claim a body of ``length`` bytes."""
    host = served.url.removeprefix("http://")
    head = (
        f"POST /jobs HTTP/1.1\r\nHost: {host}\r\nOrigin: {served.url}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {length}\r\n\r\n"
    )
    address, port = host.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=60) as sock:
        sock.sendall(head.encode() + b"--b\r\n")
        return sock.recv(4096).decode("latin-1").split("\r\n", 1)[0]


def test_uploads_with_a_path_or_over_the_limits_are_refused(server: Served, scenario: Any):
    before = tree(server.runs_dir)
    form = {"csrf": server.csrf(), "question": "x", "demo": "on"}
    same = {"Origin": server.url}
    jobs = f"/jobs?csrf={form['csrf']}"  # an upload carries the token before its body
    climbing = _post(server, jobs, data=form, files={"files": ("../../x", b"hi")}, headers=same)
    assert climbing.status_code == 400 and "folder" in climbing.text
    big = b"0" * (20 * 1024 * 1024 + 1)
    large = _post(server, jobs, data=form, files={"files": ("big.txt", big)}, headers=same)
    assert large.status_code == 400 and "larger than" in large.text
    assert _claiming(server, 200 * 1024 * 1024).startswith("HTTP/1.1 413")
    assert tree(server.runs_dir) == before
    assert not (server.runs_dir.parent / "x").exists()


def test_another_address_needs_the_token(tmp_path: Path):
    runs = tmp_path / "runs"
    runs.mkdir()
    with serve(runs, host="0.0.0.0") as exposed:
        assert exposed.token
        with exposed.client() as http:
            assert http.get("/runs").status_code == 401
            wrong = http.get("/runs", cookies={"quartet_token": "x" * len(exposed.token)})
            assert wrong.status_code == 401
            posted = http.post("/jobs", data={"question": "x"}, headers={"Origin": exposed.url})
            assert posted.status_code == 401
            signed = http.get(f"/runs?token={exposed.token}")
            assert signed.status_code == 303 and signed.headers["location"] == "/runs"
            assert "HttpOnly" in signed.headers["set-cookie"]
            bearer = {"Authorization": f"Bearer {exposed.token}"}
            assert http.get("/runs", headers=bearer).status_code == 200
        assert tree(runs) == [] or all(
            exposed.token not in p.read_text(errors="replace")
            for p in runs.rglob("*")
            if p.is_file()
        )
