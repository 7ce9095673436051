"""The connect-time network guard: a host name that resolves differently after the check.

A scripted resolver stands in for a rebinding DNS server: it answers one address when
``check_url`` asks and another when the HTTP client connects. Servers run on 127.0.0.1
(the site) and 127.0.0.2 (the trap that must never see a request).
"""

from __future__ import annotations

import datetime
import ipaddress
import re
import ssl
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import httpcore
import pytest
from browser_sites import ARTICLE_HTML, ARTICLE_PARAGRAPHS, SiteServer, build_site, page, redirect
from browser_support import ScriptedResolver, tier_of
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from subagents.browser import tiers
from subagents.browser.download import http_download
from subagents.browser.viewer import viewer_fetch
from subagents.net import netguard
from subagents.net.netguard import BlockedURLError
from subagents.net.netpin import GuardedBackend
from subagents.results import text_of
from subagents.settings import NetworkPolicy, ToolSettings

PUBLIC = "93.184.215.14"
#: The site on 127.0.0.1 may be reached; the trap on 127.0.0.2 never.
ALLOW_SITE = ToolSettings(network=NetworkPolicy.parse("127.0.0.1"))


@pytest.fixture(scope="module")
def trap() -> Iterator[SiteServer]:
    server = SiteServer(host="127.0.0.2")
    server.routes["/secret"] = page(b"<html><body><p>internal secret</p></body></html>")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site(trap: SiteServer) -> Iterator[SiteServer]:
    server = build_site(trap)
    server.routes["/escape/rebind"] = redirect(f"http://rebind.test:{trap.port}/secret")
    server.start()
    yield server
    server.stop()


def use(monkeypatch: pytest.MonkeyPatch, script: dict[str, list[list[str] | None]]):
    resolver = ScriptedResolver(script)
    monkeypatch.setattr(netguard, "resolve", resolver)
    return resolver


# --- rebinding is refused when connecting ---------------------------------------------


@pytest.mark.parametrize("private", ["127.0.0.2", "10.0.0.1"])
async def test_rebinding_host_is_refused_at_connect_time(
    trap, memory_service, monkeypatch, private
):
    resolver = use(monkeypatch, {"rebind.test": [[PUBLIC], [private]]})
    res = await viewer_fetch(
        f"http://rebind.test:{trap.port}/secret", service=memory_service, settings=ALLOW_SITE
    )
    out = text_of(res)
    assert out.startswith("Error: refused to fetch from rebind.test"), out
    assert f"non-public address {private}" in out
    assert res.metadata["status"] == "error"
    assert resolver.calls == ["rebind.test", "rebind.test"]  # the check, then the connect
    assert trap.hits == []
    assert await memory_service.exists("/workspace/pages/") is False


async def test_redirect_hop_that_rebinds_is_refused(site, trap, memory_service, monkeypatch):
    use(monkeypatch, {"rebind.test": [[PUBLIC], ["127.0.0.2"]]})
    res = await viewer_fetch(
        site.url("/escape/rebind"), service=memory_service, settings=ALLOW_SITE
    )
    assert text_of(res).startswith("Error: refused to fetch from rebind.test"), text_of(res)
    assert "/escape/rebind" in site.paths()
    assert trap.hits == []


async def test_download_from_a_rebinding_host_saves_nothing(trap, disk_service, monkeypatch):
    await disk_service.write_text("/workspace/downloads/keep.bin", "old content")
    use(monkeypatch, {"rebind.test": [[PUBLIC], ["127.0.0.2"]]})
    res = await http_download(
        f"http://rebind.test:{trap.port}/secret",
        "/workspace/downloads/keep.bin",
        service=disk_service,
        settings=ALLOW_SITE,
    )
    assert text_of(res).startswith("Error: refused to fetch from rebind.test"), text_of(res)
    assert trap.hits == []
    assert await disk_service.read_text("/workspace/downloads/keep.bin") == "old content"
    names = [e.path for e in await disk_service.list_dir("/workspace/downloads/")]
    assert names == ["/workspace/downloads/keep.bin"]


