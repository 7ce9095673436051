"""Runs that share a store fetch a page once, even when they ask for it at the same moment.

Each test serves its page from a real HTTP server on 127.0.0.1 that holds every response
until the test opens its gate, and keeps its store in a SQLite file or a throwaway
PostgreSQL database (the ``target`` fixture). The test opens the gate only once one
fetcher has asked the server and the other has said, in the page cache's log, that it
waits for that fetch: no timing decides what each one sees.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import queue
import signal
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from browser_sites import SiteServer, send
from browser_support import LOOPBACK
from cache_support import HOUR, T0, Clock
from child_support import WAIT, Child

from fs_service.backends import StoreFileSystem
from fs_service.backends.store import Claim, is_store_url
from subagents.browser.tiers import fetch_http
from subagents.net.pagecache import HTTP, PageCache, RunCache, caching, entry_path

PATH = "/canal.html"
BODY = (
    "<html><head><title>The Grand Canal</title></head><body><article><h1>Locks</h1>"
    + "".join(
        f"<p>Paragraph {n}: the lock keepers raised the gates at dawn, and the barges "
        "waited for the water to rise before they went on to the north.</p>"
        for n in range(6)
    )
    + "</article></body></html>"
).encode()


@dataclass
class HeldSite:
    """A server whose page answers only once the test opens :attr:`gate`.

    Attributes:
        server: the server on 127.0.0.1.
        asked: each request's path, put as it arrives (before it waits on the gate).
        gate: set to let every request, waiting or to come, have its answer.
        headers: the response's extra headers.
    """

    server: SiteServer
    asked: queue.Queue[str] = field(default_factory=queue.Queue)
    gate: threading.Event = field(default_factory=threading.Event)
    headers: dict[str, str] = field(default_factory=lambda: {"ETag": '"v1"'})

    @property
    def url(self) -> str:
        return self.server.url(PATH)

    def requests(self) -> int:
        """How many requests the page had."""
        return self.server.paths().count(PATH)

    def first_request(self) -> str:
        """Wait for a request to arrive; its path."""
        return self.asked.get(timeout=WAIT)


@pytest.fixture
def held() -> Iterator[HeldSite]:
    site = HeldSite(SiteServer())

    def answer(handler) -> None:
        site.asked.put(PATH)
        site.gate.wait(WAIT)
        send(handler, 200, BODY, headers=site.headers)

    site.server.routes[PATH] = answer
    site.server.start()
    yield site
    site.gate.set()
    site.server.stop()


@pytest.fixture
def waits() -> Iterator[threading.Event]:
    """Set when a fetch of this process starts waiting for another's (the page cache's
    log says so)."""
    event = threading.Event()

    class Told(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            event.set()

    log = logging.getLogger("subagents.net.pagecache")
    handler, level = Told(), log.level
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    yield event
    log.removeHandler(handler)
    log.setLevel(level)


def _cache(target: str, user: str = "alice", project: str = "p", **kw) -> PageCache:
    return PageCache(StoreFileSystem(target, user, project), HOUR, **kw)


async def _fetch(run: RunCache, url: str):
    with caching(run):
        return await fetch_http(url, LOOPBACK)


# -- the claim in the store ------------------------------------------------------------


def test_one_owner_holds_a_claim_until_it_gives_it_up_or_its_time_runs_out(target):
    clock = Clock()
    stores = [
        StoreFileSystem(target, user, project, clock=clock)
        for user, project in (("alice", "p"), ("alice", "p"), ("bob", "p"), ("alice", "q"))
    ]
    try:
        mine, same, bob, other_project = stores
        assert mine.claim("/k", "a", 30).owner == "a"
        held = same.claim("/k", "b", 30)  # another connection, another owner: refused
        assert (held.owner, held.expires) == ("a", T0 + 30)
        assert bob.claim("/k", "c", 30).owner == "c"  # other namespaces are not held
        assert other_project.claim("/k", "d", 30).owner == "d"
        clock.now += 20
        assert mine.claim("/k", "a", 30).expires == T0 + 50  # the owner renews its claim
        same.release("/k", "b")  # not b's to give up
        assert same.claim("/k", "b", 30).owner == "a"
        mine.release("/k", "a")
        assert same.claim("/k", "b", 30).owner == "b"
        clock.now += 31  # b's claim ran out: the next claimant takes it
        assert mine.claim("/k", "a", 30) == Claim("a", clock.now + 30)
        assert mine.list_dir("/") == []  # a claim is no file
    finally:
        for store in stores:
            store.close()


# -- two processes ---------------------------------------------------------------------

FETCHER = """
import asyncio
import json
import logging
import sys

