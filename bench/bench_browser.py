"""Throughput of viewer_fetch on loopback pages: HTTP tier and Chromium tier vs naive baselines.

    .venv/bin/python bench/bench_browser.py [--pages 200] [--concurrency 4] [--naive-browser 20]
    .venv/bin/python bench/bench_browser.py --real DIR [DIR ...] [--concurrency 8] [--rounds 2]

HTTP tier: viewer_fetch on static article pages (guarded fetch, trafilatura, stored page and
sidecar) against a naive loop of httpx.get + markdownify of the raw HTML. Browser tier:
viewer_fetch on pages whose text only exists after their script runs (so the quality gate
sends every one to Chromium; one shared browser, a few pages at a time) against launching a
new browser for each page.

Real pages (``--real DIR ...``): public corpora of real news and blog pages with human-made
expectations, read at run time and never stored in this repository. Each DIR (or the
QUARTET_REAL_PAGES environment variable, space-separated) is a checkout or a bare clone
(``git clone --mirror``) of one of:

- github.com/scrapinghub/article-extraction-benchmark: 181 pages (``html/*.html.gz``) with
  their article bodies annotated by hand (``ground-truth.json``), scored by the benchmark's
  own ``evaluate.py`` (shingles of four words, precision and recall averaged over pages),
  which is loaded from DIR at run time;
- github.com/adbar/trafilatura: the pages of ``tests/cache/`` (and with ``--all``
  ``tests/eval/``) with strings the main text must contain and strings it must not
  (``tests/evaldata.json``, or the ``EVAL_PAGES`` literal of older ``tests/evaldata.py``);
  a ``with`` string found is a true positive, a ``without`` string found a false positive.

From a bare clone the needed files are exported with ``git archive`` into a temporary
directory. The pages are served on loopback by a separate ``python -m http.server`` process,
and the run prints pages/s of viewer_fetch (stored page and sidecar, one at a time and
``--concurrency`` at a time) beside plain ``httpx.get`` + ``trafilatura.extract`` of the same
pages and ``trafilatura.extract`` alone, and the F1 of the visible text of both (Markdown is
rendered to what a reader sees; whitespace is normalised).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import gzip
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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
from ports import free_port  # noqa: E402

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
    """One corpus page: where it is served and what its main text should hold."""

    name: str
    url: str
    expected: dict


def export(source: Path, paths: list[str], scratch: Path) -> Path:
    """``source`` itself when it is a checkout, else ``paths`` exported from the bare clone."""
    if (source / paths[0]).exists():
        return source
    if (source / "HEAD").is_file() and (source / "objects").is_dir():
        archive = subprocess.run(
            ["git", "--git-dir", str(source), "archive", "HEAD", *paths],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
        return scratch
    raise SystemExit(f"{source} is neither a checkout nor a bare clone holding {paths[0]}")


def is_bare_clone_with(source: Path, path: str) -> bool:
    """Whether the bare clone ``source`` has ``path`` at HEAD."""
    if not (source / "HEAD").is_file():
        return False
    listed = subprocess.run(
        ["git", "--git-dir", str(source), "ls-tree", "--name-only", "HEAD", path],
        capture_output=True,
        text=True,
    )
    return listed.returncode == 0 and bool(listed.stdout.strip())


class StringScore:
    """trafilatura's measure: expected strings found (true positives) and unwanted ones found."""

    def __init__(self) -> None:
        self.tp = self.fp = self.fn = 0

    def add(self, page: RealPage, text: str) -> None:
        seen = _norm(text)
        must, must_not = page.expected["with"], page.expected["without"]
        found = sum(_norm(w) in seen for w in must)
        self.tp += found
        self.fn += len(must) - found
        self.fp += sum(_norm(w) in seen for w in must_not)

    def f1(self) -> tuple[float, float, float]:
        precision = self.tp / max(1, self.tp + self.fp)
        recall = self.tp / max(1, self.tp + self.fn)
        return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


