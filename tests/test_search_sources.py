"""Each search tool against loopback engines speaking the real wire formats: results, no
results, and every failure class (timeout, HTTP error, 429, consent, CAPTCHA, malformed)."""

from __future__ import annotations

import asyncio
import inspect
import time
from urllib.parse import urlsplit

import pytest
from search_support import CASES, CORPUS, settings_for, text

from demo.search_web import Document, SearchWeb
from subagents import all_schemas, schema_toolkit
from subagents.search.render import result_list
from subagents.search.tools import (
    TOOLS,
    search_bing,
    search_github,
    search_google,
    search_sogou,
    search_wiki,
)


@pytest.fixture(scope="module")
def web():
    with SearchWeb(CORPUS, google_key="g", google_cx="c", bing_key="b", github_token="t") as server:
        yield server


@pytest.fixture(autouse=True)
def fresh(web):
    web.clear()
    yield


@pytest.fixture
def plain(web):
    """Every source aimed at the loopback engines, no keys."""
    return settings_for(web)


def rows_of(response) -> list[dict]:
    assert response.metadata["status"] == "ok", text(response)
    rows = result_list(text(response))
    assert isinstance(rows, list), text(response)
    return rows


def unavailable_reason(response) -> str:
    """The reason of an unavailable result, which its text repeats (and follows with
    advice for the model, which the reason leaves out)."""
    assert response.metadata["status"] == "unavailable", text(response)
    reason = response.metadata["reason"]
    assert text(response).startswith(f"Error: unavailable: {reason.rstrip('.')}")
    assert "try another" not in reason
    return reason


# -- success per source and mode ---------------------------------------------------------
@pytest.mark.parametrize("case", sorted(CASES))
async def test_every_mode_returns_the_corpus_hits(web, case):
    tool, keys, route = CASES[case]
    rows = rows_of(await tool("solar electricity", settings=settings_for(web, keys)))
    assert rows[0]["source"] == tool.__name__
    titles = [r["title"] for r in rows]
    assert any("olar" in t for t in titles), titles
    assert all(list(r) == ["title", "url", "snippet", "source"] for r in rows)
    assert all(r["url"].startswith("https://") for r in rows)
    assert len(web.requests_to(route)) >= 1
    urls = [r["url"] for r in rows]
    assert len(urls) == len(set(urls))


async def test_google_page_parses_real_markup_and_drops_duplicates(web, plain):
    rows = rows_of(await search_google("solar power", settings=plain))
    urls = [r["url"] for r in rows]
    assert urls[0] == "https://en.wikipedia.org/wiki/Solar_power"
    assert "http://www.en.wikipedia.org/wiki/Solar_power/#history" not in urls  # same page
    assert not any("/search" in urlsplit(u).path for u in urls)  # "related searches" link
    assert "sunlight into electricity" in rows[0]["snippet"]
    assert web.requests_to("google-api") == []


async def test_google_api_sends_key_in_header_and_cx_in_query(web):
    keyed = settings_for(web, {"GOOGLE_API_KEY": "g", "GOOGLE_CSE_ID": "c"})
    rows = rows_of(await search_google("wind", settings=keyed))
    assert rows[0]["title"] == "Wind power"
    (req,) = web.requests_to("google-api")
    assert req.headers["x-goog-api-key"] == "g"
    assert "key" not in req.query and req.query["cx"] == ["c"]
    assert web.requests_to("google-page") == []


async def test_google_api_rejection_is_unavailable_with_the_reason(web):
    keyed = settings_for(web, {"GOOGLE_API_KEY": "wrong-key-value", "GOOGLE_CSE_ID": "c"})
    response = await search_google("wind", settings=keyed)
    reason = unavailable_reason(response)
    assert "HTTP 400" in reason and "API key not valid" in reason
    assert "wrong-key-value" not in text(response)


async def test_bing_page_decodes_click_tracking_links(plain):
    rows = rows_of(await search_bing("power", settings=plain))
    assert len(rows) >= 2
    assert not any("bing.com" in r["url"] for r in rows)
    assert "WEB" not in rows[0]["snippet"]  # the slug icon is not snippet text


