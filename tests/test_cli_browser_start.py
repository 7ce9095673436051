"""While Chromium starts (its first use in a run), the command line says so: the live view
at 80 columns has a "browser" row, "starting the browser", until the browser says it is
ready, and a line above the view says when it is ready, driven by the browser's own
launch, not by a timer; a launch that fails leaves no row behind."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest
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


# -- the launch started while the run plans -----------------------------------------------

#: A question the runs below plan and are stopped on (the demo's web is only their
#: network: nothing is searched).
QUESTION = "How do lighthouse keepers trim a lamp's wick, and why did the job disappear?"
#: Seconds a run's plan review waits for the browser to say it is ready (a cold start on
#: a loaded machine takes long; a browser never launched never says it).
READY_WAIT = 120.0


def _chromium_processes() -> set[int]:
    """The Chromium processes this test process started (children of its children…)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # ended meanwhile
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    ours: set[int] = set()
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor and ancestor not in (os.getpid(), 1):
            ancestor = parents.get(ancestor)
        if ancestor == os.getpid():
            ours.add(pid)
    return {pid for pid in ours if "chrom" in _command(pid)}


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").lower()
    except OSError:
        return ""


def _host(settings: Any, seen: list[tuple[str, Any]], **hooks: Any) -> Any:
    """A Host of the offline brain keeping each event's kind and browser state in
    ``seen``, and calling ``hooks[kind]`` (if any) as each event comes."""
    from host.brains import make_brain
    from host.orchestration.hub import Host

    def on_event(kind: str, data: dict[str, Any]) -> None:
        seen.append((kind, data.get("state")))
        if kind in hooks:
            hooks[kind](data)

    return Host(settings, make_brain("offline"), on_event=on_event)


def _demo_settings(runs: Path, world: Any, open_web: bool) -> Any:
    """Settings of a run on the demo's web: kept to the demo's hosts, or (``open_web``)
    allowed the open web besides (its searches and pages still go to the demo only)."""
    from dataclasses import replace

    from demo.settings import demo_settings
    from host.config import Settings

    settings = demo_settings(Settings(runs_dir=runs, formats=("md",), quiet=True), world)
    network = replace(settings.tools.network, only=not open_web)
    return replace(settings, tools=replace(settings.tools, network=network))


async def _stopped_after_planning(settings: Any, wait_for_browser: bool) -> list[tuple[str, Any]]:
    """The events of a run of :data:`QUESTION` that the user stops once it has planned
    (its report written from nothing found); with ``wait_for_browser``, its plan review
    waits until the browser says it is ready."""
    seen: list[tuple[str, Any]] = []
    ready = asyncio.Event()
    host = _host(settings, seen, browser=lambda d: d["state"] == "ready" and ready.set())

    async def review(plan: Plan) -> Plan:
        if wait_for_browser:
            await asyncio.wait_for(ready.wait(), READY_WAIT)
        host.interrupt.request()
        return plan

    host.review_plan = review
    result = await host.run(QUESTION)
    assert result.status == "interrupted" and result.outputs, result.errors
    return seen


async def test_a_run_on_the_open_web_starts_the_browser_while_it_plans(tmp_path):
    """The plan's review waits for the browser to be ready: it comes ready only because
    its launch began with the run, before the plan was made; once the run ends, no
    Chromium of the run is left."""
    from cli_support import shared_cache

    from demo.web import demo_world

    before = _chromium_processes()
    with demo_world(shared_cache()) as world:
        settings = _demo_settings(tmp_path / "runs", world, open_web=True)
        seen = await _stopped_after_planning(settings, wait_for_browser=True)
    planned = seen.index(("plan", None))
    assert seen.index(("browser", "starting")) < seen.index(("browser", "ready")) < planned
    assert _chromium_processes() <= before


def _unreached(settings: Any) -> Any:
    """``settings`` with every search source at a loopback port nothing listens on."""
    from dataclasses import replace

    from ports import free_port

    nowhere = f"http://127.0.0.1:{free_port()}"
    endpoints = dict.fromkeys(settings.tools.endpoints, nowhere)
    return replace(settings, tools=replace(settings.tools, endpoints=endpoints))


@pytest.mark.parametrize("web", ["named hosts", "open web, unreached"])
async def test_a_run_starts_no_browser_it_has_no_use_for(tmp_path, web: str):
    """A web of a few named hosts (the demo's) seldom needs Chromium, and a run whose
    web cannot be reached reads no page: such a run that reads no page launches none."""
    from cli_support import shared_cache

    from demo.web import demo_world

    with demo_world(shared_cache()) as world:
        settings = _demo_settings(tmp_path / "runs", world, open_web=web != "named hosts")
        if web != "named hosts":
            settings = _unreached(settings)
        seen = await _stopped_after_planning(settings, wait_for_browser=False)
    assert ("plan", None) in seen and not [e for e in seen if e[0] == "browser"], seen


async def test_a_run_stopped_at_once_while_the_browser_starts_leaves_no_chromium(tmp_path):
    """A second Ctrl-C as Chromium starts: the run ends stopped, the launch is called
    off (or, on a machine slower to stop than to start it, its browser closed), and
    nothing of it is left running."""
    from cli_support import shared_cache

    from demo.web import demo_world

    before = _chromium_processes()
    runs = tmp_path / "runs"
    with demo_world(shared_cache()) as world:
        seen: list[tuple[str, Any]] = []
        starting = asyncio.Event()

        def stop_at_once(data: dict[str, Any]) -> None:
            if data["state"] == "starting":
                starting.set()
                run.cancel()

        host = _host(_demo_settings(runs, world, open_web=True), seen, browser=stop_at_once)

        async def review(plan: Plan) -> Plan:
            # the run waits here until Chromium starts, however fast it would end; under
            # a timeout, not in wait_for, which on Python 3.11 drops a cancel that comes
            # as what it waits for is done (the cancel here comes with the start)
            async with asyncio.timeout(READY_WAIT):
                await starting.wait()
            return plan

        host.review_plan = review
        run = asyncio.ensure_future(host.run(QUESTION))
        # the cancel ends the run wherever it lands: raised, or met by the Host's stop
        with contextlib.suppress(asyncio.CancelledError):
            await run
    assert ("browser", "starting") in seen
    assert host.workers.browser is not None and not host.workers.browser.started
    (record,) = runs.glob("*/internal/run.json")
    assert json.loads(record.read_text(encoding="utf-8"))["status"] == "stopped"
    assert _chromium_processes() <= before


async def test_a_launch_ahead_that_fails_is_met_again_at_the_first_use():
    session = BrowserSession(executable="/nonexistent/chromium", allow=LOOPBACK)
    told: list[str] = []
    session.on_launch = told.append
    try:
        session.launch_ahead()
        with pytest.raises(Exception, match="could not be started"):
            await session.browser()
    finally:
        await session.aclose()
    assert told[-1] == "failed" and not session.started
