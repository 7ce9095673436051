"""The LLM brain end to end: an OpenAI-compatible model served on 127.0.0.1.

The server speaks the chat-completions wire format; it answers each stage's first request
with a tool call and the next with text. The whole pipeline runs through agentscope's
OpenAI model class, so the production provider path is what gets tested.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from host.brains import make_brain
from host.config import Settings
from host.demo.web import demo_environment
from host.hub import Host

CANARY = "sk-llm-canary-4d2a9c"


class ChatServer:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.auth_headers: list[str] = []
        self.stage_turns: dict[str, int] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, body: dict) -> dict:
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        text = json.dumps(body.get("messages", []), ensure_ascii=False)
        stage = next(
            (
                t
                for t in ("search_wiki", "viewer_fetch", "list_directory", "generate_markdown")
                if t in tools
            ),
            None,
        )
        if stage is None:  # a tool asking the model directly (page answers, report prose)
            return {"content": "The Grand Canal links Beijing and Hangzhou."}
        turn = self.stage_turns.get(stage, 0)
        self.stage_turns[stage] = turn + 1
        if turn > 0:
            return {"content": f"Finished the {stage} stage."}
        if stage == "search_wiki":
            args = {"query": "Grand Canal"}
        elif stage == "viewer_fetch":
            url = re.search(r"http://127\.0\.0\.1:\d+/en/[\w./-]+\.html", text)
            args = {
                "url": url.group(0) if url else "http://127.0.0.1:1/none.html",
                "query": "How long is the Grand Canal?",
            }
        elif stage == "list_directory":
            stage, args = (
                "write_file",
                {
                    "path": "/workspace/notes/llm.md",
                    "content": "## Findings\n\nThe canal joins Beijing and Hangzhou.\n",
                },
            )
        else:
            args = {
                "requirements": "A short report on the Grand Canal.",
                "out_path": "/workspace/reports/report.md",
                "from_paths": ["/workspace/notes/llm.md"],
            }
        return {
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{stage}",
                    "type": "function",
                    "function": {"name": stage, "arguments": json.dumps(args)},
                }
            ],
        }

    def _handler(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                owner.auth_headers.append(self.headers.get("Authorization", ""))
                message = {"role": "assistant", **owner.answer(body)}
                payload = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "m"),
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": "tool_calls"
                                if message.get("tool_calls")
                                else "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler


@pytest.fixture
def llm_run(tmp_path, monkeypatch):
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_API_KEY", CANARY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True)
        with demo_environment(settings) as (question, env_settings):
            host = Host(env_settings, make_brain("openai:loopback-model"))
            result = asyncio.run(host.run(question))
        yield server, host, result


def test_llm_brain_drives_every_stage_through_the_openai_wire_format(llm_run):
    server, host, result = llm_run
    assert set(server.stage_turns) == {
        "search_wiki",
        "viewer_fetch",
        "list_directory",
        "generate_markdown",
    }
    names = {s.name: s for s in result.stages}
    assert all(s.error is None for s in result.stages), result.stages
    assert names["search"].tool_calls == 1 and names["generate"].tool_calls == 1
    assert result.outputs == ["/workspace/reports/report.md"]
    report = result.run.real_path("/workspace/reports/report.md").read_text(encoding="utf-8")
    assert "Beijing" in report
    assert result.tokens["input"] >= 11 * 8 and result.tokens["output"] >= 7 * 8
    for agent in host.agents.values():  # long histories are compressed for LLM brains
        assert agent.compression_config.enable
        assert agent.compression_config.trigger_threshold == 200_000


def test_the_key_travels_only_in_the_authorization_header(llm_run):
    server, _, result = llm_run
    assert server.auth_headers and all(h == f"Bearer {CANARY}" for h in server.auth_headers)
    assert CANARY not in json.dumps(server.requests)
    for path in result.run.path.rglob("*"):
        if path.is_file():
            assert CANARY.encode() not in path.read_bytes(), path


def test_each_stage_sees_only_its_own_allowlist(llm_run):
    server, _, _ = llm_run
    for body in server.requests:
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        families = [
            tools & {"search_wiki"},
            tools & {"viewer_fetch"},
            tools & {"list_directory"},
            tools & {"generate_markdown"},
        ]
        assert sum(bool(f) for f in families) <= 1
        assert not any("service" in json.dumps(t) for t in body.get("tools") or [])
