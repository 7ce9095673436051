"""A brief's requirements, and whether a report meets them.

The Host hands the writer the question, then the brief's requirements as a list under
:data:`BRIEF_HEADER`. A report lists each requirement with its verdict, so that what it
could not do is said, not dropped:

- a length ("Length wanted: 2–3 pages") is what the writer fits the report to;
- any other requirement names what the report should cover; it is *covered* when the
  report's own text (its headings and the evidence it quotes) says its telling words (see
  :data:`TELLING`), *partly covered* when it says some of them (the others are named),
  and *not covered* when it says almost none.

Telling words are the requirement's content terms that are rare enough to name a thing
(:func:`research.question.weight`); the label a brief puts before a requirement ("What
the report should cover:") is not part of it. A requirement that bundles others (a
brief's header line holding its length line) is not judged again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .question import weight
from .text import is_bare_verb, terms, words

#: The line before the brief's requirements in what the writer is asked for.
BRIEF_HEADER = "Requirements from the brief:"
#: A term at least this rare (see :func:`research.question.weight`) names something a
#: report can be seen to cover; commoner ones ("give", "use", "main") do not.
TELLING = 2.5
#: Shares of a requirement's telling terms a report says for it to be covered, or for it
#: to be covered at least in part.
COVERED, PARTLY = 0.8, 0.3
#: What the writer's default length is when a brief asks for none.
DEFAULT_PAGES = (2, 4)
_PAGES = re.compile(
    r"(\d+)\s*(?:[-–—~到至]|to)\s*(\d+)\s*(?:pages?|页)|(\d+)\s*(?:pages?|页)", re.I
)
_LENGTH = re.compile(r"length|pages?|篇幅|页", re.I)
#: A label before a requirement: a few words and a colon at its start.
_LABEL = re.compile(r"^[^:：。.!?]{1,40}[:：]\s*")


@dataclass(frozen=True)
class Verdict:
    """A requirement and whether the report meets it.

    Attributes:
        requirement: the requirement as the brief words it.
        status: ``length``, ``covered``, ``partly covered`` or ``not covered``.
        missing: the telling words the report does not say, as the brief writes them.
    """

    requirement: str
    status: str
    missing: tuple[str, ...] = ()


def pages_wanted(requirements: str) -> tuple[int, int]:
    """The page range the requirements ask for ("2–3 pages", "3 页"), else the default."""
    for line in requirements.splitlines():
        found = _length_of(line)
        if found is not None:
            return found
    return DEFAULT_PAGES


def _length_of(line: str) -> tuple[int, int] | None:
    """The page range one requirement asks for, or None when it asks no length."""
    if not _LENGTH.search(line):
        return None
    match = _PAGES.search(line)
    if match and match.group(1):
        low, high = int(match.group(1)), int(match.group(2))
        return (min(low, high), max(low, high))
    if match and match.group(3):
        n = int(match.group(3))
        return (n, n)
    return None


def brief_requirements(requirements: str) -> list[str]:
    """The brief's requirements in what the writer is asked for: the bullets under
    :data:`BRIEF_HEADER`; one that holds another whole (a header bundling the length
    line) is left out."""
    lines = requirements.splitlines()
    if BRIEF_HEADER not in (line.strip() for line in lines):
        return []
    start = next(i for i, line in enumerate(lines) if line.strip() == BRIEF_HEADER)
    found = [ln.strip()[2:].strip() for ln in lines[start + 1 :] if ln.strip().startswith("- ")]
    found = list(dict.fromkeys(r for r in found if r))
    return [r for r in found if not any(o != r and o in r for o in found)]


def without_label(requirement: str) -> str:
    """A requirement without the label a brief puts before it ("What the report should
    cover: the floods" → "the floods"), as a report lists it."""
    return _LABEL.sub("", requirement, count=1).strip() or requirement


def _telling(text: str) -> dict[str, str]:
    """The telling terms of a requirement, each with the word the brief writes it as; an
    opening imperative ("Mention …", "Give …") asks, it names nothing to cover."""
    out: dict[str, str] = {}
    said = words(text)
    if said and is_bare_verb(said[0]):
        said = said[1:]
    for word in said:
        for term in terms(word):
            if weight(term) >= TELLING and term not in out:
                out[term] = word.strip("'’")
    return out


def judge(requirement: str, said: str) -> Verdict:
    """Whether a report whose text is ``said`` meets ``requirement``.

    Args:
        requirement: one requirement of the brief.
        said: the report's headings and quoted text.

    Returns:
        Its verdict.
    """
    if _length_of(requirement) is not None:
        return Verdict(requirement, "length")
    telling = _telling(without_label(requirement))
    if not telling:
        return Verdict(requirement, "covered")
    present = set(terms(said))
    missing = tuple(word for term, word in telling.items() if term not in present)
    share = 1 - len(missing) / len(telling)
    if share >= COVERED:
        return Verdict(requirement, "covered")
    return Verdict(requirement, "partly covered" if share >= PARTLY else "not covered", missing)
