"""The rules' weights come from ``research/model/rules.json``, and the core scores with
them; ``scripts/fit_rules.py`` fits them to data (a sign that never comes with an answer
loses weight, the thresholds keep parts asked of pages that do not answer them from
citing). Training examples are invented; no data is fetched."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import fit_rules
import train_ranker as tr

import research.relevance as relevance
from research.rules import RULES_PATH, RuleTerms, rule_weights


def _example(part: int, terms: RuleTerms, label: bool, own: bool) -> tr.Example:
    features = [0.0] * len(tr.FEATURES)
    return tr.Example(
        features,
        int(label),
        f"q{part}",
        f"article{part}",
        own,
        None if own else features,
        rules=terms,
    )


def _terms(base: float, elsewhere: bool = False) -> RuleTerms:
    return RuleTerms(base, elsewhere, 1.0, False, False, False, "")


def _parts(count: int) -> list[tr.Example]:
    """Parts whose answer says a little less of the part's words than a sentence in
    another part's section does, and whose other pages hold nothing as close."""
    data = []
    for part in range(count):
        data += [
            _example(part, _terms(0.7), True, True),
            _example(part, _terms(0.75, elsewhere=True), False, True),
            _example(part, _terms(0.3 + 0.002 * part), False, False),
        ]
    return data


def test_the_core_scores_with_the_committed_weights():
    weights = rule_weights()
    committed = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    assert weights.threshold == committed["threshold"]
    if not relevance.LEARNED:
        assert weights.threshold == relevance.THRESHOLD
        assert weights.local == relevance.LOCAL
    terms = RuleTerms(0.6, True, 0.5, True, False, False, "date")
    expected = 0.6 * weights.elsewhere * (weights.page_floor + (1 - weights.page_floor) * 0.5)
    expected = min(1.0, expected * weights.mismatch + weights.carried["date"])
    assert abs(weights.score(terms) - expected) < 1e-12


def test_a_sign_that_never_comes_with_the_answer_loses_weight():
    t = fit_rules.arrays(_parts(40))
    start = replace(rule_weights(), elsewhere=1.0)
    before = fit_rules.figures(t, start)
    fitted = fit_rules.search(t, start)
    after = fit_rules.figures(t, fitted)
    assert before["answer_first"] == 0.0  # the other part's sentence came first
    assert fitted.elsewhere < 0.7 / 0.75 and after["answer_first"] == 1.0


def test_the_threshold_is_calibrated_for_honest_nothing_on_pages_that_do_not_answer():
    data = _parts(40)
    fitted = fit_rules.search(fit_rules.arrays(data), rule_weights())
    off = [e.rules.base for e in data if e.unanswered is not None]
    # 95% of the parts' best sentences off their own article stay under it, not all
    assert 38 <= sum(s < fitted.threshold for s in off) < 40
    assert fitted.threshold <= 0.7  # and the answers reach it


def test_the_same_examples_give_the_same_weights():
    data = _parts(30)
    first = fit_rules.search(fit_rules.arrays(data), rule_weights())
    again = fit_rules.search(fit_rules.arrays(list(reversed(data))), rule_weights())
    assert first == again


def test_the_fit_scores_examples_as_the_core_scores_sentences():
    """``fit_rules.scores`` is :meth:`RuleWeights.score` over arrays; they agree on every
    combination of signals, so a fit measures the rules the core runs."""
    weights = replace(rule_weights(), page_floor=0.3)
    data = []
    for n, carried in enumerate(("", "date", "number", "cause", "name", "kind")):
        for flags in range(16):
            terms = RuleTerms(
                0.2 + 0.05 * n,
                bool(flags & 1),
                0.1 * flags % 1.0,
                bool(flags & 2),
                bool(flags & 4),
                bool(flags & 8),
                carried,
            )
            data.append(_example(n * 16 + flags, terms, False, True))
    t = fit_rules.arrays(data)
    got = fit_rules.scores(t, weights)
    want = [weights.score(e.rules) for e in sorted(data, key=lambda e: e.group)]
    assert all(abs(a - b) < 1e-12 for a, b in zip(got, want, strict=True))
