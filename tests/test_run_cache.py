"""A second run of the same question in the same store, within the page cache's window.

The demo's web and search engines are served on 127.0.0.1 and the demo question is run
three times with one runs folder (one store): first with an empty cache, then again, then
with ``--fresh``. Runs take one task at a time, so that each reads the same pages in the
same order and their reports can be compared as they are.

The second run asks the search engines nothing and fetches no page (its result lists,
pages, their Markdown, what its files say, its charts and its PDF come from the cache),
and says exactly what the first said, every citation on the stored text of its own run
folder; ``--fresh`` asks the engines and fetches the pages again, and says the same too.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from cli_support import shared_cache

from demo.settings import demo_settings
from demo.web import DemoWorld, demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host

#: The colophon names the day a report was made: two runs either side of midnight differ
#: there alone.
_DAY = re.compile(r" on \d{4}-\d{2}-\d{2} ")


@dataclass
class Made:
    """What one run made and asked for."""

    folder: Path
    site_requests: list[str]
    search_requests: int
    record: dict[str, Any]

    def report(self, suffix: str) -> bytes:
        (path,) = (self.folder / "workspace" / "reports").glob(f"*{suffix}")
        return path.read_bytes()

    def markdown(self) -> str:
        return _DAY.sub(" on DAY ", self.report(".md").decode("utf-8"))

    def evidence(self) -> list[dict[str, Any]]:
        lines = (self.folder / "internal" / "evidence.jsonl").read_text("utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


def _run(world: DemoWorld, runs: Path, fresh: bool = False) -> Made:
    settings = replace(
        Settings(runs_dir=runs, quiet=True),
        formats=("md", "pdf"),
        concurrency=1,
        fresh=fresh,
        stage_timeout=120,
    )
    pages, searches = len(world.site_requests), len(world.search_requests)
    host = Host(demo_settings(settings, world), make_brain("offline"))
    result = asyncio.run(host.run(world.question))
    record = json.loads((result.run.path / "internal" / "run.json").read_text("utf-8"))
    return Made(
        result.run.path,
        world.site_requests[pages:],
        len(world.search_requests) - searches,
        record,
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Made]:
    runs = tmp_path_factory.mktemp("cached-runs") / "runs"
    with demo_world(shared_cache()) as world:
        first = _run(world, runs)
        again = _run(world, runs)
        fresh = _run(world, runs, fresh=True)
    return {"first": first, "again": again, "fresh": fresh}


def test_the_first_run_asks_the_engines_and_fetches_the_pages(made):
    first = made["first"]
    assert first.site_requests and first.search_requests
    assert not any(s["from_cache"] for s in first.record["web_sources"])


def test_the_second_run_asks_the_engines_nothing_and_fetches_nothing(made):
    again = made["again"]
    assert again.site_requests == []
    assert again.search_requests == 0
    sources = again.record["web_sources"]
    assert sources and all(s["from_cache"] and not s["revalidated"] for s in sources)
    assert _lists(again.record) == _lists(made["first"].record)  # the same lists, whole


def _lists(record: dict[str, Any]) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Every search result list a run was given: source, part, query, addresses."""
    return sorted(
        (source, r["subquestion"], r["query"], tuple(r["results"]))
        for source, lists in record["search_results"].items()
        for r in lists
    )


def test_the_second_run_says_what_the_first_said(made):
    first, again = made["first"], made["again"]
    assert again.markdown() == first.markdown()
    if again.report(".md") == first.report(".md"):  # made the same day: the same PDF
        assert again.report(".pdf") == first.report(".pdf")
    key = lambda item: (item["url"], item["start"], item["end"])  # noqa: E731
    assert sorted(map(key, again.evidence())) == sorted(map(key, first.evidence()))


def test_every_quote_of_the_second_run_is_on_its_own_stored_text(made):
    again = made["again"]
    items = again.evidence()
    assert items
    for item in items:
        stored = (again.folder / item["page_path"].removeprefix("/")).read_text("utf-8")
        assert stored[item["start"] : item["end"]] == item["span"], item["id"]


def test_fresh_asks_the_engines_and_fetches_the_pages_again_and_says_the_same(made):
    first, fresh = made["first"], made["fresh"]
    assert sorted(fresh.site_requests) == sorted(first.site_requests)
    assert fresh.search_requests == first.search_requests
    assert not any(s["from_cache"] for s in fresh.record["web_sources"])
    assert fresh.markdown() == first.markdown()
