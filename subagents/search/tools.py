"""The built-in search tools, as the built-in sources hold them. Each takes only
``query``, opens and closes its own HTTP client, and returns a YAML list of
``title``/``url``/``snippet``/``source`` items.

Each built-in tool lives in its provider's module (:mod:`.providers`) next to its
``SOURCE``; :data:`TOOLS` is read from :data:`.sources.BUILT_IN_SOURCES`. Outside failures
come back as ``unavailable(reason)``; no tool raises to the agent (see :func:`.run.run_source`).
"""

from __future__ import annotations

# The built-in tools stay importable from here; a new source needs no line here.
from .providers.bing import search_bing
from .providers.github import search_github
from .providers.google import search_google
from .providers.sogou import search_sogou
from .providers.wiki import search_wiki
from .run import ANOTHER, MAX_QUERY_CHARS, Provider, run_source
from .sources import BUILT_IN_SOURCES

#: The built-in search tools, in the order the Search subagent lists them.
TOOLS = tuple(source.tool for source in BUILT_IN_SOURCES.built_in_sources())

__all__ = [
    "ANOTHER",
    "MAX_QUERY_CHARS",
    "TOOLS",
    "Provider",
    "run_source",
    "search_bing",
    "search_github",
    "search_google",
    "search_sogou",
    "search_wiki",
]
