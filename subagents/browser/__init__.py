"""The Browser subagent: page reading with verified evidence, downloads, browser automation."""

from __future__ import annotations

from .hooks import attach_browser_hooks
from .session import BrowserSession

__all__ = ["BrowserSession", "attach_browser_hooks"]
