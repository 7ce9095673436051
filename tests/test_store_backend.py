"""The store and the composite backend: parity with the memory backend, atomic and
durable writes across processes, namespaces, eviction, refusals and routing.

The store's tests run on both engines: a SQLite file, and a throwaway PostgreSQL server
on 127.0.0.1 that the test worker starts once (the ``target`` and ``postgres_server``
fixtures of ``conftest.py``), each test in a new database of its own."""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import os
import signal
import sqlite3
import threading

import pytest
from child_support import WAIT
from postgres_support import free_port

from fs_service import (
    DiskFileSystem,
    FileDomainService,
    FileTooLargeError,
    FsError,
    IsADirectoryError_,
    MemoryFileSystem,
    NotADirectoryError_,
    NotFoundError,
    PermissionDeniedError,
)
from fs_service.backends import CompositeFileSystem, Entry, StoreFileSystem
from fs_service.backends.store import StoreURL, is_store_url, store_exists
from fs_service.errors import StorageError, StoreFormatError
from host.config import ConfigError, load_settings
from host.durability.memory import SkillMemory, existing_memory, open_memory
from host.durability.page_cache import existing_page_cache
from subagents.experience import parse


def _store(target: str, user: str = "ada", project: str = "notes", **kw) -> StoreFileSystem:
    return StoreFileSystem(target, user, project, **kw)


def _write(fs, path: str, data: bytes, cap: int = 1 << 20) -> None:
    with fs.open_atomic(path, cap) as fh:
        fh.write(data)


def _paths(entries) -> list[str]:
    return [e.path for e in entries]


# -- parity with the memory backend ----------------------------------------------------

REOPEN = ("reopen",)
SCRIPT = [
    ("write", "/notes/今日.md", "第一行\n".encode()),
    ("write", "/notes/deep/a.txt", b"alpha"),
    ("write", "/z.txt", b"zed"),
    ("read_bytes", "/notes/今日.md", 1024),
    ("read_bytes", "/z.txt", 2),
    ("stat", "/notes"),
    ("stat", "/notes/deep/"),
    ("stat", "/notes/deep/a.txt"),
    ("stat", "/nothing"),
    ("list_dir", "/"),
    ("list_dir", "/notes/"),
    ("list_dir", "/z.txt"),
    ("list_dir", "/nothing"),
    ("walk", "/"),
    ("walk", "/notes"),
    ("walk", "/nothing"),
    ("write", "/notes", b"where a directory is implied"),
    ("write", "/", b"the root"),
    ("write", "/z.txt/below.txt", b"below a file"),
    ("write", "/notes/deep/a.txt/x/y", b"deeper below a file"),
    ("read_bytes", "/notes", 1024),
    ("read_bytes", "/nothing", 1024),
    ("delete", "/notes"),
    ("delete", "/"),
    ("delete", "/nothing"),
    REOPEN,
    ("read_bytes", "/notes/deep/a.txt", 1024),
    ("list_dir", "/notes"),
    ("write", "/z.txt", b"replaced"),
    ("read_bytes", "/z.txt", 1024),
    ("delete", "/notes/deep/a.txt"),
    ("stat", "/notes/deep"),
    ("list_dir", "/notes"),
    REOPEN,
    ("walk", "/"),
    ("stat", "/z.txt"),
    ("list_dir", "/"),
]


def _shape(value):
    """A result as both backends should give it: entries without their times."""
    if isinstance(value, Entry):
        return (value.path, value.name, value.is_dir, value.size, value.kind)
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value


def _apply(fs, op: str, *args):
    """Run one step of :data:`SCRIPT`; a refusal is its error's class and message."""
    try:
        if op == "write":
            _write(fs, *args)
            return "written"
        if op == "walk":
            return list(fs.walk_files(*args))
        return getattr(fs, op)(*args)
    except FsError as exc:
        return (type(exc).__name__, str(exc))


def test_the_store_answers_like_the_memory_backend_across_reopens(target):
    memory, store = MemoryFileSystem(), _store(target)
    try:
        for step in SCRIPT:
            if step == REOPEN:
                store.close()
                store = _store(target)
                continue
            assert _shape(_apply(store, *step)) == _shape(_apply(memory, *step)), step
    finally:
        store.close()


