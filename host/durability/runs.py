"""Past runs, read from their folders: what ``quartet runs`` lists and ``quartet show``
prints, how every command that takes a run id finds its folder (:func:`find_run`), and
which input folder a resumed or replayed run mounts (:func:`chosen_input`).

A run folder holds ``internal/`` and ``workspace/``. Its status comes from what it left:

- ``internal/run.json``: the run ended; its ``status`` ("finished" unless it says
  "interrupted") and its exit code are recorded there;
- only ``internal/checkpoint.json``: it was stopped mid-way and can be resumed;
- neither: it stopped before its first checkpoint ("incomplete").

A run whose record cannot be read (a symbolic link on the way to it, a record larger
than :data:`MAX_RECORD_BYTES`, one that is not a JSON object) is "broken": one row that
says why, and nothing else read from it. Every file is read through
:mod:`.run_files`, which never follows a symbolic link below the runs folder.

This module reads JSON files only; it imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from subagents.failures import without_class_names

from ..printable import printable
from .run_files import FileRefused, is_plain_file, read_text

RUN_JSON = "internal/run.json"
CHECKPOINT_JSON = "internal/checkpoint.json"
PLAN_JSON = "internal/plan.json"
#: The question a run was started with (see :meth:`host.durability.run_folder.RunFolder.create`).
QUESTION_JSON = "internal/question.json"
#: What a run's folder name starts with: its UTC start time (see
#: :func:`host.durability.run_folder.new_run_id`).
ID_TIME = "%Y%m%d-%H%M%S"
#: The most bytes a run's record (``run.json``), plan or question may hold: a long run's
#: record is a few hundred kilobytes; a larger one is not read, and the run is broken.
MAX_RECORD_BYTES = 8 * 1024 * 1024
#: The most bytes of a checkpoint read (it holds every page's evidence: megabytes).
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024


#: The statuses of a part (see :mod:`research.coverage`), in the order counts tell them.
STATUS_ORDER = (
    "answered",
    "partly answered",
    "not found",
    "not researched",
    "in progress",
    "pending",
)


#: The words a part's status is shown in where they differ from the plan's: a part the
#: research never reached (the run stopped, failed or spent its budget first) was never
#: searched.
STATUS_WORDS = {"not researched": "not searched"}


def status_word(status: str) -> str:
    """A part's status as it is shown: ``not searched`` for ``not researched``.

    Args:
        status: the status the plan records (see :data:`STATUS_ORDER`).
    """
    return STATUS_WORDS.get(status, status)


def status_counts(statuses: Iterable[str]) -> dict[str, int]:
    """How many parts have each status, in :data:`STATUS_ORDER` (statuses none has are
    left out; an unknown status comes last)."""
    found = Counter(statuses)
    order = [*STATUS_ORDER, *sorted(set(found) - set(STATUS_ORDER))]
    return {status: found[status] for status in order if found[status]}


def told_counts(statuses: Iterable[str]) -> str:
    """The parts' statuses counted in words, e.g. ``3 answered, 1 partly answered (4
    parts)``: every count is read from the statuses the plan shows, so they always agree."""
    counts = status_counts(statuses)
    parts = sum(counts.values())
    if not parts:
        return "no parts"
    told = ", ".join(f"{n} {status_word(status)}" for status, n in counts.items())
    return f"{told} ({parts} part{'s' * (parts != 1)})"


#: A run's recorded status in words, where the record's word is not a person's: a run
#: stopped by its first stop wrote its report from what was found (as the web page's
#: "Stop" and the terminal's first Ctrl-C say), one stopped at once did not.
RUN_STATUS_WORDS = {"interrupted": "stopped early, report written"}
#: The most characters of the reason a failed run's status gives.
REASON_CHARS = 160
#: The most characters of a run's question, and of each part of its plan, kept when its
#: record is read: a question is a sentence or a paragraph, but a record from elsewhere
#: may hold megabytes, which every listing of the runs would hold and show. A longer one
#: is cut, ending in "…".
MAX_QUESTION_CHARS = 4_000
#: Why a run failed when it recorded no error: it ended without a report (exit status 1).
NO_REPORT = "no report was written"


def ran_failed(status: str, exit_code: int | None) -> bool:
    """Whether a run with ``status`` and ``exit_code`` failed: its record says so, or it
    finished without a report (exit status 1)."""
    return status == "failed" or (status == "finished" and exit_code == 1)


def told_status(
    status: str,
    exit_code: int | None = None,
    *,
    resumable: bool = False,
    reason: str = "",
    problem: str = "",
) -> str:
    """A run's status in words for a person rather than an exit code: "finished: found
    nothing", "stopped, can be resumed", "failed: <why>". Every page and command that
    tells a run's status (the runs list, the run's page, its live page once it ends,
    ``quartet runs`` and ``show``) tells it in these words.

    Args:
        status: the run's status (``finished``, ``stopped``, ``interrupted``,
            ``incomplete``, ``broken``, ``failed``), or a web job's state (``queued``,
            ``running``, ``cancelled``), told as it is.
        exit_code: the run's exit status, when it ended.
        resumable: whether it left a checkpoint a resume can start from.
        reason: why it failed, in words (cut to :data:`REASON_CHARS` characters).
        problem: why its record cannot be read, for a broken run.
    """
    if ran_failed(status, exit_code):
        return f"failed: {cut(reason, REASON_CHARS) if reason else NO_REPORT}"
    if status == "finished":
        if exit_code in (None, 0):
            return "finished"
        if exit_code == 3:
            return "finished: found nothing"
        return f"finished (exit {exit_code})"
    if status == "incomplete":
        return "stopped before it began"
    if status == "broken":
        return f"unreadable: {problem}"
    words = RUN_STATUS_WORDS.get(status, status)
    return f"{words}, can be resumed" if resumable else words


def status_style(status: str, exit_code: int | None = None) -> str:
    """A run's status as a style's name: a finished run that found nothing, or failed,
    is no success.

    Args:
        status: the run's status, or a web job's state (see :func:`told_status`).
        exit_code: the run's exit status, when it ended.
    """
    if ran_failed(status, exit_code):
        return "failed"
    return "not-found" if status == "finished" and exit_code == 3 else status


class RunNotFound(ValueError):
    """No run, or more than one, matches the id given; the message suggests close ids."""


class InputNotChosen(ValueError):
    """A run read an input folder, and the user did not choose to mount it again."""


def has_checkpoint(folder: Path) -> bool:
    """Whether a run folder holds the checkpoint a resume starts from (a plain file,
    reached without a symbolic link)."""
    return is_plain_file(Path(folder), CHECKPOINT_JSON)


@dataclass(frozen=True)
class SubQuestionState:
    """One part of a run's plan and how far it got."""

    id: str
    text: str
    status: str
    evidence: int


