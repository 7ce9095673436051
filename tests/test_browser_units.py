"""Pure parts of the Browser: quality gate, extraction fallback, tokens and BM25."""

from __future__ import annotations

import asyncio
import re

import pytest
from browser_sites import ARTICLE_PARAGRAPHS

from research.text import terms
from subagents.browser.evidence import answer_bm25, sentences
from subagents.browser.extract import html_to_markdown
from subagents.browser.hooks import normalise_text
from subagents.browser.tiers import decode, media_kind, quality_gate


def test_quality_gate_reasons():
    article = html_to_markdown(
        "<html><body><article>" + "<p>A full paragraph of real text here.</p>" * 20
    )
    assert quality_gate(200, article, "") is None
    assert quality_gate(429, article, "") == "HTTP status 429"
    assert quality_gate(202, article, "") == "HTTP status 202"
    challenge = "<html><head><title>Just a moment...</title></head><body><p>Checking your browser before accessing the site.</p></body></html>"  # noqa: E501
    assert quality_gate(200, html_to_markdown(challenge), challenge) == "a challenge page"
    shell = '<html><body><div id="app"></div><script>' + "x();" * 300 + "</script></body></html>"
    assert quality_gate(200, html_to_markdown(shell), shell) == "a script-only shell"
    tiny = "<html><body><p>Hi.</p></body></html>"
    assert quality_gate(200, html_to_markdown(tiny), tiny) == "too little text"


def test_markdownify_fallback_strips_boilerplate():
    html = (
        "<html><body><header>Site header</header><nav>Menu</nav><ul>"
        + "".join(f"<li><a href='/p{i}'>Product {i}</a></li>" for i in range(10))
        + "</ul><aside>Ads</aside><footer>Foot</footer><script>evil()</script></body></html>"
    )
    page = html_to_markdown(html, "http://example.org/")
    assert page.extractor == "markdownify"
    assert "[Product 7](http://example.org/p7)" in page.markdown
    for gone in ("Site header", "Menu", "Ads", "Foot", "evil"):
        assert gone not in page.markdown


def test_terms_and_sentences():
    """The Browser reads a page with the research core's terms and sentences: Chinese cut
    into words, stop words dropped, a heading and a table row no sentence."""
    assert "采摘" in terms("龙井茶的采摘时间")
    assert terms("When was the Company founded?") == terms("company founded")
    assert len(terms("company founded")) == 2
    text = (
        "# Title line here\n\nFirst sentence is here. Second one follows! 第三句在这里。第四句。"
        "\n\nA paragraph wrapped\nover two lines ends here.\n- A list item of its own\n"
        "| a table | row |\n"
    )
    got = [text[s:e] for s, e in sentences(text)]
    assert got == [
        "First sentence is here.",
        "Second one follows!",
        "第三句在这里。",
        "第四句。",
        "A paragraph wrapped\nover two lines ends here.",
        "A list item of its own",
    ]


def test_bm25_english_prefers_the_matching_sentence():
    text = "\n\n".join(ARTICLE_PARAGRAPHS)
    ans = answer_bm25(text, "When was the company founded?", "http://x/", "/workspace/pages/x.md")
    assert ans.items[0].span == ARTICLE_PARAGRAPHS[0]
    assert text[ans.items[0].start : ans.items[0].end] == ARTICLE_PARAGRAPHS[0]


def test_decode_charsets():
    text = "龙井茶"
    assert decode(text.encode("gbk"), "text/html; charset=gbk") == text
    assert decode(b'<meta charset="gb2312">' + text.encode("gb2312"), "text/html").endswith(text)
    assert decode(text.encode("utf-8"), "text/html") == text
    assert decode(text.encode("gb18030"), "text/html") == text


def test_media_kind():
    assert media_kind("text/html; charset=utf-8") == "html"
    assert media_kind("") == "html"
    assert media_kind("application/json") == "text"
    assert media_kind("application/ld+json") == "text"
    assert media_kind("text/csv") == "text"
    assert media_kind("application/pdf") == "binary"


def test_normalise_text():
    assert normalise_text("a\x00b\r\n\n\n\n c\x07") == "ab\n\n c"
    long = normalise_text("x" * 30_000, limit=100)
    assert long.startswith("x" * 100) and "more characters not shown" in long


