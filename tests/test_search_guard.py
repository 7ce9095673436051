"""The search sources obey the Browser's network guard and decode bodies under a cap.

A hostile engine on 127.0.0.1 (``attack_search``) is the configured endpoint of each
source: its own ``host:port`` may be reached, but redirects to another port, to
127.0.0.2 or to loopback by another spelling are refused, Sogou link pages elsewhere are
not fetched, and bombs cost a bounded amount of memory.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import pytest
from attack_search import (
    LEAK,
    REDIRECTS,
    SOGOU_LINKS,
    HostileEngine,
    allowing,
    bombs,
    google_results,
    sogou_results,
)
from attack_web import MiB, peak_memory, redirect_to
from browser_sites import page

from subagents.results import text_of
from subagents.search.http import exempting, search_policy
from subagents.search.tools import (
    search_bing,
    search_github,
    search_google,
    search_sogou,
    search_wiki,
)
from subagents.settings import NetworkPolicy, ToolSettings

REDIRECTING = [search_google, search_bing, search_wiki, search_github]
#: What one refused bomb may add to the process's peak memory.
BOMB_MEMORY = 256 * MiB


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileEngine]:
    with HostileEngine() as engine:
        yield engine


def reason(response) -> str:
    assert response.metadata["status"] == "unavailable", text_of(response)
    return response.metadata["reason"]


@pytest.mark.parametrize("target", sorted(REDIRECTS))
@pytest.mark.parametrize("tool", REDIRECTING, ids=lambda t: t.__name__)
async def test_a_redirect_to_an_internal_address_is_refused(hostile, tool, target):
    settings = hostile.redirecting(tool.__name__, REDIRECTS[target](hostile))
    before = hostile.reached()
    response = await tool("solar", settings=settings)
    assert "refused" in reason(response), reason(response)
    assert hostile.reached() == before
    assert LEAK not in text_of(response)


@pytest.mark.parametrize("name", sorted(SOGOU_LINKS))
async def test_a_sogou_link_page_elsewhere_is_never_read(hostile, name):
    before = hostile.reached()
    response = await search_sogou("solar", settings=hostile.sogou_linking(name))
    assert response.metadata["status"] == "ok", text_of(response)
    assert hostile.reached() == before
    assert LEAK not in text_of(response)


async def test_the_engines_own_link_page_is_still_resolved(hostile):
    target = "https://example.org/solar-target"
    links = page(f'<script>window.location.replace("{target}")</script>'.encode())
    settings = hostile.aim("search_sogou", page(sogou_results("/link?url=x")), links)
    response = await search_sogou("solar", settings=settings)
    assert target in text_of(response)


async def test_a_redirect_within_the_engine_is_followed(hostile):
    inner = hostile.hop_to("/unused")  # a route on the engine's own host and port
    hostile.engine.routes[inner.removeprefix(hostile.engine.base)] = page(google_results())
    settings = hostile.aim("search_google", redirect_to(inner))
    response = await search_google("solar", settings=settings)
    assert "https://example.org/solar" in text_of(response), text_of(response)


async def test_a_port_on_the_allow_list_is_reachable_as_it_is_for_the_browser(hostile):
    hostile.victim.routes["/listed/search"] = page(google_results("https://example.org/listed"))
    target = hostile.victim.url("/listed/search")
    settings = hostile.redirecting("search_google", target, network=allowing(hostile.victim.port))
    response = await search_google("solar", settings=settings)
    assert "https://example.org/listed" in text_of(response), text_of(response)


@pytest.mark.parametrize("name", sorted(bombs()))
@pytest.mark.parametrize("tool", [search_google, search_wiki], ids=lambda t: t.__name__)
async def test_a_bomb_or_an_oversized_answer_is_refused_in_bounded_memory(hostile, tool, name):
    settings = hostile.aim(tool.__name__, bombs()[name])
    with peak_memory() as peak:
        response = await tool("solar", settings=settings)
    assert "refused body" in reason(response), reason(response)
    assert peak.rss < BOMB_MEMORY and peak.python < BOMB_MEMORY


async def test_a_bomb_behind_a_sogou_link_costs_bounded_memory(hostile):
    links = bombs()["gzip, 1 MB → 1 GiB"]
    settings = hostile.aim("search_sogou", page(sogou_results("/link?url=x")), links)
    with peak_memory() as peak:
        response = await search_sogou("solar", settings=settings)
    assert response.metadata["status"] == "ok", text_of(response)
    assert peak.rss < BOMB_MEMORY and peak.python < BOMB_MEMORY


def test_the_search_policy_exempts_exactly_the_configured_endpoints():
    settings = ToolSettings(
        endpoints={
            "wiki": "http://{lang}.wiki.internal:8080/w/api.php",
            "google": "http://127.0.0.1:41001/google",
            "bing": "https://[::1]/bing",
            "sogou": "not a url",
        },
        wiki_lang="zh",
        network=NetworkPolicy.parse("10.0.0.0/8", only=True),
    )
    policy = search_policy(settings)
    assert policy.only and [str(n) for n in policy.networks] == ["10.0.0.0/8"]
    assert policy.host_ports == {("zh.wiki.internal", 8080)}
    loopback, v6 = ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")
    assert policy.address_allowed(loopback, 41001) and not policy.address_allowed(loopback, 41002)
    assert policy.address_allowed(v6, 443) and not policy.address_allowed(v6, 80)
    assert search_policy(None) == NetworkPolicy()
    assert exempting(NetworkPolicy(), []) == NetworkPolicy()


async def test_an_unreachable_source_tells_the_model_what_to_do_and_people_only_why():
    """The model reads advice ("try another search tool"); the envelope's reason, which
    a report's "What failed" shows people, is the cause alone."""
    dead = ToolSettings(
        endpoints={"wiki": "http://127.0.0.1:9"},
        search_timeout=5,
        network=NetworkPolicy.parse("127.0.0.1:9"),
    )
    response = await search_wiki("solar", settings=dead)
    assert "try another search tool" in text_of(response)
    assert reason(response).startswith("search_wiki: ")
    assert "try another" not in reason(response)
