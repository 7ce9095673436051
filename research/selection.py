"""Which evidence a report quotes: the sentences each part's section gives, the leads
taken in as evidence, and the order a part's evidence is shown to the Host in (the line
that sums a part up is chosen among its section's quotes by :mod:`research.lines`).

Everything here works on plain data: quotes (an evidence id with its address, text and
offset) and each part's scores for them. The Host keeps the ledger and the pages; it
asks this module what to quote.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .facts import states_cause, states_means, years
from .question import weight
from .text import CJK, language, plain, terms

#: A quote in another language than the question's competes at this share of its score.
FOREIGN = 0.8
#: How much a quote counts less when the section already states all of its facts.
REPEATED_FACTS = 0.15
#: Years this close are one period (1887 and 1889; 1914 and 1918).
PERIOD_YEARS = 50
#: A Chinese word at least this rare (see :func:`~research.question.weight`) names a
#: thing: a place, a person, a work.
NAME_WEIGHT = 3.5
#: How alike (rapidfuzz token-set ratio) two sentences are when one repeats the other.
NEAR_DUPLICATE = 88
#: Leads taken in as a part's evidence at most, from one page; each further one only when
#: it ranks at least this share of the first.
PROMOTED, LEAD_SHARE = 3, 0.5
#: A part quotes a source only when its page answers the part at least this share as well
#: as the best page among the part's sources (see :func:`~research.retrieval.bm25`).
PAGE_SHARE = 0.5

_FACT = re.compile(r"\b\d[\d,.]*\b|(?<=\s)[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*|\d+年")


@dataclass(frozen=True)
class Quote:
    """A sentence (or table) that may be quoted: its evidence id, where it is from, its
    text, its offset in its page and the page's own date (ISO 8601, "" when unknown)."""

    key: str
    url: str
    span: str
    start: int = 0
    published: str = ""


def facts_of(span: str) -> set[str]:
    """The names a quote gives, to compare with other quotes."""
    text = plain(span)
    out = {name.lower() for name in _FACT.findall(text) if not name[0].isdigit()}
    if CJK.search(text):  # the names only Chinese words give
        out |= {w for w in terms(text) if CJK.match(w) and len(w) >= 2 and weight(w) >= NAME_WEIGHT}
    return out


#: The most :func:`informative` gives a quote.
MOST_INFORMATIVE = 0.05


def informative(span: str, explaining: str = "") -> float:
    """A small bonus for a quote that gives what its part asks for: facts (dates,
    numbers, named things), or, for a part that asks for a means (see
    :func:`research.answer.explains`), the means or steps it states, whichever is more.
    A stated cause earns no more here (a "because" is too common a word to lift a
    sentence about something else into a *why* part's section); the summary line
    weighs it (see :func:`research.lines.summary_choice`)."""
    facts = min(MOST_INFORMATIVE, 0.01 * len(_FACT.findall(plain(span))))
    means = explaining == "means" and states_means(span)
    return MOST_INFORMATIVE if means else facts


def explained(span: str, explaining: str) -> bool:
    """Whether a quote states what a part asks to be explained: a cause
    (:func:`research.facts.states_cause`) or a means (:func:`research.facts.states_means`)."""
    if explaining == "cause":
        return states_cause(span)
    return explaining == "means" and states_means(span)


def near_duplicate(span: str, seen: Sequence[str]) -> bool:
    """Whether ``span`` says what one of ``seen`` already says (ignoring Markdown)."""
    from rapidfuzz import fuzz

    text = plain(span).lower()
    return any(fuzz.token_set_ratio(text, plain(o).lower()) >= NEAR_DUPLICATE for o in seen)


def _same_period(year: int, seen: list[int]) -> bool:
    return any(abs(year - other) <= PERIOD_YEARS for other in seen)


