"""Throughput of viewer_fetch on loopback pages: HTTP tier and Chromium tier vs naive baselines.

    .venv/bin/python bench/bench_browser.py [--pages 200] [--concurrency 4] [--naive-browser 20]
    .venv/bin/python bench/bench_browser.py --real DIR [--concurrency 8] [--rounds 2] [--all]

HTTP tier: viewer_fetch on static article pages (guarded fetch, trafilatura, stored page and
sidecar) against a naive loop of httpx.get + markdownify of the raw HTML. Browser tier:
viewer_fetch on pages whose text only exists after their script runs (so the quality gate
sends every one to Chromium; one shared browser, a few pages at a time) against launching a
new browser for each page.

Real pages (``--real DIR``): the pages of trafilatura's evaluation corpus, real news and
blog pages with human-made expectations (strings the main text must contain and strings
it must not). The corpus is read at run time and never stored in this repository. DIR
(or the QUARTET_REAL_PAGES environment variable) is either a checkout of
github.com/adbar/trafilatura or a bare clone of it, e.g. the mirror that
``git clone --mirror https://github.com/adbar/trafilatura`` makes; from a bare clone
``tests/`` is exported with ``git archive HEAD tests`` into a temporary directory. The
expectations come from ``tests/evaldata.json`` (newer checkouts) or the ``EVAL_PAGES``
literal of ``tests/evaldata.py`` (older ones); the pages from ``tests/cache/`` (and with
``--all`` from ``tests/eval/`` too). The pages are served on loopback by a separate
``python -m http.server`` process, and the run prints pages/s of viewer_fetch (stored page
and sidecar, one at a time and ``--concurrency`` at a time) beside plain ``httpx.get`` +
``trafilatura.extract`` of the same pages, and the visible-text F1 of both against the
expectations (a ``with`` string found is a true positive, a ``without`` string found a
false positive; whitespace is normalised, and Markdown is rendered to its visible text).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import httpx  # noqa: E402
import lxml.html  # noqa: E402
import trafilatura  # noqa: E402
from browser_sites import SiteServer, build_site  # noqa: E402
from browser_support import LOOPBACK, LOOPBACK_SETTINGS, tier_of  # noqa: E402
from markdown_it import MarkdownIt  # noqa: E402
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


@dataclass
class RealPage:
    """One corpus page: where it is served and what its main text should and should not hold."""

    name: str
    url: str
    must: list[str]
    must_not: list[str]


def corpus_tests_dir(source: Path, scratch: Path) -> Path:
    """The ``tests/`` folder of a trafilatura checkout, exported first from a bare clone."""
    if (source / "tests").is_dir():
        return source / "tests"
    if (source / "HEAD").is_file() and (source / "objects").is_dir():
        archive = subprocess.run(
            ["git", "--git-dir", str(source), "archive", "HEAD", "tests"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
        return scratch / "tests"
    raise SystemExit(f"{source} is neither a trafilatura checkout nor a bare clone of one")


def expectations(tests: Path) -> dict[str, dict]:
    """The corpus annotations: evaldata.json, else the EVAL_PAGES literal of evaldata.py."""
    if (tests / "evaldata.json").is_file():
        return json.loads((tests / "evaldata.json").read_text(encoding="utf-8"))
    module = ast.parse((tests / "evaldata.py").read_text(encoding="utf-8"))
    for node in module.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "EVAL_PAGES" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise SystemExit(f"no EVAL_PAGES in {tests / 'evaldata.py'}")


def stage_corpus(tests: Path, www: Path, folders: tuple[str, ...]) -> list[tuple[str, dict]]:
    """Copy the annotated pages into ``www`` as ``<n>.html``; their names and annotations."""
    staged: list[tuple[str, dict]] = []
    for _, item in sorted(expectations(tests).items()):
        found = [tests / f / item["file"] for f in folders if (tests / f / item["file"]).is_file()]
        if not found:
            continue
        name = f"{len(staged)}.html"
        (www / name).write_bytes(found[0].read_bytes())
        staged.append((name, item))
    return staged


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(www: Path) -> tuple[subprocess.Popen, str]:
    """``python -m http.server`` on a free loopback port in another process; its base URL."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=www,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/"
    for _ in range(200):
        try:
            httpx.get(base, timeout=1.0)
            return server, base
        except httpx.TransportError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the loopback page server did not start")


_MARKDOWN = MarkdownIt("commonmark").enable("table")


def visible_text(markdown: str) -> str:
    """What a reader sees of ``markdown``: rendered, tags and link targets gone."""
    html = _MARKDOWN.render(markdown)
    return lxml.html.fragment_fromstring(html, create_parent="div").text_content() if html else ""


def _norm(text: str) -> str:
    return " ".join(text.split())


class Score:
    """Counts of expected strings found and unwanted strings found, over many pages."""

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0

    def add(self, page: RealPage, text: str) -> None:
        seen = _norm(text)
        found = sum(_norm(w) in seen for w in page.must)
        self.tp += found
        self.fn += len(page.must) - found
        self.fp += sum(_norm(w) in seen for w in page.must_not)

    def f1(self) -> tuple[float, float, float]:
        precision = self.tp / max(1, self.tp + self.fp)
        recall = self.tp / max(1, self.tp + self.fn)
        return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


