"""FileDomainService over both backends: grants, errors, atomic writes, caps, links."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fs_service import (
    ALL_OPS,
    READ_OPS,
    DiskFileSystem,
    FileDomainService,
    FileTooLargeError,
    FsError,
    InvalidPathError,
    IsADirectoryError_,
    MemoryFileSystem,
    NotADirectoryError_,
    NotFoundError,
    PermissionDeniedError,
    SymlinkRefusedError,
)
from fs_service.grants import Grant


@pytest.fixture(params=["disk", "memory"])
def svc(request, disk_service, memory_service) -> FileDomainService:
    return disk_service if request.param == "disk" else memory_service


async def test_write_read_list_stat_delete_round_trip(svc):
    entry = await svc.write_text("/workspace/notes/今日.md", "第一行\nline two\n")
    assert entry.path == "/workspace/notes/今日.md" and entry.size == len(
        "第一行\nline two\n".encode()
    )
    assert await svc.read_text("/workspace/notes/今日.md") == "第一行\nline two\n"
    assert [e.name for e in await svc.list_dir("/workspace/")] == ["notes"]
    listing = await svc.list_dir("/workspace/notes/")
    assert [(e.name, e.is_dir) for e in listing] == [("今日.md", False)]
    assert (await svc.stat("/workspace/notes/")).is_dir
    assert await svc.exists("/workspace/notes/今日.md")
    await svc.delete("/workspace/notes/今日.md")
    assert not await svc.exists("/workspace/notes/今日.md")
    with pytest.raises(NotFoundError, match="does not exist"):
        await svc.read_bytes("/workspace/notes/今日.md")


async def test_read_text_strips_bom_and_refuses_binary_and_bad_utf8(svc):
    await svc.write_bytes("/workspace/bom.txt", b"\xef\xbb\xbfhello")
    assert await svc.read_text("/workspace/bom.txt") == "hello"
    await svc.write_bytes("/workspace/bin.dat", b"\x89PNG\x00\x00\x01")
    with pytest.raises(FsError, match="binary"):
        await svc.read_text("/workspace/bin.dat")
    await svc.write_bytes("/workspace/gbk.txt", "中文".encode("gbk"))
    with pytest.raises(FsError, match="not valid UTF-8"):
        await svc.read_text("/workspace/gbk.txt")
    assert await svc.read_bytes("/workspace/gbk.txt") == "中文".encode("gbk")


async def test_userinput_is_read_only_and_other_prefixes_are_outside(svc):
    with pytest.raises(PermissionDeniedError) as info:
        await svc.write_text("/userinput/x.txt", "no")
    assert "writing is not allowed under /userinput/" in str(info.value)
    assert "/workspace/" in str(info.value)  # says where to write instead
    with pytest.raises(PermissionDeniedError, match="delet"):
        await svc.delete("/userinput/x.txt")
    for path in ("/internal/transcript.jsonl", "/etc/passwd", "/", "/workspacex/a"):
        with pytest.raises(PermissionDeniedError, match="outside the granted"):
            await svc.read_bytes(path)


async def test_invalid_paths_are_refused_before_any_lookup(svc):
    for path in ("/workspace/../userinput/a", "workspace/a", "/workspace//a", "/workspace/a\\b"):
        with pytest.raises(InvalidPathError):
            await svc.write_text(path, "x")
    assert await svc.list_dir("/workspace/") == []


async def test_failed_write_keeps_old_content_and_leaves_no_temp_file(svc):
    await svc.write_text("/workspace/keep.txt", "old")
    with pytest.raises(RuntimeError):
        async with svc.open_write("/workspace/keep.txt") as fh:
            fh.write(b"new partial")
            raise RuntimeError("network dropped")
    assert await svc.read_text("/workspace/keep.txt") == "old"
    assert [e.name for e in await svc.list_dir("/workspace/")] == ["keep.txt"]


async def test_a_write_in_progress_is_not_listed_and_a_vanished_entry_is_skipped(svc, monkeypatch):
    await svc.write_text("/workspace/pages/a.md", "done")
    async with svc.open_write("/workspace/pages/b.md") as fh:
        fh.write(b"half of it")
        # Another task walks the folder while b.md is still being written.
        assert [e.name for e in await svc.list_dir("/workspace/pages/")] == ["a.md"]
        assert [e.path for e in await svc.walk_files("/workspace/")] == ["/workspace/pages/a.md"]
    assert [e.name for e in await svc.list_dir("/workspace/pages/")] == ["a.md", "b.md"]
    if not isinstance(svc.backend, DiskFileSystem):
        return
    # An entry removed between the directory's listing and its stat is left out.
    import fs_service.backends.disk as disk

    real_scandir = disk.os.scandir

    class Gone:
        name = "c.md"

        def is_symlink(self) -> bool:
            raise FileNotFoundError(2, "No such file or directory", self.name)

        def stat(self, follow_symlinks: bool = True):
            raise FileNotFoundError(2, "No such file or directory", self.name)

    class Listing:
        def __init__(self, fd):
            self.inner = real_scandir(fd)

        def __enter__(self):
            return [*self.inner.__enter__(), Gone()]

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(disk.os, "scandir", Listing)
    assert [e.name for e in await svc.list_dir("/workspace/pages/")] == ["a.md", "b.md"]


async def test_write_cap_refuses_and_creates_nothing(svc):
    small = FileDomainService(svc.handle, max_write_bytes=10)
    with pytest.raises(FileTooLargeError, match="10-byte cap"):
        await small.write_bytes("/workspace/new/dir/big.bin", b"x" * 11)
    assert await svc.list_dir("/workspace/") == []
    await small.write_bytes("/workspace/ok.bin", b"x" * 10)
    assert (await svc.stat("/workspace/ok.bin")).size == 10


async def test_read_cap(svc):
    await svc.write_bytes("/workspace/big.bin", b"y" * 100)
    with pytest.raises(FileTooLargeError, match="read cap"):
        await svc.read_bytes("/workspace/big.bin", max_bytes=99)
    assert len(await svc.read_bytes("/workspace/big.bin", max_bytes=100)) == 100


async def test_a_file_that_grew_after_it_was_measured_is_read_whole_up_to_the_cap(
    disk_service, monkeypatch
):
    """The disk reads as much as the file's size says, and then what it grew by since,
    still refusing a file that grew past the cap."""
    from fs_service.backends import disk

    await disk_service.write_bytes("/workspace/log.txt", b"z" * 100)
    fstat = disk.os.fstat

    def measured_early(fd: int) -> os.stat_result:
        st = fstat(fd)
        return os.stat_result((*st[:6], 10, *st[7:])) if st.st_size == 100 else st

    monkeypatch.setattr(disk.os, "fstat", measured_early)
    assert await disk_service.read_bytes("/workspace/log.txt", max_bytes=1000) == b"z" * 100
    with pytest.raises(FileTooLargeError, match="read cap"):
        await disk_service.read_bytes("/workspace/log.txt", max_bytes=50)


async def test_directory_and_file_confusions(svc):
    await svc.write_text("/workspace/d/f.txt", "x")
    with pytest.raises(IsADirectoryError_):
        await svc.read_bytes("/workspace/d")
    with pytest.raises(IsADirectoryError_):
        await svc.delete("/workspace/d")
    with pytest.raises(NotADirectoryError_):
        await svc.list_dir("/workspace/d/f.txt")
    with pytest.raises(FsError):
        await svc.write_text("/workspace/d/f.txt/inner.txt", "x")
    with pytest.raises(IsADirectoryError_):
        await svc.write_text("/workspace/d/", "x")
    assert await svc.read_text("/workspace/d/f.txt") == "x"


async def test_search_and_walk(svc):
    await svc.write_text("/workspace/a.md", "alpha\nbeta\n")
    await svc.write_text("/workspace/sub/b.md", "gamma beta\n")
    await svc.write_bytes("/workspace/sub/c.bin", b"\xff\xfe beta")
    matches = await svc.search("/workspace/", r"beta")
    assert [(m.path, m.line_number) for m in matches] == [
        ("/workspace/a.md", 2),
        ("/workspace/sub/b.md", 1),
    ]
    assert [e.path for e in await svc.walk_files("/workspace/")] == [
        "/workspace/a.md",
        "/workspace/sub/b.md",
        "/workspace/sub/c.bin",
    ]
    with pytest.raises(InvalidPathError, match="regular expression"):
        await svc.search("/workspace/", "(")


def test_ops_are_checked_per_grant():
    fs = MemoryFileSystem()
    svc = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": {"list", "write"}}]))
    assert svc.can("/workspace/a", "write") and not svc.can("/workspace/a", "read_binary")
    with pytest.raises(PermissionDeniedError, match="reading is not allowed"):
        svc.check("/workspace/a", "read_binary")


def test_bad_grants_are_refused():
    fs = MemoryFileSystem()
    with pytest.raises(ValueError, match="unknown ops"):
        fs.create_handle([{"prefix": "/workspace/", "ops": {"fly"}}])
    with pytest.raises(ValueError, match="ending in '/'"):
        fs.create_handle([{"prefix": "/workspace", "ops": {"list"}}])
    with pytest.raises(ValueError, match="at least one grant"):
        fs.create_handle([])


def test_most_specific_grant_wins():
    handle = MemoryFileSystem().create_handle(
        [
            {"prefix": "/workspace/", "ops": set(ALL_OPS)},
            {"prefix": "/workspace/reports/", "ops": set(READ_OPS)},
        ]
    )
    assert handle.grant_for("/workspace/reports/a.md") == Grant(
        "/workspace/reports/", frozenset(READ_OPS)
    )
    with pytest.raises(PermissionDeniedError):
        handle.check("/workspace/reports/a.md", "write")
    assert handle.check("/workspace/a.md", "write") == "/workspace/a.md"


def test_describe_grants_markdown_names_every_prefix_and_mode(disk_service):
    text = disk_service.describe_grants_markdown()
    assert "`/workspace/` — read and write" in text
    assert "`/userinput/` — read only" in text
    assert "/internal/" not in text


# -- disk only -------------------------------------------------------------------------


async def test_userinput_mount_reads_the_input_folder(disk_service, input_dir: Path):
    (input_dir / "sub").mkdir()
    (input_dir / "sub" / "q.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    assert [e.path for e in await disk_service.list_dir("/userinput/")] == ["/userinput/sub/"]
    assert await disk_service.read_text("/userinput/sub/q.csv") == "a,b\n1,2\n"


async def test_symlinks_are_never_followed(tmp_path: Path, disk_service, input_dir: Path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE")
    workspace = tmp_path / "run" / "workspace"
    os.symlink(outside, workspace / "dirlink")
    os.symlink(outside / "secret.txt", workspace / "filelink")
    os.symlink(outside, input_dir / "inlink")
    for path in (
        "/workspace/dirlink/secret.txt",
        "/workspace/filelink",
        "/userinput/inlink/secret.txt",
    ):
        with pytest.raises(SymlinkRefusedError, match="symbolic link"):
            await disk_service.read_bytes(path)
    with pytest.raises(SymlinkRefusedError):
        await disk_service.write_text("/workspace/filelink", "overwrite")
    with pytest.raises(SymlinkRefusedError):
        await disk_service.write_text("/workspace/dirlink/new.txt", "x")
    with pytest.raises(SymlinkRefusedError):
        await disk_service.delete("/workspace/filelink")
    with pytest.raises(SymlinkRefusedError):
        await disk_service.list_dir("/workspace/dirlink/")
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "OUTSIDE"
    assert [e.name for e in await disk_service.list_dir("/workspace/")] == []  # links hidden


def test_disk_mounts_are_validated(tmp_path: Path):
    with pytest.raises(ValueError, match="not a directory"):
        DiskFileSystem(tmp_path / "r", mounts={"/userinput/": tmp_path / "missing"})
    with pytest.raises(ValueError, match="'/name/'"):
        DiskFileSystem(tmp_path / "r", mounts={"userinput": tmp_path})


def test_granted_prefix_folders_exist_after_create_handle(tmp_path: Path):
    fs = DiskFileSystem(tmp_path / "r")
    fs.create_handle([{"prefix": "/workspace/pages/", "ops": set(ALL_OPS)}])
    assert (tmp_path / "r" / "workspace" / "pages").is_dir()
