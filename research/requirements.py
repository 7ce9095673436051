"""A brief's requirements, and whether a report meets them.

The Host hands the writer the question, then the brief's requirements (its instructions,
see :mod:`research.brief`) as a list under :data:`BRIEF_HEADER`. Each requirement asks for
one kind of thing (:func:`read_requirement`) and is judged by its kind on what the report
says (:class:`ReportView`, :func:`judge`):

- a *length* ("Length wanted: 2–3 pages", "Keep it to one page") is what the writer fits
  the report to;
- a *section* ("Use the attached list for a section on the mills") is met by a section
  whose heading names its topic; the research notes add one where a source's table allows
  it (:func:`research.notes.research_notes`), and where none could be made the report
  says that no source gave it;
- a *style* ("Give ranges where sources disagree", "Put the figures in a table") is
  followed when the report has the part that does it (its section on disagreements, a
  table, citations); one the sources gave no occasion for says so, and one about how the
  report is written (its tone, its readers) is noted;
- a *topic* (anything else: "Why the mill closed.", "Cover the floods and the toll
  bridge.") names one or more topics — the phrases it joins with commas and "and" (、, 和)
  — each *covered* when one sentence of the report, or one row of its tables, says most of
  the topic's content terms (the report's subject counts as said everywhere, and a century
  is said by any year in it). The verdict names the topics no source gave, as the brief
  words them ("no source gave how the weir worked").

The label a brief puts before a requirement ("What the report should cover:") is not part
of it; a requirement that bundles others (a header line holding its length line) is not
judged again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from .brief import Asking, asks_with, data_for, listed_after
from .question import weight
from .text import (
    STOP_WORDS,
    WORD,
    jieba_loaded,
    language,
    plain,
    terms,
)

#: The line before the brief's requirements in what the writer is asked for.
BRIEF_HEADER = "Requirements from the brief:"
#: What the writer's default length is when a brief asks for none.
DEFAULT_PAGES = (2, 4)
#: A term at least this rare (see :func:`research.question.weight`) says what a topic is
#: about; the commonest words ("get", "make") say nothing of it.
MEANINGFUL = 1.5
#: The share of a topic's terms that one sentence (or table row) of the report says for
#: the topic to be covered.
COVERED = 0.6
#: The kinds of requirement.
LENGTH, SECTION, STYLE, TOPIC = "length", "section", "style", "topic"
#: A style about how the report is written (its tone, its readers): noted, not judged.
MANNER = "manner"
#: A style's verdict when the report lacks its feature: one about how the report is
#: written is noted, and disagreements the sources cited do not have are not needed; any
#: other is not met.
WITHOUT_FEATURE = {MANNER: "noted", "disagreements": "not needed"}
#: Verdicts that leave something the brief asked for undone.
UNMET = frozenset({"partly covered", "not covered", "not met"})
#: How many words an instruction's request may stand into it ("The final report should
#: cover …").
REQUEST_REACH = 8
_LENGTH = re.compile(r"length|pages?|篇幅|页", re.I)
#: A label before a requirement: a few words and a colon at its start.
_LABEL = re.compile(r"^[^:：。.!?]{1,40}[:：]\s*")
#: A bracketed aside: the examples a topic gives ("(the dam, the sluices)").
_ASIDE = re.compile(r"\s*[（(][^（）()]*[）)]")
#: A year (a century is said by any of its years).
_YEAR = re.compile(r"(?<!\d)(\d{3,4})(?!\d)")
_TRIM = " \t\n.。．;；:：,，、!！"


# -- lengths ----------------------------------------------------------------------------


def pages_wanted(requirements: str) -> tuple[int, int]:
    """The page range the requirements ask for ("2–3 pages", "3 页", "one page"), else
    the default."""
    for line in requirements.splitlines():
        found = _length_of(line)
        if found is not None:
            return found
    return DEFAULT_PAGES


def _pages_pattern(data: Asking) -> re.Pattern[str]:
    """A page count or range in the language's digits or number words."""
    named = sorted(data.numbers, key=len, reverse=True)
    number = r"(?<![A-Za-z])(\d+|" + "|".join(map(re.escape, named)) + r")" if named else r"(\d+)"
    unit = r"[\s-]*(?:pages?|页)"
    return re.compile(rf"{number}\s*(?:[-–—~到至]|to)\s*{number}{unit}|{number}{unit}", re.I)