@dataclass(frozen=True)
class Failure:
    """A stage or source that failed: where, and why."""

    where: str
    reason: str


@dataclass(frozen=True)
class RunSummary:
    """One past run as ``quartet runs`` lists it."""

    id: str
    path: Path
    question: str
    status: str
    exit_code: int | None
    answered: int | None
    parts: int | None
    seconds: float | None
    started: datetime | None
    #: how many parts have each status (see :func:`status_counts`)
    counts: dict[str, int] = field(default_factory=dict)
    #: whether it left the checkpoint a resume starts from (see :func:`has_checkpoint`)
    checkpointed: bool = False
    #: why its record cannot be read, for a "broken" run (see :func:`_broken`)
    problem: str = ""
    #: why it failed, in words, for a failed run (see :func:`failure_reason`)
    reason: str = ""
    #: the formats of the reports its record lists (``md``, ``html`` …)
    reports: tuple[str, ...] = ()

    @property
    def resumable(self) -> bool:
        """Whether ``quartet resume`` can go on with it: a stopped or interrupted run
        that left a checkpoint (one stopped at once during start-up left none)."""
        return self.status in ("stopped", "interrupted") and self.checkpointed

    @property
    def not_resumable(self) -> str:
        """Why the run cannot be resumed, in words for a person; ``""`` when it can."""
        if self.resumable:
            return ""
        if self.status == "broken":
            return "its folder cannot be read"
        if self.failed:
            return "it failed, and a failed run is not resumed"
        if self.status == "finished":
            return "it has finished; there is nothing to resume"
        return "it stopped before its first checkpoint; there is nothing to resume"

    @property
    def can_run_again(self) -> bool:
        """Whether its question can be started again as a new run: it can be read (the
        run, whatever became of it, is not broken)."""
        return bool(self.question) and self.status != "broken"

    @property
    def failed(self) -> bool:
        """Whether the run failed: its record says so, or it ended without a report
        (exit status 1)."""
        return ran_failed(self.status, self.exit_code)

    @property
    def told(self) -> str:
        """The run's status in words for a person (see :func:`told_status`)."""
        return told_status(
            self.status,
            self.exit_code,
            resumable=self.resumable,
            reason=self.reason,
            problem=self.problem,
        )

    @property
    def state(self) -> str:
        """The status as a style's name (see :func:`status_style`)."""
        return status_style(self.status, self.exit_code)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": str(self.path),
            "question": self.question,
            "status": self.status,
            "exit_code": self.exit_code,
            "answered": self.answered,
            "parts": self.parts,
            "seconds": self.seconds,
            "started": self.started.isoformat() if self.started else None,
            "resumable": self.resumable,
            "counts": self.counts,
            "problem": self.problem,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class RunDetail:
    """One past run as ``quartet show`` prints it."""

    summary: RunSummary
    plan: list[SubQuestionState] = field(default_factory=list)
    outputs: list[Path] = field(default_factory=list)
    citations: int | None = None
    #: citations dropped, claims unsupported by their spans, claims checked, accuracy
    citation_check: dict[str, Any] = field(default_factory=dict)
    pages_read: int | None = None
    tokens: dict[str, int] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    #: each of the user's files with what became of it (``path``, ``use``, ``citations``,
    #: ``note``; see :mod:`research.inputs`)
    files: list[dict[str, Any]] = field(default_factory=list)

    def report(self, fmt: str) -> Path | None:
        """The run's report in format ``fmt`` (``md``, ``pdf`` …) when it is on disk."""
        return next((p for p in self.outputs if p.suffix == f".{fmt}" and p.is_file()), None)

    @property
    def archive(self) -> Path | None:
        """The zip of the run's reports with their images and copies (see
        :func:`report_archive`)."""
        return report_archive(self.outputs)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.summary.to_dict(),
            "plan": [vars(s) for s in self.plan],
            "outputs": [str(p) for p in self.outputs],
            "citations": self.citations,
            "citation_check": self.citation_check,
            "pages_read": self.pages_read,
            "tokens": self.tokens,
            "failures": [vars(f) for f in self.failures],
            "files": self.files,
        }