class ShingleScore:
    """The article-extraction benchmark's own measure, from its ``evaluate.py``.

    Each page's text is compared with the annotated article body over shingles of four
    words; precision and recall are averaged over pages.
    """

    def __init__(self, scorer) -> None:
        self.scorer = scorer
        self.truth: dict[str, dict] = {}
        self.predicted: dict[str, dict] = {}

    def add(self, page: RealPage, text: str) -> None:
        self.truth[page.name] = page.expected
        self.predicted[page.name] = {"articleBody": text}

    def f1(self) -> tuple[float, float, float]:
        metrics = self.scorer.evaluate(self.truth, self.predicted, 0)
        return metrics["precision"], metrics["recall"], metrics["f1"]


@dataclass
class Corpus:
    """Pages to serve, how to score a text against each, and the plain baseline's options."""

    title: str
    files: list[tuple[bytes, dict]]
    new_score: Callable[[], StringScore | ShingleScore]
    plain_options: dict


def trafilatura_corpus(source: Path, scratch: Path, with_eval: bool) -> Corpus:
    """trafilatura's evaluation pages (``tests/cache/``, ``tests/eval/`` with ``--all``)."""
    tests = export(source, ["tests"], scratch) / "tests"
    folders = ("cache", "eval") if with_eval else ("cache",)
    files = []
    for _, item in sorted(expectations(tests).items()):
        found = [tests / f / item["file"] for f in folders if (tests / f / item["file"]).is_file()]
        if found:
            expected = {"with": list(item["with"]), "without": list(item["without"])}
            files.append((found[0].read_bytes(), expected))
    title = "trafilatura evaluation pages from " + ", ".join(f"tests/{f}/" for f in folders)
    return Corpus(title, files, StringScore, {"include_tables": True})


def article_corpus(source: Path, scratch: Path) -> Corpus:
    """The article-extraction benchmark: ``html/*.html.gz``, ``ground-truth.json``, its scorer."""
    root = export(source, ["ground-truth.json", "html", "evaluate.py"], scratch)
    spec = importlib.util.spec_from_file_location("article_benchmark", root / "evaluate.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {root / 'evaluate.py'}")
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    files = [
        (gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes()), {**item, "key": key})
        for key, item in sorted(truth.items())
    ]
    title = "article-extraction benchmark pages with their annotated article bodies"
    # The options of the benchmark's own trafilatura runner.
    return Corpus(title, files, lambda: ShingleScore(scorer), {"include_comments": False})


def load_corpus(source: Path, scratch: Path, with_eval: bool) -> Corpus:
    """The corpus in ``source``: the article-extraction benchmark or trafilatura's tests."""
    if (source / "ground-truth.json").is_file() or is_bare_clone_with(source, "ground-truth.json"):
        return article_corpus(source, scratch)
    return trafilatura_corpus(source, scratch, with_eval)


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


async def viewer_real(
    pages: list[RealPage], svc, browser, concurrency: int, score=None
) -> tuple[float, dict[str, int]]:
    """pages/s of viewer_fetch over ``pages``, ``concurrency`` at a time; tiers used."""
    gate = asyncio.Semaphore(concurrency)
    tiers: dict[str, int] = {}
    stored: dict[str, str] = {}

    async def one(page: RealPage) -> None:
        async with gate:
            res = await viewer_fetch(
                page.url, service=svc, browser=browser, settings=LOOPBACK_SETTINGS
            )
        ok = res.metadata["status"] == "ok"
        tier = tier_of(res) if ok else "failed"
        tiers[tier] = tiers.get(tier, 0) + 1
        if ok:
            stored[page.url] = res.metadata["paths"][0]

    start = time.perf_counter()
    await asyncio.gather(*(one(p) for p in pages))
    rate = len(pages) / (time.perf_counter() - start)
    if score is not None:
        for page in pages:  # a page not read found nothing
            path = stored.get(page.url)
            score.add(page, visible_text(await svc.read_text(path)) if path else "")
    return rate, tiers