def test_relative_links_resolve_against_the_page_not_the_site_root():
    from subagents.browser.extract import html_to_markdown

    body = "<p>" + "Canals carried grain north for centuries. " * 8
    body += 'Read <a href="b.html">the next page</a>, <a href="../docs/r.pdf">the report</a>'
    body += ' and <a href="/top.html">the index</a>.</p>'
    html = f"<html><head><title>T</title></head><body><main>{body}</main></body></html>"
    links = re.findall(r"\]\(([^)]*)\)", html_to_markdown(html, "http://h:1/en/a.html").markdown)
    assert links == ["http://h:1/en/b.html", "http://h:1/docs/r.pdf", "http://h:1/top.html"]


def test_links_follow_a_base_element_and_absolute_ones_stay_as_written():
    body = "<p>" + "Canals carried grain north for centuries. " * 8
    body += 'See <a href="b.html">the next page</a>, <a href="https://other.org/x?a=1">another'
    body += ' site</a> and <a href="HTTP://h:1/Up.html">a shouted one</a>.</p>'
    html = (
        '<html><head><title>T</title><base href="/docs/v2/"></head>'
        f"<body><main>{body}</main></body></html>"
    )
    links = re.findall(r"\]\(([^)]*)\)", html_to_markdown(html, "http://h:1/en/a.html").markdown)
    assert links == ["http://h:1/docs/v2/b.html", "https://other.org/x?a=1", "http://h:1/Up.html"]


def _story(words: str) -> str:
    return "".join(f"<p>{words} Sentence {i} of the report goes on a while.</p>" for i in range(6))


def test_a_page_laid_out_in_a_table_reads_as_paragraphs_and_data_tables_stay_tables():
    article = _story("The lock at Huai'an lifted boats four metres.")
    sidebar = "".join(f'<p><a href="/n/{i}.html">Top story number {i}</a></p>' for i in range(8))
    data = (
        "<table><tr><td>Year</td><td>Boats</td></tr><tr><td>1411</td><td>3,000</td></tr>"
        "<tr><td>1500</td><td>9,000</td></tr></table>"
    )
    html = (
        "<html><head><title>T</title></head><body><table><tr><td>"
        f"<h1>Locks</h1>{article}{data}</td></tr><tr><td>{sidebar}</td></tr></table></body></html>"
    )
    markdown = html_to_markdown(html, "http://h:1/a.html").markdown
    lines = markdown.splitlines()
    # The article is paragraphs, not one cell of a Markdown table.
    assert any(line.startswith("The lock at Huai'an") for line in lines)
    assert not any(line.startswith("|") and "Huai'an" in line for line in lines)
    # The data table inside the layout table is still a table.
    assert any(line.startswith("|") and "1411" in line and "3,000" in line for line in lines)


def test_tables_marked_as_layout_or_with_a_header_keep_their_kind():
    from lxml.html import fragment_fromstring

    from subagents.browser.extract import is_layout_table

    def table(html: str):
        return fragment_fromstring(html)

    one_row = "<table><tr><td>a</td><td>b</td></tr></table>"
    one_row_head = "<table><tr><th>a</th><th>b</th></tr></table>"
    grid = "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>"
    column = "<table><tr><td>a</td></tr><tr><td>b</td></tr></table>"
    nested = f"<table><tr><td>{grid}</td><td>x</td></tr><tr><td>y</td><td>z</td></tr></table>"
    role = '<table role="presentation">' + one_row_head[7:]
    assert is_layout_table(table(one_row))
    assert not is_layout_table(table(one_row_head))
    assert not is_layout_table(table(grid))
    assert is_layout_table(table(column))
    assert is_layout_table(table(nested))
    assert is_layout_table(table(role))


def test_a_browser_step_without_a_timeout_of_its_own_is_bounded(monkeypatch):
    """Opening a page or closing one has no Playwright timeout: a stuck Chromium must not
    hold a task until its stage timeout."""
    from subagents.browser import session

    monkeypatch.setattr(session, "STEP_TIMEOUT_S", 0.05)

    async def steps() -> None:
        with pytest.raises(session.BrowserUnavailableError, match="did not open a page"):
            await session._bounded(asyncio.Event().wait(), "open a page")
        assert await session._quiet(asyncio.Event().wait()) is None  # cleanup goes on

    asyncio.run(asyncio.wait_for(steps(), 60))
