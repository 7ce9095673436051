"""Delegation messages and what the Host reads back from messages.

A delegation is the seed's ``task(description, subagent_type, context)``: the subagent's
task text, the Host's description, and a ``<context>`` JSON block (the sub-question, what
is already known, what is still missing, URLs or paths to work on). Only the Host writes
that block: :func:`find_context` reads it from Host-authored messages alone, so a page or
file that contains a forged ``<context>`` cannot take over a subagent.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentscope.message import Msg

from subagents.spec import SubAgentSpec
from subagents.untrusted import neutralise, wrap

from .records import ToolCallRecord

HOST_NAME = "Host"
#: The result a task gets when the run stopped before it finished (seed 004).
CANCELLED = (
    "Cancelled: this task did not finish before the run stopped, so it has no result; run it "
    "again if it is still needed."
)
#: The context block that ends a delegation message (nothing may follow it).
CONTEXT_RE = re.compile(r"<context>\s*(\{.*\})\s*</context>\Z", re.DOTALL)
#: JSON escapes that keep page-derived strings (a URL, a sub-question) from closing the
#: block: ``<``, ``>`` and ``&`` are written as ``\u003c`` and so on, which decode the same.
_JSON_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def delegation_msg(spec: SubAgentSpec, description: str, context: dict[str, Any]) -> Msg:
    """The Host's message delegating a task to ``spec``'s subagent.

    The context block comes last and its JSON holds no ``<`` or ``>``; the description
    (the Host model's words, which may quote a page) is neutralised, so neither can
    forge or close the block.
    """
    body = json.dumps(context, ensure_ascii=False, indent=1)
    body = re.sub(r"[<>&]", lambda m: _JSON_SAFE[m.group(0)], body)
    about = neutralise(description.strip())
    task = spec.task + (f"\n\nThis task: {about}" if about else "")
    return Msg(HOST_NAME, f"{task}\n\n<context>\n{body}\n</context>", "user")


def context_of(text: str) -> dict[str, Any]:
    """The ``<context>`` JSON block that ends a delegation text (empty when there is none)."""
    match = CONTEXT_RE.search(text.rstrip())
    if match is None:
        return {}
    try:
        found = json.loads(match.group(1))
    except json.JSONDecodeError:
        return {}
    return found if isinstance(found, dict) else {}


def find_context(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The context of the latest delegation among formatted chat ``messages``.

    Only user messages named ``Host`` count: tool results and other agents' messages
    may quote a ``<context>`` block, but never define one.
    """
    for message in reversed(messages):
        if message.get("role") == "user" and message.get("name") == HOST_NAME:
            found = context_of(message_text(message))
            if found:
                return found
    return {}


def message_text(message: dict[str, Any]) -> str:
    """The text of a formatted chat message (a string or a list of blocks)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return ""


def summarize(
    name: str,
    records: list[ToolCallRecord],
    outcome: dict[str, Any] | None,
    error: str | None = None,
) -> str:
    """The text of the Msg the Host broadcasts for a finished delegation; ``error`` (why
    the task did not finish, e.g. "timed out after 30 s; …") comes first."""
    ok = sum(not r.failed for r in records)
    failed = [r for r in records if r.failed]
    lines = [f"[{name}] {error}."] if error else []
    lines.append(f"[{name}] {len(records)} tool calls, {ok} succeeded, {len(failed)} failed.")
    for r in failed[:10]:
        lines.append(f"- {r.name} failed ({r.status}): {r.text[:200]}")
    said = []  # the subagent's own words, written by a model that read pages
    if outcome:
        if outcome.get("summary"):
            said.append(str(outcome["summary"])[:1000])
        said += [f"- gap: {str(gap)[:200]}" for gap in (outcome.get("gaps") or [])[:10]]
    text = neutralise("\n".join(lines))  # a failed call's text may quote a page
    if not said:
        return text
    return text + "\n" + wrap("\n".join(said), "summary", name)


def kept(records: list[ToolCallRecord]) -> str:
    """What the finished calls of a task that did not finish leave in the run."""
    done = [r for r in records if not r.failed]
    paths = {str(p) for r in done for p in r.metadata.get("paths") or []}
    found = {str(i) for r in done for i in r.metadata.get("evidence_ids") or []}
    counts = [
        (sum(p.startswith("/workspace/pages/") and p.endswith(".md") for p in paths), "page"),
        (sum(p.startswith("/workspace/downloads/") for p in paths), "download"),
        (len(found), "evidence item"),
    ]
    parts = [f"{n} {what}{'s' if n != 1 else ''}" for n, what in counts if n]
    if parts:
        return f"{_and(parts)} stored before that were kept"
    if done:
        return f"the results of {len(done)} finished call{'s' if len(done) != 1 else ''} were kept"
    return "no call had finished before that"


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
