"""The scripted model of ``openai_server.py`` behind Ollama's ``/api/chat``, on 127.0.0.1,
playing faults (``wire_faults.py``).

Ollama's chat requests already have the OpenAI shape the scripted model reads (tools as
``{type, function}``, tool results as ``tool`` messages); the answer goes back as an Ollama
chat response, tool call arguments as objects.
"""

from __future__ import annotations

import json
from typing import Any

from faulty_openai_server import FaultyOpenAI


class ScriptedOllama(FaultyOpenAI):
    """The scripted model behind the Ollama chat API (its faults as the OpenAI server's)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @staticmethod
    def violation(body: dict[str, Any]) -> dict[str, Any] | None:
        """None: Ollama renders any history through the model's template and refuses none
        for the order of its tool calls and results."""
        return None

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.answer(body)
        message: dict[str, Any] = {"role": "assistant", "content": answer.get("content") or ""}
        calls = answer.get("tool_calls") or []
        if calls:
            message["tool_calls"] = [
                {
                    "function": {
                        "name": c["function"]["name"],
                        "arguments": json.loads(c["function"]["arguments"]),
                    }
                }
                for c in calls
            ]
        return {
            "model": body.get("model", "m"),
            "created_at": "2025-01-01T00:00:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 11,
            "eval_count": 7,
        }

    @staticmethod
    def error(status: int, credential: str) -> dict[str, Any]:
        return {"error": f"request failed with {status}"}
