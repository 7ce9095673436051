"""Faults a scripted model server plays on the requests that match, and the HTTP handler
the fault-playing servers share.

A fault is a hung request (held until the server closes), an HTTP error status (with
headers such as ``Retry-After`` and the wire format's error body), a 200 with a
malformed JSON body, a 200 with an HTML page, an empty reply (no content at all), or a
reply cut at the output limit (its text cut mid-sentence, no tool calls, and
``finish_reason: "length"`` / ``stop_reason: "max_tokens"``). Each is played ``times`` times on the
requests ``when`` accepts; ``when`` sees the request in the OpenAI shape (tool names in
``tools[].function.name``, messages with roles ``user``/``assistant``/``tool``), whatever
the wire format, so one predicate works for every server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

Predicate = Callable[[dict[str, Any]], bool]
MALFORMED = b'{"choices": ['
HTML = b"<html><head><title>502</title></head><body>Bad gateway</body></html>"
HANG_LIMIT = 120.0  # a hung request is released at the latest after this many seconds


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content or "")


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools") or []}


def page_answer(body: dict[str, Any]) -> bool:
    """A tool asking for a page answer (viewer_fetch with a query)."""
    messages = body.get("messages") or [{}]
    return not tool_names(body) and "<page>" in text_of(messages[-1])


def planner(body: dict[str, Any]) -> bool:
    """The Host asking for its plan (structured output only)."""
    return tool_names(body) == {"generate_response"}


def writer(body: dict[str, Any]) -> bool:
    """A report tool asking for the report's prose (no tools, the writer's system prompt)."""
    messages = body.get("messages") or [{}]
    return not tool_names(body) and text_of(messages[0]).startswith("You write research reports")


def host(body: dict[str, Any]) -> bool:
    """The Host agent driving the research with ``task``."""
    return "task" in tool_names(body)


@dataclass
class Fault:
    """One fault to play ``times`` times on matching requests."""

    action: str  # "hang" | "status" | "malformed" | "html" | "empty" | "truncated"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    when: Predicate | None = None


class Faults:
    """The faults a server plays, in the order they were added."""

    def __init__(self) -> None:
        self.pending: list[Fault] = []
        self.played: list[str] = []
        #: the bodies of the empty and truncated replies sent, in order
        self.served: list[dict[str, Any]] = []
        self.release = threading.Event()
        self._lock = threading.Lock()

    def add(
        self,
        action: str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        times: int = 1,
        when: Predicate | None = None,
    ) -> Faults:
        self.pending.append(Fault(action, status, dict(headers or {}), times, when))
        return self

    def take(self, body: dict[str, Any]) -> Fault | None:
        """The first pending fault that matches ``body`` (one of its plays is used)."""
        with self._lock:
            for fault in self.pending:
                if fault.times > 0 and (fault.when is None or fault.when(body)):
                    fault.times -= 1
                    label = fault.action if fault.action != "status" else str(fault.status)
                    self.played.append(label)
                    return fault
        return None


#: Where a truncated reply's text is cut: mid-sentence, as an output limit cuts it.
CUT_AT = 0.6


def _cut(text: str) -> str:
    """``text`` cut at :data:`CUT_AT` of its length, mid-sentence."""
    return text[: max(1, int(len(text) * CUT_AT))].rstrip()


def degraded(payload: dict[str, Any], action: str) -> dict[str, Any]:
    """A reply body (OpenAI or Anthropic shape) made empty or cut at the output limit."""
    if "choices" in payload:
        choice = payload["choices"][0]
        message = {"role": "assistant", "content": ""}
        if action == "truncated":
            message["content"] = _cut(str(choice["message"].get("content") or ""))
        payload["choices"] = [
            {
                **choice,
                "message": message,
                "finish_reason": "length" if action == "truncated" else "stop",
            }
        ]
        return payload
    texts = [b for b in payload.get("content") or [] if b.get("type") == "text"]
    if action == "truncated" and texts:
        payload["content"] = [{"type": "text", "text": _cut(texts[0]["text"])}]
    else:
        payload["content"] = []
    payload["stop_reason"] = "max_tokens" if action == "truncated" else "end_turn"
    return payload


class WireServer(Protocol):
    """What :func:`fault_handler` needs of its server."""

    faults: Faults
    requests: list[dict[str, Any]]
    auth: list[str]
    _lock: threading.Lock

    def normalised(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def reply(self, body: dict[str, Any]) -> dict[str, Any]: ...
    def error(self, status: int, credential: str) -> dict[str, Any]: ...
    def credential(self, headers: Any) -> str: ...


def fault_handler(owner: WireServer) -> type[BaseHTTPRequestHandler]:
    """A handler that records each request, plays a matching fault or sends the reply."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, status: int, payload: bytes, content_type: str, headers: dict) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            credential = owner.credential(self.headers)
            with owner._lock:
                owner.requests.append(body)
                owner.auth.append(credential)
            fault = owner.faults.take(owner.normalised(body))
            if fault is None or fault.action in ("empty", "truncated"):
                reply = owner.reply(body)
                if fault is not None:
                    reply = degraded(reply, fault.action)
                    owner.faults.served.append(reply)
                payload = json.dumps(reply, ensure_ascii=False).encode()
                self._send(200, payload, "application/json", {})
            elif fault.action == "hang":
                owner.faults.release.wait(HANG_LIMIT)
                self.close_connection = True
            elif fault.action == "status":
                payload = json.dumps(owner.error(fault.status, credential)).encode()
                self._send(fault.status, payload, "application/json", fault.headers)
            elif fault.action == "malformed":
                self._send(200, MALFORMED, "application/json", {})
            else:
                self._send(200, HTML, "text/html; charset=utf-8", {})

    return Handler