async def test_allowlist_mode_refuses_a_host_that_rebinds_to_a_public_address(
    site, memory_service, monkeypatch
):
    only = ToolSettings(network=NetworkPolicy.parse("127.0.0.1", only=True))
    use(monkeypatch, {"rebind.test": [["127.0.0.1"], [PUBLIC]]})
    before = len(site.hits)
    res = await viewer_fetch(
        f"http://rebind.test:{site.port}/static/article.html", service=memory_service, settings=only
    )
    assert text_of(res).startswith("Error: refused to fetch from rebind.test"), text_of(res)
    assert "limited to the hosts" in text_of(res)
    assert len(site.hits) == before


async def test_a_name_that_stops_resolving_is_an_outside_failure(memory_service, monkeypatch):
    use(monkeypatch, {"gone.test": [[PUBLIC], None]})
    res = await viewer_fetch(
        "http://gone.test/page.html", service=memory_service, settings=ALLOW_SITE
    )
    assert res.metadata["status"] == "unavailable"
    assert (
        "could not be resolved" in text_of(res)
        and "could not be resolved" in res.metadata["reason"]
    )


# --- permitted addresses are connected to -----------------------------------------------


async def test_the_connection_goes_to_the_checked_address(site, memory_service, monkeypatch):
    resolver = use(monkeypatch, {"pinned.test": [["127.0.0.1"]]})
    before = len(site.hits)
    res = await viewer_fetch(
        f"http://pinned.test:{site.port}/static/article.html",
        service=memory_service,
        settings=ALLOW_SITE,
    )
    assert tier_of(res) == "http", text_of(res)
    assert ARTICLE_PARAGRAPHS[0] in text_of(res)
    assert site.paths()[before:] == ["/static/article.html"]
    assert resolver.calls == ["pinned.test", "pinned.test"]


async def test_refused_addresses_are_skipped_for_the_first_permitted_one(
    site, trap, memory_service, monkeypatch
):
    use(monkeypatch, {"mixed.test": [["127.0.0.1"], ["10.0.0.1", "127.0.0.2", "127.0.0.1"]]})
    res = await viewer_fetch(
        f"http://mixed.test:{site.port}/static/article.html",
        service=memory_service,
        settings=ALLOW_SITE,
    )
    assert ARTICLE_PARAGRAPHS[0] in text_of(res), text_of(res)
    assert trap.hits == []


async def test_an_address_that_refuses_the_connection_falls_back_to_the_next(
    site, memory_service, monkeypatch
):
    use(monkeypatch, {"twice.test": [["127.0.0.3", "127.0.0.1"]]})
    res = await viewer_fetch(
        f"http://twice.test:{site.port}/static/article.html",
        service=memory_service,
        settings=ToolSettings(network=NetworkPolicy.parse("127.0.0.0/29")),
    )
    assert ARTICLE_PARAGRAPHS[0] in text_of(res), text_of(res)


async def test_loopback_fetch_and_download_work_when_allowed(site, disk_service):
    res = await viewer_fetch(
        site.url("/static/article.html"), service=disk_service, settings=ALLOW_SITE
    )
    assert tier_of(res) == "http" and ARTICLE_PARAGRAPHS[0] in text_of(res)
    res = await http_download(
        site.url("/download/table.csv"),
        "/workspace/downloads/t.csv",
        service=disk_service,
        settings=ALLOW_SITE,
    )
    assert "(26 bytes, text/csv)" in text_of(res), text_of(res)
    assert res.metadata["paths"] == ["/workspace/downloads/t.csv"]


async def test_loopback_is_refused_at_connect_time_when_not_allowed(site):
    backend = GuardedBackend(NetworkPolicy())
    with pytest.raises(BlockedURLError, match=re.escape("non-public address 127.0.0.1")):
        await backend.connect_tcp("127.0.0.1", site.port)
    allowed = GuardedBackend(NetworkPolicy.parse("127.0.0.1"))
    stream = await allowed.connect_tcp("127.0.0.1", site.port)
    try:
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", site.port)
    finally:
        await stream.aclose()


