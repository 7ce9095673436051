"""Measure the rules' weights on training data, and fit them there.

Usage (from the repository root, with the data ``scripts/train_ranker.py`` reads)::

    .venv/bin/python scripts/fit_rules.py              # measures and fits; writes nothing
    .venv/bin/python scripts/fit_rules.py --cache F    # keeps the examples in F between tries
    .venv/bin/python scripts/fit_rules.py --write      # writes the fit to research/model/rules.json

The rules (:mod:`research.rules`) score a sentence for a part by a fixed form: how far it
is about the part's subject times how it meets the part's facets, a share of that kept
for each thing that tells against it, plus a little for the kind of answer it carries;
a page's sentences are ordered by that score and a share of their page-local match, and
a sentence scoring at least the threshold is evidence. Their weights are in
``research/model/rules.json``. This script measures them, and fits them, on the training
examples of ``scripts/train_ranker.py`` (:func:`train_ranker.gather`: the **tune halves
only** of XQuAD in its twelve languages, CMRC 2018's development set and SelQA's broad
questions, split by article as the benchmarks split them, each part read with its gold
page and others), never on an article any evaluation uses.

What a fit raises is how often a part's answer is what the rules quote
(:func:`objective`): the share of the parts whose best sentence over the pages read holds
the answer and scores at least its threshold, averaged with the share whose answer is
among the :data:`SECTION` best and at least the threshold. The thresholds are not free
weights: for every weighing tried they are calibrated as the learned models' are, as the
score a part's best sentence stays under for :data:`train_ranker.HONEST` of the parts
when the pages of the part's own article are taken out of those read, one for each
script with enough parts (:func:`thresholds_of`). The search is coordinate-wise over a
grid of each weight (:data:`GRIDS`), starting from the committed weights: each weight in
turn takes its best value when that raises the objective by :data:`MIN_GAIN` at least,
so the same examples give the same weights. Cross-validated figures (fitted on one half
of the articles, measured on the other) are printed beside them.

Research also meets pages about something else that name the subject once, so each part
reads one besides (:func:`train_ranker.mentioning`). A fit is written only with
``--write``, to be measured on the benchmarks of whole runs (``bench/bench_shapes.py``)
and the tests before it is committed: a run reads more pages, over more rounds, than a
training part does, and what raises the objective here can lower the precision of whole
runs (``docs/research-core.md``).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import train_ranker

from research.rules import CARRIED, RULES_PATH, RuleWeights, from_dict

#: The values tried for each weight: the shares kept, the page's floor, the additions
#: for a kind of answer carried and the page-local share.
SHARES = tuple(round(0.4 + 0.05 * i, 2) for i in range(13))
GRIDS: dict[str, tuple[float, ...]] = {
    "elsewhere": SHARES,
    "leaning": SHARES,
    "untyped": SHARES,
    "mismatch": SHARES,
    "page_floor": tuple(round(0.1 * i, 1) for i in range(11)),
    **{f"carried.{k}": tuple(round(0.02 * i, 2) for i in range(11)) for k in CARRIED},
    "local": tuple(round(0.05 * i, 2) for i in range(13)),
}
#: How many times the search goes over every weight at most.
SWEEPS = 4
#: How much the objective must rise for a weight to move (about five of the five
#: thousand training parts): a smaller rise is within chance on a sample this size, and a
#: weight moved for it fits the sample, not the task.
MIN_GAIN = 0.001
#: How many of a part's best sentences a section quotes, for the objective.
SECTION = 3


@dataclass(frozen=True)
class Terms:
    """The training examples as arrays, sorted by part (``group``)."""

    base: np.ndarray
    elsewhere: np.ndarray
    page: np.ndarray
    mismatch: np.ndarray
    leaning: np.ndarray
    untyped: np.ndarray
    carried: np.ndarray  # index into CARRIED, -1 for none
    local: np.ndarray
    label: np.ndarray
    own: np.ndarray  # on a page of the part's own article
    group: np.ndarray  # 0..n-1, ascending
    starts: np.ndarray  # where each group starts
    fold: np.ndarray  # each group's fold (0 or 1)
    script: np.ndarray  # each group's script (see research.text.script)

    def subset(self, groups: np.ndarray) -> Terms:
        """The examples of the groups where ``groups`` (one bool per group) holds."""
        keep = groups[self.group]
        renumber = np.cumsum(groups) - 1
        group = renumber[self.group[keep]]
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        fields = {k: getattr(self, k)[keep] for k in _PER_EXAMPLE}
        return Terms(
            **fields,
            group=group,
            starts=starts,
            fold=self.fold[groups],
            script=self.script[groups],
        )


_PER_EXAMPLE = (
    "base",
    "elsewhere",
    "page",
    "mismatch",
    "leaning",
    "untyped",
    "carried",
    "local",
    "label",
    "own",
)


def arrays(data: list[train_ranker.Example]) -> Terms:
    """The examples' rule terms, labels and parts as arrays."""
    if any(e.rules is None for e in data):
        raise SystemExit("the examples hold no rule terms: gather them again (no --cache)")
    order = sorted(range(len(data)), key=lambda i: (data[i].group, i))
    names = {g: n for n, g in enumerate(dict.fromkeys(data[i].group for i in order))}
    rows = [data[i] for i in order]
    group = np.array([names[e.group] for e in rows])
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    kinds = {k: n for n, k in enumerate(CARRIED)}
    fold = np.array([train_ranker._fold(rows[s].article) for s in starts])
    scripts = np.array([rows[s].script for s in starts])
    return Terms(
        base=np.array([e.rules.base for e in rows]),
        elsewhere=np.array([e.rules.elsewhere for e in rows], dtype=bool),
        page=np.array([e.rules.page for e in rows]),
        mismatch=np.array([e.rules.mismatch for e in rows], dtype=bool),
        leaning=np.array([e.rules.leaning for e in rows], dtype=bool),
        untyped=np.array([e.rules.untyped for e in rows], dtype=bool),
        carried=np.array([kinds.get(e.rules.carried, -1) for e in rows]),
        local=np.array([e.features[train_ranker.FEATURES.index("local")] for e in rows]),
        label=np.array([e.label for e in rows], dtype=bool),
        own=np.array([e.unanswered is None for e in rows], dtype=bool),
        group=group,
        starts=starts,
        fold=fold,
        script=scripts,
    )


