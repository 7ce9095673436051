"""Skills: folders of field knowledge a subagent reads in its system prompt.

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` and
``description`` (one sentence saying when the skill helps), then a Markdown body of
practical knowledge of the subagent's field. Skills never document tools: the tools
describe themselves.

Each subagent names its own skills (``SubAgentSpec.skills``), found in the shipped
``skills/`` folder beside the ``subagents`` package (:data:`SHIPPED_ROOT`: the
repository's root in a checkout, ``site-packages`` once the wheel is installed); users
add folders of their own per subagent (``[quartet.skills]`` in ``quartet.toml``). The
Host loads none.

The prompt discloses skills progressively (:func:`skills_prompt`): every skill's name and
description always, and a skill's body only when it is relevant to the task. Relevance
is a shared word: a skill is relevant when its name or description and the task's text
share a content word, compared case-insensitively, where a content word is a run of
letters and digits that is not a common English stop word (:data:`STOP_WORDS`), and a
word ending in one "s" (longer than three letters) counts as the word without it
("tables" meets "table"). Nothing else is compared: no stems, synonyms or translations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

#: The skills that ship with Quartet: one folder per skill, named as the skill, beside
#: the ``subagents`` package in a checkout and in an installed wheel alike.
SHIPPED_ROOT = Path(__file__).resolve().parent.parent / "skills"

#: The file a skill folder holds.
SKILL_FILE = "SKILL.md"

_STOP_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also may might must shall one two many much every get got
    use used using way ways help helps
"""
#: Common English words that never make a skill relevant on their own.
STOP_WORDS = frozenset(_STOP_TEXT.split())

#: YAML front matter between two ``---`` lines at the top of a file, and the rest (a
#: SKILL.md and a skill's evolved.md alike).
FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.S)
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Skill:
    """One skill, as its ``SKILL.md`` gives it.

    Attributes:
        name: the skill's name, from its front matter.
        description: one sentence saying when the skill helps.
        body: the Markdown knowledge after the front matter, stripped.
        path: the skill's ``SKILL.md``.
    """

    name: str
    description: str
    body: str
    path: Path


def load_skill(folder: Path | str) -> Skill:
    """Read the skill in ``folder``.

    Args:
        folder: a folder holding ``SKILL.md`` (``~`` is expanded).

    Returns:
        The skill its front matter and body describe.

    Raises:
        ValueError: the folder has no ``SKILL.md``, or its front matter is missing, is
            not valid YAML, is not a mapping, or lacks a non-empty ``name`` or
            ``description``; the message names the file.
    """
    path = Path(folder).expanduser() / SKILL_FILE
    if not path.is_file():
        raise ValueError(f"{path}: no {SKILL_FILE} in the skill folder {path.parent}")
    match = FRONT_MATTER.match(path.read_text(encoding="utf-8"))
    if match is None:
        raise ValueError(f"{path}: expected YAML front matter between '---' lines at the top")
    meta = _front_matter(path, match.group(1))
    return Skill(
        name=_text_field(path, meta, "name"),
        description=_text_field(path, meta, "description"),
        body=match.group(2).strip(),
        path=path,
    )


def _front_matter(path: Path, text: str) -> dict[str, object]:
    """The front matter of ``path`` as a mapping; a ValueError naming the file if not."""
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: the front matter is not valid YAML ({exc})") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: the front matter must be a mapping with name and description")
    return meta


def _text_field(path: Path, meta: dict[str, object], key: str) -> str:
    """``meta[key]`` as non-empty text; a ValueError naming the file and key if not."""
    value = meta.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{path}: the front matter needs a non-empty {key!r}")
    return " ".join(value.split())


def skills_for(names: Iterable[str], roots: Sequence[Path | str] = ()) -> list[Skill]:
    """The skills ``names`` name, each the folder of that name in the first root holding it.

    Args:
        names: skill names, as a spec lists them.
        roots: folders of skill folders searched after :data:`SHIPPED_ROOT`.

    Returns:
        The skills, in the order of ``names``.

    Raises:
        ValueError: a name has no folder with a ``SKILL.md`` in any root, or its skill
            does not load (see :func:`load_skill`).
    """
    searched = [SHIPPED_ROOT, *(Path(r).expanduser() for r in roots)]
    found: list[Skill] = []
    for name in names:
        folder = next((r / name for r in searched if (r / name / SKILL_FILE).is_file()), None)
        if folder is None:
            where = ", ".join(str(r) for r in searched)
            raise ValueError(f"skill {name!r}: no {name}/{SKILL_FILE} in {where}")
        found.append(load_skill(folder))
    return found


def bound_skills(names: Iterable[str], folders: Sequence[Path | str] = ()) -> list[Skill]:
    """A subagent's skills: those its spec names, then the user's own.

    Args:
        names: the skill names of the subagent's spec (see :func:`skills_for`).
        folders: the user's skill folders for the subagent (``[quartet.skills]``); one
            named like a spec's skill replaces it.

    Returns:
        The spec's skills that no user skill replaces, then the user's, in order.

    Raises:
        ValueError: a skill does not load (see :func:`skills_for`, :func:`load_skill`).
    """
    users = [load_skill(folder) for folder in folders]
    replaced = {u.name for u in users}
    return [*(s for s in skills_for(names) if s.name not in replaced), *users]


def content_words(text: str) -> set[str]:
    """The content words of ``text``: lower-cased, stop words dropped, one final "s" off.

    Args:
        text: any text; hyphens and punctuation separate words.

    Returns:
        The words that decide relevance (see the module's description).
    """
    words = (w.lower() for w in _WORD.findall(text))
    return {_singular(w) for w in words if w not in STOP_WORDS}


def _singular(word: str) -> str:
    """``word`` without one final "s" when it is longer than three letters (not "ss")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def is_relevant(skill: Skill, task_text: str) -> bool:
    """Whether ``skill``'s name or description shares a content word with ``task_text``."""
    return bool(content_words(f"{skill.name} {skill.description}") & content_words(task_text))


def skills_prompt(skills: Sequence[Skill], task_text: str | None = None) -> str:
    """The skills section of a subagent's system prompt.

    Args:
        skills: the subagent's skills.
        task_text: the task the subagent works on; None lists names and descriptions only.

    Returns:
        A Markdown section listing every skill's name and description, followed by the
        body of each skill relevant to ``task_text``; "" when there are no skills.
    """
    if not skills:
        return ""
    lines = [
        "## Skills",
        "Field knowledge for your work: each skill's name and when it helps"
        + ("; the skills that fit this task follow in full." if task_text else "."),
        "",
        *(f"- {s.name}: {s.description}" for s in skills),
    ]
    relevant = [s for s in skills if task_text and is_relevant(s, task_text)]
    for skill in relevant:
        lines += ["", f"### Skill: {skill.name}", "", skill.body]
    return "\n".join(lines)
