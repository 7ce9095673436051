"""The learned part of relevance: how a sentence's features combine into one score.

A sentence's features (:class:`Features`, computed by :mod:`research.relevance`) say how
far it and its page are about the part's subject, how much of the part's own words it
says, whether it carries the kind of answer asked for, and how it stands among its
page's sentences; its page's features (:func:`research.retrieval.standing`) say how that
page stands among the pages read for the question's parts. A logistic model weighs them
into the probability that the sentence answers the part. Its weights are not set by
hand: ``scripts/train_ranker.py`` fits them on the tune halves of public
reading-comprehension sets (never on an article any evaluation uses) and writes
``research/model/ranker.json`` with the data it used. The same file holds the calibrated
thresholds the rest of the core reads, one for each script the training data covers: a
sentence scoring at least its part's is evidence; chosen on the training data so that
nearly every part asked of pages none of which answers it finds nothing (the
honest-nothing rate, see the file's ``calibration``).

The page features change as more pages are read, a sentence's own features do not: a
score is the model's :meth:`Model.probability` of the two :meth:`Model.log_odds` added.

Whether a part is answered at all, and by which page, is a second model's call (the
answer model, :class:`Trees`): gradient-boosted trees over a part's best sentences,
which weigh how the features combine (a sentence that says the part's words on a page
that stands first is worth more than either alone), fitted on the same data.

Loading reads the JSON once; scoring is a dot product and a walk down each tree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: Where the trained model lives (committed; ``scripts/train_ranker.py`` rewrites it).
MODEL_PATH = Path(__file__).with_name("model") / "ranker.json"

#: A sentence's own features, the same wherever its page stands among the pages read.
#: Each is documented in :func:`research.features.features_of`.
SENTENCE_FEATURES = (
    "subject",
    "facets",
    "said",
    "no_facets",
    "elsewhere",
    "salience",
    "time_mismatch",
    "leaning",
    "untyped",
    "kind_answer",
    "local",
    "local_top",
    "page_named",
    "title_asked",
    "grams",
    "grams_best",
    "spaceless",
    "grams_spaceless",
    "length",
    "paraphrase",
    "paraphrase_gap",
)

#: How a sentence's page stands among the pages read for the part (the same for every
#: sentence of a page; documented in :func:`research.retrieval.standing`).
PAGE_FEATURES = ("page_share", "page_first", "page_agreed", "page_asked", "page_linked")

#: The features, in the model file's order.
FEATURES = SENTENCE_FEATURES + PAGE_FEATURES

#: How a sentence stands among its part's best sentences over every page read, by the
#: sentence model's log-odds: those log-odds, whether it is the best, and how far under
#: the best it is (see :func:`standing_in_part`).
PART_FEATURES = ("log_odds", "first_of_part", "margin")

#: The features of the answer model that weighs a part alone: a sentence's, its page's
#: and its standing in its part.
ALONE_FEATURES = FEATURES + PART_FEATURES

#: Whether another part of the question quotes the sentence's page, by the answer model
#: that weighs a part alone (see :func:`evidence`).
QUESTION_FEATURES = ("page_quoted",)

#: The answer model's features.
ANSWER_FEATURES = ALONE_FEATURES + QUESTION_FEATURES

#: A part's best sentences over every page read that the answer model weighs.
CANDIDATES = 3

#: The best sentences (by the sentence model) a part quotes from a page the answer
#: model says answers it: a page that answers a part often does so in a sentence just
#: under its best (see the model file's ``calibration``).
PAGE_QUOTES = 4

Features = dict[str, float]

#: The standing of a page read alone (its :data:`PAGE_FEATURES`): it is the best of the
#: pages read for every part, and agreed on by none (see
#: :func:`research.retrieval.standing`).
ALONE: Features = {
    "page_share": 1.0,
    "page_first": 1.0,
    "page_agreed": 0.0,
    "page_asked": 1.0,
    "page_linked": 0.0,
}


@dataclass(frozen=True)
class Calibrated:
    """A model's calibrated thresholds: one per script, and one for the rest."""

    #: the threshold for a part written in a script the training data had too few parts
    #: in (see :attr:`thresholds`)
    threshold: float
    #: the threshold for a part by the script it is written in (see
    #: :func:`research.text.script`): how faint a sentence may be on pages that do not
    #: answer the part depends on how well the features read that script
    thresholds: Mapping[str, float]

    def threshold_for(self, script: str) -> float:
        """The threshold for a part written in ``script``."""
        return self.thresholds.get(script, self.threshold)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


