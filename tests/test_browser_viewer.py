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

from subagents.browser import download
from subagents.browser.download import http_download
from subagents.browser.netguard import AllowList, BlockedURLError, check_url
from subagents.browser.session import BrowserSession
from subagents.browser.viewer import SHOW_CHARS, viewer_fetch
from subagents.evidence import EvidenceLedger, PageRecord, sidecar_path
from subagents.results import text_of

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
    session = BrowserSession()
    try:
        yield session
    finally:
        await session.aclose()


@pytest.fixture(autouse=True)
def allow_loopback(monkeypatch):
    monkeypatch.setenv("QUARTET_ALLOW_HOSTS", "127.0.0.1,localhost")


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


async def stored(service, meta) -> tuple[str, PageRecord]:
    text = await service.read_text(meta["markdown_path"])
    record = PageRecord.from_json(await service.read_text(sidecar_path(meta["markdown_path"])))
    return text, record


# --- the HTTP tier and the quality gate ---------------------------------------------


async def test_static_page_is_read_over_http_with_tables_links_and_a_sidecar(
    site, browser, disk_service
):
    url = site.url("/static/article.html")
    res = await viewer_fetch(url, service=disk_service, browser=browser)
    out = text_of(res)
    assert res.metadata["url"] == url and res.metadata["tier"] == "http"
    assert "http tier, trafilatura extractor" in out
    assert ARTICLE_PARAGRAPHS[0] in out
    assert "| 1995 | 12 |" in out
    assert f"({site.url('/static/harvest.html')})" in out
    assert "Subscribe to our newsletter" not in out and "All rights reserved" not in out
    path = res.metadata["markdown_path"]
    assert path.startswith("/workspace/pages/127-0-0-1-static-article-html-") and path.endswith(
        ".md"
    )
    text, record = await stored(disk_service, res.metadata)
    assert text in out
    assert record.url == url and record.final_url == url and record.tier == "http"
    assert record.extractor == "trafilatura" and record.title == "Quartet Tea Company — History"
    assert record.content_type.startswith("text/html")
    import hashlib

    assert record.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert datetime.fromisoformat(record.fetched_at).utcoffset().total_seconds() == 0
    assert not any("Chrome" in ua for p, ua in site.hits if p == "/static/article.html")


async def test_js_rendered_page_goes_to_the_chromium_tier(site, browser, memory_service):
    res = await viewer_fetch(site.url("/js/app.html"), service=memory_service, browser=browser)
    out = text_of(res)
    assert res.metadata["tier"] == "chromium", out
    assert "a script-only shell" in out
    assert JS_SECRET in out
    text, record = await stored(memory_service, res.metadata)
    assert JS_SECRET in text and record.tier == "chromium"
    assert any("HeadlessChrome" in ua for p, ua in site.hits if p == "/js/app.html")


async def test_text_loaded_by_fetch_after_load_is_waited_for(site, browser, memory_service):
    res = await viewer_fetch(site.url("/js/fetch.html"), service=memory_service, browser=browser)
    assert res.metadata["tier"] == "chromium"
    assert all(p in text_of(res) for p in STORY)


async def test_403_for_plain_clients_is_read_by_the_browser(site, browser, memory_service):
    res = await viewer_fetch(
        site.url("/members/notes.html"), service=memory_service, browser=browser
    )
    out = text_of(res)
    assert res.metadata["tier"] == "chromium" and "HTTP status 403" in out
    assert FORBIDDEN_TEXT in out


async def test_403_everywhere_is_unavailable(site, browser, memory_service):
    res = await viewer_fetch(site.url("/status/403.html"), service=memory_service, browser=browser)
    assert res.metadata["unavailable"] is True
    assert "403" in text_of(res)
    assert await memory_service.exists("/workspace/pages/") is False


async def test_404_is_an_error_the_model_can_act_on(site, memory_service):
    res = await viewer_fetch(site.url("/status/404.html"), service=memory_service)
    assert text_of(res).startswith("Error:") and "404" in text_of(res)
    assert not (res.metadata or {}).get("unavailable")


async def test_without_a_browser_a_js_shell_is_kept_with_a_note(site, memory_service):
    res = await viewer_fetch(site.url("/js/fetch.html"), service=memory_service, browser=None)
    assert res.metadata["tier"] == "http"
    assert "no browser" in text_of(res)


async def test_redirect_chain_is_followed_to_the_final_page(site, memory_service):
    before = len(site.hits)
    res = await viewer_fetch(site.url("/redirect/1"), service=memory_service)
    assert res.metadata["url"] == site.url("/static/article.html")
    assert f"(from {site.url('/redirect/1')})" in text_of(res)
    assert site.paths()[before:] == [
        "/redirect/1",
        "/redirect/2",
        "/redirect/3",
        "/static/article.html",
    ]
    _, record = await stored(memory_service, res.metadata)
    assert record.url == site.url("/redirect/1") and record.final_url == res.metadata["url"]


