"""Search building blocks without a network: rendering, routing, parsing helpers, config."""

from __future__ import annotations

import base64
import email.utils
import time

import pytest

from subagents.search.http import blocked_page, retry_after_seconds
from subagents.search.providers import bing, github, google, wiki
from subagents.search.render import (
    MAX_RESULTS,
    SNIPPET_CHARS,
    Item,
    dedupe,
    normalise_url,
    render,
    result_list,
    shorten,
)
from subagents.secrets import scrub
from subagents.settings import DEFAULT_SEARCH_TIMEOUT, Keys, SettingsError, ToolSettings


def test_render_gives_exactly_four_keys_bounded_and_deduplicated():
    items = [Item(f"T{i}", f"https://example.org/p{i}", "word " * 200) for i in range(25)]
    items.insert(1, Item("dup", "http://www.EXAMPLE.org/p0/#top", "same page"))
    rows = result_list(render(items, "search_bing", "q"))
    assert len(rows) == MAX_RESULTS
    assert all(list(r) == ["title", "url", "snippet", "source"] for r in rows)
    assert all(r["source"] == "search_bing" for r in rows)
    assert all(len(r["snippet"]) <= SNIPPET_CHARS for r in rows)
    assert rows[0]["snippet"].endswith("…")
    assert [r["title"] for r in rows[:2]] == ["T0", "T1"]


def test_render_without_items_says_so():
    out = render([Item("x", "javascript:void(0)")], "search_wiki", "zzz")
    assert out.startswith("No results from search_wiki for 'zzz'")


def test_render_keeps_cjk_readable():
    out = render([Item("长江三角洲", "https://zh.wikipedia.org/wiki/长江三角洲", "平原")], "s", "q")
    assert "长江三角洲" in out


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("https://www.a.org/x/", "http://a.org/x#frag", True),
        ("https://a.org/x?utm_source=feed&b=2&a=1", "https://a.org/x?a=1&b=2", True),
        ("https://a.org:443/x", "https://a.org/x", True),
        ("https://a.org/x?id=1", "https://a.org/x?id=2", False),
        ("https://a.org/X", "https://a.org/x", False),
    ],
)
def test_normalise_url(a, b, same):
    assert (normalise_url(a) == normalise_url(b)) is same


def test_dedupe_drops_non_http_links():
    kept = dedupe([Item("a", "/relative"), Item("b", "ftp://x"), Item("c", "https://ok.org")])
    assert [i.title for i in kept] == ["c"]


def test_shorten_cuts_at_a_word():
    assert shorten("alpha beta gamma delta", 12) == "alpha beta…"
    assert shorten("  short\n text ", 50) == "short text"


@pytest.mark.parametrize(
    ("query", "kind", "q"),
    [
        ("vector database", "repositories", "vector database"),
        (
            "repo:agentscope-ai/agentscope stars:>10",
            "repositories",
            "repo:agentscope-ai/agentscope stars:>10",
        ),
        ("code: MsgHub repo:a/b", "code", "MsgHub repo:a/b"),
        ("CODE:MsgHub", "code", "MsgHub"),
        ("issues: memory leak", "issues", "memory leak is:issue"),
        ("prs: add retries", "issues", "add retries is:pr"),
        ("memory leak is:pr", "issues", "memory leak is:pr"),
        ("crash label:bug", "issues", "crash label:bug is:issue"),
        ("retry filename:http.py", "code", "retry filename:http.py"),
        ("repositories: fast json", "repositories", "fast json"),
    ],
)
def test_github_routing(query, kind, q):
    assert github.route(query) == github.Route(kind, q)


def test_retry_after_forms():
    assert retry_after_seconds("3") == 3.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after_seconds(future) <= 31


@pytest.mark.parametrize(
    ("url", "body", "kind"),
    [
        ("https://consent.google.com/ml?continue=x", "", "a consent page"),
        ("https://www.google.com/sorry/index?continue=x", "", "a CAPTCHA page"),
        ("http://www.sogou.com/antispider/?from=x", "", "a CAPTCHA page"),
        ("https://x.org/", '<form id="captcha-form">', "a CAPTCHA page"),
        ("https://x.org/", '<form action="https://consent.google.com/save">', "a consent page"),
        (
            "https://x.org/",
            "<a href='/httpservice/retry/enablejs'>",
            "a page that requires JavaScript",
        ),
        ("https://x.org/", "<html><body>plain page</body></html>", None),
    ],
)
def test_blocked_page_detector(url, body, kind):
    assert blocked_page(url, body) == kind


