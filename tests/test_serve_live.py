"""The live job page of ``quartet serve`` in Chromium: one truth for the run's state.

Runs are watched as a user would watch them, each at a desk's size (1280×800) and a
phone's (390×844), a screenshot of each page under the test's folder. W researches the
demo web with the plan put to review and downloads put to approval, watched at both sizes
at once: it waits for the user (the status, the tab's title, a notification while the tab
is hidden), shows its progress, groups the calls waiting for approval in one card with
their arguments in words, and honours "allow for the rest of this run"; once it ends, its
figures are compared with its run's page. F researches the demo web through a server
whose wiki search cannot be reached: the failed searches show in their parts' rows while
the run works. Stop and Stop now are clicked on a run waiting for an approval, and the
start page is read as a newcomer reads it.
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
from serve_support import DESK, PHONE, SIZES, Served, free_port, serve, shot, viewport
from test_serve import WAIT_MS, events, start

from demo.web import demo_world

browser = test_serve.browser
server = test_serve.server

FINAL_STATES = ("finished", "stopped", "failed", "cancelled")
Size = tuple[int, int]
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


def _waiting(page: Page) -> None:
    """The page says the run waits for the user: its status and its tab's title."""
    page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
    expect(page.locator("#state")).to_have_text("waiting for you", timeout=WAIT_MS)
    expect(page).to_have_title(re.compile(r"^\(waiting\) "), timeout=WAIT_MS)


def _going_on(page: Page) -> None:
    """The page says the run works again: the status, and no cue in the title."""
    page.bring_to_front()
    expect(page.locator("#state")).to_have_text("running", timeout=WAIT_MS)
    expect(page).not_to_have_title(re.compile(r"^\(waiting\)"), timeout=WAIT_MS)


def _plan_review(pages: dict[Size, Page], seen: dict[Size, Any], shots: Path) -> None:
    """The run waits for the plan's review: each page's status and title say so; the
    pages are visible, so no notification; the session's list says it too. Started from
    the phone, the cue goes from both."""
    for size, page in pages.items():
        _waiting(page)
        shot(page, shots, "plan-review")
        seen[size]["plan_notes"] = len(_notes(page))
        home = page.context.new_page()  # the start page's list of the session's runs
        home.goto(page.url.split("/jobs/")[0] + "/")
        listed = f'.jobs li:has(a[href="/jobs/{seen[size]["job"]}"]) [data-job-state]'
        seen[size]["home_waiting"] = home.locator(listed).inner_text()
        shot(home, shots, "home-waiting")
        home.close()
    pages[PHONE].bring_to_front()
    pages[PHONE].locator(".ask button", has_text="Start the research").click()
    for page in pages.values():
        _going_on(page)


def _one_call(page: Page, ask: str, seen: dict[str, Any], shots: Path) -> None:
    """One call (``ask``) waits: the page says so; hidden, it notifies; the call's
    arguments are read as name and value, with the run's figures at that moment."""
    _waiting(page)
    item = page.locator(f'#approvals .ask[data-ask="{ask}"]')
    expect(item).to_be_visible(timeout=WAIT_MS)
    _hide(page, True)
    page.wait_for_function("() => window.__notes.length === 1", timeout=WAIT_MS, polling=100)
    seen["words"] = item.locator(".words").inner_text()
    seen["arg_names"] = item.locator("dl.args dt").all_inner_texts()
    seen["card_text"] = page.locator("#approvals").inner_text()
    seen["mid_rows"], seen["mid_total"] = _figures(page)
    seen["mid_progress"] = _progress(page)
    seen["mid_estimate"] = page.locator("#estimate").inner_text()
    seen["mid_elapsed"] = page.locator("#elapsed").inner_text()
    shot(page, shots, "one-approval")


