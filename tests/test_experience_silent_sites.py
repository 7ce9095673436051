"""A site that answered nothing for a kind of question: recorded once a run is over, and
read last for parts of that kind in the next run while the finding has not expired.

End to end with the offline brain against two small sites served on 127.0.0.1: a
walkers' club whose pages the search engines list as telling when a funicular opened,
but which only hold a members' sign-in notice, and a local history site that tells it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from demo.corpus import CorpusPage, write_corpus
from demo.search_web import Document, SearchWeb
from demo.settings import demo_settings
from demo.site import search_corpus, serve_site
from host.brains import make_brain
from host.config import Settings
from host.durability.memory import (
    FAILING_SOURCE_DAYS,
    SEARCH_SKILL,
    SILENT_SITE_PAGES,
    PartReading,
    SkillMemory,
    os_user,
    record_findings,
    routing,
    silent_site_findings,
    silent_sites,
    sites_read_last,
    source_expired,
)
from host.orchestration.hub import Host, RunResult
from host.research import Candidate, Research
from research.plan import offline_plan
from subagents.evidence import EvidenceLedger, site_key, url_key
from subagents.experience import parse, record

QUESTION = "When was the Hollin Ridge funicular opened?"
DAY = date(2026, 3, 1)

#: The walkers' club: what its pages hold.
CLUB = [
    CorpusPage(
        "Members' area",
        "archive/1897",
        [
            "This part of the club's archive is for members only.",
            "Sign in with your membership number to read the article.",
            "Membership costs twelve crowns a year and includes the quarterly newsletter.",
        ],
        site="Ridge Walkers' Club",
    ),
    CorpusPage(
        "Members' area",
        "archive/line",
        [
            "This part of the club's archive is for members only.",
            "Sign in with your membership number to read the article.",
            "New members receive a badge and a map of the club's routes.",
        ],
        site="Ridge Walkers' Club",
    ),
]
#: What the search engines list for the club's pages: more than the pages hold.
CLUB_LISTED = [
    (
        "The Hollin Ridge funicular opened",
        "When the Hollin Ridge funicular opened, the club walked the line.",
    ),
    (
        "Hollin Ridge funicular history",
        "The Hollin Ridge funicular opened and changed the walks of the ridge.",
    ),
]
#: The local history site, which tells when the funicular opened.
HISTORY = [
    CorpusPage(
        "Brantwick in the 1890s",
        "brantwick-1890s",
        [
            "Brantwick grew fast in the 1890s, as its harbour trade doubled.",
            "The Hollin Ridge funicular was opened on 14 May 1897 by the mayor of Brantwick.",
        ],
    ),
    CorpusPage(
        "Harbour trams and lifts of Brantwick",
        "trams",
        [
            "Brantwick built three lines to its hills before 1900.",
            "The Hollin Ridge funicular opened in May 1897, and a ride cost one penny.",
        ],
    ),
]


def _host_port(base_url: str) -> str:
    return base_url.split("://", 1)[1].strip("/")


@contextmanager
def _two_sites(folder: Path) -> Iterator[SimpleNamespace]:
    """The club's site and the history site, each on its own port, and search engines
    that list the club's pages first, under :data:`CLUB_LISTED`."""
    with ExitStack() as stack:
        bases, corpus = [], []
        for name, pages in (("club", CLUB), ("history", HISTORY)):
            index = write_corpus(pages, folder / name)
            base = stack.enter_context(serve_site(index.folder, redirects={}))
            listed = search_corpus(base, index)
            if name == "club":
                listed = [
                    d | {"title": t, "text": x}
                    for d, (t, x) in zip(listed, CLUB_LISTED, strict=True)
                ]
            corpus += [Document(d["title"], d["url"], d["text"]) for d in listed]
            bases.append(base)
        engines = stack.enter_context(SearchWeb(corpus))
        hosts = (*map(_host_port, bases), _host_port(engines.base))
        yield SimpleNamespace(
            endpoints=dict(engines.urls),
            hosts=hosts,
            ports=tuple(int(h.rsplit(":", 1)[1]) for h in hosts),
            input_dir=None,
            glossary=(),
            club=site_key(bases[0]),
            history=site_key(bases[1]),
        )


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimpleNamespace]:
    with _two_sites(tmp_path_factory.mktemp("web")) as world:
        yield world


async def _research(tmp_path: Path, db: Path, web: SimpleNamespace) -> tuple[Host, RunResult]:
    """A run of :data:`QUESTION` with the offline brain and the memory store ``db``."""
    settings = Settings(
        runs_dir=tmp_path / "runs", experience=True, store_file=db, page_cache=False
    )
    host = Host(demo_settings(settings, web), make_brain("offline"))
    return host, await host.run(QUESTION)


def _reading_order(result: RunResult) -> list[str]:
    """The sites of the pages the run's reading tasks were handed, in order, as its
    ``run.json`` records them."""
    record: dict[str, Any] = json.loads(
        (result.run.path / "internal" / "run.json").read_text(encoding="utf-8")
    )
    steps = [s for s in record["plan"]["rounds"] if s["subagent"] == "browser"]
    return [site_key(url) for step in steps for url in step["urls"]]


def _log(db: Path) -> str:
    with SkillMemory(db, os_user(), "default") as memory:
        return memory.log(SEARCH_SKILL)


