"""``quartet skills``: every skill and its experience log (``list``), one skill's knowledge
and log (``show``), and the merge of a log's recent findings into its core experiences
(``merge``): condensed by the settings' model when one is set and its key is there, else
offline (:mod:`host.durability.merging`).

The skills are each subagent's: those its spec names and the user's own
(``[quartet.skills]``). The logs are read from the memory store the settings name
(:mod:`host.durability.memory`); ``list`` and ``show`` never create it.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from host.config import ConfigError, Settings
from host.printable import printable

from .store import opened, store_settings

if TYPE_CHECKING:
    from host.brains import Brain, RetryPolicy
    from host.durability.memory import SkillMemory
    from host.durability.merging import LogMerge


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
    """``quartet skills merge SKILL``: merge the log's recent findings into its core
    experiences, condensed by the settings' model when one is set and its key is there
    (else, or when the model's answer cannot be used, de-duplicated offline), and say
    what was done."""
    from host.brains.access import parse_spec
    from host.durability.merging import merge_log
    from subagents.experience import parse

    settings = store_settings(args)
    parse_spec(settings.model)  # a model of no provider known: an error, before anything
    skill = find_skill(catalog(settings), args.skill)
    with _memory(settings) as memory:
        text = _log(memory, skill.name)
        if memory is None or not text:
            print(printable(f"{skill.name}: no experiences recorded; nothing to merge."))
            return 0
        try:
            has_recent = bool(parse(text).recent)
        except ValueError as exc:
            raise _unreadable(skill.name, exc) from None
        brain, why = _merging_brain(settings) if has_recent else (None, "")
        try:
            done = merge_log(memory, skill.name, date.today(), brain, _policy(settings, brain))
        except ValueError as exc:
            raise _unreadable(skill.name, exc) from None
    why = why or done.fallback
    if why:
        told = f"{skill.name}: {settings.model} did not condense the log: {' '.join(why.split())}"
        print(printable(f"quartet: {told}; merged offline instead."), file=sys.stderr)
    _tell_merge(skill.name, done)
    return 0


def _merging_brain(settings: Settings) -> tuple[Brain | None, str]:
    """The brain a merge condenses with, and why there is none when a model is set but
    cannot be used (its key is not set). The offline model gives ``(None, "")``."""
    from host.brains.access import ModelSpecError, check_spec, parse_spec

    from .running import brain_of

    if parse_spec(settings.model)[0] == "offline":
        return None, ""
    try:
        check_spec(settings.model, settings.models)
    except ModelSpecError as exc:
        return None, str(exc)
    return brain_of(settings), ""


def _unreadable(skill: str, exc: ValueError) -> ConfigError:
    """The error (exit 2) of a log that cannot be read."""
    return ConfigError(f"{skill}: its experience log cannot be read ({exc})")


def _policy(settings: Settings, brain: Brain | None) -> RetryPolicy | None:
    """The model request's timeout and attempts, as the settings give them (None with no
    model: the offline merge asks none)."""
    if brain is None:
        return None
    from host.brains import RetryPolicy

    return RetryPolicy(timeout=settings.model_timeout, attempts=settings.model_attempts)


def _tell_merge(skill: str, done: LogMerge) -> None:
    """Print what a merge of ``skill``'s log did: what the model condensed it into, or
    the recent findings the offline merge moved."""
    if done.condensed_by:
        core = done.evolved.core
        print(
            printable(
                f"{skill}: {done.condensed_by} condensed {done.went_in} "
                f"entr{'ies' if done.went_in != 1 else 'y'} into {len(core)} core "
                f"experience{'s' if len(core) != 1 else ''}:"
            )
        )
        for entry in core:
            print(printable(f"  {entry.title}"))
        return
    if not done.moved:
        print(printable(f"{skill}: no recent findings; nothing to merge."))
        return
    count = len(done.moved)
    print(
        printable(
            f"{skill}: moved {count} recent finding{'s' if count != 1 else ''} into "
            f"the core experiences ({len(done.evolved.core)} now):"
        )
    )
    replaced = set(done.replaced)
    for title in done.moved:
        note = " (replaced the older entry of this title)" if title in replaced else ""
        print(printable(f"  {title}{note}"))
