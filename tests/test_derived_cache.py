"""What a run computes from what it reads, kept in the page cache across runs.

Search result lists, a page's Markdown, what the file tools read in a file (OCR
included), a report's charts and PDF: each is kept in the store's namespace under a key
naming everything it was computed from, reused within the freshness window, asked or
computed again after it and with ``--fresh``, and never kept from a response its site
said not to keep. Real servers on 127.0.0.1; the cache's clock is injected, so that the
window passes without a sleep.
"""

from __future__ import annotations

import asyncio
import io
import sys
from typing import Any

import pytest
from browser_sites import SiteServer, send
from browser_support import LOOPBACK_SETTINGS, stored_path
from cache_support import HOUR, Clock, make_cache, three_namespaces
from file_support import FileTools, pdf_from_html
from PIL import Image, ImageDraw, ImageFont
from search_support import plain_web, settings_for

from fs_service import ALL_OPS, READ_OPS, FileDomainService, MemoryFileSystem
from host.orchestration.warming import Warming
from host.research import Research
from research.plan import offline_plan
from subagents.browser import workers
from subagents.browser.download import http_download
from subagents.browser.viewer import viewer_fetch
from subagents.evidence import EvidenceLedger, PageRecord, sidecar_path
from subagents.file import documents, images
from subagents.generate import pdf as pdf_module
from subagents.generate.charts import chart_png
from subagents.generate.notes import Chart
from subagents.net.pagecache import (
    DERIVED,
    SEARCH,
    PageCache,
    RunCache,
    caching,
    fingerprint,
    remember,
    reuse,
)
from subagents.results import text_of
from subagents.search.tools import search_bing, search_wiki
from subagents.settings import ToolSettings

GRANTS = [
    {"prefix": "/workspace/", "ops": set(ALL_OPS)},
    {"prefix": "/userinput/", "ops": set(READ_OPS)},
]
FONT = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def cache(tmp_path, clock):
    made = make_cache(tmp_path, clock)
    yield made
    made.close()


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[tuple]:
    """Count the calls of ``module.name`` (the real function still runs); the list of
    their arguments."""
    real = getattr(module, name)
    calls: list[tuple] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return calls


# --- search result lists --------------------------------------------------------------


@pytest.fixture(scope="module")
def web():
    with plain_web() as served:
        yield served


async def _search(web, cache: RunCache | None, tool=search_wiki, query="solar power", **changes):
    with caching(cache):
        return await tool(query, settings_for(web, **changes))


async def test_a_result_list_is_reused_within_the_window_and_asked_again_after(web, cache, clock):
    web.clear()
    first = await _search(web, RunCache(cache))
    assert first.metadata["status"] == "ok" and "Solar power" in text_of(first)
    assert len(web.requests_to("wiki")) == 1
    clock.now += HOUR - 60
    again = await _search(web, RunCache(cache))
    assert text_of(again) == text_of(first) and again.metadata == first.metadata
    assert len(web.requests_to("wiki")) == 1  # the engine was not asked
    clock.now += 120
    await _search(web, RunCache(cache))
    assert len(web.requests_to("wiki")) == 2  # after the window it is
    assert cache.stats().searches == 1


async def test_fresh_asks_the_engine_and_another_query_source_or_endpoint_is_its_own(web, cache):
    web.clear()
    await _search(web, RunCache(cache))
    await _search(web, RunCache(cache, reads=False))  # --fresh
    assert len(web.requests_to("wiki")) == 2
    await _search(web, RunCache(cache), query="wind power")
    assert len(web.requests_to("wiki")) == 3
    await _search(web, RunCache(cache), tool=search_bing)
    assert len(web.requests_to("bing-page")) == 1
    await _search(web, RunCache(cache), wiki_lang="de")
    assert len(web.requests_to("wiki")) == 4
    await _search(web, RunCache(cache), query="wind power")
    assert len(web.requests_to("wiki")) == 4


async def test_a_failed_search_is_not_kept(web, cache):
    web.clear()
    web.fault("wiki", "error", times=1)
    failed = await _search(web, RunCache(cache))
    assert failed.metadata["status"] == "unavailable"
    answered = await _search(web, RunCache(cache))
    assert answered.metadata["status"] == "ok"
    assert len(web.requests_to("wiki")) == 2


async def test_a_result_list_never_crosses_a_user_or_a_project(web, tmp_path, clock):
    web.clear()
    with three_namespaces(tmp_path, clock) as caches:
        for n, cache in enumerate(caches, 1):
            await _search(web, RunCache(cache))
            assert len(web.requests_to("wiki")) == n


