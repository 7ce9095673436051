"""The page cache across runs: real HTTP servers on 127.0.0.1, a clock the tests move.

Each "run" is a fresh file service and evidence ledger (as a run folder has), sharing one
store; the cache's clock is injected, so that the freshness window passes without a sleep.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from browser_sites import SiteServer, send
from browser_support import LOOPBACK_SETTINGS, evidence_of, stored_path
from cache_support import HOUR, T0, Clock, make_cache, three_namespaces

from fs_service import ALL_OPS, READ_OPS, FileDomainService, MemoryFileSystem
from fs_service.backends import StoreFileSystem
from host.config import ConfigError, load_settings
from host.durability.memory import open_memory, os_user
from host.durability.page_cache import open_page_cache, run_cache
from quartet.cli import main
from quartet.cli.parser import build_parser
from quartet.cli.running import settings_of
from subagents.browser.download import http_download
from subagents.browser.session import RenderedPage
from subagents.browser.tiers import render_page
from subagents.browser.viewer import viewer_fetch
from subagents.evidence import EvidenceItem, EvidenceLedger, PageRecord, sidecar_path, span_matches
from subagents.generate.citations import Citation, CitationChecker
from subagents.generate.markdown import source_head
from subagents.generate.report import Colophon, Report
from subagents.net.pagecache import (
    HTTP,
    CacheEntry,
    PageCache,
    RunCache,
    caching,
    entry_path,
    http_entry,
)
from subagents.results import text_of

ROOT = Path(__file__).resolve().parent.parent
GRANTS = [
    {"prefix": "/workspace/", "ops": set(ALL_OPS)},
    {"prefix": "/userinput/", "ops": set(READ_OPS)},
]
#: The freshness window of every cache here: an hour.
WINDOW = HOUR


def article(version: int) -> bytes:
    """An article that passes the quality gate over HTTP; its words say its version."""
    paragraphs = "".join(
        f"<p>The lock keepers of version {version} raised the gates at dawn, and paragraph "
        f"{n} of the history says the barges waited for the water to rise.</p>"
        for n in range(6)
    )
    return (
        f"<html><head><title>Locks, version {version}</title></head><body><article>"
        f"<h1>Locks</h1>{paragraphs}</article></body></html>"
    ).encode()


@dataclass
class Site:
    """A server whose page answers conditional requests as a caching site does."""

    server: SiteServer
    version: int = 1
    #: each request: (path, If-None-Match, If-Modified-Since, status sent)
    log: list[tuple[str, str, str, int]] = field(default_factory=list)

    def url(self, path: str) -> str:
        return self.server.url(path)

    def requests(self, path: str) -> list[tuple[str, str, int]]:
        return [(etag, since, status) for p, etag, since, status in self.log if p == path]


LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT"
CSV = b"city,length_km\nHangzhou,1794\nBeijing,1794\n"


def _page(site: Site):
    def handle(h) -> None:
        etag = f'"v{site.version}"'
        asked = h.headers.get("If-None-Match", "")
        status = 304 if asked == etag else 200
        site.log.append(("/page.html", asked, h.headers.get("If-Modified-Since", ""), status))
        body = b"" if status == 304 else article(site.version)
        send(h, status, body, headers={"ETag": etag})

    return handle


def _csv(site: Site):
    def handle(h) -> None:
        since = h.headers.get("If-Modified-Since", "")
        status = 304 if since == LAST_MODIFIED else 200
        site.log.append(("/cities.csv", "", since, status))
        body = b"" if status == 304 else CSV
        send(h, status, body, "text/csv", headers={"Last-Modified": LAST_MODIFIED})

    return handle


def _uncached(site: Site):
    def handle(h) -> None:
        site.log.append(("/private.html", "", "", 200))
        send(h, 200, article(9), headers={"Cache-Control": "no-store"})

    return handle


@pytest.fixture(scope="module")
def server():
    srv = SiteServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def site(server):
    site = Site(server)
    server.routes.update(
        {"/page.html": _page(site), "/cities.csv": _csv(site), "/private.html": _uncached(site)}
    )
    return site


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cache(tmp_path, clock):
    made = make_cache(tmp_path, clock)
    yield made
    made.close()


@dataclass
class Run:
    """One run's folder and ledger."""

    service: FileDomainService = field(
        default_factory=lambda: FileDomainService(MemoryFileSystem().create_handle(GRANTS))
    )
    ledger: EvidenceLedger = field(default_factory=EvidenceLedger)