def test_a_reopened_store_keeps_contents_sizes_and_times(target):
    with _store(target) as store:
        _write(store, "/a/b.bin", bytes(range(256)) * 40)
        before = store.stat("/a/b.bin")
    with _store(target) as store:
        assert store.stat("/a/b.bin") == before
        assert store.read_bytes("/a/b.bin", 1 << 20) == bytes(range(256)) * 40


def test_the_root_always_exists_as_a_directory(target):
    with _store(target) as store:
        assert store.stat("/") == Entry("/", "", True, 0, 0.0, "directory")
        assert store.list_dir("/") == []
        assert list(store.walk_files("/")) == []
        with pytest.raises(IsADirectoryError_):
            store.read_bytes("/", 10)


def test_the_walk_order_matches_the_disk_backend(target, tmp_path):
    paths = ["/a.txt", "/a/b.txt", "/a/b/c.txt", "/a-b/c.txt", "/B.txt"]
    disk = DiskFileSystem(tmp_path / "disk")
    with _store(target) as store:
        for path in paths:
            _write(disk, path, path.encode())
            _write(store, path, path.encode())
        expected = _paths(disk.walk_files("/"))
        assert _paths(store.walk_files("/")) == expected
        assert _paths(store.walk_files("/a/")) == _paths(disk.walk_files("/a/"))
    assert expected != sorted(paths)  # a plain sort of the paths would not pass


# -- atomic writes ---------------------------------------------------------------------


def test_a_failed_or_oversized_write_keeps_the_old_content(target):
    with _store(target) as store, _store(target) as other:
        _write(store, "/keep.txt", b"old")
        with pytest.raises(RuntimeError), store.open_atomic("/keep.txt", 100) as fh:
            fh.write(b"new partial")
            assert other.read_bytes("/keep.txt", 100) == b"old"
            raise RuntimeError("the network dropped")
        assert other.read_bytes("/keep.txt", 100) == b"old"
        with pytest.raises(FileTooLargeError, match="4-byte cap"):
            _write(store, "/keep.txt", b"12345", cap=4)
        assert store.read_bytes("/keep.txt", 100) == b"old"
        with pytest.raises(RuntimeError), store.open_atomic("/fresh/new.txt", 100) as fh:
            fh.write(b"never stored")
            raise RuntimeError("interrupted")
        with pytest.raises(NotFoundError):
            other.stat("/fresh")
        with pytest.raises(FileTooLargeError, match="3 bytes, over the 2-byte read cap"):
            store.read_bytes("/keep.txt", 2)


def test_a_conflict_that_appears_during_a_write_is_refused_at_commit(target):
    with _store(target) as store, _store(target) as other:
        with (
            pytest.raises(NotADirectoryError_, match="/a is a file"),
            store.open_atomic("/a/b.txt", 100) as fh,
        ):
            fh.write(b"below")
            _write(other, "/a", b"a file took the folder's name")
        assert store.read_bytes("/a", 100) == b"a file took the folder's name"
        assert _paths(store.walk_files("/")) == ["/a"]