def test_google_and_bing_link_unwrapping():
    assert google.unwrap("https://www.google.com/url?q=https://a.org/x&sa=U") == "https://a.org/x"
    assert google.unwrap("https://a.org/url-less") == "https://a.org/url-less"
    token = base64.urlsafe_b64encode(b"https://b.org/page?x=1").decode().rstrip("=")
    assert bing.unwrap(f"https://www.bing.com/ck/a?!&&p=abc&u=a1{token}&ntb=1") == (
        "https://b.org/page?x=1"
    )
    assert bing.unwrap("https://www.bing.com/ck/a?u=zzz") == "https://www.bing.com/ck/a?u=zzz"


def test_wiki_endpoint_follows_language_and_base():
    def api(**env: str) -> tuple[str, str]:
        return wiki.api_url(ToolSettings.from_env(env))

    assert api() == ("https://en.wikipedia.org/w/api.php", "https://en.wikipedia.org")
    assert api(QUARTET_WIKI_LANG="zh")[0] == "https://zh.wikipedia.org/w/api.php"
    assert api(QUARTET_WIKI_LANG="zh", QUARTET_WIKI_URL="https://wiki.corp.example/") == (
        "https://wiki.corp.example/w/api.php",
        "https://wiki.corp.example",
    )
    assert api(QUARTET_WIKI_URL="https://wiki.corp.example/mw/api.php") == (
        "https://wiki.corp.example/mw/api.php",
        "https://wiki.corp.example/mw",
    )
    wikibooks = api(QUARTET_WIKI_LANG="zh", QUARTET_WIKI_URL="https://{lang}.wikibooks.org")
    assert wikibooks[0] == "https://zh.wikibooks.org/w/api.php"
    with pytest.raises(SettingsError, match="QUARTET_WIKI_LANG"):
        api(QUARTET_WIKI_LANG="zh;drop")


def test_settings_are_read_from_the_environment_once_not_at_call_time(monkeypatch):
    ghe = {"QUARTET_GITHUB_URL": "https://ghe.example.com/api/v3/"}
    assert ToolSettings.from_env(ghe).endpoint("github", "https://api.github.com") == (
        "https://ghe.example.com/api/v3"
    )
    assert ToolSettings.from_env({}).endpoint("github", "https://api.github.com") == (
        "https://api.github.com"
    )
    monkeypatch.setenv("QUARTET_GITHUB_URL", "https://ghe.example.com/")
    settings = ToolSettings.from_env()
    monkeypatch.delenv("QUARTET_GITHUB_URL")
    assert settings.endpoint("github", "https://api.github.com") == "https://ghe.example.com"
    assert ToolSettings.from_env({}).search_timeout == DEFAULT_SEARCH_TIMEOUT
    assert ToolSettings.from_env({"QUARTET_SEARCH_TIMEOUT": "2.5"}).search_timeout == 2.5
    for bad in ("nonsense", "0", "-1"):
        with pytest.raises(SettingsError, match="QUARTET_SEARCH_TIMEOUT"):
            ToolSettings.from_env({"QUARTET_SEARCH_TIMEOUT": bad})
    keys = ToolSettings.from_env({"BING_API_KEY": "  ", "HOME": "/root"}).keys
    assert keys.get_key("BING_API_KEY") is None and keys.get_key("HOME") is None
    assert "HOME" not in keys and len(keys) == 0


def test_keys_never_show_their_values():
    settings = ToolSettings(keys=Keys({"GITHUB_TOKEN": "ghp_canary_value_123"}))
    assert settings.keys.get_key("GITHUB_TOKEN") == "ghp_canary_value_123"
    assert "ghp_canary_value_123" not in repr(settings) + str(settings.keys)
    assert "GITHUB_TOKEN" in repr(settings.keys)


def test_scrub_replaces_every_key_value(monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_canary_value_123")
    assert scrub("Bearer ghp_canary_value_123 and again ghp_canary_value_123") == (
        "Bearer *** and again ***"
    )
    monkeypatch.delenv("GITHUB_TOKEN")
    assert scrub("Bearer bing_injected_key", ["bing_injected_key"]) == "Bearer ***"