def scores(t: Terms, w: RuleWeights) -> np.ndarray:
    """Every example's score under ``w`` (:meth:`research.rules.RuleWeights.score`)."""
    s = t.base * np.where(t.elsewhere, w.elsewhere, 1.0)
    s = s * (w.page_floor + (1.0 - w.page_floor) * t.page)
    s = s * np.where(t.mismatch, w.mismatch, 1.0)
    s = s * np.where(t.leaning, w.leaning, 1.0)
    s = s * np.where(t.untyped, w.untyped, 1.0)
    added = np.array([w.carried.get(k, 0.0) for k in CARRIED] + [0.0])
    return np.minimum(1.0, s + added[t.carried])


def thresholds_of(t: Terms, score: np.ndarray) -> tuple[float, dict[str, float]]:
    """The score each part's best sentence off its own article's pages stays under for
    :data:`train_ranker.HONEST` of the parts: over all of them, and for each script with
    at least :data:`train_ranker.PER_SCRIPT` parts (the rules read some scripts better
    than others), as the learned models' thresholds are calibrated."""
    best = np.maximum.reduceat(np.where(t.own, 0.0, score), t.starts)
    return train_ranker.honest_bars(zip(best.tolist(), t.script.tolist(), strict=True))


def bars(t: Terms, threshold: float, thresholds: dict[str, float]) -> np.ndarray:
    """Each part's threshold: its script's, or the one over all scripts."""
    return np.array([thresholds.get(s, threshold) for s in t.script.tolist()])


def figures(t: Terms, w: RuleWeights, calibrate: bool = True) -> dict[str, float]:
    """How the rules under ``w`` do on ``t``: the shares of the answerable parts whose
    best sentence holds the answer, whose answer is among the :data:`SECTION` best, and
    each of those at least at its part's threshold (calibrated on ``t``, or with
    ``calibrate`` off those of ``w``); the share of parts whose best sentence off their
    own article stays under it (honest nothing)."""
    score = scores(t, w)
    cut = thresholds_of(t, score) if calibrate else (w.threshold, dict(w.thresholds))
    bar = bars(t, *cut)
    rank = score + w.local * t.local
    order = np.lexsort((np.arange(len(rank)), -rank, t.group))
    place = np.arange(len(order)) - t.starts[t.group[order]]
    gold, over = t.label[order], score[order] >= bar[t.group[order]]
    answerable = np.maximum.reduceat(t.label, t.starts)
    first = place == 0
    top = place < SECTION

    def share(mask: np.ndarray) -> float:
        hit = np.zeros(len(t.starts), dtype=bool)
        hit[t.group[order][mask]] = True
        return float((hit & answerable).sum() / max(1, answerable.sum()))

    off = np.maximum.reduceat(np.where(t.own, 0.0, score), t.starts)
    return {
        "answer_first": round(share(first & gold), 4),
        "answer_first_over_threshold": round(share(first & gold & over), 4),
        "answer_in_section": round(share(top & gold), 4),
        "answer_in_section_over_threshold": round(share(top & gold & over), 4),
        "honest_nothing": round(float((off < bar).mean()), 4),
        "parts": len(t.starts),
    }


