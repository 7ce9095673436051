"""The model factory: ``provider:NAME`` → an agentscope chat model and its formatter.

Keys and base URLs come from a :class:`~host.brains.access.ModelAccess` (the settings'
own, read from the environment once); a missing key is an error that names the
variable, never its value. Every client is built with a request timeout, without the SDK's own
retries (:mod:`host.brains.resilience` retries, and counts each attempt once), and, for
the HTTP SDKs, with the body check of :mod:`host.brains.exchange`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentscope.formatter import FormatterBase

from .access import ModelAccess, parse_spec
from .access import key_of as _key
from .caching import AnthropicPromptCache
from .exchange import event_hooks
from .output import OutputLimits
from .resilience import DEFAULT_MODEL_TIMEOUT, ModelCallStats, ResilientModel, RetryPolicy
from .strict import OpenAIStrictTools

#: Providers whose tools are sent in OpenAI's strict form (``strict: true``, see
#: :mod:`host.brains.strict`). Anthropic has no strict mode; the others are sent as is.
STRICT_TOOLS: frozenset[str] = frozenset({"openai"})


@dataclass
class Brain:
    """A chat model, the formatter its agents use, and what it is called."""

    model: Any
    formatter: FormatterBase
    spec: str
    #: the key the model was built with (the Host masks it everywhere), if any
    secrets: tuple[str, ...] = field(default=(), repr=False)

    @property
    def offline(self) -> bool:
        return self.spec == "offline"


def make_brain(
    spec: str, timeout: float = DEFAULT_MODEL_TIMEOUT, access: ModelAccess | None = None
) -> Brain:
    """Build the brain named by ``spec`` (see :data:`~host.brains.access.PROVIDERS`).

    Args:
        spec: ``offline`` or ``PROVIDER:NAME``.
        timeout: the clients' request timeout in seconds (the Host also sets the
            configured ``model_timeout`` on every request, see :func:`resilient_model`).
        access: the providers' keys and base URLs; the command line passes its settings'
            (``Settings.models``). Without it they are read from the environment now,
            for library use.
    """
    provider, name = parse_spec(spec)
    access = ModelAccess.from_env() if access is None else access
    if provider == "offline":
        # The offline policies are built per agent (host/orchestration/factory.py); they
        # read messages in the single-agent format, which keeps each message's author.
        from agentscope.formatter import OpenAIChatFormatter

        return Brain(None, OpenAIChatFormatter(), "offline")
    build = {
        "openai": _openai,
        "dashscope": _dashscope,
        "anthropic": _anthropic,
        "gemini": _gemini,
        "ollama": _ollama,
    }[provider]
    return build(spec, name, access, timeout)


def _openai(spec: str, name: str, access: ModelAccess, timeout: float) -> Brain:
    """The brain of OpenAI (or a server that speaks its API) model ``name``."""
    import openai
    from agentscope.formatter import OpenAIMultiAgentFormatter
    from agentscope.model import OpenAIChatModel

    key = _key(access, "openai")
    model = OpenAIChatModel(
        name,
        api_key=key,
        stream=False,
        client_kwargs=_sdk_client(
            access.base_url("openai"),
            timeout,
            openai.DefaultAsyncHttpxClient(event_hooks=event_hooks()),
        ),
    )
    return Brain(model, OpenAIMultiAgentFormatter(), spec, (key,))


def _dashscope(spec: str, name: str, access: ModelAccess, timeout: float) -> Brain:
    """The brain of DashScope model ``name``."""
    from agentscope.formatter import DashScopeMultiAgentFormatter
    from agentscope.model import DashScopeChatModel

    key = _key(access, "dashscope")
    model = DashScopeChatModel(name, api_key=key, stream=False)
    return Brain(model, DashScopeMultiAgentFormatter(), spec, (key,))


def _anthropic(spec: str, name: str, access: ModelAccess, timeout: float) -> Brain:
    """The brain of Anthropic model ``name``."""
    import anthropic
    from agentscope.formatter import AnthropicMultiAgentFormatter
    from agentscope.model import AnthropicChatModel

    key = _key(access, "anthropic")
    model = AnthropicChatModel(
        name,
        api_key=key,
        stream=False,
        client_kwargs=_sdk_client(
            access.base_url("anthropic"),
            timeout,
            anthropic.DefaultAsyncHttpxClient(event_hooks=event_hooks()),
        ),
    )
    return Brain(model, AnthropicMultiAgentFormatter(), spec, (key,))


def _gemini(spec: str, name: str, access: ModelAccess, timeout: float) -> Brain:
    """The brain of Gemini model ``name``."""
    from agentscope.formatter import GeminiMultiAgentFormatter
    from agentscope.model import GeminiChatModel

    key = _key(access, "gemini")
    model = GeminiChatModel(
        name,
        api_key=key,
        stream=False,
        client_kwargs={"http_options": {"timeout": int(timeout * 1000)}},  # milliseconds
    )
    return Brain(model, GeminiMultiAgentFormatter(), spec, (key,))


def _ollama(spec: str, name: str, access: ModelAccess, timeout: float) -> Brain:
    """The brain of Ollama model ``name``."""
    from agentscope.formatter import OllamaMultiAgentFormatter
    from agentscope.model import OllamaChatModel

    model = OllamaChatModel(
        name,
        stream=False,
        host=access.base_url("ollama"),
        client_kwargs={"timeout": timeout, "event_hooks": event_hooks()},
    )
    return Brain(model, OllamaMultiAgentFormatter(), spec)


def _sdk_client(base_url: str | None, timeout: float, http_client: Any) -> dict[str, Any]:
    """``client_kwargs`` for the OpenAI and Anthropic SDKs: the base URL (if set), the
    request timeout, no SDK retries, and an HTTP client with the body check."""
    kwargs: dict[str, Any] = {"timeout": timeout, "max_retries": 0, "http_client": http_client}
    if base_url:
        kwargs["base_url"] = base_url
    return kwargs


def request_kwargs(provider: str, timeout: float) -> dict[str, Any]:
    """Options sent with every request: the SDK's per-request timeout where it takes one."""
    return {"timeout": timeout} if provider in ("openai", "anthropic") else {}


