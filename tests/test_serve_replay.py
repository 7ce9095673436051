"""A replay started from a run's page in ``quartet serve``, watched live in Chromium.

A demo run is recorded from the start form, then replayed from its run's page: the
replay's job page shows its parts, their figures and its feed as the replay works, from
the same events a run's page follows, and says at the end whether it reproduced the
recorded run, at a desk's size and a phone's.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import test_serve
from playwright.sync_api import Browser, expect
from serve_support import DESK, PHONE, Served, shot, viewport
from test_serve import WAIT_MS, events

browser = test_serve.browser
served = test_serve.server


def _ended(served: Served, job: str) -> list[dict[str, Any]]:
    """Job ``job``'s events once it has ended (its event stream ends with it)."""
    found = events(served, job)
    assert found[-1]["event"] == "state", found[-1]
    return found


def _recorded_run(served: Served) -> str:
    """A demo run recorded from the start form, once it has ended: its run's id."""
    form = {
        "csrf": served.csrf(),
        "question": "",
        "demo": "on",
        "record": "on",
        "formats": "md",
        "max_pages": "4",
        "max_rounds": "1",
    }
    with served.client(cookies=served.cookies()) as http:
        sent = http.post("/jobs", data=form, headers={"Origin": served.url})
    assert sent.status_code == 303, sent.text[-500:]
    found = _ended(served, sent.headers["location"].rsplit("/", 1)[1])
    assert found[-1]["data"]["state"] == "finished", found[-1]
    return next(e["data"]["run_id"] for e in found if e["event"] == "run")


def test_a_replay_shows_its_parts_live_and_says_whether_it_reproduced(
    served: Served, browser: Browser, tmp_path: Path
):
    """The replay's page fills its parts table from the replay's own events while it
    works (before, it showed nothing until the replay had ended, then "The run ended
    before it made a plan."), and its feed ends by saying it reproduced the run."""
    run_id = _recorded_run(served)
    pages = {
        size: browser.new_context(viewport=viewport(size)).new_page() for size in (DESK, PHONE)
    }
    desk = pages[DESK]
    desk.goto(f"{served.url}/runs/{run_id}")
    with desk.expect_navigation(timeout=WAIT_MS):
        desk.click("#replay")
    assert re.search(r"/jobs/[0-9a-f]+$", desk.url), desk.locator("main").inner_text()
    job = desk.url.rsplit("/", 1)[1]
    pages[PHONE].goto(desk.url)
    for page in pages.values():
        page.bring_to_front()  # a hidden tab draws no frames: Playwright's checks would wait
        expect(page.locator("#job")).to_have_attribute("data-ended", "true", timeout=WAIT_MS)
        rows = page.locator("#parts tbody tr[data-part^=q]")
        assert rows.count() >= 1
        assert "ended before it made a plan" not in page.locator("#parts").inner_text()
        assert page.locator("#state").inner_text() == "finished"
        assert "Replay reproduced." in page.locator("#feed").inner_text()
        shot(page, tmp_path, "replayed-job")
        page.context.close()
    found = _ended(served, job)
    with_parts = [e["id"] for e in found if e["event"] == "progress" and e["data"].get("parts")]
    replayed = next(e["data"]["run_id"] for e in found if e["event"] == "run")
    assert with_parts and with_parts[0] < found[-1]["id"], [e["event"] for e in found]
    assert found[-1]["data"]["state"] == "finished" and replayed != run_id
    assert len(list(tmp_path.glob("replayed-job-*.png"))) == 2
