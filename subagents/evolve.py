"""evolve_skill: a subagent records a verified lesson in one of its skills' experience logs.

The tool is in no subagent's allowlist. The Host equips it as a meta tool, in the
:data:`META_GROUP` group, only when the user turns experience on, and injects the
memory store (any object with the :class:`MemoryFiles` method) and the names of the
calling subagent's skills, so that a subagent writes only its own skills' logs. The
log's format is :mod:`subagents.experience`'s. No subagent's file tools are granted
``/memories/``, where the logs are: this tool is a subagent's one way to write there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import date
from typing import Protocol

from agentscope.tool import ToolResponse

from fs_service import FsError

from .experience import MAX_RECENT, evolved_path, make_entry, parse, record
from .results import error, ok, refused, unavailable

#: The tool group meta tools are registered in.
META_GROUP = "meta"
#: The meta tool's name, as toolkits and allowlist checks know it.
EVOLVE_SKILL = "evolve_skill"


class MemoryFiles(Protocol):
    """The memory store as the tool writes it."""

    def update(self, path: str, change: Callable[[str], str]) -> str:
        """Replace the text at ``path`` ("" when there is none) by ``change(text)``, as
        one step no other writer interleaves with; the new text."""
        ...


async def evolve_skill(
    skill: str,
    title: str,
    scene: str,
    lesson: str,
    memory: object = None,
    skills: object = None,
) -> ToolResponse:
    """Record a lesson you verified in this task in the experience log of one of your skills.

    Call it rarely, once you have checked that the lesson holds: something worth knowing
    the next time this kind of work comes up (a site that is read only in a real
    browser, a source that proved reliable or unreliable for a kind of fact, a wording
    of queries that found what others missed). Do not record the task's findings, a
    guess, or anything taken on a page's word alone. Name one of your own skills only,
    as your skills section lists them.

    Args:
        skill (str): One of your own skills, by its name, e.g. "browser-access".
        title (str): A short name for the lesson, e.g. "example.org needs a browser".
        scene (str): When the lesson applies, in one sentence.
        lesson (str): What to do then, in one or two sentences.
    """
    own = tuple(skills) if isinstance(skills, Sequence) and not isinstance(skills, str) else ()
    if skill not in own:
        mine = ", ".join(own) or "none"
        return refused(
            f"{str(skill)[:80]!r} is not one of your skills, so its experience log is not "
            f"yours to write; name one of your own skills: {mine}."
        )
    try:
        make_entry(title, scene, lesson)
    except ValueError as exc:
        return error(f"{exc}; give a short title, one scene and one lesson.")
    if memory is None:
        return unavailable("the experience store is not open in this run")
    path = evolved_path(skill)

    def change(text: str) -> str:
        return record(text, title, scene, lesson, date.today())

    try:
        text = await asyncio.to_thread(memory.update, path, change)  # type: ignore[attr-defined]
    except (FsError, ValueError) as exc:
        why = str(exc).removeprefix("Error: ")
        return unavailable(f"the experience log of {skill} could not be written: {why}")
    total = parse(text).total
    return ok(
        f"Recorded in the experience log of {skill}: {' '.join(str(title).split())}. "
        f"It holds {total} experiences recorded so far; its recent findings keep the "
        f"newest {MAX_RECENT}."
    )
