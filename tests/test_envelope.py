"""Every tool of every subagent returns the same fixed metadata envelope, ok or not.

``metadata`` is exactly ``{status, paths, evidence_ids, reason}`` (SPEC §3); business data
lives only in the text. Each tool is called through its built toolkit, as an agent calls
it, once where it succeeds and once where it fails: the file domain on disk, the Browser
against sites on 127.0.0.1, Search against the loopback engines of the demo.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_sites import SiteServer, build_site
from browser_support import LOOPBACK, LOOPBACK_SETTINGS
from file_support import pdf_from_html
from generate_samples import en_notes, en_page
from PIL import Image
from scripted import call_tool
from search_support import CASES, CORPUS, settings_for

from demo.search_web import SearchWeb
from subagents import SPECS, build_toolkit
from subagents.browser.session import BrowserSession
from subagents.evidence import EvidenceLedger, PageRegistry
from subagents.results import ENVELOPE_KEYS, text_of
from subagents.settings import ToolSettings

FAILED = ("error", "unavailable", "refused")


class Calls:
    """Calls tools through one toolkit and records which tools were seen ok and failing."""

    def __init__(self, toolkit: Any, seen: dict[str, set[str]]) -> None:
        self.toolkit = toolkit
        self.seen = seen

    async def ok(self, name: str, **kwargs: Any) -> Any:
        res = await call_tool(self.toolkit, name, **kwargs)
        assert_envelope(res, "ok", name)
        self.seen["ok"].add(name)
        return res

    async def fails(self, name: str, status: str = "error", **kwargs: Any) -> Any:
        res = await call_tool(self.toolkit, name, **kwargs)
        assert_envelope(res, status, name)
        self.seen["failed"].add(name)
        return res


def assert_envelope(res: Any, status: str, name: str) -> None:
    text = text_of(res)
    meta = res.metadata
    assert isinstance(meta, dict), (name, text)
    assert tuple(meta) == ENVELOPE_KEYS, (name, meta)
    assert meta["status"] == status, (name, meta, text[:300])
    assert isinstance(meta["paths"], list) and isinstance(meta["evidence_ids"], list), name
    assert all(isinstance(p, str) and p.startswith("/") for p in meta["paths"]), (name, meta)
    assert all(isinstance(i, str) and i.startswith("ev-") for i in meta["evidence_ids"]), name
    assert isinstance(meta["reason"], str), name
    json.dumps(meta)  # plain JSON, nothing else
    if status == "ok":
        assert meta["reason"] == "" and not text.startswith("Error"), (name, text[:300])
    else:
        assert meta["reason"] and text.startswith("Error"), (name, meta, text[:300])
        assert meta["evidence_ids"] == [], name


def covered(name: str, seen: dict[str, set[str]]) -> None:
    """Every tool of subagent ``name`` was seen both succeeding and failing."""
    every = set(SPECS[name].allowlist())
    assert seen["ok"] == every, sorted(every - seen["ok"])
    assert seen["failed"] == every, sorted(every - seen["failed"])


def png_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(buf, format="PNG")
    return buf.getvalue()


class BrokenService:
    """A file domain whose backend fails on every use."""

    @property
    def grants(self) -> Any:
        raise RuntimeError("the storage backend went away")

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("the storage backend went away")


@pytest.fixture(scope="module")
def sites() -> Iterator[SiteServer]:
    trap = SiteServer(host="127.0.0.2").start()
    site = build_site(trap).start()
    yield site
    site.stop()
    trap.stop()


@pytest.fixture(scope="module")
def engines() -> Iterator[SearchWeb]:
    with SearchWeb(CORPUS) as web:
        yield web


# --- file -----------------------------------------------------------------------------


async def test_every_file_tool(disk_service, input_dir):
    seen: dict[str, set[str]] = {"ok": set(), "failed": set()}
    tools = Calls(build_toolkit("file", service=disk_service, settings=ToolSettings()), seen)
    (input_dir / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (input_dir / "r.pdf").write_bytes(pdf_from_html("<p>Page one</p>"))
    (input_dir / "pic.png").write_bytes(png_bytes())
    (input_dir / "fake.png").write_bytes(b"<html>not an image</html>" * 4)

    res = await tools.ok("list_allowed_directories")
    assert res.metadata["paths"] == ["/userinput/", "/workspace/"]
    broken = Calls(build_toolkit("file", service=BrokenService(), settings=ToolSettings()), seen)
    await broken.fails("list_allowed_directories")

    res = await tools.ok("list_directory", path="/userinput/")
    assert res.metadata["paths"] == ["/userinput/"]
    await tools.fails("list_directory", path="/etc/")
    await tools.ok("get_file_info", path="/userinput/notes.txt")
    await tools.fails("get_file_info", path="/userinput/missing.txt")
    await tools.ok("read_text_file", path="/userinput/notes.txt")
    await tools.fails("read_text_file", path="/userinput/missing.txt")

    res = await tools.ok("write_file", path="/workspace/a.txt", content="one\ntwo\n")
    assert res.metadata["paths"] == ["/workspace/a.txt"]
    await tools.fails("write_file", path="/userinput/a.txt", content="x")
    edits = [{"old_text": "one", "new_text": "ONE"}]
    await tools.ok("edit_file", path="/workspace/a.txt", edits=edits)
    await tools.fails("edit_file", path="/workspace/a.txt", edits=edits)  # "one" is gone
    await tools.ok("delete_file", path="/workspace/a.txt")
    await tools.fails("delete_file", path="/workspace/a.txt")

    await tools.ok("csv_write", path="/workspace/t.csv", rows=[["a", "b"], ["1", "2"]])
    await tools.fails("csv_write", path="/userinput/t.csv", rows=[["a"]])
    res = await tools.ok("csv_read", path="/workspace/t.csv")
    assert res.metadata["paths"] == ["/workspace/t.csv"]
    await tools.fails("csv_read", path="/userinput/pic.png")

    await tools.ok("pdf_read_text", path="/userinput/r.pdf")
    await tools.fails("pdf_read_text", path="/userinput/notes.txt")

    await tools.ok("xlsx_write_cells", path="/workspace/x.xlsx", range="A1", values=[["v"]])
    await tools.fails("xlsx_write_cells", path="/userinput/x.xlsx", range="A1", values=[["v"]])
    await tools.ok("xlsx_read_cells", path="/workspace/x.xlsx", range="A1:B2")
    await tools.fails("xlsx_read_cells", path="/workspace/x.xlsx", range="hello world")

    slides = [{"title": "T", "bullets": ["b"]}]
    await tools.ok("pptx_write", path="/workspace/d.pptx", slides_spec=slides)
    await tools.fails("pptx_write", path="/workspace/e.pptx", slides_spec=[{"bullets": []}])
    await tools.ok("pptx_read_outline", path="/workspace/d.pptx")
    await tools.fails("pptx_read_outline", path="/userinput/notes.txt")

    res = await tools.ok("image_qa", img_path="/userinput/pic.png")
    assert res.metadata["paths"] == ["/userinput/pic.png"]
    await tools.fails("image_qa", img_path="/userinput/fake.png")
    covered("file", seen)


# --- generate -------------------------------------------------------------------------


async def test_every_generate_tool(disk_service):
    seen: dict[str, set[str]] = {"ok": set(), "failed": set()}
    page = await en_page(disk_service)
    await disk_service.write_text("/workspace/notes/en.md", en_notes(page))
    toolkit = build_toolkit("generate", service=disk_service, evidence=None, model=None)
    tools = Calls(toolkit, seen)
    from_paths = ["/workspace/notes/en.md", page.path]
    for tool, ext in (
        ("generate_markdown", "md"),
        ("generate_html", "html"),
        ("generate_pdf", "pdf"),
        ("generate_pptx", "pptx"),
    ):
        out = f"/workspace/reports/r.{ext}"
        res = await tools.ok(tool, requirements="Solar", out_path=out, from_paths=from_paths)
        written = res.metadata["paths"][1 : -len(from_paths)]
        assert res.metadata["paths"] == [out, *written, *from_paths]
        assert "/workspace/reports/r.zip" in written
        assert all(w.startswith("/workspace/reports/") for w in written)
        assert sorted(res.metadata["evidence_ids"]) == sorted(page.ids())
        await tools.fails(tool, requirements="Solar", out_path=f"/userinput/r.{ext}")
    covered("generate", seen)


# --- browser --------------------------------------------------------------------------


async def test_every_browser_tool(sites, disk_service):
    seen: dict[str, set[str]] = {"ok": set(), "failed": set()}
    session = BrowserSession(allow=LOOPBACK)
    idle = BrowserSession(allow=LOOPBACK)  # never navigated: no page is open
    ledger = EvidenceLedger()

    def toolkit(browser: BrowserSession, evidence: Any = ledger) -> Any:
        return build_toolkit(
            "browser",
            service=disk_service,
            browser=browser,
            evidence=evidence,
            model=None,
            settings=LOOPBACK_SETTINGS,
        )

    tools = Calls(toolkit(session), seen)
    blank = Calls(toolkit(idle), seen)
    try:
        url = sites.url("/static/article.html")
        res = await tools.ok("viewer_fetch", url=url)
        (stored,) = res.metadata["paths"]
        assert stored.startswith("/workspace/pages/") and res.metadata["evidence_ids"] == []
        res = await tools.ok("viewer_fetch", url=url, query="When was the company founded?")
        assert res.metadata["paths"] == [stored] and res.metadata["evidence_ids"]
        assert res.metadata["evidence_ids"] == [e.id for e in ledger.items()]
        await tools.fails("viewer_fetch", url=sites.url("/status/404.html"))
        await tools.fails("viewer_fetch", "unavailable", url=sites.url("/status/403.html"))
        spent = EvidenceLedger(pages=PageRegistry(budget=0))
        no_budget = Calls(toolkit(session, spent), seen)
        await no_budget.fails("viewer_fetch", "refused", url=sites.url("/static/notes.txt"))

        csv_url = sites.url("/download/table.csv")
        res = await tools.ok("http_download", url=csv_url, save_path="/workspace/downloads/t.csv")
        assert res.metadata["paths"] == ["/workspace/downloads/t.csv"]
        await tools.fails("http_download", url=csv_url, save_path="/userinput/t.csv")
        await tools.fails(
            "http_download",
            "unavailable",
            url=sites.url("/download/short"),
            save_path="/workspace/downloads/s.pdf",
        )

        await tools.ok("browser_navigate", url=sites.url("/form.html"))
        await tools.fails("browser_navigate", url="http://127.0.0.2:9/secret")
        await tools.ok("browser_snapshot")
        await blank.fails("browser_snapshot")
        res = await tools.ok("browser_screenshot")
        assert res.metadata["paths"][0].startswith("/workspace/screenshots/")
        await blank.fails("browser_screenshot")
        await tools.ok("browser_type", selector="#name", text="Ada")
        await tools.fails("browser_type", selector="###", text="x")
        await tools.ok("browser_click", selector="#go")
        await tools.fails("browser_click", selector="###")
        await tools.ok("browser_wait", selector="#confirmed", timeout=5000)
        await tools.fails("browser_wait", selector="#never-there", timeout=200)
    finally:
        await session.aclose()
        await idle.aclose()
    assert not idle.started
    covered("browser", seen)


# --- search ---------------------------------------------------------------------------


async def test_every_search_tool(engines):
    seen: dict[str, set[str]] = {"ok": set(), "failed": set()}
    tools = Calls(build_toolkit("search", settings=settings_for(engines)), seen)
    for tool in SPECS["search"].allowlist():
        res = await tools.ok(tool, query="solar")
        assert res.metadata == {"status": "ok", "paths": [], "evidence_ids": [], "reason": ""}
        await tools.fails(tool, query="   ")
    engines.clear()
    engines.fault(CASES["wiki"][2], "error")
    res = await tools.fails("search_wiki", "unavailable", query="solar")
    assert "HTTP 500" in res.metadata["reason"]
    engines.clear()
    covered("search", seen)
