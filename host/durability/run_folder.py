"""The run folder and its FileDomainServices.

``runs/<id>/`` holds ``workspace/`` (read-write for subagents: downloads/, pages/,
notes/, reports/), ``internal/`` (the Host's: transcript, evidence ledger, evicted
results, run.json) and the user's input folder mounted read-only at ``/userinput/``.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from fs_service import ALL_OPS, READ_OPS, DiskFileSystem, FileDomainService

from .runs import QUESTION_JSON

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


def area_services(fs: DiskFileSystem, userinput: bool = True) -> dict[str, FileDomainService]:
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
    """One run's folder, its subagent service and its Host service."""

    id: str
    path: Path
    input_dir: Path
    subagent_service: FileDomainService
    host_service: FileDomainService
    area_services: dict[str, FileDomainService]

    @classmethod
    def create(
        cls,
        runs_dir: Path,
        input_dir: Path | None = None,
        question: str | None = None,
        run_id: str | None = None,
    ) -> RunFolder:
        """A new run folder, named ``run_id`` (default: a new id, see
        :func:`new_run_id`); with ``question``, the folder says it at once
        (``internal/question.json``), so that a run stopped before its first checkpoint
        is still listed with its question."""
        run_id = run_id or new_run_id()
        path = (runs_dir / run_id).resolve()
        path.mkdir(parents=True, exist_ok=False)
        if input_dir is None:
            input_dir = path / "no-input"
            input_dir.mkdir()
        for d in WORKSPACE_DIRS:
            (path / "workspace" / d).mkdir(parents=True)
        folder = cls._mount(run_id, path, input_dir)
        if question is not None:
            record = json.dumps({"question": question})  # ASCII: any question can be written
            (path / QUESTION_JSON).write_text(record, encoding="utf-8")
        return folder

    @classmethod
    def open(cls, path: Path, input_dir: Path | None = None) -> RunFolder:
        """An existing run folder (to resume it), its input folder mounted again."""
        path = Path(path).resolve()
        if not (path / "internal").is_dir() or not (path / "workspace").is_dir():
            raise ValueError(f"{path} is not a run folder")
        return cls._mount(path.name, path, input_dir or path / "no-input")

    @classmethod
    def _mount(cls, run_id: str, path: Path, input_dir: Path) -> RunFolder:
        fs = DiskFileSystem(path, mounts={"/userinput/": input_dir})
        host_grants = [
            {"prefix": "/workspace/", "ops": set(ALL_OPS)},
            {"prefix": "/userinput/", "ops": set(READ_OPS)},
            {"prefix": "/internal/", "ops": set(ALL_OPS)},
        ]
        return cls(
            id=run_id,
            path=path,
            input_dir=Path(input_dir).resolve(),
            subagent_service=FileDomainService(fs.create_handle(subagent_grants())),
            host_service=FileDomainService(fs.create_handle(host_grants)),
            area_services=area_services(fs),
        )

    def real_path(self, logical: str) -> Path:
        """Where a logical path lives on disk (for printing to the user)."""
        if logical.startswith("/userinput/"):
            return self.input_dir / logical[len("/userinput/") :]
        return self.path / logical.lstrip("/")
