"""Where memories live: the persistent store that outlasts runs, and the skills' logs in it.

Memories are files of a store (:class:`fs_service.backends.StoreFileSystem`): by
default the SQLite file ``.store/quartet.sqlite`` in the runs folder (``store`` in
``quartet.toml``, or ``QUARTET_STORE``, names another file, or a PostgreSQL server's
``postgresql://`` URL). The store keeps each ``(user, project)``
namespace apart: the user is the operating system's user name, the project
``"default"`` unless ``project`` (or ``QUARTET_PROJECT``) names another. Files under
``/memories/`` are never evicted to keep the store under its bound.

While a run has its store open, the store is also mounted at ``/memories/`` of the run's
file domain (:mod:`.run_folder`): ``/memories/`` there and the files of this module are
the same files, through the same :class:`~fs_service.backends.StoreFileSystem` (the
run's :attr:`SkillMemory.store`). Only the Host's own service is granted ``/memories/``;
the Host's bookkeeping below writes through :meth:`SkillMemory.update` all the same, and
a subagent writes there only with ``evolve_skill``, through the same method.

Each skill's experience log is ``/memories/skills/<skill>/evolved.md``, in the format
of :mod:`subagents.experience`. :meth:`SkillMemory.update` changes a file as one step,
one writing transaction of the store: writers of every process (and machine) take
turns, so two runs recording at once lose neither finding.
:func:`recall_logs` reads every log a run starts with, for the subagents' prompts.

:func:`browser_findings` and :func:`record_findings` are the Host's own recording,
without a model: once a run is over, one finding for the ``browser-access`` skill per
site (``host`` or ``host:port``) whose pages were read only in Chromium, and one for the
``search-sources`` skill per search source and language of query for which the source
failed or timed out and never answered (:func:`source_failures`), and one more there per
site and kind of question (the kind of answer a part asks for: ``when``, ``number``,
``who``…) whose pages the run read for parts of that kind, at least
:data:`SILENT_SITE_PAGES` of them, without any of those parts taking evidence from it
while another site answered one of them (:func:`silent_sites`). The next run reads them
back (:func:`routing`): a site known to need the browser is read in Chromium at once, a
failing source is tried last for its language, and the pages of a site that answered
nothing for a kind of question are read after the other candidates for parts of that
kind, the last two for :data:`FAILING_SOURCE_DAYS` days from the day they were recorded.
"""

from __future__ import annotations

import getpass
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from fs_service import NotFoundError
from fs_service.backends import StoreFileSystem
from fs_service.backends.store import DEFAULT_MAX_TOTAL_BYTES, StoreTarget, store_exists
from subagents.evidence import site_key
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

#: The largest experience log read or written, in bytes.
MAX_LOG_BYTES = 1 << 20
#: The skill the Host records what a run shows of sites in.
BROWSER_SKILL = "browser-access"
#: The tier a stored page's sidecar names when the page was read in Chromium.
CHROMIUM_TIER = "chromium"
#: The skill the Host records what a run shows of search sources in.
SEARCH_SKILL = "search-sources"
#: Days a search source recorded as failing is tried last, and a site recorded as
#: answering nothing for a kind of question is read last for it, from the day recorded.
FAILING_SOURCE_DAYS = 7
#: The fewest pages of one site a run must have read for the parts of one kind of
#: question, none of them giving evidence, before the site is recorded as answering
#: nothing for that kind: one page says little of a whole site.
SILENT_SITE_PAGES = 2
#: The status of a tool call that failed outside the run (network, site, timeout).
UNAVAILABLE = "unavailable"

_BROWSER_TITLE = re.compile(r"^(\S+) is read in a real browser$", re.IGNORECASE)
_SOURCE_TITLE = re.compile(r"^(search_\w+) failed for ([a-z][a-z0-9-]*) queries$", re.IGNORECASE)
_SILENT_TITLE = re.compile(r'^(\S+) answered nothing for "([^"]+)" questions$', re.IGNORECASE)
#: How a finding's title names a kind of question (:attr:`research.question.Focus.kind`),
#: where the kind's own name is not plain words.
_KIND_WORDS = {"number": "how many", "whether": "yes or no"}
_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def os_user() -> str:
    """The operating system's user name (its user id when it has none)."""
    try:
        name = getpass.getuser().strip()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER variable
        name = ""
    if name:
        return name
    return f"uid-{os.getuid()}" if hasattr(os, "getuid") else "user"


