"""The scripted model of ``openai_server.py`` behind the Anthropic messages API, on
127.0.0.1, playing faults (``wire_faults.py``) and a prompt cache.

Requests arrive as Anthropic ``/v1/messages`` bodies (``system`` apart, tools as
``{name, description, input_schema}``, tool results as ``tool_result`` blocks in user
messages); the scripted model reads them in the OpenAI shape and its answer goes back as
``text`` and ``tool_use`` blocks. The cache works like Anthropic's: a request whose system
prompt or tools carry ``cache_control`` writes its prefix to the cache the first time
(``cache_creation_input_tokens``) and reads it afterwards (``cache_read_input_tokens``).

Every request is checked against the messages API's rules (:func:`anthropic_violation`);
one that breaks a rule is answered 400 with Anthropic's error body and message and counted
in ``invalid``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from faulty_openai_server import FaultyOpenAI
from wire_faults import Faults, text_of

CACHED_PREFIX_TOKENS = 100
#: A block of a message in the request, by where it is: (message index, block index, block).
Located = tuple[int, int, dict[str, Any]]


def anthropic_error(message: str) -> dict[str, Any]:
    """Anthropic's 400 body: ``{"type": "error", "error": {"type", "message"}}``."""
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def _blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _anthropic_fields(body: dict[str, Any]) -> str | None:
    """Required fields: ``max_tokens`` and a non-empty ``messages``."""
    if "max_tokens" not in body:
        return "max_tokens: Field required"
    if "messages" not in body:
        return "messages: Field required"
    if not body["messages"]:
        return "messages: at least one message is required"
    return None


def _anthropic_message(i: int, message: dict[str, Any], last: bool) -> str | None:
    """One message on its own: role ``user`` or ``assistant``, and content (only the final
    assistant message may be empty), with no empty text block."""
    role = message.get("role")
    if role == "system":
        return (
            'messages: Unexpected role "system". The Messages API accepts a top-level '
            '`system` parameter, not "system" as an input message role.'
        )
    if role not in ("user", "assistant"):
        return f"messages.{i}.role: Input should be 'user' or 'assistant'"
    blocks = _blocks(message.get("content"))
    if not blocks and not (last and role == "assistant"):
        return (
            f"messages.{i}: all messages must have non-empty content except for the "
            "optional final assistant message"
        )
    if any(b.get("type") == "text" and not b.get("text") for b in blocks):
        return "messages: text content blocks must be non-empty"
    return None


def _anthropic_messages(messages: list[dict[str, Any]]) -> str | None:
    """Each message on its own, then the first one's role, then tool use across turns."""
    for i, message in enumerate(messages):
        error = _anthropic_message(i, message, i == len(messages) - 1)
        if error:
            return error
    if messages[0].get("role") != "user":
        return 'messages: first message must use the "user" role'
    return _anthropic_tool_order(messages)


def _turns(messages: list[dict[str, Any]]) -> list[tuple[str, list[Located]]]:
    """The conversation as the API reads it: consecutive messages of one role are one turn."""
    turns: list[tuple[str, list[Located]]] = []
    for i, message in enumerate(messages):
        located = [(i, j, b) for j, b in enumerate(_blocks(message.get("content")))]
        if turns and turns[-1][0] == message["role"]:
            turns[-1][1].extend(located)
        else:
            turns.append((message["role"], located))
    return turns


def _unanswered(uses: list[Located], following: list[Located]) -> str | None:
    """Each ``tool_use`` of an assistant turn needs a ``tool_result`` among the blocks the
    next turn begins with."""
    leading: set[str] = set()
    for _, _, block in following:
        if block.get("type") != "tool_result":
            break
        leading.add(block.get("tool_use_id", ""))
    missing = [(i, b["id"]) for i, _, b in uses if b.get("id") not in leading]
    if not missing:
        return None
    return (
        f"messages.{missing[0][0]}: `tool_use` ids were found without `tool_result` blocks "
        f"immediately after: {', '.join(m[1] for m in missing)}. Each `tool_use` block must "
        "have a corresponding `tool_result` block in the next message."
    )


def _unexpected(results: list[Located], uses: list[Located]) -> str | None:
    """Each ``tool_result`` answers a ``tool_use`` of the assistant turn just before."""
    ids = {b.get("id") for _, _, b in uses}
    for i, j, block in results:
        if block.get("tool_use_id") not in ids:
            return (
                f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                f"blocks: {block.get('tool_use_id')}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
    return None


def _anthropic_tool_order(messages: list[dict[str, Any]]) -> str | None:
    """Tool use and results across turns (consecutive same-role messages merged)."""
    turns = _turns(messages)
    previous: list[Located] = []
    for t, (role, located) in enumerate(turns):
        kind = "tool_use" if role == "assistant" else "tool_result"
        mine = [x for x in located if x[2].get("type") == kind]
        if role == "assistant":
            following = turns[t + 1][1] if t + 1 < len(turns) else []
            error = _unanswered(mine, following) if mine else None
        else:
            error = _unexpected(mine, previous)
        if error:
            return error
        previous = mine if role == "assistant" else []
    return None


def anthropic_violation(body: dict[str, Any]) -> dict[str, Any] | None:
    """The 400 body the messages API answers ``body`` with, or None if it is valid.

    The rules are the API's own, with its messages: ``max_tokens`` and ``messages``
    required, roles ``user`` and ``assistant`` only (the system prompt is a top-level
    field), the first message from the user, no empty content, and, reading consecutive
    messages of one role as one turn, every ``tool_use`` answered by a ``tool_result``
    at the start of the next turn and every ``tool_result`` answering a ``tool_use`` of
    the turn before.
    """
    error = _anthropic_fields(body) or _anthropic_messages(body["messages"])
    return anthropic_error(error) if error else None


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
    def violation(body: dict[str, Any]) -> dict[str, Any] | None:
        return anthropic_violation(body)

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
