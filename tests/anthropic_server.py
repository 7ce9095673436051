"""The scripted model of ``openai_server.py`` behind the Anthropic messages API, on
127.0.0.1, playing faults (``wire_faults.py``) and a prompt cache.

Requests arrive as Anthropic ``/v1/messages`` bodies (``system`` apart, tools as
``{name, description, input_schema}``, tool results as ``tool_result`` blocks in user
messages); the scripted model reads them in the OpenAI shape and its answer goes back as
``text`` and ``tool_use`` blocks. The cache works like Anthropic's: a request whose system
prompt or tools carry ``cache_control`` writes its prefix to the cache the first time
(``cache_creation_input_tokens``) and reads it afterwards (``cache_read_input_tokens``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from faulty_openai_server import FaultyOpenAI
from wire_faults import Faults, text_of

CACHED_PREFIX_TOKENS = 100


def _tool_results(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if message.get("role") != "user" or not isinstance(content, list) or not content:
        return []
    if all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return content
    return []


def _block_text(block: dict[str, Any]) -> str:
    inner = block.get("content")
    if isinstance(inner, list):
        return "\n".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
    return str(inner or "")


def _marked(body: dict[str, Any]) -> bool:
    system = body.get("system")
    blocks = system if isinstance(system, list) else []
    return any("cache_control" in b for b in [*blocks, *(body.get("tools") or [])])


class ScriptedAnthropic(FaultyOpenAI):
    """The scripted model behind the Anthropic messages API (its faults as the OpenAI
    server's)."""

    def __init__(self, plan: Any = None, faults: Faults | None = None) -> None:
        self._cached: set[str] = set()
        super().__init__(plan, faults)

    @property
    def base_url(self) -> str:  # the SDK adds /v1/messages
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @staticmethod
    def credential(headers: Any) -> str:
        """The key as sent: ``x-api-key``, or a bearer token (newer SDKs send that)."""
        return headers.get("x-api-key") or headers.get("Authorization", "").removeprefix("Bearer ")

    @staticmethod
    def normalised(body: dict[str, Any]) -> dict[str, Any]:
        """The request in the OpenAI shape the scripted model reads."""
        system = body.get("system")
        messages: list[dict[str, Any]] = []
        if system:
            messages.append({"role": "system", "content": text_of({"content": system})})
        for message in body.get("messages", []):
            results = _tool_results(message)
            if results:
                messages += [{"role": "tool", "content": _block_text(b)} for b in results]
            else:
                messages.append({"role": message["role"], "content": text_of(message)})
        tools = [{"type": "function", "function": t} for t in body.get("tools") or []]
        return {"model": body.get("model"), "messages": messages, "tools": tools}

    def _usage(self, body: dict[str, Any]) -> dict[str, int]:
        usage = {"input_tokens": 11, "output_tokens": 7}
        if _marked(body):
            prefix = json.dumps([body.get("tools"), body.get("system")], sort_keys=True)
            key = hashlib.sha256(prefix.encode()).hexdigest()
            with self._lock:
                hit = key in self._cached
                self._cached.add(key)
            usage["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = (
                CACHED_PREFIX_TOKENS
            )
        return usage

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = self.answer(self.normalised(body))
        content: list[dict[str, Any]] = []
        if answer.get("content"):
            content.append({"type": "text", "text": answer["content"]})
        for call in answer.get("tool_calls") or []:
            content.append(
                {
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["function"]["name"],
                    "input": json.loads(call["function"]["arguments"]),
                }
            )
        return {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "m"),
            "content": content,
            "stop_reason": "tool_use" if answer.get("tool_calls") else "end_turn",
            "stop_sequence": None,
            "usage": self._usage(body),
        }

    @staticmethod
    def error(status: int, credential: str) -> dict[str, Any]:
        kinds = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}
        return {
            "type": "error",
            "error": {
                "type": kinds.get(status, "api_error"),
                "message": f"request failed with {status} (credential seen: {credential})",
            },
        }