from fs_service.backends import StoreFileSystem
from subagents.browser.tiers import fetch_http
from subagents.net.pagecache import PageCache, RunCache, caching
from subagents.settings import NetworkPolicy

target, user, url, claim_seconds = sys.argv[1:5]


class Told(logging.Handler):
    def emit(self, record):
        print("waiting", flush=True)


log = logging.getLogger("subagents.net.pagecache")
log.setLevel(logging.DEBUG)
log.addHandler(Told())
store = StoreFileSystem(target, user, "p")
run = RunCache(PageCache(store, 3600.0, claim_seconds=float(claim_seconds)))


async def fetch():
    with caching(run):
        page = await fetch_http(url, NetworkPolicy.parse("127.0.0.1"))
    seen = page.provenance
    return {"text": page.text, "from_cache": seen.from_cache, "errors": run.errors}


print("ready", flush=True)
sys.stdin.readline()
print(json.dumps(asyncio.run(fetch())), flush=True)
"""


class Voices:
    """What several children say, in the order they say it (``ready`` left out)."""

    def __init__(self) -> None:
        self._said: queue.Queue[tuple[Child, str]] = queue.Queue()

    def hear(self, child: Child, line: str) -> None:
        if line != "ready":
            self._said.put((child, line))

    def next(self) -> tuple[Child, str]:
        """The next child to say something, and what it said."""
        try:
            return self._said.get(timeout=WAIT)
        except queue.Empty:
            pytest.fail(f"no child said anything in {WAIT:.0f} s")


def _start_together(spawn, target: str, url: str, claim_seconds: str) -> tuple[Voices, list]:
    """Two fetchers of ``url``, ready, then told to go at once."""
    voices = Voices()
    children = [
        spawn(FETCHER, target, "alice", url, claim_seconds, heard=voices.hear) for _ in range(2)
    ]
    for child in children:
        assert child.expect() == "ready"
    for child in children:
        child.send("go\n")
    return voices, children


def _waiter_and_owner(held: HeldSite, voices: Voices, children: list) -> tuple[Child, Child]:
    """Once one fetcher asked the server and the other waits for it: both."""
    assert held.first_request() == PATH
    waiter, said = voices.next()
    assert said == "waiting", waiter.stderr()
    (owner,) = [child for child in children if child is not waiter]
    return waiter, owner


def _page_of(child: Child) -> dict:
    page = json.loads(child.expect())
    assert page["errors"] == [], page["errors"]
    assert "lock keepers raised the gates" in page["text"]
    return page


def test_two_processes_asking_for_one_page_at_once_fetch_it_once(target, spawn, held):
    voices, children = _start_together(spawn, target, held.url, "600")
    waiter, owner = _waiter_and_owner(held, voices, children)
    held.gate.set()
    fetched = _page_of(owner)
    assert waiter.expect() == "waiting"
    reused = _page_of(waiter)
    assert not fetched["from_cache"] and reused["from_cache"]
    assert reused["text"] == fetched["text"]
    for child in children:
        assert child.proc.wait(WAIT) == 0, child.stderr()
    assert held.requests() == 1
    with contextlib.closing(_cache(target)) as cache:  # the owner gave its claim up
        assert cache.claim(HTTP, held.url, "next", 60).owner == "next"


def test_the_claim_of_a_killed_fetcher_runs_out_and_the_waiter_fetches(target, spawn, held):
    voices, children = _start_together(spawn, target, held.url, "3")
    waiter, owner = _waiter_and_owner(held, voices, children)
    os.kill(owner.proc.pid, signal.SIGKILL)
    assert owner.proc.wait(WAIT) == -signal.SIGKILL
    held.gate.set()
    assert waiter.expect() == "waiting"
    assert not _page_of(waiter)["from_cache"]  # it fetched the page itself
    assert waiter.proc.wait(WAIT) == 0, waiter.stderr()
    assert held.requests() == 2


# -- one process -----------------------------------------------------------------------


async def _open_when_one_waits(held: HeldSite, waits: threading.Event) -> None:
    """Open the gate once the server was asked and a fetch waits for that one."""
    await asyncio.to_thread(held.first_request)
    assert await asyncio.to_thread(waits.wait, WAIT), "no fetch waited for the other"
    held.gate.set()


async def test_two_tasks_of_one_run_fetch_one_page_once(target, held, waits):
    run = RunCache(_cache(target))
    try:
        first, second, _ = await asyncio.gather(
            _fetch(run, held.url), _fetch(run, held.url), _open_when_one_waits(held, waits)
        )
    finally:
        run.cache.close()
    assert sorted([first.provenance.from_cache, second.provenance.from_cache]) == [False, True]
    assert first.text == second.text and held.requests() == 1
    assert run.errors == []


async def test_a_page_its_fetcher_could_not_keep_is_fetched_by_the_waiter(target, held, waits):
    held.headers["Cache-Control"] = "no-store"
    run = RunCache(_cache(target))
    try:
        pages = await asyncio.gather(
            _fetch(run, held.url), _fetch(run, held.url), _open_when_one_waits(held, waits)
        )
    finally:
        run.cache.close()
    assert [page.provenance.from_cache for page in pages[:2]] == [False, False]
    assert held.requests() == 2


async def test_a_claim_makes_only_the_runs_of_its_own_namespace_wait(target, held, waits):
    held.gate.set()
    alice = _cache(target)
    try:
        assert alice.claim(HTTP, held.url, "another run", 600).owner == "another run"
        for user, project in (("bob", "p"), ("alice", "q")):
            run = RunCache(_cache(target, user, project))
            page = await _fetch(run, held.url)
            run.cache.close()
            assert not page.provenance.from_cache and not waits.is_set()
        assert held.requests() == 2
        run = RunCache(_cache(target))
        fetching = asyncio.create_task(_fetch(run, held.url))
        assert await asyncio.to_thread(waits.wait, WAIT)  # alice's own run waits
        assert held.requests() == 2
        await asyncio.to_thread(alice.release, HTTP, held.url, "another run")
        page = await asyncio.wait_for(fetching, WAIT)  # then fetches: nothing was kept
        run.cache.close()
        assert not page.provenance.from_cache and held.requests() == 3
    finally:
        alice.close()


def _drop_claims(target: str) -> None:
    """Remove the store's claims table behind its back."""
    if not is_store_url(target):
        with contextlib.closing(sqlite3.connect(target)) as raw, raw:
            raw.execute("DROP TABLE claims")
        return
    import psycopg

    with psycopg.connect(target, autocommit=True) as raw:
        raw.execute("DROP TABLE claims")


async def test_a_store_that_cannot_claim_still_fetches_and_keeps_the_page(target, held):
    held.gate.set()
    run = RunCache(_cache(target))
    try:
        _drop_claims(target)
        page = await _fetch(run, held.url)
        assert not page.provenance.from_cache and held.requests() == 1
        assert len(run.errors) == 1 and "could not claim" in run.errors[0]
        assert run.cache.get(HTTP, held.url) is not None
        assert entry_path(HTTP, held.url) in run.errors[0]
    finally:
        run.cache.close()
