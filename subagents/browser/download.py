"""http_download: stream a URL into a granted file, atomically and under a size cap.

With the run's page cache (:mod:`..net.pagecache`), a fresh copy of the file is saved
without a request, a stale one is asked about with a conditional request (a 304 saves
it again), and a file fetched whole is kept for later runs.
"""

from __future__ import annotations

import asyncio
import hashlib
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import httpx
from agentscope.tool import ToolResponse

from fs_service import FsError
from fs_service.errors import FileTooLargeError

from ..failures import plain_reason
from ..net.decode import BodyError, decoded_body
from ..net.netguard import BlockedURLError
from ..net.pagecache import (
    HTTP,
    Cached,
    Provenance,
    RunCache,
    active_cache,
    cacheable,
    conditional_headers,
    http_entry,
    turn,
)
from ..results import error, ok, unavailable
from ..settings import network_policy
from .tiers import DEADLINE, FetchError, fetched_at, guarded_get, shared_transport

#: Largest file http_download writes; the byte count is enforced, not the declared length.
MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024
#: Whole-download deadline (seconds): a file may be much larger than a page.
DOWNLOAD_DEADLINE = DEADLINE * 4
#: How long a run's claim to download an address holds (see :meth:`RunCache.turn`):
#: the deadline, and time to keep the file.
DOWNLOAD_CLAIM_SECONDS = DOWNLOAD_DEADLINE + 15.0


class _TooLargeError(Exception):
    pass


async def http_download(
    url: str, save_path: str, service: object, settings: object = None, evidence: object = None
) -> ToolResponse:
    """Download a file from an http(s) URL and save it at a path you may write.

    Use it for PDFs, spreadsheets, images, archives or any file you want to keep; read
    the saved file afterwards with the file tools. The file appears only when the
    download completes: a failed or oversized download leaves nothing behind. Files
    larger than 50 MiB are refused. A file already downloaded in this run is not fetched
    again: the reply says where it is.

    Args:
        url (str): The http or https address of the file, e.g. https://example.org/report.pdf.
        save_path (str): Logical absolute path to save to, under a folder you may write,
            e.g. /workspace/downloads/report.pdf. An existing file there is replaced.
    """
    try:
        service.check(save_path, "write")  # type: ignore[attr-defined]
    except FsError as exc:
        return error(str(exc))
    registry = getattr(evidence, "pages", None)
    if registry is None:
        return (await _download(url, save_path, service, settings))[0]
    async with registry.lock(url):
        earlier = registry.stored(url)
        if earlier and await service.exists(earlier):  # type: ignore[attr-defined]
            return ok(
                f"Already downloaded in this run: {url} is at {earlier} (not fetched again).",
                paths=[earlier],
            )
        registry.note_fetch(url)
        result, source = await _download(url, save_path, service, settings)
        if source is not None:
            registry.record(url, save_path)
            registry.note_source(source)
        return result


@dataclass
class _Saved:
    """What a download saved: the final address, the bytes, the type, the provenance."""

    final_url: str
    size: int
    sha256: str
    content_type: str
    provenance: Provenance


async def _download(
    url: str, save_path: str, service: Any, settings: Any
) -> tuple[ToolResponse, dict[str, Any] | None]:
    """Save ``url`` at ``save_path``: from the page cache, or streamed under the size cap.

    Returns:
        The tool's result, and the download's entry in the run's ``web_sources`` (None
        when nothing was saved).
    """
    cache = active_cache()
    async with turn(cache, HTTP, url, _whole, DOWNLOAD_CLAIM_SECONDS) as cached:
        if cache is not None and cached is not None and cache.fresh(cached.entry):
            seen = Provenance(cached.entry.fetched_at, from_cache=True)
            saved: _Saved | ToolResponse = await _save_cached(cached, save_path, service, seen)
        else:
            saved = await _fetch(url, save_path, service, settings, cache, cached)
    if isinstance(saved, ToolResponse):
        return saved, None
    return _saved_result(url, save_path, saved), _source(url, save_path, saved)


def _whole(cached: Cached) -> bool:
    """Whether a cached copy is whole (a page's copy may have been cut)."""
    return not cached.entry.truncated


async def _save_cached(
    cached: Cached, save_path: str, service: Any, provenance: Provenance
) -> _Saved | ToolResponse:
    """Write a cached copy at ``save_path``; an Error result when it cannot be written."""
    try:
        async with service.open_write(save_path, max_bytes=MAX_DOWNLOAD_BYTES) as fh:
            fh.write(cached.body)
    except FileTooLargeError:
        return _too_large(cached.entry.url)
    except FsError as exc:
        return error(str(exc))
    entry = cached.entry
    kind = entry.content_type.split(";")[0].strip()
    return _Saved(entry.final_url, entry.size, entry.sha256, kind, provenance)


