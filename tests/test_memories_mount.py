"""A run's memories in its own file domain: ``/memories/`` routed to the store.

While a run's store is open, the run folder's services sit on a composite backend: ``/``
is the run folder on disk, ``/memories/`` the store's namespace, the same files the
run's SkillMemory reads and writes. Only the Host's own service is granted
``/memories/``; the subagents' services keep their grants and are refused there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from file_support import FileTools

from fs_service import DiskFileSystem, FileDomainService, PermissionDeniedError
from fs_service.backends import CompositeFileSystem, StoreFileSystem
from host.brains import make_brain
from host.config import Settings
from host.durability.memory import BROWSER_SKILL, SkillMemory, os_user, record_findings
from host.durability.page_cache import run_cache
from host.durability.run_folder import MEMORIES, RunFolder
from host.orchestration.hub import Host
from subagents.experience import Entry, evolved_path, record

LOG = "/memories/skills/x/evolved.md"
DAY = date(2026, 3, 1)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[SkillMemory]:
    """A memory over a real SQLite store in ``tmp_path``."""
    with SkillMemory(tmp_path / "store.sqlite", "ada", "default") as opened:
        yield opened


@pytest.fixture
def run(tmp_path: Path, memory: SkillMemory) -> RunFolder:
    """A run folder with ``memory``'s store mounted at ``/memories/``."""
    return RunFolder.create(tmp_path / "runs", memories=memory.store)


def _subagent_services(run: RunFolder) -> dict[str, FileDomainService]:
    return {"subagent": run.subagent_service, **run.area_services}


def _grants(service: FileDomainService) -> list[tuple[str, frozenset[str]]]:
    return [(g.prefix, g.ops) for g in service.grants]


def _logged(text: str = "") -> str:
    return record(text, "a lesson", "a scene", "what to do", DAY)


async def test_a_log_the_memory_writes_is_read_by_the_host_at_its_path(run, memory):
    text = memory.update(LOG, _logged)
    assert await run.host_service.read_text(LOG) == text
    entry = await run.host_service.stat(LOG)
    assert not entry.is_dir and entry.size == len(text.encode("utf-8"))
    assert [e.name for e in await run.host_service.list_dir("/memories/skills/")] == ["x"]
    assert [e.path for e in await run.host_service.walk_files(MEMORIES)] == [LOG]


async def test_a_write_by_the_host_lands_in_the_store_and_not_on_disk(run, memory):
    await run.host_service.write_text("/memories/notes/a.md", "kept across runs")
    assert memory.read("/memories/notes/a.md") == "kept across runs"
    assert not (run.path / "memories").exists()
    await run.host_service.delete("/memories/notes/a.md")
    assert memory.read("/memories/notes/a.md") == ""


async def test_the_subagents_services_are_refused_the_memories(run, memory):
    memory.update(LOG, _logged)
    before = memory.read(LOG)
    for name, service in _subagent_services(run).items():
        for attempt in (
            service.read_text(LOG),
            service.read_bytes(LOG),
            service.stat(LOG),
            service.list_dir(MEMORIES),
            service.walk_files(MEMORIES),
            service.search(MEMORIES, "lesson"),
            service.write_text(LOG, "forged"),
            service.write_text("/memories/new.md", "forged"),
            service.delete(LOG),
        ):
            with pytest.raises(PermissionDeniedError, match="outside the granted directories"):
                await attempt
            assert not service.can(LOG, "read_file"), name
    assert memory.read(LOG) == before
    assert [e.path for e in memory.store.walk_files("/")] == [LOG]


async def test_a_file_tool_is_refused_the_memories_with_the_usual_error(run, memory):
    memory.update(LOG, _logged)
    tools = FileTools(run.subagent_service)
    for name, args in (
        ("read_text_file", {"path": LOG}),
        ("list_directory", {"path": MEMORIES}),
        ("write_file", {"path": "/memories/skills/x/evolved.md", "content": "forged"}),
        ("delete_file", {"path": LOG}),
    ):
        told = await tools.text(name, **args)
        assert told.startswith("Error: /memories/") and "outside the granted" in told, told
    listed = await tools.text("list_allowed_directories")
    assert "/memories/" not in listed
    assert "a lesson" in memory.read(LOG)


