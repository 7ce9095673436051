"""The five search tools. Each takes only ``query``, opens and closes its own HTTP client,
and returns a YAML list of ``title``/``url``/``snippet``/``source`` items.

Outside failures (timeouts, HTTP errors, rate limits, consent or CAPTCHA pages, malformed
answers) come back as ``unavailable(reason)``; no tool raises to the agent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import httpx
from agentscope.tool import ToolResponse

from ..results import error, ok, unavailable
from ..secrets import scrub
from ..settings import ToolSettings
from .http import RETRY_AFTER_CAP, SearchUnavailable, new_client, search_policy
from .providers import bing, github, google, sogou, wiki
from .render import Item, render

logger = logging.getLogger(__name__)

#: Longest query accepted, in characters.
MAX_QUERY_CHARS = 1000
#: What the model may do when a source is unavailable (not shown to people).
ANOTHER = "try another search tool"

Provider = Callable[[httpx.AsyncClient, str, ToolSettings], Awaitable[list[Item]]]


async def run_source(
    tool: str, provider: Provider, query: object, settings: object = None
) -> ToolResponse:
    """Validate the query, run one provider in a fresh client, render or classify the outcome.

    ``settings`` is the run's :class:`~subagents.settings.ToolSettings` (endpoints, keys,
    timeout, network policy); without it the real services are used with no keys. The
    client obeys the network policy on every connection (see :func:`.http.search_policy`).
    """
    config = settings if isinstance(settings, ToolSettings) else ToolSettings()
    if not isinstance(query, str) or not query.strip():
        return error(
            f'query is empty: pass the words to search for, e.g. {tool}(query="solar panel '
            'efficiency 2024").'
        )
    query = query.strip()
    if len(query) > MAX_QUERY_CHARS:
        return error(
            f"query is {len(query)} characters long; keep it under {MAX_QUERY_CHARS} "
            "(a few distinctive words work best)."
        )
    deadline = 3 * config.search_timeout + RETRY_AFTER_CAP
    keys = list(config.keys.values())
    started = time.perf_counter()
    try:
        async with new_client(config.search_timeout, search_policy(config)) as client:
            items = await asyncio.wait_for(provider(client, query, config), deadline)
    except SearchUnavailable as exc:
        logger.info("%s unavailable: %s", tool, scrub(exc.reason, keys))
        return unavailable(scrub(f"{tool}: {exc.reason}", keys), ANOTHER)
    except TimeoutError:
        logger.info("%s gave no answer within %.0f s", tool, deadline)
        return unavailable(f"{tool}: no answer within {deadline:.0f} s", ANOTHER)
    except Exception as exc:  # a tool never raises to the agent
        logger.warning("%s failed: %s", tool, type(exc).__name__)
        return unavailable(f"{tool}: failed unexpectedly ({type(exc).__name__})")
    logger.debug(
        "%s: %d items in %.0f ms", tool, len(items), 1000 * (time.perf_counter() - started)
    )
    return ok(scrub(render(items, tool, query), keys))


async def search_google(query: str, settings: object = None) -> ToolResponse:
    """Search the web with Google; returns a YAML list of results (title, url, snippet, source).

    Good for general web pages in any language. At most 10 results, snippets shortened,
    duplicate pages removed. If the answer says the source is unavailable (Google often
    blocks automated searches), use search_bing or another search tool instead.

    Args:
        query (str): Words to search for, as typed into Google, e.g. "agentscope MsgHub
            example". Operators work: site:example.com, "exact phrase", -excluded.
    """
    return await run_source("search_google", google.search, query, settings)


async def search_bing(query: str, settings: object = None) -> ToolResponse:
    """Search the web with Bing; returns a YAML list of results (title, url, snippet, source).

    Good for general and English-language web pages. At most 10 results, snippets
    shortened, duplicate pages removed. If the source is unavailable, try another search tool.

    Args:
        query (str): Words to search for, as typed into Bing, e.g. "python asyncio timeout
            best practices". Operators work: site:example.com, "exact phrase", -excluded.
    """
    return await run_source("search_bing", bing.search, query, settings)


async def search_sogou(query: str, settings: object = None) -> ToolResponse:
    """Search the Chinese web with Sogou; returns a YAML list (title, url, snippet, source).

    Best for Chinese-language pages and topics in China. At most 10 results, snippets
    shortened, duplicate pages removed. If the source is unavailable, try another search tool.

    Args:
        query (str): Words to search for, Chinese or English, e.g. "新能源汽车 销量 2024".
    """
    return await run_source("search_sogou", sogou.search, query, settings)


async def search_github(query: str, settings: object = None) -> ToolResponse:
    """Search GitHub; returns a YAML list of results (title, url, snippet, source).

    By default it searches repositories (snippet: description, stars, language, last
    update). Start the query with "code:" to search file contents, "issues:" to search
    issues, or "prs:" to search pull requests. GitHub qualifiers work and also choose the
    kind: language:python, stars:>100, user:NAME, org:NAME, repo:OWNER/NAME, in:readme for
    repositories; is:issue, is:pr, label:, author:, state: search issues; path:, filename:,
    extension: search code. At most 10 results.

    Args:
        query (str): What to find on GitHub, e.g. "vector database language:rust",
            "code: MsgHub repo:agentscope-ai/agentscope" or "issues: memory leak state:open".
    """
    return await run_source("search_github", github.search, query, settings)


async def search_wiki(query: str, settings: object = None) -> ToolResponse:
    """Search Wikipedia or the configured wiki; returns a YAML list (title, url, snippet, source).

    The snippet is the start of each article's introduction, so it often answers
    definitional questions directly. Best for encyclopedic facts: people, places,
    concepts, events. At most 10 articles.

    Args:
        query (str): Topic words to look up, e.g. "Transformer (machine learning)" or
            "长江三角洲". Short noun phrases work best.
    """
    return await run_source("search_wiki", wiki.search, query, settings)


TOOLS = (search_google, search_bing, search_sogou, search_github, search_wiki)
