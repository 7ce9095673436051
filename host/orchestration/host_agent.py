"""The Host's own agent: its prompt, its requests (plan, research, resume) and its plan.

The Host agent plans the question (structured output, checked and mended, or the offline
fallback) and then drives the research with its ``task`` tool.
"""

from __future__ import annotations

import json
from typing import Any

from agentscope.message import Msg

from research.plan import Plan, PlanModel, checked, offline_plan, replaced_by_offline
from subagents.failures import plain_reason
from subagents.secrets import scrub
from subagents.spec import SubAgentSpec
from subagents.untrusted import UNTRUSTED_RULE

from ..brains import ModelCallError
from ..brains.arguments import repaired
from ..config import Settings
from .interrupt import replied
from .task_schema import subagent_lines
from .workers import WorkerAgent

HOST_ITERS = 40

PLAN_ITERS = 4


HOST_PROMPT = """You are the Host of a research team. You never answer from memory: you plan,
delegate with your task tool, judge coverage, and have the report written.

Planning: break the question into 2 to 6 sub-questions that together cover it, each a
complete question naming its subject, each with 2 to 4 short keyword search queries.

Research, with task(description, subagent_type, context), one subagent per task:
{subagents}

1. Read the user's input files first.
2. For every sub-question, find sources, then read the best unread pages the result
   lists. Tasks for different sub-questions can be sent together; they run at the same
   time.
3. Each result reports the coverage of every sub-question. For one that is not answered,
   run another round with the suggested queries or links, while rounds and pages last.
   A refused task means its budget is spent: move on.
4. Have the documents saved read, and again whenever a result lists "downloads_unread".
5. Have the report written. Then reply with a short summary.
"""


def host_prompt(specs: dict[str, SubAgentSpec]) -> str:
    """The Host's system prompt, naming the subagents ``specs`` registers."""
    return HOST_PROMPT.replace("{subagents}", subagent_lines(specs)) + UNTRUSTED_RULE


RESEARCH_REQUEST = """Research the question with your task tool, following the plan below,
then have the report written with a "{writer}" task.

<plan>
{plan}
</plan>

Budgets: at most {rounds} research rounds per sub-question, {pages} pages in all, and
{concurrency} tasks at once."""


RESUME_REQUEST = """The run stopped and is now resumed from its last checkpoint. Every task
whose result is above was finished; a task whose result says "Cancelled" did not finish.
Continue the research with your task tool from where it stopped, following the same plan
and budgets, then have the report written with a "{writer}" task."""


class HostAgent(WorkerAgent):
    """The Host's agent. Hub broadcasts are recorded in :attr:`seen`, not added to its
    memory: every outcome already reaches it as the result of its own task call.

    Compression never summarises the user's requests (the question, the plan, a resume)
    or the latest round of task results.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[Msg] = []

    async def observe(self, msg: Msg | list[Msg] | None) -> None:
        if msg is not None:
            self.seen.extend(msg if isinstance(msg, list) else [msg])

    async def _compress_memory_if_needed(self) -> None:
        memory = await self.memory.get_memory(prepend_summary=False)
        self.task_ids |= {m.id for m in memory if m.role == "user"}
        await super()._compress_memory_if_needed()


def research_request(plan: Plan, settings: Settings, writer: str) -> Msg:
    """The request that starts the research of ``plan`` within the settings' budgets."""
    text = RESEARCH_REQUEST.format(
        writer=writer,
        plan=_plan_json(plan),
        rounds=settings.max_rounds,
        pages=settings.max_pages,
        concurrency=settings.concurrency,
    )
    return Msg("user", text, "user")


def resume_request(writer: str) -> Msg:
    """The request that continues a resumed run's research."""
    return Msg("user", RESUME_REQUEST.format(writer=writer), "user")


async def plan_question(agent: HostAgent, question: str, offline: bool) -> Plan:
    """The Host agent's plan (structured output), checked and mended, or the offline
    fallback; see :func:`research.plan.checked` (every fallback keeps its reason).

    Args:
        agent: the Host agent, which answers with a :class:`research.plan.PlanModel`.
        question: the user's question.
        offline: whether the agent thinks with the offline policy (whose plan is the
            offline decomposition itself).
    """
    request = Msg(
        "user",
        "Plan the research for this question: break it into sub-questions with search "
        f"queries.\n\n<question>{question}</question>",
        "user",
    )
    agent.max_iters = PLAN_ITERS
    try:
        reply = await replied(agent(request, structured_model=PlanModel))
        raw = reply.metadata if isinstance(reply.metadata, dict) else None
        if offline:  # the offline policy answers with this very plan
            plan = offline_plan(question)
        else:
            cut = repaired(await _finish_arguments(agent))
            plan = checked(raw, question, repaired=cut)
    except Exception as exc:  # a provider failure: plan offline and say so
        cause = str(exc) if isinstance(exc, ModelCallError) else plain_reason(exc)
        plan = replaced_by_offline(
            offline_plan(question), scrub(f"the planning call failed ({cause})")
        )
    finally:
        agent.max_iters = HOST_ITERS
    return plan


async def _finish_arguments(agent: HostAgent) -> str | None:
    """The arguments text of the agent's last structured-output call, as the provider
    sent it (None when none was kept)."""
    for msg in reversed(await agent.memory.get_memory(prepend_summary=False)):
        for block in reversed(msg.get_content_blocks("tool_use")):
            if block.get("name") == agent.finish_function_name:
                raw = block.get("raw_input")
                return raw if isinstance(raw, str) else None
    return None


def _plan_json(plan: Plan) -> str:
    subs = [{"id": s.id, "text": s.text, "queries": s.queries} for s in plan.subquestions]
    return json.dumps({"question": plan.question, "subquestions": subs}, ensure_ascii=False)