def _too_large(url: str) -> ToolResponse:
    return error(
        f"Error: {url[:200]} is larger than the {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MiB "
        "download limit; nothing was saved."
    )


async def _fetch(
    url: str,
    save_path: str,
    service: Any,
    settings: Any,
    cache: RunCache | None,
    cached: Cached | None,
) -> _Saved | ToolResponse:
    """Stream ``url`` into ``save_path`` (a stale cached copy's validators sent along);
    an Error or unavailable result on failure.

    The cap counts decoded bytes as they are produced, and the file is kept only when
    the whole body arrived intact (see :mod:`..net.decode`).
    """
    validators = conditional_headers(cached.entry if cached is not None else None)
    try:
        async with (
            asyncio.timeout(DOWNLOAD_DEADLINE),
            guarded_get(
                shared_transport(allow := network_policy(settings)), url, allow, validators
            ) as response,
        ):
            if response.status_code == 304 and cache is not None and cached is not None:
                confirmed = await cache.revalidated(cached, response.headers)
                seen = Provenance(confirmed.entry.fetched_at, from_cache=True, revalidated=True)
                return await _save_cached(confirmed, save_path, service, seen)
            refusal = _refusal(url, response)
            if refusal is not None:
                return refusal
            return await _stream(url, response, save_path, service, cache)
    except (_TooLargeError, FileTooLargeError):
        return _too_large(url)
    except BlockedURLError as exc:
        return error(str(exc))
    except BodyError as exc:
        return (
            unavailable(f"{exc}; nothing was saved")
            if exc.outside
            else error(f"{exc} Nothing was saved.")
        )
    except FetchError as exc:
        return unavailable(str(exc)) if exc.outside else error(str(exc))
    except FsError as exc:
        return error(str(exc))
    except TimeoutError:
        return unavailable(f"the download of {url[:200]} timed out; nothing was saved")
    except httpx.HTTPError as exc:
        return unavailable(
            f"the download of {url[:200]} failed ({plain_reason(exc)}); nothing was saved"
        )


def _refusal(url: str, response: httpx.Response) -> ToolResponse | None:
    """The result for a status that saves nothing, or None; _TooLargeError when the
    declared length is over the cap."""
    if response.status_code >= 400:
        reason = f"{url[:200]} answered HTTP {response.status_code}"
        if response.status_code >= 500 or response.status_code in (403, 429):
            return unavailable(reason)
        return error(f"Error: {reason}. Check the URL.")
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_DOWNLOAD_BYTES:
        raise _TooLargeError
    return None


async def _stream(
    url: str, response: httpx.Response, save_path: str, service: Any, cache: RunCache | None
) -> _Saved:
    """Write the body at ``save_path`` under the cap; keep it in the page cache when it
    may be kept and fits there."""
    keep = cache is not None and cacheable(response.status_code, response.headers)
    room = cache.cache.max_entry_bytes if cache is not None else 0
    kept = bytearray()
    digest = hashlib.sha256()
    written = 0
    async with (
        service.open_write(save_path, max_bytes=MAX_DOWNLOAD_BYTES) as fh,
        aclosing(decoded_body(response)) as body,
    ):
        async for piece in body:
            written += len(piece)
            if written > MAX_DOWNLOAD_BYTES:
                raise _TooLargeError
            fh.write(piece)
            digest.update(piece)
            keep = keep and written <= room
            if keep:
                kept += piece
    when = fetched_at(cache)
    if keep and cache is not None:
        entry = http_entry(url, str(response.url), 200, response.headers, bytes(kept), when)
        await cache.keep(entry, bytes(kept))
    elif cache is not None and not cacheable(response.status_code, response.headers):
        cache.withhold(digest.hexdigest())  # nor what the file tools read in it
    kind = response.headers.get("content-type", "").split(";")[0].strip()
    return _Saved(str(response.url), written, digest.hexdigest(), kind, Provenance(when))


def _saved_result(url: str, save_path: str, saved: _Saved) -> ToolResponse:
    """The ok result of a saved download, saying when a cached copy was fetched."""
    kind = saved.content_type or "unknown type"
    told = f"Saved {url} to {save_path} ({saved.size} bytes, {kind})."
    seen = saved.provenance
    if seen.from_cache:
        how = "the site confirmed it unchanged" if seen.revalidated else "still fresh"
        told += f" Cached copy: fetched {seen.record()['fetched_at']}, from the page cache ({how})."
    return ok(told, paths=[save_path])


def _source(url: str, save_path: str, saved: _Saved) -> dict[str, Any]:
    """A download's entry in the run's ``web_sources``."""
    return {
        "kind": "download",
        "url": url,
        "final_url": saved.final_url,
        "path": save_path,
        **saved.provenance.record(),
        "bytes": saved.size,
        "sha256": saved.sha256,
    }
