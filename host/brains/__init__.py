"""Brains: the offline policy and the LLM providers, behind one factory."""

from .providers import PROVIDERS, Brain, ModelSpecError, make_brain, parse_spec

__all__ = ["PROVIDERS", "Brain", "ModelSpecError", "make_brain", "parse_spec"]
