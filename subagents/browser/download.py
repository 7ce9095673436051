"""http_download: stream a URL into a granted file, atomically and under a size cap."""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from typing import Any

import httpx
from agentscope.tool import ToolResponse

from fs_service import FsError
from fs_service.errors import FileTooLargeError

from ..net.decode import BodyError, decoded_body
from ..net.netguard import BlockedURLError
from ..results import error, ok, unavailable
from ..settings import network_policy
from .tiers import DEADLINE, FetchError, guarded_get, shared_transport

#: Largest file http_download writes; the byte count is enforced, not the declared length.
MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024


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
        return await _download(url, save_path, service, settings)
    async with registry.lock(url):
        earlier = registry.stored(url)
        if earlier and await service.exists(earlier):  # type: ignore[attr-defined]
            return ok(
                f"Already downloaded in this run: {url} is at {earlier} (not fetched again).",
                paths=[earlier],
            )
        registry.note_fetch(url)
        result = await _download(url, save_path, service, settings)
        if (result.metadata or {}).get("status") == "ok":
            registry.record(url, save_path)
        return result


async def _download(url: str, save_path: str, service: Any, settings: Any) -> ToolResponse:
    """Stream ``url`` into ``save_path`` under the size cap; an Error result on failure.

    The cap counts decoded bytes as they are produced, and the file is kept only when
    the whole body arrived intact (see :mod:`..net.decode`).
    """
    cap = MAX_DOWNLOAD_BYTES
    try:
        async with (
            asyncio.timeout(DEADLINE * 4),
            guarded_get(
                shared_transport(allow := network_policy(settings)), url, allow
            ) as response,
        ):
            if response.status_code >= 400:
                reason = f"{url[:200]} answered HTTP {response.status_code}"
                if response.status_code >= 500 or response.status_code in (403, 429):
                    return unavailable(reason)
                return error(f"Error: {reason}. Check the URL.")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise _TooLargeError
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            written = 0
            async with (
                service.open_write(save_path, max_bytes=cap) as fh,  # type: ignore[attr-defined]
                aclosing(decoded_body(response)) as body,
            ):
                async for piece in body:
                    written += len(piece)
                    if written > cap:
                        raise _TooLargeError
                    fh.write(piece)
    except (_TooLargeError, FileTooLargeError):
        return error(
            f"Error: {url[:200]} is larger than the {cap // (1024 * 1024)} MiB download "
            "limit; nothing was saved."
        )
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
            f"the download of {url[:200]} failed ({type(exc).__name__}: {exc}); nothing was saved"
        )
    return ok(
        f"Saved {url} to {save_path} ({written} bytes, {content_type or 'unknown type'}).",
        paths=[save_path],
    )
