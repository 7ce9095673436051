"""What a report's last line says of its run: the run's date, Quartet's version, the
brain, and the web pages and files the run read (see :class:`subagents.generate.report.
Colophon`)."""

from __future__ import annotations

from datetime import UTC, datetime

from subagents.generate.report import Colophon

from ..durability.runs import ID_TIME
from ..version import quartet_version


def run_date(run_id: str) -> str:
    """The ISO date (UTC) a run started, from its id (``20261202-101500-ab12cd`` →
    ``2026-12-02``); today's for an id that does not start with its time."""
    try:
        return datetime.strptime(run_id[:15], ID_TIME).date().isoformat()
    except ValueError:
        return datetime.now(UTC).date().isoformat()


def run_colophon(run_id: str, brain: str, pages: int, files: list[str]) -> Colophon:
    """The colophon of the run ``run_id``.

    Args:
        run_id: the run's id, which starts with the time it started.
        brain: the brain as ``run.json`` records it (``offline`` or ``PROVIDER:NAME``).
        pages: the web pages the run stored (``run.json``'s ``pages_read``).
        files: the files the run's file tasks read, a file read twice counted once.

    Returns:
        The run's :class:`Colophon`.
    """
    return Colophon(
        date=run_date(run_id),
        version=quartet_version(),
        model=brain,
        pages=pages,
        files=len(dict.fromkeys(files)),
    )
