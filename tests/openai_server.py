"""A scripted chat model behind the real OpenAI chat-completions wire format, on 127.0.0.1.

It plays every role of an LLM run: the Host's planner (structured output through
``generate_response``), the Host driving ``task``, each subagent (its tool calls, then its
structured outcome), and the model tools call directly (page answers, report prose). It
decides from the request alone: the tools offered and the messages so far, as a model
would. Every request is recorded with its Authorization header.

Every request is first checked against the rules the real API enforces
(:func:`openai_violation`): a request that breaks one is answered 400 with OpenAI's own
error body and message, and counted in ``invalid``, so a test can assert that a whole run
sent none.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PLAN = {
    "subquestions": [
        {"text": "How was the Grand Canal built?", "queries": ["Grand Canal construction Sui"]},
        {"text": "Why did the Grand Canal decline?", "queries": ["Grand Canal decline 1855"]},
    ]
}
FABRICATED = "ev-000000000000"
#: The sentence of the scripted prose whose citation verifies, when the prompt lists no
#: evidence (otherwise the writer restates the first quote it is given).
VERIFIED_CLAIM = "The canal was joined from older waterways."
#: A claim the scripted writer cites to a real evidence id that does not say it.
UNSUPPORTED_CLAIM = "The Quixotic Lamplighters Guild financed the canal with moon bonds."


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return str(content or "")


def _call(name: str, args: dict[str, Any], n: int) -> dict[str, Any]:
    return {
        "id": f"call_{name}_{n}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
    }


#: The generator tool of each report format.
FORMAT_TOOLS = {
    "md": "generate_markdown",
    "html": "generate_html",
    "pdf": "generate_pdf",
    "pptx": "generate_pptx",
}


# -- what the real API refuses -------------------------------------------------------------

#: The message roles the chat-completions API accepts.
OPENAI_ROLES = ("system", "assistant", "user", "function", "tool", "developer")


def openai_error(message: str, param: str | None = None, code: str | None = None) -> dict:
    """OpenAI's 400 body: ``{"error": {"message", "type", "param", "code"}}``."""
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def _openai_fields(body: dict[str, Any]) -> dict | None:
    """The request's top-level fields: ``messages`` present and not empty, ``tools`` not
    empty, ``tool_choice`` only with tools."""
    messages = body.get("messages")
    if messages is None:
        return openai_error(
            "Missing required parameter: 'messages'.", "messages", "missing_required_parameter"
        )
    if not messages:
        return openai_error(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            "messages",
            "empty_array",
        )
    if body.get("tools") == []:
        return openai_error(
            "Invalid 'tools': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            "tools",
            "empty_array",
        )
    if "tool_choice" in body and not body.get("tools"):
        return openai_error(
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' "
            "are specified.",
            "tool_choice",
        )
    return None


def _openai_message(i: int, message: dict[str, Any]) -> dict | None:
    """One message on its own: a known role, content where the role needs it, and a
    ``tool_call_id`` on a tool message."""
    role = message.get("role")
    if role not in OPENAI_ROLES:
        supported = ", ".join(f"'{r}'" for r in OPENAI_ROLES[:-1])
        return openai_error(
            f"Invalid value: '{role}'. Supported values are: {supported}, and "
            f"'{OPENAI_ROLES[-1]}'.",
            f"messages[{i}].role",
            "invalid_value",
        )
    if message.get("content") is None and not (role == "assistant" and message.get("tool_calls")):
        return openai_error(
            "Invalid value for 'content': expected a string, got null.",
            f"messages.[{i}].content",
        )
    if role == "tool" and not message.get("tool_call_id"):
        return openai_error(
            "Missing parameter 'tool_call_id': messages with role 'tool' must have a "
            "'tool_call_id'.",
            f"messages.[{i}].tool_call_id",
            "missing_required_parameter",
        )
    return None


