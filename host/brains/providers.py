"""The model factory: ``provider:NAME`` → an agentscope chat model and its formatter.

Keys come only from the environment; a missing key is an error that names the variable,
never its value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from agentscope.formatter import FormatterBase

PROVIDERS = ("openai", "dashscope", "anthropic", "gemini", "ollama", "offline")


class ModelSpecError(ValueError):
    """The ``--model`` string or its environment is not usable."""


@dataclass
class Brain:
    """A chat model, the formatter its agents use, and what it is called."""

    model: Any
    formatter: FormatterBase
    spec: str

    @property
    def offline(self) -> bool:
        return self.spec == "offline"


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``"openai:gpt-4o-mini"`` into ``("openai", "gpt-4o-mini")``.

    ``"offline"`` gives ``("offline", "")``.
    """
    spec = (spec or "offline").strip()
    if spec == "offline":
        return "offline", ""
    provider, sep, name = spec.partition(":")
    if not sep or not name or provider not in PROVIDERS:
        raise ModelSpecError(
            f"--model {spec!r}: expected 'offline' or PROVIDER:NAME with PROVIDER one of "
            f"{', '.join(p for p in PROVIDERS if p != 'offline')} (e.g. openai:gpt-4o-mini)"
        )
    return provider, name


def _key(var: str) -> str:
    value = os.environ.get(var, "")
    if not value:
        raise ModelSpecError(f"this model needs the environment variable {var}; it is not set")
    return value


def make_brain(spec: str) -> Brain:
    """Build the brain named by ``spec`` (see :data:`PROVIDERS`)."""
    provider, name = parse_spec(spec)
    if provider == "offline":
        # The offline policies are built per agent (host/hub.py); they read messages in
        # the single-agent format, which keeps each message's author.
        from agentscope.formatter import OpenAIChatFormatter

        return Brain(None, OpenAIChatFormatter(), "offline")
    if provider == "openai":
        from agentscope.formatter import OpenAIMultiAgentFormatter
        from agentscope.model import OpenAIChatModel

        base_url = os.environ.get("OPENAI_BASE_URL")
        model = OpenAIChatModel(
            name,
            api_key=_key("OPENAI_API_KEY"),
            stream=False,
            client_kwargs={"base_url": base_url} if base_url else None,
        )
        return Brain(model, OpenAIMultiAgentFormatter(), spec)
    if provider == "dashscope":
        from agentscope.formatter import DashScopeMultiAgentFormatter
        from agentscope.model import DashScopeChatModel

        model = DashScopeChatModel(name, api_key=_key("DASHSCOPE_API_KEY"), stream=False)
        return Brain(model, DashScopeMultiAgentFormatter(), spec)
    if provider == "anthropic":
        from agentscope.formatter import AnthropicMultiAgentFormatter
        from agentscope.model import AnthropicChatModel

        model = AnthropicChatModel(name, api_key=_key("ANTHROPIC_API_KEY"), stream=False)
        return Brain(model, AnthropicMultiAgentFormatter(), spec)
    if provider == "gemini":
        from agentscope.formatter import GeminiMultiAgentFormatter
        from agentscope.model import GeminiChatModel

        model = GeminiChatModel(name, api_key=_key("GEMINI_API_KEY"), stream=False)
        return Brain(model, GeminiMultiAgentFormatter(), spec)
    from agentscope.formatter import OllamaMultiAgentFormatter
    from agentscope.model import OllamaChatModel

    model = OllamaChatModel(name, stream=False, host=os.environ.get("OLLAMA_HOST"))
    return Brain(model, OllamaMultiAgentFormatter(), spec)
