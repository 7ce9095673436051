"""CPU-bound page work in worker processes, so the event loop keeps serving other calls.

Extraction (parse, trafilatura, markdownify) holds the interpreter for tens of
milliseconds a page; run on the event loop, or in threads that share its interpreter
lock, it makes parallel fetches wait on each other. It runs instead in one process
pool per process, sized to the CPU cores this process may use but the one it keeps
busy itself. Several workers are forked from a server that imported the extraction
libraries once, so a new worker starts in milliseconds; a single worker is started on
its own and imports them itself (a fork server would be one more process holding the
same libraries). A pool whose worker died is replaced and the job sent again once;
where worker processes cannot be started at all, the work runs in a thread instead.

Each worker process imports the main script (as the standard library's
multiprocessing does), so a script run directly must keep its top-level work under
``if __name__ == "__main__":``. A main script without that guard would run again in
every worker: for such a script the work runs in threads instead, and one warning says
what to add.

A page's Markdown is kept in the run's page cache (a
:data:`~subagents.net.pagecache.DERIVED` entry) under the SHA-256 of its HTML, its
address and a fingerprint of the extraction's code and libraries
(:func:`extraction_key`): a later run within the freshness window that reads the same
HTML takes the same Markdown from there without a worker.
"""

from __future__ import annotations

import ast
import asyncio
import atexit
import contextlib
import importlib
import json
import logging
import multiprocessing
import os
import select
import sys
import threading
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from typing import TypeVar

from research.text import reading_language

from ..net.pagecache import DERIVED, active_cache, fingerprint, remember, reuse, text_digest
from .evidence import Answer, answer_bm25
from .extract import Extracted, html_to_markdown

T = TypeVar("T")

#: Libraries a worker imports before its first page (the fork server, when there is
#: one, imports them before forking). The project's own modules are left to each
#: worker, which imports them from the parent's ``sys.path``.
PRELOAD = ["lxml.html", "trafilatura", "bs4", "markdownify", "rank_bm25"]

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
#: Whether the main script lets worker processes import it (None: not looked at yet).
_main_guarded: bool | None = None