def _openai_tool_order(messages: list[dict[str, Any]]) -> dict | None:
    """Tool calls and their results: the messages right after an assistant message with
    ``tool_calls`` are one ``tool`` message per call id, and every ``tool`` message is in
    such a run."""
    i = 0
    while i < len(messages):
        message = messages[i]
        if message.get("role") == "tool":
            return openai_error(
                "Invalid parameter: messages with role 'tool' must be a response to a "
                "preceeding message with 'tool_calls'.",
                f"messages.[{i}].role",
            )
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        j = i + 1
        if calls:
            pending = [c.get("id") for c in calls]
            while j < len(messages) and messages[j].get("role") == "tool":
                answered = messages[j].get("tool_call_id")
                if answered not in pending:
                    return openai_error(
                        f"Invalid parameter: 'tool_call_id' of '{answered}' not found in "
                        "'tool_calls' of previous message.",
                        f"messages.[{j}].tool_call_id",
                    )
                pending.remove(answered)
                j += 1
            if pending:
                return openai_error(
                    "An assistant message with 'tool_calls' must be followed by tool "
                    "messages responding to each 'tool_call_id'. The following "
                    f"tool_call_ids did not have response messages: {', '.join(pending)}",
                    f"messages.[{i}].role",
                )
        i = j
    return None