async def read(url: str, cache: RunCache | None, run: Run, query: str | None = None):
    """viewer_fetch in ``run`` with ``cache`` as the run's page cache."""
    with caching(cache):
        return await viewer_fetch(
            url, query, service=run.service, evidence=run.ledger, settings=LOOPBACK_SETTINGS
        )


async def sidecar(run: Run, res) -> tuple[str, PageRecord]:
    path = stored_path(res)
    text = await run.service.read_text(path)
    return text, PageRecord.from_json(await run.service.read_text(sidecar_path(path)))


# --- reuse within the window, revalidation after it ---------------------------------------


async def test_a_second_fetch_within_the_window_makes_no_request(site, cache, clock):
    url = site.url("/page.html")
    first = await read(url, RunCache(cache), Run())
    assert first.metadata["status"] == "ok", text_of(first)
    assert site.requests("/page.html") == [("", "", 200)]
    clock.now += WINDOW - 60
    run = Run()
    second = await read(url, RunCache(cache), run)
    assert site.requests("/page.html") == [("", "", 200)]  # no new request
    text, record = await sidecar(run, second)
    assert "version 1" in text
    assert record.from_cache and not record.revalidated
    assert record.fetched_at == "2027-01-15T08:00:00+00:00"  # when the first run fetched it
    assert "Cached copy: fetched 2027-01-15T08:00:00+00:00" in text_of(second)
    (source,) = run.ledger.pages.sources
    assert source["from_cache"] and source["fetched_at"] == record.fetched_at
    assert source["kind"] == "page" and source["path"] == stored_path(second)


async def test_after_the_window_a_conditional_request_and_a_304_reuse_the_copy(site, cache, clock):
    url = site.url("/page.html")
    await read(url, RunCache(cache), Run())
    clock.now += WINDOW + 1
    run = Run()
    res = await read(url, RunCache(cache), run)
    assert site.requests("/page.html") == [("", "", 200), ('"v1"', "", 304)]
    text, record = await sidecar(run, res)
    assert "version 1" in text and record.from_cache and record.revalidated
    assert "the site confirmed it unchanged" in text_of(res)
    # the 304 started the window again: the next run asks nothing
    clock.now += WINDOW - 60
    await read(url, RunCache(cache), Run())
    assert len(site.requests("/page.html")) == 2


async def test_a_changed_page_replaces_the_copy_and_old_citations_still_verify(site, cache, clock):
    url = site.url("/page.html")
    first = Run()
    res1 = await read(url, RunCache(cache), first, "When did the lock keepers raise the gates?")
    quotes = evidence_of(res1)
    assert quotes and all("version 1" in q.span for q in quotes)
    site.version = 2
    clock.now += WINDOW + 1
    second = Run()
    res2 = await read(url, RunCache(cache), second, "When did the lock keepers raise the gates?")
    assert site.requests("/page.html")[-1] == ('"v1"', "", 200)  # asked, and sent the new page
    text2, record2 = await sidecar(second, res2)
    assert "version 2" in text2 and not record2.from_cache
    # the first run's citations verify against the first run's own stored text
    text1, _ = await sidecar(first, res1)
    checker = CitationChecker(first.service, first.ledger, {})
    for quote in quotes:
        item = first.ledger.get(quote.id)
        assert item is not None and span_matches(text1, item)
        assert await checker.check(quote.id) == item
        assert not span_matches(text2, item)  # the new version says something else
    # the cache now holds the new version: a later run reads it without a request
    clock.now += 60
    third = Run()
    text3, record3 = await sidecar(third, await read(url, RunCache(cache), third))
    assert "version 2" in text3 and record3.from_cache
    assert len(site.requests("/page.html")) == 2