def _first_approval(pages: dict[Size, Page], seen: dict[Size, Any], shots: Path) -> None:
    """One call waits, seen on both pages (hidden, each notifies); approved from the
    desk, the call leaves both, the desk's cue goes and each notification is closed."""
    desk = pages[DESK]
    desk.bring_to_front()
    first = desk.locator("#approvals .ask[data-ask]").first
    expect(first).to_be_visible(timeout=WAIT_MS)
    ask = first.get_attribute("data-ask") or ""
    for size, page in pages.items():
        _one_call(page, ask, seen[size], shots)
    desk.bring_to_front()
    first.locator("button[data-action=approve]").click()
    expect(desk).not_to_have_title(re.compile(r"^\(waiting\)"), timeout=WAIT_MS)
    for page in pages.values():
        page.bring_to_front()
        expect(page.locator(f'.ask[data-ask="{ask}"]')).to_have_count(0, timeout=WAIT_MS)
        page.wait_for_function("() => window.__notes[0].closed", timeout=WAIT_MS, polling=100)


def _group(page: Page, seen: dict[str, Any], shots: Path) -> None:
    """Several calls wait at once, in one card; what it says, read at one moment."""
    page.bring_to_front()
    page.wait_for_function(
        "() => document.querySelectorAll('#approvals .ask[data-ask]').length >= 2",
        timeout=WAIT_MS,
        polling=100,
    )
    seen["cards"], seen["group_heading"], seen["grouped"], seen["always_label"] = page.evaluate(
        """() => [  // one look at the page: more calls may come to wait meanwhile
            document.querySelectorAll('#asks > .card').length,
            document.querySelector('#approvals h2').innerText,
            document.querySelectorAll('#approvals .ask[data-ask]').length,
            document.querySelector('#approvals .ask[data-ask] button[data-action=always]')
                .innerText,
        ]"""
    )
    shot(page, shots, "grouped-approvals")


def _grouped_approvals(pages: dict[Size, Page], seen: dict[Size, Any], shots: Path) -> None:
    """Several calls wait at once: one card holds them on each page; one choice on the
    phone allows the tool for the rest of the run, answering all of them on both."""
    for size, page in pages.items():
        _group(page, seen[size], shots)
    phone = pages[PHONE]
    phone.bring_to_front()
    phone.locator("#approvals .ask[data-ask] button[data-action=always]").first.click()
    for page in pages.values():
        page.bring_to_front()
        expect(page.locator("#approvals")).to_have_count(0, timeout=WAIT_MS)