async def test_the_workspace_stays_on_disk(run, memory):
    await run.subagent_service.write_text("/workspace/notes/n.md", "a note")
    await run.area_services["pages"].write_text("/workspace/pages/p.md", "a page")
    await run.host_service.write_text("/internal/x.json", "{}")
    assert (run.path / "workspace" / "notes" / "n.md").read_text("utf-8") == "a note"
    assert (run.path / "workspace" / "pages" / "p.md").read_text("utf-8") == "a page"
    assert (run.path / "internal" / "x.json").read_text("utf-8") == "{}"
    assert list(memory.store.walk_files("/")) == []
    assert await run.host_service.read_text("/workspace/notes/n.md") == "a note"


async def test_the_run_folder_lists_memories_beside_its_folders(run):
    backend = run.host_service.backend
    assert isinstance(backend, CompositeFileSystem)
    names = [e.name for e in backend.list_dir("/")]
    assert "memories" in names and {"internal", "workspace"} <= set(names)
    assert await run.host_service.list_dir(MEMORIES) == []  # the mount exists while empty
    assert (await run.host_service.stat(MEMORIES)).is_dir


def test_the_grants_are_the_same_but_the_hosts_memories(tmp_path, memory):
    plain = RunFolder.create(tmp_path / "plain")
    mounted = RunFolder.create(tmp_path / "mounted", memories=memory.store)
    assert isinstance(plain.host_service.backend, DiskFileSystem) and plain.memories is None
    assert _grants(mounted.subagent_service) == _grants(plain.subagent_service)
    for area, service in mounted.area_services.items():
        assert _grants(service) == _grants(plain.area_services[area]), area
    host = dict(_grants(mounted.host_service))
    assert host.pop(MEMORIES) == frozenset(
        {"list", "file", "read_file", "read_re", "read_binary", "write", "delete"}
    )
    assert host == dict(_grants(plain.host_service))
    assert not plain.host_service.can(LOG, "read_file")
    assert "/memories/" in mounted.host_service.describe_grants_markdown()
    assert "/memories/" not in mounted.subagent_service.describe_grants_markdown()


async def test_a_resumed_run_mounts_the_memories_the_same_way(tmp_path, run, memory):
    text = memory.update(LOG, _logged)
    await run.host_service.write_text("/workspace/notes/n.md", "before the stop")
    again = RunFolder.open(run.path, memories=memory.store)
    assert await again.host_service.read_text(LOG) == text
    assert await again.host_service.read_text("/workspace/notes/n.md") == "before the stop"
    with pytest.raises(PermissionDeniedError):
        await again.subagent_service.read_text(LOG)
    plain = RunFolder.open(run.path)
    assert isinstance(plain.host_service.backend, DiskFileSystem)
    with pytest.raises(PermissionDeniedError):
        await plain.host_service.read_text(LOG)


async def test_mounting_and_unmounting_replace_the_services(tmp_path, memory):
    run = RunFolder.create(tmp_path / "runs")
    text = memory.update(LOG, _logged)
    run.mount_memories(memory.store)
    assert run.memories is memory.store
    assert await run.host_service.read_text(LOG) == text
    run.mount_memories(None)
    assert run.memories is None and isinstance(run.host_service.backend, DiskFileSystem)
    with pytest.raises(PermissionDeniedError):
        await run.host_service.read_text(LOG)


# --- the Host mounts its store --------------------------------------------------------------


