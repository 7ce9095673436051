"""Adding a search source is one registration: a sixth source joins the research of a
Host given the registry that holds it."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from cli_support import shared_cache

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host
from subagents import SPECS, build
from subagents.registry import BUILT_IN_REGISTRY, current
from subagents.search.render import Item
from subagents.search.tools import run_source
from subagents.settings import ToolSettings


class PapersServer:
    """A loopback "papers" API answering ``/search?q=`` with JSON hits on the demo site."""

    def __init__(self) -> None:
        self.site = ""
        self.queries: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query).get("q", [""])[0]
                owner.queries.append(query)
                hits = [
                    {
                        "name": "Yuan realignment of the canal",
                        "link": f"{owner.site}en/yuan-realignment.html",
                        "abstract": "How the Yuan built the Grand Canal through Shandong.",
                    }
                ]
                body = json.dumps({"hits": hits}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


async def papers(client: httpx.AsyncClient, query: str, settings: ToolSettings) -> list[Item]:
    """The provider: the papers API's JSON hits as search items."""
    response = await client.get(settings.endpoint("papers", "https://papers.invalid") + "/search",
                                params={"q": query})  # fmt: skip
    return [Item(h["name"], h["link"], h["abstract"]) for h in response.json()["hits"]]


async def search_papers(query: str, settings: object = None):
    """Search a papers index; returns a YAML list of results (title, url, snippet, source).

    Args:
        query (str): Words to search for, e.g. "canal engineering history".
    """
    return await run_source("search_papers", papers, query, settings)


@pytest.fixture(scope="module")
def papers_server():
    server = PapersServer()
    yield server
    server.server.shutdown()


def test_a_sixth_search_source_is_one_registration(tmp_path, papers_server):
    registry = BUILT_IN_REGISTRY.with_source("papers", search_papers, "Search papers")
    spec = registry.specs["search"]
    assert spec.allowlist() == [*SPECS["search"].allowlist(), "search_papers"]
    assert "search_papers" in build(spec, {"settings": ToolSettings()}).tools
    settings = Settings(runs_dir=tmp_path, formats=("md",), quiet=True)
    with demo_world(shared_cache()) as world:
        papers_server.site = world.site_url
        ready = demo_settings(settings, world)
        tools = replace(
            ready.tools, endpoints={**ready.tools.endpoints, "papers": papers_server.url}
        )
        host = Host(replace(ready, tools=tools), make_brain("offline"), registry=registry)
        assert host.specs == dict(registry.specs)
        result = asyncio.run(host.run(world.question))
    assert current() is BUILT_IN_REGISTRY  # the registry was the run's only
    searched = [c for c in result.calls if c.name == "search_papers"]
    assert searched and not any(c.failed for c in searched)
    assert papers_server.queries  # the offline search plan used the new source
    pooled = [c for c in host.state.research.candidates.values() if "search_papers" in c.tools]
    assert pooled and pooled[0].url.endswith("/en/yuan-realignment.html")
    assert result.exit_code == 0
