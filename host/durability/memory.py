"""Where memories live: the persistent store that outlasts runs, and the skills' logs in it.

Memories are files of a SQLite store (:class:`fs_service.backends.StoreFileSystem`):
by default ``.store/quartet.sqlite`` in the runs folder (``store`` in ``quartet.toml``,
or ``QUARTET_STORE``, names another file). The store keeps each ``(user, project)``
namespace apart: the user is the operating system's user name, the project
``"default"`` unless ``project`` (or ``QUARTET_PROJECT``) names another. Files under
``/memories/`` are never evicted to keep the store under its bound.

Each skill's experience log is ``/memories/skills/<skill>/evolved.md``, in the format
of :mod:`subagents.experience`. :meth:`SkillMemory.update` changes a file as one step:
a lock file beside the database (``<store>.lock``) keeps writers of every process
taking turns, so two runs recording at once lose neither finding.
:func:`recall_logs` reads every log a run starts with, for the subagents' prompts.

:func:`browser_findings` and :func:`record_findings` are the Host's own recording,
without a model: once a run is over, one finding for the ``browser-access`` skill per
site whose pages were read only in Chromium.
"""

from __future__ import annotations

import getpass
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from fs_service import NotFoundError
from fs_service.backends import StoreFileSystem
from fs_service.backends.store import DEFAULT_MAX_TOTAL_BYTES
from subagents.experience import (
    EVOLVED_FILE,
    SKILLS_PREFIX,
    Entry,
    Evolved,
    evolved_path,
    parse,
    record,
)

from ..config import Settings

try:
    import fcntl
except ImportError:  # not a POSIX system: writers of one process still take turns
    fcntl = None  # type: ignore[assignment]

#: The largest experience log read or written, in bytes.
MAX_LOG_BYTES = 1 << 20
#: The skill the Host records what a run shows of sites in.
BROWSER_SKILL = "browser-access"
#: The tier a stored page's sidecar names when the page was read in Chromium.
CHROMIUM_TIER = "chromium"

_LOCAL = threading.Lock()


def os_user() -> str:
    """The operating system's user name (its user id when it has none)."""
    try:
        name = getpass.getuser().strip()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER variable
        name = ""
    if name:
        return name
    return f"uid-{os.getuid()}" if hasattr(os, "getuid") else "user"


