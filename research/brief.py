"""A brief's sentences: what it asks the writer for, and what it states.

A brief (the user's own file telling the writer what to do) is read one sentence at a
time, and each sentence is one of three things (:func:`sentence_kind`):

- an *instruction*: it opens with a verb that asks ("Cover the floods of the valley."), or
  holds a request or a modal ("The report should fit on one page.", "Please add a map.",
  请…, 需要…, 应…); under a heading that asks ("What to cover"), a fragment naming a
  topic ("Why the mill closed.", "Its owners: the guild and the town.") asks too;
- a *fact*: a declarative sentence with a finite verb ("The 1998 survey counted 40
  mills."): evidence like any file's text, cited to the brief;
- anything else — the brief's own question, a label ("Prepared for: …"), a heading — is
  neither.

How each language asks is data, not code: ``research/lang/brief/<code>.yaml`` for English
and Chinese (a text in another language is read with the English data). The same data
tells :mod:`research.requirements` what a requirement asks for (a section, a form, topics).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import yaml

from .lemmas import PAST, THIRD_PERSON, verb_form
from .text import (
    INSTRUCTION_VERBS,
    Sentence,
    is_bare_verb,
    is_complete,
    language,
    passages,
    plain,
    readings,
    word_tag,
    words,
)

HERE = Path(__file__).parent / "lang" / "brief"
INSTRUCTION, FACT, OTHER = "instruction", "fact", "other"
#: A heading that only says where its text is in the file (a PDF page, a slide, a sheet).
_PLACE = re.compile(r"^(?:Page|Slide|Sheet) \S")
#: The label of a requirement whose sentence has no heading above it.
NO_HEADING = "Brief"
#: A length the brief asks for, as a labelled line ("Length wanted: 2–3 pages").
_LENGTH = re.compile(
    r"(?:length wanted|length|篇幅)\s*[:：]?\s*\**\s*([^\n.;]*?(?:pages?|words?|页|字)[^\n.;]*)",
    re.I,
)
#: The longest head of a "head: a, b and c" fragment, in words, that names a list.
LIST_HEAD_WORDS = 8
_LIST_HEAD = re.compile(r"([^:：]{1,120})[:：]\s*(\S.*)$", re.S)


@dataclass(frozen=True)
class Asking:
    """How one language asks for something in a brief (see the module's data files)."""

    code: str
    #: words and phrases that make a sentence a request (lower case)
    requests: tuple[str, ...]
    #: verbs an instruction opens with
    asking_verbs: frozenset[str]
    #: words before an instruction's verb that ask nothing themselves
    lead_words: frozenset[str]
    #: words of a heading under which a fragment names a topic to cover
    asking_headings: tuple[str, ...]
    #: headings that hold the brief's own question
    question_headings: frozenset[str]
    #: words that open an embedded question ("how the dam was built")
    wh_words: frozenset[str]
    #: finite auxiliaries and copulas
    finite: frozenset[str]
    #: words that join the topics of one requirement
    joiners: tuple[str, ...]
    #: patterns of a section asked for, with the group ``topic``
    sections: tuple[re.Pattern[str], ...]
    #: patterns of the report features a brief asks for, by feature
    styles: dict[str, tuple[re.Pattern[str], ...]]
    #: a century, its number in the first group
    century: re.Pattern[str] | None
    #: numbers written as words
    numbers: dict[str, int]
    #: words between an instruction's verb and its topic ("about")
    topic_prefixes: frozenset[str] = frozenset()


@cache
def asking(code: str) -> Asking:
    """The data of language ``code`` (``zh``, else English's)."""
    path = HERE / f"{'zh' if code == 'zh' else 'en'}.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))

    def listed(key: str) -> tuple[str, ...]:
        return tuple(str(w).casefold() for w in raw.get(key) or ())

    century = raw.get("century")
    return Asking(
        code=code if code == "zh" else "en",
        requests=listed("requests"),
        asking_verbs=frozenset(listed("asking_verbs")),
        lead_words=frozenset(listed("lead_words")),
        asking_headings=listed("asking_headings"),
        question_headings=frozenset(listed("question_headings")),
        wh_words=frozenset(listed("wh_words")),
        finite=frozenset(listed("finite")),
        joiners=listed("joiners"),
        sections=tuple(re.compile(p, re.I) for p in raw.get("sections") or ()),
        styles={
            name: tuple(re.compile(p, re.I) for p in patterns)
            for name, patterns in (raw.get("styles") or {}).items()
        },
        century=re.compile(century, re.I) if century else None,
        numbers={str(k): int(v) for k, v in (raw.get("numbers") or {}).items()},
        topic_prefixes=frozenset(listed("topic_prefixes")),
    )


def data_for(text: str) -> Asking:
    """The data of the language ``text`` is written in."""
    return asking(language(text))


def has_phrase(tokens: list[str], phrases: tuple[str, ...] | frozenset[str]) -> bool:
    """Whether ``tokens`` (a sentence's words in order) hold one of ``phrases`` whole."""
    joined = f" {' '.join(tokens)} "
    return any(f" {p} " in joined for p in phrases)


def _opening(tokens: list[str], data: Asking) -> list[str]:
    """A sentence's words from the first that is not a lead word ("Please", "Also", 请)."""
    i = 0
    while i < len(tokens) and tokens[i] in data.lead_words:
        i += 1
    return tokens[i:]


@lru_cache(maxsize=4096)
def is_finite(word: str) -> bool:
    """Whether an English word reads as a finite verb: an auxiliary or copula ("is",
    "had"), a past form ("found", "rose"), or a third-person present that is no plural
    noun ("decides", not "phases")."""
    data = asking("en")
    if word in data.finite:
        return True
    form = verb_form(word)
    return bool(form & PAST) or (bool(form & THIRD_PERSON) and "NOUN" not in readings(word))


def has_finite_verb(tokens: list[str], lang: str) -> bool:
    """Whether a sentence's words hold a finite verb (in Chinese: any verb jieba tags)."""
    if lang == "zh":
        return any(word_tag(t).startswith("v") for t in tokens)
    return any(is_finite(t) for t in tokens)


def is_request(tokens: list[str], data: Asking) -> bool:
    """Whether a sentence holds a request or a modal ("should", "please", 需要, 应)."""
    return has_phrase(tokens, data.requests)


def asks_with(word: str, data: Asking) -> bool:
    """Whether a word is a verb an instruction opens with: one the language asks with
    ("cover", 介绍), or an English word that reads only as a verb ("explore")."""
    if word in data.asking_verbs:
        return True
    if data.code == "zh":
        return False
    return word in INSTRUCTION_VERBS or (
        is_bare_verb(word) and not readings(word) & {"NOUN", "ADJ", "ADV"}
    )


def is_imperative(tokens: list[str], data: Asking) -> bool:
    """Whether a sentence opens with a verb in the imperative ("Cover …", "Explain why …",
    介绍…; see :func:`asks_with`) not followed by a verb of its own ("Use of the mill
    rose" states)."""
    said = _opening(tokens, data)
    if not said:
        return False
    second = said[1] if len(said) > 1 else ""
    if data.code != "zh" and (second == "of" or (second and is_finite(second))):
        return False
    return asks_with(said[0], data)


def listed_after(text: str, data: Asking) -> str | None:
    """What a "head: a, b and c" fragment lists, when its head is a short name with no
    finite verb ("Its owners: the guild and the town" → "the guild and the town");
    None for any other text."""
    listed = _LIST_HEAD.match(text)
    if listed is None:
        return None
    head = words(listed.group(1))
    if len(head) > LIST_HEAD_WORDS or has_finite_verb(head, data.code):
        return None
    return listed.group(2)


def names_topic(text: str, tokens: list[str], data: Asking) -> bool:
    """Whether a sentence is a fragment naming a topic rather than a statement: an
    embedded question ("Why the mill closed."), a head naming a list ("Its owners: the
    guild and the town."), or words that are no full sentence or have no finite verb ("The
    floods of 1902", 盐运的兴衰)."""
    if not is_complete(text):
        return True
    said = _opening(tokens, data)
    if said and said[0] in data.wh_words:
        return True
    if listed_after(text, data) is not None:
        return True
    return not has_finite_verb(tokens, data.code)


def heading_asks(heading: str) -> bool:
    """Whether a heading asks for what is listed under it ("What the report should
    cover", "Notes for the writer", 写作要求)."""
    low = " ".join(plain(heading).casefold().split())
    data = data_for(low)
    if data.code == "zh":
        return any(w in low for w in data.asking_headings)
    return any(re.search(rf"\b{re.escape(w)}", low) for w in data.asking_headings)


def is_question_heading(heading: str) -> bool:
    """Whether a heading holds the brief's own question ("Question", 研究问题)."""
    low = " ".join(plain(heading).casefold().split()).strip(" :：")
    return low in data_for(low).question_headings


def sentence_kind(sentence: str, heading: str = "") -> str:
    """Whether one sentence of a brief is an instruction, a fact or neither.

    Args:
        sentence: the sentence, as the brief writes it.
        heading: the heading it stands under ("" for none).

    Returns:
        :data:`INSTRUCTION`, :data:`FACT` or :data:`OTHER`.

    Examples (invented):
        "Explain how the weir was repaired." → instruction;
        "The report should fit on two pages." → instruction;
        "Why the ferry stopped." under "What to cover" → instruction (a topic);
        "The 1998 survey counted 40 mills." → fact;
        "渡口在1931年停运。" → fact; "请说明渡口停运的原因。" → instruction.
    """
    clean = " ".join(plain(sentence).strip(" -*•\t").split())
    if not clean or clean.endswith(("?", "？")) or is_question_heading(heading):
        return OTHER
    data = data_for(clean)
    tokens = words(clean)
    if is_request(tokens, data) or is_imperative(tokens, data):
        return INSTRUCTION
    asked = heading_asks(heading)
    if asked and names_topic(clean, tokens, data):
        return INSTRUCTION
    if is_complete(clean) and has_finite_verb(tokens, data.code):
        return FACT
    return OTHER


@dataclass(frozen=True)
class BriefReading:
    """A brief read sentence by sentence.

    Attributes:
        requirements: its length line and its instructions, each labelled with the heading
            it stands under ("Notes for the writer: Cover the floods.").
        facts: its facts, as the sentences of its text.
    """

    requirements: list[str]
    facts: list[Sentence]


def requirement_label(heading: str) -> str:
    """The label a requirement carries: its heading without colons (a colon ends the
    label), or :data:`NO_HEADING` when it has none but its page."""
    shown = " ".join(plain(heading).split())
    if not shown or _PLACE.match(shown):
        return NO_HEADING
    return re.sub(r"\s*[:：]\s*", " – ", shown).strip(" –")


def read_brief(text: str) -> BriefReading:
    """A brief's requirements and facts (see :func:`sentence_kind`).

    Args:
        text: the brief's text as Markdown (its headings kept).

    Returns:
        The length it asks for and its instructions, then its facts.
    """
    wanted: list[str] = []
    length = _LENGTH.search(text)
    if length:
        wanted.append(f"Length wanted: {length.group(1).strip(' *')}")
    facts: list[Sentence] = []
    for sentence in passages(text):
        kind = sentence_kind(sentence.text, sentence.section)
        if kind == INSTRUCTION:
            said = " ".join(plain(sentence.text).strip(" -*•\t").split())
            wanted.append(f"{requirement_label(sentence.section)}: {said}")
        elif kind == FACT:
            facts.append(sentence)
    return BriefReading(list(dict.fromkeys(wanted)), facts)


__all__ = [
    "FACT",
    "INSTRUCTION",
    "OTHER",
    "Asking",
    "BriefReading",
    "asking",
    "heading_asks",
    "read_brief",
    "sentence_kind",
]
