"""A scripted chat model behind the real OpenAI chat-completions wire format, on 127.0.0.1.

It plays every role of an LLM run: the Host's planner (structured output through
``generate_response``), the Host driving ``task``, each subagent (its tool calls, then its
structured outcome), and the model tools call directly (page answers, report prose). It
decides from the request alone: the tools offered and the messages so far, as a model
would. Every request is recorded with its Authorization header.
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
#: The sentence of the scripted prose whose citation verifies.
VERIFIED_CLAIM = "The canal was joined from older waterways."


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
        ids = re.findall(r"\[(ev-[0-9a-f]{12})\]", prompt)
        real = ids[0] if ids else FABRICATED
        return {
            "content": (
                "# The Grand Canal\n\nA short answer. [" + real + "]\n\n"
                "## How was the Grand Canal built?\n\n"
                f"{VERIFIED_CLAIM} [{real}]\n\n"
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