async def test_a_download_is_cached_and_revalidated_by_its_last_modified_date(site, cache, clock):
    url = site.url("/cities.csv")
    runs = [Run(), Run(), Run()]
    for n, run in enumerate(runs):
        clock.now += (WINDOW + 1) if n == 2 else 60
        with caching(RunCache(cache)):
            res = await http_download(
                url,
                "/workspace/downloads/cities.csv",
                service=run.service,
                settings=LOOPBACK_SETTINGS,
                evidence=run.ledger,
            )
        assert res.metadata["status"] == "ok", text_of(res)
        assert await run.service.read_bytes("/workspace/downloads/cities.csv") == CSV
    assert site.requests("/cities.csv") == [("", "", 200), ("", LAST_MODIFIED, 304)]
    flags = [
        (r.ledger.pages.sources[0]["from_cache"], r.ledger.pages.sources[0]["revalidated"])
        for r in runs
    ]
    assert flags == [(False, False), (True, False), (True, True)]
    noted = runs[1].ledger.pages.source_at("/workspace/downloads/cities.csv")
    assert noted is not None and noted["kind"] == "download" and noted["bytes"] == len(CSV)


async def test_a_page_marked_no_store_is_not_kept(site, cache):
    url = site.url("/private.html")
    for _ in range(2):
        await read(url, RunCache(cache), Run())
    assert len(site.requests("/private.html")) == 2
    assert cache.stats().entries == 0


async def test_a_rendered_page_is_reused_while_fresh_and_rendered_again_after(cache, clock):
    class Browser:
        calls = 0

        async def render(self, url: str) -> RenderedPage:
            Browser.calls += 1
            return RenderedPage(url, url, 200, f"<p>render {Browser.calls}</p>", "T")

    browser = Browser()
    with caching(RunCache(cache)):
        first, seen1 = await render_page(browser, "http://127.0.0.1/app")  # type: ignore[arg-type]
        clock.now += 60
        again, seen2 = await render_page(browser, "http://127.0.0.1/app")  # type: ignore[arg-type]
        clock.now += WINDOW
        third, _ = await render_page(browser, "http://127.0.0.1/app")  # type: ignore[arg-type]
    assert Browser.calls == 2
    assert again.html == first.html == "<p>render 1</p>" and again.title == "T"
    assert seen2.from_cache and seen2.fetched_at == seen1.fetched_at == T0
    assert third.html == "<p>render 2</p>"


def test_a_damaged_entry_is_no_entry(cache, clock):
    entry = http_entry("http://h/a", "http://h/a", 200, {}, b"body", clock())
    assert cache.put(entry, b"body")
    path = entry_path(HTTP, "http://h/a")
    with cache.store.open_atomic(path, 1 << 20) as out:
        out.write(entry.encode(b"body")[:-1] + b"X")  # the hash no longer matches
    assert cache.get(HTTP, "http://h/a") is None
    assert cache.stats().entries == 0  # removed


# --- --fresh, recordings and replays -------------------------------------------------------


async def test_fresh_reads_nothing_from_the_cache_and_still_writes(site, cache, clock):
    url = site.url("/page.html")
    await read(url, RunCache(cache), Run())
    site.version = 3
    clock.now += 60
    run = Run()
    text, record = await sidecar(run, await read(url, RunCache(cache, reads=False), run))
    assert site.requests("/page.html")[-1] == ("", "", 200)  # no validators: a plain request
    assert "version 3" in text and not record.from_cache
    clock.now += 60
    later = Run()
    text, record = await sidecar(later, await read(url, RunCache(cache), later))
    assert "version 3" in text and record.from_cache  # what the fresh run fetched was kept
    assert len(site.requests("/page.html")) == 2


