"""Brains: the offline policy and the LLM providers, behind one factory; the wrappers that
give every model request a timeout, retries, prompt caching and token accounting.

The names below are loaded on first use, so that light modules (the settings, the
command line) can import :mod:`host.brains.ledger` without importing agentscope.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .access import ModelSpecError, check_spec, parse_spec
    from .counting import TokenCounter, tool_scope
    from .ledger import ModelPrice, TokenLedger
    from .providers import Brain, make_brain, resilient_model
    from .resilience import ModelCallError, ModelCallStats, RetryPolicy

#: Each public name and the module that defines it.
_HOMES = {
    "TokenCounter": "counting",
    "tool_scope": "counting",
    "ModelPrice": "ledger",
    "TokenLedger": "ledger",
    "Brain": "providers",
    "ModelSpecError": "access",
    "check_spec": "access",
    "make_brain": "providers",
    "parse_spec": "access",
    "resilient_model": "providers",
    "ModelCallError": "resilience",
    "ModelCallStats": "resilience",
    "RetryPolicy": "resilience",
}

__all__ = [
    "Brain",
    "ModelCallError",
    "ModelCallStats",
    "ModelPrice",
    "ModelSpecError",
    "RetryPolicy",
    "TokenCounter",
    "TokenLedger",
    "check_spec",
    "make_brain",
    "parse_spec",
    "resilient_model",
    "tool_scope",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)
