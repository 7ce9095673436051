"""What a run does with the Host's own findings of earlier runs: a site known to need the
browser is read in Chromium at once, and a search source that failed for a language is
tried last for a while. Against sites and search engines served on 127.0.0.1."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from browser_sites import JS_SECRET, SiteServer, build_site
from browser_support import LOOPBACK, LOOPBACK_SETTINGS
from search_support import CORPUS, settings_for

from demo.search_web import SearchWeb
from host.brains import make_brain
from host.config import Settings
from host.core.stages import delegation_msg
from host.durability.memory import (
    BROWSER_SKILL,
    FAILING_SOURCE_DAYS,
    SEARCH_SKILL,
    SkillMemory,
    browser_sites,
    failing_sources,
    os_user,
    recall_logs,
    record_findings,
    routing,
    source_expired,
    source_failures,
    source_findings,
)
from host.durability.run_folder import RunFolder
from host.orchestration.hub import Host
from host.orchestration.state import RunState
from subagents import SPECS
from subagents.browser.session import BrowserSession
from subagents.browser.tiers import goes_to_browser_first
from subagents.evidence import site_key
from subagents.experience import Entry, evolved_path, merge, parse, record
from subagents.net.pagecache import HTTP, RENDER, caching
from subagents.offline import CallResult
from subagents.results import text_of
from subagents.search.offline import plan
from subagents.search.stage import tried_last

ASYNC = pytest.mark.asyncio(loop_scope="module")

DAY = date(2026, 3, 1)
QUESTION = "What does the harvest dashboard say?"
SOURCES = {"search_google", "search_bing", "search_sogou", "search_github", "search_wiki"}


@pytest.fixture(scope="module")
def site():
    trap = SiteServer(host="127.0.0.2").start()
    server = build_site(trap).start()
    yield server
    server.stop()
    trap.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    session = BrowserSession(allow=LOOPBACK)
    try:
        yield session
    finally:
        await session.aclose()


def _settings(tmp_path: Path, db: Path, tools: Any = LOOPBACK_SETTINGS) -> Settings:
    return Settings(runs_dir=tmp_path / "runs", experience=True, store_file=db, tools=tools)


def _host(settings: Settings, question: str = QUESTION) -> tuple[Host, RunState]:
    """A Host whose run has started (its memory open and read, its routing set), and the
    run's state."""
    host = Host(settings, make_brain("offline"))
    return host, host._start_run(RunFolder.create(settings.runs_dir), question)


async def _call(toolkit: Any, name: str, **arguments: Any) -> str:
    """The text of tool ``name`` called through ``toolkit`` as a model calls it."""
    call = {"type": "tool_use", "id": "1", "name": name, "input": arguments}
    last = None
    async for chunk in await toolkit.call_tool_function(call):
        last = chunk
    return text_of(last)


def _log(db: Path, skill: str) -> str:
    with SkillMemory(db, os_user(), "default") as memory:
        return memory.log(skill)


# --- a site that needs the browser --------------------------------------------------------


async def _read_page(host: Host, browser: BrowserSession, url: str) -> str:
    """Read ``url`` with viewer_fetch through the run's Browser toolkit."""
    host.workers.browser = browser
    agent, _guard, _extra = await host.workers.worker(SPECS["browser"])
    return await _call(agent.toolkit, "viewer_fetch", url=url)


@ASYNC
async def test_a_site_read_in_chromium_is_read_there_at_once_in_the_next_run(
    tmp_path, site, browser
):
    db = tmp_path / "m.sqlite"
    url = site.url("/js/app.html")
    first, state = _host(_settings(tmp_path, db))
    told = await _read_page(first, browser, url)
    assert "Read by: chromium tier" in told and JS_SECRET in told
    result = state.result
    await first._record_experience(state)
    first.workers.browser = None
    await first.close()
    assert result.errors == []
    site_name = site_key(url)
    assert site_name == f"127.0.0.1:{site.port}"
    assert f"### {site_name} is read in a real browser" in _log(db, BROWSER_SKILL)
    plain = [ua for path, ua in site.hits if path == "/js/app.html" and "Chrome" not in ua]
    assert len(plain) == 1  # the first run tried the plain fetch first

    site.hits.clear()
    second, state = _host(_settings(tmp_path, db))
    assert second.workers.browser_sites == {site_name}
    told = await _read_page(second, browser, url)
    second.workers.browser = None
    assert "Read by: chromium tier" in told and JS_SECRET in told
    assert f"read in the browser at once: {site_name} is known to need it" in told
    seen = [ua for path, ua in site.hits if path == "/js/app.html"]
    assert seen and all("Chrome" in ua for ua in seen), site.hits
    (source,) = second.ledger.pages.sources
    assert source["browser_first"] is True and source["tier"] == "chromium"
    await second._record_experience(state)
    await second.close()
    assert parse(_log(db, BROWSER_SKILL)).total == 1  # not recorded twice


