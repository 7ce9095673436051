"""A part's answer line: which of the quotes its section gives opens its answer.

The summary at the top of a report gives each part one line (see :mod:`research.notes`):
the quote a reader who reads nothing else should read. It is chosen from the part's
section in two steps.

- **What a line must be.** A quote in the report's language, one that stands alone (no
  pronoun or pointing word standing for something it does not name: see
  :func:`research.facts.points_back`), each while another candidate is left. A part
  asking for the first or the latest date takes the dated candidate in that order, a
  candidate dated by its sentence's years or else by its page's own date
  (:func:`research.answer.in_order_asked`), of those that are also evidence by
  themselves, not only as one of the best sentences of a page that answers the part
  (see :func:`_on_its_own`), and give the kind of answer asked (a date, a figure, a
  name: see :func:`research.answer.gives_answer`). The hand-set weighing requires
  these two as well, in turn while a candidate is left, and a line that says what a
  thing is for a part asking only that (see :func:`research.answer.defines`:
  :func:`_qualified`); the line model weighs all three as features.
- **Which of the rest answers.** For a part asking for a span (a date, a figure, a
  name, a place or a person: :func:`asks_span`) or what a thing is called
  (:func:`research.answer.asks_name`; both: :func:`model_chooses`), the line model:
  gradient-boosted trees over the named features of :func:`line_features`, read from
  :data:`LINE_PATH`. The
  training script, ``scripts/train_lines.py``, runs the research-shaped questions of the
  benchmarks' tune halves through the offline pipeline under the default core, takes
  each part's candidates as the run gave them, and fits the trees to whether each holds
  the part's gold answer. Those questions are reading-comprehension questions, each
  answered by a span: a part asking why, how, or what a thing is or does is answered
  by a sentence that explains or describes, which they do not teach, and its line is
  the hand-set weighing's (:func:`_rules_line`), as every part's is with
  ``QUARTET_LINES=rules``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path

from .answer import (
    answer_span,
    asks_name,
    defined,
    defines,
    explains,
    gives_answer,
    in_order_asked,
    sure_span,
    wanted,
)
from .facts import has_date, names_subject, points_back
from .names import nearness
from .question import Focus
from .ranking import ALONE, Features, Trees, model, trees_from_dict
from .relevance import LEARNED, evidence_threshold, score_text
from .selection import Quote, explained
from .text import grams, language, plain, terms

#: Whether a part asking for a span has its answer line chosen by the line model
#: (``QUARTET_LINES=learned``, the default) or, as every other part, by the hand-set
#: weighing (``rules``: to measure the two apart).
LINES_LEARNED = os.environ.get("QUARTET_LINES", "learned") == "learned"
#: The line model's file, written by ``scripts/train_lines.py``.
LINE_PATH = Path(__file__).resolve().parent / "model" / "line.json"
#: What the line model reads of a candidate, among the part's candidates (see
#: :func:`line_features`).
LINE_FEATURES = (
    "score",
    "score_gap",
    "first",
    "position",
    "likelihood",
    "likelihood_gap",
    "alone",
    "alone_gap",
    "facets_own",
    "facets_said",
    "words",
    "grams",
    "explains",
    "names_subject",
    "typed",
    "gives",
    "sure",
    "span",
    "span_near",
    "length",
    "on_its_own",
    "defines",
)


def line_features(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    likelihood: Mapping[str, float] | None = None,
) -> list[dict[str, float]]:
    """What the line model reads of each of a part's candidates, in their order:

    - ``score``: the part's relevance score of the quote, and ``score_gap``, how far it
      is under the best candidate's;
    - ``first``, ``position``: it opens the section; its place there, from 0 to 1;
    - ``likelihood``: the probability the sentence model gives that the sentence holds
      the part's answer (:func:`research.ranking.model`; 0 when the run has none), and
      ``likelihood_gap``;
    - ``alone``: the quote's relevance read alone, without its page (see
      :func:`research.relevance.score_text`), and ``alone_gap``;
    - ``facets_own``, ``facets_said``: the share of the part's facets it says by their
      own words, or with the equivalents the planner gave;
    - ``words``, ``grams``: the share of the part's words, and of the question's
      character grams (:func:`research.text.grams`), the quote says;
    - ``explains``: it states the cause or the means a *why* or *how* part asks for
      (:func:`research.answer.explains`);
    - ``names_subject``: it names the part's subject itself;
    - ``typed``: the part asks for a span (:func:`asks_span`); ``gives``: the quote gives
      that kind; ``sure``: it surely does (:func:`research.answer.sure_span`); ``span``:
      it has a span to show in bold, and ``span_near``, how near that span stands to the
      question's words (1 beside one);
    - ``length``: the log of its length in characters;
    - ``on_its_own``: it is evidence for the part by itself (see :func:`_on_its_own`);
    - ``defines``: the part asks only what a thing is, and the quote says what it is (see
      :func:`research.answer.defines`).

    Args:
        focus: the part.
        candidates: its quotes with their scores, in the section's order.
        likelihood: the sentence model's probability per quote key.

    Returns:
        One mapping of feature to value per candidate.
    """
    likely = likelihood or {}
    top = max((s for _, s in candidates), default=0.0)
    alone = [score_text(focus, q.span) for q, _ in candidates]
    chance = [likely.get(q.key, 0.0) for q, _ in candidates]
    last = max(1, len(candidates) - 1)
    strong = _on_its_own(focus, candidates, likely)
    return [
        {
            "score": score,
            "score_gap": score - top,
            "first": float(i == 0),
            "position": i / last,
            "likelihood": chance[i],
            "likelihood_gap": chance[i] - max(chance),
            "alone": alone[i],
            "alone_gap": alone[i] - max(alone),
            **_own(focus, quote.span),
            "on_its_own": float(strong[i]),
        }
        for i, (quote, score) in enumerate(candidates)
    ]


def _own(focus: Focus, span: str) -> dict[str, float]:
    """The features of a candidate read from its text alone (see :func:`line_features`)."""
    typed = asks_span(focus)
    thing = defined(focus)
    return {
        **_said(focus, span),
        "explains": float(explained(span, explains(focus))),
        "names_subject": float(names_subject(span, focus.core)),
        "typed": float(typed),
        "gives": float(typed and gives_answer(focus, span)),
        "sure": float(bool(sure_span(focus, span))),
        **_span(focus, span),
        "length": math.log1p(len(span)),
        "defines": float(bool(thing) and defines(thing, span)),
    }


def _said(focus: Focus, span: str) -> dict[str, float]:
    """The shares of the part's facets, words and question grams ``span`` says."""
    said = set(terms(span))
    own, says = _facet_shares(focus, said)
    asked = grams(focus.text)
    return {
        "facets_own": own,
        "facets_said": says,
        "words": len(set(focus.words) & said) / max(1, len(set(focus.words))),
        "grams": len(asked & grams(span)) / max(1, len(asked)),
    }