def report_archive(outputs: Sequence[Path]) -> Path | None:
    """The zip that holds a run's reports with their images and stored copies, for
    reading elsewhere: ``<name>.zip`` beside the first report, when it is on disk."""
    if not outputs:
        return None
    archive = outputs[0].with_suffix(".zip")
    return archive if archive.is_file() else None


def is_run_folder(path: Path) -> bool:
    """A folder with ``internal/`` and ``workspace/`` (``.demo-cache`` and others are not)."""
    return (
        not path.name.startswith(".")
        and (path / "internal").is_dir()
        and (path / "workspace").is_dir()
    )


def _object(folder: Path, relative: str, limit: int = MAX_RECORD_BYTES) -> dict[str, Any] | None:
    """The JSON object in the file ``relative`` of the run folder ``folder``; None when
    it is not there or holds no JSON object.

    Raises:
        FileRefused: the file is refused (a symbolic link on the way to it, not a plain
            file, larger than ``limit`` bytes; see :mod:`.run_files`).
    """
    try:
        data = json.loads(read_text(folder, relative, limit))
    except FileNotFoundError:
        return None
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return data if isinstance(data, dict) else None


def _record(folder: Path) -> dict[str, Any] | None:
    """The run's record (``run.json``); None when it has none (it did not end).

    Raises:
        FileRefused: the record is refused (see :func:`_object`), or is no JSON object:
            the run is broken.
    """
    try:
        data = json.loads(read_text(folder, RUN_JSON, MAX_RECORD_BYTES))
    except FileNotFoundError:
        return None
    except (ValueError, RecursionError):
        raise FileRefused(f"{RUN_JSON} is not readable JSON") from None
    if not isinstance(data, dict):
        raise FileRefused(f"{RUN_JSON} holds no record (not a JSON object)")
    return data


