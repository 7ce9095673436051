"""What a report format is: its name, the file suffixes it is written to, and how a
finished report is rendered in it (:mod:`.markdown`, :mod:`.html`, :mod:`.pdf`,
:mod:`.pptx` each define one; :mod:`.flow` writes any of them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .report import Report


@dataclass(frozen=True)
class Rendered:
    """A rendered report: the file's bytes and any files it refers to by name.

    ``attachments`` maps a file name (no folder, e.g. ``tidal-mills-chart-1.png``) to its
    bytes; they are written beside the report, before it.
    """

    data: bytes
    attachments: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Format:
    """One output format: its name, accepted file suffixes and a renderer.

    ``render`` takes the report and the stem of the file's name (``tidal-mills`` for
    ``tidal-mills.md``), which names the files it refers to; it returns the file's bytes,
    or a :class:`Rendered` when the file refers to others (a Markdown report's chart
    images, ``tidal-mills-chart-1.png``).
    """

    name: str
    suffixes: tuple[str, ...]
    render: Callable[[Report, str], bytes | Rendered]