def test_the_fresh_flag_and_the_tape_decide_what_a_run_reads(tmp_path, clean_env):
    args = build_parser().parse_args(["run", "q", "--fresh", "--runs-dir", str(tmp_path)])
    assert args.fresh and settings_of(args).fresh
    settings = load_settings({"runs_dir": str(tmp_path)})
    assert not settings.fresh
    reading = [
        (settings, {}),
        (load_settings({"runs_dir": str(tmp_path), "fresh": True}), {}),
        (settings, {"recording": True}),
    ]
    seen = []
    for given, how in reading:
        made, why = run_cache(given, **how)
        assert made is not None and why is None
        seen.append((made.reads, made.writes))
        made.cache.close()
    assert seen == [(True, True), (False, True), (False, True)]
    assert run_cache(settings, replaying=True) == (None, None)


def test_page_cache_off_reads_and_keeps_nothing_and_makes_no_store(tmp_path, clean_env):
    """``page_cache = false`` (or ``QUARTET_PAGE_CACHE=0``): a run has no cache, and no
    store file is made for it."""
    runs = tmp_path / "runs"
    (tmp_path / "quartet.toml").write_text("[quartet]\npage_cache = false\n", "utf-8")
    clean_env.chdir(tmp_path)
    settings = load_settings({"runs_dir": str(runs)})
    assert settings.page_cache is False
    assert run_cache(settings) == (None, None)
    assert not settings.store_path().exists()
    clean_env.setenv("QUARTET_PAGE_CACHE", "0")
    (tmp_path / "quartet.toml").unlink()
    assert load_settings({"runs_dir": str(runs)}).page_cache is False
    clean_env.setenv("QUARTET_PAGE_CACHE", "sometimes")
    with pytest.raises(ConfigError, match="page_cache"):
        load_settings({"runs_dir": str(runs)})


def test_the_cache_settings_read_durations_and_refuse_nonsense(tmp_path, clean_env):
    clean_env.setenv("QUARTET_CACHE_FRESH", "12h")
    clean_env.setenv("QUARTET_CACHE_MAX_MB", "64")
    settings = load_settings({"runs_dir": str(tmp_path)})
    assert settings.cache_fresh == 12 * HOUR and settings.cache_max_mb == 64
    clean_env.setenv("QUARTET_CACHE_FRESH", "soon")
    with pytest.raises(ConfigError, match="cache_fresh: expected seconds or a time such as"):
        load_settings({"runs_dir": str(tmp_path)})
    clean_env.setenv("QUARTET_CACHE_FRESH", "0")
    clean_env.setenv("QUARTET_CACHE_MAX_MB", "0")
    with pytest.raises(ConfigError, match="cache_max_mb: must be positive"):
        load_settings({"runs_dir": str(tmp_path)})


# --- namespaces and the bound ---------------------------------------------------------------


async def test_a_cached_page_never_crosses_a_user_or_a_project(site, tmp_path, clock):
    url = site.url("/page.html")
    with three_namespaces(tmp_path, clock) as caches:
        for n, cache in enumerate(caches, 1):
            await read(url, RunCache(cache), Run())
            assert len(site.requests("/page.html")) == n  # each namespace fetched it itself
            stats = cache.stats()
            assert (stats.entries, stats.derived) == (2, 1)  # the page, and its Markdown
        caches[1].clear()
        assert [c.stats().entries for c in caches] == [2, 0, 2]


def test_eviction_keeps_the_namespace_under_its_bound_and_the_memories(tmp_path, clock):
    store = StoreFileSystem(tmp_path / "s.sqlite", "alice", "p", 64 * 1024, clock=clock)
    cache = PageCache(store, WINDOW, clock)
    try:
        with store.open_atomic("/memories/skills/a/evolved.md", 1 << 20) as out:
            out.write(b"m" * 4000)
        body = b"x" * 10_000
        for n in range(12):
            clock.now += 1
            entry = http_entry(f"http://h/{n}", f"http://h/{n}", 200, {}, body, clock())
            assert cache.put(entry, body)
        stats = cache.stats()
        assert stats.bytes + 4000 <= 64 * 1024 and 0 < stats.entries < 12
        assert cache.get(HTTP, "http://h/11") is not None  # the newest stay
        assert cache.get(HTTP, "http://h/0") is None  # the least recently used went
        assert store.read_bytes("/memories/skills/a/evolved.md", 1 << 20) == b"m" * 4000
        big = b"y" * (cache.max_entry_bytes + 1)
        assert not cache.put(http_entry("http://h/big", "", 200, {}, big, clock()), big)
    finally:
        cache.close()


