"""One demo run through the command line, with a sixth search source and a fifth
subagent added by one registration each, and a page budget other than the default.

The registrations are the steps ``docs/architecture.md`` gives: a provider and its
``search_papers`` tool, registered with ``Registry.with_source``; a spec with its tool,
its context, its absorption and its offline policy, registered with
``Registry.with_subagent``. Each returns a new registry, which the command line is given
(``main(argv, registry=...)``); the built-in one is unchanged. The demo has no engine for
the new source, so it is reported unavailable there; the new subagent's entry becomes a
source of the report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentscope.tool import ToolResponse
from cli_support import shared_cache

from host.orchestration.host_agent import host_prompt
from host.orchestration.task_schema import task_json_schema
from host.sources import FileSource, source_path
from quartet.cli import main
from research.plan import SubQuestion
from subagents import natures
from subagents.registry import BUILT_IN_REGISTRY, SPECS, Registry, current
from subagents.registry_value import source_names, using
from subagents.results import ok
from subagents.search.http import SearchUnavailable
from subagents.search.render import Item
from subagents.search.sources import BUILT_IN, Source
from subagents.search.tools import run_source
from subagents.settings import ToolSettings
from subagents.spec import Delegated, Desk, DeskResearch, SubAgentSpec, ToolGroup
from subagents.untrusted import unwrap

PAGES = 5  # the default is 24, and the demo reads more than 5 pages when it may
ENTRY = (
    "Almanac of canal works: the Grand Canal's summit at Nanwang was kept supplied with "
    "water by the Daicun Dam, which turned the Wen River towards the canal in 1411."
)


# -- a sixth search source: a provider and its tool ------------------------------------


async def papers(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """The provider: a papers API's JSON hits as search items."""
    base = settings.endpoint("papers", "https://papers.invalid")
    response = await client.get(f"{base}/search", params={"q": query})
    if response.status_code != 200:
        raise SearchUnavailable(f"HTTP {response.status_code}")
    return [Item(h["name"], h["link"], h["abstract"]) for h in response.json()["hits"]]


async def search_papers(query: str, settings: object = None) -> ToolResponse:
    """Search a papers index; returns a YAML list of results (title, url, snippet, source).

    Args:
        query (str): Words to search for, e.g. "canal engineering history".
    """
    return await run_source("search_papers", papers, query, settings)


# -- a fifth subagent: one tool, its context, its absorption, its offline policy ----------


async def almanac_lookup(topic: str) -> ToolResponse:
    """Look a topic up in the almanac; returns its entry.

    Args:
        topic (str): The topic, e.g. "Grand Canal".
    """
    return ok(ENTRY)


#: What each almanac callback was handed, checked against the protocols the spec names.
DESKS: list[tuple[bool, bool]] = []


def prepare(desk: Desk, sub: SubQuestion | None, ctx: dict[str, Any], base: dict[str, Any]):
    DESKS.append((isinstance(desk, Desk), isinstance(desk.research, DeskResearch)))
    return None, {**base, "topic": "Grand Canal"}


async def absorb(
    desk: Desk, d: Delegated, sub_id: str | None, carried: dict[str, Any]
) -> list[str]:
    """Each entry read becomes a source the research scores, as a file read does."""
    DESKS.append((isinstance(desk, Desk), isinstance(desk.research, DeskResearch)))
    for i, text in enumerate(carried["entries"]):
        where = f"/workspace/almanac/entry-{i}.md"
        entry = unwrap(text).strip() + "\n"
        await desk.research.absorb_file(
            FileSource(where, source_path(where), entry, "Almanac of canal works", "file")
        )
    return [f"{len(carried['entries'])} almanac entry kept as a source"]


ALMANAC = SubAgentSpec(
    name="almanac",
    description="Looks a topic up in the almanac of canal works.",
    sys_prompt="You look topics up in the almanac and report what it says.",
    groups=(ToolGroup(name="basic", tools=(almanac_lookup,)),),
    task="Look the question's subject up in the almanac.",
    title="Consulting the almanac",
    carry=lambda done: {"entries": [r.text for r in done if r.name == "almanac_lookup" and r.ok]},
    offline_plan=lambda ctx, done, names: (
        [] if done else [("almanac_lookup", {"topic": ctx.get("topic", "")})]
    ),
    offline_outcome=lambda ctx, done: {"summary": f"{len(done)} almanac entry read."},
    host_line="looks the question's subject up in the almanac of canal works.",
    prepare=prepare,
    absorb=absorb,
    offline_host_task="Look the canal up in the almanac.",
)