def _facet_shares(focus: Focus, said: set[str]) -> tuple[float, float]:
    """The shares of the part's facets the terms ``said`` say by their own words, and by
    their words or the equivalents the planner gave."""
    n = max(1, len(focus.facets))
    own = sum(f.term in said for f in focus.facets) / n
    return own, sum(f.term in said or bool(f.equivalents & said) for f in focus.facets) / n


def asks_span(focus: Focus) -> bool:
    """Whether a part asks for a span of a sentence: a date or a figure (see
    :func:`research.answer.wanted`), a person or a place."""
    return bool(wanted(focus)) or focus.kind in ("who", "where")


def model_chooses(focus: Focus) -> bool:
    """Whether the line model chooses a part's line: it asks for a span (:func:`asks_span`)
    or for what a thing is called (:func:`research.answer.asks_name`), answered by a name."""
    return asks_span(focus) or asks_name(focus)


def _span(focus: Focus, span: str) -> dict[str, float]:
    """Whether ``span`` has an answer span to show, and how near the question's words."""
    shown = answer_span(focus, span)
    text = plain(span)
    if not shown or shown not in text:
        return {"span": float(bool(shown)), "span_near": 0.0}
    start = text.index(shown)
    far = nearness(text, start, start + len(shown), focus.text)
    return {"span": 1.0, "span_near": 1.0 / (1.0 + far)}


def likelihood(features: Features) -> float:
    """The probability the sentence model (:func:`research.ranking.model`) gives that a
    sentence with these features (see :func:`research.features.features_of`) holds its
    part's answer, its page weighed as the only one read."""
    return model().score(features | ALONE) if features else 0.0


