"""A search source is one module and one registration: a registry's sources are the one
place its name, tool and title are kept, and the Search subagent's tools, the tools'
natures, the source names, the endpoints read from the environment and the schemas
``scripts/regen_schemas.py`` writes all follow from the registry in use.

A registry is a value: registering returns a new one and changes no other, and a run
sees the one set around it (``using``), never one set elsewhere.

The new source here is a notes index served on 127.0.0.1; its module is this file's
provider, tool and ``SOURCE``, as a module in ``subagents/search/providers/`` would be.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from agentscope.message import ToolUseBlock
from agentscope.tool import ToolResponse
from script_support import load_script

import schemas
from subagents import all_schemas, build_toolkit, schema_toolkit
from subagents import registry as registry_module
from subagents.natures import annotations, nature_of, tool_table
from subagents.registry import BUILT_IN_REGISTRY, SPECS, Registry, current
from subagents.registry_value import source_names, using
from subagents.results import text_of
from subagents.search import sources, tools
from subagents.search.http import SearchUnavailable
from subagents.search.render import Item
from subagents.search.run import run_source
from subagents.search.sources import BUILT_IN, BUILT_IN_SOURCES, Source, Sources
from subagents.search.spec import SPEC as SEARCH_SPEC
from subagents.search.spec import with_sources
from subagents.settings import ToolSettings

# -- the new source's module: its provider, its tool and its SOURCE ----------------------


async def search(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """The provider: a notes index's JSON hits as search items."""
    base = settings.endpoint("notes", "https://notes.invalid")
    response = await client.get(f"{base}/find", params={"q": query})
    if response.status_code != 200:
        raise SearchUnavailable(f"HTTP {response.status_code}")
    return [Item(h["name"], h["link"], h["text"]) for h in response.json()["hits"]]


async def search_notes(query: str, settings: object = None) -> ToolResponse:
    """Search the notes index; returns a YAML list of results (title, url, snippet, source).

    Args:
        query (str): Words to search for, e.g. "canal locks".
    """
    return await run_source("search_notes", search, query, settings)


SOURCE = Source("notes", search_notes, "Search notes")

# -- a notes index on 127.0.0.1 ----------------------------------------------------------


class _Notes(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query).get("q", [""])[0]
        found = url.path == "/find"
        hits = [{"name": f"Note on {query}", "link": "https://notes.example/1", "text": "kept"}]
        body = json.dumps({"hits": hits}).encode()
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def notes_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Notes)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def registered() -> Registry:
    """The built-in registry with the notes source added (a new value; nothing else
    changes)."""
    return BUILT_IN_REGISTRY.with_source(SOURCE.name, SOURCE.tool, SOURCE.title)


# -- the built-in sources ----------------------------------------------------------------


def test_each_built_in_source_is_its_module_s_source():
    assert list(source_names()) == list(BUILT_IN) == ["google", "bing", "sogou", "github", "wiki"]
    assert current() is BUILT_IN_REGISTRY and BUILT_IN_REGISTRY.sources == BUILT_IN_SOURCES
    built_in = BUILT_IN_SOURCES.built_in_sources()
    assert [s.name for s in built_in] == list(BUILT_IN)
    for source in built_in:
        module = sys.modules[f"subagents.search.providers.{source.name}"]
        assert module.SOURCE is source
        assert source.tool is getattr(module, f"search_{source.name}")
        assert source.tool_name == f"search_{source.name}"
    assert tuple(s.tool for s in built_in) == tools.TOOLS
    assert SEARCH_SPEC.allowlist() == [s.tool_name for s in built_in]
    table = tool_table()
    assert [table[s.tool_name] for s in built_in] == [(s.title, "search") for s in built_in]
    assert table["search_wiki"] == ("Search Wikipedia", "search")