async def test_a_name_on_the_allow_list_connects_to_what_it_resolves_to(site, monkeypatch):
    use(monkeypatch, {"intranet.test": [["127.0.0.1"]]})
    backend = GuardedBackend(NetworkPolicy.parse("intranet.test"))
    stream = await backend.connect_tcp("intranet.test", site.port)
    await stream.aclose()
    with pytest.raises(
        BlockedURLError, match=re.escape("intranet.test resolves to the non-public")
    ):
        await GuardedBackend(NetworkPolicy.parse("")).connect_tcp("intranet.test", site.port)


# --- TLS keeps the host name ------------------------------------------------------------


def _certificates(tmp: Path, san: x509.GeneralName) -> tuple[Path, Path, str]:
    """A CA and a leaf certificate for ``san``: (leaf chain file, key file, CA PEM)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Quartet test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "leaf")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([san]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    chain, key_file = tmp / "leaf.pem", tmp / "leaf.key"
    chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return chain, key_file, ca.public_bytes(serialization.Encoding.PEM).decode()


class TLSSite:
    """An https server on 127.0.0.1 serving the article, recording the SNI names it saw."""

    def __init__(self, chain: Path, key: Path) -> None:
        self.sni: list[str | None] = []
        self.site = SiteServer()
        self.site.routes["/article.html"] = page(ARTICLE_HTML.encode())
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(chain, key)
        context.sni_callback = lambda sock, name, ctx: self.sni.append(name)
        server: ThreadingHTTPServer = self.site._server
        server.socket = context.wrap_socket(server.socket, server_side=True)
        self.port = self.site.port
        self.site.start()

    def stop(self) -> None:
        self.site.stop()


@pytest.fixture
def tls_site(tmp_path, request, monkeypatch):
    chain, key, ca = _certificates(tmp_path, request.param)
    monkeypatch.setattr(tiers, "_ssl_context", lambda: ssl.create_default_context(cadata=ca))
    server = TLSSite(chain, key)
    yield server
    server.stop()


@pytest.mark.parametrize("tls_site", [x509.DNSName("pinned.test")], indirect=True)
async def test_https_sends_and_verifies_the_host_name_not_the_address(
    tls_site, memory_service, monkeypatch
):
    use(monkeypatch, {"pinned.test": [["127.0.0.1"]]})
    res = await viewer_fetch(
        f"https://pinned.test:{tls_site.port}/article.html",
        service=memory_service,
        settings=ALLOW_SITE,
    )
    assert tier_of(res) == "http", text_of(res)
    assert ARTICLE_PARAGRAPHS[0] in text_of(res)
    assert tls_site.sni == ["pinned.test"]


@pytest.mark.parametrize(
    "tls_site", [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))], indirect=True
)
async def test_a_certificate_for_the_address_only_does_not_pass_for_the_name(
    tls_site, memory_service, monkeypatch
):
    use(monkeypatch, {"pinned.test": [["127.0.0.1"]]})
    res = await viewer_fetch(
        f"https://pinned.test:{tls_site.port}/article.html",
        service=memory_service,
        settings=ALLOW_SITE,
    )
    assert res.metadata["status"] == "unavailable"
    assert "CERTIFICATE_VERIFY_FAILED" in text_of(res), text_of(res)
    assert "certificate is not valid for 'pinned.test'" in text_of(res)
    assert tls_site.sni == ["pinned.test"]


async def test_start_tls_is_given_the_host_name(monkeypatch):
    seen: dict[str, object] = {}

    class Stream(httpcore.AsyncNetworkStream):
        async def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            seen["server_hostname"] = server_hostname
            raise httpcore.ConnectError("stop here")

        async def aclose(self) -> None:
            pass

    class Inner(httpcore.AsyncNetworkBackend):
        async def connect_tcp(self, host, port, timeout=None, **kwargs):
            seen["address"] = (host, port)
            return Stream()

    use(monkeypatch, {"example.test": [[PUBLIC]]})
    backend = GuardedBackend(NetworkPolicy.parse(""), inner=Inner())
    async with httpcore.AsyncConnectionPool(network_backend=backend) as pool:
        with pytest.raises(httpcore.ConnectError):
            await pool.request("GET", "https://example.test/")
    assert seen == {"address": (PUBLIC, 443), "server_hostname": "example.test"}
