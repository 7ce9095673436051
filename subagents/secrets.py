"""One list of credential variables and one scrubber for the whole project.

Keys come only from environment variables. Any text that leaves a tool or the Host (a
tool result, a log line, ``run.json``, the transcript, stderr) passes through
:func:`scrub`, which replaces the value of every credential variable set in the process
(and any extra value the caller knows of) with ``***``. A provider or proxy that echoes a
key back ("bad Bearer sk-…") therefore never leaks it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

#: Credential variables the project reads, by name.
SECRET_VARS = (
    "GOOGLE_API_KEY",
    "GOOGLE_CSE_ID",
    "BING_API_KEY",
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "DASHSCOPE_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
)
#: Other variables whose names say they hold a credential (a proxy's token, say).
_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|_SECRET|PASSWORD|_CSE_ID)$", re.IGNORECASE)
#: Values shorter than this are not replaced: too likely to match ordinary text.
MIN_SECRET_CHARS = 6
MASK = "***"


def secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of every credential variable in ``env`` (default: the process's)."""
    env = os.environ if env is None else env
    found = []
    for name, value in env.items():
        value = (value or "").strip()
        if len(value) >= MIN_SECRET_CHARS and (name in SECRET_VARS or _SECRET_NAME.search(name)):
            found.append(value)
    # Longest first, so that a key containing another is replaced whole.
    return sorted(set(found), key=len, reverse=True)


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every credential value (and each of ``extra``) replaced by ``***``."""
    if not text:
        return text
    values = secret_values() + [v for v in extra if v and len(v) >= MIN_SECRET_CHARS]
    for value in sorted(set(values), key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def scrub_data(data: object, extra: Iterable[str] = ()) -> object:
    """``data`` (JSON-like: dicts, lists, strings) with :func:`scrub` applied to every string."""
    extra = list(extra)
    if isinstance(data, str):
        return scrub(data, extra)
    if isinstance(data, dict):
        return {scrub(str(k), extra): scrub_data(v, extra) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [scrub_data(v, extra) for v in data]
    return data