def test_a_built_in_source_is_a_providers_module_and_its_name(monkeypatch):
    module = ModuleType("subagents.search.providers.notes")
    module.SOURCE = SOURCE  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    shipped = Sources((*BUILT_IN, "notes"))
    assert shipped.names() == (*BUILT_IN, "notes")
    assert shipped.sources()[-1] is SOURCE
    spec = with_sources(SEARCH_SPEC, shipped.sources())
    assert spec.allowlist() == [*SEARCH_SPEC.allowlist(), "search_notes"]
    assert with_sources(spec, shipped.sources()) is spec  # each tool once


def test_a_module_whose_source_is_misnamed_is_refused(monkeypatch):
    module = ModuleType("subagents.search.providers.jottings")
    module.SOURCE = SOURCE  # type: ignore[attr-defined]  # named "notes"
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with pytest.raises(TypeError, match="must be a Source named 'jottings'"):
        Sources(("jottings",)).sources()


def test_a_built_in_name_cannot_be_registered_again():
    with pytest.raises(ValueError, match="'wiki' is a built-in search source"):
        BUILT_IN_REGISTRY.with_source("wiki", search_notes, "Search notes")
    assert BUILT_IN_REGISTRY.sources.added == ()


def test_a_registry_is_read_only():
    with pytest.raises(TypeError):
        BUILT_IN_REGISTRY.specs["notes"] = SEARCH_SPEC  # type: ignore[index]
    with pytest.raises(TypeError):
        SPECS["notes"] = SEARCH_SPEC  # type: ignore[index]
    with pytest.raises(AttributeError):
        BUILT_IN_REGISTRY.sources = Sources()  # type: ignore[misc]
    assert not hasattr(registry_module, "register") and not hasattr(sources, "SOURCES")


# -- registering returns a new registry ---------------------------------------------------


def test_registering_returns_a_new_registry_and_changes_no_other(registered):
    before = (dict(SPECS), BUILT_IN_REGISTRY.sources, tools.TOOLS)
    assert registered is not BUILT_IN_REGISTRY
    assert registered.sources.added == (SOURCE,)
    assert registered.sources.names() == (*BUILT_IN, "notes")
    assert registered.specs["search"].allowlist() == [*SEARCH_SPEC.allowlist(), "search_notes"]
    assert {n: s for n, s in registered.specs.items() if n != "search"} == {
        n: s for n, s in SPECS.items() if n != "search"
    }
    with_almanac = registered.with_subagent(replace(SEARCH_SPEC, name="almanac"))
    assert list(with_almanac.specs) == [*SPECS, "almanac"] and "almanac" not in registered.specs
    # the built-in registry, its module's globals and the current one are as they were
    assert (dict(SPECS), BUILT_IN_REGISTRY.sources, tools.TOOLS) == before
    assert SEARCH_SPEC.allowlist() == [f"search_{n}" for n in BUILT_IN]
    assert SPECS is BUILT_IN_REGISTRY.specs and current() is BUILT_IN_REGISTRY
    assert source_names() == BUILT_IN and "search_notes" not in tool_table()


def test_two_registries_one_after_the_other_do_not_see_each_other_s_sources():
    async def search_papers(query: str, settings: object = None) -> ToolResponse:
        """Search papers.

        Args:
            query (str): Words to search for.
        """
        raise AssertionError("not called")

    notes = BUILT_IN_REGISTRY.with_source("notes", search_notes, "Search notes")
    papers = BUILT_IN_REGISTRY.with_source("papers", search_papers, "Search papers")
    env = {"QUARTET_NOTES_URL": "http://127.0.0.1:9/n", "QUARTET_PAPERS_URL": "http://p"}
    built_in_tools, seen = set(SEARCH_SPEC.allowlist()), []
    for registry in (notes, papers, None):
        with using(registry):
            seen.append(
                (
                    source_names()[len(BUILT_IN) :],
                    sorted(ToolSettings.from_env(env).endpoints),
                    [t for t in build_toolkit("search").tools if t not in built_in_tools],
                    "search_notes" in tool_table(),
                    "search_papers" in tool_table(),
                )
            )
    assert seen == [
        (("notes",), ["notes"], ["search_notes"], True, False),
        (("papers",), ["papers"], ["search_papers"], False, True),
        ((), [], [], False, False),
    ]


