"""The Browser subagent: page reading with verified evidence, downloads, browser automation."""

from __future__ import annotations

from .hooks import attach_browser_hooks
from .session import BrowserSession
from .spec import SPEC

__all__ = ["SPEC", "BrowserSession", "attach_browser_hooks"]
