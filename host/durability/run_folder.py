"""The run folder and its FileDomainServices.

``runs/<id>/`` holds ``workspace/`` (read-write for subagents: downloads/, pages/,
notes/, reports/), ``internal/`` (the Host's: transcript, evidence ledger, evicted
results, run.json) and the user's input folder mounted read-only at ``/userinput/``.

While the run's memory store is open, the run's file domain holds ``/memories/`` too:
the services then sit on a :class:`~fs_service.backends.CompositeFileSystem` that routes
``/`` to the run folder on disk and ``/memories/`` to the store's namespace (the very
:class:`~fs_service.backends.StoreFileSystem` the run's
:class:`~host.durability.memory.SkillMemory` writes, or with experience off the page
cache's), so ``/memories/`` in the run's file domain and the memories of the store are
the same files, and nothing of ``/memories/`` is on disk. The grants are the same either
way, but for the Host's own service, which is granted ``/memories/`` as well: a
subagent's tool that names a path there is refused as any path outside its grants, and
the only writers of the memories are the Host's own bookkeeping and ``evolve_skill``,
both through the store. A run without a store has the run folder's disk alone, and no
``/memories/``.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService, StorageBackend
from fs_service.backends import CompositeFileSystem

from .runs import QUESTION_JSON

#: Where the memory store's files are in a run's file domain, while the store is open.
MEMORIES = "/memories/"
WORKSPACE_DIRS = ("downloads", "pages", "notes", "reports", "screenshots")
#: Workspace areas that one kind of tool alone writes (the tools name their area in their
#: subagent's spec): stored pages, whose text citations are checked against, downloads and
#: screenshots. Every other subagent tool may only read there.
AREAS = {
    "pages": "/workspace/pages/",
    "downloads": "/workspace/downloads/",
    "screenshots": "/workspace/screenshots/",
}


def subagent_grants(area: str | None = None, userinput: bool = True) -> list[dict]:
    """The grants of a subagent tool: the workspace, read-only areas, the input folder.

    With ``area``, the tool writes that area and only reads the rest of the workspace.
    """
    grants: list[dict] = [
        {"prefix": "/workspace/", "ops": set(READ_OPS if area else ALL_OPS)},
        *(
            {"prefix": prefix, "ops": set(ALL_OPS if name == area else READ_OPS)}
            for name, prefix in AREAS.items()
        ),
    ]
    if userinput:
        grants.append({"prefix": "/userinput/", "ops": set(READ_OPS)})
    return grants


def host_grants(memories: bool = False) -> list[dict]:
    """The Host's own grants: the workspace and ``/internal/``, the input folder read-only,
    and, with ``memories`` (the run's store is mounted), ``/memories/``."""
    grants: list[dict] = [
        {"prefix": "/workspace/", "ops": set(ALL_OPS)},
        {"prefix": "/userinput/", "ops": set(READ_OPS)},
        {"prefix": "/internal/", "ops": set(ALL_OPS)},
    ]
    if memories:
        grants.append({"prefix": MEMORIES, "ops": set(ALL_OPS)})
    return grants


def area_services(
    fs: DiskFileSystem | CompositeFileSystem, userinput: bool = True
) -> dict[str, FileDomainService]:
    """One service per workspace area, for the tool that writes it."""
    return {
        name: FileDomainService(fs.create_handle(subagent_grants(name, userinput)))
        for name in AREAS
    }


def new_run_id() -> str:
    """A sortable, unique run id: UTC time plus a random suffix."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


@dataclass
class RunFolder:
    """One run's folder, its subagent service and its Host service.

    Attributes:
        disk: the run folder on disk, the input folder mounted in it.
        memories: the store mounted at ``/memories/`` (None: nothing is).
    """

    id: str
    path: Path
    input_dir: Path
    subagent_service: FileDomainService
    host_service: FileDomainService
    area_services: dict[str, FileDomainService]
    disk: DiskFileSystem = field(repr=False)
    memories: StorageBackend | None = field(default=None, repr=False)

    @classmethod
    def create(
        cls,
        runs_dir: Path,
        input_dir: Path | None = None,
        question: str | None = None,
        run_id: str | None = None,
        memories: StorageBackend | None = None,
    ) -> RunFolder:
        """A new run folder, named ``run_id`` (default: a new id, see
        :func:`new_run_id`); with ``question``, the folder says it at once
        (``internal/question.json``), so that a run stopped before its first checkpoint
        is still listed with its question; with ``memories``, that store is mounted at
        ``/memories/`` (see :meth:`mount_memories`)."""
        run_id = run_id or new_run_id()
        path = (runs_dir / run_id).resolve()
        path.mkdir(parents=True, exist_ok=False)
        if input_dir is None:
            input_dir = path / "no-input"
            input_dir.mkdir()
        for d in WORKSPACE_DIRS:
            (path / "workspace" / d).mkdir(parents=True)
        folder = cls._mount(run_id, path, input_dir, memories)
        if question is not None:
            record = json.dumps({"question": question})  # ASCII: any question can be written
            (path / QUESTION_JSON).write_text(record, encoding="utf-8")
        return folder

    @classmethod
    def open(
        cls, path: Path, input_dir: Path | None = None, memories: StorageBackend | None = None
    ) -> RunFolder:
        """An existing run folder (to resume it), its input folder mounted again, and
        ``memories`` at ``/memories/`` as :meth:`create` mounts it."""
        path = Path(path).resolve()
        if not (path / "internal").is_dir() or not (path / "workspace").is_dir():
            raise ValueError(f"{path} is not a run folder")
        return cls._mount(path.name, path, input_dir or path / "no-input", memories)

    @classmethod
    def _mount(
        cls, run_id: str, path: Path, input_dir: Path, memories: StorageBackend | None
    ) -> RunFolder:
        disk = DiskFileSystem(path, mounts={"/userinput/": input_dir})
        subagent, host, areas = _services(disk, memories)
        return cls(
            id=run_id,
            path=path,
            input_dir=Path(input_dir).resolve(),
            subagent_service=subagent,
            host_service=host,
            area_services=areas,
            disk=disk,
            memories=memories,
        )

    def mount_memories(self, store: StorageBackend | None) -> None:
        """Mount ``store`` at ``/memories/`` (None: unmount it), with the run's services
        made anew over the run folder and the store.

        The Host's service gains (or loses) its grant on ``/memories/``; the subagents'
        services keep their grants. Whoever holds a service made before keeps its view:
        mount before the run's parts take theirs, and unmount when the store closes.
        """
        self.subagent_service, self.host_service, self.area_services = _services(self.disk, store)
        self.memories = store

    def real_path(self, logical: str) -> Path:
        """Where a logical path lives on disk (for printing to the user)."""
        if logical.startswith("/userinput/"):
            return self.input_dir / logical[len("/userinput/") :]
        return self.path / logical.lstrip("/")


def _services(
    disk: DiskFileSystem, memories: StorageBackend | None
) -> tuple[FileDomainService, FileDomainService, dict[str, FileDomainService]]:
    """The subagents' service, the Host's and the areas', over ``disk`` with ``memories``
    mounted at ``/memories/`` (over ``disk`` alone when None)."""
    fs: DiskFileSystem | CompositeFileSystem = disk
    if memories is not None:
        fs = CompositeFileSystem({"/": disk, MEMORIES: memories})
    return (
        FileDomainService(fs.create_handle(subagent_grants())),
        FileDomainService(fs.create_handle(host_grants(memories is not None))),
        area_services(fs),
    )
