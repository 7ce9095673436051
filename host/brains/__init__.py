"""Brains: the offline policy and the LLM providers, behind one factory; the wrappers that
give every model request a timeout, retries, prompt caching and token accounting."""

from .counting import TokenCounter, tool_scope
from .ledger import ModelPrice, TokenLedger
from .providers import PROVIDERS, Brain, ModelSpecError, make_brain, parse_spec, resilient_model
from .resilience import ModelCallError, ModelCallStats, RetryPolicy

__all__ = [
    "PROVIDERS",
    "Brain",
    "ModelCallError",
    "ModelCallStats",
    "ModelPrice",
    "ModelSpecError",
    "RetryPolicy",
    "TokenCounter",
    "TokenLedger",
    "make_brain",
    "parse_spec",
    "resilient_model",
    "tool_scope",
]
