"""Where each source lives and which optional keys are set, read from the environment per call.

Endpoints (SPEC §8): ``QUARTET_GOOGLE_URL``, ``QUARTET_BING_URL``, ``QUARTET_SOGOU_URL``,
``QUARTET_GITHUB_URL``, ``QUARTET_WIKI_URL`` override the base URL of a source; when unset
the real services are used. ``QUARTET_WIKI_LANG`` picks the Wikipedia language (default
``en``). ``QUARTET_SEARCH_TIMEOUT`` is the per-request timeout in seconds (default 10).
Keys (``GOOGLE_API_KEY`` + ``GOOGLE_CSE_ID``, ``BING_API_KEY``, ``GITHUB_TOKEN``) are read
only here and only from the environment.
"""

from __future__ import annotations

import os
import re

#: Environment variables whose values must never leave the process except to their own host.
SECRET_VARS = ("GOOGLE_API_KEY", "GOOGLE_CSE_ID", "BING_API_KEY", "GITHUB_TOKEN")

DEFAULT_TIMEOUT = 10.0
_LANG = re.compile(r"^[a-z][a-z0-9-]{1,15}$")


def endpoint(source: str, default: str) -> str:
    """Base URL of ``source``: ``QUARTET_<SOURCE>_URL`` or ``default``, no trailing slash."""
    value = os.environ.get(f"QUARTET_{source.upper()}_URL", "").strip()
    return (value or default).rstrip("/")


def secret(name: str) -> str | None:
    """The value of a key variable, or None when unset or blank."""
    if name not in SECRET_VARS:
        raise KeyError(name)
    value = os.environ.get(name, "").strip()
    return value or None


def secret_values() -> list[str]:
    """Current values of every key variable long enough to redact safely."""
    return [v for v in (os.environ.get(n, "").strip() for n in SECRET_VARS) if len(v) >= 6]


def timeout() -> float:
    """Per-request timeout in seconds (``QUARTET_SEARCH_TIMEOUT``, default 10)."""
    raw = os.environ.get("QUARTET_SEARCH_TIMEOUT", "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


def wiki_lang() -> str:
    """Wikipedia language code (``QUARTET_WIKI_LANG``, default ``en``); ValueError if malformed."""
    lang = os.environ.get("QUARTET_WIKI_LANG", "").strip().lower() or "en"
    if not _LANG.match(lang):
        raise ValueError(f"QUARTET_WIKI_LANG={lang!r} is not a wiki language code such as en or zh")
    return lang