@ASYNC
async def test_without_experience_nothing_is_read_from_the_store(tmp_path):
    db = tmp_path / "m.sqlite"
    with SkillMemory(db, os_user(), "default") as memory:
        record_findings(memory, BROWSER_SKILL, [_site_entry("a.example")], DAY)
    settings = Settings(runs_dir=tmp_path / "runs", experience=False, store_file=db)
    host = Host(settings, make_brain("offline"))
    run = RunFolder.create(settings.runs_dir)
    host.workers.start(run, None, QUESTION)
    host._route_by_experience()
    assert host.workers.browser_sites == frozenset()
    assert host.workers.tool_settings() is settings.tools
    await host.close()


@ASYNC
async def test_a_plain_page_of_a_known_site_is_fetched_as_usual(tmp_path, site, browser):
    sites = frozenset({site_key(site.url("/"))})
    assert await goes_to_browser_first(site.url("/static/article.html"), sites)
    assert not await goes_to_browser_first(site.url("/download/table.csv"), sites)
    assert not await goes_to_browser_first("http://other.example/a.html", sites)
    assert not await goes_to_browser_first(site.url("/a.html"), frozenset())


class _Cache:
    """A page cache holding fresh copies of the given kinds of every address."""

    def __init__(self, kinds: set[str]) -> None:
        self.kinds = kinds

    async def lookup(self, kind: str, url: str) -> Any:
        return _Held() if kind in self.kinds else None

    def fresh(self, entry: Any) -> bool:
        return True


class _Held:
    entry = None


@pytest.mark.parametrize(
    ("kinds", "first"),
    [(set(), True), ({HTTP}, False), ({RENDER}, True), ({HTTP, RENDER}, True)],
)
@ASYNC
async def test_a_fresh_plain_copy_in_the_page_cache_is_used_first(kinds, first):
    sites = frozenset({"news.example"})
    with caching(_Cache(kinds)):  # type: ignore[arg-type]
        assert await goes_to_browser_first("https://news.example/a", sites) is first


def _site_entry(site: str) -> Entry:
    return Entry(f"{site} is read in a real browser", "s", "l")


def test_the_sites_come_from_core_and_recent_entries():
    text = ""
    for site in ("a.example", "127.0.0.1:8080"):
        text = _recorded(text, _site_entry(site))
    text = _recorded(merge(text, DAY), _site_entry("B.example"))
    text = _recorded(text, Entry("Consent walls", "s", "l"))
    assert browser_sites(parse(text)) == {"a.example", "127.0.0.1:8080", "b.example"}
    assert browser_sites(None) == frozenset()


def _recorded(text: str, entry: Entry) -> str:
    return record(text, entry.title, entry.scene, entry.lesson, DAY)


def test_a_site_is_its_host_and_any_port_but_the_default():
    assert site_key("https://News.Example/a?b=1") == "news.example"
    assert site_key("https://news.example:443/a") == "news.example"
    assert site_key("http://127.0.0.1:8080/x") == "127.0.0.1:8080"
    assert site_key("http://[::1]:8443/x") == "[::1]:8443"
    assert site_key("not an address") == ""


# --- a search source that fails -----------------------------------------------------------


def test_a_source_is_failing_for_a_language_when_it_never_answered_in_it():
    calls = [
        ("search_bing", "en", "unavailable"),
        ("search_bing", "en", "unavailable"),
        ("search_google", "en", "unavailable"),
        ("search_google", "en", "ok"),
        ("search_sogou", "zh", "unavailable"),
        ("search_sogou", "en", "ok"),
        ("search_wiki", "en", "error"),
    ]
    assert source_failures(calls) == [("search_bing", "en"), ("search_sogou", "zh")]


def test_a_failing_source_is_recorded_once_and_again_after_the_window(tmp_path):
    failures = [("search_bing", "en")]
    later = DAY + timedelta(days=FAILING_SOURCE_DAYS)
    with SkillMemory(tmp_path / "m.sqlite", "ada", "default") as memory:

        def rec(day: date) -> list[str]:
            return record_findings(
                memory,
                SEARCH_SKILL,
                source_findings(failures, day),
                day,
                lambda e: source_expired(e, day),
            )

        assert rec(DAY) == ["search_bing failed for en queries"]
        assert rec(DAY + timedelta(days=1)) == []  # not duplicated within the window
        assert rec(later) == ["search_bing failed for en queries"]  # renewed after it
        log = parse(memory.log(SEARCH_SKILL))
    assert [e.title for e in log.recent] == ["search_bing failed for en queries"]
    assert log.total == 2 and later.isoformat() in log.recent[0].scene


