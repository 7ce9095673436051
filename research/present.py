"""The present, as a question asks for it and as a sentence or a page is dated.

A question asks for the present with words such as "latest", "current", "now", "today",
"this year", 最新, 目前, 现在, 当前, 如今, 今年. They say *when* the answer must hold, not
*what* it is about: a page gives "the port handled 52 million tonnes in 2024", never
"the port handles 52 million tonnes today". So they stay in every query a part
searches with (:func:`present_words`), but are no facet a sentence must say
(:func:`present_terms`); a part that asks for the present prefers the most recent dated
fact instead (:func:`research.answer.in_order_asked`).

A sentence's years, and a page's own date, are compared with the run's date
(:func:`run_day`, set for a run with :func:`as_of`): a year at most
:data:`CURRENT_YEARS` before the run's is current, one after it is no fact yet (a plan or
a projection, "by 2050"); for a part asked in the past tense, a sentence whose years all
lie within :data:`MODERN_YEARS` of the run's speaks of modern times, not of the past.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, date, datetime
from functools import lru_cache

from .scope import setting
from .text import terms

#: Words that ask for the latest state of something, whatever the part asks ("the current
#: population", "the latest version", 目前有多少人口).
_LATEST_STATE = re.compile(
    r"\b(?:latest|most recent(?:ly)?|currently|at present|presently|this year|these days"
    r"|up-to-date|present-day|as of (?:now|today))\b"
    # "current" before the noun it dates, not a current of water or electricity
    r"|\bcurrent\b(?=\s+(?!(?:of|in|on|at|is|are|was|were|and|or|flows?|through|to|from|"
    r"that|which|speed|strength|direction)\b)[^\W\d_])"
    r"|最新|最近|目前|当前|现在|如今|今年|当今|现今|眼下",
    re.I,
)
#: Words that place a question in the present without asking for the latest of several
#: facts ("What role does it play today?"); a part asking for a figure so asks for the
#: latest one ("How many people live there now?").
_AT_PRESENT = re.compile(r"\b(?:now|today|nowadays)\b|今天|今日", re.I)
#: Words by which a sentence places what it says in the present.
_SAYS_PRESENT = re.compile(
    r"\b(?:today|now|nowadays|currently|present-day|twenty-first century|21st century)\b"
    r"|今天|如今|现在|目前|当今",
    re.I,
)
#: The articles a present-asking word may stand after, left out of a query ("the latest").
_ARTICLE = re.compile(r"^(?:the|its|their)\s+", re.I)
#: How many years before the run's a year still counts as the present: figures are
#: published a year or more after the year they count, and many are counted only every
#: few years (a census every ten).
CURRENT_YEARS = 10
#: How many years before the run's a year still speaks of the modern age rather than of
#: history, for a part asked in the past tense ("How was it kept supplied?"): a sentence
#: whose years all lie within it is about the last decades of what it tells, not its past.
MODERN_YEARS = 75

_run_day: ContextVar[date | None] = ContextVar("run_day", default=None)


def asks_latest(text: str) -> bool:
    """Whether a question asks for the latest state of something ("the current
    population", "the latest version", "this year", 目前, 最新)."""
    return bool(_LATEST_STATE.search(text))


def asks_at_present(text: str) -> bool:
    """Whether a question places itself in the present with "now", "today" (今天), which
    asks for the latest figure only of a part asking for one."""
    return bool(_AT_PRESENT.search(text))


def asks_present(text: str) -> bool:
    """Whether a question asks about the present in any of the words above."""
    return asks_latest(text) or asks_at_present(text)


def says_present(text: str) -> bool:
    """Whether a sentence places what it says in the present ("today", "currently", 如今)."""
    return bool(_SAYS_PRESENT.search(text))


def present_words(text: str) -> list[str]:
    """The words by which ``text`` asks for the present, as written and in order ("latest",
    "this year", 目前), an article before them left out: a part's queries keep them."""
    found = [*_LATEST_STATE.finditer(text), *_AT_PRESENT.finditer(text)]
    return list(dict.fromkeys(_ARTICLE.sub("", m.group(0)) for m in sorted(found, key=_start)))


def _start(match: re.Match[str]) -> int:
    return match.start()


@lru_cache(maxsize=4096)
def present_terms(text: str) -> frozenset[str]:
    """The terms of the words by which ``text`` asks for the present ("latest", "year" of
    "this year", 目前): no facet of a part, since a sentence dates its fact rather than
    saying them."""
    return frozenset(t for w in present_words(text) for t in terms(w))


@contextmanager
def as_of(day: date) -> Iterator[date]:
    """``day`` as the run's date for the code inside (see :func:`run_day`)."""
    with setting(_run_day, day):
        yield day


def run_day() -> date:
    """The run's date: the one :func:`as_of` set, else today's (UTC)."""
    return _run_day.get() or datetime.now(UTC).date()


def is_fact(year: int) -> bool:
    """Whether a year is no later than the run's: a later one is a plan or a projection."""
    return year <= run_day().year


def is_current(year: int) -> bool:
    """Whether a year counts as the present at the run's date (see :data:`CURRENT_YEARS`)."""
    return run_day().year - CURRENT_YEARS <= year <= run_day().year


def is_modern(year: int) -> bool:
    """Whether a year lies within :data:`MODERN_YEARS` of the run's date, or after it."""
    return year >= run_day().year - MODERN_YEARS


def page_year(published: str) -> int | None:
    """The year of a page's own date (ISO 8601, ``2024-03-01``), or None when it has none
    or it lies after the run's date."""
    try:
        day = date.fromisoformat(published[:10])
    except ValueError:
        return None
    return day.year if day <= run_day() else None