#: One regression tree: its nodes, the root first; a split is ``(feature index,
#: threshold, left, right)`` (a value at most the threshold goes left), a leaf is
#: ``(log-odds,)``.
Tree = tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class Trees(Calibrated):
    """The answer model: gradient-boosted regression trees whose leaves add up to the
    log-odds that a candidate's page answers its part."""

    names: tuple[str, ...] = ()
    trees: tuple[Tree, ...] = ()
    #: the answer model's first pass: the one that weighs a part alone, whose choices
    #: tell which pages the question's other parts quote
    alone: Trees | None = None

    def log_odds(self, features: Mapping[str, float]) -> float:
        """The sum of the leaves the features reach (a missing feature is 0)."""
        x = [float(features.get(n, 0.0)) for n in self.names]
        total = 0.0
        for tree in self.trees:
            node = tree[0]
            while len(node) == 4:
                node = tree[int(node[2] if x[int(node[0])] <= node[1] else node[3])]
            total += node[0]
        return total

    def score(self, features: Mapping[str, float]) -> float:
        """The probability that the features' candidate is on a page that answers its
        part."""
        return _sigmoid(self.log_odds(features))


@dataclass(frozen=True)
class Model(Calibrated):
    """A logistic model over named features with its calibrated thresholds: the sentence
    model over :data:`FEATURES`, which orders a part's sentences; it holds the answer
    model over :data:`ANSWER_FEATURES` (:attr:`answer`), which says whether one of a
    part's :data:`CANDIDATES` best sentences is on a page that answers it."""

    names: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    bias: float = 0.0
    answer: Trees | None = None

    def score(self, features: Mapping[str, float]) -> float:
        """The probability the model gives for these features."""
        return self.probability(self.log_odds(features))

    def contributions(self, features: Mapping[str, float]) -> dict[str, float]:
        """Each feature's share of the score's log-odds (for explaining a score)."""
        return {n: w * features.get(n, 0.0) for n, w in zip(self.names, self.weights, strict=True)}

    def log_odds(self, features: Mapping[str, float]) -> float:
        """The log-odds the features given add (a missing feature adds nothing): a
        sentence's own features are weighed once, when its page is read, and its page's
        standing each time another page is read (see :meth:`probability`)."""
        return sum(self.contributions(features).values())

    def probability(self, *log_odds: float) -> float:
        """The probability the model gives for a sum of :meth:`log_odds`, with its bias."""
        return _sigmoid(self.bias + sum(log_odds))


def standing_in_part(log_odds: Sequence[float]) -> list[Features]:
    """The :data:`PART_FEATURES` of a part's best sentences, given the sentence model's
    log-odds (bias included) of each, best first.

    Args:
        log_odds: the log-odds of the part's :data:`CANDIDATES` best sentences, in
            descending order.
    """
    best = log_odds[0] if log_odds else 0.0
    return [
        {"log_odds": z, "first_of_part": float(i == 0), "margin": z - best}
        for i, z in enumerate(log_odds)
    ]


