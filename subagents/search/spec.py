"""The Search subagent: five web sources, read-only, no injected dependencies."""

from __future__ import annotations

from ..spec import SubAgentSpec, ToolGroup
from .tools import TOOLS

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
    requires=(),
)
