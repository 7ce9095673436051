"""One scrubber for the whole project: a provider that echoes the key it was sent leaks it
nowhere, not in the run folder (replies, tool inputs, the report, run.json, the transcript,
checkpoints) and not on stdout or stderr (progress lines)."""

from __future__ import annotations

import json

from cli_support import demo_runs_dir
from openai_server import ScriptedOpenAI

from quartet.cli import main
from subagents.secrets import SECRET_VARS, scrub, secret_values

CANARY = "sk-echo-canary-5c1e9a7b"
#: Arguments a model writes in its own words: where an echoing model puts the key.
ECHOED = ("description", "query", "summary", "requirements", "answer")


class EchoingOpenAI(ScriptedOpenAI):
    """The scripted model, but every reply repeats the bearer key the request carried: in
    its text, in the free-text arguments of its tool calls and in its structured outcome."""

    def __init__(self) -> None:
        super().__init__()
        self.echoed = 0

    def answer(self, body):
        reply = super().answer(body)
        with self._lock:
            key = self.auth[-1].removeprefix("Bearer ")
            self.echoed += 1
        reply["content"] = f"{reply.get('content') or ''} (your key {key} works)"
        for call in reply.get("tool_calls") or []:
            args = json.loads(call["function"]["arguments"])
            for name in ECHOED:
                if isinstance(args.get(name), str):
                    args[name] += f" {key}"
            call["function"]["arguments"] = json.dumps(args)
        return reply


def test_an_echoed_key_leaks_nowhere(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    demo_runs_dir(tmp_path / "runs")
    with EchoingOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = main(
            ["demo", "--model", "openai:echo-model", "--formats", "md", "--runs-dir", "runs"]
        )
    out, err = capfd.readouterr()
    assert server.echoed > 10 and all(a == f"Bearer {CANARY}" for a in server.auth)
    assert code in (0, 3), err
    assert "***" in (tmp_path / "runs").joinpath(*_run_json(tmp_path)).read_text()
    leaks = [
        str(p)
        for p in (tmp_path / "runs").rglob("*")
        if p.is_file() and CANARY.encode() in p.read_bytes()
    ]
    assert leaks == []
    assert CANARY not in out and CANARY not in err
    assert "Run " in err  # progress lines were written, scrubbed


def _run_json(tmp_path) -> tuple[str, ...]:
    (found,) = list((tmp_path / "runs").glob("*/internal/run.json"))
    return found.relative_to(tmp_path / "runs").parts


def test_one_list_covers_every_provider_and_search_key(monkeypatch):
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "DASHSCOPE_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_CSE_ID",
        "BING_API_KEY",
        "GITHUB_TOKEN",
    ):
        assert name in SECRET_VARS
        monkeypatch.setenv(name, f"value-of-{name}")
        assert scrub(f"x value-of-{name} y") == "x *** y"
    monkeypatch.setenv("SOME_PROXY_TOKEN", "proxy-token-123")
    monkeypatch.setenv("HTTPS_PROXY", "http://me:proxy-pass-456@127.0.0.1:3128")
    assert {"proxy-token-123", "proxy-pass-456"} <= set(secret_values())
    assert scrub("auth proxy-pass-456") == "auth ***"