def _ended(page: Page, seen: dict[str, Any], shots: Path) -> None:
    """What the page shows once the run ended, and its run's page after."""
    page.bring_to_front()
    expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
    expect(page.locator("#result .downloads")).to_be_visible(timeout=WAIT_MS)
    seen["end_rows"], seen["end_total"] = _figures(page)
    seen["end_progress"] = _progress(page)
    seen["end_title"] = page.title()
    seen["feed"] = page.locator("#feed").inner_text()
    shot(page, shots, "finished")
    page.click("#run-link a")
    page.wait_for_url("**/runs/*", timeout=WAIT_MS)
    seen["run_id"] = page.url.rsplit("/", 1)[1]
    seen["run_rows"] = page.eval_on_selector_all(
        "#plan tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    seen["run_pages"] = page.locator("p.muted", has_text="Pages read").inner_text()
    shot(page, shots, "run-page")


@pytest.fixture(scope="module")
def watched(server: Served, browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Run W, watched from start to end at 1280×800 and at 390×844 at once (the plan
    started and the group allowed from the phone, the first call approved from the
    desk); what each page showed, by its size."""
    shots = tmp_path_factory.mktemp("live-shots")
    pages: dict[Size, Page] = {}
    for size in (DESK, PHONE):
        context = browser.new_context(viewport=viewport(size))
        context.grant_permissions(["notifications"], origin=server.url)
        context.add_init_script(HIDING)
        pages[size] = context.new_page()
    job = start(pages[DESK], server.url, ("md",), approve=("http_download",), review_plan=True)
    pages[PHONE].goto(pages[DESK].url)
    seen: dict[Size, Any] = {size: {"shots": shots, "job": job} for size in pages}
    _plan_review(pages, seen, shots)
    _first_approval(pages, seen, shots)
    _grouped_approvals(pages, seen, shots)
    for size, page in pages.items():
        _ended(page, seen[size], shots)
    yield seen
    for page in pages.values():
        page.context.close()


@SIZES
def test_counts_on_the_live_page_agree_with_the_finished_run_page(
    server: Served, watched: dict[Size, Any], size: Size
):
    """Pages read and each part's status and evidence: the same live and afterwards, and
    the rows add up to the total at every moment looked at."""
    seen = watched[size]
    for moment in ("mid", "end"):
        rows, total = seen[f"{moment}_rows"], seen[f"{moment}_total"]
        assert sum(int(r["pages"] or 0) for r in rows.values()) == total, rows
    record = json.loads(
        (server.runs_dir / seen["run_id"] / "internal/run.json").read_text(encoding="utf-8")
    )
    assert seen["end_total"] == record["pages_read"] > 0
    assert f"Pages read: {record['pages_read']}" in seen["run_pages"]
    live = {k: (v["status"], v["evidence"]) for k, v in seen["end_rows"].items() if k != "other"}
    after = {cells[0].split()[0]: (cells[1], cells[2]) for cells in seen["run_rows"]}
    assert live == after and len(live) >= 2
    kept = {s["id"]: str(len(s["evidence_ids"])) for s in record["plan"]["subquestions"]}
    assert {k: v[1] for k, v in live.items()} == kept
    assert "evidence from" not in seen["feed"]  # the feed says the table's figures


@SIZES
def test_the_page_says_when_the_run_waits_for_the_user(watched: dict[Size, Any], size: Size):
    """The status and the title while the plan or a call waits; a notification only
    while the page is hidden, closed once the run goes on; none of it once it ends."""
    seen = watched[size]
    assert seen["plan_notes"] == 0  # the page was in view
    assert seen["home_waiting"] == "waiting for you"  # the session's list says it too
    assert not seen["end_title"].startswith("(waiting)")
    names = ("plan-review", "home-waiting", "one-approval", "grouped-approvals", "finished")
    for name in (*names, "run-page"):
        assert (seen["shots"] / f"{name}-{size[0]}.png").exists(), name


@SIZES
def test_the_progress_bar_shows_the_plan_done_with_time_taken_and_left(
    watched: dict[Size, Any], size: Size
):
    seen = watched[size]
    assert 0 < seen["mid_progress"] < 100
    assert re.fullmatch(r"about (\d+ s|\d+ min \d\d s) left", seen["mid_estimate"])
    assert re.fullmatch(r"(\d+ s|\d+ min \d\d s) taken", seen["mid_elapsed"])
    assert seen["end_progress"] == 100


@SIZES
def test_approvals_are_grouped_readable_and_allowed_for_the_rest_of_the_run(
    server: Served, watched: dict[Size, Any], size: Size
):
    seen = watched[size]
    assert seen["words"] == "Downloading a file"
    assert seen["arg_names"] == ["url", "save_path"]
    assert "{" not in seen["card_text"] and '"url"' not in seen["card_text"]
    assert seen["cards"] == 1  # several calls, one card
    assert seen["group_heading"] == f"{seen['grouped']} calls wait for your approval"
    assert seen["always_label"] == "Allow downloading a file for the rest of this run"
    sent = events(server, seen["job"])
    asked = [e["data"]["ask"] for e in sent if e["event"] == "approval"]
    answered = [e["data"] for e in sent if e["event"] == "answered"]
    allowed = [a for a in answered if a.get("always")]
    assert allowed and set(asked) <= {a["ask"] for a in answered}
    record = json.loads(
        (server.runs_dir / seen["run_id"] / "internal/run.json").read_text(encoding="utf-8")
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


@SIZES
def test_a_failed_search_shows_in_its_parts_row_while_the_run_works(
    broken: Any, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    served, world = broken
    context = browser.new_context(viewport=viewport(size))
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
    waits on an approval, so that it cannot finish between the two clicks. It is watched
    at a desk's size and a phone's at once: Stop is pressed on the phone, Stop now on
    the desk, and both pages show each step."""
    pages = {
        size: browser.new_context(viewport=viewport(size)).new_page() for size in (DESK, PHONE)
    }
    desk, phone = pages[DESK], pages[PHONE]
    job = start(desk, server.url, ("md",), approve=("http_download",))
    phone.goto(desk.url)
    for page in pages.values():
        page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
        page.wait_for_selector("#approvals .ask[data-ask]", timeout=WAIT_MS)
        expect(page.locator("#stop-now")).to_be_hidden()
    phone.click("#stop")
    for page in pages.values():
        page.bring_to_front()
        expect(page.locator("#stop-now")).to_be_visible(timeout=WAIT_MS)
        shot(page, tmp_path, "stopping")
    desk.click("#stop-now")
    told = {}
    for size, page in pages.items():
        page.bring_to_front()
        expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
        told[size] = page.locator("#state").inner_text()
        shot(page, tmp_path, "stopped-now")
        feed = page.locator("#feed").inner_text()
        assert "Press Stop now to stop at once." in feed and "Ctrl-C" not in feed
    run_id = next(e["data"]["run_id"] for e in events(server, job) if e["event"] == "run")
    record = json.loads((server.runs_dir / run_id / "internal" / "run.json").read_text())
    assert record["status"] == "stopped"
    assert not list((server.runs_dir / run_id / "workspace" / "reports").glob("*.md"))
    for size, page in pages.items():
        page.goto(f"{server.url}/runs/{run_id}")
        assert page.locator("#run-status").inner_text() == told[size] == told[DESK]
        shot(page, tmp_path, "stopped-run")
        page.context.close()
    assert told[DESK].startswith("stopped") and "report written" not in told[DESK]


@SIZES
def test_the_start_page_guides_a_newcomer_and_says_what_is_wrong_in_place(
    server: Served, browser: Browser, tmp_path: Path, size: tuple[int, int]
):
    """Examples that choose the demo, the file types read, that no web can be reached (the
    server's search sources answer nowhere), each provider's key status, and a form sent
    wrong (a model without its key, no question) coming back with the reason beside what
    was typed, in words, having started nothing."""
    context = browser.new_context(viewport=viewport(size))
    page = context.new_page()
    page.goto(server.url + "/")
    expect(page.locator("#no-web")).to_contain_text("answered from your files alone")
    examples = page.locator("#examples button[data-example]")
    assert examples.count() >= 3
    assert "pdf" in page.locator("#readable").inner_text().lower()
    page.click("details summary")
    keys = page.locator("#model-keys [data-provider]")
    assert keys.count() >= 1 and all(
        re.search(r"key set|set [A-Z_]+ to use it|no key needed", t) for t in keys.all_inner_texts()
    )
    openai = page.locator('#model-keys [data-provider="openai"]')
    expect(openai).to_have_text("openai: set OPENAI_API_KEY to use it")  # the server has none
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
    runs_before = sorted(p.name for p in server.runs_dir.iterdir())
    page.fill("#question", "How do tide mills store the tide's energy?")
    page.click("details summary")
    page.fill("#model", "openai:gpt-4o-mini")
    page.click("#start button[type=submit]")
    error = page.locator("#form-error")
    expect(error).to_contain_text("needs the environment variable OPENAI_API_KEY", timeout=WAIT_MS)
    assert not re.search(r"Error\b|Exception\b|Traceback", error.inner_text())
    assert page.input_value("#question") == "How do tide mills store the tide's energy?"
    assert sorted(p.name for p in server.runs_dir.iterdir()) == runs_before
    shot(page, tmp_path, "start-no-key")
    assert len(list(tmp_path.glob(f"*-{size[0]}.png"))) == 3
    context.close()