async def test_redirect_loop_stops(site, memory_service):
    res = await viewer_fetch(site.url("/redirect/loop"), service=memory_service)
    assert "more than 10 redirects" in text_of(res)


async def test_very_large_page_is_cut_bounded_and_stored(site, memory_service):
    res = await viewer_fetch(site.url("/big.html"), service=memory_service)
    out = text_of(res)
    assert "was cut" in out
    assert "more characters not shown" in out and "The full text is stored at" in out
    assert len(out) < SHOW_CHARS + 2000
    text, _ = await stored(memory_service, res.metadata)
    assert len(text) > 1_000_000 and "Section 9000:" in text


async def test_plain_text_is_kept_and_binary_is_sent_to_http_download(site, memory_service):
    res = await viewer_fetch(site.url("/static/notes.txt"), service=memory_service)
    assert "steep green tea at 80 degrees" in text_of(res)
    _, record = await stored(memory_service, res.metadata)
    assert record.extractor == "plain"
    res = await viewer_fetch(site.url("/static/image.png"), service=memory_service)
    assert text_of(res).startswith("Error:") and "http_download" in text_of(res)


# --- the network guard --------------------------------------------------------------


async def test_redirect_to_another_loopback_address_is_refused_before_connecting(
    site, trap, memory_service
):
    res = await viewer_fetch(site.url("/escape/loopback"), service=memory_service)
    assert text_of(res).startswith("Error: refused") and "127.0.0.2" in text_of(res)
    assert trap.hits == []


@pytest.mark.parametrize(
    ("path", "address"),
    [("/escape/metadata", "169.254.169.254"), ("/escape/private", "10.0.0.1")],
)
async def test_redirect_to_private_addresses_is_refused(site, memory_service, path, address):
    res = await viewer_fetch(site.url(path), service=memory_service)
    assert text_of(res).startswith("Error: refused") and address in text_of(res)
    assert await memory_service.exists("/workspace/pages/") is False


async def test_redirect_to_another_scheme_is_refused(site, memory_service):
    res = await viewer_fetch(site.url("/escape/scheme"), service=memory_service)
    assert "only http and https" in text_of(res)


async def test_loopback_is_refused_unless_allowed(site, memory_service, monkeypatch):
    monkeypatch.delenv("QUARTET_ALLOW_HOSTS")
    before = len(site.hits)
    res = await viewer_fetch(site.url("/static/article.html"), service=memory_service)
    assert text_of(res).startswith("Error: refused")
    assert len(site.hits) == before


async def test_check_url_rules():
    none = AllowList.from_env("")
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
    cidr = AllowList.from_env("10.0.0.0/8, intranet.example")
    assert await check_url("http://10.1.2.3/", cidr)
    assert await check_url("http://intranet.example/", cidr)
    with pytest.raises(BlockedURLError):
        await check_url("http://11.0.0.1.invalid/", cidr)


async def test_browser_requests_are_guarded_too(site, trap, monkeypatch):
    from subagents.browser.automation import browser_navigate

    session = BrowserSession()
    try:
        res = await browser_navigate(site.url("/escape/page-with-trap.html"), browser=session)
        assert not text_of(res).startswith("Error"), text_of(res)
        page = await session.page()
        await page.wait_for_load_state("networkidle")
    finally:
        await session.aclose()
    assert trap.hits == []
    assert any("/beacon" in b for b in session.blocked)
    assert any("/escape/loopback" in b for b in session.blocked)


# --- answering with evidence ----------------------------------------------------------


@pytest.mark.parametrize("path", ["/zh/longjing.html", "/zh/longjing-gbk.html"])
async def test_chinese_page_bm25_answer_with_verified_spans(site, memory_service, path):
    ledger = EvidenceLedger()
    res = await viewer_fetch(
        site.url(path), "龙井茶的采摘时间是什么时候？", service=memory_service, evidence=ledger
    )
    meta = res.metadata
    assert "龙井茶简介" in text_of(res)
    assert meta["evidence"][0]["span"] == ZH_PARAGRAPHS[1]
    text, record = await stored(memory_service, meta)
    for item in meta["evidence"]:
        assert set(item) == {"url", "span", "start", "end"}
        assert text[item["start"] : item["end"]] == item["span"]
    assert ZH_PARAGRAPHS[1] in meta["answer"]
    assert [e.public() for e in ledger.items()] == meta["evidence"]
    assert [e["span"] for e in record.evidence] == [e["span"] for e in meta["evidence"]]
    assert all(e["id"].startswith("ev-") for e in record.evidence)


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
    )
    meta = res.metadata
    assert meta["answer"] == reply["answer"]
    assert "When was the company founded?" in model.prompts[0]
    assert ARTICLE_PARAGRAPHS[2] in model.prompts[0]
    spans = [e["span"] for e in meta["evidence"]]
    assert spans == [ARTICLE_PARAGRAPHS[0], "By 1995 the company ran twelve shops"]
    assert "four sisters" not in text_of(res)
    assert "1 quote(s) not found in the page were dropped" in text_of(res)
    text, record = await stored(memory_service, meta)
    for item in meta["evidence"]:
        assert text[item["start"] : item["end"]] == item["span"]
    assert len(ledger) == 2 and len(record.evidence) == 2