def objective(t: Terms, w: RuleWeights) -> float:
    """What the search raises: the mean of the shares of answerable parts whose best
    sentence, and whose section, quotes the answer at least at the calibrated threshold."""
    f = figures(t, w)
    return (f["answer_first_over_threshold"] + f["answer_in_section_over_threshold"]) / 2


def with_weight(w: RuleWeights, name: str, value: float) -> RuleWeights:
    """``w`` with one weight (``carried.KIND`` for an addition) set to ``value``."""
    if name.startswith("carried."):
        return replace(w, carried={**w.carried, name.split(".", 1)[1]: value})
    return replace(w, **{name: value})


def weight_of(w: RuleWeights, name: str) -> float:
    if name.startswith("carried."):
        return w.carried.get(name.split(".", 1)[1], 0.0)
    return getattr(w, name)


def search(t: Terms, start: RuleWeights, log: bool = False) -> RuleWeights:
    """The weights the coordinate search reaches from ``start`` on ``t``, the thresholds
    calibrated for them: each weight in turn takes the value of its grid that gives the
    highest objective (the first of equals), when that is :data:`MIN_GAIN` over the
    objective of the weights so far."""
    best, value = start, objective(t, start)
    for sweep in range(SWEEPS):
        moved = False
        for name, grid in GRIDS.items():
            tried = [(objective(t, w), w) for w in (with_weight(best, name, v) for v in grid)]
            top = max(tried, key=lambda x: x[0])  # max keeps the first of equals
            if top[0] >= value + MIN_GAIN:
                value, best, moved = top[0], top[1], True
            if log:
                print(f"  sweep {sweep + 1} {name:<16} {weight_of(best, name):.2f} {value:.4f}")
        if not moved:
            break
    threshold, thresholds = thresholds_of(t, scores(t, best))
    return replace(
        best,
        threshold=round(threshold, 6),
        thresholds={k: round(v, 6) for k, v in thresholds.items()},
    )


def cross_validated(t: Terms, start: RuleWeights) -> dict[str, float]:
    """The figures of weights fitted on one half of the articles, measured on the other
    (the thresholds calibrated on the fitted half), averaged over both ways."""
    halves = []
    for fold in (0, 1):
        fitted = search(t.subset(t.fold == fold), start)
        halves.append(figures(t.subset(t.fold != fold), fitted, calibrate=False))
    return {k: round(sum(h[k] for h in halves) / 2, 4) for k in halves[0]}


def weights_dict(w: RuleWeights) -> dict[str, Any]:
    fields = ("elsewhere", "leaning", "untyped", "mismatch", "page_floor")
    return {
        **{k: getattr(w, k) for k in fields},
        "carried": {k: w.carried.get(k, 0.0) for k in CARRIED},
        "local": w.local,
    }


def fit(t: Terms, counts: dict[str, Any], start: RuleWeights) -> dict[str, Any]:
    """A rules file's content, fitted on ``t`` from the weights ``start``."""
    fitted = search(t, start, log=True)
    return {
        "set_by": "scripts/fit_rules.py",
        "weights": weights_dict(fitted),
        "threshold": fitted.threshold,
        "thresholds": dict(fitted.thresholds),
        "calibration": {
            "honest_target": train_ranker.HONEST,
            "objective": "mean of answer_first_over_threshold and answer_in_section_over_threshold",
            "training": figures(t, fitted),
            "cross_validated": cross_validated(t, start),
        },
        "training": {
            "script": "scripts/fit_rules.py",
            "examples": "scripts/train_ranker.py (gather)",
            "data": {
                "google-deepmind/xquad": train_ranker.git_head(train_ranker.XQUAD_GIT),
                "ymcui/cmrc2018": train_ranker.git_head(train_ranker.CMRC_GIT),
                "emorynlp/selqa": train_ranker.git_head(train_ranker.SELQA_GIT),
            },
            "sets": counts,
            "grids": {k: [v[0], v[-1], len(v)] for k, v in GRIDS.items()},
        },
    }


def main() -> None:
    train_ranker.fixed_hash_seed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the fit to --out")
    parser.add_argument("--out", type=Path, default=RULES_PATH)
    parser.add_argument("--cache", type=Path, help="keep the examples here between tries")
    args = parser.parse_args()
    committed = from_dict(json.loads(RULES_PATH.read_text(encoding="utf-8")))
    data, counts = train_ranker.gathered(train_ranker.PARTS_PER_SET, args.cache, mentions=True)
    t = arrays(data)
    print("the committed weights, with their thresholds and with thresholds calibrated:")
    print(json.dumps(figures(t, committed, calibrate=False)))
    print(json.dumps(figures(t, committed)))
    rules = fit(t, counts, committed)
    print("the fit:")
    print(json.dumps({k: rules[k] for k in ("weights", "threshold", "thresholds")}, indent=1))
    print(json.dumps(rules["calibration"], indent=1))
    if args.write:
        args.out.write_text(json.dumps(rules, ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