async def viewer_real(
    pages: list[RealPage], svc, browser, concurrency: int, score: Score | None
) -> tuple[float, dict[str, int]]:
    """pages/s of viewer_fetch over ``pages``, ``concurrency`` at a time; tiers used."""
    gate = asyncio.Semaphore(concurrency)
    tiers: dict[str, int] = {}
    stored: list[tuple[RealPage, str]] = []

    async def one(page: RealPage) -> None:
        async with gate:
            res = await viewer_fetch(
                page.url, service=svc, browser=browser, settings=LOOPBACK_SETTINGS
            )
        ok = res.metadata["status"] == "ok"
        tier = tier_of(res) if ok else "failed"
        tiers[tier] = tiers.get(tier, 0) + 1
        if ok:
            stored.append((page, res.metadata["paths"][0]))

    start = time.perf_counter()
    await asyncio.gather(*(one(p) for p in pages))
    rate = len(pages) / (time.perf_counter() - start)
    if score is not None:
        for page, path in stored:
            score.add(page, visible_text(await svc.read_text(path)))
        missing = {p.url for p in pages} - {p.url for p, _ in stored}
        for page in pages:
            if page.url in missing:  # a page not read found nothing
                score.add(page, "")
    return rate, tiers


def plain_real(pages: list[RealPage], score: Score | None) -> float:
    """pages/s of the naive reader: ``httpx.get`` and ``trafilatura.extract``, one by one."""
    start = time.perf_counter()
    texts = []
    for page in pages:
        texts.append(trafilatura.extract(httpx.get(page.url).text, include_tables=True) or "")
    rate = len(pages) / (time.perf_counter() - start)
    if score is not None:
        for page, text in zip(pages, texts, strict=True):
            score.add(page, text)
    return rate


def extract_only(pages: list[RealPage], www: Path) -> float:
    """pages/s of ``trafilatura.extract`` alone on one core, the pages already in memory."""
    htmls = [(www / p.name).read_bytes() for p in pages]
    start = time.perf_counter()
    for html in htmls:
        trafilatura.extract(html, include_tables=True)
    return len(pages) / (time.perf_counter() - start)


async def main_real(args: argparse.Namespace) -> None:
    folders = ("cache", "eval") if args.all else ("cache",)
    with tempfile.TemporaryDirectory() as tmp:
        scratch, www, store = Path(tmp, "src"), Path(tmp, "www"), Path(tmp, "store")
        for d in (scratch, www, store):
            d.mkdir()
        tests = corpus_tests_dir(Path(args.real).expanduser(), scratch)
        staged = stage_corpus(tests, www, folders)
        if not staged:
            raise SystemExit(f"no annotated pages found under {tests}")
        server, base = serve(www)
        try:
            pages = [
                RealPage(name, base + name, list(item["with"]), list(item["without"]))
                for name, item in staged
            ]
            fs = DiskFileSystem(str(store))
            svc = FileDomainService(
                fs.create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}])
            )
            async with BrowserSession(allow=LOOPBACK) as browser:
                await viewer_real(pages[:8], svc, browser, 2, None)  # start the worker pool
                plain_real(pages[:4], None)
                rows = []
                for round_no in range(args.rounds):
                    first = round_no == 0
                    viewer_score, plain_score = Score(), Score()
                    one, tiers = await viewer_real(
                        pages, svc, browser, 1, viewer_score if first else None
                    )
                    many, _ = await viewer_real(pages, svc, browser, args.concurrency, None)
                    plain = plain_real(pages, plain_score if first else None)
                    rows.append((one, many, plain, extract_only(pages, www)))
                    if first:
                        scores = (viewer_score.f1(), plain_score.f1(), tiers)
        finally:
            server.kill()
            server.wait()
    (vp, vr, vf), (pp, pr, pf), tiers = scores
    print(
        f"real pages: {len(pages)} from {', '.join(f'tests/{f}/' for f in folders)}; "
        f"concurrency {args.concurrency}; cores {os.cpu_count()}; tiers {tiers}"
    )
    for n, (one, many, plain, alone) in enumerate(rows, 1):
        print(
            f"round {n}: viewer_fetch 1 at a time {one:5.1f} pages/s, "
            f"{args.concurrency} at a time {many:5.1f} pages/s (target >= 40)   "
            f"plain httpx.get + trafilatura.extract {plain:5.1f} pages/s "
            f"(ratio {many / plain:4.2f})"
            f"   trafilatura.extract alone, one core {alone:5.1f} pages/s "
            f"(ratio {many / alone:4.2f})"
        )
    print(
        f"visible-text F1: viewer_fetch {vf:.4f} (P {vp:.4f} R {vr:.4f})   "
        f"plain trafilatura {pf:.4f} (P {pp:.4f} R {pr:.4f})   (target >= 0.96)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--naive-browser", type=int, default=20)
    parser.add_argument(
        "--real",
        default=os.environ.get("QUARTET_REAL_PAGES"),
        help="trafilatura checkout or bare clone whose evaluation pages to read",
    )
    parser.add_argument("--rounds", type=int, default=2, help="--real: measurement rounds")
    parser.add_argument("--all", action="store_true", help="--real: tests/eval/ pages too")
    args = parser.parse_args()
    if args.real:
        await main_real(args)
        return
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
