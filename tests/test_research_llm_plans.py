"""A model's plan is checked before it is researched, through the OpenAI wire format on
loopback: plan JSON cut off mid-string (which agentscope repairs into a valid but damaged
plan) and a plan in other languages are replaced by the offline decomposition, the
reason is recorded in run.json, and every part of the question is still researched."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_server import ScriptedOpenAI
from test_research_llm import llm_run

from research.plan import REPAIRED, offline_plan

#: The plan's arguments, cut off inside the first query: agentscope's repair turns this
#: into one part with the single query "x".
CUT_OFF = '{"subquestions": [{"text": "How was the Grand Canal built?", "queries": ["x'
#: A plan for the English question written in German and Chinese.
FOREIGN = {
    "subquestions": [
        {"text": "Wie wurde der Große Kanal gebaut?", "queries": ["Großer Kanal Bau"]},
        {"text": "大运河为何衰落？", "queries": ["大运河 衰落"]},
    ]
}


class EveryPart(ScriptedOpenAI):
    """The scripted model, with the Host searching and reading every part of the plan it
    is given; ``arguments``, when set, is the planner's arguments text sent as it is."""

    def __init__(self, parts: list[str], arguments: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parts, self.arguments = parts, arguments

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        tools = {t["function"]["name"] for t in body.get("tools") or []}
        messages = body.get("messages", [])
        answered = messages and messages[-1].get("role") == "tool"
        if tools == {"generate_response"} and self.arguments is not None and not answered:
            self.roles.append("planner")
            call = {
                "id": "call_plan",
                "type": "function",
                "function": {"name": "generate_response", "arguments": self.arguments},
            }
            return {"content": "Here is the plan.", "tool_calls": [call]}
        return super().answer(body)

    def _host(self, done: int, n: int) -> dict[str, Any]:
        steps: list[list[tuple[str, dict[str, Any]]]] = [
            [("file", {})],
            [("search", {"subquestion": p}) for p in self.parts],
            [("browser", {"subquestion": p}) for p in self.parts],
            [("generate", {"formats": list(self.formats)})],
        ]
        taken = 0
        for step in steps:
            if done == taken:
                calls = [
                    {
                        "id": f"call_task_{n + i}",
                        "type": "function",
                        "function": {
                            "name": "task",
                            "arguments": json.dumps(
                                {"description": f"{kind} task", "subagent_type": kind, "context": c}
                            ),
                        },
                    }
                    for i, (kind, c) in enumerate(step)
                ]
                return {"content": None, "tool_calls": calls}
            taken += len(step)
        return {"content": "The research is done and the report is written."}


def _offline(result) -> list[tuple[str, str]]:
    return [(s.id, s.text) for s in offline_plan(result.question).subquestions]


def _assert_every_offline_part_researched(result) -> None:
    offline = _offline(result)
    assert len(offline) == 4
    assert [(s.id, s.text) for s in result.plan.subquestions] == offline
    for kind in ("search", "browser"):
        done = [d for d in result.delegations if d.subagent == kind and d.status == "ok"]
        assert sorted(d.subquestion for d in done) == [sid for sid, _ in offline], kind
    assert all(s.status != "pending" for s in result.plan.subquestions)


def _record(result) -> dict[str, Any]:
    return json.loads(result.run.real_path("/internal/run.json").read_text())


@pytest.mark.parametrize(
    ("server_kwargs", "reason"),
    [
        ({"arguments": CUT_OFF}, REPAIRED),
        (
            {"plan": FOREIGN},
            "part q1 is in German, not in the question's language (English)",
        ),
    ],
    ids=["cut-off-json", "wrong-language"],
)
def test_a_refused_plan_is_replaced_by_the_offline_one_and_every_part_is_researched(
    tmp_path, monkeypatch, server_kwargs, reason
):
    parts = ["q1", "q2", "q3", "q4"]
    with EveryPart(parts, **server_kwargs) as server:
        _, result = llm_run(tmp_path, monkeypatch, server)
    assert "planner" in server.roles
    assert result.plan.planner == f"offline (fallback: {reason})"
    assert result.plan.language == "en"
    _assert_every_offline_part_researched(result)
    assert all(q != "x" for s in result.plan.subquestions for q in s.queries)
    record = _record(result)
    assert record["plan"]["planner"] == result.plan.planner
    assert record["plan"]["fallbacks"] == [
        {"action": "plan replaced", "part": "", "reason": reason}
    ]
    assert result.exit_code == 0 and record["exit_code"] == 0
    searched = {
        q
        for d in result.delegations
        if d.subagent == "search"
        for q in d.context.get("queries", [])
    }
    assert "x" not in searched and "大运河 衰落" not in searched