# --- a page's Markdown ------------------------------------------------------------------


def _article(title: str) -> bytes:
    paragraphs = "".join(
        f"<p>The keepers of {title} opened the sluice at dawn, and paragraph {n} of the "
        "history says the boats waited below the gate for the water to rise.</p>"
        for n in range(6)
    )
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>"
        f"{paragraphs}</article></body></html>"
    ).encode()


@pytest.fixture(scope="module")
def site():
    server = SiteServer().start()
    server.routes.update(
        {
            "/open.html": lambda h: send(h, 200, _article("Open gates")),
            "/private.html": lambda h: send(
                h, 200, _article("Private gates"), headers={"Cache-Control": "no-store"}
            ),
            "/private.pdf": lambda h: send(
                h,
                200,
                pdf_from_html("<p>The private ledger of the lock keepers.</p>"),
                "application/pdf",
                headers={"Cache-Control": "no-store"},
            ),
        }
    )
    yield server
    server.stop()


def _service() -> FileDomainService:
    return FileDomainService(MemoryFileSystem().create_handle(GRANTS))


async def _read(url: str, cache: RunCache) -> tuple[str, FileDomainService]:
    service = _service()
    with caching(cache):
        res = await viewer_fetch(
            url, None, service=service, evidence=EvidenceLedger(), settings=LOOPBACK_SETTINGS
        )
    assert res.metadata["status"] == "ok", text_of(res)
    return await service.read_text(stored_path(res)), service


async def test_a_pages_markdown_is_made_once_for_the_same_html(site, cache, monkeypatch):
    extractions = counting(monkeypatch, workers, "run_in_pool")
    url = site.url("/open.html")
    first, _ = await _read(url, RunCache(cache))
    second, _ = await _read(url, RunCache(cache))
    assert second == first and "opened the sluice" in first
    assert len(extractions) == 1
    await _read(url, RunCache(cache, reads=False))  # --fresh: fetched and made again
    assert len(extractions) == 2
    assert cache.stats().derived == 1


async def test_nothing_is_kept_of_a_page_or_a_download_marked_no_store(site, cache):
    await _read(site.url("/private.html"), RunCache(cache))
    run = RunCache(cache)
    service = _service()
    with caching(run):
        saved = await http_download(
            site.url("/private.pdf"), "/workspace/downloads/private.pdf", service=service,
            settings=LOOPBACK_SETTINGS,
        )  # fmt: skip
        assert saved.metadata["status"] == "ok", text_of(saved)
        read = await FileTools(service).text(
            "pdf_read_text", path="/workspace/downloads/private.pdf"
        )
    assert "private ledger" in read
    assert cache.stats().entries == 0


# --- what the file tools read -----------------------------------------------------------


async def test_a_files_text_is_read_once_for_the_same_bytes(
    disk_service, input_dir, cache, monkeypatch
):
    parses = counting(monkeypatch, documents, "_open_pdf")
    (input_dir / "brief.pdf").write_bytes(pdf_from_html("<p>The canal brief, page one.</p>"))
    tools = FileTools(disk_service)
    with caching(RunCache(cache)):
        first = await tools.call("pdf_read_text", path="/userinput/brief.pdf")
    with caching(RunCache(cache)):
        again = await tools.call("pdf_read_text", path="/userinput/brief.pdf")
        other_pages = await tools.call("pdf_read_text", path="/userinput/brief.pdf", pages=[1])
    assert text_of(again) == text_of(first) and "canal brief" in text_of(first)
    assert again.metadata == first.metadata
    assert len(parses) == 2  # the first read, and the one with other arguments
    (input_dir / "brief.pdf").write_bytes(pdf_from_html("<p>The canal brief, revised.</p>"))
    with caching(RunCache(cache)):
        changed = await tools.text("pdf_read_text", path="/userinput/brief.pdf")
    assert "revised" in changed and len(parses) == 3  # other bytes, read again
    assert "page one" in text_of(other_pages)


def _png(text: str) -> bytes:
    img = Image.new("RGB", (700, 140), "white")
    ImageDraw.Draw(img).text((30, 30), text, fill="black", font=ImageFont.truetype(FONT, 64))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