@cache
def line_model() -> Trees:
    """The committed line model (read once)."""
    raw = json.loads(LINE_PATH.read_text(encoding="utf-8"))
    return trees_from_dict(raw, LINE_FEATURES)


def line_pool(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
) -> list[int]:
    """The indices of the candidates the line model may choose, and is fitted on: those
    :func:`_trusted` keeps (for a *why* or *how* part, stating the cause or the means it
    asks for), less, for a part asking for a date or a figure, the candidates that are
    evidence by themselves (see :func:`_on_its_own`) but give none, when another that
    is evidence by itself gives one ("many towers" beside "37 towers").

    Whether a candidate is evidence by itself, gives the kind of answer asked or says
    what a thing is, the model weighs (see :func:`line_features`). As tests each while a
    candidate is left, as the hand-set weighing applies them, they would keep from the
    pool the candidate holding the answer for three parts in a hundred of the training
    questions (see ``scripts/train_lines.py``); requiring the kind asked of every
    candidate would lose the line of six parts asking how many in a hundred.
    """
    quotes = [q for q, _ in candidates]
    pool = _narrowed(_trusted(lang, explains(focus)), quotes)
    if not wanted(focus):
        return pool
    own = _on_its_own(focus, candidates, likelihood or {})
    giving = {i for i in pool if own[i] and gives_answer(focus, quotes[i].span)}
    return [i for i in pool if i in giving or not own[i]] if giving else pool


def _qualified(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
) -> list[int]:
    """The candidates the hand-set weighing may choose: those :func:`_line_tests` keep
    and, for a part asking what a thing is, saying what it is (see
    :func:`research.answer.defines`), each while one is left."""
    thing = defined(focus)
    tests = _line_tests(focus, candidates, lang, likelihood)
    tests.append(lambda q: not thing or defines(thing, q.span))
    return _narrowed(tests, [q for q, _ in candidates])


def _line_tests(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
    explaining: str = "",
) -> list[Callable[[Quote], bool]]:
    """What a line must be, tested in turn while a candidate is left: what
    :func:`_trusted` tests, then evidence by itself (see :func:`_on_its_own`) and giving
    the kind of answer asked (a date, a figure, a name: see
    :func:`research.answer.gives_answer`)."""
    own = _on_its_own(focus, candidates, likelihood or {})
    strong = {q.key for (q, _), ok in zip(candidates, own, strict=True) if ok}
    return [
        *_trusted(lang, explaining),
        lambda q: q.key in strong,
        lambda q: gives_answer(focus, q.span),
    ]


def _trusted(lang: str, explaining: str = "") -> list[Callable[[Quote], bool]]:
    """What any line must be, tested in turn while a candidate is left: in the report's
    language, standing alone (see :func:`research.facts.points_back`), and stating what
    ``explaining`` names (a cause, a means; see :func:`research.answer.explains`) when it
    names one."""
    return [
        lambda q: language(q.span) == lang,
        lambda q: not points_back(q.span),
        lambda q: not explaining or explained(q.span, explaining),
    ]


def _narrowed(keeps: Sequence[Callable[[Quote], bool]], quotes: Sequence[Quote]) -> list[int]:
    """The indices of ``quotes`` each of ``keeps`` keeps in turn, a test that would keep
    none being passed over."""
    pool = list(range(len(quotes)))
    for keep in keeps:
        pool = [i for i in pool if keep(quotes[i])] or pool
    return pool


def _on_its_own(
    focus: Focus, candidates: Sequence[tuple[Quote, float]], likelihood: Mapping[str, float]
) -> list[bool]:
    """Whether each candidate is evidence for the part by itself, not only as one of the
    best sentences of a page that answers it: under the learned core, the sentence
    model's probability (its page weighed as the only one read), else its score, reaches
    the part's evidence threshold (see :func:`research.relevance.evidence_threshold`).
    A page that answers one part of a question lends every part its best sentences, and
    a figure or a date among them must not become a part's line for giving the kind of
    answer asked while the sentence that answers it gives another."""
    bar = evidence_threshold(focus)
    if LEARNED:
        return [likelihood.get(q.key, 0.0) >= bar for q, _ in candidates]
    return [score >= bar for _, score in candidates]


