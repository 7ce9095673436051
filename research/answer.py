"""The answer a sentence gives a part: the span a reader looks for first, and whether the
kind of answer the part asks for is there at all.

A part that asks *when* is answered by a date, one that asks *how many* (how long, how
far, what is the population of …) by a quantity with what it counts. For those two kinds
the report opens the part's line with that span, and a part none of whose strong
evidence gives one is only partly answered: "no date was found". Every other kind (why,
how, who, where, what) is answered by its best sentence as a whole; picking a name out of
a sentence is not reliable enough to be shown as *the* answer.

The spans come from :mod:`research.facts`, which reads dates and quantities the same way
for every judgement; a number the question itself gives is no answer to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .facts import DATE, has_date, quantities, year_of, years
from .features import gives_number, new_to
from .question import Focus
from .text import plain

T = TypeVar("T")
#: The kinds of part a span answers, and what the report calls the span it lacks.
SPAN_KINDS = {"when": "date", "number": "figure"}
#: A part asking for the earliest or the latest of several dates: "when was it first
#: built", "the most recent census", 最早, 最近一次.
_EARLIEST = re.compile(
    r"\b(?:first|earliest|originally|initially)\b|最早|首次|第一次|最初|起初", re.I
)
_LATEST = re.compile(r"\b(?:latest|most recent(?:ly)?|last)\b|最近|最新|最后一次", re.I)
#: A dated candidate is weighed for the order asked only if it scores at least this share
#: of the best candidate's score.
ORDER_SHARE = 0.5
#: Words a date match may open with that are no part of the date ("in 793").
_LEADING_WORDS = re.compile(r"^(?:in|from|until|since|after|before|around|between|by)\s+", re.I)


def wanted(focus: Focus) -> str:
    """What a part's answer must give — ``"date"``, ``"figure"`` — or ``""`` when any
    relevant sentence can answer it."""
    return SPAN_KINDS.get(focus.kind, "")


def order_asked(focus: Focus) -> str:
    """``"earliest"`` or ``"latest"`` when a *when* part asks for the first or the most
    recent of several dates ("When was it first built?"), else ``""``."""
    if focus.kind != "when":
        return ""
    if _EARLIEST.search(focus.text):
        return "earliest"
    return "latest" if _LATEST.search(focus.text) else ""


def in_order_asked(
    focus: Focus, candidates: Sequence[tuple[T, float]], text: Callable[[T], str]
) -> T | None:
    """The candidate a part asking for the earliest (or latest) date is answered by: among
    those scoring at least :data:`ORDER_SHARE` of the best and giving a year, the one
    with the earliest (or latest) year; None when the part asks no order or none of them
    is dated.

    Args:
        focus: the part.
        candidates: its candidates with their scores.
        text: a candidate's text.

    Returns:
        The candidate, or None.
    """
    order = order_asked(focus)
    if not order or not candidates:
        return None
    best = max(score for _, score in candidates)
    dated = [
        (years(text(c)), i, c) for i, (c, s) in enumerate(candidates) if s >= ORDER_SHARE * best
    ]
    dated = [(min(ys) if order == "earliest" else -max(ys), i, c) for ys, i, c in dated if ys]
    return min(dated, key=lambda d: (d[0], d[1]))[2] if dated else None


def _asked_numbers(question: str) -> set[str]:
    return set(re.findall(r"\d[\d,.]*", question))


def answer_span(focus: Focus, text: str) -> str:
    """The date or quantity in ``text`` that answers a *when* or *how many* part, as
    written there ("486 BCE", "about 1,800 km", "1200万人"); ``""`` when the part asks
    something else or the sentence gives none the question does not already give.

    Args:
        focus: the part.
        text: a sentence quoted for it.

    Returns:
        The span, or ``""``.
    """
    said = plain(text)
    asked = _asked_numbers(focus.text)
    if focus.kind == "when":
        for match in DATE.finditer(said):
            span = _LEADING_WORDS.sub("", match.group(0).strip(" *_—–-")).strip()
            if year_of(match) is not None and not set(re.findall(r"\d+", span)) <= asked:
                return span
        return ""
    if focus.kind == "number":
        for quantity in quantities(said):
            if not set(re.findall(r"\d[\d,.]*", quantity.text)) <= asked:
                return quantity.text.strip()
    return ""


def gives_answer(focus: Focus, text: str) -> bool:
    """Whether ``text`` gives the kind of answer ``focus`` asks for, as the ranking reads
    it (see :func:`research.features.answer_type_bonus`): a date the question does not
    give for *when*, a number counted as the question counts it for *how many* (see
    :func:`research.features.gives_number`); any sentence for the other kinds.

    Args:
        focus: the part.
        text: a sentence of its evidence.

    Returns:
        True when the sentence can answer the part's kind.
    """
    kind = wanted(focus)
    if kind == "date":
        return has_date(new_to(focus.text, plain(text)))
    if kind == "figure":
        return gives_number(focus, text)
    return True