@dataclass(frozen=True)
class Part:
    """What a part has read, for the answer models: its best sentences on each page."""

    #: each sentence's features, its page's standing among the pages read included
    rows: Sequence[Features]
    #: each sentence's text
    texts: Sequence[str]
    #: each sentence's page
    pages: Sequence[str]
    #: the script the part is written in (see :func:`research.text.script`)
    script: str

    @classmethod
    def of(
        cls,
        read: Sequence[tuple[str, str, Features]],
        standing: Mapping[str, Features],
        script: str,
    ) -> Part:
        """What a part has read, from its sentences as ``(page, text, own features)``
        and each page's standing among the pages read (a page without one stands as
        :data:`ALONE`)."""
        return cls(
            rows=[features | standing.get(page, ALONE) for page, _, features in read],
            texts=[text for _, text, _ in read],
            pages=[page for page, _, _ in read],
            script=script,
        )


def answers(
    rows: Sequence[Features], texts: Sequence[str], judge: Trees
) -> list[tuple[int, float]]:
    """The :data:`CANDIDATES` best of a part's sentences by the sentence model, with the
    probability ``judge`` (an answer model) gives that each is on a page that answers
    the part, best first. A sentence said alike on several pages (a copy of an article
    on another site) is one candidate: its best-scoring copy, standing as well as the
    best-standing of the pages that say it.

    Args:
        rows: each sentence's features, its page's standing among the pages read
            included (:data:`FEATURES`, and :data:`QUESTION_FEATURES` for the answer
            model that weighs them).
        texts: each sentence's text.
        judge: the answer model.

    Returns:
        ``(index in rows, probability)`` pairs.
    """
    ranker = model()
    copies: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        copies.setdefault(" ".join(text.casefold().split()), []).append(i)
    page_level = [n for n in (*PAGE_FEATURES, *QUESTION_FEATURES) if rows and n in rows[0]]
    merged: dict[int, Features] = {}
    for same in copies.values():
        # a sentence said alike on several pages stands where the best of them stands
        first = max(same, key=lambda i: ranker.log_odds(rows[i]))
        merged[first] = rows[first] | {n: max(rows[i][n] for i in same) for n in page_level}
    log_odds = {i: ranker.bias + ranker.log_odds(f) for i, f in merged.items()}
    order = sorted(merged, key=lambda i: (-log_odds[i], i))[:CANDIDATES]
    places = standing_in_part([log_odds[i] for i in order])
    return [(i, judge.score(merged[i] | p)) for i, p in zip(order, places, strict=True)]


def on_page(rows: Sequence[Features], pages: Sequence[str], page: str) -> list[int]:
    """The :data:`PAGE_QUOTES` best of a part's sentences on ``page`` by the sentence
    model, best first (by index in ``rows``)."""
    ranker = model()
    mine = [i for i, p in enumerate(pages) if p == page]
    return sorted(mine, key=lambda i: (-ranker.log_odds(rows[i]), i))[:PAGE_QUOTES]


def chosen(part: Part, rows: Sequence[Features], judge: Trees) -> dict[int, float]:
    """What ``judge`` has a part quote: from each page one of the part's candidates (see
    :func:`answers`) is on with a probability reaching the judge's threshold for the
    part's script, the page's :data:`PAGE_QUOTES` best sentences; by index, each with
    that probability scaled by its sentence-model probability over that of the page's
    best (the page's best carries the page's probability, the rest follow in order)."""
    bar = judge.threshold_for(part.script)
    answering: dict[str, float] = {}
    for i, p in answers(rows, part.texts, judge):
        if p >= bar:
            answering[part.pages[i]] = max(p, answering.get(part.pages[i], 0.0))
    ranker = model()
    out: dict[int, float] = {}
    for page, p in answering.items():
        best = on_page(rows, part.pages, page)
        top = ranker.score(rows[best[0]])
        for i in best:
            out[i] = p * ranker.score(rows[i]) / top
    return out


