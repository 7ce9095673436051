"""The name a *who* or *where* part is answered by, as a sentence writes it.

A part that asks who did something is answered by a person or a group, one that asks
where by a place; the report opens such a part's line with that name when its best
sentence gives one the question does not ("**Marta Ruiz** — The bridge was designed by
Marta Ruiz in 1931."). A name is found the way each script writes it:

- in words spaced and capitalised (English and the Latin-script languages): a run of
  capitalised words, joined by the small words names carry ("of", "de", "van") or a dash,
  with a word the question does not say and fewer than :data:`SUBJECT_WORDS` it does
  (such a name is the question's subject), and not a month or a weekday; a sentence's
  first word counts only when it is not a common word capitalised by its place ("The");
- in Chinese: the word list's people and groups (``nr``, ``nt``) for *who*, its places
  (``ns``) for *where*, neighbouring words of one kind taken together.

The words before a name say what it is to the sentence (see :data:`CUES`): "by" names who
did it, "in", "at", "near" where, 由/被 and 在/位于 in Chinese. A name in the role the part
asks for is taken before one with no role; among equals, the one nearest the question's
words in the sentence (:func:`nearness`). A sentence whose only new name stands in the
other role gives none ("built in Lisbon" answers no *who*).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .question import zh_tagged
from .text import MONTHS, STOP_WORDS, is_cjk, is_word, plain, stem, terms

#: Per role, the words that stand right before a name in it: ``agent`` (who did it) and
#: ``place`` (where), English first, then Chinese.
CUES = {
    "agent": ("by", "由", "被", "经"),
    "place": (
        "in",
        "at",
        "near",
        "from",
        "to",
        "into",
        "across",
        "through",
        "outside",
        "inside",
        "between",
        "在",
        "于",
        "位于",
        "地处",
        "来自",
        "到",
    ),
}
#: How many words in lower case may stand between a cue and its name.
CUE_REACH = 4
#: The role a kind of part asks a name in.
ROLE = {"who": "agent", "where": "place"}
#: The small words inside a name ("Bank of England", "Vasco da Gama").
_JOINERS = (
    r"(?:of|the|de|del|della|da|das|do|dos|du|des|di|van|von|der|den|la|le|al|el|bin|ibn|y|and|&)"
)
_CAPITAL = r"[A-Z\u00c0-\u00de][\w'’.-]*"
_NAME = re.compile(rf"\b{_CAPITAL}(?:(?:\s+(?:{_JOINERS}\s+)*|[–—/]){_CAPITAL})*")
#: A name that says this many of the question's own words is the question's subject
#: ("the Lund–Varga Railway" for a question on the Varga Railway), not an answer to it.
SUBJECT_WORDS = 2
#: Capitalised words that are not names: the calendar.
_CALENDAR = MONTHS | frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)
#: What stands between a name and another name of the same thing in brackets after it.
_ALIAS = re.compile(r"\s*[(（][^)）]*")
#: Chinese word classes, per kind of part: people and groups, places.
ZH_FLAGS = {"who": ("nr", "nt"), "where": ("ns",)}


@dataclass(frozen=True)
class Name:
    """A name in a sentence: its text, where it starts, and the role its cue gives it
    (``agent``, ``place`` or ``""``)."""

    text: str
    start: int
    role: str


def _role(before: str) -> str:
    """The role the words right before a name give it (see :data:`CUES`): its cue, then
    at most :data:`CUE_REACH` words in lower case saying what the name is ("by the
    harbour board of …"), the cue nearest the name first."""
    before = before.rstrip()
    found: list[tuple[int, str]] = []
    for role, cues in CUES.items():
        for cue in cues:
            if is_cjk(cue):
                if before.endswith(cue):
                    found.append((0, role))
                continue
            words_after = rf"((?:\s+[a-z'-]+){{0,{CUE_REACH}}})"
            match = re.search(rf"(?:^|\W)(?i:{re.escape(cue)}){words_after}$", before)
            if match:
                found.append((len(match.group(1).split()), role))
    return min(found)[1] if found else ""


def _opens(text: str, start: int) -> bool:
    """Whether ``start`` is where ``text`` or one of its clauses begins."""
    return not text[:start].strip() or text[:start].rstrip()[-1] in '.:;!?"“(—–'


def _spaced_names(text: str, asked: frozenset[str]) -> list[Name]:
    """The names of a sentence written in capitalised words (see the module's text)."""
    found = []
    subject_end = -1  # where the last name of the question's subject ends
    for match in _NAME.finditer(text):
        words = match.group(0).split()
        start = match.start()
        # a common word capitalised because it opens the sentence or a clause is no name
        while words and (
            words[0].lower().strip(".") in STOP_WORDS
            or re.fullmatch(_JOINERS, words[0].lower())
            or (_opens(text, start) and is_word(words[0].lower()))
        ):
            start = text.index(words[1], start) if len(words) > 1 else match.end()
            words = words[1:]
        while words and re.fullmatch(_JOINERS, words[-1].lower()):
            words = words[:-1]
        name = " ".join(words).rstrip(".'’")
        said = terms(name)
        own = [w for w in said if w not in asked]
        if not own or len(said) - len(own) >= SUBJECT_WORDS:
            subject_end = match.end()
            continue
        if subject_end >= 0 and _ALIAS.fullmatch(text[subject_end:start]):
            continue  # the subject's other name, in brackets after it
        if all(w.lower() in _CALENDAR for w in name.split()):
            continue
        found.append(Name(name, start, _role(text[:start])))
    return found


def _spots(text: str, question: str) -> list[int]:
    """Where ``text`` says a word of ``question``: Chinese words found as written, other
    words by their stems."""
    if is_cjk(text):
        return [
            m.start()
            for t in terms(question)
            if len(t) > 1
            for m in re.finditer(re.escape(t), text)
        ]
    asked = {stem(t) for t in terms(question)}
    return [m.start() for m in re.finditer(r"[\w'’-]+", text) if stem(m.group(0).lower()) in asked]


def nearness(text: str, start: int, end: int, question: str) -> int:
    """How far ``text[start:end]`` (a name, a date, a number) stands from the nearest word
    of ``text`` the question also says, in words (in characters for Chinese): the name of
    the one who built it stands beside "built"; a large number when the sentence says
    none of the question's words.

    Args:
        text: a sentence, as :func:`research.text.plain` gives it.
        start: where the span starts in ``text``.
        end: where it ends.
        question: the part's text.

    Returns:
        The distance.
    """
    spots = [at for at in _spots(text, question) if not start <= at < end]
    if not spots:
        return 10_000
    gaps = [text[min(end, at) : max(start, at)] for at in spots]
    return min(len(g) if is_cjk(text) else len(g.split()) for g in gaps)


def _chinese_names(text: str, kind: str, asked: str) -> list[Name]:
    """The names of a Chinese sentence of the class a kind of part asks for."""
    flags = ZH_FLAGS[kind]
    found: list[Name] = []
    at, run, run_start = 0, "", 0
    for pair in [*zh_tagged(text), None]:
        if pair is not None and pair.flag.startswith(flags):
            if not run:
                run_start = at
            run += pair.word
        else:
            if len(run) >= 2 and run not in asked:
                found.append(Name(run, run_start, _role(text[:run_start])))
            run = ""
        if pair is not None:
            at += len(pair.word)
    return found


@lru_cache(maxsize=8192)
def names_in(text: str, kind: str, question: str = "") -> tuple[Name, ...]:
    """The names ``text`` gives that a *who* or *where* part could be answered by, none
    of them a name ``question`` already gives, in the order written.

    Args:
        text: a sentence.
        kind: ``"who"`` or ``"where"``.
        question: the part's text.

    Returns:
        The names, or none for another kind of part.
    """
    if kind not in ROLE:
        return ()
    said = plain(text)
    if is_cjk(said):  # a full name in Latin letters inside Chinese is a name too
        spelt = [n for n in _spaced_names(said, frozenset()) if " " in n.text]
        found = _chinese_names(said, kind, question) + spelt
        return tuple(sorted(found, key=lambda n: n.start))
    return tuple(_spaced_names(said, frozenset(terms(question))))


def name_span(question: str, kind: str, text: str) -> str:
    """The name that answers a *who* or *where* part in ``text``: one in the role the
    part asks for before one with no role; among several, the one nearest the words of
    the question the sentence says. ``""`` when the sentence gives none, or only names
    in the other role.

    Args:
        question: the part's text.
        kind: the part's kind (``"who"``, ``"where"``; any other gives ``""``).
        text: a sentence quoted for the part.

    Returns:
        The name as written, or ``""``.
    """
    return _nearest(question, kind, text, sure=False)


def name_in_role(question: str, kind: str, text: str) -> str:
    """The name ``text`` gives in the role a *who* or *where* part asks for ("by Marta
    Ruiz", "in Mechelen"), or ``""``: the surer kind of :func:`name_span`.

    Args:
        question: the part's text.
        kind: the part's kind.
        text: a sentence.

    Returns:
        The name, or ``""``.
    """
    return _nearest(question, kind, text, sure=True)


def _nearest(question: str, kind: str, text: str, sure: bool) -> str:
    """The name of ``text`` in the role ``kind`` asks for (or, unless ``sure``, with no
    role), the ones in that role first, then the nearest the question's words."""
    wanted = ROLE.get(kind, "")
    roles = (wanted,) if sure else (wanted, "")
    fit = [n for n in names_in(text, kind, question) if wanted and n.role in roles]
    if not fit:
        return ""
    said = plain(text)
    return min(
        fit,
        key=lambda n: (n.role != wanted, nearness(said, n.start, n.start + len(n.text), question)),
    ).text
