"""What the model providers need from the environment: their keys and where they are
served. Read once, by :meth:`ModelAccess.from_env`, when settings are resolved; the
model factory takes it from there and reads no environment itself."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from subagents.settings import Keys

#: The key each provider needs, by provider.
KEY_VARS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "dashscope": "DASHSCOPE_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
#: The variable that moves a provider's API elsewhere (a proxy, a compatible server).
BASE_URL_VARS: dict[str, str] = {
    "openai": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
    "ollama": "OLLAMA_HOST",
}


@dataclass(frozen=True)
class ModelAccess:
    """The providers' keys (never shown by ``repr``) and base URLs.

    Attributes:
        keys: each provider's key, by variable name (see :data:`KEY_VARS`).
        base_urls: each provider's base URL when one is set, by provider.
    """

    keys: Keys = field(default_factory=Keys)
    base_urls: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelAccess:
        """The keys and base URLs set in ``env`` (default: the process's environment)."""
        env = os.environ if env is None else env
        urls = {p: env.get(var, "").strip() for p, var in BASE_URL_VARS.items()}
        return cls(
            keys=Keys({var: env.get(var, "") for var in KEY_VARS.values()}),
            base_urls={p: url for p, url in urls.items() if url},
        )

    def key_of(self, provider: str) -> str | None:
        """The key ``provider`` needs, or None when it is not set."""
        return self.keys.get_key(KEY_VARS[provider])

    def base_url(self, provider: str) -> str | None:
        """Where ``provider`` is served, or None for its own service."""
        return self.base_urls.get(provider)


#: The providers a ``--model`` string may name (``PROVIDER:NAME``), and ``offline``.
PROVIDERS = ("openai", "dashscope", "anthropic", "gemini", "ollama", "offline")


@dataclass(frozen=True)
class ProviderStatus:
    """A provider a ``--model`` may name, and whether a run could use it now.

    Attributes:
        provider: its name, as a ``--model`` spells it (``openai``).
        variable: the environment variable its key is read from; None when it needs none.
        ready: its key is set (or it needs none).
    """

    provider: str
    variable: str | None
    ready: bool


def provider_statuses(access: ModelAccess | None = None) -> list[ProviderStatus]:
    """Each provider but ``offline``, with whether its key is set in ``access`` (by
    default the environment). The key itself is never read out.

    Args:
        access: the keys to look at; None reads the environment.
    """
    access = ModelAccess.from_env() if access is None else access
    out = []
    for provider in (p for p in PROVIDERS if p != "offline"):
        variable = KEY_VARS.get(provider)
        out.append(
            ProviderStatus(provider, variable, not variable or bool(access.key_of(provider)))
        )
    return out


class ModelSpecError(ValueError):
    """The ``--model`` string or its environment is not usable."""


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


def check_spec(spec: str, access: ModelAccess | None = None) -> None:
    """ModelSpecError when ``spec`` names no provider this knows, or one whose key is
    not set (in ``access``, by default the environment): what the model factory would
    refuse, checked before anything is started (without importing any model's code)."""
    provider, _ = parse_spec(spec)
    if provider in KEY_VARS:
        key_of(ModelAccess.from_env() if access is None else access, provider)


def key_of(access: ModelAccess, provider: str) -> str:
    """The provider's key in ``access``; ModelSpecError naming its variable when unset."""
    value = access.key_of(provider)
    if not value:
        var = KEY_VARS[provider]
        raise ModelSpecError(f"this model needs the environment variable {var}; it is not set")
    return value