def select(
    parts: Sequence[str],
    scores: Mapping[str, Mapping[str, float]],
    quotes: Mapping[str, Quote],
    lang: str,
    limit: int,
    pages: Mapping[str, Mapping[str, float]] | None = None,
    explaining: Mapping[str, str] | None = None,
    likelihood: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, list[str]]:
    """The quotes each part's section gives, by part (the summary's line for a part is
    one of them).

    Globally greedy: the best remaining (part, quote) pair is taken first, among the
    pairs of a quote with the part it most likely answers (the highest ``likelihood``,
    then the highest starting value, among the parts whose sections still have room for
    it), so a quote goes to the part it answers best however many quotes that part's
    section already has from its page (a part whose section holds two sentences of a
    page lends the third to no part it answers less); no sentence appears twice in the
    report (a near-duplicate counts as the same); within a section each further quote of
    the same source, and a quote in another language than ``lang``, counts less; a quote
    that gives what its part asks for counts a little more (see :func:`informative`), and
    a quote counts less by the share of its facts the section already states (its names,
    and years within :data:`PERIOD_YEARS` of one already given): a part on how something
    was built is answered by its stages, not by three sentences on the same one. The one
    exception to "no sentence twice": a part's best quote, taken by a part it answers
    better (one sentence can answer two parts), still opens the part's own section.

    Args:
        parts: the parts' ids, in the plan's order.
        scores: each part's relevance score for each quote key.
        quotes: the quotes by key (keys missing here are passed over).
        lang: the report's language.
        limit: quotes per section at most.
        pages: each part's ranking of the sources (by address): a quote from a source
            ranked under :data:`PAGE_SHARE` of the best of the part's sources is left
            out (a page that names the subject in passing, beside the pages about it).
        explaining: what each part asks to be explained (``cause``, ``means``: see
            :func:`research.answer.explains`), or None.
        likelihood: each part's likelihood that a quote holds its answer (the
            sentence model's, see :func:`research.ranking.likelihood`), by key; a key
            without one counts 0.
    """
    pairs = _pair_values(parts, scores, quotes, lang, pages, explaining or {})
    state = _Greedy(parts, quotes, pairs, limit, likelihood or {})
    order = sorted(pairs, key=lambda pair: _stable(pair, quotes))
    while order and not state.done():
        pair = max(state.owned(order) or order, key=state.value)
        order.remove(pair)
        state.take(pair)
    for part, keys in state.chosen.items():
        _open_with_best(part, keys, pairs, quotes, limit)
    return state.chosen


def _pair_values(
    parts: Sequence[str],
    scores: Mapping[str, Mapping[str, float]],
    quotes: Mapping[str, Quote],
    lang: str,
    pages: Mapping[str, Mapping[str, float]] | None,
    explaining: Mapping[str, str],
) -> dict[tuple[str, str], float]:
    """Each (part, quote key) pair's starting value, in the order of ``parts`` and then of
    each part's scores.

    Only the keys :func:`_well_ranked` keeps for a part make pairs; the value is the
    part's score for the key (see :func:`_pair_value`).

    Args:
        parts: the parts' ids, in the plan's order.
        scores: each part's relevance score for each quote key.
        quotes: the quotes by key.
        lang: the report's language.
        pages: each part's ranking of the sources (by address), or None.
        explaining: what each part asks to be explained.

    Returns:
        The value of each pair, keyed by ``(part, key)``.
    """
    pairs: dict[tuple[str, str], float] = {}
    for part in parts:
        kept = _well_ranked(scores.get(part, {}), quotes, (pages or {}).get(part))
        for key, score in scores.get(part, {}).items():
            if key in kept:
                span = quotes[key].span
                pairs[(part, key)] = _pair_value(score, span, lang, explaining.get(part, ""))
    return pairs


def _pair_value(score: float, span: str, lang: str, explaining: str = "") -> float:
    """A quote's starting value for one part.

    Args:
        score: the part's relevance score for the quote.
        span: the quote's text.
        lang: the report's language.
        explaining: what the part asks to be explained (see
            :func:`research.answer.explains`).

    Returns:
        ``score`` plus :func:`informative`'s bonus, times :data:`FOREIGN` when the text's
        language is not ``lang``.
    """
    value = score + informative(span, explaining)
    if language(span) != lang:
        value *= FOREIGN
    return value


def _stable(pair: tuple[str, str], quotes: Mapping[str, Quote]) -> tuple[str, str, int]:
    """The sort key that fixes the order pairs are considered in before any is taken.

    Args:
        pair: a ``(part, key)`` pair whose key is in ``quotes``.
        quotes: the quotes by key.

    Returns:
        The part, then the quote's address path followed by the full address, then the
        quote's offset in its page.
    """
    quote = quotes[pair[1]]
    return (pair[0], urlsplit(quote.url).path + quote.url, quote.start)


