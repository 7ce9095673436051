"""What a run loads ahead of need: the page workers and the report's renderers.

Both take seconds to load (worker processes that import the extraction libraries;
weasyprint, matplotlib and python-pptx imported in a thread), so a run starts them
early, while it plans, searches and reads, rather than when its first page or its report
waits on them. A run that finds everything it asks for in the page cache needs neither:
its pages' Markdown, its charts and its PDF come from the cache too. Loading them then
would only take a core and the interpreter's lock from the research for nothing.

So a run that reads the page cache starts them at its first miss (the first lookup that
finds no fresh entry: the run fetches or computes something new from then on, see
:meth:`~subagents.net.pagecache.RunCache.on_first_miss`), which in a run that has
anything to fetch comes as its first file is parsed or its first search is sent, about
when the research starts. A run without a cache, or with ``--fresh``, starts them at
once. Whatever was not started is loaded on first use, as it always is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from subagents.browser.workers import prewarm as prewarm_workers
from subagents.generate.warm import prewarm as prewarm_renderers
from subagents.net.pagecache import RunCache


class Warming:
    """The loading ahead of a run, started now or at the page cache's first miss.

    Args:
        cache: the run's use of the page cache (None: the run keeps none).
        loads: what to load, each an ``async`` function (default: the page workers,
            then the report's renderers).
    """

    def __init__(
        self,
        cache: RunCache | None,
        loads: tuple[Callable[[], Awaitable[None]], ...] = (prewarm_workers, prewarm_renderers),
    ) -> None:
        self.cache, self.loads = cache, loads
        self.tasks: list[asyncio.Task[None]] = []
        self.started = False
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def begin(self) -> None:
        """Start the loading now when the run reads no cache; else at its first miss."""
        self._loop = asyncio.get_running_loop()
        if self.cache is None or not self.cache.reads:
            self._start()
            return
        loop = self._loop
        self.cache.on_first_miss(lambda: loop.call_soon_threadsafe(self._start))

    def _start(self) -> None:
        if self.started or self._closed:
            return
        self.started = True
        self.tasks = [asyncio.ensure_future(load()) for load in self.loads]

    def close(self) -> None:
        """Stop what is still loading; nothing starts after this."""
        self._closed = True
        for task in self.tasks:
            task.cancel()


__all__ = ["Warming"]
