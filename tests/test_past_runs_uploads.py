"""Deleting a run deletes the uploads the web app kept for it, unless another run or a
job still to finish reads them (``webapp.past_runs.unshared_input``)."""

from __future__ import annotations

import json
from pathlib import Path

from webapp.past_runs import hide_input, purge, unshared_input


def _run(runs: Path, name: str, input_dir: Path | None) -> Path:
    folder = runs / name
    (folder / "workspace").mkdir(parents=True)
    (folder / "internal").mkdir()
    settings = {"input_dir": str(input_dir)} if input_dir else {}
    (folder / "internal" / "run.json").write_text(json.dumps({"settings": settings}))
    return folder


def _uploads(runs: Path, name: str) -> Path:
    folder = runs / ".uploads" / name
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("# Notes\n")
    return folder


def test_a_runs_own_uploads_go_with_it(tmp_path: Path):
    uploads = _uploads(tmp_path, "job-1")
    run = _run(tmp_path, "20260101-000000-aaaaaa", uploads)
    _run(tmp_path, "20260101-000001-bbbbbb", None)
    found = unshared_input(run, tmp_path, tmp_path / ".uploads", set())
    assert found == uploads
    purge(hide_input(tmp_path / ".uploads", found))
    assert not uploads.exists() and list((tmp_path / ".uploads").iterdir()) == []


def test_uploads_another_run_reads_stay(tmp_path: Path):
    uploads = _uploads(tmp_path, "job-1")
    run = _run(tmp_path, "20260101-000000-aaaaaa", uploads)
    _run(tmp_path, "20260101-000001-bbbbbb", uploads)  # the same run started again
    assert unshared_input(run, tmp_path, tmp_path / ".uploads", set()) is None


def test_uploads_a_waiting_job_reads_stay(tmp_path: Path):
    uploads = _uploads(tmp_path, "job-1")
    run = _run(tmp_path, "20260101-000000-aaaaaa", uploads)
    assert unshared_input(run, tmp_path, tmp_path / ".uploads", {str(uploads)}) is None


def test_a_folder_the_server_did_not_make_is_never_deleted(tmp_path: Path):
    mine = tmp_path / "my-papers"
    mine.mkdir()
    run = _run(tmp_path, "20260101-000000-aaaaaa", mine)
    assert unshared_input(run, tmp_path, tmp_path / ".uploads", set()) is None
    linked = tmp_path / ".uploads" / "job-2"
    linked.parent.mkdir()
    linked.symlink_to(mine, target_is_directory=True)
    other = _run(tmp_path, "20260101-000002-cccccc", linked)
    assert unshared_input(other, tmp_path, tmp_path / ".uploads", set()) is None