def summary_choice(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
) -> str | None:
    """The candidate that best answers a part on its own, for the summary line (its key):
    for a part asking for a span or for what a thing is called, the one in the order a
    part asking for the first or the latest date asks (see :func:`line_in_order`), else
    the one the line model scores highest of those it may choose (:func:`line_pool`);
    for any other part, the hand-set weighing's (:func:`hand_set_line`; see the module
    and :data:`LINES_LEARNED`).

    Args:
        focus: the part.
        candidates: its quotes with their scores, in the section's order.
        lang: the report's language.
        likelihood: the sentence model's probability per quote key (see
            :func:`line_features`).
    """
    if not candidates:
        return None
    if not (LINES_LEARNED and model_chooses(focus)):
        return candidates[hand_set_line(focus, candidates, lang, likelihood)][0].key
    ordered = line_in_order(focus, candidates, lang, likelihood)
    if ordered is not None:
        return candidates[ordered][0].key
    rows = line_features(focus, candidates, likelihood)
    pool = line_pool(focus, candidates, lang, likelihood)
    return candidates[best_line(line_model(), rows, pool)][0].key


def line_in_order(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
) -> int | None:
    """The index of the candidate a part asking for the first or the latest date takes
    as its line, of those :func:`_line_tests` keep (a date is only taken from a quote that
    is evidence for the part by itself); None when it asks no order or none is dated."""
    tests = _line_tests(focus, candidates, lang, likelihood, explains(focus))
    return _in_order(focus, candidates, _narrowed(tests, [q for q, _ in candidates]))


def hand_set_line(
    focus: Focus,
    candidates: Sequence[tuple[Quote, float]],
    lang: str,
    likelihood: Mapping[str, float] | None = None,
) -> int:
    """The index of the candidate the hand-set weighing makes a part's line: of those
    :func:`_qualified` keeps, the one in the order a part asking for the first or the
    latest date asks, else the one :func:`_rules_line` values most."""
    pool = _qualified(focus, candidates, lang, likelihood)
    ordered = _in_order(focus, candidates, pool)
    return ordered if ordered is not None else _rules_line(focus, candidates, pool)


def _in_order(
    focus: Focus, candidates: Sequence[tuple[Quote, float]], pool: Sequence[int]
) -> int | None:
    """The index, among ``pool``, of the candidate a part asking for the first or the
    latest date takes (see :func:`research.answer.in_order_asked`); None when it asks no
    order or none is dated."""
    chosen = in_order_asked(
        focus, [candidates[i] for i in pool], lambda q: q.span, lambda q: q.published
    )
    return None if chosen is None else next(i for i in pool if candidates[i][0] is chosen)


#: Under the rules, what a line earns for naming the part's subject itself.
NAMED_SUBJECT = 0.015


def _rules_line(focus: Focus, candidates: Sequence[tuple[Quote, float]], pool: list[int]) -> int:
    """The hand-set choice (see :data:`LINES_LEARNED`): the
    relevance score, plus a little for naming the subject (the line is read away from its
    section), plus the score the sentence earns read alone (without its page's title,
    which can make relevant a sentence that does not answer the question by itself),
    plus a little for each thing asked that it names (by its word or an equivalent from
    the user's glossary), plus, for a *why* or *how* part, a cause or a means it states
    (for a how asked of the past, an event: a dated sentence, as such a part is answered
    by its events, dates and names), and more when it also names what the part asks
    about."""
    events = focus.kind == "how" and focus.historical

    def value(i: int) -> float:
        quote, score = candidates[i]
        own, says = _facet_shares(focus, set(terms(quote.span)))
        cause = explained(quote.span, explains(focus)) or (events and has_date(quote.span))
        alone = score_text(focus, quote.span)
        named = NAMED_SUBJECT * names_subject(quote.span, focus.core)
        return score + 0.3 * alone + cause * (0.2 + 0.15 * own) + 0.05 * says + named

    return max(pool, key=lambda i: (value(i), -pool.index(i)))


def best_line(judge: Trees, rows: Sequence[Mapping[str, float]], pool: Sequence[int]) -> int:
    """The index among ``pool`` whose features (``rows``) ``judge`` scores highest, the
    earlier candidate on a tie."""
    return max(pool, key=lambda i: (judge.log_odds(rows[i]), -i))
