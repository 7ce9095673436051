"""What the runs list does with a past run: find it by words of its question, delete its
folder (and the uploads this server kept for it, when no other run reads them), start it
again with its settings, or start a follow-up question that reads its report.

Deleting checks the folder first: a real run folder directly inside the runs folder,
neither it nor its ``workspace`` or ``internal`` a symbolic link. The folder is first
renamed to a hidden name (at once, so that no page lists it and no run starts from it),
then removed without following any link inside it.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from starlette.datastructures import MultiDict

from host.durability.run_files import opened, read_text
from host.durability.runs import (
    CHECKPOINT_JSON,
    MAX_CHECKPOINT_BYTES,
    MAX_RECORD_BYTES,
    RUN_JSON,
    RunSummary,
    is_run_folder,
)

from .uploads import Upload, UploadRefused, check_name, save_uploads

#: The most characters of a search the runs list reads.
MAX_SEARCH = 200
#: The most characters of a follow-up question.
MAX_QUESTION = 2000
#: The name a previous report takes when its own name is no plain file name.
REPORT_NAME = "previous-report.md"
#: Settings of a job started by the start form that a run started again keeps.
KEPT = ("formats", "max_pages", "max_rounds", "model", "approve", "review_plan", "record")


class NotDeleted(ValueError):
    """A run folder that is not deleted; its message says why, without its path."""


def search_words(raw: str | None) -> list[str]:
    """The words of a search, case-folded (at most :data:`MAX_SEARCH` characters read).

    Args:
        raw: what was typed in the search box, or None.

    Returns:
        The search's words; none for an empty search.
    """
    return (raw or "")[:MAX_SEARCH].casefold().split()


def matching(runs: list[RunSummary], words: list[str]) -> list[RunSummary]:
    """The runs whose question holds every one of ``words`` (case-insensitive).

    Args:
        runs: the runs, in the order they are listed.
        words: the search's words, case-folded (see :func:`search_words`).

    Returns:
        The runs that match, in the same order; all of them when there are no words.
    """
    return [r for r in runs if all(w in r.question.casefold() for w in words)]


def again_refusal(run: RunSummary, busy: bool) -> str:
    """Why ``run`` is not started again, in words (``""`` when it is): its pages offer
    Run again only where this is ``""``, and a form sent anyway (from a page opened
    before the run changed, or by hand) is refused with it.

    Args:
        run: the run, as its record says.
        busy: whether a job of the server works on it or waits to.
    """
    if not run.can_run_again:
        return "This run's question cannot be read: it cannot be started again."
    if busy:
        return "This run is working or waiting to work: start it again once it has ended."
    if run.resumable:
        return "This run can be resumed: resume it to go on where it stopped."
    return ""


def follow_up_refusal(run: RunSummary, busy: bool) -> str:
    """Why no follow-up question is asked of ``run``, in words (``""`` when one can
    be): the runs list offers the question's form only where this is ``""``.

    Args:
        run: the run, as its record says.
        busy: whether a job of the server works on it or waits to.
    """
    if busy:
        return "This run is working or waiting to work: ask your follow-up once it has ended."
    if run.status != "finished" or run.failed or "md" not in run.reports:
        return (
            "A follow-up question reads the Markdown report of a finished run, "
            "and this run has none."
        )
    return ""


def hide_run(runs_dir: Path, folder: Path) -> Path:
    """Take the run folder ``folder`` out of ``runs_dir``'s runs, to be removed: it is
    renamed to a hidden name there (one step, so that no page lists it from then on).

    Args:
        runs_dir: the runs folder.
        folder: the run's folder, as the app found it by its id.

    Returns:
        The folder's hidden name, for :func:`purge`.

    Raises:
        NotDeleted: the folder is not a run folder directly inside ``runs_dir``, or it
            or its ``workspace`` or ``internal`` is a symbolic link.
    """
    root = runs_dir.resolve()
    linked = any(p.is_symlink() for p in (folder, folder / "workspace", folder / "internal"))
    if linked or folder.parent.resolve() != root or not is_run_folder(folder):
        raise NotDeleted("that is not a run folder of this server's runs folder")
    hidden = root / f".deleting-{folder.name}-{secrets.token_hex(4)}"
    os.rename(folder, hidden)
    return hidden


def purge(hidden: Path) -> None:
    """Remove a folder :func:`hide_run` hid; the links inside it are removed, never
    followed.

    Args:
        hidden: the hidden folder.
    """
    shutil.rmtree(hidden, ignore_errors=True)


def unshared_input(folder: Path, runs_dir: Path, uploads: Path, busy: set[str]) -> Path | None:
    """The input folder this server made for the run in ``folder`` (its uploads), when no
    other run of ``runs_dir`` and no job still to finish reads it: deleting the run then
    deletes it too. A run started again or a follow-up reads its run's uploads, so the
    folder stays while one of them is kept.

    Args:
        folder: the run's folder.
        runs_dir: the runs folder.
        uploads: the folder this server makes input folders in.
        busy: the input folders (as the jobs name them) of this server's jobs that are
            not done.

    Returns:
        The folder to delete with the run, or None.
    """
    mine = own_input(_settings(folder).get("input_dir"), uploads)
    if mine is None or str(mine) in busy:
        return None
    for other in runs_dir.iterdir():
        if other == folder or other.name.startswith(".") or not is_run_folder(other):
            continue
        theirs = _settings(other).get("input_dir")
        if isinstance(theirs, str) and Path(theirs) == mine:
            return None
    return mine


def hide_input(uploads: Path, folder: Path) -> Path:
    """Take an input folder this server made out of ``uploads``, to be removed (renamed
    to a hidden name there, as :func:`hide_run` does a run).

    Args:
        uploads: the folder this server makes input folders in.
        folder: the input folder (see :func:`unshared_input`).

    Returns:
        The folder's hidden name, for :func:`purge`.
    """
    hidden = uploads.resolve() / f".deleting-{folder.name}-{secrets.token_hex(4)}"
    os.rename(folder, hidden)
    return hidden


def _settings(folder: Path) -> dict[str, Any]:
    saved = _record(folder).get("settings")
    return saved if isinstance(saved, dict) else {}


def _saved_settings(folder: Path) -> dict[str, Any]:
    """The settings a run keeps: its record's, else (a run stopped mid-way, which has
    none) its checkpoint's; ``{}`` when neither holds them."""
    saved = _settings(folder)
    if saved:
        return saved
    try:
        checkpoint = json.loads(read_text(folder, CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    saved = checkpoint.get("settings") if isinstance(checkpoint, dict) else None
    return saved if isinstance(saved, dict) else {}


def saved_model(folder: Path) -> str:
    """The model a run started with, as a resume goes on with it (see
    :func:`_saved_settings`); ``offline`` when it names none.

    Args:
        folder: the run's folder.
    """
    model = _saved_settings(folder).get("model")
    return model if isinstance(model, str) and model.strip() else "offline"


def recorded_fields(folder: Path, uploads: Path) -> tuple[MultiDict, bool, Path | None]:
    """A run's settings as the start form would send them, read from its record (or its
    checkpoint, for a run stopped mid-way; a run stopped before its first checkpoint
    kept none, and starts again with the form's defaults).

    Args:
        folder: the run's folder.
        uploads: the folder this server makes input folders in.

    Returns:
        The form's fields (formats, pages, rounds, model, recording, and the tools the
        run asked about), whether it researched the demo web, and its input folder when
        this server made it (and it is still there).
    """
    record = _record(folder)
    saved = _saved_settings(folder)
    fields: list[tuple[str, str]] = [("formats", str(f)) for f in saved.get("formats") or []]
    for name in ("max_pages", "max_rounds"):
        if isinstance(saved.get(name), int) and not isinstance(saved.get(name), bool):
            fields.append((name, str(saved[name])))
    if isinstance(saved.get("model"), str):
        fields.append(("model", saved["model"]))
    if saved.get("record") is True:
        fields.append(("record", "on"))
    asked = record.get("approvals") if isinstance(record.get("approvals"), list) else []
    tools = {str(a.get("tool")) for a in asked if isinstance(a, dict)}
    fields += [("approve", tool) for tool in sorted(tools)]
    origin = saved.get("origin") if isinstance(saved.get("origin"), dict) else {}
    demo = origin.get("kind") == "demo"
    return MultiDict(fields), demo, own_input(saved.get("input_dir"), uploads)


def remembered_fields(job: dict[str, Any]) -> MultiDict:
    """A job's settings (as the start form gave them) as the form's fields again.

    Args:
        job: the settings of a job this server started.

    Returns:
        The form's fields for those settings.
    """
    fields: list[tuple[str, str]] = []
    for name in KEPT:
        value = job.get(name)
        if isinstance(value, list):
            fields += [(name, str(v)) for v in value]
        elif value is True:
            fields.append((name, "on"))
        elif value not in (None, False, ""):
            fields.append((name, str(value)))
    return MultiDict(fields)


def _record(folder: Path) -> dict[str, Any]:
    """The run's record (``run.json``), read without following a symbolic link; ``{}``
    when it is not there, is refused or is no JSON object."""
    try:
        record = json.loads(read_text(folder, RUN_JSON, MAX_RECORD_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    return record if isinstance(record, dict) else {}


def own_input(raw: Any, uploads: Path) -> Path | None:
    """The input folder ``raw`` when this server made it for a run (and it is still
    there), else None.

    Args:
        raw: the input folder a run's settings name, if any.
        uploads: the folder this server makes input folders in.

    Returns:
        The folder, or None.
    """
    if not isinstance(raw, str) or not raw:
        return None
    folder = Path(raw)
    made = folder.parent.resolve() == uploads.resolve() and not folder.name.startswith(".")
    return folder if made and folder.is_dir() and not folder.is_symlink() else None


def follow_up_input(folder: Path, relative: str, uploads: Path, job_id: str) -> Path:
    """A new input folder for job ``job_id`` holding the previous run's report, made as
    uploads are (every file written, then the folder named; nothing on failure).

    Args:
        folder: the previous run's folder.
        relative: its Markdown report's path inside that folder (opened without
            following a symbolic link at any level).
        uploads: the folder this server makes input folders in.
        job_id: the new job's id, the input folder's name.

    Returns:
        The new input folder.

    Raises:
        UploadRefused: the folder could not be made (it exists, or is a link).
        OSError: the disk refused it, or the report was refused (see
            :mod:`host.durability.run_files`).
    """
    try:
        name = check_name(relative.rsplit("/", 1)[-1])
    except UploadRefused:
        name = REPORT_NAME
    with opened(folder, relative) as handle:
        size = os.fstat(handle.fileno()).st_size
        upload = Upload(name, SimpleNamespace(file=handle), size)
        saved = save_uploads([upload], uploads, job_id)
    assert saved is not None  # one file was given
    return saved