def _length_of(line: str) -> tuple[int, int] | None:
    """The page range one requirement asks for, or None when it asks no length."""
    if not _LENGTH.search(line):
        return None
    data = data_for(line)
    match = _pages_pattern(data).search(line)
    if match is None:
        return None

    def number(text: str) -> int:
        return int(text) if text.isdigit() else data.numbers[text.lower()]

    if match.group(1):
        low, high = number(match.group(1)), number(match.group(2))
        return (min(low, high), max(low, high))
    n = number(match.group(3))
    return (n, n)


# -- the requirements and their kinds ---------------------------------------------------


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


@dataclass(frozen=True)
class Requirement:
    """One requirement of a brief, read for what it asks.

    Attributes:
        text: the requirement as the brief words it, its label included.
        kind: :data:`LENGTH`, :data:`SECTION`, :data:`STYLE` or :data:`TOPIC`.
        topic: a section's topic ("the mills"), or the report feature a style asks for
            (``disagreements``, ``tables``, ``citations``, :data:`MANNER`).
        topics: the topics a topic requirement names, as the brief words them.
    """

    text: str
    kind: str
    topic: str = ""
    topics: tuple[str, ...] = ()


def read_requirement(text: str) -> Requirement:
    """What one requirement asks for: a length, a section on a topic, a feature of the
    report, or topics to cover (see the module's notes).

    Examples (invented): "Length wanted: 3 pages" is a length; "Use the attached list
    for a section on the mills." a section on "mills"; "Give ranges where sources
    disagree." a style (``disagreements``); "Why the ferry stopped and what replaced
    it." the topics "why the ferry stopped" and "what replaced it".
    """
    if _length_of(text) is not None:
        return Requirement(text, LENGTH)
    body = without_label(text)
    data = data_for(body)
    for pattern in data.sections:
        match = pattern.search(body)
        if match and match.group("topic").strip(_TRIM):
            return Requirement(text, SECTION, topic=_tidy(match.group("topic"), data))
    for feature, patterns in data.styles.items():
        if any(p.search(body) for p in patterns):
            return Requirement(text, STYLE, topic=feature)
    return Requirement(text, TOPIC, topics=topics_of(body))


def section_topics(requirements: list[str]) -> list[str]:
    """The topics of the sections the requirements ask for ("mills")."""
    return [r.topic for r in map(read_requirement, requirements) if r.kind == SECTION]


def section_heading(topic: str) -> str:
    """The heading of a section on ``topic``, as the brief words it ("Mills")."""
    return topic[:1].upper() + topic[1:]


def names_section(heading: str, topic: str) -> bool:
    """Whether a section's heading says the content terms of ``topic``."""
    wanted = meaningful(topic)
    return bool(wanted) and wanted <= set(terms(heading))


# -- topics -----------------------------------------------------------------------------


def _pieces(text: str, data: Asking) -> list[tuple[str, int]]:
    """The words of ``text`` (lower case) with where each starts (Chinese cut by jieba)."""
    if data.code != "zh":
        return [(m.group(0).lower(), m.start()) for m in WORD.finditer(text)]
    out, at = [], 0
    for token in jieba_loaded().lcut(text):
        if token.strip():
            out.append((token, at))
        at += len(token)
    return out


def _after_asking(text: str, data: Asking) -> str:
    """What an instruction asks about: ``text`` after its request and its verb ("The
    report should cover the floods" → "the floods", "请介绍渡口的用途" → "渡口的用途")."""
    pieces = _pieces(text, data)
    said = [w for w, _ in pieces]
    i = 0
    while i < len(said) and said[i] in data.lead_words:
        i += 1
    start = i
    for j in range(i, min(len(said), i + REQUEST_REACH)):
        for phrase in data.requests:
            part = phrase.split()
            if said[j : j + len(part)] == part:
                i = max(i, j + len(part))
    asked = i > start
    if i < len(said) and (asked or i == start) and asks_with(said[i], data):
        i += 1
        asked = True
    while asked and i < len(said) and said[i] in data.topic_prefixes:
        i += 1
    return text[pieces[i][1] :] if asked and i < len(pieces) else text


def _split_topics(text: str, data: Asking) -> list[str]:
    """The phrases of a list of topics, split at commas and at the language's joiners."""
    if data.code == "zh":
        out, current = [], ""
        for token in jieba_loaded().lcut(text):
            if token in data.joiners or re.fullmatch(r"[，、；,;]+", token):
                out.append(current)
                current = ""
            else:
                current += token
        return [*out, current]
    joiners = "|".join(re.escape(j) for j in sorted(data.joiners, key=len, reverse=True))
    return re.split(rf"\s*[,;]\s*(?:(?:{joiners})\s+)?|\s+(?:{joiners})\s+", text)


