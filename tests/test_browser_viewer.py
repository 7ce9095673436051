"""viewer_fetch, http_download and the network guard against sites served on 127.0.0.1."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
import pytest_asyncio
from agentscope.message import TextBlock
from agentscope.model import ChatModelBase, ChatResponse
from browser_sites import (
    ARTICLE_PARAGRAPHS,
    FORBIDDEN_TEXT,
    JS_SECRET,
    STORY,
    ZH_PARAGRAPHS,
    SiteServer,
    build_site,
)
from browser_support import (
    LOOPBACK,
    LOOPBACK_SETTINGS,
    answer_of,
    evidence_of,
    line_value,
    stored_path,
    tier_of,
    url_of,
)

from subagents.browser import download
from subagents.browser.download import http_download
from subagents.browser.session import BrowserSession
from subagents.browser.viewer import SHOW_CHARS, viewer_fetch
from subagents.evidence import EvidenceLedger, PageRecord, sidecar_path
from subagents.net.netguard import BlockedURLError, check_url
from subagents.results import text_of
from subagents.settings import NetworkPolicy, ToolSettings

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def trap():
    server = SiteServer(host="127.0.0.2").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site(trap):
    server = build_site(trap).start()
    yield server
    server.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser():
    session = BrowserSession(allow=LOOPBACK)
    try:
        yield session
    finally:
        await session.aclose()


class ScriptedModel(ChatModelBase):
    """Answers every call with the next scripted text."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(model_name="scripted", stream=False)
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        content = messages[-1]["content"]
        if isinstance(content, list):  # formatted blocks
            content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
        self.prompts.append(content)
        return ChatResponse(content=[TextBlock(type="text", text=self.replies.pop(0))])


class BrokenModel(ChatModelBase):
    def __init__(self) -> None:
        super().__init__(model_name="broken", stream=False)

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        raise ConnectionError("provider down")


async def stored(service, res) -> tuple[str, PageRecord]:
    path = stored_path(res)
    text = await service.read_text(path)
    record = PageRecord.from_json(await service.read_text(sidecar_path(path)))
    return text, record


# --- the HTTP tier and the quality gate ---------------------------------------------


async def test_static_page_is_read_over_http_with_tables_links_and_a_sidecar(
    site, browser, disk_service
):
    url = site.url("/static/article.html")
    res = await viewer_fetch(url, service=disk_service, browser=browser, settings=LOOPBACK_SETTINGS)
    out = text_of(res)
    assert url_of(res) == url and tier_of(res) == "http"
    assert f"URL: {url}\n" in out and "Read by: http tier, trafilatura extractor" in out
    assert res.metadata["status"] == "ok" and res.metadata["evidence_ids"] == []
    assert ARTICLE_PARAGRAPHS[0] in out
    assert "| 1995 | 12 |" in out
    assert f"({site.url('/static/harvest.html')})" in out
    assert "Subscribe to our newsletter" not in out and "All rights reserved" not in out
    path = stored_path(res)
    assert path.startswith("/workspace/pages/127-0-0-1-static-article-html-") and path.endswith(
        ".md"
    )
    text, record = await stored(disk_service, res)
    assert text in out
    assert record.url == url and record.final_url == url and record.tier == "http"
    assert record.extractor == "trafilatura" and record.title == "Quartet Tea Company — History"
    assert record.content_type.startswith("text/html")
    import hashlib

    assert record.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert datetime.fromisoformat(record.fetched_at).utcoffset().total_seconds() == 0
    assert not any("Chrome" in ua for p, ua in site.hits if p == "/static/article.html")


