"""The scripted OpenAI chat-completions server of ``openai_server.py``, playing faults.

Everything the scripted model says is unchanged; :class:`~wire_faults.Faults` added to
``faults`` are played first on the requests they match (see ``wire_faults.py``). Before
either, the request is checked against the wire's rules, as by the plain scripted server:
a request the real API would refuse is answered 400 with its error body (a fault is played
only on a valid request).
"""

from __future__ import annotations

import io
import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from openai_server import ScriptedOpenAI, send_json
from wire_faults import Faults, fault_handler

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


class FaultyOpenAI(ScriptedOpenAI):
    """The scripted OpenAI server; ``faults`` are played before the model answers."""

    def __init__(self, plan: Any = None, faults: Faults | None = None) -> None:
        self.faults = faults or Faults()
        super().__init__(plan)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The fault-playing handler, behind the check of the wire's rules."""
        owner = self
        playing = fault_handler(self)

        class Checked(playing):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = json.loads(raw)
                error = owner.refusal(body)
                if error is None:
                    self.rfile = io.BytesIO(raw)  # the fault handler reads it again
                    super().do_POST()
                    return
                with owner._lock:
                    owner.requests.append(body)
                    owner.auth.append(owner.credential(self.headers))
                send_json(self, 400, error)

        return Checked

    def __exit__(self, *exc: object) -> None:
        self.faults.release.set()
        super().__exit__(*exc)

    @staticmethod
    def credential(headers: Any) -> str:
        return headers.get("Authorization", "")

    @staticmethod
    def normalised(body: dict[str, Any]) -> dict[str, Any]:
        return body

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", **self.answer(body)}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": USAGE,
        }

    @staticmethod
    def error(status: int, credential: str) -> dict[str, Any]:
        kinds = {401: "invalid_api_key", 429: "rate_limit_exceeded"}
        return {
            "error": {
                "message": f"request failed with {status} (credential seen: {credential})",
                "type": kinds.get(status, "server_error"),
                "code": kinds.get(status),
            }
        }
