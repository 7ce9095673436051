"""The search sources by name, in the order the Search subagent lists them.

Each is a provider module (:mod:`.providers`) and a ``search_<name>`` tool; a source
added later is one registration, :func:`subagents.registry.register_source`, which
appends its name here. The name is the source's key in ``ToolSettings.endpoints`` and
in its ``QUARTET_<NAME>_URL`` variable. This module imports nothing.
"""

from __future__ import annotations

SOURCE_NAMES: list[str] = ["google", "bing", "sogou", "github", "wiki"]
