"""Throughput of viewer_fetch on loopback pages: HTTP tier and Chromium tier vs naive baselines.

    .venv/bin/python bench/bench_browser.py [--pages 200] [--concurrency 4] [--naive-browser 20]

HTTP tier: viewer_fetch on static article pages (guarded fetch, trafilatura, stored page and
sidecar) against a naive loop of httpx.get + markdownify of the raw HTML. Browser tier:
viewer_fetch on pages whose text only exists after their script runs (so the quality gate
sends every one to Chromium; one shared browser, a few pages at a time) against launching a
new browser for each page.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import httpx  # noqa: E402
from browser_sites import SiteServer, build_site  # noqa: E402
from browser_support import LOOPBACK, LOOPBACK_SETTINGS, tier_of  # noqa: E402
from markdownify import markdownify  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from fs_service import ALL_OPS, DiskFileSystem, FileDomainService  # noqa: E402
from subagents.browser.session import CHROMIUM_FLAGS, BrowserSession, chromium_path  # noqa: E402
from subagents.browser.viewer import viewer_fetch  # noqa: E402


async def run_tier(urls: list[str], svc, browser, concurrency: int, want_tier: str) -> float:
    gate = asyncio.Semaphore(concurrency)
    tiers: list[str] = []

    async def one(url: str) -> None:
        async with gate:
            res = await viewer_fetch(url, service=svc, browser=browser, settings=LOOPBACK_SETTINGS)
            tiers.append(tier_of(res) if res.metadata["status"] == "ok" else "failed")

    start = time.perf_counter()
    await asyncio.gather(*(one(u) for u in urls))
    elapsed = time.perf_counter() - start
    wrong = [t for t in tiers if t != want_tier]
    if wrong:
        raise SystemExit(f"{len(wrong)} pages not read by the {want_tier} tier: {set(wrong)}")
    return len(urls) / elapsed


async def naive_http(urls: list[str]) -> float:
    start = time.perf_counter()
    for url in urls:
        html = httpx.get(url).text
        markdownify(html)
    return len(urls) / (time.perf_counter() - start)


async def naive_browser(urls: list[str]) -> float:
    start = time.perf_counter()
    async with async_playwright() as pw:
        for url in urls:
            browser = await pw.chromium.launch(
                executable_path=chromium_path(), args=list(CHROMIUM_FLAGS)
            )
            page = await browser.new_page()
            await page.goto(url)
            markdownify(await page.content())
            await browser.close()
    return len(urls) / (time.perf_counter() - start)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--naive-browser", type=int, default=20)
    args = parser.parse_args()
    trap = SiteServer(host="127.0.0.2").start()
    site = build_site(trap).start()
    n = min(args.pages, 500)
    static = [site.url(f"/bench/{i}.html") for i in range(n)]
    scripted = [site.url(f"/benchjs/{i}.html") for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        fs = DiskFileSystem(tmp)
        svc = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}]))
        async with BrowserSession(allow=LOOPBACK) as browser:
            await run_tier(static[:5], svc, browser, 1, "http")  # warm up imports
            http_rate = await run_tier(static, svc, browser, args.concurrency, "http")
            naive_http_rate = await naive_http(static)
            await run_tier(scripted[:2], svc, browser, 1, "chromium")  # launch the browser
            browser_rate = await run_tier(scripted, svc, browser, args.concurrency, "chromium")
        naive_browser_rate = await naive_browser(scripted[: args.naive_browser])
    site.stop()
    trap.stop()
    print(f"pages per tier: {n}; concurrency {args.concurrency}; cores {os.cpu_count()}")
    print(
        f"HTTP tier     {http_rate:7.1f} pages/s   naive httpx.get + markdownify(raw) "
        f"{naive_http_rate:7.1f} pages/s   (target >= 40)"
    )
    print(
        f"browser tier  {browser_rate:7.1f} pages/s   naive new browser per page "
        f"{naive_browser_rate:7.1f} pages/s ({args.naive_browser} pages)   (target >= 5)"
    )


if __name__ == "__main__":
    asyncio.run(main())