def _title(site: str) -> str:
    return f'### {site} answered nothing for "when" questions'


async def test_a_site_that_answered_nothing_is_read_last_in_the_next_run(tmp_path, web):
    db = tmp_path / "m.sqlite"
    club, history = web.club, web.history
    _first, result = await _research(tmp_path, db, web)
    assert result.errors == []
    first = _reading_order(result)
    assert sorted(first) == sorted([club, club, history, history])
    assert first[0] == club  # the engines list the club's pages first
    log = _log(db)
    assert _title(club) in log and history not in log
    assert f"On {date.today().isoformat()}, the pages of {club}" in log

    second, result = await _research(tmp_path, db, web)
    assert result.errors == []
    assert second.drive.sites_last == {"when": {club}}
    assert _reading_order(result) == [history, history, club, club]  # still read, last
    assert parse(_log(db)).total == 1  # not recorded twice within the window


async def test_an_expired_finding_leaves_the_site_in_its_usual_place(tmp_path, web):
    db = tmp_path / "m.sqlite"
    old = date.today() - timedelta(days=FAILING_SOURCE_DAYS)
    with SkillMemory(db, os_user(), "default") as memory:
        record_findings(memory, SEARCH_SKILL, silent_site_findings([(web.club, "when")], old), old)
    host, result = await _research(tmp_path, db, web)
    assert host.drive.sites_last == {}
    assert _reading_order(result)[0] == web.club
    log = parse(_log(db))
    assert log.total == 2  # recorded again, dated today
    assert date.today().isoformat() in log.recent[-1].scene


# --- the rules ----------------------------------------------------------------------------


def _part(kind: str, pages: list[str], sources: list[str]) -> PartReading:
    return PartReading(kind, tuple(pages), frozenset(sources))


def test_a_site_is_silent_for_a_kind_only_when_another_site_answered_it():
    club = [f"http://club.example/p{i}" for i in range(SILENT_SITE_PAGES)]
    answered = ["https://history.example/a"]
    assert silent_sites([_part("when", [*club, *answered], answered)]) == [("club.example", "when")]
    # one page too few, the site gave evidence, or no part of the kind was answered
    assert silent_sites([_part("when", [*club[1:], *answered], answered)]) == []
    assert silent_sites([_part("when", club, [club[0], *answered])]) == []
    assert silent_sites([_part("when", club, []), _part("who", answered, answered)]) == []
    # a run that answered nothing at all names no site
    assert silent_sites([_part("when", club, []), _part("who", club, [])]) == []


def test_the_pages_of_a_site_add_up_over_the_parts_of_a_kind_each_once():
    a, b = "http://club.example/a", "http://club.example/b"
    answer = "https://history.example/x"
    parts = [_part("when", [a], [answer]), _part("when", [b], [])]
    assert silent_sites(parts) == [("club.example", "when")]
    assert silent_sites([_part("when", [a], [answer]), _part("when", [a], [])]) == []
    split = [_part("when", [a], [answer]), _part("who", [b], [answer])]
    assert silent_sites(split) == []  # one page for each kind


def _logged(silent: list[tuple[str, str]], day: date) -> Any:
    text = ""
    for entry in silent_site_findings(silent, day):
        text = record(text, entry.title, entry.scene, entry.lesson, day)
    return parse(text)


def test_a_silent_site_is_read_last_for_its_kind_within_the_window_only():
    log = _logged([("club.example", "when"), ("club.example", "number")], DAY)
    assert [e.title for e in log.recent] == [
        'club.example answered nothing for "when" questions',
        'club.example answered nothing for "how many" questions',
    ]
    last_day = DAY + timedelta(days=FAILING_SOURCE_DAYS - 1)
    expected = {"number": {"club.example"}, "when": {"club.example"}}
    assert sites_read_last(log, last_day) == expected
    assert sites_read_last(log, last_day + timedelta(days=1)) == {}
    assert not any(source_expired(e, last_day) for e in log.recent)
    assert all(source_expired(e, last_day + timedelta(days=1)) for e in log.recent)
    assert routing({SEARCH_SKILL: log}, DAY).sites_last == expected
    assert routing({SEARCH_SKILL: log}, DAY, search=False).sites_last == {}


def test_the_reading_list_puts_a_silent_site_last_for_parts_of_its_kind_only():
    plan = offline_plan("When was the Hollin Ridge funicular opened, and who built its cars?")
    when, who = plan.subquestions
    research = Research(plan, EvidenceLedger(), None, max_rounds=2)
    assert (research.focus[when.id].kind, research.focus[who.id].kind) == ("when", "who")
    for rank, url in enumerate(["http://club.example/a", "https://history.example/b"]):
        candidate = Candidate(url, "", "", rank=rank)
        candidate.scores = {when.id: 0.9 - rank / 10, who.id: 0.9 - rank / 10}
        research.candidates[url_key(url)] = candidate
    usual = ["http://club.example/a", "https://history.example/b"]
    assert research.reading_list(when.id, 4) == usual
    research.read_last = {"when": frozenset({"club.example"})}
    assert research.reading_list(when.id, 4) == usual[::-1]
    assert research.reading_list(when.id, 1) == usual[1:]  # read when the budget allows
    assert research.reading_list(who.id, 4) == usual
