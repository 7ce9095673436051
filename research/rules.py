"""The rules' score of a sentence for a part: its signals combined with the file's weights.

The default core scores a sentence by a fixed form (:meth:`RuleWeights.score`): how far
it is about the part's subject times how it meets the part's facets
(:attr:`RuleTerms.base`), a share of that kept for each thing that tells against it
(standing in another part's section, on a page about other things, about another time,
leaning on the sentence before, no number where one is asked), plus a little for
carrying the kind of answer asked for. The form is the mechanism; its weights, the
evidence thresholds and how much a page's own rare words order its sentences are data,
in ``research/model/rules.json``, which says who set each. ``scripts/fit_rules.py``
calibrates the thresholds on whole runs of the benchmarks' tune questions. The other
weights are still the ones set by hand: the script searches them on the learned models'
training examples and writes what it reaches beside them, to be taken only when the
benchmarks of whole runs and the tests hold with it (``docs/research-core.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

#: Where the fitted weights live (committed; ``scripts/fit_rules.py`` rewrites it).
RULES_PATH = Path(__file__).with_name("model") / "rules.json"

#: The kinds of answer a sentence may carry beyond the question's own words (see
#: :func:`research.features.carried_answer`), each with its own weight.
CARRIED = ("date", "number", "cause", "name", "kind")


class RuleTerms(NamedTuple):
    """A sentence's signals for a part, as the rules combine them (see
    :meth:`RuleWeights.score`)."""

    #: the product of the subject score and the facets' weighted geometric mean (0 for a
    #: sentence without the figure a part asks when the part asks nothing else)
    base: float
    #: the sentence stands in a section about another part of the question
    elsewhere: bool
    #: how much its page is about the part's facets, from 0 to 1
    page: float
    #: it speaks of another time than the part asks about
    #: (:func:`research.features.time_mismatch`)
    mismatch: bool
    #: it opens leaning on the sentence before
    leaning: bool
    #: the part asks how many and it gives no number
    untyped: bool
    #: the kind of answer it carries (one of :data:`CARRIED`), or ""
    carried: str


@dataclass(frozen=True)
class RuleWeights:
    """The weights of the rules (see ``research/model/rules.json``)."""

    #: the share a sentence in another part's section keeps
    elsewhere: float
    #: the share a sentence leaning on the one before keeps
    leaning: float
    #: the share a sentence giving no number keeps, for a part asking how many
    untyped: float
    #: the share a sentence about another time keeps
    mismatch: float
    #: the share a sentence on a page about none of the part's facets keeps (a page
    #: wholly about them keeps all)
    page_floor: float
    #: what carrying each kind of answer adds
    carried: Mapping[str, float]
    #: how much the page-local match counts in ordering a page's sentences
    local: float
    #: the score from which a sentence is evidence, for a part in a script without one
    #: of its own
    threshold: float
    #: the score from which a sentence is evidence for a part written in each script
    #: (see :func:`research.text.script`)
    thresholds: Mapping[str, float]

    def threshold_for(self, script: str) -> float:
        """The evidence threshold for a part written in ``script``."""
        return self.thresholds.get(script, self.threshold)

    def score(self, terms: RuleTerms) -> float:
        """The sentence's score in [0, 1]."""
        score = terms.base * (self.elsewhere if terms.elsewhere else 1.0)
        score *= self.page_floor + (1.0 - self.page_floor) * terms.page
        score *= self.mismatch if terms.mismatch else 1.0
        score *= self.leaning if terms.leaning else 1.0
        score *= self.untyped if terms.untyped else 1.0
        return min(1.0, score + self.carried.get(terms.carried, 0.0))


def from_dict(data: Mapping[str, Any]) -> RuleWeights:
    """The weights in a rules file's ``weights``, ``threshold`` and ``thresholds``."""
    weights = dict(data["weights"])
    carried = {k: float(v) for k, v in dict(weights.pop("carried")).items()}
    return RuleWeights(
        **{k: float(v) for k, v in weights.items()},
        carried=carried,
        threshold=float(data["threshold"]),
        thresholds={k: float(v) for k, v in dict(data.get("thresholds", {})).items()},
    )


@cache
def rule_weights() -> RuleWeights:
    """The committed weights, read once."""
    return from_dict(json.loads(RULES_PATH.read_text(encoding="utf-8")))


__all__ = ["CARRIED", "RULES_PATH", "RuleTerms", "RuleWeights", "from_dict", "rule_weights"]