def _started(run_id: str, path: Path, record: dict[str, Any]) -> datetime | None:
    """When the run started: run.json's ``started``, else its id, else its folder's mtime."""
    raw = record.get("started")
    stamp = _number(raw)
    if stamp is not None:
        with contextlib.suppress(OverflowError, OSError, ValueError):
            return datetime.fromtimestamp(stamp, UTC)
    if isinstance(raw, str):
        try:
            when = datetime.fromisoformat(raw)
        except ValueError:
            pass
        else:
            return when if when.tzinfo else when.replace(tzinfo=UTC)
    try:
        return datetime.strptime(run_id[:15], ID_TIME).replace(tzinfo=UTC)
    except ValueError:
        pass
    try:
        return datetime.fromtimestamp(path.lstat().st_mtime, UTC)
    except (OSError, OverflowError, ValueError):
        return None


def plan_of(path: Path) -> dict[str, Any]:
    """The plan of the run in folder ``path`` as recorded (see :func:`_plan_of`); ``{}``
    when none was, or when what holds it cannot be read."""
    try:
        return _plan_of(path, _record(path) or {})
    except FileRefused:
        return {}


def glossary_of(path: Path) -> list[dict[str, Any]]:
    """The glossary the run in folder ``path`` compared words with, as its settings
    recorded it (run.json, else the checkpoint); ``[]`` when none was recorded or what
    holds it cannot be read."""
    try:
        record = _record(path) or {}
        settings = record.get("settings")
        if not isinstance(settings, dict):
            settings = (_object(path, CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES) or {}).get("settings")
    except FileRefused:
        return []
    glossary = settings.get("glossary") if isinstance(settings, dict) else None
    return [g for g in glossary if isinstance(g, dict)] if isinstance(glossary, list) else []


