"""The rules' weights come from ``research/model/rules.json``, and the core scores with
them; ``scripts/fit_rules.py`` fits them to data (a sign that never comes with an answer
loses weight, the thresholds keep the parts of off-topic runs from citing). Training
examples and runs are invented; no data is fetched."""

from __future__ import annotations

import json
import math
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


def _off_topic(count: int) -> fit_rules.Negatives:
    """Off-topic runs' parts, each with its best sentence a little above the one before
    (from 0.3 to under 0.5)."""
    step = 0.2 / count
    return fit_rules.negatives(
        [
            fit_rules.Unanswered("single/en", "latin", [_terms(0.02), _terms(0.3 + step * n)])
            for n in range(count)
        ]
    )


def test_the_honest_target_keeps_every_set_over_the_floor_on_unseen_questions():
    target = fit_rules.honest_target()
    # a rate at the floor itself fails about half its samples; the target is above it
    assert fit_rules.FLOOR < target < 1.0
    lower = target - 0.001
    allowed = 2  # of 40 questions, for 95%
    within = sum(
        math.comb(40, k) * (1 - lower) ** k * lower ** (40 - k) for k in range(allowed + 1)
    )
    assert within**fit_rules.MEASURED < fit_rules.SURE  # a thousandth less is not enough


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
    t, n = fit_rules.arrays(_parts(40)), _off_topic(40)
    start = replace(rule_weights(), elsewhere=1.0)
    before = fit_rules.figures(t, n, start)
    fitted = fit_rules.search(t, n, start)
    after = fit_rules.figures(t, n, fitted)
    assert before["answer_first"] == 0.0  # the other part's sentence came first
    assert fitted.elsewhere < 0.7 / 0.75 and after["answer_first"] == 1.0


def test_the_threshold_is_calibrated_for_honest_nothing_on_off_topic_runs():
    runs = _off_topic(400)
    fitted = fit_rules.search(fit_rules.arrays(_parts(40)), runs, rule_weights())
    best = [0.3 + 0.2 / 400 * n for n in range(400)]
    under = sum(s < fitted.threshold for s in best)
    # the target's share of the off-topic parts' best sentences stay under it, not all
    assert 0.95 < fit_rules.honest_target() < 1.0
    assert round(fit_rules.honest_target() * 400) <= under < 400
    assert fitted.threshold <= 0.7  # and the answers reach it
    assert fit_rules.honest_by_set(runs, fitted) == {"off:single": under / 400}


def test_a_higher_sentence_in_an_off_topic_run_raises_the_threshold():
    t = fit_rules.arrays(_parts(40))
    low = fit_rules.search(t, _off_topic(40), rule_weights())
    runs = [
        fit_rules.Unanswered("files/en", "latin", [_terms(0.3 + 0.002 * n), _terms(0.6)])
        for n in range(40)
    ]
    high = fit_rules.search(t, fit_rules.negatives(runs), rule_weights())
    assert low.threshold < 0.5 < 0.6 < high.threshold


def test_the_same_examples_give_the_same_weights():
    data, runs = _parts(30), _off_topic(30)
    first = fit_rules.search(fit_rules.arrays(data), runs, rule_weights())
    again = fit_rules.search(fit_rules.arrays(list(reversed(data))), runs, rule_weights())
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
    got = fit_rules.scores(t.signs, weights)
    want = [weights.score(e.rules) for e in sorted(data, key=lambda e: e.group)]
    assert all(abs(a - b) < 1e-12 for a, b in zip(got, want, strict=True))


def test_a_run_calibrates_on_the_sources_not_right_for_its_question():
    """What a run read on a page citing which the benchmark counts right is no negative;
    an off-topic question's every page is."""
    from types import SimpleNamespace

    from bench_shapes import Shaped

    from host.research import Source
    from research.document import Document
    from research.plan import offline_plan

    plan = offline_plan("When did the harbour bridge open, and how long is it?")
    focus = {s.id: plan.focus(s) for s in plan.subquestions}
    texts = {
        "p1": "The harbour bridge opened in 1932. It is 1,149 metres long.",
        "p2": "The ferry crosses the bay every hour. Tickets are sold on board. It is cheap.",
    }
    sources = {
        "p1": Source("p1", "http://127.0.0.1:8000/en/bridge.html", "Harbour bridge", "web"),
        "p2": Source("p2", "http://127.0.0.1:8000/en/ferry.html", "Ferry", "web"),
    }
    research = SimpleNamespace(texts=texts, sources=sources, focus=focus)
    host = SimpleNamespace(state=SimpleNamespace(research=research))
    complete = {
        k: sum(s.complete for s in Document.of(t, sources[k].title).sentences)
        for k, t in texts.items()
    }

    def asked(right: set[str]) -> list[fit_rules.Unanswered]:
        return fit_rules.unanswered(Shaped(None, right, []), host)

    multi = asked({"en/bridge.html"})
    assert len(multi) == len(focus) == 2
    assert complete["p2"] > 0 and all(len(p.terms) == complete["p2"] for p in multi)
    off = asked(set())
    assert all(len(p.terms) == complete["p1"] + complete["p2"] for p in off)
    assert not asked({"en/bridge.html", "en/ferry.html"})  # nothing read that is wrong


def test_a_script_has_its_own_threshold_only_with_parts_enough_for_the_share():
    latin = [(n / 1000, "latin") for n in range(900)]
    assert "latin" in tr.honest_bars(latin, tr.HONEST)[1]  # 45 parts above 95%
    assert tr.honest_bars(latin, 0.991)[1] == {}  # 8 above 99.1%: one threshold for all
    more = [(n / 2000, "latin") for n in range(1200)]
    assert "latin" in tr.honest_bars(more, 0.991)[1]
