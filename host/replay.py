"""``quartet replay RUN_ID``: a recorded run again, from its tape, with no network, no keys.

A run made with ``--record`` keeps every model answer, HTTP response and name resolution
on its tape (:mod:`subagents.tape`, :mod:`host.tape`). A replay starts a new run with the
recorded question and settings; the model is a :class:`host.tape.ReplayModel` and every
HTTP client and the resolver answer from the tape, so nothing reaches the network and no
key is needed (the names of the keys the run had are set to placeholders, so the same
search sources take part). Input files are read again from the recorded input folder.

The replay then compares itself with the recording: the model requests (each must end
the way the recorded one did), the plan and each sub-question's status, the tasks, the
citations and the Markdown report. The first difference found is the one reported; the
new run's ``/internal/replay.json`` lists them all.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from subagents.settings import Keys, NetworkPolicy

from .config import ConfigError, Settings, parse_glossary
from .runs import find_run

if TYPE_CHECKING:
    from subagents.tape import Tape

    from .hub import RunResult


@dataclass
class Recording:
    """A recorded run: its folder, its ``run.json`` and the settings it kept."""

    folder: Path
    record: dict[str, Any]

    @property
    def id(self) -> str:
        return self.folder.name

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.record.get("settings") or {})


@dataclass
class Verdict:
    """How a replay compares with its recording."""

    of: str
    divergences: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> bool:
        return not self.divergences

    def to_dict(self) -> dict[str, Any]:
        return {
            "of": self.of,
            "reproduced": self.reproduced,
            "divergences": self.divergences,
            "unused": self.unused,
        }


def open_recording(runs_dir: Path, run_id: str) -> Recording:
    """The recorded run ``run_id``; ConfigError when it cannot be replayed."""
    folder = find_run(runs_dir, run_id)
    path = folder / "internal" / "run.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"run {folder.name}: its run.json cannot be read ({exc})") from None
    saved = record.get("settings") or {}
    if not saved.get("record") or not (folder / "internal" / "tape").is_dir():
        raise ConfigError(
            f"run {folder.name} was not recorded; record a run with --record to replay it"
        )
    inputs = saved.get("input_dir")
    if inputs and not Path(inputs).is_dir():
        raise ConfigError(f"run {folder.name}: its input folder {inputs} is gone")
    return Recording(folder, record)


def replay_settings(base: Settings, recording: Recording) -> Settings:
    """``base`` with what the recorded run used: model, budgets, formats, inputs, and the
    tools pointed at the recorded endpoints under the recorded network policy."""
    saved = recording.settings
    network = saved.get("network") or {}
    policy = NetworkPolicy.parse(
        ",".join(network.get("entries", [])),
        only=bool(network.get("only")),
    )
    tools = replace(
        base.tools,
        endpoints=dict(saved.get("endpoints") or {}),
        network=policy,
        keys=Keys({name: placeholder(name) for name in saved.get("key_names", [])}),
    )
    return replace(
        base,
        model=str(recording.record.get("brain") or saved.get("model") or "offline"),
        formats=tuple(saved.get("formats") or base.formats),
        max_rounds=int(saved.get("max_rounds") or base.max_rounds),
        max_pages=int(saved.get("max_pages") or base.max_pages),
        concurrency=int(saved.get("concurrency") or base.concurrency),
        input_dir=Path(saved["input_dir"]) if saved.get("input_dir") else None,
        tools=tools,
        glossary=parse_glossary(saved.get("glossary") or []),
        record=False,
        mcp_servers=[],
        extra={**base.extra, "origin": {"kind": "replay", "of": recording.id}},
    )


def placeholder(name: str) -> str:
    """The stand-in value of key ``name`` in a replay (its recorded requests show ``***``)."""
    return f"replay-placeholder-{name.lower()}"


@contextlib.contextmanager
def placeholder_keys(names: list[str]) -> Iterator[None]:
    """Set each key variable to its placeholder, so the scrubber masks it as it masked the
    real key when the run was recorded; the environment is restored afterwards."""
    before = {name: os.environ.get(name) for name in names}
    os.environ.update({name: placeholder(name) for name in names})
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def compare(recording: Recording, result: RunResult, tape: Tape) -> Verdict:
    """What differs between the replay ``result`` and the recording."""
    verdict = Verdict(recording.id, list(tape.divergences))
    verdict.unused = tape.unused()
    record = recording.record
    model_left = [u for u in verdict.unused if u.startswith("model ")]
    if model_left:
        verdict.divergences.append(
            f"the replay ended before using every recorded model answer: {model_left[0]}"
        )
    replayed = result.record()
    for name in ("status", "exit_code", "answered", "citations"):
        if record.get(name) != replayed.get(name):
            verdict.divergences.append(
                f"{name}: {replayed.get(name)!r} where the recording has {record.get(name)!r}"
            )
    for what, old, new in (
        ("plan", _plan(record), _plan(replayed)),
        ("tasks", _tasks(record), _tasks(replayed)),
    ):
        if old != new:
            verdict.divergences.append(f"{what}: {_first_difference(old, new)}")
    old_report, new_report = _report(recording.folder, record), _report(result.run.path, replayed)
    if old_report is not None and new_report is not None:
        new_report = new_report.replace(result.run.id, recording.id)
        if old_report != new_report:
            verdict.divergences.append(
                f"report.md: {_first_difference(old_report.splitlines(), new_report.splitlines())}"
            )
    return verdict


def _plan(record: dict[str, Any]) -> list[tuple[str, str]]:
    subs = (record.get("plan") or {}).get("subquestions") or []
    return [(str(s.get("text")), str(s.get("status"))) for s in subs]


def _tasks(record: dict[str, Any]) -> list[tuple[str, str]]:
    """The tasks as (subagent, status), in a stable order (concurrent tasks may start in
    either order)."""
    return sorted(
        (str(d.get("subagent")), str(d.get("status"))) for d in record.get("delegations") or []
    )


def _report(folder: Path, record: dict[str, Any]) -> str | None:
    for path in record.get("outputs") or []:
        if str(path).endswith(".md"):
            disk = folder / str(path).lstrip("/")
            return disk.read_text(encoding="utf-8") if disk.is_file() else None
    return None


def _first_difference(old: list[Any], new: list[Any]) -> str:
    for n, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return f"item {n + 1} is {b!r} where the recording has {a!r}"
    return f"{len(new)} items where the recording has {len(old)}"
