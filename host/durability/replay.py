"""``quartet replay RUN_ID``: a recorded run again, from its tape, with no network, no keys.

A run made with ``--record`` keeps every model answer, HTTP response and name resolution
on its tape (:mod:`subagents.tape`, :mod:`host.brains.tape`). A replay starts a new run with the
recorded question and settings; the model is a :class:`host.brains.tape.ReplayModel` and every
HTTP client and the resolver answer from the tape, so nothing reaches the network and no
key is needed (the tools get a placeholder for each key the run had, so the same search
sources take part, and the run masks the placeholders as it masked the keys; no
environment variable is changed).

A recording may come from anyone (one attached to a bug report, say), so nothing in it
reaches the process environment, a path or an import: of its key names only the
project's own credential variables (:data:`subagents.secrets.SECRET_VARS`) get a
placeholder; its endpoints are URLs of the known search sources only; and the input
folder is never taken from it: it is the user's ``--input``, the bundled demo inputs
for a demo recording, or the recorded folder once the user confirms it
(:func:`host.durability.runs.chosen_input`).

The replay then compares itself with the recording: the model requests (each must end
the way the recorded one did), the plan and each sub-question's status, the tasks, the
citations and the Markdown report. The first difference found is the one reported; the
new run's ``/internal/replay.json`` lists them all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from subagents.generate.notes import without_colophon
from subagents.registry_value import source_names
from subagents.secrets import SECRET_VARS
from subagents.settings import Keys, NetworkPolicy

from ..config import FORMATS, ConfigError, Settings, parse_glossary
from .run_files import read_text
from .runs import MAX_RECORD_BYTES, chosen_input, find_run, recorded_budgets, recorded_number

if TYPE_CHECKING:
    from subagents.tape import Tape

    from .run_folder import RunFolder

#: The most bytes of a recorded run's Markdown report read to compare it with the replay's.
MAX_REPORT_BYTES = 32 * 1024 * 1024


class Replayed(Protocol):
    """What the comparison reads of the replay's new run (the Host's run result)."""

    run: RunFolder

    def record(self) -> dict[str, Any]:
        """The run's ``run.json`` record."""
        ...


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
        saved = self.record.get("settings")
        return dict(saved) if isinstance(saved, dict) else {}

    @property
    def key_names(self) -> list[str]:
        """The recorded key names that are the project's own credential variables."""
        return known_key_names(self.settings.get("key_names"))

    @property
    def is_demo(self) -> bool:
        """Whether the recorded run researched the bundled demo world."""
        origin = self.settings.get("origin")
        return isinstance(origin, dict) and origin.get("kind") == "demo"


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
    try:  # never through a link: a run folder may come from elsewhere
        record = json.loads(read_text(folder, "internal/run.json", MAX_RECORD_BYTES))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"run {folder.name}: its run.json cannot be read ({exc})") from None
    if not isinstance(record, dict):
        raise ConfigError(f"run {folder.name}: its run.json is not a run record")
    if not isinstance(record.get("question"), str) or not record["question"].strip():
        raise ConfigError(f"run {folder.name}: its run.json has no question")
    recording = Recording(folder, record)
    if not recording.settings.get("record") or not (folder / "internal" / "tape").is_dir():
        raise ConfigError(
            f"run {folder.name} was not recorded; record a run with --record to replay it"
        )
    return recording


def replay_input(
    base: Settings,
    recording: Recording,
    given: Path | None,
    confirm: Callable[[Path], bool] | None,
    demo_inputs: Callable[[Path], Path],
) -> Path | None:
    """The input folder of a replay: the user's ``given`` one (``--input``); else, for a
    demo recording, the bundled demo inputs (``demo_inputs`` writes them into the folder
    it is given and returns where); else the recorded folder once the user confirms it
    (see :func:`host.durability.runs.chosen_input`)."""
    if given is None and recording.is_demo:
        return demo_inputs(base.runs_dir / ".demo-cache")
    return chosen_input(recording.id, recording.settings.get("input_dir"), given, confirm)


def replay_settings(base: Settings, recording: Recording, input_dir: Path | None) -> Settings:
    """``base`` with what the recorded run used: model, budgets, formats, and the tools
    pointed at the recorded endpoints under the recorded network policy; ``input_dir``
    is the input folder chosen by :func:`replay_input`."""
    saved = recording.settings
    network = saved.get("network") if isinstance(saved.get("network"), dict) else {}
    entries = network.get("entries") if isinstance(network.get("entries"), list) else []
    policy = NetworkPolicy.parse(",".join(map(str, entries)), only=bool(network.get("only")))
    tools = replace(
        base.tools,
        endpoints=_endpoints(saved.get("endpoints")),
        network=policy,
        keys=Keys({name: placeholder(name) for name in recording.key_names}),
    )
    formats = saved.get("formats") if isinstance(saved.get("formats"), list) else []
    max_tokens, max_cost = recorded_budgets(saved, (base.max_tokens, base.max_cost))
    return replace(
        base,
        model=str(recording.record.get("brain") or saved.get("model") or "offline"),
        formats=tuple(f for f in formats if f in FORMATS) or base.formats,
        max_rounds=_count(saved.get("max_rounds"), base.max_rounds),
        max_pages=_count(saved.get("max_pages"), base.max_pages),
        concurrency=_count(saved.get("concurrency"), base.concurrency),
        max_tokens=max_tokens,
        max_cost=max_cost,
        input_dir=input_dir,
        tools=tools,
        glossary=parse_glossary(saved.get("glossary") or []),
        record=False,
        mcp_servers=[],
        extra={**base.extra, "origin": {"kind": "replay", "of": recording.id}},
    )


def known_key_names(names: object) -> list[str]:
    """Of ``names`` (a recording's ``key_names``), the project's own credential variables.

    Any other name (``PYTHONPATH``, ``LD_PRELOAD``, ``PATH``…) is dropped: a recording
    never chooses which variables a replay sets.
    """
    wanted = {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()
    return [name for name in SECRET_VARS if name in wanted]


def _count(raw: object, default: int) -> int:
    """A recorded count: a positive number, else ``default``."""
    return int(recorded_number(raw) or default)


def _endpoints(raw: object) -> dict[str, str]:
    """A recording's search endpoints: URLs of the current registry's sources only."""
    if not isinstance(raw, dict):
        return {}
    names = source_names()
    return {k: v for k, v in raw.items() if k in names and isinstance(v, str)}


def placeholder(name: str) -> str:
    """The stand-in value of key ``name`` in a replay (its recorded requests show ``***``)."""
    return f"replay-placeholder-{name.lower()}"


def compare(recording: Recording, result: Replayed, tape: Tape) -> Verdict:
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
                "the Markdown report: "
                f"{_first_difference(old_report.splitlines(), new_report.splitlines())}"
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
    """The run's Markdown report without its colophon: the replay's own date (and
    version) differs from the recording's, its content must not."""
    for path in record.get("outputs") or []:
        if str(path).endswith(".md"):
            try:  # inside the run folder only, never through a link
                return without_colophon(read_text(folder, str(path), MAX_REPORT_BYTES))
            except OSError:
                return None
    return None


def _first_difference(old: list[Any], new: list[Any]) -> str:
    for n, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return f"item {n + 1} is {b!r} where the recording has {a!r}"
    return f"{len(new)} item{'s' * (len(new) != 1)} where the recording has {len(old)}"
