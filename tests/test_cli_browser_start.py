"""While Chromium starts (its first use in a run), the command line says so: the live view
at 80 columns has a "browser" row, "starting the browser", until the browser says it is
ready, and a line above the view says when it is ready, driven by the browser's own
launch, not by a timer; a launch that fails leaves no row behind."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

from browser_support import LOOPBACK
from rich.console import Console

from host.display.progress import Progress
from host.printable import printable
from research.plan import Plan, SubQuestion
from subagents.browser import BrowserSession

WIDTH = 80


def _terminal() -> Console:
    return Console(
        file=io.StringIO(), force_terminal=True, color_system="standard", width=WIDTH,
        highlight=False,
    )  # fmt: skip


def _watching(session: BrowserSession) -> tuple[Progress, list[str]]:
    """A live view on an 80-column terminal fed the launch events of ``session``, and the
    view as it was drawn at each event."""
    progress = Progress(console=_terminal(), live=True)
    plan = Plan("How was the canal built?", "en", [SubQuestion("q1", "How was it built?", [])])
    progress("run_start", {"run": NS(id="r", path=Path("/runs/r")), "pages": None})
    progress("plan", {"plan": plan})
    drawn: list[str] = []

    def told(state: str) -> None:
        progress("browser", {"state": state})
        view = Console(file=io.StringIO(), width=WIDTH, color_system=None, highlight=False)
        view.print(progress.render())
        drawn.append(view.file.getvalue())  # type: ignore[attr-defined]

    session.on_launch = told
    return progress, drawn


def _said(progress: Progress) -> str:
    progress.close()
    return printable(progress.console.file.getvalue(), keep_lines=True)  # type: ignore[attr-defined]


def _browser_row(view: str) -> str:
    return next((line for line in view.splitlines() if line.startswith("browser ")), "")


async def test_the_live_view_says_the_browser_is_starting_until_it_is_ready():
    session = BrowserSession(allow=LOOPBACK)
    progress, drawn = _watching(session)
    try:
        await session.browser()
        await session.browser()  # running already: nothing more is said
    finally:
        await session.aclose()
    starting, ready = drawn
    assert "starting the browser" in _browser_row(starting), starting
    assert len(starting.splitlines()[0]) <= WIDTH
    assert _browser_row(ready) == "" and "starting the browser" not in ready
    said = _said(progress)
    assert said.count("Starting the browser (Chromium)") == 1
    assert said.count("The browser is ready in ") == 1
    assert said.index("Starting the browser") < said.index("The browser is ready")


async def test_a_browser_that_fails_to_start_leaves_no_row():
    session = BrowserSession(executable="/nonexistent/chromium", allow=LOOPBACK)
    progress, drawn = _watching(session)
    try:
        await session.browser()
    except Exception as exc:  # the task that needed the browser says why
        assert "could not be started" in str(exc)
    finally:
        await session.aclose()
    starting, failed = drawn
    assert "starting the browser" in _browser_row(starting)
    assert _browser_row(failed) == ""
    assert "is ready" not in _said(progress)


def test_the_host_passes_the_browser_launch_on_as_events(tmp_path):
    from host.brains import make_brain
    from host.config import load_settings
    from host.orchestration.hub import Host

    events: list[tuple[str, dict[str, Any]]] = []
    settings = load_settings({"runs_dir": str(tmp_path)})
    host = Host(settings, make_brain("offline"), on_event=lambda k, d: events.append((k, d)))
    session = host.workers.open_browser()
    assert session.on_launch is not None
    session.on_launch("starting")
    session.on_launch("ready")
    assert events == [("browser", {"state": "starting"}), ("browser", {"state": "ready"})]