# --- the record of a run, and the report -------------------------------------------------------


def test_the_report_says_when_each_web_pages_copy_was_fetched():
    """A web source's entry gives the day its stored copy was fetched, whether that was
    the report's own day or an earlier one (a copy from the page cache); a file's entry
    gives none."""
    item = EvidenceItem(
        url="http://h/a", span="x", start=0, end=1, page_path="/workspace/pages/a.md"
    )
    older = Citation(1, item, "Locks", fetched="2026-11-30T10:00:00+00:00")
    today = Citation(
        2,
        replace(item, url="http://h/b", page_path="/workspace/pages/b.md"),
        "Gates",
        fetched="2026-12-03T09:00:00+00:00",
    )
    notes = Citation(
        3,
        replace(item, url="notes.md", page_path="/workspace/sources/notes.md"),
        "Notes",
        fetched="2026-12-03T09:00:00+00:00",
    )
    colophon = Colophon("2026-12-03", "0.1.0", "offline", 2, 1)
    report = Report("T", [], [], [older, today, notes], colophon=colophon)
    first, second, file = report.source_entries()
    assert source_head(report, first).endswith("](<copies/a.md>) (fetched 2026-11-30)")
    assert source_head(report, second).endswith("](<copies/b.md>) (fetched 2026-12-03)")
    assert source_head(report, file).endswith("](<copies/notes.md>)")


# --- quartet cache stats|clear ----------------------------------------------------------------


def _put(settings, n: int) -> None:
    clock = Clock()
    cache = open_page_cache(settings, clock)
    try:
        for i in range(n):
            body = f"page {i}".encode()
            entry = http_entry(f"http://h/{i}", f"http://h/{i}", 200, {}, body, clock())
            cache.put(entry, body)
            clock.now += 1
    finally:
        cache.close()


def test_quartet_cache_stats_and_clear(tmp_path, clean_env, capsys):
    clean_env.chdir(tmp_path)
    runs = str(tmp_path / "runs")
    main(["cache", "stats", "--runs-dir", runs])
    assert "entries: 0" in capsys.readouterr().out
    assert not (tmp_path / "runs").exists()  # stats creates no store
    settings = load_settings({"runs_dir": runs})
    _put(settings, 3)
    clean_env.setenv("QUARTET_PROJECT", "other")
    _put(load_settings({"runs_dir": runs}), 1)
    clean_env.delenv("QUARTET_PROJECT")
    memory = open_memory(settings)
    memory.update("/memories/skills/x/evolved.md", lambda text: text + "kept")
    memory.close()
    assert main(["cache", "stats", "--runs-dir", runs]) == 0
    out = capsys.readouterr().out
    assert f"Page cache of user {os_user()}, project default in " in out
    assert "entries: 3\n" in out and "oldest: 2027-01-15T08:00:00+00:00" in out
    assert "newest: 2027-01-15T08:00:02+00:00" in out
    assert main(["cache", "clear", "--runs-dir", runs]) == 0
    assert "Removed 3 entries" in capsys.readouterr().out
    main(["cache", "stats", "--runs-dir", runs])
    assert "entries: 0\n" in capsys.readouterr().out
    clean_env.setenv("QUARTET_PROJECT", "other")  # another project's cache is untouched
    main(["cache", "stats", "--runs-dir", runs])
    assert "entries: 1\n" in capsys.readouterr().out
    memory = open_memory(settings)  # and so are the memories beside the cache
    assert memory.read("/memories/skills/x/evolved.md") == "kept"
    memory.close()


def test_an_entry_round_trips_with_its_validators():
    body = b"<p>x</p>"
    entry = http_entry("u", "f", 200, {"etag": '"e"', "last-modified": "L"}, body, T0)
    assert (entry.etag, entry.last_modified, entry.size) == ('"e"', "L", len(body))
    assert CacheEntry.decode(entry.encode(body)) == (entry, body)
    assert CacheEntry.decode(b'{"v": 99}\n') is None
