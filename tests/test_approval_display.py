"""What the approval and plan-review prompts show: a model's arguments and plan text can
carry terminal control sequences, which must not reach the user's terminal raw."""

from __future__ import annotations

import asyncio
import json

from host.orchestration.approval import Terminal, terminal_approver, terminal_plan_review
from research.plan import Plan, SubQuestion

HOSTILE = "https://a.example/\x1b]8;;https://evil.example\x07x\x1b]8;;\x07\u202egnp.exe\x9b2J"


def _terminal(answers: list[str]) -> tuple[Terminal, list[str]]:
    shown: list[str] = []
    replies = iter(answers)
    return Terminal(read=lambda prompt: next(replies), write=shown.append), shown


def _clean(text: str) -> bool:
    return not any(c in text for c in "\x1b\x07\x9b\u202e")


def test_approval_prompt_shows_arguments_without_control_characters() -> None:
    terminal, shown = _terminal(["a"])
    ask = terminal_approver(terminal)
    decision = asyncio.run(ask("browser", "http_download", {"url": HOSTILE}))
    assert decision.action == "approve"
    text = "".join(shown)
    assert "http_download" in text and "evil.example" in text
    assert _clean(text)
    # the arguments are still readable as the JSON the model sent, with escapes
    start = text.index("{")
    assert json.loads(text[start : text.rindex("}") + 1]) == {"url": HOSTILE}


def test_plan_review_shows_parts_and_queries_without_control_characters() -> None:
    terminal, shown = _terminal([""])
    plan = Plan("q", "en", [SubQuestion("s1", f"What is {HOSTILE}?", [f"about {HOSTILE}"])])
    review = terminal_plan_review(terminal)
    kept = asyncio.run(review(plan))
    assert [s.text for s in kept.subquestions] == [f"What is {HOSTILE}?"]
    text = "".join(shown)
    # the hidden link target is dropped with its sequence; what the terminal would have
    # shown stays, in order, and the part is counted in the singular
    assert "What is https://a.example/xgnp.exe?" in text and _clean(text)
    assert "The plan (1 part):" in text
