"""What the live page shows beside the run's figures: the tools a run may ask about, and
a call's arguments, in words.

The figures themselves (each part's status, pages read and evidence kept, the pages read
in all, the progress, the failed searches) are counted from the run's events by
:class:`host.orchestration.live.Tally`, the same count the command line's live view
shows, so that the page, the terminal and the finished run's page all say the same.
"""

from __future__ import annotations

from typing import Any

#: Characters of an argument's value the page shows.
VALUE_CHARS = 300
#: What each tool a run may ask about does, in words.
TOOL_WORDS = {
    "http_download": "downloading a file",
    "write_file": "writing a file",
    "delete_file": "deleting a file",
    "browser_type": "typing into a page",
    "browser_click": "clicking on a page",
}


def readable_arguments(arguments: Any) -> list[list[str]]:
    """A tool call's arguments as ``[name, value]`` pairs a person reads: strings as they
    are, lists joined with commas, anything else in short words; each value cut."""
    if not isinstance(arguments, dict):
        return [["arguments", _said(arguments)]]
    return [[str(key), _said(value)] for key, value in arguments.items()]


def _said(value: Any) -> str:
    if isinstance(value, bool):
        text = "yes" if value else "no"
    elif value is None:
        text = "none"
    elif isinstance(value, list | tuple):
        text = ", ".join(_said(v) for v in value) or "none"
    elif isinstance(value, dict):
        text = "; ".join(f"{k}: {_said(v)}" for k, v in value.items()) or "none"
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