@contextmanager
def _turn(lock_path: Path) -> Iterator[None]:
    """Hold the store's write lock: every process's writers, and this one's, take turns."""
    with _LOCAL:
        if fcntl is None:
            yield
            return
        with open(lock_path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


class SkillMemory:
    """The memory files of one user and project.

    Args:
        db_path: the store's database file; created with its folder when missing.
        user: whose memories.
        project: which of the user's projects.
        max_total_bytes: the bound on the namespace (``cache_max_mb``): writes past it
            evict the least recently used cached pages, never a memory.

    Raises:
        StoreFormatError: the file is not a SQLite database, or holds a newer schema.
        StorageError: the database could not be opened.
    """

    def __init__(
        self,
        db_path: Path,
        user: str,
        project: str,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    ) -> None:
        self.db_path = Path(db_path)
        self.store = StoreFileSystem(self.db_path, user, project, max_total_bytes)
        self.lock_path = self.db_path.with_name(self.db_path.name + ".lock")

    def close(self) -> None:
        """Close the database; the memory cannot be used afterwards."""
        self.store.close()

    def __enter__(self) -> SkillMemory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def read(self, path: str) -> str:
        """The text at ``path``; "" when there is none."""
        try:
            return self.store.read_bytes(path, MAX_LOG_BYTES).decode("utf-8")
        except NotFoundError:
            return ""

    def update(self, path: str, change: Callable[[str], str]) -> str:
        """Replace the text at ``path`` by ``change(text)`` ("" when there is none), with
        no other update (of this process or another) in between; the new text.

        Raises:
            FsError: the store could not read or write the file.
            ValueError: ``change`` refused the text.
        """
        with _turn(self.lock_path):
            text = change(self.read(path))
            with self.store.open_atomic(path, MAX_LOG_BYTES) as out:
                out.write(text.encode("utf-8"))
        return text

    def log(self, skill: str) -> str:
        """``skill``'s experience log; "" when it has none."""
        return self.read(evolved_path(skill))

    def logged_skills(self) -> list[str]:
        """The skills that have an experience log in the store, by name."""
        names = []
        for entry in self.store.walk_files(SKILLS_PREFIX):
            skill, _, rest = entry.path.removeprefix(SKILLS_PREFIX).partition("/")
            if rest == EVOLVED_FILE:
                names.append(skill)
        return names


def open_memory(settings: Settings) -> SkillMemory:
    """The memory of the settings' store, user (the operating system's) and project.

    Raises:
        FsError: the store cannot be opened (see :class:`SkillMemory`).
    """
    bound = settings.cache_max_mb * 1024 * 1024
    return SkillMemory(settings.store_path(), os_user(), settings.project, bound)


def existing_memory(settings: Settings) -> SkillMemory | None:
    """The settings' memory when its store exists; None (and nothing created) when not."""
    return open_memory(settings) if settings.store_path().is_file() else None


def recall_logs(memory: SkillMemory) -> dict[str, Evolved]:
    """Every skill's experience log in ``memory`` that holds an entry, by skill name.

    A log that is not in the experience format is left out (``quartet skills list``
    calls it unreadable), and a run goes on without it.

    Raises:
        FsError: the store could not be read.
    """
    logs: dict[str, Evolved] = {}
    for skill in memory.logged_skills():
        try:
            evolved = parse(memory.log(skill))
        except ValueError:
            continue
        if evolved.core or evolved.recent:
            logs[skill] = evolved
    return logs


def browser_findings(run_path: Path) -> list[Entry]:
    """One finding per site whose pages the run read only once rendered in Chromium.

    Read from the sidecars of the pages the run stored (``workspace/pages/*.json``);
    an unreadable sidecar is skipped.

    Args:
        run_path: the run's folder.

    Returns:
        The findings, by site name.
    """
    sites: set[str] = set()
    for sidecar in sorted((run_path / "workspace" / "pages").glob("*.json")):
        try:
            page = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(page, dict) or page.get("tier") != CHROMIUM_TIER:
            continue
        if page.get("kind", "web") != "web":
            continue
        address = str(page.get("final_url") or page.get("url") or "")
        site = (urlsplit(address).hostname or "").lower()
        if site:
            sites.add(site)
    return [_browser_finding(site) for site in sorted(sites)]


def _browser_finding(site: str) -> Entry:
    return Entry(
        title=f"{site} is read in a real browser",
        scene=f"Reading a page of {site}.",
        lesson=(
            "Plain reading fell short there (blocked, a challenge, a script-only shell or "
            "too little text) and the page was read once rendered in Chromium: expect the "
            "same, and allow for the time a real browser takes."
        ),
    )


def record_findings(
    memory: SkillMemory, skill: str, findings: Iterable[Entry], today: date
) -> list[str]:
    """Record in ``skill``'s log each finding whose title it does not hold yet.

    Titles are compared case-insensitively, with the core experiences and the recent
    findings both.

    Returns:
        The titles recorded.

    Raises:
        FsError: the store could not read or write the log.
        ValueError: the log is not in the experience format.
    """
    wanted = list(findings)
    recorded: list[str] = []

    def change(text: str) -> str:
        recorded.clear()
        held = parse(text).titles
        for entry in wanted:
            if entry.key not in held:
                text = record(text, entry.title, entry.scene, entry.lesson, today)
                held.add(entry.key)
                recorded.append(entry.title)
        return text

    if wanted:
        memory.update(evolved_path(skill), change)
    return recorded


__all__ = [
    "BROWSER_SKILL",
    "SkillMemory",
    "browser_findings",
    "existing_memory",
    "open_memory",
    "os_user",
    "recall_logs",
    "record_findings",
]
