"""``quartet skills merge SKILL`` with a model: the real command condenses a skill's
experience log through the OpenAI and Anthropic wire formats (a scripted model on
127.0.0.1), keeps the log's format, and falls back to the offline merge, saying so in
one line, when the answer cannot be used or the call fails; offline it merges as
before."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import ScriptedAnthropic
from faulty_openai_server import FaultyOpenAI
from openai_server import ScriptedOpenAI
from wire_faults import Faults

from host.config import Settings
from host.durability.memory import BROWSER_SKILL, open_memory
from quartet.cli import main
from subagents.experience import evolved_path, merge, parse, record, render

CANARY = "sk-condense-canary-7d2f"
DAY = date(2026, 3, 1)
#: What the scripted model condenses the log into.
CONDENSED = [
    {
        "title": f"lesson {n}",
        "scene": f"findings {n * 4 - 3} to {n * 4} apply",
        "lesson": f"do what findings {n * 4 - 3} to {n * 4} say",
    }
    for n in range(1, 7)
]
#: wire → the condensing server, and its key and address variables
WIRES = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}


class CondensingOpenAI(ScriptedOpenAI):
    """The scripted model; asked without tools, it answers ``condensed`` (JSON text)."""

    condensed = json.dumps({"experiences": CONDENSED})

    def _tool_side(self, prompt: str) -> dict[str, Any]:
        self.roles.append("condense")
        return {"content": self.condensed}


class CondensingAnthropic(ScriptedAnthropic):
    """The condensing model behind the Anthropic messages API."""

    condensed = CondensingOpenAI.condensed
    _tool_side = CondensingOpenAI._tool_side


SERVERS = {"openai": CondensingOpenAI, "anthropic": CondensingAnthropic}


def _recorded(count: int, text: str = "", start: int = 1) -> str:
    for n in range(start, start + count):
        text = record(text, f"finding {n}", f"scene {n}", f"lesson {n}", DAY)
    return text


def _seed(runs: Path) -> str:
    """A browser-access log of 25 experiences: 10 merged into the core, then 15 more
    recorded (10 kept as recent findings); its text."""
    with open_memory(Settings(runs_dir=runs)) as memory:
        return memory.update(
            evolved_path(BROWSER_SKILL),
            lambda text: _recorded(15, merge(_recorded(10, text), DAY), start=11),
        )


def _log(runs: Path) -> str:
    with open_memory(Settings(runs_dir=runs)) as memory:
        return memory.log(BROWSER_SKILL)


def _merge(runs: Path, *extra: str) -> int:
    return main(["skills", "merge", BROWSER_SKILL, "--runs-dir", str(runs), *extra])


def _merge_with(server: ScriptedOpenAI, runs: Path, env: pytest.MonkeyPatch) -> int:
    """Merge with the model ``openai:condenser``, served by ``server`` (started here)."""
    env.setenv("OPENAI_API_KEY", CANARY)
    with server:
        env.setenv("OPENAI_BASE_URL", server.base_url)
        return _merge(runs, "--model", "openai:condenser")


@pytest.fixture
def runs(tmp_path, clean_env):
    clean_env.chdir(tmp_path)
    for variables in WIRES.values():
        for name in variables:
            clean_env.delenv(name, raising=False)
    runs = tmp_path / "runs"
    before = parse(_seed(runs))
    assert (before.total, len(before.core), len(before.recent)) == (25, 10, 10)
    return runs


def _offline_lines() -> str:
    """What the offline merge of the seeded log prints."""
    moved = "".join(f"  finding {n}\n" for n in range(16, 26))
    return f"{BROWSER_SKILL}: moved 10 recent findings into the core experiences (20 now):\n{moved}"


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_model_condenses_25_experiences_into_fewer_core_ones(wire, runs, clean_env, capfd):
    key_var, url_var = WIRES[wire]
    clean_env.setenv(key_var, CANARY)
    with SERVERS[wire]() as server:
        clean_env.setenv(url_var, server.base_url)
        code = _merge(runs, "--model", f"{wire}:condenser")
    out, err = capfd.readouterr()
    assert code == 0, err
    assert server.roles == ["condense"] and server.invalid == []
    assert server.auth in ([f"Bearer {CANARY}"], [CANARY])  # the key from the environment
    sent = json.dumps(server.requests[0])
    for n in [*range(1, 11), *range(16, 26)]:
        assert f"finding {n}" in sent
    titles = "".join(f"  lesson {n}\n" for n in range(1, 7))
    assert out == (
        f"{BROWSER_SKILL}: {wire}:condenser condensed 20 entries into 6 core experiences:\n"
        + titles
    )
    assert CANARY not in out + err and "offline" not in err

    text = _log(runs)
    log = parse(text)
    today = date.today().isoformat()
    assert text.startswith(
        f"---\ntotal: 25\nlast_merged: {today}\nmerged_total: 25\n---\n## Core experiences\n\n"
        "### lesson 1\nScene: findings 1 to 4 apply\nLesson: do what findings 1 to 4 say\n"
    )
    assert text.endswith("## Recent findings\n") and render(log) == text
    assert [e.title for e in log.core] == [c["title"] for c in CONDENSED]
    assert log.recent == ()


def _answer(**change: Any) -> str:
    """The condensed answer with its second experience changed."""
    second = {**CONDENSED[1], **change}
    return json.dumps({"experiences": [CONDENSED[0], second, *CONDENSED[2:]]})


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        ("Here are the condensed experiences: lesson 1, lesson 2.", "not the JSON asked for"),
        (_answer(lesson=""), "experience 2: the lesson is empty"),
        (_answer(title="two\nlines"), "experience 2: the title is more than one line"),
        (_answer(scene=["a list"]), "not the JSON asked for (experiences.1.scene"),
        (_answer(source="a page"), "not the JSON asked for (experiences.1.source"),
        (_answer(title="LESSON 1"), "experience 2: the title 'LESSON 1' is given twice"),
        (json.dumps({"experiences": []}), "the answer holds no experience"),
        (
            json.dumps({"experiences": [*CONDENSED] * 4}),
            "the answer holds 24 experiences, more than the 20 it was given",
        ),
    ],
)
def test_an_invalid_answer_falls_back_to_the_offline_merge(runs, clean_env, capfd, reply, says):
    server = CondensingOpenAI()
    server.condensed = reply
    code = _merge_with(server, runs, clean_env)
    out, err = capfd.readouterr()
    assert code == 0, err
    assert server.roles == ["condense"]  # one call, not asked again
    assert out == _offline_lines()
    (line,) = err.splitlines()
    assert line.startswith(f"quartet: {BROWSER_SKILL}: openai:condenser did not condense the log")
    assert says in line and line.endswith("; merged offline instead.")
    log = parse(_log(runs))
    assert len(log.core) == 20 and log.recent == () and log.merged_total == 25


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        ({"action": "status", "status": 500, "times": 5}, "HTTP 500"),
        ({"action": "hang"}, "no answer within 1 s"),
    ],
)
def test_a_failed_or_timed_out_call_falls_back_to_the_offline_merge(
    runs, clean_env, capfd, fault, says
):
    clean_env.setenv("QUARTET_MODEL_TIMEOUT", "1")
    clean_env.setenv("QUARTET_MODEL_ATTEMPTS", "1")
    code = _merge_with(FaultyOpenAI(faults=Faults().add(**fault)), runs, clean_env)
    out, err = capfd.readouterr()
    assert code == 0, err
    assert out == _offline_lines()
    (line,) = err.splitlines()
    assert says in line and line.endswith("; merged offline instead.")
    assert "Traceback" not in err and CANARY not in out + err


def test_a_model_without_its_key_merges_offline_and_says_so(runs, capfd):
    code = _merge(runs, "--model", "openai:condenser")
    out, err = capfd.readouterr()
    assert code == 0, err
    assert out == _offline_lines()
    assert err == (
        f"quartet: {BROWSER_SKILL}: openai:condenser did not condense the log: this model "
        "needs the environment variable OPENAI_API_KEY; it is not set; merged offline instead.\n"
    )


@pytest.mark.parametrize("model", [None, "offline"])
def test_the_offline_merge_is_unchanged(runs, clean_env, capfd, model):
    clean_env.setenv("OPENAI_API_KEY", CANARY)  # a key alone asks no model
    before = _log(runs)
    code = _merge(runs, *(["--model", model] if model else []))
    out, err = capfd.readouterr()
    assert code == 0, err
    assert out == _offline_lines() and err == ""
    text = _log(runs)
    assert text == merge(before, date.today())
    again = _merge(runs, *(["--model", model] if model else []))
    assert again == 0 and capfd.readouterr().out.endswith("no recent findings; nothing to merge.\n")


def test_the_model_setting_is_used_and_an_unknown_provider_refused(runs, clean_env, capfd):
    clean_env.setenv("OPENAI_API_KEY", CANARY)
    with CondensingOpenAI() as server:
        clean_env.setenv("OPENAI_BASE_URL", server.base_url)
        clean_env.setenv("QUARTET_MODEL", "openai:from-setting")
        assert _merge(runs) == 0
        with pytest.raises(SystemExit) as refused:
            _merge(runs, "--model", "nowhere:model")
    out, err = capfd.readouterr()
    assert server.roles == ["condense"]
    assert "openai:from-setting condensed 20 entries into 6 core experiences" in out
    assert refused.value.code == 2 and "--model 'nowhere:model'" in err


class RecordingWhileCondensing(CondensingOpenAI):
    """The condensing model; while it works, a run records one more finding."""

    runs: Path

    def _tool_side(self, prompt: str) -> dict[str, Any]:
        with open_memory(Settings(runs_dir=self.runs)) as memory:
            memory.update(evolved_path(BROWSER_SKILL), lambda text: _recorded(1, text, start=26))
        return super()._tool_side(prompt)


def test_a_finding_recorded_while_the_model_works_is_kept(runs, clean_env, capfd):
    server = RecordingWhileCondensing()
    server.runs = runs
    code = _merge_with(server, runs, clean_env)
    out, err = capfd.readouterr()
    assert code == 0, err
    assert "the log changed while the model worked; merged offline instead." in err
    assert "moved 10 recent findings into the core experiences (20 now)" in out
    log = parse(_log(runs))
    assert log.total == log.merged_total == 26 and "finding 26" in [e.title for e in log.core]
