"""Search tools against the loopback engines: per-call overhead and concurrent wall time.

Usage: .venv/bin/python bench/bench_search.py [--calls 100] [--concurrent 50]

Prints, per source, the median and 95th-percentile time of one tool call (each call opens
and closes its own HTTP client, sends the request, parses the wire format and renders the
YAML), next to the median of a bare GET of the same route on a reused client; then the
wall time of ``--concurrent`` queries spread over the five sources at once.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from demo.search_web import Document, SearchWeb
from subagents.results import text_of
from subagents.search.tools import (
    search_bing,
    search_github,
    search_google,
    search_sogou,
    search_wiki,
)
from subagents.settings import Keys, ToolSettings

TOPICS = ["solar", "wind", "hydro", "battery", "grid", "nuclear", "geothermal", "tidal"]
CORPUS = [
    Document(
        f"{topic.title()} energy note {n}",
        f"https://example.org/{topic}/{n}",
        f"{topic.title()} energy is discussed here in note {n}. " * 8,
    )
    for topic in TOPICS
    for n in range(6)
]
KEYS = {
    "GOOGLE_API_KEY": "bench-google-0001",
    "GOOGLE_CSE_ID": "bench-cx-0001",
    "BING_API_KEY": "bench-bing-0001",
}
SOURCES = {
    "google (page)": (search_google, {}, "/google/search?q=solar"),
    "google (API)": (search_google, KEYS, "/google/customsearch/v1?q=solar&cx=bench-cx-0001"),
    "bing (page)": (search_bing, {}, "/bing/search?q=solar"),
    "bing (API)": (search_bing, KEYS, "/bing/v7.0/search?q=solar"),
    "sogou (page + links)": (search_sogou, {}, "/sogou/web?query=solar"),
    "github": (search_github, {}, "/github/search/repositories?q=solar"),
    "wiki": (
        search_wiki,
        {},
        "/wiki/w/api.php?action=query&format=json&list=search&srsearch=solar",
    ),
}


def settings_for(web: SearchWeb, keys: dict[str, str]) -> ToolSettings:
    """Every source aimed at the loopback engines, with exactly ``keys``."""
    return ToolSettings(endpoints=dict(web.urls), keys=Keys(keys))


async def bare_get(base: str, path: str, calls: int) -> float:
    headers = {
        "X-goog-api-key": KEYS["GOOGLE_API_KEY"],
        "Ocp-Apim-Subscription-Key": KEYS["BING_API_KEY"],
    }
    async with httpx.AsyncClient(headers=headers) as client:
        times = []
        for _ in range(calls):
            started = time.perf_counter()
            (await client.get(base + path)).raise_for_status()
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


async def per_call(web: SearchWeb, calls: int) -> None:
    print(f"per-call time, {calls} sequential calls per source (ms)")
    print(f"{'source':22} {'median':>8} {'p95':>8} {'bare GET':>9}  items")
    for label, (tool, keys, path) in SOURCES.items():
        settings = settings_for(web, keys)
        times = []
        for i in range(calls):
            started = time.perf_counter()
            response = await tool(f"{TOPICS[i % len(TOPICS)]} energy", settings=settings)
            times.append(time.perf_counter() - started)
            if response.metadata["status"] != "ok":
                raise SystemExit(f"{label}: {text_of(response)}")
        items = text_of(response).count("\n- title:") + 1
        times.sort()
        median = statistics.median(times) * 1000
        p95 = times[int(0.95 * (len(times) - 1))] * 1000
        bare = await bare_get(web.base, path, calls)
        print(f"{label:22} {median:8.2f} {p95:8.2f} {bare:9.2f}  {items}")


async def concurrent(web: SearchWeb, count: int) -> None:
    settings = settings_for(web, {})
    tools = [search_google, search_bing, search_sogou, search_github, search_wiki]
    calls = [
        tools[i % 5](f"{TOPICS[i % len(TOPICS)]} energy", settings=settings) for i in range(count)
    ]
    started = time.perf_counter()
    results = await asyncio.gather(*calls)
    wall = time.perf_counter() - started
    failed = sum(1 for r in results if r.metadata["status"] == "unavailable")
    print(
        f"\n{count} concurrent queries across the five sources (keyless modes): "
        f"wall {wall * 1000:.0f} ms, {failed} unavailable"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--concurrent", type=int, default=50)
    args = parser.parse_args()
    with SearchWeb(
        CORPUS,
        google_key=KEYS["GOOGLE_API_KEY"],
        google_cx=KEYS["GOOGLE_CSE_ID"],
        bing_key=KEYS["BING_API_KEY"],
    ) as web:
        await per_call(web, args.calls)
        await concurrent(web, args.concurrent)


if __name__ == "__main__":
    asyncio.run(main())