def _has_main_guard(source: str) -> bool:
    """Whether a module's top level holds ``if __name__ == "__main__":``."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            sides = [node.test.left, *node.test.comparators]
            names = {s.id for s in sides if isinstance(s, ast.Name)}
            texts = {s.value for s in sides if isinstance(s, ast.Constant)}
            if names == {"__name__"} and texts == {"__main__"}:
                return True
    return False


def main_script_unguarded() -> str | None:
    """The path of the main script when worker processes would run it again: it is a
    file (``python script.py`` or ``python -m module``, not a package's ``__main__``)
    whose top level has no ``if __name__ == "__main__":``. None when workers are safe."""
    main = sys.modules.get("__main__")
    name = getattr(getattr(main, "__spec__", None), "name", None) or ""
    path = getattr(main, "__file__", None)
    if not path or name == "__main__" or name.endswith(".__main__"):
        return None  # an interactive session, -c, or a package run with -m
    try:
        with open(path, encoding="utf-8") as handle:
            guarded = _has_main_guard(handle.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None  # not a readable Python source: nothing a worker would run
    return None if guarded else str(path)


def _processes_allowed() -> bool:
    """Whether page work may run in worker processes; the first time the main script
    is found unguarded, a warning says why it runs in threads and what to add."""
    global _main_guarded
    if _main_guarded is None:
        script = main_script_unguarded()
        _main_guarded = script is None
        if script is not None:
            warnings.warn(
                f"{script} has no 'if __name__ == \"__main__\":' guard, so every worker "
                "process would run it again; page extraction runs in threads instead. "
                "Put the script's top-level work under that guard to use worker processes.",
                RuntimeWarning,
                stacklevel=3,
            )
    return _main_guarded


def worker_count() -> int:
    """One worker for each CPU core this process may run on but one, and at least one:
    the process that hands them pages is busy too, scoring the pages they extract (on
    two cores, a second worker made the demo no faster and held 150 MB more)."""
    try:
        return max(1, len(os.sched_getaffinity(0)) - 1)
    except (AttributeError, OSError):
        return max(1, (os.cpu_count() or 1) - 1)


def pool() -> ProcessPoolExecutor:
    """The process's worker pool, started on first use."""
    global _pool
    with _lock:
        if _pool is None:
            count = worker_count()
            _pool = ProcessPoolExecutor(
                max_workers=count,
                mp_context=_context(count),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return _pool


def _context(count: int) -> multiprocessing.context.BaseContext:
    """How ``count`` workers start: forked from a fork server that imported
    :data:`PRELOAD` when there are several (their libraries' pages shared, a new worker
    in milliseconds), spawned when there is one (a fork server would be a second process
    holding the same libraries)."""
    if count > 1:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def _start_worker(pid: int) -> None:
    """In a new worker: import :data:`PRELOAD` (already there when it was forked from the
    fork server), watch process ``pid``, the one that made the pool, and end without
    taking the libraries apart when told to stop (see :func:`end_at_once`)."""
    for name in PRELOAD:
        importlib.import_module(name)
    watch_parent(pid)
    atexit.register(end_at_once)


def end_at_once() -> None:
    """At a worker's exit, once it has stopped taking work: flush what it wrote and end
    the process, without the interpreter freeing every module's objects one by one.

    A worker holds the extraction libraries and the language tables; freeing them takes
    about half a second, and the process that made the pool waits for its workers as it
    exits itself, after its last line. A worker forked from the fork server ends this way
    already; a spawned one returns through the interpreter's exit, which runs this
    handler before the ones registered earlier (the standard library's, which have
    nothing left to do in a worker whose results were all sent).
    """
    logging.shutdown()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)


def watch_parent(pid: int) -> None:
    """In a worker: exit as soon as process ``pid`` (the one that made the pool) is gone.

    A worker of a killed process would otherwise wait for work forever (it holds its own
    end of the work queue), keeping the fork server alive and the dead process's output
    pipes open, so whoever waits on them would wait forever too.
    """

    def wait() -> None:
        try:
            handle = os.pidfd_open(pid)
        except (AttributeError, OSError):  # no pidfd here: look every half second
            while _alive(pid):
                time.sleep(0.5)
        else:
            select.select([handle], [], [])
        os._exit(1)

    threading.Thread(target=wait, name="watch-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _discard(broken: ProcessPoolExecutor) -> None:
    global _pool
    with _lock:
        if _pool is broken:
            _pool = None
    broken.shutdown(wait=False, cancel_futures=True)


async def run_in_pool(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` in a worker process; ``fn`` and its arguments must pickle."""
    if not _processes_allowed():
        return await asyncio.to_thread(fn, *args)
    loop = asyncio.get_running_loop()
    for attempt in range(2):
        try:
            executor = pool()
        except (OSError, NotImplementedError):  # no process support here: use a thread
            return await asyncio.to_thread(fn, *args)
        try:
            return await loop.run_in_executor(executor, fn, *args)
        except BrokenProcessPool:
            _discard(executor)
            if attempt:
                raise
    raise AssertionError("unreachable")


def _ready() -> bool:
    """A job that does nothing: a worker that runs it has imported what page work needs."""
    return True


async def prewarm() -> None:
    """Start the worker processes now (their extraction libraries and the project's
    modules imported), so that a run's first pages do not
    wait seconds for them: called as a run starts, while it plans and searches. Where
    worker processes cannot start, this does nothing and page work runs in threads."""
    if not _processes_allowed():
        return
    try:
        await asyncio.gather(*(run_in_pool(_ready) for _ in range(worker_count())))
    except (BrokenProcessPool, OSError):
        return  # the first page's job starts a new pool, or runs in a thread


#: The code a page's Markdown is computed with: the extraction module, and the libraries
#: it calls (trafilatura and what trafilatura extracts with, the fallback's markdownify).
EXTRACTION_CODE = (
    ("subagents.browser.extract",),
    (
        "trafilatura",
        "lxml",
        "lxml_html_clean",
        "markdownify",
        "beautifulsoup4",
        "courlan",
        "htmldate",
        "justext",
    ),
)


def extraction_key(digest: str, url: str | None) -> str:
    """The page cache's key of the Markdown of the HTML whose SHA-256 is ``digest``,
    read at ``url``: the digest, a fingerprint of :data:`EXTRACTION_CODE` and the
    address (links are made absolute against it)."""
    return f"extract {digest} {fingerprint(*EXTRACTION_CODE)} {url or ''}"


def _keyed(html: str, url: str | None) -> tuple[str, str]:
    """The SHA-256 of ``html`` and the key of its Markdown (hashing a page and, the
    first time, reading the libraries' versions are work for a thread)."""
    digest = text_digest(html)
    return digest, extraction_key(digest, url)


def _extracted(body: bytes) -> Extracted | None:
    """The Extracted a cache entry holds; None when it is not one."""
    try:
        return Extracted(**json.loads(body))
    except (ValueError, TypeError):
        return None


async def extract_html(html: str, url: str | None) -> Extracted:
    """:func:`.extract.html_to_markdown` of a page, in a worker process; the same HTML at
    the same address is taken from the run's page cache when it holds a fresh copy, and
    kept there unless the page may not be kept (see
    :meth:`~subagents.net.pagecache.RunCache.withhold`)."""
    digest, key = await asyncio.to_thread(_keyed, html, url)
    kept = await reuse(DERIVED, key)
    found = _extracted(kept) if kept is not None else None
    if found is not None:
        return found
    extracted = await run_in_pool(html_to_markdown, html, url)
    body = json.dumps(asdict(extracted)).encode("utf-8")
    await remember(DERIVED, key, body, source=digest)
    cache = active_cache()
    if cache is not None:
        cache.withhold_derived(html, extracted.markdown)
    return extracted


async def answer_from_text(text: str, query: str, url: str, page_path: str) -> Answer:
    """:func:`.evidence.answer_bm25` of a stored page, in a thread of this process, its
    words read in the language they are read in here (:func:`research.text.reading`).

    Not in a worker: BM25 over a page takes milliseconds, but its words are read with
    the language tables (English lemmas, the Chinese word list) that this process holds
    already for the research; a worker that answered would load its own copy, a second
    of work and a hundred MB more for each worker."""
    return await asyncio.to_thread(answer_bm25, text, query, url, page_path, reading_language())