async def test_a_pictures_text_is_read_by_ocr_once(disk_service, input_dir, cache, monkeypatch):
    for name in ("QUARTET_VISION_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    runs = counting(monkeypatch, images, "_tesseract")
    (input_dir / "placard.png").write_bytes(_png("Lock 1411"))
    tools = FileTools(disk_service, settings=ToolSettings())
    texts = []
    for reads in (True, True, False):
        with caching(RunCache(cache, reads=reads)):
            texts.append(await tools.text("image_qa", img_path="/userinput/placard.png"))
    assert texts[0] == texts[1] == texts[2] and "1411" in texts[0]
    ocr = [args for args in runs if "stdin" in args[0]]
    assert len(ocr) == 2  # the first read and the one with --fresh


# --- a report's charts and PDF ----------------------------------------------------------


def test_a_chart_and_a_pdf_are_drawn_once_for_the_same_input(cache, monkeypatch):
    from subagents.generate import charts
    from subagents.generate.report import Report

    draws = counting(monkeypatch, charts, "_draw")
    layouts = counting(monkeypatch, pdf_module, "_layout")
    chart = Chart("Canal lengths", ["Tongji", "Yongji"], [("km", [650.0, 950.0])], "km")
    report = Report(title="Locks", summary=[], sections=[], citations=[])
    made = []
    for _ in range(2):
        charts._DRAWN.clear()  # a new run: nothing drawn in this process yet
        pdf_module._layouts.clear()
        with caching(RunCache(cache)):
            made.append((chart_png(chart, "en"), pdf_module.render_pdf(report)))
            assert pdf_module.printed_pages(report) >= 1
    assert made[0] == made[1] and made[0][1].startswith(b"%PDF")
    assert len(draws) == 1 and len(layouts) == 1


# --- keys, warming and the research that reads the pages --------------------------------


def test_a_fingerprint_changes_with_the_code(tmp_path, monkeypatch):
    module = tmp_path / "derived_probe.py"
    module.write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = fingerprint(("derived_probe",), ("pypdf",))
    module.write_text("VALUE = 2\n", encoding="utf-8")
    fingerprint.cache_clear()
    assert fingerprint(("derived_probe",), ("pypdf",)) != before
    assert fingerprint(("derived_probe",), ("pypdf", "lxml")) != before
    sys.modules.pop("derived_probe", None)


async def test_a_run_whose_cache_holds_all_it_asks_loads_nothing_ahead(cache):
    await _kept(cache, "a")
    loaded: list[str] = []

    async def load() -> None:
        loaded.append("loaded")

    run = RunCache(cache)
    warming = Warming(run, (load,))
    with caching(run):
        warming.begin()
        assert await reuse(DERIVED, "a") == b"a"
        await asyncio.sleep(0)
        assert loaded == [] and not warming.started
        assert await reuse(DERIVED, "b") is None  # the first miss
        await asyncio.gather(*await _started(warming))
    assert loaded == ["loaded"]
    warming.close()


async def test_without_reads_the_loading_starts_at_once(cache):
    loaded: list[str] = []

    async def load() -> None:
        loaded.append("loaded")

    for run in (None, RunCache(cache, reads=False)):
        warming = Warming(run, (load,))
        warming.begin()
        assert warming.started
        await asyncio.gather(*warming.tasks)
        warming.close()
    assert loaded == ["loaded", "loaded"]


async def _kept(cache: PageCache, key: str) -> None:
    with caching(RunCache(cache)):
        await remember(DERIVED, key, key.encode())


async def _started(warming: Warming) -> list[asyncio.Task]:
    """The warming's tasks once the loop has run the start the miss scheduled."""
    while not warming.started:
        await asyncio.sleep(0)
    return warming.tasks


async def test_tasks_that_end_together_score_each_page_once(memory_service, monkeypatch):
    research = Research(offline_plan("How were canal locks kept?"), EvidenceLedger(),
                        memory_service, max_rounds=1)  # fmt: skip
    for n in range(4):
        path = f"/workspace/pages/page-{n}.md"
        await memory_service.write_text(path, _article(f"Lock {n}").decode())
        record = PageRecord(f"http://h/{n}", f"http://h/{n}", "", "", "http", "trafilatura", path)
        await memory_service.write_text(sidecar_path(path), record.to_json())
    scored = counting(monkeypatch, research, "_score")
    found = await asyncio.gather(*(research.absorb_pages() for _ in range(3)))
    assert sorted(p for new in found for p in new) == [
        f"/workspace/pages/page-{n}.md" for n in range(4)
    ]
    assert len(scored) == 4


def test_the_kinds_are_counted_apart(cache):
    async def keep() -> None:
        with caching(RunCache(cache)):
            await remember(SEARCH, "search_wiki x", b"- a")
            await remember(DERIVED, "extract y", b"{}")

    asyncio.run(keep())
    stats = cache.stats()
    assert (stats.entries, stats.searches, stats.derived, stats.rendered) == (2, 1, 1, 0)
