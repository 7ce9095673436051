"""Checkpoints and resume: a run killed with SIGKILL continues where it stopped.

The demo world is served from this test process, so every request both processes make
reaches the same recording server: a page fetched before the kill must not be fetched
again after the resume.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from agentscope.message import Msg, ToolResultBlock, ToolUseBlock
from cli_support import (
    ROOT,
    named_reports,
    quartet,
    read_page,
    resume_run,
    shared_cache,
    start_until,
    world_env,
    written_report,
)
from runs_support import make_run

from demo.web import demo_world
from host.brains.offline import HostPolicy
from host.config import Settings
from host.core.records import call_signature
from host.core.stages import CANCELLED
from host.durability.checkpoint import patch_dangling
from quartet.cli import main, rerun


def kill_after_first_page(cmd: list[str], env: dict[str, str]) -> None:
    """Start ``cmd``, wait until its progress shows a stored page, then SIGKILL it."""
    proc = start_until(cmd, env, read_page)
    proc.kill()
    proc.communicate(timeout=60)


def stored_paths(run_dir: Path) -> set[str]:
    """The site paths of the pages stored whole (text and sidecar) in a run folder."""
    found = set()
    for sidecar in (run_dir / "workspace/pages").glob("*.json"):
        record = json.loads(sidecar.read_text(encoding="utf-8"))
        if (run_dir / record["markdown_path"].lstrip("/")).exists():
            found |= {urlsplit(record["url"]).path, urlsplit(record["final_url"]).path}
    return found


def test_a_killed_run_resumes_without_fetching_any_page_twice(tmp_path):
    runs = tmp_path / "runs"
    with demo_world(shared_cache()) as world:
        env = world_env(world)
        cmd = quartet(
            "run", world.question, "--input", str(world.input_dir), "--runs-dir", str(runs)
        )
        kill_after_first_page([*cmd, "--formats", "md,html"], env)
        (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
        saved = json.loads((run_dir / "internal/checkpoint.json").read_text(encoding="utf-8"))
        assert saved["phase"] == "research" and saved["delegator"]["delegations"]
        assert not (run_dir / "internal/run.json").exists()
        stored = stored_paths(run_dir)
        before = len(world.site_requests)

        record = resume_run(runs, run_dir.name, env, inputs=world.input_dir)
        after = world.site_requests[before:]

    # Pages stored before the kill are reused; a fetch cut short by the kill is redone
    # once; nothing is fetched twice after the resume.
    assert stored and after
    assert stored.isdisjoint(after)
    assert [path for path, n in Counter(after).items() if n > 1] == []
    assert record["resumed"] == 1 and record["id"] == run_dir.name
    assert record["answered"] == len(record["plan"]["subquestions"])
    assert record["citations"] > 0 and record["errors"] == []
    assert record["outputs"] == named_reports(world.question, "md", "html")
    report = written_report(run_dir, record["outputs"]).read_text(encoding="utf-8")
    assert "## " in report and "[1]" in report
    # the delegations from before the kill are part of the record
    assert len(record["delegations"]) > len(saved["delegator"]["delegations"])


def test_resume_refuses_a_finished_run_and_an_unknown_one(tmp_path):
    make_run(tmp_path / "runs", "r1", record={"status": "finished"}, checkpoint={})
    for run_id, says in (("r1", "has finished"), ("nope", "no run 'nope'")):
        proc = subprocess.run(
            quartet("resume", run_id, "--runs-dir", str(tmp_path / "runs")),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2 and says in proc.stderr
        assert "Traceback" not in proc.stderr


STOPPED = "20260303-090000-cccccc"


class Stop(Exception):
    """Raised by a spy once a command has settled its settings (the run is not started)."""


def _resumed_with(monkeypatch) -> list[Settings]:
    """Spy on ``quartet resume``: the settings each resume would run with."""
    seen: list[Settings] = []

    def spy(settings):
        seen.append(settings)
        raise Stop

    monkeypatch.setattr(rerun, "brain_of", spy)
    return seen


def test_every_command_finds_a_run_id_in_the_runs_folder_only(tmp_path, monkeypatch, capsys):
    checkpoint = {"version": 1, "question": "q", "settings": {}}
    outside = make_run(tmp_path, "outside", checkpoint=checkpoint)
    runs = tmp_path / "runs"
    make_run(runs, STOPPED, checkpoint=checkpoint)
    seen = _resumed_with(monkeypatch)
    for command in ("resume", "replay", "show"):
        for run_id in (str(outside), "../outside", f"{STOPPED}/../../outside", "..", "."):
            with pytest.raises(SystemExit) as stop:
                main([command, run_id, "--runs-dir", str(runs)])
            err = capsys.readouterr().err
            assert stop.value.code == 2 and err.startswith("quartet: error: no run"), err
    assert seen == []
    with pytest.raises(Stop):  # as show and replay do, resume takes a unique prefix
        main(["resume", STOPPED[:10], "--runs-dir", str(runs)])
    assert len(seen) == 1


def test_resume_mounts_no_input_folder_the_checkpoint_names(tmp_path, monkeypatch, capsys):
    victim = tmp_path / "victim"
    victim.mkdir()
    saved = {"input_dir": str(victim), "max_rounds": "inf", "formats": ["md", "../x"]}
    runs = tmp_path / "runs"
    make_run(runs, STOPPED, checkpoint={"version": 1, "question": "q", "settings": saved})
    seen = _resumed_with(monkeypatch)
    # No terminal to ask at: a one-line error naming --input, and no run.
    with pytest.raises(SystemExit) as stop:
        main(["resume", STOPPED, "--runs-dir", str(runs)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and seen == []
    assert f"run {STOPPED} read its input files from {victim}" in err and "--input DIR" in err
    # At a terminal the user is asked; "no" starts nothing.
    monkeypatch.setattr(rerun, "confirmer", lambda: lambda folder: False)
    with pytest.raises(SystemExit) as stop:
        main(["resume", STOPPED, "--runs-dir", str(runs)])
    assert stop.value.code == 2 and seen == []
    # "yes", or the user's own --input, is what gets mounted.
    monkeypatch.setattr(rerun, "confirmer", lambda: lambda folder: folder == victim)
    own = tmp_path / "own"
    own.mkdir()
    for given in ([], ["--input", str(own)]):
        with pytest.raises(Stop):
            main(["resume", STOPPED, "--runs-dir", str(runs), *given])
    assert [s.input_dir for s in seen] == [victim, own]
    # what else the checkpoint says is taken only when it is of the right kind
    defaults = Settings()
    assert seen[0].max_rounds == defaults.max_rounds and seen[0].formats == ("md",)


def _call(call_id: str, kind: str, sub: str) -> ToolUseBlock:
    return ToolUseBlock(
        type="tool_use",
        id=call_id,
        name="task",
        input={"description": "x", "subagent_type": kind, "context": {"subquestion": sub}},
    )


def test_dangling_task_calls_get_their_result_or_a_cancelled_one():
    calls = Msg("Host", [_call("a", "browser", "q1"), _call("b", "browser", "q2")], "assistant")
    earlier = Msg(
        "system",
        [ToolResultBlock(type="tool_result", id="z", name="task", output="done")],
        "system",
    )
    content = [(earlier, []), (calls, [])]
    finished = {call_signature("browser", {"subquestion": "q1"}): "Task d7 (browser, q1) ok"}
    assert patch_dangling(content, finished) == 2
    results = {m.content[0]["id"]: m.content[0]["output"][0]["text"] for m, _ in content[2:]}
    assert results == {"a": "Task d7 (browser, q1) ok", "b": CANCELLED}
    assert patch_dangling(content, finished) == 0  # nothing dangles any more


async def test_the_offline_host_runs_cancelled_tasks_again():
    plan = {"subquestions": [{"id": "q1"}, {"id": "q2"}]}
    request = {"role": "user", "name": "user", "content": f"<plan>{json.dumps(plan)}</plan>"}

    def task_call(cid: str, kind: str, **ctx: object) -> dict:
        args = {"description": "x", "subagent_type": kind, "context": ctx}
        fn = {"name": "task", "arguments": json.dumps(args)}
        return {"id": cid, "type": "function", "function": fn}

    def result(cid: str, text: str) -> dict:
        return {"role": "tool", "tool_call_id": cid, "content": text}

    messages = [
        request,
        {"role": "assistant", "tool_calls": [task_call("f", "file")]},
        result("f", "Task d1 (file) ok"),
        {"role": "assistant", "tool_calls": [task_call("s1", "search", subquestion="q1")]},
        {"role": "assistant", "tool_calls": [task_call("s2", "search", subquestion="q2")]},
        result("s1", "Task d2 (search, q1) ok"),
        result("s2", CANCELLED),
        {"role": "user", "name": "user", "content": "The run stopped and is now resumed."},
    ]
    tools = [{"type": "function", "function": {"name": "task"}}]
    reply = await HostPolicy()(messages, tools=tools)
    asked = [
        (b["input"]["subagent_type"], b["input"]["context"].get("subquestion"))
        for b in reply.content
        if b["type"] == "tool_use"
    ]
    assert asked == [("search", "q2")]
