"""Files of a run folder sent to the browser from the descriptor they were checked on.

A download (a report, a file of the run's workspace) is opened once, without following a
symbolic link at any level (:func:`host.durability.run_files.open_file`), and sent from
that open file a chunk at a time: a link put in its place after the check is never
followed, and however large the file, or however many are sent at once, each holds one
chunk in memory. The run folder's zip is written the same way, each file read from the
descriptor it was opened on (:func:`host.durability.run_files.plain_files`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any, BinaryIO
from urllib.parse import quote

from starlette.background import BackgroundTask
from starlette.responses import Response, StreamingResponse

from host.durability.run_files import open_file, plain_files

#: Bytes read and sent at a time.
CHUNK = 64 * 1024
#: The zip of a run folder is kept in memory up to this size, then on disk (each of
#: the zips sent at once would otherwise hold as much).
ZIP_IN_MEMORY = 1024 * 1024
#: The earliest and the latest time a zip file can tell.
ZIP_EPOCH, ZIP_END = (1980, 1, 1, 0, 0, 0), (2107, 12, 31, 23, 59, 58)


def disposition(filename: str) -> str:
    """A ``Content-Disposition`` saying to save the response as ``filename`` (encoded as
    RFC 6266 says when it is not plain ASCII)."""
    encoded = quote(filename)
    if encoded != filename:
        return f"attachment; filename*=utf-8''{encoded}"
    return f'attachment; filename="{filename}"'


async def sent_file(
    folder: Path,
    relative: str,
    media_type: str,
    headers: dict[str, str],
    filename: str | None = None,
) -> Response | None:
    """The file ``relative`` of the run folder ``folder`` as a response, read from the
    descriptor it was opened on; None when it is not there or is refused.

    Args:
        folder: the run's folder.
        relative: the file's path inside it (``workspace/reports/x.pdf``).
        media_type: the response's type.
        headers: its other headers.
        filename: the name to save it as (an attachment), or None to show it.
    """
    try:
        handle = await asyncio.to_thread(open_file, folder, relative)
    except OSError:  # not there, or refused: a link, not a plain file
        return None
    size = os.fstat(handle.fileno()).st_size
    headers = {**headers, "content-length": str(size)}
    if filename is not None:
        headers["content-disposition"] = disposition(filename)
    return StreamingResponse(
        chunks(handle, size),
        media_type=media_type,
        headers=headers,
        background=BackgroundTask(handle.close),  # also when the client went away first
    )


async def chunks(handle: IO[bytes], size: int) -> AsyncIterator[bytes]:
    """The first ``size`` bytes of ``handle`` (the size it had when opened), a chunk at
    a time, read off the event loop; the handle is closed at the end."""
    left = size
    try:
        while left > 0:
            chunk = await asyncio.to_thread(handle.read, min(CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
            yield chunk
    finally:
        handle.close()


def zipped(folder: Path, run_id: str) -> IO[bytes]:
    """The run folder as a zip file (in memory up to :data:`ZIP_IN_MEMORY`, then on
    disk), rewound; each plain file under it is read from the descriptor it was opened
    on without following a link, and links are left out."""
    data = tempfile.SpooledTemporaryFile(max_size=ZIP_IN_MEMORY)  # noqa: SIM115 - sent, then closed
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        for relative, handle in plain_files(folder):
            info = _member(f"{run_id}/{relative}", handle)
            with archive.open(info, "w", force_zip64=True) as out:
                shutil.copyfileobj(handle, out, CHUNK)
    data.seek(0)
    return data


def _member(name: str, handle: BinaryIO) -> zipfile.ZipInfo:
    """The zip entry ``name`` of the open file ``handle``: its time and permissions."""
    status = os.fstat(handle.fileno())
    try:
        when = min(max(tuple(time.localtime(status.st_mtime)[:6]), ZIP_EPOCH), ZIP_END)
    except (OverflowError, OSError, ValueError):
        when = ZIP_EPOCH
    info = zipfile.ZipInfo(name, date_time=when)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (status.st_mode & 0xFFFF) << 16
    return info


def as_chunks(data: IO[bytes]) -> Any:
    """``data`` (a rewound file) read a chunk at a time off the event loop."""

    async def read() -> AsyncIterator[bytes]:
        while chunk := await asyncio.to_thread(data.read, CHUNK):
            yield chunk

    return read()