class SkillMemory:
    """The memory files of one user and project.

    Args:
        target: the store: its database file (created with its folder when missing),
            or a PostgreSQL server's URL.
        user: whose memories.
        project: which of the user's projects.
        max_total_bytes: the bound on the namespace (``cache_max_mb``): writes past it
            evict the least recently used cached pages, never a memory.

    Raises:
        StoreFormatError: the database cannot hold a store, or holds a newer schema.
        StorageError: the database could not be opened.
    """

    def __init__(
        self,
        target: StoreTarget,
        user: str,
        project: str,
        max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    ) -> None:
        self.store = StoreFileSystem(target, user, project, max_total_bytes)

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

        def change_bytes(old: bytes | None) -> bytes:
            return change("" if old is None else old.decode("utf-8")).encode("utf-8")

        return self.store.update(path, MAX_LOG_BYTES, change_bytes).decode("utf-8")

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
    return open_memory(settings) if store_exists(settings.store_path()) else None


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
        site = site_key(str(page.get("final_url") or page.get("url") or ""))
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


def source_failures(calls: Iterable[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """The search sources that failed or timed out for a language and never answered in it.

    Args:
        calls: ``(tool, language of the query, status)`` of each search call of a run.

    Returns:
        ``(tool, language)`` of each source with an unavailable call and no answered one
        for that language, sorted.
    """
    failed: set[tuple[str, str]] = set()
    answered: set[tuple[str, str]] = set()
    for tool, language, status in calls:
        if status == "ok":
            answered.add((tool, language))
        elif status == UNAVAILABLE:
            failed.add((tool, language))
    return sorted(failed - answered)


def source_findings(failures: Iterable[tuple[str, str]], today: date) -> list[Entry]:
    """One finding per ``(tool, language)`` of ``failures``, dated ``today``."""
    return [_source_finding(tool, language, today) for tool, language in failures]


def _source_finding(tool: str, language: str, today: date) -> Entry:
    until = today + timedelta(days=FAILING_SOURCE_DAYS)
    return Entry(
        title=f"{tool} failed for {language} queries",
        scene=f"Searching {language} queries; {tool} failed or timed out on {today.isoformat()}.",
        lesson=(
            f"Search the other sources first and {tool} last for {language} queries until "
            f"{until.isoformat()}; after that, try it as usual again."
        ),
    )


def _dated(entry: Entry, title: re.Pattern[str]) -> tuple[str, str, date] | None:
    """The two names a dated finding's ``title`` gives (a tool and a language, or a site
    and a kind of question), in lower case, and the day its scene says it was recorded;
    None for another entry, or one whose scene names no valid date."""
    match = title.match(entry.title)
    day = _DAY.search(entry.scene)
    if match is None or day is None:
        return None
    try:
        when = date.fromisoformat(day.group(1))
    except ValueError:
        return None
    return match.group(1).lower(), match.group(2).lower(), when


def _expired(day: date, today: date) -> bool:
    """Whether a finding recorded on ``day`` no longer counts ``today``."""
    return (today - day).days >= FAILING_SOURCE_DAYS


def source_expired(entry: Entry, today: date) -> bool:
    """Whether ``entry`` is a dated finding of the ``search-sources`` log (a failing
    source, or a site that answered nothing for a kind of question) recorded
    :data:`FAILING_SOURCE_DAYS` days or more before ``today`` (one recorded again then is
    not a duplicate)."""
    found = _dated(entry, _SOURCE_TITLE) or _dated(entry, _SILENT_TITLE)
    return found is not None and _expired(found[2], today)


def _current(log: Evolved | None, title: re.Pattern[str], today: date) -> dict[str, frozenset[str]]:
    """The first names of the dated findings of ``title`` in ``log`` recorded fewer than
    :data:`FAILING_SOURCE_DAYS` days before ``today``, by their second name."""
    found: dict[str, set[str]] = {}
    for entry in log.entries if log is not None else ():
        dated = _dated(entry, title)
        if dated is not None and not _expired(dated[2], today):
            found.setdefault(dated[1], set()).add(dated[0])
    return {second: frozenset(firsts) for second, firsts in sorted(found.items())}


def failing_sources(log: Evolved | None, today: date) -> dict[str, frozenset[str]]:
    """The search tools to try last, by language of query: those ``log`` (the
    ``search-sources`` log) records as failing fewer than :data:`FAILING_SOURCE_DAYS`
    days before ``today``."""
    return _current(log, _SOURCE_TITLE, today)


@dataclass(frozen=True)
class PartReading:
    """What a run read for one part of its question.

    Attributes:
        kind: the kind of answer the part asks for (:attr:`research.question.Focus.kind`:
            ``when``, ``number``, ``who``…).
        pages: the address of each page read for the part.
        sources: the addresses of the sources the part took evidence from.
    """

    kind: str
    pages: tuple[str, ...]
    sources: frozenset[str]


def silent_sites(parts: Iterable[PartReading]) -> list[tuple[str, str]]:
    """The sites that answered nothing for a kind of question in a run.

    A site answered nothing for a kind when the run read at least
    :data:`SILENT_SITE_PAGES` of its pages for the parts of that kind, none of those parts
    took evidence from it, and one of them took evidence from another site. A run that
    answered nothing at all names no site: then the question, not the site, is the cause.

    Args:
        parts: what the run read for each part of its question.

    Returns:
        ``(site, kind)`` of each such site and kind, sorted.
    """
    pages: dict[tuple[str, str], set[str]] = {}
    answered: dict[str, set[str]] = {}
    for part in parts:
        answered.setdefault(part.kind, set()).update(filter(None, map(site_key, part.sources)))
        for url in part.pages:
            site = site_key(url)
            if site:
                pages.setdefault((site, part.kind), set()).add(url)
    return sorted(
        (site, kind)
        for (site, kind), read in pages.items()
        if len(read) >= SILENT_SITE_PAGES and answered[kind] and site not in answered[kind]
    )


def _kind_words(kind: str) -> str:
    """How a finding's title names the kind of question ``kind``."""
    return _KIND_WORDS.get(kind, kind)


def _kind_of(words: str) -> str:
    """The kind of question a finding's title names with ``words``."""
    return next((kind for kind, said in _KIND_WORDS.items() if said == words), words)


def silent_site_findings(silent: Iterable[tuple[str, str]], today: date) -> list[Entry]:
    """One finding per ``(site, kind)`` of ``silent``, dated ``today``."""
    return [_silent_site_finding(site, kind, today) for site, kind in silent]


def _silent_site_finding(site: str, kind: str, today: date) -> Entry:
    until = today + timedelta(days=FAILING_SOURCE_DAYS)
    asks = _kind_words(kind)
    return Entry(
        title=f'{site} answered nothing for "{asks}" questions',
        scene=(
            f"On {today.isoformat()}, the pages of {site} read for parts of a question "
            f'asking "{asks}" gave no evidence, while another site\'s pages did.'
        ),
        lesson=(
            f'For "{asks}" questions, read the other pages found first and those of {site} '
            f"last until {until.isoformat()}; after that, read them in their usual place again."
        ),
    )


def sites_read_last(log: Evolved | None, today: date) -> dict[str, frozenset[str]]:
    """The sites whose pages are read after the others, by kind of question: those
    ``log`` (the ``search-sources`` log) records as answering nothing for it fewer than
    :data:`FAILING_SOURCE_DAYS` days before ``today``."""
    return {_kind_of(words): sites for words, sites in _current(log, _SILENT_TITLE, today).items()}


def browser_sites(log: Evolved | None) -> frozenset[str]:
    """The sites (``host`` or ``host:port``) ``log`` (the ``browser-access`` log) records
    as read in a real browser."""
    sites = set()
    for entry in log.entries if log is not None else ():
        match = _BROWSER_TITLE.match(entry.title)
        if match is not None:
            sites.add(match.group(1).lower())
    return frozenset(sites)


@dataclass(frozen=True)
class Routing:
    """What a run takes from the experience logs it starts with.

    Attributes:
        browser_sites: the sites whose pages are read in Chromium at once.
        sources_last: the search tools tried last, by language of query.
        sites_last: the sites whose pages are read after the other candidates for a
            part, by the kind of question the part asks.
    """

    browser_sites: frozenset[str] = frozenset()
    sources_last: Mapping[str, frozenset[str]] = field(default_factory=dict)
    sites_last: Mapping[str, frozenset[str]] = field(default_factory=dict)


def routing(
    logs: Mapping[str, Evolved], today: date, browser: bool = True, search: bool = True
) -> Routing:
    """The routing the experience ``logs`` (by skill) give a run that starts ``today``.

    Args:
        logs: the experience logs the run started with, by skill name.
        today: the day the run starts.
        browser: the run's Browser subagent has the ``browser-access`` skill.
        search: the run's Search subagent has the ``search-sources`` skill.
    """
    found = logs.get(SEARCH_SKILL) if search else None
    return Routing(
        browser_sites=browser_sites(logs.get(BROWSER_SKILL)) if browser else frozenset(),
        sources_last=failing_sources(found, today),
        sites_last=sites_read_last(found, today),
    )


def record_findings(
    memory: SkillMemory,
    skill: str,
    findings: Iterable[Entry],
    today: date,
    expired: Callable[[Entry], bool] | None = None,
) -> list[str]:
    """Record in ``skill``'s log each finding whose title it does not hold yet.

    Titles are compared case-insensitively, with the core experiences and the recent
    findings both.

    Args:
        memory: the memory store.
        skill: whose log.
        findings: the findings to record.
        today: the day of recording.
        expired: which held entries no longer count (a finding of their title is
            recorded again); none when not given.

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
        log = parse(text)
        held = {e.key for e in log.entries if expired is None or not expired(e)}
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
    "FAILING_SOURCE_DAYS",
    "SEARCH_SKILL",
    "SILENT_SITE_PAGES",
    "PartReading",
    "Routing",
    "SkillMemory",
    "browser_findings",
    "browser_sites",
    "existing_memory",
    "failing_sources",
    "open_memory",
    "os_user",
    "recall_logs",
    "record_findings",
    "routing",
    "silent_site_findings",
    "silent_sites",
    "sites_read_last",
    "source_expired",
    "source_failures",
    "source_findings",
]
