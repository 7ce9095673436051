"""What rendering a report computes that is the same for the same input, kept across runs.

A chart drawn from the same data, and the PDF of the same HTML, come out as the same bytes
(no date or software version is written into them), and a report of the same research
on the same day is the same HTML. Each is kept in the run's page cache (a
:data:`~subagents.net.pagecache.DERIVED` entry, in the user's and project's namespace)
under a key naming everything it is drawn from: the input's SHA-256, a
:func:`~subagents.net.pagecache.fingerprint` of the code and libraries that draw it, and
the state of the fonts installed (a font added or removed changes the drawing). A later
run within the freshness window takes it from there instead of drawing it again; a run
with ``--fresh`` draws everything again. Only what the renderers compute is kept: what a
report says is always written anew from the run's own research.

These are called from the threads the formats are rendered in, so they wait on the
store there (see :func:`~subagents.net.pagecache.reuse_now`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from ..net.pagecache import DERIVED, fingerprint, remember_now, reuse_now

#: The libraries a report's PDF is laid out and written with (weasyprint and what it
#: draws text, styles and pictures with).
PDF_LIBRARIES = (
    "weasyprint",
    "pydyf",
    "fonttools",
    "tinycss2",
    "cssselect2",
    "tinyhtml5",
    "pyphen",
    "pillow",
)
#: The libraries a chart is drawn with.
CHART_LIBRARIES = ("matplotlib", "numpy", "pillow")


def _font_places() -> list[Path]:
    """Where the fonts installed are, and where they are listed: the system's and the
    user's font folders, fontconfig's caches and matplotlib's font list (in their
    default places)."""
    home = Path.home()
    return [
        Path("/usr/share/fonts"),
        Path("/usr/local/share/fonts"),
        home / ".local" / "share" / "fonts",
        home / ".fonts",
        Path("/var/cache/fontconfig"),
        home / ".cache" / "fontconfig",
        home / ".cache" / "matplotlib",
    ]


def fonts_state() -> str:
    """The fonts installed, as the modification times of the folders that hold and list
    them (a font installed or removed, and the lists made again, change them)."""
    times = []
    for place in _font_places():
        try:
            times.append(f"{place}:{place.stat().st_mtime_ns}")
        except OSError:
            times.append(f"{place}:-")
    return ";".join(times)


def rendering_key(
    what: str, digest: str, modules: tuple[str, ...], libraries: tuple[str, ...]
) -> str:
    """The page cache's key of ``what`` drawn from the input whose SHA-256 is ``digest``.

    Args:
        what: what is drawn (``pdf``, ``pages``, ``chart png``…).
        digest: the SHA-256 (hex) of everything it is drawn from.
        modules: the project's modules that draw it.
        libraries: the distributions they draw it with.
    """
    return f"render {what} {digest} {fingerprint(modules, libraries)} {fonts_state()}"


def drawn_once(key: str, draw: Callable[[], bytes]) -> bytes:
    """``draw()``, or what it gave for ``key`` in an earlier run (kept by the run's page
    cache); what it gives now is kept for the runs after."""
    kept = reuse_now(DERIVED, key)
    if kept is not None:
        return kept
    drawn = draw()
    remember_now(DERIVED, key, drawn, "application/octet-stream")
    return drawn


def digest_of(*parts: str) -> str:
    """The SHA-256 (hex) of ``parts``, each told apart from the next."""
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part.encode("utf-8", "surrogatepass"))
        sha.update(b"\0")
    return sha.hexdigest()


__all__ = [
    "CHART_LIBRARIES",
    "PDF_LIBRARIES",
    "digest_of",
    "drawn_once",
    "fonts_state",
    "rendering_key",
]
