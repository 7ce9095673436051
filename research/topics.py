"""A brief's topics that no part of the question asks about, answered from what was read.

A brief may ask the report to cover a topic the question does not ask ("Cover how the
weir worked."). The parts' sections may not say it, although a page read for another
part does. Each such topic is read as a part of the question, about the question's
subject (:func:`topic_focus`), and every page and file read is searched for the
sentences that answer it (:func:`topic_quotes`), scored by the same core as the parts'
evidence: only sentences that are evidence for it are quoted. Where none is, the report
says that no source read gave it (see :mod:`research.requirements`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .comparison import comparison
from .document import Document
from .facts import points_back
from .question import Focus, entity
from .relevance import assessed, evidence_threshold, quote_bounds
from .requirements import COVERED, section_heading
from .selection import near_duplicate
from .text import is_cjk, is_cross_reference, plain, points_elsewhere, terms

#: Quotes a topic's section gives at most.
TOPIC_QUOTES = 3
#: Quotes of one page a topic's section gives at most.
PER_PAGE = 2
#: Sentences of each page weighed for a topic (its best by the core's rank).
PER_PAGE_WEIGHED = 6


@dataclass(frozen=True)
class Read:
    """A page or file read in the run, as a topic is looked for in it."""

    path: str
    text: str
    title: str = ""


@dataclass(frozen=True)
class TopicQuote:
    """A span of a page or file read that answers a topic: ``text[start:end]`` of the
    source at ``path``, with its score for the topic."""

    path: str
    start: int
    end: int
    score: float


def topic_heading(topic: str, question: str, quoted: Sequence[str] = (), about: str = "") -> str:
    """The heading of the section on ``topic``: the topic as the brief words it, after the
    question's subject when the topic does not name it ("Harlow ferry: how the chains
    worked"), so that the heading names what it is about for a reader who meets it
    alone. A question comparing two things lends the side its section's quotes name, when
    they name one and not the other ("Harlow ferry: shipping"), else what the brief is
    about (``about``), never the word that frames the comparison ("difference"); with
    neither, the topic stands alone.

    Args:
        topic: a topic as the brief words it.
        question: the question researched.
        quoted: the quotes of the topic's section.
        about: what the brief asking for the topic is about (see :func:`brief_subject`).
    """
    named = _lent(topic, question) or _side_quoted(topic, question, quoted)
    if not named and about and comparison(question) is not None:
        named = "" if set(terms(about)) & set(terms(topic)) else about
    return _headed(topic, named)


def is_topic_heading(heading: str, topic: str, question: str) -> bool:
    """Whether ``heading`` is one :func:`topic_heading` gives ``topic``'s section for
    ``question``, whatever it lent the topic."""
    if heading == topic_heading(topic, question):
        return True
    return heading.endswith((f": {topic}", f"：{topic}"))


#: What a brief's title may open with before what it is about ("Research brief: the
#: Sallow estuary", "Brief — Harlow ferry").
_TITLE_LABEL = re.compile(r"^.*?(?::|：|\s[—–-]\s)\s*")


#: The headings a reader writes above each page, slide or sheet of a file's text.
_PLACE_HEADING = re.compile(r"^(?:page|slide|sheet)\s+\S+$", re.I)


def brief_subject(text: str) -> str:
    """What a brief is about, by its title (its first line, the page or slide headings of
    its text aside): the words after a label ending in a colon or a dash ("Research
    brief: *the Sallow estuary*"), or the title's subject (see
    :func:`research.question.entity`), without an article; "" for none."""
    lines = [ln.strip().lstrip("#").strip() for ln in text.splitlines() if ln.strip()]
    lines = [ln for ln in lines if not _PLACE_HEADING.match(ln)]
    if not lines:
        return ""
    title = lines[0]
    named = _TITLE_LABEL.sub("", title, count=1) if _TITLE_LABEL.match(title) else entity(title)
    return _side_name(named.strip(" .。"))


def _headed(topic: str, named: str) -> str:
    if not named:
        return section_heading(topic)
    return f"{named}：{topic}" if is_cjk(topic) else f"{named}: {topic}"


def _side_quoted(topic: str, question: str, quoted: Sequence[str]) -> str:
    """The side of ``question``'s comparison that the quotes on ``topic`` name when they
    name one side and not the other (by the words only that side's name has), as a
    heading names it; "" otherwise, or when ``topic`` names a side itself."""
    found = comparison(question)
    if found is None or not quoted:
        return ""
    said = {t for q in quoted for t in terms(q)}
    asked = set(terms(topic))
    a, b = (set(terms(side)) for side in found.sides)
    if asked & (a | b):
        return ""
    named = [side for side, own, other in ((found.sides[0], a, b), (found.sides[1], b, a))
             if said & (own - other)]  # fmt: skip
    return _side_name(named[0]) if len(named) == 1 else ""


def _side_name(side: str) -> str:
    """A side as a heading names it: without its article ("Harlow ferry")."""
    return re.sub(r"^(?:the|a|an)\s+", "", side, flags=re.I)


def topic_focus(topic: str, question: str, parts: Sequence[str]) -> Focus:
    """``topic`` read as one more part of ``question``: about the question's subject
    unless the topic names that subject itself, the question's parts as its siblings.

    Args:
        topic: a topic as the brief words it ("how the weir worked").
        question: the question researched.
        parts: the texts of the question's parts.

    Returns:
        The focus to score sentences against.
    """
    named = _lent(topic, question)
    asked = f"{named}: {topic}" if named else topic  # a lead before a colon is the subject
    return Focus.build(asked, parts, question)


def _lent(topic: str, question: str) -> str:
    """The question's subject as it writes it, when ``topic`` does not name it ("" when
    the topic names it, or the question has no single subject: it names none, or
    compares two things)."""
    if comparison(question) is not None:
        return ""
    named = entity(question)
    return "" if set(terms(named)) & set(terms(topic)) else named


def topic_quotes(focus: Focus, read: Sequence[Read], said: Sequence[str] = ()) -> list[TopicQuote]:
    """The spans of what was read that answer ``focus`` best: sentences that are evidence
    for it (at least :func:`~research.relevance.evidence_threshold`) and say the topic
    themselves, with the heading they stand under (:func:`says_topic`), each quoted with
    the sentence it leans on (see :func:`~research.relevance.quote_bounds`), best first; at most
    :data:`TOPIC_QUOTES`, :data:`PER_PAGE` of a page, none repeating a sentence in
    ``said`` or another chosen one.

    Args:
        focus: the topic, read as a part (see :func:`topic_focus`).
        read: every page and file read in the run.
        said: the sentences the report quotes already.

    Returns:
        The quotes, best first (none when nothing read answers the topic).
    """
    least = evidence_threshold(focus)
    found: list[tuple[float, float, str, int, int]] = []
    for source in read:
        doc = Document.of(source.text, source.title)
        for scored in assessed(focus, doc)[:PER_PAGE_WEIGHED]:
            if scored.score < least:
                break
            start, end = quote_bounds(doc, scored.sentence)
            span = doc.text[start:end]
            if is_cross_reference(span) or points_elsewhere(span) or points_back(plain(span)):
                continue  # it says where the topic is told, or leans on what it omits
            if says_topic(focus, span, scored.sentence.section):
                found.append((scored.score, scored.rank, source.path, start, end))
    found.sort(key=lambda f: (-f[0], -f[1], f[2], f[3]))
    return _chosen(found, {r.path: r.text for r in read}, said)


def says_topic(focus: Focus, span: str, heading: str = "") -> bool:
    """Whether a quote, read under the heading it stands under, says what a topic asks
    beyond the question's subject: at least :data:`~research.requirements.COVERED` of
    its facets by weight (a rare word tells the topic more than a common one: "heritage"
    in "world heritage", 铁链 in 铁链如何运作), each by its word or an equivalent (the words
    that frame it, "how … worked", are no facets); the subject's core for a topic that
    asks nothing more."""
    said = set(terms(plain(span))) | set(terms(heading))
    if not focus.facets:
        return set(focus.core) <= said
    total = sum(f.weight for f in focus.facets)
    met = sum(f.weight for f in focus.facets if f.term in said or f.equivalents & said)
    return bool(total) and met / total >= COVERED


def _chosen(
    found: list[tuple[float, float, str, int, int]], texts: dict[str, str], said: Sequence[str]
) -> list[TopicQuote]:
    """The best of ``found`` that repeat nothing quoted, within the limits per page and
    per topic."""
    seen = [plain(s) for s in said]
    chosen: list[TopicQuote] = []
    for score, _, path, start, end in found:
        span = plain(texts.get(path, "")[start:end])
        per_page = sum(q.path == path for q in chosen)
        if per_page >= PER_PAGE or near_duplicate(span, seen):
            continue
        chosen.append(TopicQuote(path, start, end, score))
        seen.append(span)
        if len(chosen) == TOPIC_QUOTES:
            break
    return chosen
