"""Calibrate the rules' thresholds on whole runs, and measure and fit their weights.

Usage (from the repository root, with the data ``scripts/train_ranker.py`` reads)::

    .venv/bin/python scripts/fit_rules.py              # calibrates and fits; writes nothing
    .venv/bin/python scripts/fit_rules.py --write      # rewrites research/model/rules.json
    .venv/bin/python scripts/fit_rules.py --check      # compares with it, writes nothing
    .venv/bin/python scripts/fit_rules.py --cache F --runs-cache G   # keeps what it read

About forty minutes here: ten gathering the training examples, twenty-five running the
benchmark's tune questions, five searching.

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
weights: for every weighing tried they are calibrated on whole runs, where honest nothing
and citation precision are measured. :data:`RUNS` multi-part and as many off-topic
questions (about an article the world leaves out) of every tune sub-set of the
benchmark's research-shaped sets (``bench/bench_shapes.py``) run through the offline
pipeline as the benchmark runs them, with the committed weights
(:func:`unanswered_runs`). Each part keeps every sentence its run read on a source that
is not right for its question, as the benchmark counts citing it (every source, for an
off-topic question). A threshold is the score the best of those stays under for a
share of the parts (:func:`honest_target`: enough that every set of the benchmark keeps
95% honest nothing on questions it has not seen), one for each script with enough parts
(:func:`thresholds_of`), as the learned models' thresholds are for the parts asked
without their gold pages.

The search is coordinate-wise over a grid of each weight (:data:`GRIDS`), starting from
the committed weights: each weight in turn takes its best value when that raises the
objective by :data:`MIN_GAIN` at least, so the same examples give the same weights.
Cross-validated figures (fitted on one half of the articles, measured on the other) are
printed beside them.

Research also meets pages about something else that name the subject once, so each part
reads one besides (:func:`train_ranker.mentioning`).

The file takes the calibrated thresholds of the committed weights; the weights the search
reaches are written beside them (``search``, with their figures), and are taken only
with ``--fit-weights``. Taken, they are to be measured on the benchmarks of whole runs
(``bench/bench_shapes.py``) and the tests before they are committed: a training part
reads fewer pages than a run, over one round, and what raises the objective here can
lose a run's answers (``docs/research-core.md``). The runs are read with the committed
file, so a file written and fitted again may differ in its last digits; ``--check``
says whether it does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import pickle
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import train_lines
import train_ranker
from bench_general import quiet_logs
from bench_shapes import SUBSETS, Shaped, source_path

from research.document import Document
from research.features import signals
from research.rules import CARRIED, RULES_PATH, RuleTerms, RuleWeights, from_dict
from research.text import script

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
#: Multi-part and off-topic questions of each tune sub-set of the benchmark whose runs
#: calibrate the thresholds (see :func:`unanswered_runs`).
RUNS = 20
#: What the thresholds are to give on unseen questions (issue 36's targets): every one of
#: the benchmark's :data:`MEASURED` research-shaped sets reaches :data:`FLOOR` honest
#: nothing over the :data:`PER_SET` off-topic questions it asks (its default ``--limit``
#: of 20 in each of two sub-sets), and does so with probability :data:`SURE`.
FLOOR, PER_SET, SURE = 0.95, 40, 0.95
MEASURED = len(train_lines.SETS)


@dataclass(frozen=True)
class Signs:
    """Sentences' rule terms (:class:`research.rules.RuleTerms`) as arrays."""

    base: np.ndarray
    elsewhere: np.ndarray
    page: np.ndarray
    mismatch: np.ndarray
    leaning: np.ndarray
    untyped: np.ndarray
    carried: np.ndarray  # index into CARRIED, -1 for none

    @classmethod
    def of(cls, terms: Sequence[RuleTerms]) -> Signs:
        kinds = {k: n for n, k in enumerate(CARRIED)}
        return cls(
            base=np.array([t.base for t in terms], dtype=float),
            elsewhere=np.array([t.elsewhere for t in terms], dtype=bool),
            page=np.array([t.page for t in terms], dtype=float),
            mismatch=np.array([t.mismatch for t in terms], dtype=bool),
            leaning=np.array([t.leaning for t in terms], dtype=bool),
            untyped=np.array([t.untyped for t in terms], dtype=bool),
            carried=np.array([kinds.get(t.carried, -1) for t in terms], dtype=int),
        )

    def take(self, keep: np.ndarray) -> Signs:
        """The sentences where ``keep`` holds."""
        return Signs(**{f.name: getattr(self, f.name)[keep] for f in fields(self)})