def _plan_of(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """The run's plan: from run.json, else plan.json, else the checkpoint.

    Raises:
        FileRefused: a file it is read from is refused (see :func:`_object`).
    """
    for source in (
        lambda: record.get("plan"),
        lambda: _object(path, PLAN_JSON),
        lambda: (_object(path, CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES) or {}).get("plan"),
    ):
        plan = source()
        if isinstance(plan, dict) and isinstance(plan.get("subquestions"), list):
            return plan
    return {}


def _subquestions(plan: dict[str, Any]) -> list[SubQuestionState]:
    return [
        SubQuestionState(
            id=str(s.get("id", "")),
            text=cut(str(s.get("text", "")), MAX_QUESTION_CHARS),
            status=str(s.get("status", "pending")),
            evidence=len(_list(s.get("evidence_ids"))),
        )
        for s in _list(plan.get("subquestions"))
        if isinstance(s, dict)
    ]


def _list(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one (a record edited by hand or from
    elsewhere may hold anything where a list belongs)."""
    return value if isinstance(value, list) else []


#: The largest figure a run record's number may hold (a count, seconds, a timestamp);
#: beyond it, or not finite, the number is taken as missing.
LARGEST_FIGURE = 1e12


def _number(value: Any) -> float | None:
    """A finite number of a run record within :data:`LARGEST_FIGURE`, else None (a record
    edited by hand or from elsewhere may hold ``1e999``, ``NaN`` or a string)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    number = float(value)
    return number if math.isfinite(number) and abs(number) <= LARGEST_FIGURE else None


def _integer(value: Any) -> int | None:
    number = _number(value)
    return None if number is None else int(number)


def _summary(path: Path) -> tuple[RunSummary, dict[str, Any], dict[str, Any]]:
    """The run's summary, its plan and its record (for :func:`read_run`); a broken run's
    (see :func:`_broken`) when a file it is read from is refused."""
    try:
        record = _record(path)
        checkpointed = has_checkpoint(path)
        data = record or {}
        if record is not None:
            status = str(record.get("status") or "finished")
        elif checkpointed:
            status = "stopped"
        else:
            status = "incomplete"
        plan = _plan_of(path, data)
        question = data.get("question") or plan.get("question")
        if not question and status == "stopped":
            checkpoint = _object(path, CHECKPOINT_JSON, MAX_CHECKPOINT_BYTES) or {}
            question = checkpoint.get("question")
        if not question:  # stopped before its first checkpoint: the question it was given
            question = (_object(path, QUESTION_JSON) or {}).get("question")
    except FileRefused as exc:
        return _broken(path, str(exc)), {}, {}
    subs = _subquestions(plan)
    counts = status_counts(s.status for s in subs)
    # what the plan's statuses say, so that the count and the plan never disagree
    answered = counts.get("answered", 0) if subs else _integer(data.get("answered"))
    summary = RunSummary(
        id=path.name,
        path=path,
        question=cut(str(question or ""), MAX_QUESTION_CHARS),
        status=status,
        exit_code=_integer(data.get("exit_code")),
        answered=answered,
        parts=len(subs) if subs else None,
        seconds=_number(data.get("seconds")),
        started=_started(path.name, path, data),
        counts=counts,
        checkpointed=checkpointed,
        reports=_report_formats(data.get("outputs")),
    )
    if summary.failed:
        summary = replace(summary, reason=failure_reason(data))
    return summary, plan, data


def _report_formats(outputs: Any) -> tuple[str, ...]:
    """The formats of the reports a record's ``outputs`` lists, each once, in order."""
    suffixes = (PurePosixPath(str(o)).suffix.removeprefix(".") for o in _list(outputs))
    return tuple(dict.fromkeys(s for s in suffixes if s))


def failure_reason(record: dict[str, Any]) -> str:
    """Why a run failed, in words, from its record: its first error (the run's own comes
    first; a class name leading it is left out), on one line, cut to
    :data:`REASON_CHARS` characters; ``""`` when it recorded none.

    Args:
        record: the run's ``run.json``.
    """
    for error in _list(record.get("errors")):
        said = " ".join(without_class_names(printable(str(error))).split())
        if said:
            return cut(said, REASON_CHARS)
    return ""


def cut(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit - 1``
    and "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _broken(path: Path, problem: str) -> RunSummary:
    """A run none of whose files is read any more, because one was refused (``problem``
    says which and why): listed as one "broken" row, never followed."""
    return RunSummary(
        id=path.name,
        path=path,
        question="",
        status="broken",
        exit_code=None,
        answered=None,
        parts=None,
        seconds=None,
        started=_started(path.name, path, {}),
        problem=problem,
    )


def list_runs(runs_dir: Path) -> list[RunSummary]:
    """Every run in ``runs_dir``, newest first; none when the folder does not exist. A
    run whose record cannot be read is listed as broken (see :func:`_broken`)."""
    runs = [_summary(p)[0] for p in _folders(runs_dir)]
    epoch = datetime.fromtimestamp(0, UTC)
    return sorted(runs, key=lambda r: (r.started or epoch, r.id), reverse=True)


def summary_of(runs_dir: Path, run_id: str) -> RunSummary | None:
    """The summary of run ``run_id`` (its exact id, not a prefix) in ``runs_dir``; None
    when there is no such run, or its folder is a symbolic link."""
    try:
        folder = find_run(runs_dir, run_id)
    except (RunNotFound, OSError):
        return None
    if folder.name != run_id or folder.is_symlink():
        return None
    try:
        return _summary(folder)[0]
    except OSError:  # the folder went away while it was read
        return None


def find_run(runs_dir: Path, ref: str) -> Path:
    """The folder of run ``ref`` (its id, or a prefix only one id has).

    Every command that takes a run id (``show``, ``resume``, ``replay``) finds it here.
    Only a run folder listed in ``runs_dir`` can match: an absolute path, ``..`` or a
    path with a slash never does, so no command reaches a folder outside ``runs_dir``.

    Raises RunNotFound naming close ids when there is no such run or the prefix is
    ambiguous.
    """
    ref = ref.strip().rstrip("/")
    ids = sorted(p.name for p in _folders(runs_dir))
    if ref in ids:
        return runs_dir / ref
    matches = [i for i in ids if ref and i.startswith(ref)]
    if len(matches) == 1:
        return runs_dir / matches[0]
    if matches:
        shown = ", ".join(matches[:5]) + (", …" if len(matches) > 5 else "")
        raise RunNotFound(f"{ref!r} starts more than one run id in {runs_dir}: {shown}")
    near = difflib.get_close_matches(ref, ids, n=3, cutoff=0.75)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    if not ids:
        hint = " (it has no runs)"
    raise RunNotFound(f"no run {ref!r} in {runs_dir}{hint}")


def recorded_number(raw: object) -> float | None:
    """A positive, finite number read from a run folder (a count, a budget), or None."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return raw if 0 < raw < float("inf") else None


def recorded_budgets(
    saved: Mapping[str, Any], default: tuple[int | None, float | None]
) -> tuple[int | None, float | None]:
    """The token and cost budgets a run folder kept (``max_tokens``, ``max_cost``): a
    positive, finite number, else none; a budget it does not mention keeps ``default``'s."""
    tokens = recorded_number(saved["max_tokens"]) if "max_tokens" in saved else default[0]
    cost = recorded_number(saved["max_cost"]) if "max_cost" in saved else default[1]
    return (int(tokens) if tokens else None), (float(cost) if cost else None)


def chosen_input(
    run_id: str,
    recorded: object,
    given: Path | None,
    confirm: Callable[[Path], bool] | None,
) -> Path | None:
    """The folder a resumed or replayed run mounts as ``/userinput/``.

    A run folder only says where its inputs were; it never decides what is mounted, since
    one from elsewhere could name any local folder. The user's ``--input`` is used as it
    is. Without it, a run that had an input folder mounts it again only when the user
    confirms it; a run that had none mounts none.

    Args:
        run_id: the run's id (for the messages).
        recorded: the input folder written in the run's checkpoint or ``run.json``.
        given: the folder of the user's ``--input``, or None.
        confirm: asks the user whether to mount the recorded folder again; None when
            nobody can be asked (no terminal).

    Returns:
        The folder to mount, or None for no input folder.

    Raises:
        InputNotChosen: the run had an input folder, no ``--input`` was given, and the
            user could not be asked or did not confirm it.
    """
    if given is not None:
        return given
    if recorded is None or recorded == "":
        return None
    shown = printable(str(recorded))
    choose = "give the input folder to mount with --input DIR"
    if not isinstance(recorded, str):
        raise InputNotChosen(f"run {run_id}: its recorded input folder is not a path; {choose}")
    folder = Path(recorded)
    if confirm is None:
        raise InputNotChosen(
            f"run {run_id} read its input files from {shown}, a folder named by the run "
            f"folder, not by you; {choose}"
        )
    if not folder.is_dir():
        raise InputNotChosen(f"run {run_id}: its input folder {shown} is gone; {choose}")
    if not confirm(folder):
        raise InputNotChosen(f"run {run_id}: its input folder was not mounted; {choose}")
    return folder


def _folders(runs_dir: Path) -> list[Path]:
    try:
        return [p for p in runs_dir.iterdir() if is_run_folder(p)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _flagged(record: dict[str, Any]) -> list[Failure]:
    """Tasks whose outcomes named evidence ids or paths the run does not have."""
    out = []
    for d in _list(record.get("delegations")):
        if not isinstance(d, dict):
            continue
        unknown = [*_list(d.get("unknown_evidence_ids")), *_list(d.get("unknown_paths"))]
        if unknown:
            where = f"{d.get('subagent', 'a task')} {d.get('id', '')}".strip()
            named = ", ".join(str(u) for u in unknown[:5])
            out.append(
                Failure(where=where, reason=f"its outcome named what does not exist: {named}")
            )
    return out


def _failures(record: dict[str, Any]) -> list[Failure]:
    """Delegations that did not end ok, the run's errors, and tools whose calls failed;
    their reasons in words (a class name a record from an older version leads a reason
    with is left out)."""
    failures: list[Failure] = []
    for d in _list(record.get("delegations")):
        if not isinstance(d, dict) or d.get("status", "ok") == "ok":
            continue
        where = " ".join(
            str(part)
            for part in (
                d.get("subagent"),
                d.get("id"),
                d.get("subquestion") and f"({d['subquestion']})",
            )
            if part
        )
        reason = without_class_names(str(d.get("error") or d.get("status")))
        failures.append(Failure(where=where or "a stage", reason=reason))
    failures += _flagged(record)
    for refusal in _list(record.get("host_refusals")):
        if isinstance(refusal, dict):
            tool, why = refusal.get("tool", "?"), refusal.get("reason") or refusal.get("status")
            failures.append(Failure(where="host", reason=f"{tool} refused: {why}"))
    failed_calls = Counter(
        str(call.get("tool"))
        for call in _list(record.get("tool_calls"))
        if isinstance(call, dict) and call.get("ok") is False
    )
    for tool, count in failed_calls.items():
        failures.append(Failure(where=tool, reason=f"{count} failed call{'s' * (count > 1)}"))
    for error in _list(record.get("errors")):
        failures.append(Failure(where="run", reason=without_class_names(str(error))))
    return failures


def _check(raw: Any) -> dict[str, Any]:
    """The citation figures of a run record, numbers only."""
    if not isinstance(raw, dict):
        return {}
    return {
        str(k): v for k, v in raw.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def _files(raw: Any) -> list[dict[str, Any]]:
    """The file uses of a run record, each with its four fields (others left out)."""
    if not isinstance(raw, list):
        return []
    return [
        {
            "path": str(f.get("path", "")),
            "use": str(f.get("use", "")),
            "citations": _integer(f.get("citations")) or 0,
            "note": str(f.get("note") or ""),
        }
        for f in raw
        if isinstance(f, dict) and f.get("path") and f.get("use")
    ]


def read_run(path: Path) -> RunDetail:
    """Everything ``quartet show`` prints about the run in folder ``path``."""
    summary, plan, data = _summary(path)
    tokens = data.get("tokens") if isinstance(data.get("tokens"), dict) else {}
    return RunDetail(
        summary=summary,
        plan=_subquestions(plan),
        outputs=[path / str(o).lstrip("/") for o in _list(data.get("outputs"))],
        citations=_integer(data.get("citations")),
        citation_check=_check(data.get("citation_check")),
        pages_read=_integer(data.get("pages_read")),
        tokens={str(k): v for k, v in tokens.items() if isinstance(v, int)},
        failures=_failures(data),
        files=_files(data.get("files")),
    )