def resilient_model(
    brain: Brain,
    policy: RetryPolicy,
    stats: ModelCallStats,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    limits: OutputLimits | None = None,
) -> ResilientModel:
    """The brain's model with a timeout and bounded retries on every request, each
    role's output limit, empty and cut replies asked again (and, for
    Anthropic, the system prompt and tools marked cacheable; for the providers of
    :data:`STRICT_TOOLS`, the tools sent in strict form).

    Args:
        brain: an LLM brain from :func:`make_brain`.
        policy: the request timeout and the retry settings.
        stats: where attempts, retries and failures are counted.
        sleep: how to wait between attempts (tests pass a recorder).
        limits: the output limit of each role (the defaults with ``QUARTET_OUTPUT_TOKENS``
            on top when not given).
    """
    provider, _ = parse_spec(brain.spec)
    model = AnthropicPromptCache(brain.model) if provider == "anthropic" else brain.model
    if provider in STRICT_TOOLS:
        model = OpenAIStrictTools(model)
    kwargs = request_kwargs(provider, policy.timeout)
    return ResilientModel(
        model,
        provider,
        policy,
        stats,
        request_kwargs=kwargs,
        sleep=sleep,
        limits=limits or OutputLimits.from_env(),
    )


def replay_brain(spec: str, tape: Any) -> Brain:
    """The brain of a replay: the recorded answers, formatted as ``spec``'s provider was.

    No key is needed and nothing is sent anywhere (see :mod:`host.brains.tape`).
    """
    from agentscope import formatter as fm

    from .tape import ReplayModel

    provider, name = parse_spec(spec)
    if provider == "offline":
        return make_brain("offline")
    family = {
        "openai": "OpenAI",
        "dashscope": "DashScope",
        "anthropic": "Anthropic",
        "gemini": "Gemini",
        "ollama": "Ollama",
    }[provider]
    model = ReplayModel(tape, name, chat_formatter=getattr(fm, f"{family}ChatFormatter"))
    return Brain(model, getattr(fm, f"{family}MultiAgentFormatter")(), spec)
