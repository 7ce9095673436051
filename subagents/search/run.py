"""How every search tool runs its provider: the query checked, a fresh client, the
outcome rendered or classified.

Outside failures (timeouts, HTTP errors, rate limits, consent or CAPTCHA pages, malformed
answers) come back as ``unavailable(reason)``; no tool raises to the agent. The result
envelope (and with it agentscope) is loaded with the first search, so that the provider
modules, which the reachability probe reads, stay light.

A result list (an empty one too: the source's answer that it has nothing) is kept in
the run's page cache (a :data:`~subagents.net.pagecache.SEARCH` entry) under a key
naming the tool, the query, the source's endpoint, the settings that shape the request
(the Wikipedia language, the keys sent) and the provider's code; a later run within the
freshness window gets the same list without asking the source, and a run with
``--fresh`` asks it again. A failure (unavailable, timed out) is never kept: the next
run asks again, and a source that keeps failing is recorded as such.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import httpx

from ..net.pagecache import SEARCH, fingerprint, remember, reuse
from ..secrets import scrub
from ..settings import ToolSettings
from .http import RETRY_AFTER_CAP, SearchUnavailable, new_client, search_policy
from .render import Item, render

if TYPE_CHECKING:
    from agentscope.tool import ToolResponse

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
    from ..results import error, ok, unavailable  # agentscope, with the first search

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
    key = await asyncio.to_thread(search_key, tool, provider, query, config)
    kept = await reuse(SEARCH, key)
    if kept is not None:
        return ok(kept.decode("utf-8"))
    started = time.perf_counter()
    try:
        async with new_client(config.search_timeout, search_policy(config)) as client:
            async with asyncio.timeout(deadline):
                items = await provider(client, query, config)
    except SearchUnavailable as exc:
        logger.info("%s unavailable: %s", tool, scrub(exc.reason, keys))
        return unavailable(scrub(f"{tool}: {exc.reason}", keys), ANOTHER)
    except TimeoutError:
        logger.info("%s gave no answer within %.0f s", tool, deadline)
        return unavailable(f"{tool}: no answer within {deadline:.0f} s", ANOTHER)
    except Exception as exc:  # a tool never raises to the agent
        logger.warning("%s failed: %s", tool, type(exc).__name__)  # the class: the log only
        return unavailable(f"{tool}: failed unexpectedly")
    logger.debug(
        "%s: %d items in %.0f ms", tool, len(items), 1000 * (time.perf_counter() - started)
    )
    text = scrub(render(items, tool, query), keys)
    await remember(SEARCH, key, text.encode("utf-8"), "text/yaml; charset=utf-8")
    return ok(text)


def search_key(tool: str, provider: Provider, query: str, config: ToolSettings) -> str:
    """The page cache's key of ``tool``'s result list for ``query``: everything that
    shapes the answer (the source's endpoint, the Wikipedia language, the keys sent,
    which select an engine or what a token may see, and the provider's code), as a
    digest, so that no key is kept in the store.

    Args:
        tool: the tool's name (``search_<source>``).
        provider: the provider the tool runs.
        query: the query, as sent.
        config: the run's tool settings.
    """
    source = tool.removeprefix("search_")
    shaped = {
        "tool": tool,
        "query": query,
        "endpoint": config.endpoints.get(source, ""),
        "wiki_lang": config.wiki_lang,
        "keys": {name: config.keys[name] for name in sorted(config.keys)},
        "code": fingerprint((provider.__module__, __package__, "subagents.net.decode")),
    }
    digest = hashlib.sha256(json.dumps(shaped, sort_keys=True).encode("utf-8")).hexdigest()
    return f"{tool} {digest}"
