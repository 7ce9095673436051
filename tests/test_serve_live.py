"""The live job page of ``quartet serve`` in Chromium: one truth for the run's state.

Two runs are watched as a user would watch them. W researches the demo web with the plan
put to review and downloads put to approval: it waits for the user (the status, the tab's
title, a notification while the tab is hidden), shows its progress, groups the calls
waiting for approval in one card with their arguments in words, and honours "allow for
the rest of this run"; once it ends, its figures are compared with its run's page. F
researches the demo web through a server whose wiki search cannot be reached: the failed
searches show in their parts' rows while the run works. Stop and Stop now are clicked on
a run waiting for an approval, and the start page is read as a newcomer reads it, at a
desk's size and a phone's, a screenshot of each page under the test's folder.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
import test_serve
from cli_support import demo_runs_dir, shared_cache
from playwright.sync_api import Browser, Page, expect
from serve_support import Served, free_port, serve, shot
from test_serve import WAIT_MS, events, start

from demo.web import demo_world

browser = test_serve.browser
server = test_serve.server

FINAL_STATES = ("finished", "stopped", "failed", "cancelled")
DESK, PHONE = (1280, 800), (390, 844)
#: Lets a test hide the page as a background tab would be (headless Chromium shows every
#: page), and keeps each notification the page makes, with whether it was closed.
HIDING = """
window.__hidden = false;
for (const [name, value] of [["visibilityState", () => window.__hidden ? "hidden" : "visible"],
                             ["hidden", () => !!window.__hidden]]) {
  Object.defineProperty(Document.prototype, name, { configurable: true, get: value });
}
window.__notes = [];
if (window.Notification) {
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      this.kept = { title, body: (options || {}).body, closed: false };
      window.__notes.push(this.kept);
    }
    close() { this.kept.closed = true; super.close(); }
    static get permission() { return Real.permission; }
    static requestPermission() { return Real.requestPermission(); }
  };
}
"""


def _hide(page: Page, hidden: bool) -> None:
    """Hide or show the page, as switching tabs does."""
    script = "h => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }"
    page.evaluate(script, hidden)


def _notes(page: Page) -> list[dict[str, Any]]:
    return page.evaluate("window.__notes")


def _figures(page: Page) -> tuple[dict[str, dict[str, str]], int]:
    """Each row of the live parts table (its status, pages read and evidence kept) and
    the pages read in all, read at one moment: a run still reading pages changes them
    between two separate reads."""
    rows, told = page.evaluate(
        """() => [
            Array.from(document.querySelectorAll('#parts tbody tr[data-part]')).map(r => [
                r.dataset.part, {
                status: (r.querySelector('[data-status]') || {}).textContent || '',
                pages: r.cells[3] ? r.cells[3].textContent : '',
                evidence: r.cells[4] ? r.cells[4].textContent : ''}]),
            document.querySelector('#pages').innerText]"""
    )
    match = re.match(r"(\d+)", told)
    assert match, told
    return dict(rows), int(match.group(1))


def _progress(page: Page) -> int:
    return int(page.locator("#progress-bar").get_attribute("aria-valuenow") or -1)


def _plan_review(page: Page, seen: dict[str, Any], shots: Path) -> None:
    """The run waits for the plan's review: the status and the title say so; the page is
    visible, so no notification. Once started, the cue goes."""
    expect(page.locator("#state")).to_have_text("waiting for you", timeout=WAIT_MS)
    expect(page).to_have_title(re.compile(r"^\(waiting\) "), timeout=WAIT_MS)
    shot(page, shots, "plan-review")
    seen["plan_notes"] = len(_notes(page))
    home = page.context.new_page()  # the start page's list of the session's runs
    home.goto(page.url.split("/jobs/")[0] + "/")
    seen["home_waiting"] = home.locator(
        f'.jobs li:has(a[href="/jobs/{seen["job"]}"]) [data-job-state]'
    ).inner_text()
    home.close()
    page.bring_to_front()
    page.locator(".ask button", has_text="Start the research").click()
    expect(page.locator("#state")).to_have_text("running", timeout=WAIT_MS)
    expect(page).not_to_have_title(re.compile(r"^\(waiting\)"), timeout=WAIT_MS)


def _first_approval(page: Page, seen: dict[str, Any], shots: Path) -> None:
    """One call waits: hidden, the page notifies; its arguments are read as name and
    value; approved, the cue and the notification go."""
    item = page.locator("#approvals .ask[data-ask]").first
    expect(item).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#state")).to_have_text("waiting for you")
    expect(page).to_have_title(re.compile(r"^\(waiting\) "))
    _hide(page, True)
    page.wait_for_function("() => window.__notes.length === 1", timeout=WAIT_MS)
    seen["words"] = item.locator(".words").inner_text()
    seen["args"] = item.locator("dl.args").inner_text()
    seen["arg_names"] = item.locator("dl.args dt").all_inner_texts()
    seen["card_text"] = page.locator("#approvals").inner_text()
    seen["mid_rows"], seen["mid_total"] = _figures(page)
    seen["mid_progress"] = _progress(page)
    seen["mid_estimate"] = page.locator("#estimate").inner_text()
    seen["mid_elapsed"] = page.locator("#elapsed").inner_text()
    shot(page, shots, "one-approval")
    item.locator("button[data-action=approve]").click()
    expect(page).not_to_have_title(re.compile(r"^\(waiting\)"), timeout=WAIT_MS)
    page.wait_for_function("() => window.__notes[0].closed", timeout=WAIT_MS)


def _grouped_approvals(page: Page, phone: Page, seen: dict[str, Any], shots: Path) -> None:
    """Several calls wait at once: one card holds them; one choice allows the tool for
    the rest of the run, answering all of them."""
    page.wait_for_function(
        "() => document.querySelectorAll('#approvals .ask[data-ask]').length >= 2",
        timeout=WAIT_MS,
    )
    seen["cards"], seen["group_heading"], seen["grouped"] = page.evaluate(
        """() => [  // one look at the page: more calls may come to wait meanwhile
            document.querySelectorAll('#asks > .card').length,
            document.querySelector('#approvals h2').innerText,
            document.querySelectorAll('#approvals .ask[data-ask]').length,
        ]"""
    )
    shot(page, shots, "grouped-approvals")
    phone.goto(page.url)
    phone.bring_to_front()
    expect(phone.locator("#approvals .ask[data-ask]").first).to_be_visible(timeout=WAIT_MS)
    shot(phone, shots, "grouped-approvals")
    page.bring_to_front()
    always = page.locator("#approvals .ask[data-ask] button[data-action=always]").first
    seen["always_label"] = always.inner_text()
    always.click()
    expect(page.locator("#approvals")).to_have_count(0, timeout=WAIT_MS)


@pytest.fixture(scope="module")
def watched(server: Served, browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Run W, watched at 1280×800 (and once at 390×844); what the page showed."""
    shots = tmp_path_factory.mktemp("live-shots")
    desk = browser.new_context(viewport=dict(zip(("width", "height"), DESK, strict=True)))
    desk.grant_permissions(["notifications"], origin=server.url)
    desk.add_init_script(HIDING)
    small = browser.new_context(viewport=dict(zip(("width", "height"), PHONE, strict=True)))
    page, phone = desk.new_page(), small.new_page()
    seen: dict[str, Any] = {"shots": shots}
    seen["job"] = start(page, server.url, ("md",), approve=("http_download",), review_plan=True)
    _plan_review(page, seen, shots)
    _first_approval(page, seen, shots)
    _grouped_approvals(page, phone, seen, shots)
    expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    expect(page.locator("#result .downloads")).to_be_visible(timeout=WAIT_MS)
    seen["end_rows"], seen["end_total"] = _figures(page)
    seen["end_progress"] = _progress(page)
    seen["end_title"] = page.title()
    seen["feed"] = page.locator("#feed").inner_text()
    shot(page, shots, "finished")
    phone.goto(page.url)
    expect(phone.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    shot(phone, shots, "finished")
    seen["run_id"] = next(
        e["data"]["run_id"] for e in events(server, seen["job"]) if e["event"] == "run"
    )
    page.goto(f"{server.url}/runs/{seen['run_id']}")
    seen["run_rows"] = page.eval_on_selector_all(
        "#plan tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    seen["run_pages"] = page.locator("p.muted", has_text="Pages read").inner_text()
    shot(page, shots, "run-page")
    yield seen
    desk.close()
    small.close()


def test_counts_on_the_live_page_agree_with_the_finished_run_page(
    server: Served, watched: dict[str, Any]
):
    """Pages read and each part's status and evidence: the same live and afterwards, and
    the rows add up to the total at every moment looked at."""
    for moment in ("mid", "end"):
        rows, total = watched[f"{moment}_rows"], watched[f"{moment}_total"]
        assert sum(int(r["pages"] or 0) for r in rows.values()) == total, rows
    record = json.loads(
        (server.runs_dir / watched["run_id"] / "internal/run.json").read_text(encoding="utf-8")
    )
    assert watched["end_total"] == record["pages_read"] > 0
    assert f"Pages read: {record['pages_read']}" in watched["run_pages"]
    live = {k: (v["status"], v["evidence"]) for k, v in watched["end_rows"].items() if k != "other"}
    after = {cells[0].split()[0]: (cells[1], cells[2]) for cells in watched["run_rows"]}
    assert live == after and len(live) >= 2
    kept = {s["id"]: str(len(s["evidence_ids"])) for s in record["plan"]["subquestions"]}
    assert {k: v[1] for k, v in live.items()} == kept
    assert "evidence from" not in watched["feed"]  # the feed says the table's figures


def test_the_page_says_when_the_run_waits_for_the_user(watched: dict[str, Any]):
    """The status and the title while the plan or a call waits; a notification only
    while the page is hidden, closed once the run goes on; none of it once it ends."""
    assert watched["plan_notes"] == 0  # the page was in view
    assert watched["home_waiting"] == "waiting for you"  # the session's list says it too
    assert not watched["end_title"].startswith("(waiting)")
    for name in ("plan-review", "one-approval", "grouped-approvals", "finished"):
        assert (watched["shots"] / f"{name}-{DESK[0]}.png").exists()


def test_the_progress_bar_shows_the_plan_done_with_time_taken_and_left(watched: dict[str, Any]):
    assert 0 < watched["mid_progress"] < 100
    assert re.fullmatch(r"about (\d+ s|\d+ min \d\d s) left", watched["mid_estimate"])
    assert re.fullmatch(r"(\d+ s|\d+ min \d\d s) taken", watched["mid_elapsed"])
    assert watched["end_progress"] == 100


def test_approvals_are_grouped_readable_and_allowed_for_the_rest_of_the_run(
    server: Served, watched: dict[str, Any]
):
    assert watched["words"] == "Downloading a file"
    assert watched["arg_names"] == ["url", "save_path"]
    assert "{" not in watched["card_text"] and '"url"' not in watched["card_text"]
    assert watched["cards"] == 1  # several calls, one card
    assert watched["group_heading"] == f"{watched['grouped']} calls wait for your approval"
    assert watched["always_label"] == "Allow downloading a file for the rest of this run"
    sent = events(server, watched["job"])
    asked = [e["data"]["ask"] for e in sent if e["event"] == "approval"]
    answered = [e["data"] for e in sent if e["event"] == "answered"]
    allowed = [a for a in answered if a.get("always")]
    assert allowed and set(asked) <= {a["ask"] for a in answered}
    record = json.loads(
        (server.runs_dir / watched["run_id"] / "internal/run.json").read_text(encoding="utf-8")
    )
    decisions = record["approvals"]
    assert {d["action"] for d in decisions} == {"approve"}
    by_user = [d for d in decisions if "for the rest of this run" in d["reason"]]
    assert len(by_user) >= len(allowed) and len(decisions) > len(asked)  # later ones unasked


# -- a search that fails, shown in its part's row while the run works --------------------


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A server whose runs (without the demo choice) search the demo web, but whose
    wiki search is at an address nothing answers."""
    runs = tmp_path_factory.mktemp("broken") / "runs"
    runs.mkdir()
    with demo_world(shared_cache()) as world:
        env = world.run_env(os.environ)
        env["QUARTET_WIKI_URL"] = f"http://127.0.0.1:{free_port()}/w/api.php"
        with serve(demo_runs_dir(runs), env=env) as served:
            yield served, world


@pytest.mark.parametrize("size", [DESK, PHONE])
def test_a_failed_search_shows_in_its_parts_row_while_the_run_works(
    broken: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    served, world = broken
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(served.url + "/")
    page.fill("#question", world.question)
    page.click("details summary")
    page.fill("#max_rounds", "1")
    page.click("#start button[type=submit]")
    page.wait_for_url("**/jobs/*")
    shown = page.wait_for_function(
        """() => {
            const item = document.querySelector('#parts tr[data-part^=q] ul.failed li');
            if (!item) return null;
            return { text: item.textContent, source: item.dataset.source,
                     part: item.closest('tr').dataset.part,
                     ended: document.querySelector('#job').dataset.ended || '',
                     state: document.querySelector('#state').textContent };
        }""",
        timeout=WAIT_MS,
    ).json_value()
    assert shown["ended"] == "" and shown["state"] not in FINAL_STATES
    assert shown["source"] == "wiki"
    assert re.match(r"Search on wiki failed: \S", shown["text"])
    assert not re.search(r"Error\b|Exception\b|search_wiki", shown["text"]), shown["text"]
    shot(page, tmp_path, "failed-search")
    expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    feed = page.locator("#feed").inner_text()
    assert f"The search on wiki for {shown['part']} failed:" in feed
    context.close()


def test_stop_now_ends_the_run_at_once_after_stop(server: Served, browser: Browser, tmp_path: Path):
    """Stop winds the run down and shows Stop now; Stop now ends it at once, without the
    report, and the run is stopped (resumable), in the same words on both pages. The run
    waits on an approval, so that it cannot finish between the two clicks."""
    context = browser.new_context(viewport={"width": DESK[0], "height": DESK[1]})
    page = context.new_page()
    job = start(page, server.url, ("md",), approve=("http_download",))
    page.wait_for_selector("#approvals .ask[data-ask]", timeout=WAIT_MS)
    expect(page.locator("#stop-now")).to_be_hidden()
    page.click("#stop")
    expect(page.locator("#stop-now")).to_be_visible(timeout=WAIT_MS)
    page.click("#stop-now")
    expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    told = page.locator("#state").inner_text()
    shot(page, tmp_path, "stopped-now")
    feed = page.locator("#feed").inner_text()
    assert "Press Stop now to stop at once." in feed and "Ctrl-C" not in feed
    run_id = next(e["data"]["run_id"] for e in events(server, job) if e["event"] == "run")
    record = json.loads((server.runs_dir / run_id / "internal" / "run.json").read_text())
    assert record["status"] == "stopped"
    assert not list((server.runs_dir / run_id / "workspace" / "reports").glob("*.md"))
    page.goto(f"{server.url}/runs/{run_id}")
    assert page.locator("#run-status").inner_text() == told
    assert told.startswith("stopped") and "report written" not in told
    context.close()


@pytest.mark.parametrize("size", [DESK, PHONE])
def test_the_start_page_guides_a_newcomer_and_says_what_is_wrong_in_place(
    server: Served, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    """Examples that choose the demo, the file types read, each provider's key status, and
    a form sent wrong coming back with the reason beside what was typed, in words."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(server.url + "/")
    examples = page.locator("#examples button[data-example]")
    assert examples.count() >= 3
    assert "pdf" in page.locator("#readable").inner_text().lower()
    page.click("details summary")
    keys = page.locator("#model-keys [data-provider]")
    assert keys.count() >= 1 and all(
        re.search(r"key set|set [A-Z_]+ to use it|no key needed", t) for t in keys.all_inner_texts()
    )
    shot(page, tmp_path, "start")
    chosen = examples.first.get_attribute("data-example")
    examples.first.click()
    assert page.input_value("#question") == chosen and page.is_checked("#demo")
    page.fill("#max_pages", "many")  # the browser says so at the field, nothing is sent
    page.click("#start button[type=submit]")
    assert page.evaluate("document.getElementById('max_pages').validity.patternMismatch")
    assert page.url == server.url + "/"
    page.fill("#max_pages", "")
    page.fill("#question", "   ")
    page.uncheck("#demo")
    page.click("#start button[type=submit]")
    error = page.locator("#form-error")
    expect(error).to_be_visible(timeout=WAIT_MS)
    said = error.inner_text()
    assert said and not re.search(r"Error\b|Exception\b|Traceback", said), said
    assert page.locator("#question").get_attribute("aria-describedby") == "form-error"
    shot(page, tmp_path, "start-error")
    context.close()
