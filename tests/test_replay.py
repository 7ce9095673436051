"""Record and replay: a scripted-LLM run recorded with ``--record`` runs again from its
recording with every server stopped and no key, and says where a replay diverges."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest
from cli_support import shared_cache
from openai_server import ScriptedOpenAI

from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import make_brain
from host.config import ConfigError, Settings
from host.durability import replay as replay_module
from host.durability.replay import known_key_names, placeholder
from host.orchestration.hub import Host
from quartet.cli import main, rerun
from quartet.cli.parser import build_parser
from quartet.cli.running import settings_of

CANARY = "sk-replay-canary-7f3e1b"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A recorded LLM run on the demo world; the world and the model server are gone
    once the fixture has it."""
    runs = tmp_path_factory.mktemp("replay") / "runs"
    with pytest.MonkeyPatch.context() as monkeypatch, ScriptedOpenAI() as server:
        monkeypatch.setenv("OPENAI_API_KEY", CANARY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = Settings(runs_dir=runs, formats=("md", "html"), quiet=True, record=True)
        with demo_world(shared_cache()) as world:
            host = Host(demo_settings(settings, world), make_brain("openai:loopback-model"))
            result = asyncio.run(host.run(world.question))
        asked = len(server.requests)
    assert result.exit_code == 0 and result.citations > 0
    return runs, result, asked


def run_ids(runs: Path) -> set[str]:
    """The run folders in ``runs`` (not ``.demo-cache``, where a demo replay's inputs are)."""
    return {p.name for p in runs.iterdir() if not p.name.startswith(".")}


def _replay(runs: Path, run_id: str, capsys) -> tuple[int, str, str]:
    code = main(["replay", run_id, "--runs-dir", str(runs)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_tape_holds_every_model_answer_and_no_key(recorded):
    _, result, asked = recorded
    tape = result.run.path / "internal" / "tape"
    files = sorted(tape.iterdir())
    kinds = [json.loads(f.read_text())["kind"] for f in files if f.suffix == ".json"]
    assert kinds.count("model") == asked  # every request the model server answered
    assert kinds.count("http") > 0  # and the search engines' and pages' responses
    assert not any(CANARY.encode() in f.read_bytes() for f in files)
    record = json.loads((result.run.path / "internal" / "run.json").read_text())
    assert record["settings"]["record"] is True


def test_a_replay_reproduces_the_run_with_no_network_and_no_key(recorded, capsys, monkeypatch):
    runs, result, _ = recorded
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    before = run_ids(runs)
    code, out, err = _replay(runs, result.run.id, capsys)
    assert code == 0, err
    assert "Reproduced" in out
    (new_id,) = run_ids(runs) - before
    new = runs / new_id
    verdict = json.loads((new / "internal" / "replay.json").read_text())
    assert verdict == {"of": result.run.id, "reproduced": True, "divergences": [], "unused": []}
    old_md = (result.run.path / "workspace" / "reports" / "report.md").read_text()
    new_md = (new / "workspace" / "reports" / "report.md").read_text()
    assert new_md.replace(new_id, result.run.id) == old_md
    replayed = json.loads((new / "internal" / "run.json").read_text())
    assert replayed["citations"] == result.citations
    assert replayed["settings"]["origin"] == {"kind": "replay", "of": result.run.id}


def test_a_changed_answer_is_reported_as_the_first_divergence(recorded, capsys, tmp_path):
    _, result, _ = recorded
    copy = tmp_path / "runs"
    shutil.copytree(result.run.path, copy / result.run.id)
    tape = copy / result.run.id / "internal" / "tape"
    planner = next(  # the first model answer: the plan
        f for f in sorted(tape.glob("*-model.json")) if json.loads(f.read_text())["key"] == "host#0"
    )
    entry = json.loads(planner.read_text())
    text = json.dumps(entry["content"], ensure_ascii=False)
    assert "How was the Grand Canal built?" in text
    entry["content"] = json.loads(
        text.replace("How was the Grand Canal built?", "Who paid for the Grand Canal?")
    )
    planner.write_text(json.dumps(entry, ensure_ascii=False))
    code, _, err = _replay(copy, result.run.id, capsys)
    assert code == 1
    first = next(line for line in err.splitlines() if line.startswith("quartet: "))
    assert first.startswith("quartet: the replay diverged: model request 2 of host differs")
    assert "Who paid for the Grand Canal?" in first


def test_only_a_recorded_run_can_be_replayed(recorded, tmp_path, capsys):
    _, result, _ = recorded
    copy = tmp_path / "runs"
    shutil.copytree(result.run.path, copy / result.run.id, ignore=shutil.ignore_patterns("tape"))
    with pytest.raises(SystemExit) as stop:
        main(["replay", result.run.id, "--runs-dir", str(copy)])
    assert stop.value.code == 2
    assert "was not recorded; record a run with --record" in capsys.readouterr().err


def test_record_is_a_flag_of_run_and_demo(tmp_path):
    parser = build_parser()
    for argv in (["demo", "--record"], ["run", "a question", "--record"]):
        args = parser.parse_args([*argv, "--runs-dir", str(tmp_path)])
        assert settings_of(args).record is True
    assert settings_of(parser.parse_args(["demo", "--runs-dir", str(tmp_path)])).record is False


class Stop(Exception):
    """Raised by a spy to end a command once it has seen what the test looks at."""


def tampered(recording: Path, into: Path, **settings: object) -> Path:
    """A copy of ``recording`` in the runs folder ``into``, its recorded settings changed."""
    copy = into / recording.name
    shutil.copytree(recording, copy)
    path = copy / "internal" / "run.json"
    record = json.loads(path.read_text())
    record["settings"].update(settings)
    path.write_text(json.dumps(record))
    return copy


def test_a_replay_changes_no_environment_variable(recorded, tmp_path, monkeypatch):
    _, result, _ = recorded
    names = ["PYTHONPATH", "LD_PRELOAD", "PATH", "HOME", "OPENAI_API_KEY", 7, "openai_api_key"]
    copy = tampered(result.run.path, tmp_path / "runs", key_names=names)
    trap = tmp_path / "cwd" / "replay-placeholder-pythonpath"
    trap.mkdir(parents=True)
    (trap / "sitecustomize.py").write_text("raise SystemExit('the recording ran code')\n")
    monkeypatch.chdir(tmp_path / "cwd")
    watched = ("PYTHONPATH", "LD_PRELOAD", "PATH", "HOME", "OPENAI_API_KEY")
    before = {name: os.environ.get(name) for name in watched}
    seen: dict[str, str | None] = {}

    real_settings = replay_module.replay_settings
    keys: list[dict[str, str]] = []

    def settings_spy(*args):
        settings = real_settings(*args)
        keys.append(dict(settings.tools.keys))
        return settings

    def spy(work):  # the replay runs here
        work.close()
        seen.update({name: os.environ.get(name) for name in watched})
        raise Stop

    monkeypatch.setattr(rerun, "run_async", spy)
    monkeypatch.setattr(replay_module, "replay_settings", settings_spy)
    with pytest.raises(Stop):
        main(["replay", copy.name, "--runs-dir", str(tmp_path / "runs")])
    assert seen == before and {name: os.environ.get(name) for name in watched} == before
    assert keys == [{"OPENAI_API_KEY": placeholder("OPENAI_API_KEY")}]  # the own key only
    assert known_key_names(names) == ["OPENAI_API_KEY"]
    assert known_key_names("PYTHONPATH") == [] and known_key_names({"PATH": 1}) == []


def _replay_inputs(monkeypatch) -> list[Path | None]:
    """Spy on the replay's settings: the input folder each replay would mount (the
    replay itself is stopped)."""
    mounted: list[Path | None] = []
    real = replay_module.replay_settings

    def spy(base, recording, input_dir):
        mounted.append(input_dir)
        real(base, recording, input_dir)
        raise Stop

    monkeypatch.setattr(replay_module, "replay_settings", spy)
    return mounted


def test_a_replay_mounts_no_input_folder_the_recording_names(
    recorded, tmp_path, monkeypatch, capsys
):
    _, result, _ = recorded
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("not for the recording")
    runs = tmp_path / "runs"
    copy = tampered(result.run.path, runs, origin=None, input_dir=str(victim))
    mounted = _replay_inputs(monkeypatch)
    # No terminal to ask at (pytest's stdin): a one-line error, and nothing is mounted.
    with pytest.raises(SystemExit) as stop:
        main(["replay", copy.name, "--runs-dir", str(runs)])
    assert stop.value.code == 2 and mounted == []
    err = capsys.readouterr().err
    assert f"run {copy.name} read its input files from {victim}" in err
    assert "--input DIR" in err and "Traceback" not in err
    # At a terminal the user is asked; "no" mounts nothing.
    asked: list[Path] = []
    monkeypatch.setattr(rerun, "confirmer", lambda: lambda folder: asked.append(folder) or False)
    with pytest.raises(SystemExit) as stop:
        main(["replay", copy.name, "--runs-dir", str(runs)])
    assert stop.value.code == 2 and asked == [victim] and mounted == []
    # "yes", or the user's own --input, is what gets mounted.
    monkeypatch.setattr(rerun, "confirmer", lambda: lambda folder: True)
    with pytest.raises(Stop):
        main(["replay", copy.name, "--runs-dir", str(runs)])
    own = tmp_path / "own"
    own.mkdir()
    with pytest.raises(Stop):
        main(["replay", copy.name, "--runs-dir", str(runs), "--input", str(own)])
    assert mounted == [victim, own]


def test_a_demo_recording_replays_with_the_bundled_demo_inputs(recorded, tmp_path, monkeypatch):
    _, result, _ = recorded
    runs = tmp_path / "runs"
    copy = tampered(result.run.path, runs, input_dir="/")
    mounted = _replay_inputs(monkeypatch)
    with pytest.raises(Stop):
        main(["replay", copy.name, "--runs-dir", str(runs)])
    (folder,) = mounted
    assert folder is not None and folder.parent == runs / ".demo-cache"


@pytest.mark.parametrize(
    ("kept", "budgets"),
    [
        ({"max_tokens": 1200, "max_cost": 0.5}, (1200, 0.5)),
        ({"max_tokens": None, "max_cost": None}, (None, None)),
        ({"max_tokens": "1e309", "max_cost": -1}, (None, None)),
        ({"max_tokens": float("inf"), "max_cost": True}, (None, None)),
    ],
)
def test_a_replay_keeps_the_recorded_budgets(recorded, tmp_path, kept, budgets):
    _, result, _ = recorded
    copy = tampered(result.run.path, tmp_path / "runs", **kept)
    recording = replay_module.open_recording(tmp_path / "runs", copy.name)
    base = Settings(runs_dir=tmp_path / "runs", max_tokens=99, max_cost=9.0)
    settings = replay_module.replay_settings(base, recording, None)
    assert (settings.max_tokens, settings.max_cost) == budgets


def test_a_recording_is_read_inside_its_folder_and_never_through_a_link(recorded, tmp_path):
    """A run folder from elsewhere: a ``run.json`` that is a link is refused, and a report
    its record names outside the folder (``..``) or through a link is never read."""
    _, result, _ = recorded
    runs = tmp_path / "runs"
    copy = runs / result.run.id
    shutil.copytree(result.run.path, copy)
    secret = tmp_path / "secret.md"
    secret.write_text("the secret\n", encoding="utf-8")
    record = json.loads((copy / "internal" / "run.json").read_text(encoding="utf-8"))
    for outside in ("/../../secret.md", "/workspace/reports/linked.md"):
        assert replay_module._report(copy, {**record, "outputs": [outside]}) is None
        (copy / "workspace" / "reports" / "linked.md").symlink_to(secret)
        assert replay_module._report(copy, {**record, "outputs": [outside]}) is None
        (copy / "workspace" / "reports" / "linked.md").unlink()
    assert "the secret" not in (replay_module._report(copy, record) or "")
    moved = tmp_path / "run.json"
    (copy / "internal" / "run.json").rename(moved)
    (copy / "internal" / "run.json").symlink_to(moved)
    with pytest.raises(ConfigError, match="symbolic link"):
        replay_module.open_recording(runs, copy.name)


def test_explain_reads_no_stored_page_through_a_link(recorded, tmp_path, capsys):
    """``quartet explain`` on a run folder from elsewhere: a stored page that is a link
    to a file outside is left out, never read."""
    _, result, _ = recorded
    runs = tmp_path / "runs"
    copy = runs / result.run.id
    shutil.copytree(result.run.path, copy)
    secret = tmp_path / "secret.md"
    question = json.loads((copy / "internal" / "run.json").read_text(encoding="utf-8"))
    secret.write_text(f"Zanzibar-secret-line: {question['question']}\n", encoding="utf-8")
    (copy / "workspace" / "pages" / "linked.md").symlink_to(secret)
    assert main(["explain", result.run.id, "--runs-dir", str(runs), "--top", "50"]) == 0
    out = capsys.readouterr().out
    assert "Zanzibar-secret-line" not in out and "linked.md" not in out and out.strip()
