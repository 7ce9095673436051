"""Human decisions: approving, rejecting and editing tool calls, and reviewing the plan,
in a pseudo-terminal and without one."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time

import pytest
from cli_support import ROOT, quartet, shared_cache, world_env, written_report

from demo.web import demo_world
from host.config import ConfigError, load_settings
from host.orchestration.approval import Decision, default_approver, plan_from_file

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Pty:
    """A child process on a pseudo-terminal: read what it prints, type answers."""

    def __init__(self, cmd: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave, close_fds=True
        )
        os.close(slave)
        self.seen = ""
        self.pos = 0

    def expect(self, pattern: str, timeout: float = 300) -> re.Match[str]:
        """Wait until ``pattern`` appears in output not matched yet; fail if the child ends."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.compile(pattern).search(self.seen, self.pos)
            if found:
                self.pos = found.end()
                return found
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                pytest.fail(f"never saw {pattern!r}; the end of the output:\n{self.seen[-3000:]}")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return False
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the child closed the terminal
            return False
        self.seen += ANSI.sub("", chunk.decode("utf-8", "replace").replace("\r\n", "\n"))
        return bool(chunk)

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 600) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self._read(1.0)
        code = self.proc.wait(timeout=10)
        os.close(self.master)
        return code


EDITED_PART = "How was the Grand Canal built by the Sui and the Yuan dynasties?"


def test_in_a_terminal_the_user_edits_the_plan_and_approves_rejects_and_edits_calls(tmp_path):
    runs = tmp_path / "runs"
    with demo_world(shared_cache()) as world:
        cmd = quartet(
            "run", world.question, "--input", str(world.input_dir), "--runs-dir", str(runs),
            "--formats", "md", "--approve", "http_download", "--review-plan",
        )  # fmt: skip
        term = Pty(cmd, world_env(world))
        term.expect(r"The plan \(4 parts\)")
        term.expect("plan> ")
        term.send("e 1")
        term.expect("New text for part 1: ")
        term.send(EDITED_PART)
        term.expect(re.escape(EDITED_PART))
        term.expect("plan> ")
        term.send("")

        answers = iter(["approve", "reject", "edit"])
        while True:
            found = term.expect(r"(?s)wants to call http_download with\n(\{.*?\n\})\n|Reports:")
            if found.group(0) == "Reports:":
                break
            arguments = json.loads(found.group(1))
            term.expect(r"\[a\]pprove, \[r\]eject or \[e\]dit\? ")
            answer = next(answers, "approve")
            term.send(answer[0])
            if answer == "reject":
                term.expect("Reason")
                term.send("two documents are enough")
            elif answer == "edit":
                term.expect("New arguments as one JSON object")
                suffix = arguments["save_path"].rsplit(".", 1)[-1]
                edited = {**arguments, "save_path": f"/workspace/downloads/edited.{suffix}"}
                term.send(json.dumps(edited))
        code = term.finish()

    assert code == 0, term.seen[-3000:]
    (run_dir,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    record = json.loads((run_dir / "internal/run.json").read_text(encoding="utf-8"))
    assert record["plan"]["subquestions"][0]["text"] == EDITED_PART
    assert "edited by the user" in record["plan"]["planner"]
    actions = [d["action"] for d in record["approvals"]]
    assert actions[:3] == ["approve", "reject", "edit"]
    downloads = [c for c in record["tool_calls"] if c["tool"] == "http_download"]
    rejected = [c for c in downloads if not c["ok"]]
    assert len(rejected) == 1 and "two documents are enough" in rejected[0]["note"]
    assert list((run_dir / "workspace/downloads").glob("edited.*"))
    report = written_report(run_dir, record["outputs"]).read_text(encoding="utf-8")
    assert f"## {EDITED_PART}" in report


def test_without_a_terminal_the_default_denies_and_a_plan_file_replaces_planning(tmp_path):
    runs = tmp_path / "runs"
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "subquestions:\n"
        "  - How was the Grand Canal kept supplied with water at its summit?\n"
        "  - text: Why did the Grand Canal decline in the 19th century?\n"
        "    queries: [Grand Canal decline, Yellow River 1855]\n",
        encoding="utf-8",
    )
    with demo_world(shared_cache()) as world:
        env = world_env(world)
        base = quartet(
            "run", world.question, "--input", str(world.input_dir), "--runs-dir", str(runs),
            "--formats", "md",
        )  # fmt: skip
        refused = subprocess.run(
            [*base, "--review-plan"], cwd=ROOT, env=env, capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip
        assert refused.returncode == 2 and "--plan FILE" in refused.stderr
        # --approve asks a person: with nobody at a terminal the command stops before the
        # run starts, instead of refusing every call in the user's name.
        unasked = subprocess.run(
            [*base, "--approve", "http_download"], cwd=ROOT, env=env, capture_output=True,
            text=True, stdin=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip
        assert unasked.returncode == 2, unasked.stderr[-2000:]
        assert "no interactive terminal" in unasked.stderr
        assert len(unasked.stderr.strip().splitlines()) == 1 and not runs.exists()
        # An unattended run takes its decision from quartet.toml, where it is written down.
        (tmp_path / "quartet.toml").write_text(
            '[quartet.approve]\ntools = ["http_download"]\n', encoding="utf-8"
        )
        proc = subprocess.run(
            [*base, "--plan", str(plan), "--json"],
            cwd=tmp_path, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=900,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    record = json.loads(proc.stdout)
    assert record["plan"]["planner"] == "user (plan.yaml)"
    texts = [s["text"] for s in record["plan"]["subquestions"]]
    assert texts[1] == "Why did the Grand Canal decline in the 19th century?"
    assert record["plan"]["subquestions"][1]["queries"] == [
        "Grand Canal decline",
        "Yellow River 1855",
    ]
    downloads = [c for c in record["tool_calls"] if c["tool"] == "http_download"]
    assert downloads and all(not c["ok"] and "no terminal" in c["note"] for c in downloads)
    assert {d["action"] for d in record["approvals"]} == {"reject"}
    assert not list((runs / record["id"] / "workspace/downloads").iterdir())


async def test_the_configured_default_can_approve():
    assert (await default_approver("approve")("browser", "http_download", {})).action == "approve"
    denied = await default_approver("deny")("browser", "http_download", {})
    assert denied == Decision("reject", denied.reason) and "deny" in denied.reason


def test_approval_settings_come_from_the_flag_or_quartet_toml(tmp_path):
    toml = tmp_path / "quartet.toml"
    toml.write_text('[quartet.approve]\ntools = ["pptx_write"]\ndefault = "approve"\n')
    settings = load_settings({}, toml)
    assert settings.approve_tools == ("pptx_write",) and settings.approve_default == "approve"
    flagged = load_settings({"approve": "http_download, browser_type"}, toml)
    assert flagged.approve_tools == ("http_download", "browser_type")
    toml.write_text('[quartet.approve]\ndefault = "maybe"\n')
    with pytest.raises(ConfigError, match="deny or approve"):
        load_settings({}, toml)


def test_a_plan_file_must_hold_sub_questions(tmp_path):
    bad = tmp_path / "plan.json"
    bad.write_text('{"subquestions": "not a list"}')
    with pytest.raises(ValueError, match="list of sub-questions"):
        plan_from_file(bad, "Q?")
    bad.write_text("[]")
    with pytest.raises(ValueError, match="usable sub-questions"):
        plan_from_file(bad, "Q?")
