"""The answer a sentence gives a part: the span a reader looks for first, and whether the
kind of answer the part asks for is there at all.

A part that asks *when* is answered by a date, one that asks *how many* (how long, how
far, what is the population of …) by a quantity with what it counts, one that asks *who*
by a person or a group, one that asks *where* by a place. The report opens the part's
line with that span when its sentence gives one; a *when* or *how many* part none of
whose strong evidence gives a date or a figure is only partly answered ("no date was
found"), while a *who* or *where* part answered by a sentence with no name it can pick
out is not (a name is harder to read than a date: "the city's founders" may answer who).
Every other kind (why, how, whether, what, or any kind this module does not know) is
answered by its best sentence as a whole: any relevant sentence can answer it.

Dates and quantities come from :mod:`research.facts`, names from :mod:`research.names`;
a number or a name the question itself gives is no answer to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from .facts import (
    DATE,
    DAY_OF_MONTH,
    MEASURES,
    Quantity,
    count_of,
    dimension_asked,
    dimension_of,
    has_date,
    measure_asked,
    placed_in,
    quantities,
    year_of,
    years,
)
from .features import gives_number, new_to
from .names import name_in_role, name_span, nearness
from .present import asks_at_present, asks_latest, is_fact, page_year, present_terms
from .question import Focus, definition_asked
from .text import is_cjk, is_verb_form, passages, plain, stem, terms

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
#: A time a *when* part may be answered by that is no year: a decade, a century, a time
#: before the present ("the 1870s", "19th century", "12,000 years ago", 18世纪).
_ERA = re.compile(
    r"\b(?:the\s+)?(?:early\s+|late\s+|mid-?)?\d{3}0s\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)[\s-]+century\b"
    r"|(?:\b(?:about|around|some|nearly|over)\s+)?~?\b\d[\d,.]*\s+"
    r"(?:(?:million|thousand|billion)\s+)?years\s+ago\b"
    r"|~?\b\d[\d,]*\s?(?:BP|BCE|BC)\b"
    r"|\d{1,2}世纪(?:\d0年代)?",
    re.I,
)
#: A count a *how many* part may be answered by that is no quantity with a unit: a
#: number, in figures or in words, with the noun it counts when one follows.
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    "fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    "eighty|ninety|hundred|thousand|dozen|dozens|hundreds|thousands|millions"
)
_COUNT = re.compile(
    rf"(?<![\d.,A-Za-z])(?:\d[\d,.]*\d|\d|\b(?:{_NUMBER_WORDS})\b)"
    r"(?:\s+(?:hundred|thousand|million|billion)\b)?(?P<noun>[ -]+[a-z]+)?",
    re.I,
)
#: A value given again in other units, in brackets after the first ("40 km (25 mi)").
_CONVERSION = re.compile(r"^\s*[(（]")
#: Words a date match may open with that are no part of the date ("in 793").
_LEADING_WORDS = re.compile(r"^(?:in|from|until|since|after|before|around|between|by)\s+", re.I)


def wanted(focus: Focus) -> str:
    """What a part's answer must give — ``"date"``, ``"figure"`` — or ``""`` when any
    relevant sentence can answer it."""
    return SPAN_KINDS.get(focus.kind, "")


#: A question asking what a thing is called: "… called what?", "What is the … called?",
#: "What is the name of …", "… referred to as what?", 叫什么, 被称为什么, 的名称是什么.
_ASKS_NAME = re.compile(
    r"\b(?:called|named|known as|referred to as|termed)(?:\s+what)?\s*\?*\s*$"
    r"|\bwhat (?:is|was|are|were) (?:the|their|its) names? of\b|\bwhat names?\b"
    r"|叫什么|叫做什么|称为什么|称作什么|名字|名称",
    re.I,
)


def asks_name(focus: Focus) -> bool:
    """Whether a *what* part asks what a thing is called ("The stone ledges along the
    old wall are called what?", 那座塔叫什么?): it is answered by a name, a span of a
    sentence."""
    return focus.kind == "what" and bool(_ASKS_NAME.search(focus.text.strip()))


def explains(focus: Focus) -> str:
    """What a sentence must say to explain a *why* or *how* part: ``"cause"`` for why,
    ``"means"`` for a how asked in the present ("How do the gates work?": by what means,
    in what steps), ``""`` for a how asked of the past ("How was it built?", answered by
    its events, dates and names) and for every other kind."""
    if focus.kind == "why":
        return "cause"
    return "means" if focus.kind == "how" and not focus.historical else ""


def order_asked(focus: Focus) -> str:
    """``"earliest"`` or ``"latest"`` when a *when* part asks for the first or the most
    recent of several dates ("When was it first built?"), ``"latest"`` when another part
    asks for the state of something now ("What is the current population?", "How many
    live there now?", 目前有多少人口), else ``""``."""
    if focus.kind == "when":
        if _EARLIEST.search(focus.text):
            return "earliest"
        return "latest" if _LATEST.search(focus.text) else ""
    if asks_latest(focus.text):
        return "latest"
    return "latest" if focus.kind == "number" and asks_at_present(focus.text) else ""


def in_order_asked(
    focus: Focus,
    candidates: Sequence[tuple[T, float]],
    text: Callable[[T], str],
    published: Callable[[T], str] | None = None,
) -> T | None:
    """The candidate a part asking for the earliest (or latest) date is answered by: among
    those scoring at least :data:`ORDER_SHARE` of the best and dated, the one with the
    earliest (or latest) year; None when the part asks no order or none of them is dated.

    A candidate is dated by the years its sentence gives, else, for the latest, by its
    page's own date (``published``): "the port now handles …" on a page of 2025 is newer
    than "in 2015 the port handled …". For the latest, a year after the run's date is no
    fact yet (a plan or a projection, "by 2050"): it does not count.

    Args:
        focus: the part.
        candidates: its candidates with their scores.
        text: a candidate's text.
        published: a candidate's page's own date (ISO 8601, "" when unknown).

    Returns:
        The candidate, or None.
    """
    order = order_asked(focus)
    if not order or not candidates:
        return None
    if focus.kind != "when":  # the latest of what the part measures, not of anything dated
        candidates = [(c, s) for c, s in candidates if _says_what_is_asked(focus, text(c))]
        if not candidates:
            return None
    best = max(score for _, score in candidates)
    strong = [(i, c) for i, (c, s) in enumerate(candidates) if s >= ORDER_SHARE * best]
    if order == "earliest":
        dated = [(min(ys), i, c) for i, c in strong if (ys := years(text(c)))]
    else:
        dated = [(-y, i, c) for i, c in strong if (y := _latest_year(text(c), c, published))]
    return min(dated, key=lambda d: (d[0], d[1]))[2] if dated else None


def _latest_year(said: str, candidate: T, published: Callable[[T], str] | None) -> int | None:
    """The latest year a candidate's sentence gives that is a fact at the run's date,
    else its page's own year (None when neither dates it)."""
    facts = [y for y in years(said) if is_fact(y)]
    if facts:
        return max(facts)
    return page_year(published(candidate)) if published is not None else None


def _says_what_is_asked(focus: Focus, text: str) -> bool:
    """Whether ``text`` says each of the part's facets (by its word or an equivalent)
    besides the words that ask for the present (a part asking nothing else keeps them:
    see :func:`research.question.Focus.build`): a sentence dated later answers "the
    current population" only if it gives a population."""
    said = set(terms(text))
    asked = [f for f in focus.facets if f.term not in present_terms(focus.text)]
    return all(f.term in said or f.equivalents & said for f in asked)


#: The longest thing a definition part asks about, in words (a longer "What is …?" asks
#: something of it).
DEFINED_WORDS = 8
#: Words that make "What is …" ask more than what a thing is ("… used for", "… in 1900").
_CLAUSE_WORDS = frozenset(
    ["for", "in", "on", "at", "to", "by", "from", "with", "during", "after", "before", "since"]
)
#: Words that name a thing as what it is: "… called X", "known as X", 称为X, 叫做X.
_NAMING = r"(?:called|known\s+as|termed|named|称为|叫做|叫作|名为|即)\s*"


def defined(focus: Focus) -> str:
    """What a part asking only what a thing is asks about, or ``""``: the thing as the
    question names it, up to its first "of" ("east wing" in "What is the east wing of
    the Orvald Palace?", whose sentences name the wing before what it belongs to)."""
    if focus.kind != "what":
        return ""
    thing = definition_asked(focus.text)
    if thing and len(thing.split()) <= DEFINED_WORDS and _noun_phrase(thing):
        return thing.split(" of ")[0].strip()
    return ""


def _noun_phrase(thing: str) -> bool:
    """Whether a thing asked about is a noun phrase ("the east wing of the Orvald Palace"),
    not a clause that asks more of it ("the Orvald Palace used for today")."""
    words = thing.split()
    if any(w.lower() in _CLAUSE_WORDS for w in words):
        return False
    return not any(is_verb_form(w) and not w.lower().endswith("s") for w in words[1:])


def defines(thing: str, text: str) -> bool:
    """Whether ``text`` says what ``thing`` is: it opens with it (the thing is what the
    sentence is about: "A sluice chamber is …", "The northern spur links …", 阿登港自由区：…),
    names something as it ("… basins called sluice chambers", 称为船坞), or describes
    something and then names it so, a later sentence of the quote pointing back at the
    description by the thing's name ("Two gates held the water between them. This
    sluice chamber …", "This is the first sluice chamber …", 这种船坞…)."""
    said = " ".join(plain(text).split())
    bare = re.sub(r"^(?:an?|the)\s+", "", thing, flags=re.I)
    opening = re.sub(r"^(?:an?|the)\s+", "", said, flags=re.I)
    if opening.casefold().startswith(bare.casefold()):
        return True
    if re.search(_NAMING + r"(?:an?\s+|the\s+)?" + re.escape(bare), said, re.I):
        return True
    return any(_names_described(bare, s.text) for s in passages(said)[1:])


#: A sentence opening by pointing back at what the sentence before it describes: "This
#: …", "Such …", "These …", 这种…, 此….
_POINTING_OPENING = re.compile(r"(?:this|that|these|those|such)\b|[这此该]", re.I)


def _names_described(thing: str, sentence: str) -> bool:
    """Whether ``sentence`` opens by pointing back and names ``thing`` in its first clause
    ("This sluice chamber was …", "This was the first sluice chamber …"): the sentence
    before it described the thing."""
    if not _POINTING_OPENING.match(sentence):
        return False
    clause = re.split(r"[,;:，；：]", sentence, maxsplit=1)[0]
    return thing.casefold() in clause.casefold()


def _asked_numbers(question: str) -> set[str]:
    return set(re.findall(r"\d[\d,.]*", question))


def sure_span(focus: Focus, text: str) -> str:
    """The span of ``text`` that answers ``focus`` surely enough for a line chosen for
    another part to answer this one too: its date or figure for *when* or *how many*,
    a name in the role asked ("by …", "in …") for *who* or *where*; ``""`` otherwise.

    Args:
        focus: the part.
        text: a sentence.

    Returns:
        The span, or ``""``.
    """
    if focus.kind in ("who", "where"):
        return name_in_role(focus.text, focus.kind, text)
    if focus.kind in ("when", "number") and gives_answer(focus, text):
        return answer_span(focus, text)
    return ""


def _new_value(span: str, asked: set[str]) -> bool:
    """Whether a span gives a number the question does not (one in words always does)."""
    figures = set(re.findall(r"\d[\d,.]*", span))
    return not figures or not figures <= asked


def answer_span(focus: Focus, text: str) -> str:
    """The date, quantity or name in ``text`` that answers a *when*, *how many*, *who* or
    *where* part, as written there ("1931", "about 40 km", "1200万人", "Marta Ruiz");
    ``""`` when the part asks something else or the sentence gives none the question does
    not already give (see :func:`research.names.name_span` for names).

    Args:
        focus: the part.
        text: a sentence quoted for it.

    Returns:
        The span, or ``""``.
    """
    said = plain(text)
    if focus.kind == "when":
        found = _dates(said)
    elif focus.kind == "number":
        found = _counts(count_of(focus.text, said), focus.text)
    else:
        return name_span(focus.text, focus.kind, text)
    asked = _asked_numbers(focus.text)
    fresh = _on_own_side(focus, said, [(s, e) for s, e in found if _new_value(said[s:e], asked)])
    if not fresh:
        return ""
    order = order_asked(focus)
    dated = [(years(said[s:e]), s, e) for s, e in fresh] if order else []
    dated = [(min(ys) if order == "earliest" else -max(ys), s, e) for ys, s, e in dated if ys]
    if dated:  # "when was it first built": the earliest date the sentence gives
        _, start, end = min(dated)
    else:
        start, end = min(fresh, key=lambda se: (nearness(said, *se, focus.text), se[0]))
    return said[start:end].strip()


_WORD_AT = re.compile(r"[^\W_]+", re.UNICODE)


def _on_own_side(focus: Focus, said: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Of the spans of a sentence naming both sides of a comparison, those said of the
    part's own side: the side named last before the span, else first after it ("the
    Varn Tunnel runs for 12 km; the Ostel Tunnel for 8 km": 12 km for the Varn Tunnel's
    part); all of them for a part asking no one side, or when none is its own."""
    sides = focus.sides
    if sides is None or sides.both or len(spans) < 2:
        return spans
    named = _sides_named(said, set(sides.own), set(sides.other))
    if len({mine for _, mine in named}) < 2:
        return spans

    def of_own(start: int) -> bool:
        before = [mine for at, mine in named if at < start]
        return before[-1] if before else next(mine for at, mine in named if at >= start)

    kept = [(s, e) for s, e in spans if of_own(s)]
    return kept or spans


def _sides_named(said: str, own: set[str], other: set[str]) -> list[tuple[int, bool]]:
    """Where a sentence names a side, in order, each with whether it is ``own`` (terms):
    by its words' terms, or for Chinese where a side's word stands in the text."""
    if is_cjk(said):
        found = [
            (m.start(), word in own)
            for word in own | other
            for m in re.finditer(re.escape(word), said)
        ]
        return sorted(found)
    named = []
    for word in _WORD_AT.finditer(said):
        said_as = set(terms(word.group(0)))
        if said_as & (own | other):
            named.append((word.start(), bool(said_as & own)))
    return named


def _dates(said: str) -> list[tuple[int, int]]:
    """Where a sentence gives a date (a year, a day; see :data:`research.facts.DATE`) or
    another time (:data:`_ERA`), the words that open a date ("in") left out."""
    spans = []
    for match in DATE.finditer(said):
        if year_of(match) is None:
            continue
        raw = match.group(0)
        inner = _LEADING_WORDS.sub("", raw.strip(" *_—–-")).strip()
        start = match.start() + raw.index(inner)
        spans.append((start, start + len(inner)))
    spans += [
        m.span() for m in _ERA.finditer(said) if not any(s <= m.start() < e for s, e in spans)
    ]
    return spans


def _counts(said: str, question: str) -> list[tuple[int, int]]:
    """Where a sentence gives a quantity (with its unit or what it counts: see
    :func:`research.facts.quantities`), else a number (not a year) with the noun after
    it when the question counts that noun ("two teams" for "how many teams"); a value
    given again in brackets in other units is left out, and so is a length said to be of
    another dimension than the one asked ("100 km away" for "how tall"). Those that count
    what the question counts, or measure what it asks ("1,200 km" for "how long"), come
    first, a length said to be of the dimension asked before one said of none."""
    asked = {stem(t) for t in terms(question)}
    measures = measure_asked(question)
    found = quantities(said)
    other, said_of = _placed(said, found, dimension_asked(question))
    counted = [
        (stem(q.unit) in asked or MEASURES.get(q.unit) in measures, q.start, q.end)
        for q in found
        if q not in other
    ]
    counted.sort(key=lambda c: (c[1], c[2]) not in said_of)
    taken = [(s, e) for _, s, e in counted] + [(q.start, q.end) for q in other]
    counted += _bare_counts(said, asked, taken)
    kept = [
        (named, s, e)
        for named, s, e in counted
        if not (_CONVERSION.match(said[max(0, s - 2) : s]) and _follows_value(said, s, counted))
    ]
    best = [(s, e) for named, s, e in kept if named]
    return best or [(s, e) for _, s, e in kept]


def _placed(
    said: str, found: list[Quantity], dimension: str
) -> tuple[list[Quantity], set[tuple[int, int]]]:
    """For a part asking a ``dimension`` of length, the quantities of a sentence that are
    lengths said to be of another ("3 km away" for "how tall"), which answer nothing, and
    where those said to be of any dimension stand, which come before the lengths said to
    be of none (see :func:`research.facts.dimension_of`); nothing for any other part."""
    if not dimension:
        return [], set()
    placed = {q: dimension_of(said, q.start, q.end) for q in found}
    other = [q for q in found if not placed_in(q, placed[q], dimension)]
    return other, {(q.start, q.end) for q in found if placed[q]}


def _bare_counts(
    said: str, asked: set[str], taken: list[tuple[int, int]]
) -> list[tuple[bool, int, int]]:
    """The numbers of a sentence outside ``taken`` and outside its years, each with
    whether it counts a noun the question counts (then with that noun)."""
    taken = taken + [m.span() for m in DATE.finditer(said) if year_of(m) is not None]
    taken += [m.span() for m in DAY_OF_MONTH.finditer(said)]  # "3 May" counts no mays
    found = []
    for m in _COUNT.finditer(said):
        if any(s <= m.start() < e for s, e in taken):
            continue
        noun = m.group("noun") or ""
        if noun and stem(noun.strip(" -").lower()) in asked:
            found.append((True, m.start(), m.end()))
        else:
            found.append((False, m.start(), m.end() - len(noun)))
    return found


def _follows_value(said: str, at: int, spans: list[tuple[bool, int, int]]) -> bool:
    """Whether a bracket opening right before ``at`` follows another value."""
    return any(0 <= at - e <= 3 for _, _, e in spans)


def gives_answer(focus: Focus, text: str) -> bool:
    """Whether ``text`` gives the kind of answer ``focus`` asks for, as the ranking reads
    it (see :func:`research.features.carried_answer`): a date the question does not
    give for *when*, a number counted as the question counts it for *how many* (see
    :func:`research.features.gives_number`), a name in the role asked or in none for
    *who* and *where* (see :func:`research.names.name_span`); any sentence for the
    other kinds.

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
    if focus.kind in ("who", "where"):
        return bool(name_span(focus.text, focus.kind, text))
    return True