def plain_real(pages: list[RealPage], options: dict, score=None) -> float:
    """pages/s of the naive reader: ``httpx.get`` and ``trafilatura.extract``, one by one."""
    start = time.perf_counter()
    texts = [trafilatura.extract(httpx.get(page.url).text, **options) or "" for page in pages]
    rate = len(pages) / (time.perf_counter() - start)
    if score is not None:
        for page, text in zip(pages, texts, strict=True):
            score.add(page, text)
    return rate


def extract_only(htmls: list[bytes], options: dict) -> float:
    """pages/s of ``trafilatura.extract`` alone on one core, the pages already in memory."""
    start = time.perf_counter()
    for html in htmls:
        trafilatura.extract(html, **options)
    return len(htmls) / (time.perf_counter() - start)


async def measure_corpus(corpus: Corpus, tmp: Path, args: argparse.Namespace) -> None:
    """Serve ``corpus`` on loopback, read it every way, and print the figures."""
    www, store = tmp / "www", tmp / "store"
    for d in (www, store):
        d.mkdir()
    for n, (html, _) in enumerate(corpus.files):
        (www / f"{n}.html").write_bytes(html)
    server, base = serve(www)
    try:
        pages = [
            RealPage(f"{n}", f"{base}{n}.html", expected)
            for n, (_, expected) in enumerate(corpus.files)
        ]
        fs = DiskFileSystem(str(store))
        svc = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}]))
        htmls = [html for html, _ in corpus.files]
        async with BrowserSession(allow=LOOPBACK) as browser:
            await viewer_real(pages[:8], svc, browser, 2)  # start the worker pool
            plain_real(pages[:4], corpus.plain_options)
            rows = []
            for round_no in range(args.rounds):
                first = round_no == 0
                viewer_score, plain_score = corpus.new_score(), corpus.new_score()
                one, tiers = await viewer_real(
                    pages, svc, browser, 1, viewer_score if first else None
                )
                many, _ = await viewer_real(pages, svc, browser, args.concurrency)
                plain = plain_real(pages, corpus.plain_options, plain_score if first else None)
                rows.append((one, many, plain, extract_only(htmls, corpus.plain_options)))
                if first:
                    scores = (viewer_score.f1(), plain_score.f1(), tiers)
    finally:
        server.kill()
        server.wait()
    (vp, vr, vf), (pp, pr, pf), tiers = scores
    print(
        f"{corpus.title}: {len(pages)} pages; concurrency {args.concurrency}; "
        f"cores {os.cpu_count()}; tiers {tiers}"
    )
    for n, (one, many, plain, alone) in enumerate(rows, 1):
        print(
            f"  round {n}: viewer_fetch 1 at a time {one:5.1f} pages/s, "
            f"{args.concurrency} at a time {many:5.1f} pages/s (target >= 40)   "
            f"plain httpx.get + trafilatura.extract {plain:5.1f} pages/s "
            f"(ratio {many / plain:4.2f})"
            f"   trafilatura.extract alone, one core {alone:5.1f} pages/s "
            f"(ratio {many / alone:4.2f})"
        )
    print(
        f"  visible-text F1: viewer_fetch {vf:.4f} (P {vp:.4f} R {vr:.4f})   "
        f"plain trafilatura {pf:.4f} (P {pp:.4f} R {pr:.4f})   (target >= 0.96)"
    )


async def main_real(args: argparse.Namespace) -> None:
    for n, source in enumerate(args.real):
        with tempfile.TemporaryDirectory() as tmp:
            scratch = Path(tmp, "src")
            scratch.mkdir()
            corpus = load_corpus(Path(source).expanduser(), scratch, args.all)
            if not corpus.files:
                raise SystemExit(f"no annotated pages found in {source}")
            if n:
                print()
            await measure_corpus(corpus, Path(tmp), args)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--naive-browser", type=int, default=20)
    parser.add_argument(
        "--real",
        nargs="+",
        default=os.environ.get("QUARTET_REAL_PAGES", "").split() or None,
        help="checkouts or bare clones of the corpora whose pages to read",
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