def test_a_failing_source_is_tried_last_within_the_window_only():
    log = parse(_recorded("", source_findings([("search_bing", "en")], DAY)[0]))
    assert failing_sources(log, DAY) == {"en": {"search_bing"}}
    last_day = DAY + timedelta(days=FAILING_SOURCE_DAYS - 1)
    assert failing_sources(log, last_day) == {"en": {"search_bing"}}
    assert failing_sources(log, last_day + timedelta(days=1)) == {}
    assert failing_sources(None, DAY) == {}
    found = routing({SEARCH_SKILL: log}, DAY, search=False)
    assert found.sources_last == {} and found.browser_sites == frozenset()


def test_the_tools_tried_last_follow_the_language_of_the_queries():
    last = {"en": frozenset({"search_bing"}), "zh": frozenset({"search_google"})}
    assert tried_last(last, ["grand canal locks"]) == ["search_bing"]
    assert tried_last(last, ["大运河 船闸"]) == ["search_google"]
    assert tried_last(last, ["grand canal locks", "大运河"]) == ["search_bing", "search_google"]
    assert tried_last({}, ["grand canal locks"]) == []


def test_the_offline_plan_calls_the_sources_tried_last_once_the_others_are_done():
    ctx = {"queries": ["solar power", "photovoltaics"], "try_last": ["search_bing"]}
    first = plan(ctx, [], SOURCES)
    assert first and all(tool != "search_bing" for tool, _ in first)
    done = [CallResult(tool, args, "ok") for tool, args in first]
    assert plan(ctx, done, SOURCES) == [
        ("search_bing", {"query": "solar power"}),
        ("search_bing", {"query": "photovoltaics"}),
    ]
    usual = plan({"queries": ["solar power"]}, [], SOURCES)
    assert ("search_bing", {"query": "solar power"}) in usual
    assert usual.index(("search_bing", {"query": "solar power"})) < len(usual) - 1


async def _search(host: Host, context: dict[str, Any]) -> None:
    """One search task of ``host``'s run, through its Search toolkit and offline brain."""
    spec = SPECS["search"]
    agent, _guard, _extra = await host.workers.worker(spec)
    await agent(delegation_msg(spec, "", context))


@ASYNC
async def test_a_source_that_failed_is_tried_last_in_the_next_run(tmp_path):
    db = tmp_path / "m.sqlite"
    queries = ["solar power"]
    with SearchWeb(CORPUS) as web:
        web.fault("bing-page", "error")
        settings = _settings(tmp_path, db, settings_for(web))
        first, state = _host(settings, "How does solar power work?")
        await _search(first, {"queries": queries})
        failed = [c.name for c in state.calls if c.status == "unavailable"]
        assert failed == ["search_bing"]
        result = state.result
        await first._record_experience(state)
        await first.close()
        assert result.errors == []
        assert "### search_bing failed for en queries" in _log(db, SEARCH_SKILL)

        web.clear()
        second, _state = _host(settings, "How does solar power work?")
        assert second.drive.sources_last == {"en": {"search_bing"}}
        last = tried_last(second.drive.sources_last, queries)
        assert last == ["search_bing"]
        await _search(second, {"queries": queries, "try_last": last})
        await second.close()
        routes = [r.route for r in web.requests]
    assert routes.count("bing-page") == 1 and routes[-1] == "bing-page", routes
    assert {"google-page", "sogou-page", "github", "wiki"} <= set(routes[:-1])


def test_after_the_window_the_source_is_in_its_usual_place(tmp_path):
    db = tmp_path / "m.sqlite"
    with SkillMemory(db, os_user(), "default") as memory:
        record_findings(memory, SEARCH_SKILL, source_findings([("search_bing", "en")], DAY), DAY)
        logs = recall_logs(memory)
    within = routing(logs, DAY + timedelta(days=FAILING_SOURCE_DAYS - 1)).sources_last
    after = routing(logs, DAY + timedelta(days=FAILING_SOURCE_DAYS)).sources_last
    assert tried_last(within, ["solar power"]) == ["search_bing"]
    assert tried_last(after, ["solar power"]) == []
    calls = plan({"queries": ["solar power"], "try_last": []}, [], SOURCES)
    assert ("search_bing", {"query": "solar power"}) in calls
    assert evolved_path(SEARCH_SKILL).endswith("/search-sources/evolved.md")