class _Greedy:
    """The state of :func:`select`'s greedy pass, and the steps that change it.

    Attributes:
        quotes: the quotes by key.
        pairs: each (part, key) pair's starting value (see :func:`_pair_values`).
        limit: quotes per section at most.
        chosen: each part's quote keys so far, in the order they are shown.
        per_source: how many quotes each (part, address) pair has so far.
        stated: the names (see :func:`facts_of`) each part's quotes give so far.
        periods: the years each part's quotes give so far.
        facts: the names each quote gives, by key.
        dates: the years each quote gives, by key.
        used: the text of every quote taken so far, by any part.
        taken: the keys considered for a section so far (taken or passed over).
    """

    def __init__(
        self,
        parts: Sequence[str],
        quotes: Mapping[str, Quote],
        pairs: Mapping[tuple[str, str], float],
        limit: int,
        likelihood: Mapping[str, Mapping[str, float]],
    ) -> None:
        """Empty sections for ``parts``, and the names and years of every quote."""
        self.quotes = quotes
        self.pairs = pairs
        self.likelihood = likelihood
        self.limit = limit
        self.chosen: dict[str, list[str]] = {p: [] for p in parts}
        self.per_source: dict[tuple[str, str], int] = {}
        self.stated: dict[str, set[str]] = {p: set() for p in parts}
        self.periods: dict[str, list[int]] = {p: [] for p in parts}
        self.facts = {k: facts_of(q.span) for k, q in quotes.items()}
        self.dates = {k: years(q.span) for k, q in quotes.items()}
        self.used: list[str] = []
        self.taken: set[str] = set()

    def value(self, pair: tuple[str, str]) -> float:
        """A pair's value given what its part's section holds now.

        The starting value, less 0.05 times the square of the quotes the section already
        has from the same address, less :data:`REPEATED_FACTS` times the share of the
        quote's names and years the section already gives (a year counts as given when
        one within :data:`PERIOD_YEARS` of it is). A quote that holds one of the
        section's quotes would take its place (see :meth:`take`), so it is weighed
        against the rest of the section: the sentence it adds to the held one is what it
        brings.

        Args:
            pair: a ``(part, key)`` pair of :attr:`pairs`.

        Returns:
            The pair's current value.
        """
        part, key = pair
        repeats = self.per_source.get((part, self.quotes[key].url), 0)
        stated, periods = self._given(part, key)
        said, dated = self.facts[key], self.dates[key]
        known = len(said & stated) + sum(1 for y in dated if _same_period(y, periods))
        share = known / (len(said) + len(dated)) if said or dated else 0.0
        return self.pairs[pair] - 0.05 * repeats**2 - REPEATED_FACTS * share

    def _given(self, part: str, key: str) -> tuple[set[str], list[int]]:
        """The names and years ``part``'s section gives, less those of a quote that
        ``key``'s quote holds (and would replace)."""
        section = self.chosen[part]
        quote = self.quotes[key]
        held = next((k for k in section if _holds(quote, self.quotes[k])), None)
        if held is None:
            return self.stated[part], self.periods[part]
        rest = [k for k in section if k != held]
        stated = set().union(*(self.facts[k] for k in rest))
        return stated, [y for k in rest for y in self.dates[k]]

    def owned(self, order: Collection[tuple[str, str]]) -> list[tuple[str, str]]:
        """The pairs of ``order`` whose part is one its quote most likely answers: the
        highest likelihood, then starting value, among the pairs of ``order`` for that
        quote whose part's section is not full (parts that claim it alike all keep it,
        and the sections' own values decide)."""
        best: dict[str, tuple[float, float]] = {}
        for pair in order:
            if not self.full(pair[0]):
                best[pair[1]] = max(self._claim(pair), best.get(pair[1], (-1.0, -1.0)))
        return [
            pair
            for pair in order
            if not self.full(pair[0]) and best.get(pair[1]) == self._claim(pair)
        ]

    def _claim(self, pair: tuple[str, str]) -> tuple[float, float]:
        """How strongly a part claims a quote: its likelihood, then its starting value."""
        part, key = pair
        return self.likelihood.get(part, {}).get(key, 0.0), self.pairs[pair]

    def full(self, part: str) -> bool:
        """Whether ``part``'s section holds :attr:`limit` quotes."""
        return len(self.chosen[part]) >= self.limit

    def done(self) -> bool:
        """Whether every section is full."""
        return all(self.full(p) for p in self.chosen)

    def take(self, pair: tuple[str, str]) -> None:
        """Consider a pair: its quote replaces one it holds in the section, or joins it.

        A key already considered, or a full section, leaves the state as it is. Otherwise
        the key is marked considered; a quote that holds one of the section's quotes
        (with the sentence that leans on it) takes that one's place; else a quote that
        repeats a taken one (:func:`near_duplicate`) or that one of the section's quotes
        holds is passed over, and any other is added at the section's end.

        Args:
            pair: a ``(part, key)`` pair of :attr:`pairs`.
        """
        part, key = pair
        if key in self.taken or self.full(part):
            return
        quote = self.quotes[key]
        self.taken.add(key)
        section = self.chosen[part]
        held = next((k for k in section if _holds(quote, self.quotes[k])), None)
        if held is not None:
            self._replace(part, held, key)
            return
        if near_duplicate(quote.span, self.used) or any(
            _holds(self.quotes[k], quote) for k in section
        ):
            return
        self._add(part, key)

    def _replace(self, part: str, held: str, key: str) -> None:
        """Put ``key`` in the place of ``held`` in ``part``'s section.

        The quote's text counts as used and its names as stated; the section's years and
        per-address counts are left as they are.
        """
        section = self.chosen[part]
        section[section.index(held)] = key
        self.used.append(self.quotes[key].span)
        self.stated[part] |= self.facts[key]

    def _add(self, part: str, key: str) -> None:
        """Append ``key`` to ``part``'s section.

        The quote's text counts as used, its names as stated and its years as given, and
        its address's count for the part goes up by one.
        """
        quote = self.quotes[key]
        self.chosen[part].append(key)
        self.used.append(quote.span)
        self.stated[part] |= self.facts[key]
        self.periods[part].extend(self.dates[key])
        source = (part, quote.url)
        self.per_source[source] = self.per_source.get(source, 0) + 1


