"""Named pipes, devices and sockets in a mounted folder: described, never opened."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from file_support import FileTools

from fs_service import FileDomainService, SpecialFileError

#: Far longer than any of these calls takes; only a call that waits forever reaches it.
TIMEOUT_S = 60


@contextlib.contextmanager
def released(fifo: Path) -> Iterator[None]:
    """On the way out, open ``fifo`` for writing once, so that a reader stuck waiting for a
    writer (the bug under test) is let go and the test process can exit."""
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def special_files(folder: Path) -> dict[str, str]:
    """A named pipe, a socket and (where allowed) a character device in ``folder``.

    Returns name → the kind a listing should report.
    """
    made = {}
    os.mkfifo(folder / "pipe.txt")
    made["pipe.txt"] = "named pipe (FIFO)"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(folder / "sock.csv"))
    sock.close()
    made["sock.csv"] = "socket"
    with contextlib.suppress(PermissionError, OSError):
        os.mknod(folder / "zero.txt", 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
        made["zero.txt"] = "character device"
    return made


async def test_reading_a_named_pipe_is_refused_at_once_not_waited_on(disk_service, input_dir):
    fifo = input_dir / "pipe.txt"
    os.mkfifo(fifo)
    tools = FileTools(disk_service)
    with released(fifo):
        for tool in ("read_text_file", "get_file_info", "csv_read", "pdf_read_text"):
            resp = await asyncio.wait_for(tools.call(tool, path="/userinput/pipe.txt"), TIMEOUT_S)
            text = resp.content[0]["text"]
            if tool == "get_file_info":
                assert resp.metadata["status"] == "ok"
                assert "kind: named pipe (FIFO)" in text and "never opened" in text
            else:
                assert resp.metadata["status"] == "error"
                assert text.startswith("Error: /userinput/pipe.txt is a named pipe (FIFO)")
                assert "Use a regular file" in text
        with pytest.raises(SpecialFileError, match="named pipe"):
            await asyncio.wait_for(disk_service.read_bytes("/userinput/pipe.txt"), TIMEOUT_S)


async def test_devices_and_sockets_are_listed_and_described_but_never_read(
    disk_service: FileDomainService, input_dir
):
    made = special_files(input_dir)
    (input_dir / "real.txt").write_text("hello", encoding="utf-8")
    tools = FileTools(disk_service)
    with released(input_dir / "pipe.txt"):
        listing = await asyncio.wait_for(tools.text("list_directory", path="/userinput/"), 60)
        assert "[FILE] real.txt (5 bytes)" in listing
        for name, kind in made.items():
            assert f"[OTHER] {name} ({kind}; not a regular file, never opened)" in listing
            entry = await disk_service.stat(f"/userinput/{name}")
            assert entry.kind == kind and entry.special and not entry.is_dir
            with pytest.raises(SpecialFileError, match=kind.split(" (")[0]):
                await asyncio.wait_for(disk_service.read_bytes(f"/userinput/{name}"), TIMEOUT_S)
            info = await asyncio.wait_for(
                tools.text("get_file_info", path=f"/userinput/{name}"), TIMEOUT_S
            )
            assert f"kind: {kind}" in info
        walked = await asyncio.wait_for(disk_service.walk_files("/userinput/"), TIMEOUT_S)
        assert [e.name for e in walked] == ["real.txt"]
        found = await asyncio.wait_for(disk_service.search("/userinput/", "hel"), TIMEOUT_S)
        assert [m.path for m in found] == ["/userinput/real.txt"]


async def test_a_named_pipe_swapped_in_after_the_check_is_still_not_waited_on(
    disk_service, input_dir, monkeypatch
):
    """The type check happens on the open descriptor too: O_NONBLOCK, then fstat."""
    from fs_service.backends import disk

    (input_dir / "swap.txt").write_text("regular", encoding="utf-8")
    fifo = input_dir / "swap.txt"
    real_check = disk._require_regular
    swapped = []

    def swap_after_first_check(st, path):
        real_check(st, path)
        if not swapped:
            fifo.unlink()
            os.mkfifo(fifo)
            swapped.append(True)

    monkeypatch.setattr(disk, "_require_regular", swap_after_first_check)
    with released(fifo), pytest.raises(SpecialFileError, match="named pipe"):
        await asyncio.wait_for(disk_service.read_bytes("/userinput/swap.txt"), TIMEOUT_S)
    assert swapped
