"""Hostile bodies and redirects against viewer_fetch and http_download, on 127.0.0.1.

Decompression bombs must give an Error result with bounded memory, bodies that do not
match their Content-Length must leave nothing stored, and redirects to schemes that
cannot be fetched must be readable errors.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Iterator

import brotli
import pytest
from attack_web import (
    PAGE,
    PAGE_MARK,
    UNUSABLE_TARGETS,
    MiB,
    add_body_attacks,
    encoded,
    peak_memory,
)
from browser_sites import SiteServer
from browser_support import LOOPBACK_SETTINGS

from subagents.browser import download
from subagents.browser.download import http_download
from subagents.browser.viewer import viewer_fetch
from subagents.net import decode
from subagents.net.decode import PIECE_BYTES, BodyError, open_decoder
from subagents.results import text_of

#: What one tool call may add to the process's memory while refusing a bomb.
MEMORY_BOUND = 300 * MiB


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    add_body_attacks(server)
    server.start()
    yield server
    server.stop()


async def nothing_stored(service) -> bool:
    return not await service.exists("/workspace/pages/")


# --- decompression bombs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/bomb/br", "decompression bomb"),
        ("/bomb/gzip", "decompression bomb"),
        ("/bomb/gzip-gzip", "stacked content encodings (gzip, gzip)"),
        ("/bomb/gzip-gzip-lines", "stacked content encodings (gzip, gzip)"),
        ("/bomb/deflate-br", "stacked content encodings (deflate, br)"),
    ],
)
async def test_a_bomb_page_is_an_error_and_memory_stays_bounded(site, memory_service, path, says):
    with peak_memory() as peak:
        res = await viewer_fetch(site.url(path), service=memory_service, settings=LOOPBACK_SETTINGS)
    assert peak.rss < MEMORY_BOUND and peak.python < MEMORY_BOUND, peak
    assert text_of(res).startswith("Error:") and says in text_of(res), text_of(res)
    assert res.metadata["status"] == "error"
    assert await nothing_stored(memory_service)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/bomb/br-bin", "decompression bomb"),
        ("/bomb/gzip", "decompression bomb"),
        ("/bomb/gzip-gzip", "stacked content encodings (gzip, gzip)"),
    ],
)
async def test_a_bomb_download_saves_nothing_and_memory_stays_bounded(
    site, disk_service, path, says
):
    await disk_service.write_text("/workspace/downloads/keep.bin", "old content")
    with peak_memory() as peak:
        res = await http_download(
            site.url(path),
            "/workspace/downloads/keep.bin",
            service=disk_service,
            settings=LOOPBACK_SETTINGS,
        )
    assert peak.rss < MEMORY_BOUND and peak.python < MEMORY_BOUND, peak
    assert text_of(res).startswith("Error:") and says in text_of(res), text_of(res)
    assert "Nothing was saved." in text_of(res) and res.metadata["paths"] == []
    assert await disk_service.read_text("/workspace/downloads/keep.bin") == "old content"
    names = [e.path for e in await disk_service.list_dir("/workspace/downloads/")]
    assert names == ["/workspace/downloads/keep.bin"]


async def test_an_unknown_encoding_is_refused(site, memory_service):
    res = await viewer_fetch(
        site.url("/bomb/unknown"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert text_of(res).startswith("Error:") and "'zstd'" in text_of(res), text_of(res)
    assert await nothing_stored(memory_service)


async def test_the_download_cap_counts_decoded_bytes(site, disk_service, monkeypatch):
    text = os.urandom(3 * MiB).hex().encode()  # compresses about 2:1, far from a bomb
    site.routes["/big/text.gz"] = encoded(gzip.compress(text, 1), "gzip", "text/plain")
    monkeypatch.setattr(download, "MAX_DOWNLOAD_BYTES", 4 * MiB)
    res = await http_download(
        site.url("/big/text.gz"),
        "/workspace/downloads/t.txt",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert "larger than the 4 MiB download limit; nothing was saved" in text_of(res)
    assert not await disk_service.exists("/workspace/downloads/t.txt")


async def test_a_large_compressed_page_is_cut_at_the_page_cap_not_refused(site, memory_service):
    from browser_sites import big_page

    html = big_page(40_000)  # 5 MB of HTML that gzip shrinks about 30 times
    site.routes["/big/page.gz"] = encoded(gzip.compress(html), "gzip")
    res = await viewer_fetch(
        site.url("/big/page.gz"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    assert res.metadata["status"] == "ok", text_of(res)
    assert "was cut" in text_of(res)


# --- bodies that do not match their length ----------------------------------------------


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/length/longer", "sent more than the"),
        ("/length/longer-by-one", "sent more than the"),
        ("/length/gzip-longer", "sent more than the"),
        ("/length/shorter", "could not be read whole"),
        ("/length/gzip-cut", "stops before its end"),
    ],
)
async def test_a_body_that_does_not_match_its_length_is_not_stored(
    site, memory_service, path, says
):
    res = await viewer_fetch(site.url(path), service=memory_service, settings=LOOPBACK_SETTINGS)
    assert text_of(res).startswith("Error:") and says in text_of(res), text_of(res)
    assert res.metadata["status"] == "unavailable"
    assert PAGE_MARK not in text_of(res)
    assert await nothing_stored(memory_service)


@pytest.mark.parametrize(
    "path", ["/length/longer", "/length/longer-by-one", "/length/gzip-longer", "/length/gzip-cut"]
)
async def test_a_download_that_does_not_match_its_length_saves_nothing(site, disk_service, path):
    res = await http_download(
        site.url(path),
        "/workspace/downloads/p.html",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert text_of(res).startswith("Error:") and "nothing was saved" in text_of(res), text_of(res)
    assert res.metadata["status"] == "unavailable" and res.metadata["paths"] == []
    assert not await disk_service.exists("/workspace/downloads/")


@pytest.mark.parametrize("path", ["/length/exact", "/length/gzip-exact"])
async def test_exact_bodies_still_arrive_whole(site, disk_service, path):
    res = await viewer_fetch(site.url(path), service=disk_service, settings=LOOPBACK_SETTINGS)
    assert PAGE_MARK in text_of(res), text_of(res)
    res = await http_download(
        site.url(path),
        "/workspace/downloads/p.html",
        service=disk_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert res.metadata["status"] == "ok", text_of(res)
    assert await disk_service.read_text("/workspace/downloads/p.html") == PAGE


# --- redirects to what cannot be fetched ------------------------------------------------


@pytest.mark.parametrize("name", sorted(UNUSABLE_TARGETS))
async def test_a_redirect_to_an_unusable_address_is_a_clear_error(site, disk_service, name):
    url = site.url(f"/to/{name}")
    res = await viewer_fetch(url, service=disk_service, settings=LOOPBACK_SETTINGS)
    out = text_of(res)
    assert out.startswith(f"Error: {url} redirects to "), out
    assert "the redirect cannot be followed" in out and res.metadata["status"] == "error"
    res = await http_download(
        url, "/workspace/downloads/x.bin", service=disk_service, settings=LOOPBACK_SETTINGS
    )
    assert text_of(res).startswith(f"Error: {url} redirects to "), text_of(res)
    assert not await disk_service.exists("/workspace/downloads/x.bin")


# --- the decoders -----------------------------------------------------------------------


def decode_all(encoding: str, body: bytes, chunk: int = 1000) -> bytes:
    import httpx

    decoder = open_decoder(httpx.Headers({"content-encoding": encoding}), "http://x/")
    pieces = [p for i in range(0, len(body), chunk) for p in decoder.feed(body[i : i + chunk])]
    assert all(len(p) <= PIECE_BYTES for p in pieces)
    assert decoder.complete()
    return b"".join(pieces)


def test_each_encoding_decodes_in_bounded_pieces():
    data = PAGE.encode() * 50
    assert decode_all("gzip", gzip.compress(data)) == data
    assert decode_all("x-gzip", gzip.compress(data)) == data
    assert decode_all("gzip", gzip.compress(data[:999]) + gzip.compress(data)) == data[:999] + data
    assert decode_all("gzip", gzip.compress(data) + b"\x00" * 100) == data  # padding is ignored
    assert decode_all("deflate", zlib.compress(data)) == data
    raw = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    assert decode_all("deflate", raw.compress(data) + raw.flush(), chunk=1) == data
    assert decode_all("br", brotli.compress(data)) == data
    assert decode_all("identity", data, chunk=200_000) == data
    assert decode_all("", data) == data


def test_stacked_and_unknown_encodings_are_refused_before_reading():
    import httpx

    for value in ("gzip, gzip", "br,gzip", "gzip, identity, deflate"):
        with pytest.raises(BodyError, match="stacked content encodings"):
            open_decoder(httpx.Headers({"content-encoding": value}), "http://x/")
    with pytest.raises(BodyError, match="'compress'"):
        open_decoder(httpx.Headers({"content-encoding": "compress"}), "http://x/")
    assert decode.content_codings(httpx.Headers({"content-encoding": "identity, gzip"})) == ["gzip"]
