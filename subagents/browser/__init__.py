"""The Browser subagent: page reading with verified evidence, downloads, browser automation.

The package's names are loaded on first use, so that a page worker, which imports only
the extraction and answering modules, does not load the agent framework with them.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Where each lazily loaded name lives.
_LAZY = {"BrowserSession": "session", "attach_browser_hooks": "hooks"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


__all__ = ["BrowserSession", "attach_browser_hooks"]
