"""weasyprint, imported without searching the system for its libraries.

weasyprint loads Pango, HarfBuzz, GObject and Fontconfig through cffi, trying several
names for each (``libgobject-2.0-0``, ``gobject-2.0-0``, ``gobject-2.0``, then the
Linux soname ``libgobject-2.0.so.0``, then the macOS and Windows names). cffi opens a
name it cannot load directly by asking :func:`ctypes.util.find_library`, which on Linux
runs ``ldconfig``, ``gcc`` and ``ld`` in turn for it: about fifty short processes and
half a second for one import, and compilers standing beside the run's own processes.
The names that are not sonames are never found that way on Linux, and a soname or a
``.dylib`` name further down each list is opened directly, so the import here asks no
search at all; a library that is really missing fails as it would have (weasyprint then
reports it).
"""

from __future__ import annotations

import ctypes.util
import sys
import threading
from types import ModuleType

_LOCK = threading.Lock()


def _not_searched(name: str) -> None:
    """The answer :func:`ctypes.util.find_library` gives while weasyprint is imported."""
    return None


def weasyprint() -> ModuleType:
    """The ``weasyprint`` module, imported once (see the module's docstring); later
    calls return it at once."""
    loaded = sys.modules.get("weasyprint")
    if loaded is not None:
        return loaded
    with _LOCK:
        searching = ctypes.util.find_library
        ctypes.util.find_library = _not_searched
        try:
            import weasyprint as module
        finally:
            ctypes.util.find_library = searching
    return module