async def test_bing_api_sends_key_only_in_its_header(web):
    rows = rows_of(
        await search_bing("wind turbines", settings=settings_for(web, {"BING_API_KEY": "b"}))
    )
    assert rows[0]["url"] == "https://en.wikipedia.org/wiki/Wind_power"
    (req,) = web.requests_to("bing-api")
    assert req.headers["ocp-apim-subscription-key"] == "b"
    assert "b" not in req.query.get("q", [])


async def test_bing_api_wrong_key_is_unavailable(web):
    response = await search_bing(
        "wind", settings=settings_for(web, {"BING_API_KEY": "not-the-key"})
    )
    assert "HTTP 401" in unavailable_reason(response)
    assert "not-the-key" not in text(response)


async def test_sogou_resolves_redirect_links(web, plain):
    rows = rows_of(
        await search_sogou("power", settings=plain)
    )  # three blocks, two of them the same page
    assert [r["url"] for r in rows] == [CORPUS[0].url, CORPUS[1].url]
    # data-url carries the target of odd blocks; the even ones need their redirect page
    assert len(web.requests_to("sogou-link")) == 2


async def test_sogou_keeps_the_redirect_when_it_cannot_be_read(web, plain):
    web.fault("sogou-link", "error")
    rows = rows_of(await search_sogou("power", settings=plain))
    assert any(urlsplit(r["url"]).path.endswith("/sogou/link") for r in rows)
    assert any(r["url"].startswith("https://en.wikipedia.org") for r in rows)


async def test_sogou_chinese_query(plain):
    rows = rows_of(await search_sogou("长江三角洲", settings=plain))
    assert rows[0]["title"] == "长江三角洲"
    assert "冲积平原" in rows[0]["snippet"]


async def test_github_repositories_by_default_without_authorization(web, plain):
    rows = rows_of(await search_github("agentscope", settings=plain))
    assert rows[0]["title"] == "agentscope-ai/agentscope"
    assert rows[0]["url"] == "https://github.com/agentscope-ai/agentscope"
    assert "★" in rows[0]["snippet"]
    (req,) = web.requests_to("github")
    assert req.target.startswith("/github/search/repositories?")
    assert "authorization" not in req.headers
    assert req.headers["x-github-api-version"] == "2022-11-28"


async def test_github_code_needs_a_token(plain):
    response = await search_github("code: MsgHub", settings=plain)
    assert "GITHUB_TOKEN" in unavailable_reason(response)


async def test_github_code_with_token_uses_bearer_and_text_matches(web):
    rows = rows_of(
        await search_github("code: MsgHub", settings=settings_for(web, {"GITHUB_TOKEN": "t"}))
    )
    assert rows[0]["title"] == "agentscope-ai/agentscope: README.md"
    assert "MsgHub" in rows[0]["snippet"]
    (req,) = web.requests_to("github")
    assert req.target.startswith("/github/search/code?")
    assert req.headers["authorization"] == "Bearer t"


async def test_github_issues_and_pull_requests(web, plain):
    rows = rows_of(await search_github("issues: wind", settings=plain))
    assert "issue, open" in rows[0]["title"] and "/issues/" in rows[0]["url"]
    assert web.requests_to("github")[-1].query["q"] == ["wind is:issue"]
    rows = rows_of(await search_github("prs: wind", settings=plain))
    assert "pull request" in rows[0]["title"] and "/pull/" in rows[0]["url"]


async def test_github_enterprise_base_with_path(web):
    # only the GitHub base is set, with a trailing slash too
    enterprise = settings_for(web, endpoints={"github": web.urls["github"] + "/"})
    rows = rows_of(await search_github("wind", settings=enterprise))
    assert rows and web.requests_to("github")


async def test_wiki_returns_intro_extracts(web, plain):
    rows = rows_of(await search_wiki("solar power", settings=plain))
    assert rows[0]["url"] == "https://en.wikipedia.org/wiki/Solar_power"
    assert rows[0]["snippet"].startswith("Solar power is the conversion")
    assert "Photovoltaic cells" not in rows[0]["snippet"]  # intro only
    (req,) = web.requests_to("wiki")
    assert req.query["generator"] == ["search"] and req.query["exintro"] == ["1"]
    assert req.headers["user-agent"].startswith("Quartet/")


async def test_wiki_chinese():
    zh = [Document("长江", "https://zh.wikipedia.org/wiki/长江", "长江是亚洲第一长河。")]
    with SearchWeb(zh) as server:
        rows = rows_of(await search_wiki("长江", settings=settings_for(server, wiki_lang="zh")))
    assert rows == [
        {
            "title": "长江",
            "url": "https://zh.wikipedia.org/wiki/长江",
            "snippet": "长江是亚洲第一长河。",
            "source": "search_wiki",
        }
    ]


