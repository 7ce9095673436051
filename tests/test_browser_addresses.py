"""Which addresses count as public: IPv6 addresses that carry an IPv4 address are judged
by the IPv4 address they carry. No test here opens a connection."""

from __future__ import annotations

import ipaddress

import pytest

from subagents.browser.viewer import viewer_fetch
from subagents.net.netguard import BlockedURLError, check_url, embedded_ipv4, is_public
from subagents.results import text_of
from subagents.settings import NetworkPolicy, ToolSettings

#: (address, the IPv4 addresses it carries); every one of them is private or special.
REFUSED = [
    ("2002:a9fe:a9fe::", ["169.254.169.254"]),  # 6to4
    ("2002:7f00:1::1", ["127.0.0.1"]),  # 6to4
    ("2002:a00:1:5::7", ["10.0.0.1"]),  # 6to4 with a subnet and host part
    ("64:ff9b::7f00:1", ["127.0.0.1"]),  # NAT64
    ("64:ff9b::a9fe:a9fe", ["169.254.169.254"]),  # NAT64
    ("::127.0.0.1", ["127.0.0.1"]),  # IPv4-compatible
    ("::10.0.0.1", ["10.0.0.1"]),  # IPv4-compatible
    ("::ffff:0:c0a8:101", ["192.168.1.1"]),  # IPv4-translated (SIIT)
    ("::ffff:127.0.0.1", ["127.0.0.1"]),  # IPv4-mapped
    # Teredo: server 8.8.8.8 (public), client 127.0.0.1 (stored inverted)
    ("2001:0:808:808::80ff:fffe", ["8.8.8.8", "127.0.0.1"]),
    # Teredo: server 10.0.0.1 (private), client 8.8.8.8
    ("2001:0:a00:1::f7f7:f7f7", ["10.0.0.1", "8.8.8.8"]),
]
#: Addresses whose carried IPv4 addresses are all public.
PUBLIC = [
    ("2002:808:808::", ["8.8.8.8"]),
    ("64:ff9b::808:808", ["8.8.8.8"]),
    ("2001:0:808:808::f7f7:f7f7", ["8.8.8.8", "8.8.8.8"]),
]


@pytest.mark.parametrize(("address", "carried"), REFUSED + PUBLIC)
def test_the_ipv4_address_an_ipv6_address_carries_is_found(address, carried):
    found = embedded_ipv4(ipaddress.IPv6Address(address))
    assert [str(a) for a in found] == carried


@pytest.mark.parametrize(("address", "carried"), REFUSED)
async def test_an_ipv6_address_carrying_a_private_ipv4_is_refused(address, carried):
    assert not is_public(ipaddress.ip_address(address))
    with pytest.raises(BlockedURLError, match="non-public address"):
        await check_url(f"http://[{address}]/latest/meta-data/", NetworkPolicy())


@pytest.mark.parametrize(("address", "carried"), PUBLIC)
async def test_an_ipv6_address_carrying_only_public_ipv4_is_public(address, carried):
    assert is_public(ipaddress.ip_address(address))
    assert await check_url(f"http://[{address}]/", NetworkPolicy())


def test_plain_ipv6_addresses_keep_their_own_class():
    assert embedded_ipv4(ipaddress.IPv6Address("2606:4700::1111")) == ()
    assert is_public(ipaddress.ip_address("2606:4700::1111"))
    for special in (
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "ff02::1",
        "2001:db8::1",
        "64:ff9b:1::a00:1",
    ):
        assert not is_public(ipaddress.ip_address(special)), special


async def test_viewer_fetch_refuses_6to4_to_the_metadata_address(memory_service):
    res = await viewer_fetch(
        "http://[2002:a9fe:a9fe::]/latest/meta-data/",
        service=memory_service,
        settings=ToolSettings(),
    )
    assert text_of(res).startswith("Error: refused to fetch"), text_of(res)
    assert "non-public address 2002:a9fe:a9fe::" in text_of(res)
    assert res.metadata["status"] == "error"