def question_rows(parts: Mapping[str, Part]) -> dict[str, list[Features]]:
    """Each part's rows with its :data:`QUESTION_FEATURES`: whether another part of the
    question quotes the row's page, as the answer model that weighs a part alone has
    them quote (a part answered on a page makes that page likelier to answer another
    part of the same question, and the answer model weighs by how much).

    Args:
        parts: what each part has read, by part id.
    """
    alone = answer_model().alone
    if alone is None:
        raise ValueError(f"{MODEL_PATH} has no answer model for parts alone: retrain it")
    quoted = {
        sid: {part.pages[i] for i in chosen(part, part.rows, alone)} for sid, part in parts.items()
    }
    out = {}
    for sid, part in parts.items():
        others = set().union(*(pages for k, pages in quoted.items() if k != sid))
        out[sid] = [
            row | {"page_quoted": float(page in others)}
            for row, page in zip(part.rows, part.pages, strict=True)
        ]
    return out


def evidence(parts: Mapping[str, Part]) -> dict[str, dict[int, float]]:
    """Each part's evidence among its sentences, by index in its rows, with the answer
    model's probability: when the answer model says one of the part's
    :data:`CANDIDATES` best is on a page that answers it (reaching its threshold for the
    part's script), that page's :data:`PAGE_QUOTES` best (see :func:`chosen`); nothing
    when none does. The answer model weighs what the question's other parts quote (see
    :func:`question_rows`).

    Args:
        parts: what each part has read, by part id.
    """
    rows = question_rows(parts)
    return {sid: chosen(part, rows[sid], answer_model()) for sid, part in parts.items()}


def _thresholds(raw: Mapping[str, object]) -> dict[str, object]:
    thresholds = dict(raw.get("thresholds") or {})  # type: ignore[call-overload]
    return {
        "threshold": float(raw["threshold"]),  # type: ignore[arg-type]
        "thresholds": {k: float(v) for k, v in thresholds.items()},
    }


def _names(raw: Mapping[str, object], names: tuple[str, ...]) -> tuple[str, ...]:
    found = tuple(raw["features"])  # type: ignore[arg-type]
    if found != names:
        raise ValueError(f"model features {found} are not {names}: retrain the model")
    return names


def trees_from_dict(raw: Mapping[str, object], names: tuple[str, ...] = ANSWER_FEATURES) -> Trees:
    """An answer model from the JSON the training script writes."""
    alone = raw.get("alone")
    return Trees(
        names=_names(raw, names),
        trees=tuple(tuple(tuple(node) for node in tree) for tree in raw["trees"]),  # type: ignore[attr-defined]
        alone=trees_from_dict(alone, ALONE_FEATURES) if isinstance(alone, Mapping) else None,
        **_thresholds(raw),  # type: ignore[arg-type]
    )


def from_dict(raw: Mapping[str, object]) -> Model:
    """A model from the JSON the training script writes; its features must be ours."""
    answer = raw.get("answer")
    return Model(
        names=_names(raw, FEATURES),
        weights=tuple(float(w) for w in raw["weights"]),  # type: ignore[attr-defined]
        bias=float(raw["bias"]),  # type: ignore[arg-type]
        answer=trees_from_dict(answer) if isinstance(answer, Mapping) else None,
        **_thresholds(raw),  # type: ignore[arg-type]
    )


@cache
def model() -> Model:
    """The committed model (read once)."""
    return from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def answer_model() -> Trees:
    """The committed model's answer model (see :attr:`Model.answer`)."""
    answer = model().answer
    if answer is None:
        raise ValueError(f"{MODEL_PATH} has no answer model: retrain the model")
    return answer


__all__ = [
    "ALONE",
    "ALONE_FEATURES",
    "ANSWER_FEATURES",
    "CANDIDATES",
    "FEATURES",
    "MODEL_PATH",
    "PAGE_FEATURES",
    "PAGE_QUOTES",
    "PART_FEATURES",
    "QUESTION_FEATURES",
    "SENTENCE_FEATURES",
    "Calibrated",
    "Features",
    "Model",
    "Part",
    "Tree",
    "Trees",
    "answer_model",
    "answers",
    "chosen",
    "evidence",
    "from_dict",
    "model",
    "on_page",
    "question_rows",
    "standing_in_part",
    "trees_from_dict",
]