def _tidy(phrase: str, data: Asking) -> str:
    """A topic as a sentence names it: no end mark, and in lower case where it opens with
    a function word ("How the weir worked" → "how the weir worked")."""
    phrase = " ".join(phrase.split()).strip(_TRIM)
    first = phrase.split(" ", 1)[0].lower()
    if first in STOP_WORDS or first in data.wh_words:
        phrase = phrase[:1].lower() + phrase[1:]
    return phrase


def topics_of(body: str) -> tuple[str, ...]:
    """The topics a requirement names, as it words them (see the module's notes).

    Args:
        body: the requirement without its label.

    Returns:
        Its topics, in order; the whole requirement when it names none apart.
    """
    data = data_for(body)
    text = _after_asking(_ASIDE.sub("", plain(body)), data)
    text = listed_after(text, data) or text
    phrases = [_tidy(p, data) for p in _split_topics(text, data)]
    found = tuple(dict.fromkeys(p for p in phrases if meaningful(p) or _centuries(p, data)))
    return found or (_tidy(text, data),)


def meaningful(text: str) -> frozenset[str]:
    """The content terms of ``text`` that say what it is about (see :data:`MEANINGFUL`)."""
    return frozenset(t for t in terms(text) if weight(t) >= MEANINGFUL)


def _centuries(text: str, data: Asking) -> frozenset[int]:
    """The centuries ``text`` names ("the 19th century" → 19)."""
    if data.century is None:
        return frozenset()
    return frozenset(int(m.group(1)) for m in data.century.finditer(text))


def _topic_terms(topic: str) -> tuple[frozenset[str], frozenset[int]]:
    """A topic's content terms and the centuries it names (their words not counted)."""
    data = data_for(topic)
    rest = data.century.sub(" ", topic) if data.century else topic
    return meaningful(rest), _centuries(topic, data)


# -- judging a report -------------------------------------------------------------------


