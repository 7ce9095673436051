"""Fixtures shared by every test module."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from child_support import Child
from postgres_support import PostgresServer, ServerUnavailable, start_server

from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService, MemoryFileSystem

RUN_GRANTS = [
    {"prefix": "/workspace/", "ops": set(ALL_OPS)},
    {"prefix": "/userinput/", "ops": set(READ_OPS)},
]


@pytest.fixture
def input_dir(tmp_path: Path) -> Path:
    """The user's input folder, mounted read-only at /userinput/."""
    folder = tmp_path / "input"
    folder.mkdir()
    return folder


@pytest.fixture
def disk_service(tmp_path: Path, input_dir: Path) -> FileDomainService:
    """A disk-backed service: /workspace/ read-write, /userinput/ read-only."""
    fs = DiskFileSystem(tmp_path / "run", mounts={"/userinput/": input_dir})
    return FileDomainService(fs.create_handle(RUN_GRANTS))


@pytest.fixture
def memory_service() -> FileDomainService:
    """A memory-backed service with the same grants."""
    return FileDomainService(MemoryFileSystem().create_handle(RUN_GRANTS))


@pytest.fixture(scope="session")
def demo_en(tmp_path_factory):
    """The offline demo run on its English question in every format, once a session: the
    modules that only read what it made share it."""
    from research_support import run_demo

    return run_demo(tmp_path_factory.mktemp("demo-en"), stage_timeout=120)


@pytest.fixture(scope="session")
def demo_zh_run(tmp_path_factory):
    """The same for the demo's Chinese question."""
    from research_support import run_demo

    from demo.site import DEMO_QUESTION_ZH

    return run_demo(
        tmp_path_factory.mktemp("demo-zh"), question=DEMO_QUESTION_ZH, stage_timeout=120
    )


@pytest.fixture
def clean_env(monkeypatch):
    """No QUARTET_ variable of the machine running the tests reaches the settings."""
    for name in list(os.environ):
        if name.startswith("QUARTET_"):
            monkeypatch.delenv(name)
    return monkeypatch


#: The engines a store's tests run on (see :func:`target`).
ENGINES = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server on 127.0.0.1 for the whole session (of one worker), started
    when a test first needs it."""
    try:
        server = start_server()
    except ServerUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()


@pytest.fixture(params=ENGINES)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "store.db")
    return request.getfixturevalue("postgres_server").new_database()


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Callable[..., Child]]:
    """Start Python child processes (``spawn(source, *args, heard=None)``, see
    :class:`~child_support.Child`), every one of them ended when the test ends."""
    children: list[Child] = []

    def start(source: str, *args: str, heard=None) -> Child:
        children.append(Child(tmp_path, source, *args, heard=heard))
        return children[-1]

    yield start
    for child in children:
        child.stop()


#: Test files that take a minute or more on this project's two-core machine (a demo run
#: in Chromium, a Ray cluster, ten thousand generated paths), longest first. They run
#: first, so that the workers finish together instead of one running the last long file
#: while the others wait.
LONG_FILES = (
    "test_serve_live.py",
    "test_serve.py",
    "test_cli.py",
    "test_host_pipeline.py",
    "test_approval.py",
    "test_batch_ray.py",
    "test_research.py",
    "test_batch_ray_token.py",
    "test_fs_property.py",
    "test_batch.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the tests of :data:`LONG_FILES` first, in that order (the others, and the tests
    within a file, keep theirs)."""
    rank = {name: i for i, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