def test_threads_can_share_one_store(target):
    with _store(target) as store:

        def write_some(n: int) -> None:
            for i in range(20):
                _write(store, f"/t{n}/{i:02d}.txt", f"{n}-{i}".encode())

        threads = [threading.Thread(target=write_some, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
        assert len(list(store.walk_files("/"))) == 80
        assert store.read_bytes("/t3/19.txt", 100) == b"3-19"


# -- namespaces and eviction -----------------------------------------------------------


def test_namespaces_never_see_each_others_files(target):
    stores = [
        _store(target, "ada", "notes", max_total_bytes=100),
        _store(target, "ada", "drafts"),
        _store(target, "bob", "notes"),
    ]
    try:
        for n, store in enumerate(stores):
            _write(store, "/same.txt", f"store {n}".encode())
            _write(store, f"/own-{n}/file.txt", b"x")
        for n, store in enumerate(stores):
            assert store.read_bytes("/same.txt", 100) == f"store {n}".encode()
            assert _paths(store.walk_files("/")) == [f"/own-{n}/file.txt", "/same.txt"]
            with pytest.raises(NotFoundError):
                store.stat(f"/own-{(n + 1) % 3}")
        stores[0].delete("/same.txt")
        _write(stores[0], "/big.bin", b"b" * 100)  # evicts in its own namespace only
        assert _paths(stores[0].walk_files("/")) == ["/big.bin"]
        for n, store in enumerate(stores[1:], 1):
            assert _paths(store.walk_files("/")) == [f"/own-{n}/file.txt", "/same.txt"]
    finally:
        for store in stores:
            store.close()


class _Clock:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def _total(store: StoreFileSystem) -> int:
    return sum(e.size for e in store.walk_files("/"))


def test_eviction_drops_the_least_recently_used_files_outside_memories(target):
    with _store(target, max_total_bytes=100, clock=_Clock()) as store:
        _write(store, "/memories/m.md", b"m" * 40)
        _write(store, "/a.txt", b"a" * 20)
        _write(store, "/memoriesx/b.txt", b"b" * 20)
        _write(store, "/c.txt", b"c" * 20)
        assert _total(store) == 100  # at the bound, nothing goes
        store.read_bytes("/a.txt", 100)  # now used more recently than b and c
        _write(store, "/new.txt", b"n" * 30)
        assert _paths(store.walk_files("/")) == ["/a.txt", "/memories/m.md", "/new.txt"]
        assert _total(store) == 90
        _write(store, "/huge.bin", b"h" * 95)
        # Memories and the file just written stay, even over the bound.
        assert _paths(store.walk_files("/")) == ["/huge.bin", "/memories/m.md"]
    with _store(target) as store:
        assert _total(store) == 135


# -- processes -------------------------------------------------------------------------


def _payload(i: int) -> bytes:
    """The content of file number ``i`` of the writer: varied sizes, distinct bytes."""
    return hashlib.sha256(str(i).encode()).digest() * (1 + (i * 37) % 500)


WRITER = f"""
import hashlib
import sys

from fs_service.backends.store import StoreFileSystem

{inspect.getsource(_payload)}

store = StoreFileSystem(sys.argv[1], "ada", "notes")
for i in range(int(sys.argv[2])):
    data = _payload(i)
    with store.open_atomic(f"/w/{{i:05d}}.bin", 1 << 20) as fh:
        for start in range(0, len(data), 1024):
            fh.write(data[start : start + 1024])
    print(i, hashlib.sha256(data).hexdigest(), flush=True)
"""


def test_a_killed_writer_leaves_every_committed_file_whole(target, spawn):
    writer = spawn(WRITER, target, "3000")
    reported = [writer.expect() for _ in range(40)]
    assert writer.proc.poll() is None, "the writer finished before it could be killed"
    os.kill(writer.proc.pid, signal.SIGKILL)
    reported += writer.rest()
    assert writer.proc.wait(WAIT) == -signal.SIGKILL
    committed = dict(line.split() for line in reported)
    with _store(target) as store:
        for i, digest in committed.items():
            data = store.read_bytes(f"/w/{int(i):05d}.bin", 1 << 20)
            assert hashlib.sha256(data).hexdigest() == digest
        stored = list(store.walk_files("/w/"))
        for entry in stored:  # the write cut short is absent or whole, never partial
            assert store.read_bytes(entry.path, 1 << 20) == _payload(int(entry.name[:5]))
    assert len(stored) in (len(committed), len(committed) + 1)
    if not is_store_url(target):
        with contextlib.closing(sqlite3.connect(target)) as raw:
            assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


SAME_FILE = """
import sys

from fs_service.backends.store import StoreFileSystem

fill, size, rounds = sys.argv[2].encode(), int(sys.argv[3]), int(sys.argv[4])
whole = {b"A" * size, b"B" * size}
print("ready", flush=True)
sys.stdin.readline()
store = StoreFileSystem(sys.argv[1], "ada", "notes")
for _ in range(rounds):
    with store.open_atomic("/shared.bin", size) as fh:
        for _ in range(size // 4096):
            fh.write(fill * 4096)
    print("whole" if store.read_bytes("/shared.bin", size) in whole else "mixed", flush=True)
print("done", flush=True)
"""


def test_two_processes_writing_one_file_both_succeed_and_never_mix(target, spawn):
    size, rounds = 1 << 20, 6
    writers = [spawn(SAME_FILE, target, fill, str(size), str(rounds)) for fill in "AB"]
    for writer in writers:
        assert writer.expect() == "ready"
    for writer in writers:  # both open the new database and write at once
        writer.send("go\n")
    for writer in writers:
        assert [writer.expect() for _ in range(rounds + 1)] == ["whole"] * rounds + ["done"]
        assert writer.proc.wait(WAIT) == 0, writer.stderr()
    with _store(target) as store:
        assert store.read_bytes("/shared.bin", size) in (b"A" * size, b"B" * size)


# -- databases the store cannot use ----------------------------------------------------


def _shows_sqlite_behind(exc: BaseException | None) -> bool:
    """Whether the printed traceback of ``exc`` would show a sqlite3 error behind it."""
    while exc is not None:
        if isinstance(exc, sqlite3.Error):
            return True
        exc = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    return False


def _set_version(target: str, value: str) -> None:
    """Write ``value`` as the schema version of the store at ``target``, behind its back."""
    bump = "UPDATE meta SET value = ? WHERE key = 'schema_version'"
    if not is_store_url(target):
        with contextlib.closing(sqlite3.connect(target)) as raw, raw:
            raw.execute(bump, (value,))
        return
    import psycopg

    with psycopg.connect(target, autocommit=True) as raw:
        raw.execute(bump.replace("?", "%s"), (value,))


def test_a_newer_schema_is_refused_with_a_clear_error(target):
    _store(target).close()
    _set_version(target, "99")
    with pytest.raises(StoreFormatError) as info:
        StoreFileSystem(target, "ada", "notes")
    message = str(info.value)
    where = str(StoreURL(target)) if is_store_url(target) else target
    assert where in message and "version 99" in message and "newer release" in message
    assert not _shows_sqlite_behind(info.value) and info.value.__cause__ is None


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path):
    notes = tmp_path / "notes.db"
    notes.write_bytes(b"These are notes, not a database.\n" * 100)
    with pytest.raises(StoreFormatError) as info:
        StoreFileSystem(notes, "ada", "notes")
    assert str(notes) in str(info.value) and "not a SQLite database" in str(info.value)
    assert not _shows_sqlite_behind(info.value)
    assert notes.read_bytes() == b"These are notes, not a database.\n" * 100


# -- PostgreSQL ------------------------------------------------------------------------


def test_a_server_store_exists_once_opened_and_never_shows_its_password(postgres_server):
    url = postgres_server.new_database()
    assert not store_exists(url) and not store_exists(StoreURL(url))
    with _store(url) as store:
        assert postgres_server.password not in store.location
        assert store.location == url.replace(postgres_server.password, "***")
    assert store_exists(StoreURL(url))
    assert postgres_server.password not in repr(StoreURL(url)) + str(StoreURL(url))


def test_a_server_that_refuses_or_is_absent_is_a_clear_error_without_the_password(
    postgres_server,
):
    secret = "Wrong-Secret-4711"
    good = postgres_server.url()
    refused = [
        good.replace(postgres_server.password, secret),
        good.replace(f":{postgres_server.password}@", "@") + f"?password={secret}",
    ]
    for url in refused:
        with pytest.raises(StorageError) as info:
            _store(url)
        message = str(info.value)
        assert message.startswith("Error: the file store could not open postgresql://quartet")
        assert "password authentication failed" in message and "***" in message
        assert secret not in message and info.value.__cause__ is None
    absent = f"postgresql://quartet:{secret}@127.0.0.1:{free_port()}/quartet"
    with pytest.raises(StorageError, match=r"could not open postgresql://quartet:\*\*\*@") as info:
        store_exists(absent)
    assert secret not in str(info.value)


def test_a_url_for_the_store_selects_the_server_and_prints_its_password_masked(tmp_path, clean_env):
    url = "postgresql://ada:s3cret@db.example:5432/quartet"
    toml = tmp_path / "quartet.toml"
    toml.write_text(f'[quartet]\nstore = "{url}"\n', encoding="utf-8")
    settings = load_settings({}, toml)
    assert settings.store_path() == StoreURL(url)
    assert f"{settings.store_path()}" == "postgresql://ada:***@db.example:5432/quartet"
    clean_env.setenv("QUARTET_STORE", "postgresql:///quartet")
    with pytest.raises(ConfigError, match="names no host"):
        load_settings({}, toml)
    clean_env.setenv("QUARTET_STORE", "postgresql://ada:s3cret@db.example:port/quartet")
    with pytest.raises(ConfigError, match=r"ada:\*\*\*@db.example:port/quartet is not a URL"):
        load_settings({}, toml)
    clean_env.setenv("QUARTET_STORE", str(tmp_path / "s.sqlite"))
    assert load_settings({}, toml).store_path() == tmp_path / "s.sqlite"


def test_memories_and_the_page_cache_open_on_the_server_the_settings_name(
    postgres_server, tmp_path, clean_env
):
    clean_env.setenv("QUARTET_STORE", postgres_server.new_database())
    settings = load_settings({"runs_dir": str(tmp_path / "runs")}, tmp_path / "none.toml")
    assert existing_memory(settings) is None and existing_page_cache(settings) is None
    with open_memory(settings) as memory:
        memory.update("/memories/skills/x/evolved.md", lambda text: text + "one")
    cache = existing_page_cache(settings)
    assert cache is not None
    cache.close()
    with existing_memory(settings) as memory:
        assert memory.read("/memories/skills/x/evolved.md") == "one"
    assert not (tmp_path / "runs").exists()


MEMORY_WRITER = """
import sys
from datetime import date

from host.durability.memory import SkillMemory
from subagents.experience import evolved_path, record

print("ready", flush=True)
sys.stdin.readline()
with SkillMemory(sys.argv[1], "ada", "default") as memory:
    for n in range(8):
        memory.update(
            evolved_path("page-reading"),
            lambda text: record(text, f"{sys.argv[2]} {n}", "s", "l", date.today()),
        )
print("done", flush=True)
"""


def test_two_processes_recording_one_memory_file_through_postgresql_both_land(
    postgres_server, spawn
):
    url = postgres_server.new_database()
    writers = [spawn(MEMORY_WRITER, url, name) for name in "ab"]
    for writer in writers:
        assert writer.expect() == "ready"
    for writer in writers:
        writer.send("go\n")
    for writer in writers:
        assert writer.expect() == "done"
        assert writer.proc.wait(WAIT) == 0, writer.stderr()
    with SkillMemory(url, "ada", "default") as memory:
        assert parse(memory.log("page-reading")).total == 16


# -- the composite backend -------------------------------------------------------------


def test_the_composite_routes_by_the_longest_directory_prefix(target):
    default = MemoryFileSystem()
    with _store(target) as memories:
        fs = CompositeFileSystem({"/": default, "/memories/": memories})
        assert fs.stat("/memories").is_dir  # a mount exists before anything is stored in it
        assert [(e.name, e.is_dir) for e in fs.list_dir("/")] == [("memories", True)]
        _write(fs, "/memories/notes.md", b"remember")
        _write(fs, "/memoriesx/other.md", b"the default route")
        _write(fs, "/work/a.txt", b"a")
        assert memories.read_bytes("/memories/notes.md", 100) == b"remember"
        with pytest.raises(NotFoundError):
            default.stat("/memories/notes.md")
        assert default.read_bytes("/memoriesx/other.md", 100) == b"the default route"
        with pytest.raises(NotFoundError):
            memories.stat("/memoriesx/other.md")
        assert fs.read_bytes("/memories/notes.md", 100) == b"remember"
        assert [e.name for e in fs.list_dir("/")] == ["memories", "memoriesx", "work"]
        assert _paths(fs.walk_files("/")) == [
            "/memories/notes.md",
            "/memoriesx/other.md",
            "/work/a.txt",
        ]
        assert _paths(fs.walk_files("/memories/")) == ["/memories/notes.md"]
        fs.delete("/memories/notes.md")
        assert fs.stat("/memories/").is_dir and fs.list_dir("/memories/") == []
        with pytest.raises(IsADirectoryError_):
            fs.delete("/memories")


def test_the_composite_hides_files_behind_a_mount_and_shows_nested_mounts():
    default, deep = MemoryFileSystem(), MemoryFileSystem()
    _write(default, "/memories/ghost.md", b"behind the mount")
    _write(default, "/a/x.txt", b"x")
    fs = CompositeFileSystem({"/": default, "/memories/": MemoryFileSystem(), "/a/b/c/": deep})
    assert fs.list_dir("/memories/") == []
    assert _paths(fs.walk_files("/")) == ["/a/x.txt"]
    _write(fs, "/a/b/c/d.txt", b"d")
    assert _paths(deep.walk_files("/")) == ["/a/b/c/d.txt"]
    assert [e.name for e in fs.list_dir("/a/")] == ["b", "x.txt"]
    assert [e.path for e in fs.list_dir("/a/b")] == ["/a/b/c/"]
    assert fs.stat("/a/b").is_dir
    assert _paths(fs.walk_files("/a/")) == ["/a/b/c/d.txt", "/a/x.txt"]
    with pytest.raises(IsADirectoryError_):
        _write(fs, "/a/b", b"where a mount leads")


def test_the_composite_needs_a_default_route_and_directory_prefixes():
    with pytest.raises(ValueError, match="default route"):
        CompositeFileSystem({"/memories/": MemoryFileSystem()})
    with pytest.raises(ValueError, match="'/name/'"):
        CompositeFileSystem({"/": MemoryFileSystem(), "/memories": MemoryFileSystem()})


async def test_a_service_on_the_composite_keeps_its_grants_wherever_prefixes_live(tmp_path):
    disk, scratch = DiskFileSystem(tmp_path / "run"), MemoryFileSystem()
    with _store(str(tmp_path / "store.db")) as memories:
        fs = CompositeFileSystem({"/": disk, "/memories/": memories, "/scratch/": scratch})
        grants = [
            {"prefix": "/workspace/notes/", "ops": {"list", "read_file", "write"}},
            {"prefix": "/scratch/tmp/", "ops": {"list", "write"}},
            {"prefix": "/memories/", "ops": {"list", "read_file", "write"}},
        ]
        svc = FileDomainService(fs.create_handle(grants))
        assert svc.handle.backend is fs
        assert (tmp_path / "run" / "workspace" / "notes").is_dir()  # made where it lives
        assert scratch.stat("/scratch/tmp").is_dir
        assert list(memories.walk_files("/")) == []  # the store's directories are implied
        assert await svc.list_dir("/workspace/notes/") == []
        assert await svc.list_dir("/memories/") == []
        await svc.write_text("/workspace/notes/a.md", "on disk")
        await svc.write_text("/memories/b.md", "in the store")
        await svc.write_text("/scratch/tmp/c.md", "in memory")
        assert (tmp_path / "run" / "workspace" / "notes" / "a.md").read_text() == "on disk"
        assert memories.read_bytes("/memories/b.md", 100) == b"in the store"
        assert scratch.read_bytes("/scratch/tmp/c.md", 100) == b"in memory"
        assert await svc.read_text("/memories/b.md") == "in the store"
        with pytest.raises(PermissionDeniedError, match="reading text is not allowed"):
            await svc.read_text("/scratch/tmp/c.md")
        with pytest.raises(PermissionDeniedError, match="outside the granted directories"):
            await svc.write_text("/workspace/other.md", "beside the grant")
        with pytest.raises(PermissionDeniedError, match="outside the granted directories"):
            await svc.list_dir("/")
