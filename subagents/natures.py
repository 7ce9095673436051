"""What each tool does to its surroundings, in one table.

Every tool of every subagent has a title and a nature. The nature says whether the tool
only reads, whether it may replace or delete what is there, and whether it reaches
outside the granted folders (the web, a model). A served subagent gives these to MCP
clients as tool annotations (``readOnlyHint``, ``destructiveHint``, ``openWorldHint``,
``title``), so that a client can ask its user before a tool that writes.

This module imports nothing heavy; the search tools' titles come from the current
registry's search sources (:func:`subagents.registry_value.current_sources`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .registry_value import current_sources


@dataclass(frozen=True)
class Nature:
    """How a kind of tool touches its surroundings.

    Attributes:
        read_only: it changes nothing (no file, no page state).
        destructive: it may replace or delete what is there (only additive otherwise).
        open_world: it reaches the web or a model, beyond the granted folders.
    """

    read_only: bool
    destructive: bool
    open_world: bool


NATURES: dict[str, Nature] = {
    "read": Nature(read_only=True, destructive=False, open_world=False),
    "ask": Nature(read_only=True, destructive=False, open_world=True),  # a model may look
    "search": Nature(read_only=True, destructive=False, open_world=True),
    "look": Nature(read_only=True, destructive=False, open_world=True),  # the open page
    "fetch": Nature(read_only=False, destructive=False, open_world=True),  # stores a page
    "browse": Nature(read_only=False, destructive=False, open_world=True),  # opens a page
    "capture": Nature(read_only=False, destructive=False, open_world=True),  # adds an image
    "act": Nature(read_only=False, destructive=True, open_world=True),  # clicks, types
    "download": Nature(read_only=False, destructive=True, open_world=True),
    "write": Nature(read_only=False, destructive=True, open_world=False),
    "delete": Nature(read_only=False, destructive=True, open_world=False),
}

#: The title and nature (a key of :data:`NATURES`) of every tool but the search tools,
#: whose titles the current registry's search sources hold (see :func:`tool_table`).
TOOLS: dict[str, tuple[str, str]] = {
    # browser
    "viewer_fetch": ("Fetch and store a web page", "fetch"),
    "http_download": ("Download a file", "download"),
    "browser_navigate": ("Open a page in the browser", "browse"),
    "browser_snapshot": ("Read the open page", "look"),
    "browser_screenshot": ("Screenshot the open page", "capture"),
    "browser_click": ("Click on the open page", "act"),
    "browser_type": ("Type into the open page", "act"),
    "browser_wait": ("Wait for the open page", "look"),
    # file
    "list_allowed_directories": ("List the allowed folders", "read"),
    "list_directory": ("List a folder", "read"),
    "get_file_info": ("Describe a file", "read"),
    "read_text_file": ("Read a text file", "read"),
    "write_file": ("Write a text file", "write"),
    "edit_file": ("Edit a text file", "write"),
    "delete_file": ("Delete a file", "delete"),
    "csv_read": ("Read a CSV file", "read"),
    "csv_write": ("Write a CSV file", "write"),
    "pdf_read_text": ("Read a PDF's text", "read"),
    "xlsx_read_cells": ("Read spreadsheet cells", "read"),
    "xlsx_write_cells": ("Write spreadsheet cells", "write"),
    "pptx_read_outline": ("Read a slide deck's outline", "read"),
    "pptx_write": ("Write a slide deck", "write"),
    "image_qa": ("Ask about an image", "ask"),
    # generate
    "generate_markdown": ("Write the Markdown report", "write"),
    "generate_html": ("Write the HTML report", "write"),
    "generate_pdf": ("Write the PDF report", "write"),
    "generate_pptx": ("Write the slide-deck report", "write"),
}


def tool_table() -> dict[str, tuple[str, str]]:
    """Every tool's title and nature: the tool of each search source of the current
    registry, titled as its :class:`~subagents.search.sources.Source` says and of nature
    ``search``, then :data:`TOOLS`. Loads the search providers (not agentscope)."""
    searches = {s.tool_name: (s.title, "search") for s in current_sources().sources()}
    return {**searches, **TOOLS}


def nature_of(tool: str) -> Nature:
    """The nature of ``tool``; KeyError for a tool the table lacks."""
    return NATURES[tool_table()[tool][1]]


def annotations(tool: str) -> dict[str, object]:
    """The MCP annotations of ``tool``: its title and its read-only, destructive and
    open-world hints. A tool the table lacks gets only the cautious defaults (it may
    write, destroy and reach the web), titled by its name."""
    table = tool_table()
    if tool not in table:
        return {"title": tool, "readOnlyHint": False, "destructiveHint": True,
                "openWorldHint": True}  # fmt: skip
    title, kind = table[tool]
    nature = NATURES[kind]
    return {
        "title": title,
        "readOnlyHint": nature.read_only,
        "destructiveHint": nature.destructive,
        "openWorldHint": nature.open_world,
    }