@dataclass(frozen=True)
class ReportView:
    """What a report says, as its requirements are judged on it.

    Attributes:
        sentences: the sentences it quotes and the rows of its tables (each row one).
        headings: the headings of its sections.
        contexts: the heading of the section each sentence stands in ("" for one that
            stands in none), in the order of ``sentences`` (empty: none has one).
        features: the features it has (``disagreements``, ``tables``, ``citations``),
            each with the heading of the section that shows it ("" for none).
        subject: what the whole report is about (its terms count as said everywhere).
        lang: the language it is written in (``en``, ``zh``; "" for any).
    """

    sentences: tuple[str, ...]
    headings: tuple[str, ...] = ()
    features: dict[str, str] = field(default_factory=dict)
    subject: str = ""
    lang: str = ""
    contexts: tuple[str, ...] = ()

    @cached_property
    def said(self) -> list[tuple[frozenset[str], frozenset[int]]]:
        """Each sentence's terms and the centuries it names. The subject's terms are said
        with every sentence, and a section's heading with each sentence under it: a
        quote in the section "How does the weir work?" says how the weir works, in the
        words of the page it comes from."""
        subject = set(terms(self.subject))
        contexts = self.contexts or ("",) * len(self.sentences)
        out = []
        for sentence, context in zip(self.sentences, contexts, strict=True):
            data = data_for(sentence)
            years = {(int(y) - 1) // 100 + 1 for y in _YEAR.findall(sentence)}
            centuries = frozenset(years) | _centuries(sentence, data)
            out.append((frozenset(terms(sentence)) | subject | set(terms(context)), centuries))
        return out


def covers(topic: str, view: ReportView) -> bool:
    """Whether the report says ``topic``: one of its sentences says at least
    :data:`COVERED` of the topic's terms and centuries."""
    wanted, centuries = _topic_terms(topic)
    need = len(wanted) + len(centuries)
    if not need:
        return True
    best = max(
        ((len(wanted & said) + len(centuries & named)) / need for said, named in view.said),
        default=0.0,
    )
    return best >= COVERED


@dataclass(frozen=True)
class Verdict:
    """A requirement and whether the report meets it.

    Attributes:
        requirement: the requirement as the brief words it.
        kind: what it asks for (see :class:`Requirement`).
        status: ``length``; for a topic ``covered``, ``partly covered`` or ``not
            covered``; for a section ``met`` or ``not met``; for a style ``followed``,
            ``not needed`` (the sources gave no occasion), ``not met`` or ``noted``; ``not
            checked`` for a topic or a section worded in another language than the
            report's, whose words the report cannot be seen to say.
        missing: the topics no source gave, as the brief words them.
        where: the heading of the section that meets it, when one does.
        feature: the report feature a style asks for.
        left_out: the topics a source gave that the report leaves out (to keep to the
            length asked for).
    """

    requirement: str
    kind: str
    status: str
    missing: tuple[str, ...] = ()
    where: str = ""
    feature: str = ""
    left_out: tuple[str, ...] = ()


def judge(requirement: str, view: ReportView, found: ReportView | None = None) -> Verdict:
    """Whether a report meets one requirement of its brief (see the module's notes).

    Args:
        requirement: one requirement of the brief.
        view: what the report says.
        found: what the sources found for it said (the writer's candidates), to tell a
            topic or a section no source gave from one the report leaves out; None when
            unknown (every one the report does not say counts as not given).

    Returns:
        Its verdict.
    """
    asked = read_requirement(requirement)
    if asked.kind == LENGTH:
        return Verdict(requirement, LENGTH, "length")
    if asked.kind in (SECTION, TOPIC) and not same_language(requirement, view.lang):
        return _judge_elsewhere(requirement, asked, view)
    if asked.kind == SECTION:
        return _judge_section(requirement, asked.topic, view, found)
    if asked.kind == STYLE:
        return _judge_style(requirement, asked.topic, view)
    unsaid = [t for t in asked.topics if not covers(t, view)]
    if not unsaid:
        return Verdict(requirement, TOPIC, "covered")
    left = tuple(t for t in unsaid if found is not None and covers(t, found))
    missing = tuple(t for t in unsaid if t not in left)
    status = "not covered" if len(unsaid) == len(asked.topics) else "partly covered"
    return Verdict(requirement, TOPIC, status, missing, left_out=left)


def _judge_elsewhere(requirement: str, asked: Requirement, view: ReportView) -> Verdict:
    """A topic or a section worded in another language than the report: met where the
    report says it in the brief's own words (a section headed with its topic, the
    report's quotes in the brief's language saying each topic), else not checked, as its
    words are not those of the rest of the report."""
    if asked.kind == SECTION:
        where = next((h for h in view.headings if names_section(h, asked.topic)), "")
        if where:
            return Verdict(requirement, SECTION, "met", where=where)
        return Verdict(requirement, SECTION, "not checked")
    own = language(without_label(requirement))
    kept = [
        (sentence, context)
        for sentence, context in zip(
            view.sentences, view.contexts or ("",) * len(view.sentences), strict=True
        )
        if language(sentence) == own
    ]
    said = ReportView(
        tuple(s for s, _ in kept),
        contexts=tuple(c if language(c) == own else "" for _, c in kept),
        subject=view.subject if language(view.subject) == own else "",
        lang=own,
    )
    if kept and all(covers(t, said) for t in asked.topics):
        return Verdict(requirement, TOPIC, "covered")
    return Verdict(requirement, TOPIC, "not checked")


def _judge_section(
    requirement: str, topic: str, view: ReportView, found: ReportView | None
) -> Verdict:
    """A section the brief asks for: met where a heading names it; else left out when
    the sources' candidates name it, not given when they do not."""
    where = next((h for h in view.headings if names_section(h, topic)), "")
    if where:
        return Verdict(requirement, SECTION, "met", where=where)
    if found is not None and any(names_section(h, topic) for h in found.headings):
        return Verdict(requirement, SECTION, "not met", left_out=(topic,))
    return Verdict(requirement, SECTION, "not met", (topic,))


def _judge_style(requirement: str, feature: str, view: ReportView) -> Verdict:
    """A form the brief asks for: followed where the report has it."""
    if feature in view.features:
        where = view.features[feature]
        return Verdict(requirement, STYLE, "followed", where=where, feature=feature)
    return Verdict(requirement, STYLE, WITHOUT_FEATURE.get(feature, "not met"), feature=feature)


def same_language(requirement: str, lang: str) -> bool:
    """Whether a requirement is worded in ``lang`` (any language when it is "")."""
    return not lang or language(without_label(requirement)) == lang
