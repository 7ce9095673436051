"""Turn provider items into the tool's text: a bounded YAML list of title, url, snippet, source."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import yaml

from ..untrusted import neutralise, unwrap, wrap

#: Most items one call returns.
MAX_RESULTS = 10
#: Longest snippet kept, in characters (cut at a word boundary, marked with "…").
SNIPPET_CHARS = 300
#: Longest title kept, in characters.
TITLE_CHARS = 200

#: libyaml's emitter and safe parser when PyYAML was built with it (several times faster),
#: else the pure ones.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SPACE = re.compile(r"\s+")
_TRACKING = re.compile(r"^(utm_[a-z]+|fbclid|gclid|msclkid|yclid|spm)$", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One search hit as a provider parsed it."""

    title: str
    url: str
    snippet: str = ""


def clean(text: str | None) -> str:
    """Whitespace collapsed to single spaces, ends stripped."""
    return _SPACE.sub(" ", text or "").strip()


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, at a word boundary when one is near."""
    text = clean(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def normalise_url(url: str) -> str:
    """A key under which two spellings of the same page compare equal.

    Scheme and ``www.`` are ignored, host lowercased, default ports, fragments, tracking
    parameters and a trailing slash dropped, remaining query parameters sorted.
    """
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port if parts.port not in (None, 80, 443) else None
    netloc = f"{host}:{port}" if port else host
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query) if not _TRACKING.match(k)))
    path = parts.path.rstrip("/")
    return urlunsplit(("", netloc, path, query, ""))


def dedupe(items: list[Item], limit: int = MAX_RESULTS) -> list[Item]:
    """Items with a usable URL, first occurrence of each normalised URL kept, at most ``limit``."""
    seen: set[str] = set()
    kept: list[Item] = []
    for item in items:
        if not item.url.startswith(("http://", "https://")):
            continue
        try:
            key = normalise_url(item.url)
        except ValueError:  # an unparseable host or port: not a link anyone can open
            continue
        if key in seen:
            continue
        seen.add(key)
        kept.append(item)
        if len(kept) >= limit:
            break
    return kept


def render(items: list[Item], source: str, query: str) -> str:
    """The text a tool returns: a YAML list inside an ``<untrusted_search>`` block (read it
    with :func:`result_list`), or a sentence saying there were no results."""
    kept = dedupe(items)
    if not kept:
        return (
            f"No results from {source} for {query!r}. "
            "Try fewer or different words, or another source."
        )
    rows = [
        {
            "title": neutralise(shorten(item.title, TITLE_CHARS)) or item.url,
            "url": item.url.strip(),
            "snippet": neutralise(shorten(item.snippet, SNIPPET_CHARS)),
            "source": source,
        }
        for item in kept
    ]
    listed = yaml.dump(
        rows,
        Dumper=_DUMPER,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=False,
        width=100,
    ).rstrip("\n")
    # titles, snippets and addresses are the web's words: data, never instructions
    return wrap(listed, "search", source)


def result_list(text: str) -> list[dict[str, Any]]:
    """The result items of a search tool's text (see :func:`render`); none when it holds
    no list."""
    try:
        parsed = yaml.load(unwrap(text), Loader=_LOADER)  # safe: a SafeLoader
    except yaml.YAMLError:
        return []
    return [i for i in parsed if isinstance(i, dict)] if isinstance(parsed, list) else []
