"""A search source is one module and one registration: the source registry is the one
place its name, tool and title are kept, and the Search subagent's tools, the tools'
natures, the source names, the endpoints read from the environment and the schemas
``scripts/regen_schemas.py`` writes all follow from it.

The new source here is a notes index served on 127.0.0.1; its module is this file's
provider, tool and ``SOURCE``, as a module in ``subagents/search/providers/`` would be.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from agentscope.message import ToolUseBlock
from agentscope.tool import ToolResponse
from script_support import load_script

import schemas
from subagents import all_schemas, build_toolkit, registry, schema_toolkit
from subagents.natures import annotations, nature_of, tool_table
from subagents.results import text_of
from subagents.search import sources, tools
from subagents.search.http import SearchUnavailable
from subagents.search.render import Item
from subagents.search.run import run_source
from subagents.search.sources import BUILT_IN, SOURCE_NAMES, SOURCES, Source, SourceRegistry
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
def registered() -> Iterator[Source]:
    """The notes source registered at run time, for one test only."""
    specs, added = dict(registry.SPECS), dict(SOURCES.added)
    try:
        yield registry.register_source(SOURCE.name, SOURCE.tool, SOURCE.title)
    finally:
        registry.SPECS.clear()
        registry.SPECS.update(specs)
        SOURCES.added.clear()
        SOURCES.added.update(added)


# -- the built-in sources ----------------------------------------------------------------


def test_each_built_in_source_is_its_module_s_source():
    assert list(SOURCE_NAMES) == list(BUILT_IN) == ["google", "bing", "sogou", "github", "wiki"]
    built_in = SOURCES.built_in_sources()
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
    shipped = SourceRegistry((*BUILT_IN, "notes"))
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
        SourceRegistry(("jottings",)).sources()


def test_a_built_in_name_cannot_be_registered_again():
    with pytest.raises(ValueError, match="'wiki' is a built-in search source"):
        SOURCES.register(Source("wiki", search_notes, "Search notes"))
    assert SOURCES.added == {}


def test_the_source_names_are_read_only():
    with pytest.raises(TypeError):
        SOURCE_NAMES[0] = "altavista"  # type: ignore[index]
    assert not hasattr(SOURCE_NAMES, "append")


# -- a source added at run time ----------------------------------------------------------


def test_one_registration_reaches_names_settings_natures_and_the_toolkit(registered):
    assert registered == SOURCE and SOURCES.added == {"notes": SOURCE}
    assert SOURCE_NAMES[-1] == "notes" and "notes" in SOURCE_NAMES
    assert list(sources.SOURCE_NAMES) == [*BUILT_IN, "notes"]
    env = ToolSettings.from_env({"QUARTET_NOTES_URL": "http://127.0.0.1:9/notes/"})
    assert env.endpoints == {"notes": "http://127.0.0.1:9/notes/"}
    assert annotations("search_notes") == {
        "title": "Search notes",
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": True,
    }
    assert nature_of("search_notes").open_world
    assert registry.SPECS["search"].allowlist()[-1] == "search_notes"
    assert "search_notes" in build_toolkit("search").tools


def test_registering_again_keeps_one_tool_and_the_new_title(registered):
    again = registry.register_source("notes", search_notes)
    assert again == Source("notes", search_notes, "search_notes")
    assert registry.SPECS["search"].allowlist().count("search_notes") == 1
    assert SOURCE_NAMES.count("notes") == 1
    assert annotations("search_notes")["title"] == "search_notes"


async def test_the_registered_tool_searches_its_configured_endpoint(registered, notes_url):
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
    built = {s["function"]["name"]: s for s in all_schemas(schema_toolkit("search"))}
    assert built["search_notes"]["function"]["parameters"]["properties"].keys() == {"query"}
    canonical = schemas.ROOT / "search"
    monkeypatch.setattr(schemas, "ROOT", tmp_path / "schemas")
    (tmp_path / "schemas").mkdir()
    assert load_script("scripts/regen_schemas.py").main(["search"]) == 0
    written = tmp_path / "schemas" / "search"
    names = sorted(p.name for p in written.glob("*.json"))
    assert names == sorted(f"search_{n}.json" for n in (*BUILT_IN, "notes"))
    for name in BUILT_IN:  # the built-in sources' schemas, byte for byte as shipped
        path = f"search_{name}.json"
        assert (written / path).read_bytes() == (canonical / path).read_bytes()
    assert json.loads((written / "search_notes.json").read_text()) == built["search_notes"]
    assert not (canonical / "search_notes.json").exists()  # the shipped folder is untouched
