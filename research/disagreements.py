"""Where the sources disagree: the same quantity or date given differently by different
sources.

Every complete sentence of the sources read is searched for the values it gives: a
quantity with its unit or what it counts ("about 1,800 km", "3.2 million people", "40%",
"12 ships", "约1,160至1,190公里", see :func:`research.facts.quantities`) and a date
(:func:`research.facts.years`). Two values are about the same thing when they are of one
measure and unit and lie close together: within 10 %; for a date, within a twentieth of
the years since it (:data:`DATE_PRECISION`: a recent date is known to the year, an old
one less closely) and never more than :data:`DATE_SPAN` years. A length, an area or a
weight needs no more: the pages read are about the question, and "1,160 km" beside
"1,200 km" is one route measured twice. A count, a share, an amount or a date also needs
the clauses that give them to say the same about it: they share at least two content
words besides the question's subject, and half of the shorter clause's
(:data:`SAME_CLAUSE`). So "completed in 1887" and "completed in 1889" are one date given
twice, while "construction began in 1901" and "was completed in 1905" are two dates.

Values are grouped only when every two of a group are about the same thing (one close to
the next is not enough: on a long page, 2003, 2007 and 2012 are not one date), and a
source gives one figure for one thing: two values it gives as its own that do not agree
are of two things, never one group.

A sentence that gives figures as others give them ("some older works give 80 km", "is
sometimes given as", "according to", 有人认为, 一说; see
:func:`research.facts.reports_others`) is no citation for any of them as the source's
own: it is an *account*, kept whole, and its values join the group of the sources' own
values they are about (or are grouped among themselves when there is none). A group is
a disagreement when values two sources give as their own do not agree (ranges that do
not overlap), or when an account gives a value that does not agree with another of the
group. Every value of the sources' own is kept with the sentence that gives it best: one
in the report's language when there is one (a reader reads it), alone when one does, and
one that does not lean on the sentence before it, so that each citation says what it is
cited for; each account is kept once, in the first disagreement it belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache

from .document import Document
from .facts import (
    DATE,
    MEASURES,
    UNITS,
    Quantity,
    dimension_of,
    leans_on_context,
    points_back,
    quantities,
    reports_others,
    year_of,
)
from .relevance import quote_bounds
from .text import (
    CJK,
    STOP_WORDS,
    Sentence,
    language,
    passages,
    plain,
    reading,
    terms,
    words,
)

#: Values within this ratio of each other may be one quantity given differently.
SAME_QUANTITY = 1.1
#: Dates at most this many years apart may be one date given differently…
DATE_SPAN = 10
#: …and at most this share of the years since the later of them (at least one year).
DATE_PRECISION = 0.05
_THIS_YEAR = date.today().year
#: The share of the shorter clause's content words two clauses share to be about one
#: thing; they must share at least :data:`SHARED_WORDS` of them.
SAME_CLAUSE = 0.5
SHARED_WORDS = 2
#: How the report names what a unit measures.
_MEASURES = {**MEASURES, "year": "date"}
#: Measures whose unit says what is measured: close values of one are one quantity.
_PHYSICAL = ("length", "area", "weight")
#: Measures of a thing itself, which the report may name as its subject's ("the river's
#: length"); a date, a count or a share is of something the clauses say, not of it.
_OF_A_THING = frozenset({*_PHYSICAL, "height", "depth"})
NAMES = {
    "en": {
        "length": "the length",
        "height": "the height",
        "depth": "the depth",
        "area": "the area",
        "weight": "the weight",
        "share": "the share",
        "amount": "the amount",
        "date": "the date",
        "count": "the number",
    },
    "zh": {
        "length": "全长",
        "height": "高度",
        "depth": "深度",
        "area": "面积",
        "weight": "重量",
        "share": "比例",
        "amount": "金额",
        "date": "时间",
        "count": "数量",
    },
}
#: Units as Chinese writes them after a number.
ZH_UNITS = {
    "km": "公里",
    "mi": "英里",
    "m": "米",
    "cm": "厘米",
    "mm": "毫米",
    "ft": "英尺",
    "km²": "平方公里",
    "m²": "平方米",
    "mi²": "平方英里",
    "ha": "公顷",
    "kg": "公斤",
    "t": "吨",
    "people": "人",
    "yuan": "元",
}


@cache
def _unit_terms() -> frozenset[str]:
    """The words of units, which say nothing of what is measured (read as English words
    are, whatever the run reads in; made on first use, as cutting the Chinese ones loads
    jieba's dictionary, which a run that meets no Chinese never needs)."""
    with reading("en"):
        return frozenset(t for w in [*UNITS, "percent", "cent", "per"] for t in terms(w))


_CLAUSE = re.compile(r"[,;:，；：。!?！？]")
#: Words that join two parts of a clause, each of which may give its own value.
_JOIN = re.compile(r"\s(?:and|or|while|whereas|but)\s|[和及与而或]", re.I)


@dataclass(frozen=True)
class Stored:
    """A source's stored text, as the core reads it: where it is and what it says."""

    path: str
    url: str
    text: str


@dataclass
class Claim:
    """One value for a quantity or date, as a source gives it, with the sentence that
    gives it (``path``, ``start``, ``end``; ``ev_id`` once the caller has it cited)."""

    text: str
    low: float
    high: float
    unit: str
    ev_id: str = ""
    url: str = ""
    about: bool = False  # "about 1,800 km": a round figure
    alone: bool = True  # the sentence gives no other value of this kind
    lang: str = "en"  # the language of the sentence
    leans: bool = False  # the sentence leans on the one before it ("They …", "此…")
    path: str = ""
    start: int = 0
    end: int = 0
    section: str = ""
    clause: frozenset[str] = frozenset()  # the content words of the clause that gives it
    reported: bool = False  # the sentence gives figures as others give them: an account


@dataclass
class Disagreement:
    """A quantity the sources give differently: each value a source gives as its own,
    with its citation (``claims``; none when only an account disagrees), and the
    sentences that tell how others give it (``accounts``, one claim each, quoted whole)."""

    measure: str
    unit: str
    claims: list[Claim] = field(default_factory=list)
    accounts: list[Claim] = field(default_factory=list)

    @property
    def of_a_thing(self) -> bool:
        """Whether it measures a thing itself (a length, an area, a height), which the
        report may name as its subject's ("the river's length")."""
        return self.measure in _OF_A_THING


def _clause(sentence: str, at: int, others: Sequence[int] = ()) -> frozenset[str]:
    """The content words of the clause of ``sentence`` holding offset ``at``, numbers left
    out. A clause that gives other values of the kind (at ``others``) is cut at a joining
    word between them: in "the North Quay (1801) and the South Quay (1806) were rebuilt",
    1801 is the North Quay's and 1806 the South Quay's."""
    cuts = [0, *(m.end() for m in _CLAUSE.finditer(sentence)), len(sentence)]
    begin = max(c for c in cuts if c <= at)
    end = min((c for c in cuts if c > at), default=len(sentence))
    joins = [m.start() for m in _JOIN.finditer(sentence, begin, end)]
    for other in (o for o in others if begin <= o < end and o != at):
        between = [j for j in joins if min(other, at) < j < max(other, at)]
        if between and other < at:
            begin = max(begin, max(between))
        elif between:
            end = min(end, min(between))
    units = _unit_terms()
    return frozenset(t for t in _content(sentence[begin:end]) if t not in units)


def _content(text: str) -> list[str]:
    """The content words of ``text``, each once (Chinese cut once, not into the shorter
    words inside a long one, and single characters left out), numbers left out."""
    found = []
    for word in words(text):
        if CJK.match(word):
            if len(word) > 1 and word not in STOP_WORDS:
                found.append(word)
        else:
            found += [t for t in terms(word) if not t[0].isdigit()]
    return found


def _measures(said: str, found: Sequence[Quantity]) -> dict[Quantity, str]:
    """What each quantity ``found`` in the sentence ``said`` measures, as the report names
    it: a length its clause says is a height or a depth is one (see
    :func:`research.facts.dimension_of`), and so is a length no words place in a sentence
    whose other length they do (塔高约86米，也有资料记为88米: two heights)."""
    placed = {
        q: dimension_of(said, q.start, q.end) for q in found if _MEASURES.get(q.unit) == "length"
    }
    sentence = next((d for d in placed.values() if d), "")
    out = {}
    for q in found:
        dimension = (placed[q] or sentence) if q in placed else ""
        out[q] = dimension if dimension in ("height", "depth") else _MEASURES.get(q.unit, "count")
    return out


def _sentence_claims(stored: Stored, sentence: Sentence) -> list[tuple[str, Claim]]:
    """``(measure, claim)`` for every value one sentence gives."""
    said = plain(sentence.text)
    common = {
        "url": stored.url,
        "lang": language(said),
        "leans": leans_on_context(said),
        "reported": reports_others(said),
        "path": stored.path,
        "start": sentence.start,
        "end": sentence.end,
        "section": sentence.section,
    }
    found: list[tuple[str, Claim]] = []
    given = quantities(said)
    measures = _measures(said, given)
    amounts = [q for q in given if q.high >= 10 or q.unit == "%"]
    for q in amounts:
        measure = measures[q]
        kind = [o.start for o in amounts if measures[o] == measure]
        claim = Claim(q.text, q.low, q.high, q.unit, about=q.about, alone=len(kind) == 1, **common)
        claim.clause = _clause(said, q.start, kind)
        found.append((measure, claim))
    dates = [(m, y) for m in DATE.finditer(said) if (y := year_of(m)) is not None]
    for match, year in dates:
        claim = Claim(str(year), year, year, "year", alone=len(dates) == 1, **common)
        claim.clause = _clause(said, match.start(), [m.start() for m, _ in dates])
        found.append(("date", claim))
    return found


def claims_in(sources: Sequence[Stored], subject: str = "") -> list[tuple[str, Claim]]:
    """``(measure, claim)`` for every value the complete sentences of ``sources`` give;
    the words of ``subject`` (what the question is about, named on every page read) are
    left out of the clauses compared."""
    named = frozenset(_content(subject))
    out = []
    for stored in sources:
        doc: Document | None = None
        for sentence in passages(stored.text):
            if not sentence.complete:
                continue
            found = _sentence_claims(stored, sentence)
            if found and points_back(sentence.text):
                doc = doc or Document.of(stored.text, "")
                bounds = _carried(doc, sentence)
                for _, claim in found:
                    claim.start, claim.end = bounds
            for measure, claim in found:
                claim.clause -= named
                out.append((measure, claim))
    return out


def _carried(doc: Document, sentence: Sentence) -> tuple[int, int]:
    """Where a quote of a sentence whose pronoun points back starts and ends: with the
    sentence it stands for when there is one (see :func:`research.relevance.quote_bounds`),
    so that the value is cited by words that say what it is of."""
    own = next((s for s in doc.sentences if s.start == sentence.start), None)
    return quote_bounds(doc, own) if own is not None else (sentence.start, sentence.end)


def _agree(a: Claim, b: Claim) -> bool:
    """Two values that say the same (ranges overlap, a round figure within 0.5 %)."""
    if a.unit == "year":
        return a.low == b.low
    return a.low <= b.high * 1.005 and b.low <= a.high * 1.005


def _close(a: Claim, b: Claim) -> bool:
    """Whether two values are near enough to be one thing given differently (for dates,
    see :data:`DATE_PRECISION`)."""
    low, high = sorted((a.low, b.low))
    if a.unit == "year":
        span = min(DATE_SPAN, max(1.0, (_THIS_YEAR - high) * DATE_PRECISION))
        return high - low <= span
    return low > 0 and high <= low * SAME_QUANTITY


def _same_thing(a: Claim, b: Claim) -> bool:
    """Whether two close values of one unit (see :func:`_close`) are about the same thing
    (see the module's text): of a unit of measure on the pages read they are (a length,
    an area); a count, a share, an amount or a date needs its clause to say the same."""
    if _MEASURES.get(a.unit) in _PHYSICAL:
        return True
    shared = len(a.clause & b.clause)
    shorter = min(len(a.clause), len(b.clause))
    return shared >= SHARED_WORDS and shared / shorter >= SAME_CLAUSE


def find_disagreements(
    sources: Sequence[Stored], lang: str = "en", subject: str = ""
) -> list[Disagreement]:
    """Every quantity or date ``sources`` give differently, largest groups first; each
    value kept with the sentence that gives it best (alone, in ``lang``), each account
    once. ``subject`` is what the question is about (see :func:`claims_in`)."""
    groups: dict[tuple[str, str], list[Claim]] = {}
    for measure, claim in claims_in(sources, subject):
        groups.setdefault((measure, claim.unit), []).append(claim)
    found: list[Disagreement] = []
    for (measure, unit), claims in groups.items():
        for cluster in _clusters(claims):
            disagreement = _disagreement(measure, unit, cluster, lang)
            if disagreement is not None:
                found.append(disagreement)
    found.sort(key=lambda d: (-len(d.claims) - len(d.accounts), d.measure, _first(d).low))
    return _accounts_once(found)


def _first(found: Disagreement) -> Claim:
    """The claim a disagreement is ordered by: its first value, else its first account."""
    return (found.claims or found.accounts)[0]


def _accounts_once(found: list[Disagreement]) -> list[Disagreement]:
    """``found`` with each account sentence kept in the first disagreement only (one
    sentence may tell of two measures); a disagreement left with nothing is dropped."""
    shown: set[tuple[str, int]] = set()
    kept = []
    for disagreement in found:
        disagreement.accounts = [a for a in disagreement.accounts if _where(a) not in shown]
        shown |= {_where(a) for a in disagreement.accounts}
        if disagreement.claims or disagreement.accounts:
            kept.append(disagreement)
    return kept


def _where(claim: Claim) -> tuple[str, int]:
    """The sentence that gives a claim: its source and offset."""
    return claim.path, claim.start


def _own_pair(a: Claim, b: Claim) -> bool:
    """Whether one source gives both values as its own and they do not agree: a source
    gives one figure for one thing, so these are two things."""
    return a.url == b.url and not a.reported and not b.reported and not _agree(a, b)


def _fits(claim: Claim, group: list[Claim]) -> bool:
    """Whether ``claim`` is about the same thing as every claim of ``group``."""
    return all(
        _close(m, claim) and _same_thing(m, claim) and not _own_pair(m, claim) for m in group
    )


def _clusters(claims: list[Claim]) -> list[list[Claim]]:
    """The groups of claims about one thing, each in value order: the values sources give
    as their own, grouped so that every two of a group are about the same thing (see
    :func:`_grouped`); then each value an account gives joins the first group whose own
    values it fits, and those that fit none are grouped among themselves."""
    groups = _grouped([c for c in claims if not c.reported])
    left = []
    for claim in sorted((c for c in claims if c.reported), key=_order):
        home = next((g for g in groups if _fits(claim, [m for m in g if not m.reported])), None)
        if home is None:
            left.append(claim)
        else:
            home.append(claim)
    return [sorted(g, key=_order) for g in [*groups, *_grouped(left)] if len(g) > 1]


def _order(claim: Claim) -> tuple[float, float, str, int]:
    return claim.low, claim.high, claim.url, claim.start


def _grouped(claims: list[Claim]) -> list[list[Claim]]:
    """``claims`` in groups every two of which are about the same thing (see
    :func:`_fits`): in value order, each joins the first group it fits, or starts one. A
    group whose smallest value is no longer close takes no later claim."""
    done: list[list[Claim]] = []
    open_groups: list[list[Claim]] = []
    for claim in sorted(claims, key=_order):
        done += [g for g in open_groups if not _close(g[0], claim)]
        open_groups = [g for g in open_groups if _close(g[0], claim)]
        home = next((g for g in open_groups if _fits(claim, g)), None)
        if home is None:
            open_groups.append([claim])
        else:
            home.append(claim)
    return [*done, *open_groups]


def _ranked(claims: list[Claim], lang: str) -> list[Claim]:
    """Claims, the best citation first: a sentence in ``lang`` (before one in another
    language), then one that gives its value alone, then one that does not lean on the
    sentence before it ("They do not add up to …")."""
    return sorted(claims, key=lambda c: (c.lang != lang, not c.alone, c.leans))


def _disagreement(
    measure: str, unit: str, cluster: list[Claim], lang: str = "en"
) -> Disagreement | None:
    """The distinct values of one quantity the sources give as their own (one claim
    each) and the accounts that tell of it, if they disagree (see the module's text).

    Args:
        measure: what the values measure ("length", "date", "count").
        unit: their unit.
        cluster: the claims about one thing (see :func:`_clusters`).
        lang: the report's language, whose sentences are cited first.

    Returns:
        The disagreement, or None when the values agree.
    """
    own = [c for c in cluster if not c.reported]
    disputed = any(
        a.url != b.url and not _agree(a, b) for i, a in enumerate(own) for b in own[i + 1 :]
    )
    telling = [
        a for a in cluster if a.reported and any(b is not a and not _agree(a, b) for b in cluster)
    ]
    if not disputed and not telling:
        return None  # no two sources give values that do not agree, and no account does
    values: dict[tuple[float, float], Claim] = {}
    for claim in _ranked(own, lang) if disputed else []:
        values.setdefault((claim.low, claim.high), claim)
    accounts: dict[tuple[str, int], Claim] = {}
    for claim in _ranked(telling, lang):
        accounts.setdefault(_where(claim), claim)
    return Disagreement(measure, unit, [values[k] for k in sorted(values)], list(accounts.values()))


def _number(value: float) -> str:
    return f"{value:,.0f}" if value == int(value) else f"{value:,}"


def value_text(claim: Claim, lang: str) -> str:
    """A value as the report's language writes it: "about 1,160–1,190 km",
    "约1,160–1,190公里", "221 BC", "公元前221年"."""
    if claim.unit == "year":
        year = int(claim.low)
        if lang == "zh":
            return f"公元前{-year}年" if year < 0 else f"{year}年"
        return f"{-year} BC" if year < 0 else str(year)
    low, high = _number(claim.low), _number(claim.high)
    number = low if low == high else f"{low}–{high}"
    if lang == "zh":
        unit = ZH_UNITS.get(claim.unit, claim.unit)
        return f"{'约' if claim.about else ''}{number}{unit}"
    unit = claim.unit if claim.unit in ("%",) else f" {claim.unit}"
    if claim.unit in ("$", "€", "£", "¥"):
        return f"{'about ' if claim.about else ''}{claim.unit}{number}"
    return f"{'about ' if claim.about else ''}{number}{unit}"


def measure_name(found: Disagreement, lang: str) -> str:
    """What a disagreement is about, as the report names it: "the length", "面积", "the
    number of ships", 船数, or 数量（ships） for a count an English source gives."""
    names = NAMES.get(lang, NAMES["en"])
    if found.measure == "count" and lang != "zh":
        return f"the number of {_plural(found.unit)}"
    if found.measure == "count":
        unit = ZH_UNITS.get(found.unit, found.unit)
        # a counted noun an English source gives is named, not mixed into Chinese words
        return f"{unit}数" if CJK.match(unit) else f"数量（{_plural(unit)}）"
    return names.get(found.measure, found.measure)


def _plural(noun: str) -> str:
    if noun in ("people", "men", "women", "children") or noun.endswith("s"):
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
