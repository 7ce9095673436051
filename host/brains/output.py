"""What a reply may spend and whether it came back whole.

Each role has its own output limit (:data:`~host.brains.limits.DEFAULT_OUTPUT_LIMITS`,
overridden by ``QUARTET_OUTPUT_TOKENS``, e.g. ``writer=16384,host=4096``). The
:class:`~host.brains.counting.TokenCounter` names the role of the call in progress
(:func:`speaking_as`); the resilient model sends that role's limit in the provider's
own field (:data:`LIMIT_FIELDS`).

agentscope drops the provider's reason for stopping. The body check of
:mod:`host.brains.exchange` hands each JSON body to :func:`note_stop`, which gives the
reason (OpenAI's ``finish_reason``, Anthropic's ``stop_reason``, Ollama's
``done_reason``) to the attempt in progress (:func:`stops`), so :func:`distrust` can
tell a reply cut at its output limit, or one with nothing in it.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .limits import DEFAULT_OUTPUT_LIMITS, MAX_OUTPUT_LIMIT

#: The request field that carries the output limit, by provider. Providers not listed
#: are sent no limit (their SDK's default stays).
LIMIT_FIELDS = {"openai": "max_completion_tokens", "anthropic": "max_tokens"}
#: The stop reasons that mean "cut at the output limit".
CUT_REASONS = frozenset({"length", "max_tokens"})

_ROLE: contextvars.ContextVar[str] = contextvars.ContextVar("quartet_model_role", default="")
_STOPS: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "quartet_model_stops", default=None
)


def role_of(stage: str) -> str:
    """The role whose output limit a stage's calls get.

    Args:
        stage: the token ledger's stage (``host``, ``browser``, ``generate/generate_pdf``).

    Returns:
        ``writer`` for the report tools' calls, ``tools`` for other tools' calls, else
        the stage itself.
    """
    owner, sep, _ = stage.partition("/")
    if not sep:
        return owner
    return "writer" if owner == "generate" else "tools"


@contextmanager
def speaking_as(stage: str) -> Iterator[None]:
    """Model calls made inside this block belong to ``stage``'s role."""
    token = _ROLE.set(role_of(stage))
    try:
        yield
    finally:
        _ROLE.reset(token)


def current_role() -> str:
    """The role of the model call in progress (empty when no stage named one)."""
    return _ROLE.get()


def parse_limits(text: str) -> dict[str, int]:
    """``"writer=16384, host=4096"`` as a dict.

    Raises:
        ValueError: an entry is not ``role=positive integer``.
    """
    limits: dict[str, int] = {}
    for entry in filter(None, (e.strip() for e in text.split(","))):
        role, sep, value = entry.partition("=")
        if not sep or not role.strip() or not value.strip().isdigit() or int(value) <= 0:
            raise ValueError(f"QUARTET_OUTPUT_TOKENS: {entry!r} is not ROLE=TOKENS")
        limits[role.strip()] = int(value)
    return limits


@dataclass(frozen=True)
class OutputLimits:
    """Output tokens by role, and the most a cut reply may be given on its retry."""

    by_role: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_OUTPUT_LIMITS))
    cap: int = MAX_OUTPUT_LIMIT

    @classmethod
    def from_env(cls) -> OutputLimits:
        """The defaults, with ``QUARTET_OUTPUT_TOKENS`` on top."""
        extra = parse_limits(os.environ.get("QUARTET_OUTPUT_TOKENS", ""))
        return cls({**DEFAULT_OUTPUT_LIMITS, **extra})

    def limit(self, role: str) -> int:
        """The output limit of ``role`` (the ``tools`` one for a role not listed)."""
        return min(self.by_role.get(role, self.by_role.get("tools", 4096)), self.cap)

    def raised(self, limit: int) -> int:
        """The limit a reply cut at ``limit`` gets on its retry: twice it, capped."""
        return min(limit * 2, max(self.cap, limit))


def _stop_reason(data: dict[str, Any]) -> str | None:
    """The provider's reason for stopping, in whichever wire format ``data`` is."""
    choices = data.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("finish_reason")
        return str(reason) if reason else None
    for key in ("stop_reason", "done_reason"):
        if data.get(key):
            return str(data[key])
    return None


def note_stop(data: dict[str, Any]) -> None:
    """Note a 2xx JSON body's stop reason for the attempt in progress, if any."""
    reasons = _STOPS.get()
    if reasons is not None and (reason := _stop_reason(data)) is not None:
        reasons.append(reason)


@contextmanager
def stops() -> Iterator[list[str]]:
    """Collect the stop reasons of the bodies received inside this block."""
    reasons: list[str] = []
    token = _STOPS.set(reasons)
    try:
        yield reasons
    finally:
        _STOPS.reset(token)


def is_empty(response: Any) -> bool:
    """Whether a reply says nothing: no text with a letter or digit and no tool call."""
    for block in getattr(response, "content", None) or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            return False
        if block.get("type") == "text" and any(c.isalnum() for c in str(block.get("text"))):
            return False
    return True


def distrust(response: Any, reasons: list[str]) -> str | None:
    """What is wrong with a reply: ``truncated`` (cut at the output limit), ``empty``,
    or None when it may be used."""
    if any(r in CUT_REASONS for r in reasons):
        return "truncated"
    if is_empty(response):
        return "empty"
    return None
