"""``quartet serve`` under watchers: event latency and the server's memory.

Usage: .venv/bin/python bench/bench_serve.py [--watchers 50] [--max-pages 12]

Starts ``quartet serve`` on a free loopback port with a new runs folder, starts one demo
run through the start form (as a browser would: its CSRF token, its Origin), and opens
``--watchers`` server-sent-event streams on that run at once. For every event sent after
all of them are connected, each watcher's latency is the time it received the event less
the time the server stamped it (``at``; one machine, one clock). Prints the events, the
median, 95th percentile and maximum latency over all watchers and events, whether every
watcher got every event once and in order, and the peak resident memory of the server
process (its run works in a worker process of its own, reported beside it). The demo
site is built into the runs folder before the server starts, so the server's memory is
that of serving, not of building the site once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from serve_support import serve  # noqa: E402

from demo.web import demo_world  # noqa: E402


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else 0.0


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


async def watch(url: str, job: str, ready: asyncio.Event, got: list[tuple[int, float, float]]):
    """Follow the job's events from the start; keep (id, stamped, received) of each."""
    async with (
        httpx.AsyncClient(base_url=url, timeout=None) as http,
        http.stream("GET", f"/jobs/{job}/events") as response,
    ):
        ready.set()
        event: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line:
                name, _, value = line.partition(":")
                event[name] = value.removeprefix(" ")
                continue
            if event.get("event") == "end":
                return
            if "id" in event:
                stamped = json.loads(event["data"])["at"]
                got.append((int(event["id"]), stamped, time.time()))
            event = {}


async def bench(url: str, pid: int, watchers: int, max_pages: int) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        page = (await http.get("/")).text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        form = {"csrf": csrf, "demo": "on", "formats": "md", "max_pages": str(max_pages)}
        started = await http.post("/jobs", data=form, headers={"Origin": url})
        job = started.headers["location"].rsplit("/", 1)[1]
    readies = [asyncio.Event() for _ in range(watchers)]
    seen: list[list[tuple[int, float, float]]] = [[] for _ in range(watchers)]
    tasks = [asyncio.create_task(watch(url, job, r, s)) for r, s in zip(readies, seen, strict=True)]
    await asyncio.gather(*(r.wait() for r in readies))
    connected = time.time()
    server_peak = worker_peak = 0.0
    while not all(t.done() for t in tasks):
        server_peak = max(server_peak, rss_mb(pid))
        worker_peak = max(worker_peak, *(rss_mb(c) for c in children(pid)), 0.0)
        await asyncio.sleep(0.05)  # a memory sample every 50 ms
    await asyncio.gather(*tasks)
    latencies = [
        (received - stamped) * 1000
        for got in seen
        for _, stamped, received in got
        if stamped >= connected
    ]
    ids = [[i for i, _, _ in got] for got in seen]
    complete = all(i == list(range(1, len(ids[0]) + 1)) for i in ids)
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"watchers: {watchers}; events of the run: {len(ids[0])}")
    print(f"every watcher got every event once, in order: {'yes' if complete else 'NO'}")
    print(
        f"event latency over {len(latencies)} deliveries: median "
        f"{statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
    )
    print(f"server peak RSS: {server_peak:.0f} MB (its run's worker: {worker_peak:.0f} MB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--max-pages", dest="max_pages", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        with demo_world(runs):  # the demo site is built once, here, not in the server
            pass
        with serve(runs) as served:
            asyncio.run(bench(served.url, served.proc.pid, args.watchers, args.max_pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