@pytest.fixture(scope="module")
def registered() -> Registry:
    """The built-in registry with the sixth source and the fifth subagent: a new value."""
    registry = BUILT_IN_REGISTRY.with_source("papers", search_papers, "Search papers")
    assert registry.sources.added == (Source("papers", search_papers, "Search papers"),)
    return registry.with_subagent(ALMANAC)


@pytest.fixture(scope="module")
def demo_run(registered: Registry) -> Path:
    """One demo run with both registrations and a page budget of :data:`PAGES`; its
    folder (in the session's shared runs folder, whose demo site is built once)."""
    runs = shared_cache()
    before = set(runs.iterdir())
    code = main(
        # one task at a time: which pages the budget lets in is then the same every run
        [
            *("demo", "--formats", "md", "--max-pages", str(PAGES), "--concurrency", "1"),
            *("--runs-dir", str(runs), "--quiet"),
        ],
        registry=registered,
    )
    assert code == 0
    assert current() is BUILT_IN_REGISTRY and "almanac" not in SPECS  # set for the command only
    (folder,) = [p for p in set(runs.iterdir()) - before if (p / "internal").is_dir()]
    return folder


def record_of(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "internal" / "run.json").read_text(encoding="utf-8"))


def test_the_page_budget_caps_the_pages_read_and_stored(demo_run):
    record = record_of(demo_run)
    assert record["settings"]["max_pages"] == PAGES
    fetched = [c for c in record["tool_calls"] if c["tool"] == "viewer_fetch"]
    assert 0 < len([c for c in fetched if c["ok"]]) <= PAGES
    assert any(c["refused"] or c["status"] != "ok" for c in fetched)  # the budget was met
    assert 0 < record["pages_read"] <= PAGES
    stored = list((demo_run / "workspace" / "pages").glob("*.md"))
    assert 0 < len(stored) <= PAGES


def test_a_sixth_source_is_one_registration(registered, demo_run):
    with using(registered):
        assert source_names() == (*BUILT_IN, "papers")
        env = ToolSettings.from_env({"QUARTET_PAPERS_URL": "http://127.0.0.1:9/papers/"})
        assert env.endpoint("papers", "https://papers.invalid") == "http://127.0.0.1:9/papers"
        assert natures.annotations("search_papers")["title"] == "Search papers"
    assert "search_papers" in registered.specs["search"].allowlist()
    assert "search_papers" not in SPECS["search"].allowlist()  # the built-in one is as it was
    papers_calls = [c for c in record_of(demo_run)["tool_calls"] if c["tool"] == "search_papers"]
    assert papers_calls  # the offline search plan used the new source ...
    assert all(c["status"] == "unavailable" for c in papers_calls)  # ... which has no demo engine
    assert "/no-engine/papers" in record_of(demo_run)["settings"]["endpoints"]["papers"]


def test_a_fifth_subagent_is_one_registration(registered, demo_run, capsys):
    assert '- "almanac": looks the question' in host_prompt(registered.specs)
    schema = task_json_schema(registered.specs)["function"]
    assert '- "almanac": looks the question' in schema["description"]
    assert "almanac" in schema["parameters"]["properties"]["subagent_type"]["enum"]
    record = record_of(demo_run)
    tasks = [d for d in record["delegations"] if d["subagent"] == "almanac"]
    assert [d["status"] for d in tasks] == ["ok"]
    # its callbacks were handed what the spec's Desk protocol says, and nothing it lacks
    assert DESKS and all(desk and research for desk, research in DESKS)
    kinds = [d["subagent"] for d in record["delegations"]]
    assert kinds.index("almanac") < kinds.index("generate")  # before the report
    kept = [p for p in (demo_run / "workspace" / "sources").glob("*.md") if ENTRY in p.read_text()]
    assert len(kept) == 1  # the subagent's absorb stored its entry as a source
    report = next((demo_run / "workspace" / "reports").glob("*.md")).read_text(encoding="utf-8")
    assert "Almanac of canal works" in report  # the entry reached the report as a source
    assert main(["tools", "--json"], registry=registered) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [s["function"]["name"] for s in listed["almanac"]] == ["almanac_lookup"]
    assert "search_papers" in [s["function"]["name"] for s in listed["search"]]
    assert main(["tools", "--json"]) == 0  # the built-in registry's, as before
    listed = json.loads(capsys.readouterr().out)
    assert "almanac" not in listed
    assert "search_papers" not in [s["function"]["name"] for s in listed["search"]]