@pytest.mark.parametrize("case", sorted(CASES))
async def test_no_results_is_a_normal_answer(web, case):
    tool, keys, _ = CASES[case]
    response = await tool("qwxzzy", settings=settings_for(web, {**keys, "GITHUB_TOKEN": "t"}))
    assert response.metadata == {"status": "ok", "paths": [], "evidence_ids": [], "reason": ""}
    assert text(response).startswith(f"No results from {tool.__name__}")


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.__name__)
@pytest.mark.parametrize("query", ["", "   ", "x" * 1001])
async def test_bad_query_is_a_clear_error(web, plain, tool, query):
    response = await tool(query, settings=plain)
    assert text(response).startswith("Error: query is")
    assert response.metadata["status"] == "error"
    assert web.requests == []


def test_tools_take_only_query_and_work_across_event_loops(web, plain):
    for tool in TOOLS:  # the settings are injected; the model sees only the query
        assert list(inspect.signature(tool).parameters) == ["query", "settings"]
    for schema in all_schemas(schema_toolkit("search")):
        assert list(schema["function"]["parameters"]["properties"]) == ["query"]
    for _ in range(2):  # no client survives a call: a fresh loop each time works
        assert rows_of(asyncio.run(search_wiki("wind", settings=plain)))


# -- failures --------------------------------------------------------------------------
FAULTS = {
    "delay": "did not answer within",
    "error": "HTTP 500",
    "429": "429",
    "consent": "consent page",
    "captcha": "CAPTCHA page",
    "malformed": "malformed",
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("case", sorted(CASES))
async def test_each_failure_class_is_unavailable(web, case, fault):
    tool, keys, route = CASES[case]
    web.fault(route, fault, delay=5.0)
    started = time.perf_counter()
    response = await tool("solar", settings=settings_for(web, keys))
    assert time.perf_counter() - started < 3
    reason = unavailable_reason(response)
    expected = FAULTS[fault]
    if fault == "malformed" and route.endswith("page"):
        expected = "not a results page"
    assert expected in reason, reason
    assert reason.startswith(tool.__name__)
    assert text(response).startswith("Error: unavailable:")


@pytest.mark.parametrize("case", sorted(CASES))
async def test_429_once_is_retried(web, case):
    tool, keys, route = CASES[case]
    web.fault(route, "429", times=1, retry_after=0)
    assert rows_of(await tool("solar", settings=settings_for(web, keys)))
    assert len(web.requests_to(route)) == 2


async def test_retry_after_is_honoured(web, plain):
    web.fault("wiki", "429", times=1, retry_after=1)
    started = time.perf_counter()
    assert rows_of(await search_wiki("solar", settings=plain))
    assert time.perf_counter() - started >= 0.95


async def test_429_always_stops_after_one_retry(web, plain):
    web.fault("github", "429", retry_after=0)
    response = await search_github("solar", settings=plain)
    assert "after one retry" in unavailable_reason(response)
    assert len(web.requests_to("github")) == 2


async def test_long_retry_after_gives_up_at_once(web, plain):
    web.fault("bing-page", "429", retry_after=120)
    started = time.perf_counter()
    response = await search_bing("solar", settings=plain)
    assert time.perf_counter() - started < 1
    assert "asks to wait 120 s" in unavailable_reason(response)
    assert len(web.requests_to("bing-page")) == 1


async def test_unreachable_source_is_unavailable():
    with SearchWeb(CORPUS) as gone:
        settings = settings_for(gone)
    response = await search_wiki("solar", settings=settings)
    assert "could not reach" in unavailable_reason(response)


@pytest.mark.parametrize("tool", [search_google, search_bing, search_wiki])
async def test_result_with_an_unparseable_url_is_dropped_not_raised(tool):
    docs = [
        Document("Solar bad port", "http://example.com:port/solar", "Solar text one."),
        Document("Solar good", "https://example.org/solar", "Solar text two."),
    ]
    with SearchWeb(docs) as server:
        response = await tool("solar", settings=settings_for(server))
    rows = rows_of(response)
    assert [r["url"] for r in rows] == ["https://example.org/solar"]
