"""What a subagent's offline plan sees and returns.

Each subagent declares on its spec an offline plan: given the delegation's context (the
JSON the Host put in its message) and the calls made so far in this delegation with the
*text* of their results, it returns the next tool calls, or none when the task is done;
its outcome function then fills in the delegation's structured outcome. The offline
brain reads exactly what a model reads: the context and the result text, never metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class CallResult:
    """One finished tool call of the current delegation, as the model saw it."""

    name: str
    input: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    @property
    def ok(self) -> bool:
        """A result that does not report an error (its text does not start with Error)."""
        return bool(self.text) and not re.match(
            r"(Error|FunctionNotFoundError|FunctionInactiveError)", self.text
        )


def succeeded(done: list[CallResult], name: str) -> list[CallResult]:
    """The successful calls of tool ``name``."""
    return [r for r in done if r.name == name and r.ok]


def called(done: list[CallResult], name: str, key: str) -> set[str]:
    """The values of argument ``key`` in the calls of tool ``name`` (failed ones too)."""
    return {str(r.input.get(key)) for r in done if r.name == name}


def safe_name(url: str) -> str:
    """A file name for a download: the URL's last segment, reduced to safe characters."""
    name = unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or "download"
    name = re.sub(r"[^\w.\-]+", "_", name).strip("._") or "download"
    return name[:120]
