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

Loading reads the JSON once; scoring is a dot product.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
    "grams",
    "grams_best",
    "spaceless",
    "grams_spaceless",
    "length",
)

#: How a sentence's page stands among the pages read for the part (the same for every
#: sentence of a page; documented in :func:`research.retrieval.standing`).
PAGE_FEATURES = ("page_share", "page_first", "page_agreed")

#: The features, in the model file's order.
FEATURES = SENTENCE_FEATURES + PAGE_FEATURES

#: How a sentence stands among its part's best sentences over every page read, by the
#: sentence model's log-odds: those log-odds, whether it is the best, and how far under
#: the best it is (see :func:`standing_in_part`).
PART_FEATURES = ("log_odds", "first_of_part", "margin")

#: The answer model's features: a sentence's, its page's and its standing in its part.
ANSWER_FEATURES = FEATURES + PART_FEATURES

#: A part's best sentences over every page read that the answer model weighs.
CANDIDATES = 3

Features = dict[str, float]


@dataclass(frozen=True)
class Model:
    """A logistic model over named features with its calibrated thresholds: the sentence
    model over :data:`FEATURES`, which orders a part's sentences, holds the answer model
    over :data:`ANSWER_FEATURES` (:attr:`answer`), which says whether one of a part's
    :data:`CANDIDATES` best sentences answers it."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    #: the threshold for a part written in a script the training data had too few parts
    #: in (see :attr:`thresholds`)
    threshold: float
    #: the threshold for a part by the script it is written in (see
    #: :func:`research.text.script`): how faint a sentence may be on pages that do not
    #: answer the part depends on how well the features read that script
    thresholds: Mapping[str, float] = field(default_factory=dict)
    answer: Model | None = None

    def threshold_for(self, script: str) -> float:
        """The threshold for a part written in ``script``."""
        return self.thresholds.get(script, self.threshold)

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
        z = self.bias + sum(log_odds)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


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


def answers(rows: Sequence[Features], texts: Sequence[str]) -> list[tuple[int, float]]:
    """The :data:`CANDIDATES` best of a part's sentences by the sentence model, with the
    answer model's probability that each answers the part, best first. A sentence said
    alike on several pages (a copy of an article on another site) is one candidate: its
    best-scoring copy, standing as well as the best-standing of the pages that say it.

    Args:
        rows: each sentence's features, its page's standing among the pages read
            included (:data:`FEATURES`).
        texts: each sentence's text.

    Returns:
        ``(index in rows, probability)`` pairs.
    """
    ranker, answer = model(), answer_model()
    copies: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        copies.setdefault(" ".join(text.casefold().split()), []).append(i)
    merged: dict[int, Features] = {}
    for same in copies.values():
        # a sentence said alike on several pages stands where the best of them stands
        first = max(same, key=lambda i: ranker.log_odds(rows[i]))
        merged[first] = rows[first] | {n: max(rows[i][n] for i in same) for n in PAGE_FEATURES}
    log_odds = {i: ranker.bias + ranker.log_odds(f) for i, f in merged.items()}
    order = sorted(merged, key=lambda i: (-log_odds[i], i))[:CANDIDATES]
    places = standing_in_part([log_odds[i] for i in order])
    return [(i, answer.score(merged[i] | p)) for i, p in zip(order, places, strict=True)]


def evidence(
    rows: Sequence[Features], texts: Sequence[str], pages: Sequence[str], bar: float
) -> dict[int, float]:
    """A part's evidence among its sentences: when the answer model says one of its
    :data:`CANDIDATES` best answers it (scoring at least ``bar``), that one, the others of
    them on its page, and any other of them scoring ``bar``; by index in ``rows``, with
    the answer model's probability. Nothing when none reaches ``bar``.

    Args:
        rows: each sentence's features, its page's standing included.
        texts: each sentence's text.
        pages: each sentence's page.
        bar: the part's answer threshold (see :meth:`Model.threshold_for`).
    """
    found = answers(rows, texts)
    if not found or max(p for _, p in found) < bar:
        return {}
    best = max(found, key=lambda ip: ip[1])[0]
    return {i: p for i, p in found if p >= bar or pages[i] == pages[best]}


def from_dict(raw: Mapping[str, object], names: tuple[str, ...] = FEATURES) -> Model:
    """A model from the JSON the training script writes; its features must be ours."""
    found = tuple(raw["features"])  # type: ignore[arg-type]
    if found != names:
        raise ValueError(f"model features {found} are not {names}: retrain the model")
    answer = raw.get("answer")
    return Model(
        names=names,
        weights=tuple(float(w) for w in raw["weights"]),  # type: ignore[union-attr]
        bias=float(raw["bias"]),  # type: ignore[arg-type]
        threshold=float(raw["threshold"]),  # type: ignore[arg-type]
        thresholds={k: float(v) for k, v in dict(raw.get("thresholds") or {}).items()},  # type: ignore[call-overload]
        answer=from_dict(answer, ANSWER_FEATURES) if isinstance(answer, Mapping) else None,
    )


@cache
def model() -> Model:
    """The committed model (read once)."""
    return from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


def answer_model() -> Model:
    """The committed model's answer model (see :attr:`Model.answer`)."""
    answer = model().answer
    if answer is None:
        raise ValueError(f"{MODEL_PATH} has no answer model: retrain the model")
    return answer


__all__ = [
    "ANSWER_FEATURES",
    "CANDIDATES",
    "FEATURES",
    "MODEL_PATH",
    "PAGE_FEATURES",
    "PART_FEATURES",
    "SENTENCE_FEATURES",
    "Features",
    "Model",
    "answer_model",
    "answers",
    "evidence",
    "from_dict",
    "model",
    "standing_in_part",
]
