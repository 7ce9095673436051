"""Shared pieces of the search tests: a small corpus and the loopback engines serving it."""

from __future__ import annotations

from typing import Any

import pytest

from demo.search_web import Document, SearchWeb
from subagents.results import text_of
from subagents.search.tools import (
    search_bing,
    search_github,
    search_google,
    search_sogou,
    search_wiki,
)
from subagents.settings import Keys, ToolSettings

CORPUS = [
    Document(
        "Solar power",
        "https://en.wikipedia.org/wiki/Solar_power",
        "Solar power is the conversion of energy from sunlight into electricity, either "
        "directly using photovoltaics or indirectly using concentrated solar power.\n\n"
        "Photovoltaic cells convert light into an electric current.",
    ),
    Document(
        "Wind power",
        "https://en.wikipedia.org/wiki/Wind_power",
        "Wind power is the use of wind energy to generate useful work. Wind turbines "
        "generate electricity for the grid.",
    ),
    Document(
        "agentscope",
        "https://github.com/agentscope-ai/agentscope",
        "Build multi-agent applications with MsgHub, ReActAgent and a Toolkit of tools.",
    ),
    Document(
        "Solar power (duplicate spelling)",
        "http://www.en.wikipedia.org/wiki/Solar_power/#history",
        "Another copy of the solar power article reached through a different URL spelling.",
    ),
    Document(
        "长江三角洲",
        "https://zh.wikipedia.org/wiki/长江三角洲",
        "长江三角洲是长江入海前形成的冲积平原，是中国经济最发达的地区之一。",
    ),
]

#: Tool, the keys it needs for the mode under test, and the server route that mode uses.
CASES = {
    "google-page": (search_google, {}, "google-page"),
    "google-api": (search_google, {"GOOGLE_API_KEY": "g", "GOOGLE_CSE_ID": "c"}, "google-api"),
    "bing-page": (search_bing, {}, "bing-page"),
    "bing-api": (search_bing, {"BING_API_KEY": "b"}, "bing-api"),
    "sogou": (search_sogou, {}, "sogou-page"),
    "github": (search_github, {}, "github"),
    "wiki": (search_wiki, {}, "wiki"),
}

KEY_VARS = ("GOOGLE_API_KEY", "GOOGLE_CSE_ID", "BING_API_KEY", "GITHUB_TOKEN")
#: The search tools' timeout in these tests: long enough for a loopback answer on a loaded
#: machine, well under the delay a "delay" fault holds an answer back (5 s).
TIMEOUT = 2.0


def plain_web(keys: dict[str, str] | None = None) -> SearchWeb:
    """A server that checks the given key values (by env var name) like the real APIs."""
    keys = keys or {}
    return SearchWeb(
        CORPUS,
        google_key=keys.get("GOOGLE_API_KEY"),
        google_cx=keys.get("GOOGLE_CSE_ID"),
        bing_key=keys.get("BING_API_KEY"),
        github_token=keys.get("GITHUB_TOKEN"),
    )


def settings_for(
    web: SearchWeb, keys: dict[str, str] | None = None, **changes: Any
) -> ToolSettings:
    """Settings aiming every source at ``web``, with exactly ``keys`` and a short timeout."""
    return ToolSettings(
        **{
            "endpoints": dict(web.urls),
            "search_timeout": TIMEOUT,
            "keys": Keys(keys or {}),
            **changes,
        }
    )


def point_at(monkeypatch: pytest.MonkeyPatch, web: SearchWeb, keys: dict[str, str]) -> None:
    """Aim every source at ``web`` through the environment, as the Host's configuration
    reads it: set exactly ``keys`` and a short timeout (``ToolSettings.from_env()`` then
    gives what :func:`settings_for` builds directly)."""
    for name, value in web.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("QUARTET_SEARCH_TIMEOUT", str(TIMEOUT))
    monkeypatch.delenv("QUARTET_WIKI_LANG", raising=False)
    for name in KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in keys.items():
        monkeypatch.setenv(name, value)


def text(response) -> str:
    return text_of(response)
