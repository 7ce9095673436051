"""``quartet skills``: every skill and its experience log (``list``), one skill's knowledge
and log (``show``), and the offline merge of a log's recent findings (``merge``).

The skills are each subagent's: those its spec names and the user's own
(``[quartet.skills]``). The logs are read from the memory store the settings name
(:mod:`host.durability.memory`); ``list`` and ``show`` never create it.
"""

from __future__ import annotations

import argparse
import difflib
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from host.config import ConfigError, Settings
from host.printable import printable

from .store import opened, store_settings

if TYPE_CHECKING:
    from host.durability.memory import SkillMemory


@dataclass(frozen=True)
class BoundSkill:
    """A skill and the subagent it belongs to."""

    name: str
    subagent: str
    description: str
    path: Path
    body: str


def catalog(settings: Settings) -> list[BoundSkill]:
    """Every subagent's skills, in pipeline order (a ConfigError if one does not load)."""
    from subagents import PIPELINE_ORDER, current
    from subagents.skills import bound_skills

    specs = current().specs
    found: list[BoundSkill] = []
    for name in PIPELINE_ORDER:
        try:
            skills = bound_skills(specs[name].skills, settings.skills.get(name, ()))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        found += [BoundSkill(s.name, name, s.description, s.path, s.body) for s in skills]
    return found


def find_skill(skills: list[BoundSkill], name: str) -> BoundSkill:
    """The skill called ``name``; a ConfigError (exit 2) naming the near ones if none is."""
    for skill in skills:
        if skill.name == name:
            return skill
    names = [s.name for s in skills]
    near = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean {near[0]}?" if near else f"the skills are {', '.join(names)}"
    raise ConfigError(f"unknown skill {printable(name)!r}; {hint}")


def _memory(settings: Settings) -> AbstractContextManager[SkillMemory | None]:
    """The settings' memory store, closed afterwards (see :func:`.store.opened`)."""
    from host.durability.memory import existing_memory

    return opened(existing_memory, settings)


def _log(memory: SkillMemory | None, skill: str) -> str:
    """``skill``'s experience log in ``memory`` ("" when there is none)."""
    return "" if memory is None else memory.log(skill)


def experience_line(text: str) -> str:
    """What ``list`` says of a log: its count, its sections, and a merge suggested."""
    from subagents.experience import needs_merge, parse

    if not text:
        return "no experiences recorded"
    try:
        log = parse(text)
    except ValueError as exc:
        return f"experience log unreadable ({exc})"
    told = (
        f"{log.total} experience{'s' if log.total != 1 else ''} recorded "
        f"({len(log.core)} core, {len(log.recent)} recent)"
    )
    return told + ", merge suggested" if needs_merge(text) else told


def cmd_skills_list(args: argparse.Namespace) -> int:
    """``quartet skills list``: every skill, its subagent, description and experiences."""
    settings = store_settings(args)
    skills = catalog(settings)
    with _memory(settings) as memory:
        for skill in skills:
            line = experience_line(_log(memory, skill.name))
            print(printable(f"{skill.name} ({skill.subagent}): {line}"))
            print(printable(f"  {skill.description}"))
    return 0


def cmd_skills_show(args: argparse.Namespace) -> int:
    """``quartet skills show SKILL``: the skill's SKILL.md body, then its experience log."""
    from subagents.experience import evolved_path

    settings = store_settings(args)
    skill = find_skill(catalog(settings), args.skill)
    print(printable(f"{skill.name} ({skill.subagent}): {skill.description}"))
    print(printable(f"From {skill.path}"))
    print()
    print(printable(skill.body, keep_lines=True))
    with _memory(settings) as memory:
        log = _log(memory, skill.name)
    print()
    if not log:
        print(printable(f"No experiences recorded in {settings.store_path()}."))
        return 0
    print(printable(f"Experience log ({evolved_path(skill.name)} in {settings.store_path()}):"))
    print(printable(log.rstrip("\n"), keep_lines=True))
    return 0


def cmd_skills_merge(args: argparse.Namespace) -> int:
    """``quartet skills merge SKILL``: move the log's recent findings into its core
    experiences (no model), and say what moved."""
    from subagents.experience import MergeResult, evolved_path, merged, parse, render

    settings = store_settings(args)
    skill = find_skill(catalog(settings), args.skill)
    path = evolved_path(skill.name)
    with _memory(settings) as memory:
        if memory is None or not memory.log(skill.name):
            print(printable(f"{skill.name}: no experiences recorded; nothing to merge."))
            return 0
        done: list[MergeResult] = []

        def change(text: str) -> str:
            done[:] = [merged(parse(text), date.today())]
            return render(done[0].evolved) if done[0].moved else text

        try:
            memory.update(path, change)
        except ValueError as exc:
            raise ConfigError(f"{skill.name}: its experience log cannot be read ({exc})") from None
    result = done[0]
    if not result.moved:
        print(printable(f"{skill.name}: no recent findings; nothing to merge."))
        return 0
    count = len(result.moved)
    print(
        printable(
            f"{skill.name}: moved {count} recent finding{'s' if count != 1 else ''} into "
            f"the core experiences ({len(result.evolved.core)} now):"
        )
    )
    replaced = set(result.replaced)
    for title in result.moved:
        note = " (replaced the older entry of this title)" if title in replaced else ""
        print(printable(f"  {title}{note}"))
    return 0