def test_the_host_mounts_the_memorys_store_else_the_page_caches_else_nothing(tmp_path):
    db = tmp_path / "m.sqlite"
    on = Settings(runs_dir=tmp_path / "runs", experience=True, store_file=db, page_cache=True)
    host = Host(on, make_brain("offline"))
    host.page_cache, _ = run_cache(on)
    run = RunFolder.create(on.runs_dir)
    host._mount_memories(run)
    assert host.workers.memory is not None and run.memories is host.workers.memory.store
    asyncio.run(host.close())

    cache_only = Settings(runs_dir=tmp_path / "runs", store_file=db, page_cache=True)
    host = Host(cache_only, make_brain("offline"))
    host.page_cache, _ = run_cache(cache_only)
    run = RunFolder.create(cache_only.runs_dir)
    host._mount_memories(run)
    assert host.workers.memory is None and host.page_cache is not None
    assert run.memories is host.page_cache.cache.store
    asyncio.run(host.close())

    elsewhere = tmp_path / "none.sqlite"
    neither = Settings(runs_dir=tmp_path / "runs", store_file=elsewhere, page_cache=False)
    host = Host(neither, make_brain("offline"))
    run = RunFolder.create(neither.runs_dir)
    host._mount_memories(run)
    assert run.memories is None and isinstance(run.host_service.backend, DiskFileSystem)
    assert not elsewhere.exists()


def test_a_store_that_cannot_open_leaves_the_run_on_disk(tmp_path):
    broken = tmp_path / "not-a-store.sqlite"
    broken.write_bytes(b"this is no database" * 100)
    settings = Settings(
        runs_dir=tmp_path / "runs", experience=True, store_file=broken, page_cache=False
    )
    host = Host(settings, make_brain("offline"))
    run = RunFolder.create(settings.runs_dir)
    host._mount_memories(run)
    assert host.workers.memory is None and host.workers.memory_error
    assert run.memories is None and isinstance(run.host_service.backend, DiskFileSystem)


async def test_a_run_of_the_host_sees_its_memories_and_its_subagents_do_not(tmp_path):
    """Through a whole offline run (no web reachable): while it runs, the Host's service
    reads the experience log the store held, the subagents' are refused it, and the
    store is the memory's own; once it ends, the run folder is on disk alone again."""
    from demo.settings import demo_settings
    from demo.web import DemoWorld
    from host.config import load_settings, make_runs_dir

    db = tmp_path / "store.sqlite"
    with SkillMemory(db, os_user(), "default") as memory:
        site = Entry("a.example is read in a real browser", "Reading a.example.", "Use it.")
        record_findings(memory, BROWSER_SKILL, [site], DAY)
        held = memory.log(BROWSER_SKILL)
    settings = load_settings(
        {"model": "offline", "runs_dir": str(tmp_path / "runs"), "quiet": True}
    )
    settings.experience, settings.store_file, settings.page_cache = True, db, False
    make_runs_dir(settings.runs_dir)
    closed = "http://127.0.0.1:9"  # every search source at a closed loopback port
    world = DemoWorld("", "", None, closed, {}, ("127.0.0.1:9",), [])  # type: ignore[arg-type]
    host = Host(demo_settings(settings, world), make_brain("offline"))
    seen: dict[str, object] = {}
    drive = host.drive.drive

    async def watched(state, request):
        run = state.run
        seen["same store"] = run.memories is host.workers.memory.store
        seen["host reads"] = await run.host_service.read_text(evolved_path(BROWSER_SKILL))
        try:
            await run.subagent_service.read_text(evolved_path(BROWSER_SKILL))
        except PermissionDeniedError as exc:
            seen["subagent told"] = str(exc)
        return await drive(state, request)

    host.drive.drive = watched  # type: ignore[method-assign]
    result = await host.run("Why do honey bee colonies die over winter?")
    assert seen["same store"] is True
    assert seen["host reads"] == held
    assert "outside the granted directories" in str(seen["subagent told"])
    assert result.run.memories is None
    assert isinstance(result.run.host_service.backend, DiskFileSystem)
    assert not (result.run.path / "memories").exists()
    with StoreFileSystem(db, os_user(), "default") as store:
        assert store.read_bytes(evolved_path(BROWSER_SKILL), 1 << 20).decode() == held