@dataclass(frozen=True)
class Terms:
    """The training examples as arrays, sorted by part (``group``)."""

    signs: Signs
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
        return Terms(
            signs=self.signs.take(keep),
            local=self.local[keep],
            label=self.label[keep],
            own=self.own[keep],
            group=group,
            starts=starts,
            fold=self.fold[groups],
            script=self.script[groups],
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
    fold = np.array([train_ranker._fold(rows[s].article) for s in starts])
    scripts = np.array([rows[s].script for s in starts])
    return Terms(
        signs=Signs.of([e.rules for e in rows if e.rules is not None]),
        local=np.array([e.features[train_ranker.FEATURES.index("local")] for e in rows]),
        label=np.array([e.label for e in rows], dtype=bool),
        own=np.array([e.unanswered is None for e in rows], dtype=bool),
        group=group,
        starts=starts,
        fold=fold,
        script=scripts,
    )


@dataclass(frozen=True)
class Unanswered:
    """A part of a run on pages that do not answer its question: every complete sentence
    of every source the run read that is not right for the question (every source, for
    an off-topic question), as the rules see it for the part."""

    set: str
    script: str
    terms: list[RuleTerms]
    #: the question's kind, as the benchmark names it: ``multi`` or ``off`` (off-topic)
    kind: str = "off"


@dataclass(frozen=True)
class Negatives:
    """The runs' parts as arrays: each sentence's rule terms and its part (``part``),
    each part's script, set and kind."""

    signs: Signs
    part: np.ndarray
    script: np.ndarray
    set: np.ndarray
    kind: np.ndarray


def unanswered(q: Shaped, host: Any) -> list[Unanswered]:
    """The parts of one question's run (``host`` ran it), each with the rule terms of
    every complete sentence of every source the run read that citing would not be right
    for the question (as the benchmark counts it: ``q.right``); the parts that read no
    such source are left out."""
    research = host.state.research
    docs = [
        Document.of(research.texts[path], source.read_as or source.title)
        for path, source in research.sources.items()
        if path in research.texts and source_path(source.url) not in q.right
    ]
    parts = [
        Unanswered(
            "",
            script(focus.text),
            [
                signals(focus, doc, i, embed=False)[3]
                for doc in docs
                for i, sentence in enumerate(doc.sentences)
                if sentence.complete
            ],
        )
        for focus in research.focus.values()
    ]
    return [p for p in parts if p.terms]


def runs_of(shape: str, sub: str, kind: str, limit: int, tmp: Path) -> list[Unanswered]:
    """The parts of ``limit`` questions of one kind of one tune sub-set, each run through
    the offline pipeline as the benchmark runs it (:func:`train_lines.run_questions`),
    on the sources not right for their question (:func:`unanswered`)."""
    got = asyncio.run(train_lines.run_questions(shape, sub, tmp, kind, limit, unanswered))
    return [replace(p, set=f"{shape}/{sub}", kind=kind) for p in got]


def unanswered_runs(limit: int, cache: Path | None) -> tuple[list[Unanswered], dict[str, int]]:
    """:func:`runs_of` for ``limit`` multi-part and ``limit`` off-topic questions of
    every tune sub-set of the benchmark's research-shaped sets (:data:`train_lines.SETS`),
    and how many parts each gave; read from ``cache`` when it holds them, and written
    there when it does not."""
    if cache is not None and cache.is_file():
        return pickle.loads(cache.read_bytes())
    parts: list[Unanswered] = []
    counts: dict[str, int] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fit-rules-") as tmp, quiet_logs():
        for kind in ("multi", "off"):
            for shape in train_lines.SETS:
                for sub in SUBSETS[shape]:
                    got = runs_of(shape, sub, kind, limit, Path(tmp))
                    counts[f"{kind}:{shape}/{sub}"] = len(got)
                    parts += got
                    elapsed = time.perf_counter() - started
                    print(
                        f"{kind}:{shape}/{sub}: {len(got)} parts ({elapsed:.0f} s)", file=sys.stderr
                    )
    if cache is not None:
        cache.write_bytes(pickle.dumps((parts, counts)))
    return parts, counts


def negatives(parts: list[Unanswered]) -> Negatives:
    """The runs' parts as arrays."""
    return Negatives(
        signs=Signs.of([t for p in parts for t in p.terms]),
        part=np.array([n for n, p in enumerate(parts) for _ in p.terms], dtype=int),
        script=np.array([p.script for p in parts]),
        set=np.array([p.set for p in parts]),
        kind=np.array([p.kind for p in parts]),
    )


def scores(t: Signs, w: RuleWeights) -> np.ndarray:
    """Every example's score under ``w`` (:meth:`research.rules.RuleWeights.score`)."""
    s = t.base * np.where(t.elsewhere, w.elsewhere, 1.0)
    s = s * (w.page_floor + (1.0 - w.page_floor) * t.page)
    s = s * np.where(t.mismatch, w.mismatch, 1.0)
    s = s * np.where(t.leaning, w.leaning, 1.0)
    s = s * np.where(t.untyped, w.untyped, 1.0)
    added = np.array([w.carried.get(k, 0.0) for k in CARRIED] + [0.0])
    return np.minimum(1.0, s + added[t.carried])


def honest_target() -> float:
    """The share of parts the thresholds keep from citing a source not right for their
    question: the lowest, in thousandths, at which :data:`MEASURED` sets of
    :data:`PER_SET` questions each, every question honest at that rate by itself, all
    reach :data:`FLOOR` with probability :data:`SURE` (binomial): 0.991 here. A set whose
    rate is the floor itself fails about half its samples."""
    allowed = math.floor(PER_SET * (1 - FLOOR) + 1e-9)  # questions a set may get wrong
    for thousandths in range(math.ceil(FLOOR * 1000), 1000):
        rate = thousandths / 1000
        wrong = 1 - rate
        within = sum(
            math.comb(PER_SET, k) * wrong**k * rate ** (PER_SET - k) for k in range(allowed + 1)
        )
        if within**MEASURED >= SURE:
            return rate
    return 0.999


def run_best(n: Negatives, w: RuleWeights) -> np.ndarray:
    """Each run's part's best score under ``w`` over the sentences it read on the
    sources not right for its question."""
    best = np.zeros(len(n.script))
    np.maximum.at(best, n.part, scores(n.signs, w))
    return best


def thresholds_of(n: Negatives, w: RuleWeights) -> tuple[float, dict[str, float]]:
    """The score the best sentence of a run's part on the sources not right for its
    question stays under, under ``w``, for :func:`honest_target` of the parts: over
    all of them, and for each script with enough parts to measure that share (see
    :func:`train_ranker.honest_bars`; the rules read some scripts better than others).
    A run reads the pages a search returns for the part's words, over rounds, so its
    nearest wrong pages are nearer than a training part's others: the thresholds are
    calibrated where honest nothing and citation precision are measured, on whole
    runs."""
    return _calibrated_on(n, run_best(n, w))


def _calibrated_on(n: Negatives, best: np.ndarray) -> tuple[float, dict[str, float]]:
    """:func:`thresholds_of`, given each part's best score (:func:`run_best`)."""
    return train_ranker.honest_bars(
        zip(best.tolist(), n.script.tolist(), strict=True), honest_target()
    )


def honest_by_set(n: Negatives, w: RuleWeights) -> dict[str, float]:
    """For each kind of question and set (``off:single``, ``multi:pairs``), the share of
    its parts whose best score on the sources not right for their question stays under
    its script's threshold of ``w``."""
    honest = run_best(n, w) < bars(n.script, w.threshold, w.thresholds)
    names = np.array([f"{k}:{s.split('/')[0]}" for k, s in zip(n.kind, n.set, strict=True)])
    return {str(k): round(float(honest[names == k].mean()), 4) for k in dict.fromkeys(names)}


def bars(scripts: np.ndarray, threshold: float, thresholds: Mapping[str, float]) -> np.ndarray:
    """Each part's threshold, by the script it is written in (``scripts``): its
    script's, or the one over all scripts."""
    return np.array([thresholds.get(s, threshold) for s in scripts.tolist()])


def figures(t: Terms, n: Negatives, w: RuleWeights, calibrate: bool = True) -> dict[str, float]:
    """How the rules under ``w`` do on ``t``: the shares of the answerable parts whose
    best sentence holds the answer, whose answer is among the :data:`SECTION` best, and
    each of those at least at its part's threshold (calibrated on the runs ``n``, or
    with ``calibrate`` off those of ``w``); the share of parts whose best sentence off
    their own article stays under it (honest nothing), and the share of the runs' parts
    whose best sentence on sources not right for their question does
    (``runs_honest_nothing``)."""
    score, best = scores(t.signs, w), run_best(n, w)
    cut = _calibrated_on(n, best) if calibrate else (w.threshold, dict(w.thresholds))
    bar = bars(t.script, *cut)
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
    runs = best < bars(n.script, *cut)
    return {
        "answer_first": round(share(first & gold), 4),
        "answer_first_over_threshold": round(share(first & gold & over), 4),
        "answer_in_section": round(share(top & gold), 4),
        "answer_in_section_over_threshold": round(share(top & gold & over), 4),
        "honest_nothing": round(float((off < bar).mean()), 4),
        "runs_honest_nothing": round(float(runs.mean()), 4),
        "parts": len(t.starts),
    }


def objective(t: Terms, n: Negatives, w: RuleWeights) -> float:
    """What the search raises: the mean of the shares of answerable parts whose best
    sentence, and whose section, quotes the answer at least at the threshold calibrated
    on the runs ``n``."""
    f = figures(t, n, w)
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


def search(t: Terms, n: Negatives, start: RuleWeights, log: bool = False) -> RuleWeights:
    """The weights the coordinate search reaches from ``start`` on ``t``, the thresholds
    calibrated for them: each weight in turn takes the value of its grid that gives the
    highest objective (the first of equals), when that is :data:`MIN_GAIN` over the
    objective of the weights so far."""
    best, value = start, objective(t, n, start)
    for sweep in range(SWEEPS):
        moved = False
        for name, grid in GRIDS.items():
            tried = [(objective(t, n, w), w) for w in (with_weight(best, name, v) for v in grid)]
            top = max(tried, key=lambda x: x[0])  # max keeps the first of equals
            if top[0] >= value + MIN_GAIN:
                value, best, moved = top[0], top[1], True
            if log:
                print(f"  sweep {sweep + 1} {name:<16} {weight_of(best, name):.2f} {value:.4f}")
        if not moved:
            break
    threshold, thresholds = thresholds_of(n, best)
    return replace(
        best,
        threshold=round(threshold, 6),
        thresholds={k: round(v, 6) for k, v in thresholds.items()},
    )


def cross_validated(t: Terms, n: Negatives, start: RuleWeights) -> dict[str, float]:
    """The figures of weights fitted on one half of the articles, measured on the other
    (the thresholds of both calibrated on the same runs), averaged over both
    ways."""
    halves = []
    for fold in (0, 1):
        fitted = search(t.subset(t.fold == fold), n, start)
        halves.append(figures(t.subset(t.fold != fold), n, fitted, calibrate=False))
    return {k: round(sum(h[k] for h in halves) / 2, 4) for k in halves[0]}


def weights_dict(w: RuleWeights) -> dict[str, Any]:
    fields = ("elsewhere", "leaning", "untyped", "mismatch", "page_floor")
    return {
        **{k: getattr(w, k) for k in fields},
        "carried": {k: w.carried.get(k, 0.0) for k in CARRIED},
        "local": w.local,
    }


def calibrated(n: Negatives, w: RuleWeights) -> RuleWeights:
    """``w`` with its thresholds calibrated on the runs ``n`` (:func:`thresholds_of`)."""
    threshold, thresholds = thresholds_of(n, w)
    return replace(
        w, threshold=round(threshold, 6), thresholds={k: round(v, 6) for k, v in thresholds.items()}
    )


def fit(
    t: Terms, n: Negatives, counts: dict[str, Any], start: RuleWeights, weights: bool
) -> dict[str, Any]:
    """A rules file's content: the weights ``start`` (or with ``weights``, the weights
    the search reaches from them on ``t``), the thresholds calibrated on the runs ``n``;
    beside them the weights the search reaches, measured (``counts`` holds the counts
    of ``t`` and ``n``)."""
    found = search(t, n, start, log=True)
    taken = found if weights else calibrated(n, start)
    return {
        "set_by": {
            "weights": "scripts/fit_rules.py" if weights else "hand",
            "thresholds": "scripts/fit_rules.py",
        },
        "weights": weights_dict(taken),
        "threshold": taken.threshold,
        "thresholds": dict(taken.thresholds),
        "calibration": {
            "honest_target": honest_target(),
            "honest_on": f"runs of {RUNS} multi-part and {RUNS} off-topic questions per tune"
            " sub-set, on the sources not right for their question",
            "runs_honest_by_set": honest_by_set(n, taken),
            "training": figures(t, n, taken),
        },
        "search": {
            "objective": "mean of answer_first_over_threshold and answer_in_section_over_threshold",
            "weights": weights_dict(found),
            "threshold": found.threshold,
            "training": figures(t, n, found),
            "cross_validated": cross_validated(t, n, start),
            "taken": weights,
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
    train_lines.in_run_env()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--write", action="store_true", help="write the fit to --out")
    parser.add_argument("--check", action="store_true", help="compare the fit with --out")
    parser.add_argument(
        "--fit-weights", action="store_true", help="take the weights the search reaches too"
    )
    parser.add_argument("--out", type=Path, default=RULES_PATH)
    parser.add_argument("--cache", type=Path, help="keep the examples here between tries")
    parser.add_argument("--runs-cache", type=Path, help="keep the runs' parts here")
    args = parser.parse_args()
    committed = from_dict(json.loads(RULES_PATH.read_text(encoding="utf-8")))
    data, counts = train_ranker.gathered(train_ranker.PARTS_PER_SET, args.cache, mentions=True)
    off, off_counts = unanswered_runs(RUNS, args.runs_cache)
    t, n = arrays(data), negatives(off)
    print("the committed weights, with their thresholds and with thresholds calibrated:")
    print(json.dumps(figures(t, n, committed, calibrate=False)))
    print(json.dumps(honest_by_set(n, committed)))
    print(json.dumps(figures(t, n, committed)))
    sets = {"examples": counts, "unanswered_parts": off_counts}
    rules = fit(t, n, sets, committed, args.fit_weights)
    print("the rules:")
    print(json.dumps({k: rules[k] for k in ("weights", "threshold", "thresholds")}, indent=1))
    print(json.dumps({k: rules[k] for k in ("calibration", "search")}, indent=1))
    if args.write or args.check:
        text = json.dumps(rules, ensure_ascii=False, indent=1) + "\n"
        train_ranker.write_or_check(args.out, text, args.check)


if __name__ == "__main__":
    main()