async def test_model_failure_falls_back_to_bm25(site, memory_service):
    res = await viewer_fetch(
        site.url("/static/article.html"),
        "When was the company founded?",
        service=memory_service,
        model=BrokenModel(),
    )
    assert "bm25 (the model failed: ConnectionError)" in text_of(res)
    assert res.metadata["evidence"][0]["span"] == ARTICLE_PARAGRAPHS[0]


# --- http_download --------------------------------------------------------------------


async def test_download_saves_file_with_type_and_size(site, disk_service):
    res = await http_download(
        site.url("/download/table.csv"), "/workspace/downloads/t.csv", service=disk_service
    )
    assert res.metadata == {
        "path": "/workspace/downloads/t.csv",
        "bytes": 26,
        "content_type": "text/csv",
    }
    assert (
        await disk_service.read_text("/workspace/downloads/t.csv")
        == "year,shops\n1987,1\n1995,12\n"
    )


async def test_download_over_the_cap_without_length_leaves_nothing(site, disk_service, monkeypatch):
    monkeypatch.setattr(download, "MAX_DOWNLOAD_BYTES", 1024 * 1024)
    await disk_service.write_text("/workspace/downloads/keep.bin", "old content")
    res = await http_download(
        site.url("/download/endless"), "/workspace/downloads/keep.bin", service=disk_service
    )
    assert text_of(res).startswith("Error:") and "1 MiB" in text_of(res)
    assert await disk_service.read_text("/workspace/downloads/keep.bin") == "old content"
    names = [e.path for e in await disk_service.list_dir("/workspace/downloads/")]
    assert names == ["/workspace/downloads/keep.bin"]


async def test_download_with_declared_huge_length_is_refused(site, disk_service):
    res = await http_download(
        site.url("/download/huge-declared"), "/workspace/downloads/h.bin", service=disk_service
    )
    assert "larger than the 50 MiB download limit" in text_of(res)
    assert not await disk_service.exists("/workspace/downloads/h.bin")


async def test_download_cut_short_leaves_no_partial_file(site, disk_service):
    res = await http_download(
        site.url("/download/short"), "/workspace/downloads/s.pdf", service=disk_service
    )
    assert res.metadata["unavailable"] is True and "nothing was saved" in text_of(res)
    assert not await disk_service.exists("/workspace/downloads/s.pdf")
    assert not await disk_service.exists("/workspace/downloads/")


async def test_download_redirect_to_private_address_is_refused(site, trap, disk_service):
    res = await http_download(
        site.url("/download/via-redirect"), "/workspace/downloads/x.bin", service=disk_service
    )
    assert text_of(res).startswith("Error: refused")
    assert trap.hits == []
    assert not await disk_service.exists("/workspace/downloads/x.bin")


async def test_download_only_into_writable_paths(site, disk_service):
    before = len(site.hits)
    res = await http_download(
        site.url("/download/table.csv"), "/userinput/t.csv", service=disk_service
    )
    assert text_of(res).startswith("Error:")
    res = await http_download(
        site.url("/download/table.csv"), "downloads/t.csv", service=disk_service
    )
    assert text_of(res).startswith("Error:")
    assert len(site.hits) == before


async def test_allowlist_network_mode_refuses_every_other_host(site, memory_service, monkeypatch):
    monkeypatch.setenv("QUARTET_NETWORK", "allowlist")
    res = await viewer_fetch(site.url("/static/article.html"), service=memory_service)
    assert not text_of(res).startswith("Error"), text_of(res)  # 127.0.0.1 is listed
    only = AllowList.from_env("127.0.0.1", only=True)
    for public in ("http://93.184.216.34/", "https://1.1.1.1/x"):
        with pytest.raises(BlockedURLError, match="limited to the hosts"):
            await check_url(public, only)
    assert await check_url("http://93.184.216.34/", AllowList.from_env("", only=False))
