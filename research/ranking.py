"""The learned part of relevance: how a sentence's features combine into one score.

A sentence's features (:class:`Features`, computed by :mod:`research.relevance`) say how
far it and its page are about the part's subject, how much of the part's own words it
says, whether it carries the kind of answer asked for, and how it stands among its
page's sentences. A logistic model weighs them into the probability that the sentence
answers the part. Its weights are not set by hand: ``scripts/train_ranker.py`` fits them
on the tune halves of public reading-comprehension sets (never on an article any
evaluation uses) and writes ``research/model/ranker.json`` with the data it used. The
same file holds the two calibrated cut-offs the rest of the core reads:

- ``threshold``: a sentence scoring at least this is evidence; chosen on the training
  data so that nearly every question asked of pages that do not answer it finds none
  (the honest-nothing rate, see the file's ``calibration``);
- ``lead_floor``: the lower cut-off a part's best sentence may still stand from, when
  its page is about the subject and it says most of what the part asks.

Loading reads the JSON once; scoring is a dot product.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: Where the trained model lives (committed; ``scripts/train_ranker.py`` rewrites it).
MODEL_PATH = Path(__file__).with_name("model") / "ranker.json"

#: The features, in the model file's order. Each is documented in
#: :func:`research.relevance.features_of`.
FEATURES = (
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

Features = dict[str, float]


@dataclass(frozen=True)
class Model:
    """A logistic model over :data:`FEATURES` with its calibrated cut-offs."""

    weights: tuple[float, ...]
    bias: float
    threshold: float
    lead_floor: float

    def score(self, features: Mapping[str, float]) -> float:
        """The probability that a sentence with these features answers its part."""
        z = self.bias + sum(self.contributions(features).values())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def contributions(self, features: Mapping[str, float]) -> dict[str, float]:
        """Each feature's share of the score's log-odds (for explaining a score)."""
        return {n: w * features.get(n, 0.0) for n, w in zip(FEATURES, self.weights, strict=True)}


def from_dict(raw: Mapping[str, object]) -> Model:
    """A model from the JSON the training script writes; its features must be ours."""
    names = tuple(raw["features"])  # type: ignore[arg-type]
    if names != FEATURES:
        raise ValueError(f"model features {names} are not {FEATURES}: retrain the model")
    return Model(
        weights=tuple(float(w) for w in raw["weights"]),  # type: ignore[union-attr]
        bias=float(raw["bias"]),  # type: ignore[arg-type]
        threshold=float(raw["threshold"]),  # type: ignore[arg-type]
        lead_floor=float(raw["lead_floor"]),  # type: ignore[arg-type]
    )


@cache
def model() -> Model:
    """The committed model (read once)."""
    return from_dict(json.loads(MODEL_PATH.read_text(encoding="utf-8")))


__all__ = ["FEATURES", "MODEL_PATH", "Features", "Model", "from_dict", "model"]