async def test_a_run_s_tasks_and_threads_see_the_registry_set_around_it(registered):
    async def names_in_a_task() -> tuple[str, ...]:
        return source_names()

    with using(registered):
        in_task = await asyncio.create_task(names_in_a_task())
        in_thread = await asyncio.to_thread(source_names)
    assert in_task == in_thread == (*BUILT_IN, "notes")
    assert await asyncio.create_task(names_in_a_task()) == BUILT_IN


# -- a source added at run time ----------------------------------------------------------


def test_one_registration_reaches_names_settings_natures_and_the_toolkit(registered):
    assert registered.sources.added == (SOURCE,)
    with using(registered):
        assert current() is registered
        assert source_names() == (*BUILT_IN, "notes")
        one_registration_reaches_settings_natures_and_the_toolkit()


def one_registration_reaches_settings_natures_and_the_toolkit():
    env = ToolSettings.from_env({"QUARTET_NOTES_URL": "http://127.0.0.1:9/notes/"})
    assert env.endpoints == {"notes": "http://127.0.0.1:9/notes/"}
    assert annotations("search_notes") == {
        "title": "Search notes",
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": True,
    }
    assert nature_of("search_notes").open_world
    assert current().specs["search"].allowlist()[-1] == "search_notes"
    assert "search_notes" in build_toolkit("search").tools


def test_registering_again_keeps_one_tool_and_the_new_title(registered):
    again = registered.with_source("notes", search_notes)
    assert again.sources.added == (Source("notes", search_notes, "search_notes"),)
    assert again.specs["search"].allowlist().count("search_notes") == 1
    assert again.sources.names().count("notes") == 1
    with using(again):
        assert annotations("search_notes")["title"] == "search_notes"
    with using(registered):
        assert annotations("search_notes")["title"] == "Search notes"


async def test_the_registered_tool_searches_its_configured_endpoint(registered, notes_url):
    with using(registered):
        settings = ToolSettings.from_env({"QUARTET_NOTES_URL": notes_url})
        toolkit = build_toolkit("search", settings=settings)
    call = ToolUseBlock(type="tool_use", id="n1", name="search_notes", input={"query": "locks"})
    last = None
    async for chunk in await toolkit.call_tool_function(call):
        last = chunk
    assert last is not None and last.metadata["status"] == "ok"
    text = text_of(last)
    assert "Note on locks" in text and "https://notes.example/1" in text


def test_regen_schemas_writes_the_registered_source_s_schema(registered, tmp_path, monkeypatch):
    with using(registered):
        built = {s["function"]["name"]: s for s in all_schemas(schema_toolkit("search"))}
    assert built["search_notes"]["function"]["parameters"]["properties"].keys() == {"query"}
    canonical = schemas.ROOT / "search"
    monkeypatch.setattr(schemas, "ROOT", tmp_path / "schemas")
    (tmp_path / "schemas").mkdir()
    with using(registered):
        assert load_script("scripts/regen_schemas.py").main(["search"]) == 0
    written = tmp_path / "schemas" / "search"
    names = sorted(p.name for p in written.glob("*.json"))
    assert names == sorted(f"search_{n}.json" for n in (*BUILT_IN, "notes"))
    for name in BUILT_IN:  # the built-in sources' schemas, byte for byte as shipped
        path = f"search_{name}.json"
        assert (written / path).read_bytes() == (canonical / path).read_bytes()
    assert json.loads((written / "search_notes.json").read_text()) == built["search_notes"]
    assert not (canonical / "search_notes.json").exists()  # the shipped folder is untouched
