"""What writing a report needs, loaded while the research waits on the network.

The renderers' libraries (weasyprint for the PDF, matplotlib for charts, python-pptx for
slides) take most of a second to import. Imported when the first report is written,
that second is spent after every page has been read; imported in a thread while the
run searches and reads (the main thread then mostly waits on sockets and page workers),
it is spent in time the run would have waited anyway.
"""

from __future__ import annotations

import asyncio
import logging

from .weasy import weasyprint


def load_renderers() -> None:
    """Import the libraries the report's formats are rendered with."""
    for name in ("weasyprint", "fontTools", "matplotlib.font_manager"):
        logging.getLogger(name).setLevel(logging.ERROR)
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401
    import pptx  # noqa: F401

    weasyprint()


async def prewarm() -> None:
    """:func:`load_renderers` in a thread of its own; a failure is left to the report,
    which imports them again and says what is missing."""
    try:
        await asyncio.to_thread(load_renderers)
    except Exception:  # an import error surfaces where the library is used
        return