def _open_with_best(
    part: str,
    keys: list[str],
    pairs: Mapping[tuple[str, str], float],
    quotes: Mapping[str, Quote],
    limit: int,
) -> None:
    """Put a part's best quote first in its section when the greedy pass gave it away.

    The best quote is the part's pair with the highest starting value (ties broken by
    :func:`_stable`, then by the order of ``pairs``). Unless ``keys`` has it, or has a
    quote that holds it, it is inserted first and ``keys`` is cut to ``limit``.

    Args:
        part: the part.
        keys: the part's section, changed in place.
        pairs: each (part, key) pair's starting value.
        quotes: the quotes by key.
        limit: quotes per section at most.
    """
    # a part whose best quote went to a part it answers better still quotes it first:
    # a part's best answer is never withheld from its own section
    own = [p for p in pairs if p[0] == part]
    if not own:
        return
    top = min(own, key=lambda p: (-pairs[p], _stable(p, quotes)))[1]
    if top in keys or any(_holds(quotes[k], quotes[top]) for k in keys):
        return
    keys.insert(0, top)
    del keys[limit:]


def _well_ranked(
    scores: Mapping[str, float], quotes: Mapping[str, Quote], ranking: Mapping[str, float] | None
) -> set[str]:
    """The keys of ``scores`` (with a quote) whose source ranks at least
    :data:`PAGE_SHARE` of the best one among them (all of them without a ranking)."""
    keys = {k for k in scores if k in quotes}
    if not ranking:
        return keys
    top = max((ranking.get(quotes[k].url, 0.0) for k in keys), default=0.0)
    return {k for k in keys if ranking.get(quotes[k].url, 0.0) >= PAGE_SHARE * top}


def _holds(outer: Quote, inner: Quote) -> bool:
    """Whether ``outer`` quotes all of ``inner`` and more, from the same page."""
    return (
        outer.url == inner.url
        and outer.start <= inner.start
        and inner.start + len(inner.span) <= outer.start + len(outer.span)
        and len(outer.span) > len(inner.span)
    )


def best(scores: Mapping[str, float], urls: Mapping[str, str], limit: int) -> list[str]:
    """A part's best quote keys, alternating between sources (``urls`` gives each key's
    source; keys without one are passed over)."""
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    by_source: dict[str, list[str]] = {}
    for key, _ in ranked:
        if key in urls:
            by_source.setdefault(urls[key], []).append(key)
    out: list[str] = []
    while len(out) < limit and any(by_source.values()):
        for keys in by_source.values():
            if keys and len(out) < limit:
                out.append(keys.pop(0))
    return out


def promote(
    leads: Sequence[Mapping[str, Any]],
    pages: Mapping[str, float] | None = None,
    rivals: Collection[str] = (),
) -> list[Mapping[str, Any]]:
    """The leads a part takes in as evidence, all from one source: the page that answers
    the part best among those with leads (by ``pages``, each page's ranking for the part,
    see :func:`~research.retrieval.bm25`; then by its best lead's score); there, its best
    lead by ``rank`` (the order of a page's own sentences, see
    :attr:`~research.relevance.Scored.rank`), and the next ones when they rank at least
    :data:`LEAD_SHARE` of the first (at most :data:`PROMOTED`). Each lead has its
    ``score``, ``page_path`` and ``start``, and may have its ``rank`` (else its score
    stands for it). Ranks are compared only within a page: each page's best sentence has
    the whole of its page-local share. ``rivals`` are the pages that answer the part with
    evidence over the threshold: when one of them ranks above every page with leads, the
    part needs no lead and takes none."""
    if not leads:
        return []

    def rank(lead: Mapping[str, Any]) -> float:
        return float(lead.get("rank", lead["score"]))

    ranking = pages or {}
    best = min(
        leads,
        key=lambda v: (-ranking.get(v["page_path"], 0.0), -v["score"], v["page_path"], v["start"]),
    )
    if any(ranking.get(p, 0.0) > ranking.get(best["page_path"], 0.0) for p in rivals):
        return []
    same = sorted(
        (v for v in leads if v["page_path"] == best["page_path"]),
        key=lambda v: (-rank(v), v["start"]),
    )[:PROMOTED]
    return [r for r in same if rank(r) >= LEAD_SHARE * rank(same[0])]
