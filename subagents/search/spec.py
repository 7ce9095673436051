"""The Search subagent: five web sources, read-only; the run's settings are injected."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agentscope.tool import ToolResponse

from ..offline import CallResult
from ..outcomes import SearchOutcome
from ..spec import SubAgentSpec, ToolGroup, with_tools
from . import offline, stage
from .sources import Source
from .tools import TOOLS

TASK = (
    "Find sources for the sub-question in the context. Search with its queries (short "
    "keyword queries work best; a keyword query for the wiki and GitHub tools), rephrase "
    "when results are poor, and finish with the most relevant distinct URLs, best first."
)


def carry(done: list[CallResult]) -> dict[str, Any]:
    """The text of every answered search, for the Host to pool and rank."""
    return {
        "results": [
            {"tool": r.name, "query": str(r.input.get("query", "")), "text": r.text}
            for r in done
            if r.name.startswith("search_") and r.ok
        ]
    }


SYS_PROMPT = """You are the Search subagent of a research pipeline.
Your job: find the most relevant, trustworthy pages for the task and hand back their URLs.

- Use several sources: search_wiki for encyclopedic background, search_bing and
  search_google for the general web, search_sogou for Chinese-language pages, search_github
  for code, libraries and issues.
- Run a few focused queries rather than one long one; rephrase when results are poor.
- A result marked unavailable means that source failed this time: use another source,
  do not retry the same call.
- Finish with a short list of the best URLs, each with one line on why it matters.
Never invent URLs: report only URLs that appeared in results."""


def search_spec(*extra: Callable[..., Awaitable[ToolResponse]]) -> SubAgentSpec:
    """The Search subagent with more sources: each extra tool is one registration.

    An extra source is an ``async def search_<name>(query: str, settings: object = None)``
    tool (usually ``run_source`` around a provider); the offline plan calls every
    ``search_*`` tool it has, and the Host pools every tool's results.
    """
    return with_tools(SPEC, extra)


def with_sources(spec: SubAgentSpec, sources: Iterable[Source]) -> SubAgentSpec:
    """``spec`` with the tool of each of ``sources`` it lacks added to its first group."""
    return with_tools(spec, [s.tool for s in sources])


#: A search task runs at most three queries on each of its sources (fifteen calls); a
#: task that goes on far past that is looping, and ends at this many calls.
CALL_CAP = 24

SPEC = SubAgentSpec(
    name="search",
    description="Finds relevant pages on the web, Wikipedia and GitHub and returns their URLs.",
    sys_prompt=SYS_PROMPT,
    groups=(
        ToolGroup(
            name="basic",
            tools=TOOLS,
            description="Web, encyclopedia and code search; each tool takes one query.",
        ),
    ),
    read_only=False,
    requires=("settings",),
    task=TASK,
    title="Searching",
    outcome=SearchOutcome,
    carry=carry,
    offline_plan=offline.plan,
    offline_outcome=offline.outcome,
    call_cap=CALL_CAP,
    host_line=(
        'finds sources for one sub-question: name it, e.g. {"subquestion": "q1"}, and '
        'give "queries" (short keyword queries) to choose them.'
    ),
    prepare=stage.prepare,
    absorb=stage.absorb,
    report=stage.report,
    step_fields=("queries",),
    web=True,
    skills=("search-sources", "search-queries"),
)
