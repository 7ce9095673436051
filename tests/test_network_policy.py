"""Ports in QUARTET_ALLOW_HOSTS: an entry with a port exempts that port only.

Two servers listen on 127.0.0.1; the policy names the port of one of them, and the other
must never see a request.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_sites import ARTICLE_HTML, ARTICLE_PARAGRAPHS, SiteServer, page

from demo.settings import demo_settings
from demo.web import DemoWorld
from host.config import load_settings
from subagents.browser.download import http_download
from subagents.browser.viewer import viewer_fetch
from subagents.net.netguard import BlockedURLError, check_url
from subagents.net.netpin import GuardedBackend
from subagents.results import text_of
from subagents.settings import NetworkPolicy, SettingsError, ToolSettings


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[SiteServer, SiteServer]]:
    listed, other = SiteServer(), SiteServer()
    for server in (listed, other):
        server.routes["/article.html"] = page(ARTICLE_HTML.encode())
        server.routes["/file.csv"] = page(b"a,b\n1,2\n", 200, "text/csv")
        server.start()
    yield listed, other
    for server in (listed, other):
        server.stop()


def test_entries_with_and_without_ports_are_parsed():
    policy = NetworkPolicy.parse(
        "127.0.0.1:8080, localhost:3000, [::1]:8443, 10.0.0.0/8, intranet.example, "
        "[fd00::/8]:443, 192.168.0.0/16:80, ::1, Example.ORG.:81"
    )
    assert policy.hosts == {"intranet.example"}
    assert [str(n) for n in policy.networks] == ["10.0.0.0/8", "::1/128"]
    assert policy.host_ports == {("localhost", 3000), ("example.org", 81)}
    assert [(str(n), p) for n, p in policy.network_ports] == [
        ("127.0.0.1/32", 8080),
        ("::1/128", 8443),
        ("fd00::/8", 443),
        ("192.168.0.0/16", 80),
    ]
    loopback = ipaddress.ip_address("127.0.0.1")
    assert policy.address_allowed(loopback, 8080) and not policy.address_allowed(loopback, 8081)
    assert not policy.address_allowed(loopback)
    assert policy.address_allowed(ipaddress.ip_address("10.9.8.7"), 1)
    assert policy.host_allowed("localhost", 3000) and not policy.host_allowed("localhost", 80)
    assert policy.host_allowed("intranet.example", 1) and policy.host_allowed("intranet.example")


@pytest.mark.parametrize(
    "entry", ["127.0.0.1:", "127.0.0.1:0", "host:70000", "h:x1", "[::1", "[::1]x"]
)
def test_a_malformed_port_is_a_setting_error(entry):
    with pytest.raises(SettingsError, match=re.escape(repr(entry))):
        NetworkPolicy.parse(f"localhost,{entry}")
    with pytest.raises(SettingsError, match="QUARTET_ALLOW_HOSTS"):
        ToolSettings.from_env({"QUARTET_ALLOW_HOSTS": entry})


async def test_a_port_entry_lets_that_port_through_and_refuses_the_others(servers, disk_service):
    listed, other = servers
    settings = ToolSettings(network=NetworkPolicy.parse(f"127.0.0.1:{listed.port}"))
    res = await viewer_fetch(listed.url("/article.html"), service=disk_service, settings=settings)
    assert ARTICLE_PARAGRAPHS[0] in text_of(res), text_of(res)
    res = await viewer_fetch(other.url("/article.html"), service=disk_service, settings=settings)
    assert text_of(res).startswith("Error: refused to fetch"), text_of(res)
    assert "non-public address 127.0.0.1" in text_of(res)
    res = await http_download(
        other.url("/file.csv"),
        "/workspace/downloads/f.csv",
        service=disk_service,
        settings=settings,
    )
    assert text_of(res).startswith("Error: refused to fetch"), text_of(res)
    assert not await disk_service.exists("/workspace/downloads/f.csv")
    assert other.hits == []


async def test_a_host_name_with_a_port_and_the_allowlist_mode(servers):
    listed, other = servers
    only = NetworkPolicy.parse(f"localhost:{listed.port}", only=True)
    assert await check_url(f"http://localhost:{listed.port}/", only)
    with pytest.raises(BlockedURLError, match=rf"localhost \(port {other.port}\) is not one of"):
        await check_url(f"http://localhost:{other.port}/", only)
    with pytest.raises(BlockedURLError, match="limited to the hosts"):
        await check_url(f"http://127.0.0.1:{listed.port}/", only)  # listed by name only


async def test_the_connect_time_guard_checks_the_port_too(servers):
    listed, other = servers
    backend = GuardedBackend(NetworkPolicy.parse(f"127.0.0.1:{listed.port}"))
    stream = await backend.connect_tcp("127.0.0.1", listed.port)
    await stream.aclose()
    with pytest.raises(BlockedURLError, match=rf"127\.0\.0\.1 \(port {other.port}\)"):
        await backend.connect_tcp("127.0.0.1", other.port)
    assert other.hits == []


async def test_the_demo_allows_only_the_ports_of_its_own_servers(tmp_path: Path):
    world = DemoWorld(
        question="q",
        question_zh="q",
        input_dir=tmp_path,
        site_url="http://127.0.0.1:41000",
        endpoints={"wiki": "http://127.0.0.1:41001/wiki"},
        hosts=("127.0.0.1:41000", "127.0.0.1:41001"),
        site_requests=[],
    )
    settings = demo_settings(load_settings({"runs_dir": str(tmp_path)}), world)
    policy = settings.tools.network
    assert policy.only
    for url in (
        "http://127.0.0.1:41000/index.html",
        "http://127.0.0.1:41001/wiki?q=x",
        "http://localhost:41000/",
    ):
        assert await check_url(url, policy)
    for url in ("http://127.0.0.1:22/", "http://localhost:6379/", "http://127.0.0.1/"):
        with pytest.raises(BlockedURLError, match="limited to the hosts"):
            await check_url(url, policy)


def test_from_env_reads_ports():
    settings = ToolSettings.from_env({"QUARTET_ALLOW_HOSTS": "127.0.0.1:8080,[::1]:9"})
    assert [(str(n), p) for n, p in settings.network.network_ports] == [
        ("127.0.0.1/32", 8080),
        ("::1/128", 9),
    ]