def openai_violation(body: dict[str, Any]) -> dict | None:
    """The 400 body the chat-completions API answers ``body`` with, or None if it is valid.

    The rules are the API's own, with its messages: ``messages`` present and not empty,
    known roles, content on every message but an assistant's tool calls, a
    ``tool_call_id`` on each tool message, each assistant message with ``tool_calls``
    followed at once by one tool message per call id, no tool message that answers
    nothing, no empty ``tools`` and no ``tool_choice`` without tools.
    """
    error = _openai_fields(body)
    if error is not None:
        return error
    messages = body["messages"]
    for i, message in enumerate(messages):
        error = _openai_message(i, message)
        if error is not None:
            return error
    return _openai_tool_order(messages)


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
    """Answer the request ``handler`` serves with ``payload`` as JSON."""
    data = json.dumps(payload, ensure_ascii=False).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class ScriptedOpenAI:
    """The server; ``plan`` is what the planner answers (replace it to test fallbacks);
    ``formats`` are the report formats the Host asks for and the writer writes."""

    def __init__(self, plan: Any = None, formats: tuple[str, ...] = ("md", "html")) -> None:
        self.plan = PLAN if plan is None else plan
        self.formats = formats
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []
        self.roles: list[str] = []
        self.prose_requests = 0
        self.verified_claim = VERIFIED_CLAIM
        #: the error bodies of the requests the API's rules refused
        self.invalid: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._n = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ScriptedOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what the model says -------------------------------------------------------------

    @staticmethod
    def violation(body: dict[str, Any]) -> dict[str, Any] | None:
        """The wire's 400 body for ``body``, or None when the real API would accept it."""
        return openai_violation(body)

    def refusal(self, body: dict[str, Any]) -> dict[str, Any] | None:
        """The 400 body for a request that breaks the wire's rules (counted in
        ``invalid``), or None for a valid one."""
        error = self.violation(body)
        if error is not None:
            with self._lock:
                self.invalid.append(error)
        return error

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        messages = body.get("messages", [])
        everything = "\n".join(_text(m) for m in messages)
        last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
        results = [m for m in messages[last_user:] if m.get("role") == "tool"]
        with self._lock:
            self._n += 1
            n = self._n
        if not tools:
            return self._tool_side(_text(messages[-1]) if messages else "")
        if "task" in tools:
            self.roles.append("host")
            return self._host(len(results), n)
        if tools == {"generate_response"}:
            self.roles.append("planner")
            if results:
                return {"content": "The plan is ready."}
            return {
                "content": "Here is the plan.",
                "tool_calls": [_call("generate_response", self.plan, n)],
            }
        context = self._context(everything)
        for role, marker in (
            ("search", "search_wiki"),
            ("browser", "viewer_fetch"),
            ("file", "list_directory"),
            ("generate", "generate_markdown"),
        ):
            if marker in tools:
                self.roles.append(role)
                return getattr(self, f"_{role}")(context, results, n)
        return {"content": "Nothing to do."}

    @staticmethod
    def _context(text: str) -> dict[str, Any]:
        found = re.findall(r"<context>\s*(\{.*?\})\s*</context>", text, re.S)
        return json.loads(found[-1]) if found else {}

    def _host(self, done: int, n: int) -> dict[str, Any]:
        steps = [
            [("file", {})],
            [("search", {"subquestion": "q1"}), ("search", {"subquestion": "q2"})],
            [("browser", {"subquestion": "q1"}), ("browser", {"subquestion": "q2"})],
            [("generate", {"formats": list(self.formats)})],
        ]
        taken = 0
        for step in steps:
            if done == taken:
                calls = [
                    _call(
                        "task",
                        {"description": f"{kind} task", "subagent_type": kind, "context": ctx},
                        n + i,
                    )
                    for i, (kind, ctx) in enumerate(step)
                ]
                return {"content": None, "tool_calls": calls}
            taken += len(step)
        return {"content": "The research is done and the report is written."}

    @staticmethod
    def _finish(summary: str, outcome: dict[str, Any], n: int) -> dict[str, Any]:
        return {
            "content": summary,
            "tool_calls": [_call("generate_response", {"summary": summary, **outcome}, n)],
        }

    def _search(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        if not results:
            query = (ctx.get("queries") or ["Grand Canal"])[0]
            return {
                "content": None,
                "tool_calls": [
                    _call("search_wiki", {"query": query}, n),
                    _call("search_bing", {"query": query}, n + 1),
                ],
            }
        urls = re.findall(r"url: (http\S+)", "\n".join(_text(r) for r in results))
        return self._finish("Found pages.", {"urls": urls[:5]}, n)

    def _browser(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        urls = ctx.get("urls") or []
        if not results and urls:
            return {
                "content": None,
                "tool_calls": [
                    _call("viewer_fetch", {"url": urls[0], "query": ctx.get("subquestion", "")}, n)
                ],
            }
        text = "\n".join(_text(r) for r in results)
        ids = re.findall(r"\[(ev-[0-9a-f]{12})\]", text)
        pages = re.findall(r"^Stored: (\S+)", text, re.M)
        return self._finish("Read the page.", {"evidence_ids": ids, "pages": pages}, n)

    def _file(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        if not results:
            return {
                "content": None,
                "tool_calls": [_call("read_text_file", {"path": "/userinput/reading-notes.md"}, n)],
            }
        return self._finish("Read the notes.", {"files": ["/userinput/reading-notes.md"]}, n)

    def _generate(self, ctx: dict, results: list, n: int) -> dict[str, Any]:
        if not results:
            calls = [
                _call(
                    tool,
                    {
                        "requirements": ctx.get("requirements", ""),
                        "out_path": f"/workspace/reports/report.{ext}",
                        "from_paths": ctx.get("from_paths", []),
                    },
                    n + i,
                )
                for i, (ext, tool) in enumerate((f, FORMAT_TOOLS[f]) for f in self.formats)
            ]
            return {"content": None, "tool_calls": calls}
        paths = re.findall(r'"path": "([^"]+)"', "\n".join(_text(r) for r in results))
        return self._finish("Wrote the report.", {"outputs": paths}, n)

    def _tool_side(self, prompt: str) -> dict[str, Any]:
        """A tool asking the model directly: a page answer (JSON) or the report's prose."""
        page = re.search(r"<page>\n(.*?)\n</page>", prompt, re.S)
        if page:
            self.roles.append("page-answer")
            sentences = re.findall(r"[A-Z][^.\n]{30,200}\.", page.group(1))
            quotes = [s for s in sentences if "canal" in s.lower()][:2]
            return {
                "content": json.dumps(
                    {
                        "answer": "From the page.",
                        "quotes": [*quotes, "A sentence the page never says."],
                    }
                )
            }
        self.roles.append("prose")
        self.prose_requests += 1
        # the notes' candidates: "- <sentence> [ev-…]"
        quoted = re.findall(r"^- (.+?) \[(ev-[0-9a-f]{12})\]$", prompt, re.M)
        span, real = quoted[0] if quoted else (VERIFIED_CLAIM, FABRICATED)
        # a faithful writer restates what its source says (here, in its words, without
        # the Markdown's links and emphasis), cites it, and may also slip in a claim the
        # same real source never makes
        said = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", span).replace("*", "")
        self.verified_claim = said.rstrip(".") + "."
        return {
            "content": (
                "# The Grand Canal\n\n" + self.verified_claim + " [" + real + "]\n\n"
                "## How was the Grand Canal built?\n\n"
                f"{self.verified_claim} [{real}]\n\n"
                f"{UNSUPPORTED_CLAIM} [{real}]\n\n"
                "The canal was built by aliens in one night. [" + FABRICATED + "]\n"
            )
        }

    # -- the HTTP side -------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner._lock:
                    owner.requests.append(body)
                    owner.auth.append(self.headers.get("Authorization", ""))
                error = owner.refusal(body)
                if error is not None:
                    send_json(self, 400, error)
                    return
                message = {"role": "assistant", **owner.answer(body)}
                send_json(
                    self,
                    200,
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
                    },
                )

        return Handler