async def test_js_rendered_page_goes_to_the_chromium_tier(site, browser, memory_service):
    res = await viewer_fetch(
        site.url("/js/app.html"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    out = text_of(res)
    assert tier_of(res) == "chromium", out
    assert "a script-only shell" in out
    assert JS_SECRET in out
    text, record = await stored(memory_service, res)
    assert JS_SECRET in text and record.tier == "chromium"
    assert any("HeadlessChrome" in ua for p, ua in site.hits if p == "/js/app.html")


async def test_text_loaded_by_fetch_after_load_is_waited_for(site, browser, memory_service):
    res = await viewer_fetch(
        site.url("/js/fetch.html"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert tier_of(res) == "chromium"
    assert all(p in text_of(res) for p in STORY)


async def test_403_for_plain_clients_is_read_by_the_browser(site, browser, memory_service):
    res = await viewer_fetch(
        site.url("/members/notes.html"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    out = text_of(res)
    assert tier_of(res) == "chromium" and "HTTP status 403" in out
    assert FORBIDDEN_TEXT in out


async def test_403_everywhere_is_unavailable(site, browser, memory_service):
    res = await viewer_fetch(
        site.url("/status/403.html"),
        service=memory_service,
        browser=browser,
        settings=LOOPBACK_SETTINGS,
    )
    assert res.metadata["status"] == "unavailable" and "403" in res.metadata["reason"]
    assert text_of(res).startswith("Error: unavailable:") and "403" in text_of(res)
    assert await memory_service.exists("/workspace/pages/") is False


async def test_404_is_an_error_the_model_can_act_on(site, memory_service):
    res = await viewer_fetch(
        site.url("/status/404.html"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert text_of(res).startswith("Error:") and "404" in text_of(res)
    assert res.metadata["status"] == "error" and "404" in res.metadata["reason"]


async def test_without_a_browser_a_js_shell_is_kept_with_a_note(site, memory_service):
    res = await viewer_fetch(
        site.url("/js/fetch.html"), service=memory_service, browser=None, settings=LOOPBACK_SETTINGS
    )
    assert tier_of(res) == "http"
    assert "no browser" in line_value(res, "Read by")


async def test_redirect_chain_is_followed_to_the_final_page(site, memory_service):
    before = len(site.hits)
    res = await viewer_fetch(
        site.url("/redirect/1"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert url_of(res) == site.url("/static/article.html")
    assert f"URL: {url_of(res)} (from {site.url('/redirect/1')})\n" in text_of(res)
    assert site.paths()[before:] == [
        "/redirect/1",
        "/redirect/2",
        "/redirect/3",
        "/static/article.html",
    ]
    _, record = await stored(memory_service, res)
    assert record.url == site.url("/redirect/1") and record.final_url == url_of(res)


async def test_redirect_loop_stops(site, memory_service):
    res = await viewer_fetch(
        site.url("/redirect/loop"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert "more than 10 redirects" in text_of(res)


async def test_very_large_page_is_cut_bounded_and_stored(site, memory_service):
    res = await viewer_fetch(
        site.url("/big.html"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    out = text_of(res)
    assert "was cut" in out
    assert "more characters not shown" in out and "The full text is stored at" in out
    assert len(out) < SHOW_CHARS + 2000
    text, _ = await stored(memory_service, res)
    assert f"Stored: {stored_path(res)} ({len(text)} characters;" in out
    assert len(text) > 1_000_000 and "Section 9000:" in text


async def test_plain_text_is_kept_and_binary_is_sent_to_http_download(site, memory_service):
    res = await viewer_fetch(
        site.url("/static/notes.txt"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert "steep green tea at 80 degrees" in text_of(res)
    _, record = await stored(memory_service, res)
    assert record.extractor == "plain"
    res = await viewer_fetch(
        site.url("/static/image.png"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert text_of(res).startswith("Error:") and "http_download" in text_of(res)


# --- the network guard --------------------------------------------------------------


async def test_redirect_to_another_loopback_address_is_refused_before_connecting(
    site, trap, memory_service
):
    res = await viewer_fetch(
        site.url("/escape/loopback"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert text_of(res).startswith("Error: refused") and "127.0.0.2" in text_of(res)
    assert trap.hits == []


@pytest.mark.parametrize(
    ("path", "address"),
    [("/escape/metadata", "169.254.169.254"), ("/escape/private", "10.0.0.1")],
)
async def test_redirect_to_private_addresses_is_refused(site, memory_service, path, address):
    res = await viewer_fetch(site.url(path), service=memory_service, settings=LOOPBACK_SETTINGS)
    assert text_of(res).startswith("Error: refused") and address in text_of(res)
    assert await memory_service.exists("/workspace/pages/") is False


async def test_redirect_to_another_scheme_is_refused(site, memory_service):
    res = await viewer_fetch(
        site.url("/escape/scheme"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert "only http and https" in text_of(res)


async def test_loopback_is_refused_unless_allowed(site, memory_service):
    before = len(site.hits)
    res = await viewer_fetch(
        site.url("/static/article.html"), service=memory_service, settings=ToolSettings()
    )
    assert text_of(res).startswith("Error: refused")
    assert len(site.hits) == before


async def test_check_url_rules():
    none = NetworkPolicy.parse("")
    for bad in (
        "ftp://example.org/x",
        "file:///etc/passwd",
        "http://localhost:1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://192.168.1.10/",
        "http:///nohost",
    ):
        with pytest.raises(BlockedURLError):
            await check_url(bad, none)
    assert await check_url("http://93.184.215.14/", none)
    cidr = NetworkPolicy.parse("10.0.0.0/8, intranet.example")
    assert await check_url("http://10.1.2.3/", cidr)
    assert await check_url("http://intranet.example/", cidr)
    with pytest.raises(BlockedURLError):
        await check_url("http://11.0.0.1.invalid/", cidr)


async def test_browser_requests_are_guarded_too(site, trap):
    from subagents.browser.automation import browser_navigate

    session = BrowserSession(allow=LOOPBACK)
    try:
        res = await browser_navigate(site.url("/escape/page-with-trap.html"), browser=session)
        assert not text_of(res).startswith("Error"), text_of(res)
        page = await session.page()
        await page.wait_for_load_state("networkidle")
    finally:
        await session.aclose()
    assert trap.hits == []
    assert any("/beacon" in b for b in session.blocked)
    # The image's redirect is followed hop by hop: its hop to the trap is what is refused.
    assert "/escape/loopback" in site.paths()
    assert any(b.startswith(f"{trap.url('/secret')}: Error: refused") for b in session.blocked)


# --- answering with evidence ----------------------------------------------------------


@pytest.mark.parametrize("path", ["/zh/longjing.html", "/zh/longjing-gbk.html"])
async def test_chinese_page_bm25_answer_with_verified_spans(site, memory_service, path):
    ledger = EvidenceLedger()
    res = await viewer_fetch(
        site.url(path),
        "龙井茶的采摘时间是什么时候？",
        service=memory_service,
        evidence=ledger,
        settings=LOOPBACK_SETTINGS,
    )
    assert "龙井茶简介" in text_of(res)
    quotes = evidence_of(res)
    assert quotes[0].span == ZH_PARAGRAPHS[1]
    text, record = await stored(memory_service, res)
    for q in quotes:
        assert text[q.start : q.end] == q.span
    method, answer = answer_of(res)
    assert method == "bm25" and ZH_PARAGRAPHS[1] in answer
    assert [e.public() for e in ledger.items()] == [
        {"url": site.url(path), "span": q.span, "start": q.start, "end": q.end} for q in quotes
    ]
    assert [e.id for e in ledger.items()] == res.metadata["evidence_ids"]
    assert [e["span"] for e in record.evidence] == [q.span for q in quotes]
    assert [e["id"] for e in record.evidence] == [q.id for q in quotes]
    assert all(q.id.startswith("ev-") for q in quotes)


async def test_model_answer_keeps_verified_quotes_and_drops_fabricated_ones(site, memory_service):
    reply = {
        "answer": "It was founded in 1987 and had twelve shops by 1995.",
        "quotes": [
            ARTICLE_PARAGRAPHS[0],
            "By 1995 the company   ran twelve\nshops",
            "The company was founded by four sisters in Shanghai in 1902.",
        ],
    }
    model = ScriptedModel(["```json\n" + json.dumps(reply) + "\n```"])
    ledger = EvidenceLedger()
    res = await viewer_fetch(
        site.url("/static/article.html"),
        "When was the company founded?",
        service=memory_service,
        evidence=ledger,
        model=model,
        settings=LOOPBACK_SETTINGS,
    )
    assert answer_of(res) == ("model", reply["answer"])
    assert "When was the company founded?" in model.prompts[0]
    assert ARTICLE_PARAGRAPHS[2] in model.prompts[0]
    quotes = evidence_of(res)
    assert [q.span for q in quotes] == [
        ARTICLE_PARAGRAPHS[0],
        "By 1995 the company ran twelve shops",
    ]
    assert "four sisters" not in text_of(res)
    assert "1 quote(s) not found in the page were dropped" in text_of(res)
    text, record = await stored(memory_service, res)
    for q in quotes:
        assert text[q.start : q.end] == q.span
    assert len(ledger) == 2 and len(record.evidence) == 2
    assert sorted(e.id for e in ledger.items()) == sorted(q.id for q in quotes)


async def test_model_failure_falls_back_to_bm25(site, memory_service):
    res = await viewer_fetch(
        site.url("/static/article.html"),
        "When was the company founded?",
        service=memory_service,
        model=BrokenModel(),
        settings=LOOPBACK_SETTINGS,
    )
    method, _ = answer_of(res)
    assert method == "bm25 (the model failed: provider down)"
    assert evidence_of(res)[0].span == ARTICLE_PARAGRAPHS[0]


async def test_a_page_read_earlier_in_the_run_is_served_from_its_stored_copy(site, memory_service):
    ledger = EvidenceLedger()
    url = site.url("/static/article.html")
    first = await viewer_fetch(
        url, service=memory_service, evidence=ledger, settings=LOOPBACK_SETTINGS
    )
    hits = len(site.hits)
    again = await viewer_fetch(
        url + "#history",  # another spelling of the same address
        "When was the company founded?",
        service=memory_service,
        evidence=ledger,
        settings=LOOPBACK_SETTINGS,
    )
    assert len(site.hits) == hits and ledger.pages.fetched == [url]
    assert "Already read in this run: served from the stored copy" in text_of(again)
    assert stored_path(again) == stored_path(first)
    quotes = evidence_of(again)
    assert quotes[0].span == ARTICLE_PARAGRAPHS[0]
    assert [e.id for e in ledger.items()] == [q.id for q in quotes]
    _, record = await stored(memory_service, again)
    assert [e["id"] for e in record.evidence] == [q.id for q in quotes]


# --- http_download --------------------------------------------------------------------


async def test_download_saves_file_with_type_and_size(site, disk_service):
    res = await http_download(
        site.url("/download/table.csv"),
        "/workspace/downloads/t.csv",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    url = site.url("/download/table.csv")
    assert text_of(res) == f"Saved {url} to /workspace/downloads/t.csv (26 bytes, text/csv)."
    assert res.metadata == {
        "status": "ok",
        "paths": ["/workspace/downloads/t.csv"],
        "evidence_ids": [],
        "reason": "",
    }
    assert (
        await disk_service.read_text("/workspace/downloads/t.csv")
        == "year,shops\n1987,1\n1995,12\n"
    )


async def test_a_file_downloaded_earlier_in_the_run_is_not_fetched_again(site, disk_service):
    ledger = EvidenceLedger()
    url = site.url("/download/table.csv")
    first = await http_download(
        url,
        "/workspace/downloads/t.csv",
        service=disk_service,
        evidence=ledger,
        settings=LOOPBACK_SETTINGS,
    )
    assert first.metadata["status"] == "ok", text_of(first)
    hits = len(site.hits)
    again = await http_download(
        url,
        "/workspace/downloads/copy.csv",
        service=disk_service,
        evidence=ledger,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(again) == (
        f"Already downloaded in this run: {url} is at /workspace/downloads/t.csv "
        "(not fetched again)."
    )
    assert again.metadata["paths"] == ["/workspace/downloads/t.csv"]
    assert len(site.hits) == hits
    assert not await disk_service.exists("/workspace/downloads/copy.csv")


async def test_download_over_the_cap_without_length_leaves_nothing(site, disk_service, monkeypatch):
    monkeypatch.setattr(download, "MAX_DOWNLOAD_BYTES", 1024 * 1024)
    await disk_service.write_text("/workspace/downloads/keep.bin", "old content")
    res = await http_download(
        site.url("/download/endless"),
        "/workspace/downloads/keep.bin",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error:") and "1 MiB" in text_of(res)
    assert await disk_service.read_text("/workspace/downloads/keep.bin") == "old content"
    names = [e.path for e in await disk_service.list_dir("/workspace/downloads/")]
    assert names == ["/workspace/downloads/keep.bin"]


async def test_download_with_declared_huge_length_is_refused(site, disk_service):
    res = await http_download(
        site.url("/download/huge-declared"),
        "/workspace/downloads/h.bin",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert "larger than the 50 MiB download limit" in text_of(res)
    assert not await disk_service.exists("/workspace/downloads/h.bin")


async def test_download_cut_short_leaves_no_partial_file(site, disk_service):
    res = await http_download(
        site.url("/download/short"),
        "/workspace/downloads/s.pdf",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert res.metadata["status"] == "unavailable" and "nothing was saved" in text_of(res)
    assert res.metadata["paths"] == []
    assert not await disk_service.exists("/workspace/downloads/s.pdf")
    assert not await disk_service.exists("/workspace/downloads/")


async def test_download_redirect_to_private_address_is_refused(site, trap, disk_service):
    res = await http_download(
        site.url("/download/via-redirect"),
        "/workspace/downloads/x.bin",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error: refused")
    assert trap.hits == []
    assert not await disk_service.exists("/workspace/downloads/x.bin")


async def test_download_only_into_writable_paths(site, disk_service):
    before = len(site.hits)
    res = await http_download(
        site.url("/download/table.csv"),
        "/userinput/t.csv",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error:")
    res = await http_download(
        site.url("/download/table.csv"),
        "downloads/t.csv",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error:")
    assert len(site.hits) == before


async def test_allowlist_network_mode_refuses_every_other_host(site, memory_service):
    only_loopback = ToolSettings(network=NetworkPolicy.parse("127.0.0.1,localhost", only=True))
    res = await viewer_fetch(
        site.url("/static/article.html"), service=memory_service, settings=only_loopback
    )
    assert not text_of(res).startswith("Error"), text_of(res)  # 127.0.0.1 is listed
    only = NetworkPolicy.parse("127.0.0.1", only=True)
    for public in ("http://93.184.216.34/", "https://1.1.1.1/x"):
        with pytest.raises(BlockedURLError, match="limited to the hosts"):
            await check_url(public, only)
    assert await check_url("http://93.184.216.34/", NetworkPolicy.parse("", only=False))
