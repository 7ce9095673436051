"""Subagents: declarative specs and toolkits built on the file domain.

``build_toolkit(name, **deps)`` returns an agentscope ``Toolkit`` holding exactly the
named subagent's allowlist, with ``deps`` (for example ``service=svc``) injected through
``preset_kwargs``.

Everything but :data:`PIPELINE_ORDER` lives in :mod:`subagents.registry` (the built-in
registry, the current one, the builders), :mod:`subagents.registry_value` (a registry as
a value, and :func:`using`, which sets the one in use) and :mod:`subagents.spec`, and is
loaded on first use, so importing a light submodule (``subagents.settings``) or asking
for the names does not import agentscope and every tool.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .names import PIPELINE_ORDER

if TYPE_CHECKING:
    from .registry import (
        BUILT_IN_REGISTRY,
        SPECS,
        all_tool_schemas,
        build_toolkit,
        current,
        get_spec,
        schema_toolkit,
    )
    from .registry_value import Registry, using
    from .spec import (
        AllowlistError,
        SubAgentSpec,
        ToolGroup,
        all_schemas,
        build,
        check_allowlist,
    )

#: Where each lazily loaded name lives.
_LAZY = {
    **dict.fromkeys(
        (
            "BUILT_IN_REGISTRY",
            "SPECS",
            "all_tool_schemas",
            "build_toolkit",
            "current",
            "get_spec",
            "schema_toolkit",
        ),
        "registry",
    ),
    **dict.fromkeys(("Registry", "using"), "registry_value"),
    **dict.fromkeys(
        ("AllowlistError", "SubAgentSpec", "ToolGroup", "all_schemas", "build", "check_allowlist"),
        "spec",
    ),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


__all__ = [
    "BUILT_IN_REGISTRY",
    "PIPELINE_ORDER",
    "SPECS",
    "AllowlistError",
    "Registry",
    "SubAgentSpec",
    "ToolGroup",
    "all_schemas",
    "all_tool_schemas",
    "build",
    "build_toolkit",
    "check_allowlist",
    "current",
    "get_spec",
    "schema_toolkit",
    "using",
]
