"""Fit the answer-line model (``research/model/line.json``) on research-shaped questions.

Usage (from the repository root, after ``bash run.sh test`` or ``bash scripts/setup.sh``)::

    git clone --mirror https://github.com/google-deepmind/xquad /tmp/xquad.git
    git clone --mirror https://github.com/ymcui/cmrc2018 /tmp/cmrc2018.git
    .venv/bin/python scripts/train_lines.py            # rewrites research/model/line.json
    .venv/bin/python scripts/train_lines.py --check    # retrains and compares, writes nothing

A part's answer line is the one quote of its section the summary gives it (see
:mod:`research.lines`). The questions are those of ``bench/bench_shapes.py``'s
research-shaped sets (:data:`SETS`), built from the **tune half only** of XQuAD and CMRC
2018 exactly as the benchmark builds them (the same split by article, :data:`LIMIT`
multi-part questions per sub-set, seed :data:`SEED`), so that no article any evaluation
reports on is seen. Each question runs through the offline pipeline on its served pages
(or, for the own-files set, its input file with no web), as the benchmark runs it, with
the default core scoring (the hand-set rules, ``QUARTET_RANKER=rules``, whose candidates
the model chooses among; the script sets it, ``PYTHONHASHSEED=0`` and
``QUARTET_LINES=rules``, so that no run reads the model being fitted, for itself): about
900 runs, half an hour here. After each run, each answered
part's candidates for its line are taken as the writer takes them
(:func:`research.notes.summary_lines`, with a chooser that records them and takes the
hand-set weighing's line, so that what a later part is offered does not depend on the
model being fitted), each labelled by whether it holds the gold answer of
the question the part asks (the gold question whose words the part shares most, as the
benchmark matches them).

The model is gradient-boosted trees (``scripts/train_ranker.py``'s
:func:`~train_ranker.fit_trees`: scikit-learn, deterministic) of that label over
:func:`research.lines.line_features`, fitted on the candidates a line may be
(:func:`research.lines.line_pool`) of parts whose line the order asked does not decide.
Every part trains it, though it chooses only for a part asking for a span or for what a
thing is called (see :func:`research.lines.model_chooses`). The file records the data's
commits, the counts, and how often a part's line holds its gold answer: by the model
cross-validated over :data:`FOLDS` folds of the questions, by the hand-set weighing
(:func:`research.lines.hand_set_line`), by the section's first candidate a line may be,
and by any candidate a line may be; and the first two again over the parts asking for a
span (``spans``) and over those whose line the model chooses (``chosen_by_model``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "scripts"))
#: The runs are scored by the default core, whose candidates the line model chooses among
#: (see :mod:`research.lines`), with the hash seed fixed (the order of a set of words
#: breaks ties in the core), and their reports' lines chosen by the hand-set weighing, so
#: that no run reads the line model being fitted (whose features may have changed): set
#: before the core is first imported.
RUN_ENV = {"PYTHONHASHSEED": "0", "QUARTET_RANKER": "rules", "QUARTET_LINES": "rules"}


def in_run_env() -> None:
    """Run the script again under :data:`RUN_ENV` unless it already is."""
    if any(os.environ.get(k) != v for k, v in RUN_ENV.items()):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **RUN_ENV})


if __name__ == "__main__":
    in_run_env()

from bench_general import UNSPACED, overlap, quiet_logs, states  # noqa: E402
from bench_shapes import BUILDERS, SUBSETS, Shaped, load, no_web_world  # noqa: E402
from train_ranker import (  # noqa: E402
    CMRC_GIT,
    XQUAD_GIT,
    fit_trees,
    git_head,
    model_text,
    write_or_check,
)

from demo.corpus import corpus_world, research_run  # noqa: E402
from research.lines import (  # noqa: E402
    LINE_FEATURES,
    LINE_PATH,
    best_line,
    hand_set_line,
    line_features,
    line_in_order,
    line_pool,
    model_chooses,
)
from research.notes import Findings, summary_lines  # noqa: E402
from research.selection import Quote  # noqa: E402

#: The benchmark's sets the questions come from.
SETS = ("single", "pairs", "several", "sections", "long", "langs", "files")
#: Multi-part questions per sub-set (one language of a set).
LIMIT = 40
SEED = 0
#: Folds of the questions the model is cross-validated over.
FOLDS = 5

T = TypeVar("T")


@dataclass
class Part:
    """One answered part of a run: its candidates' features and labels, the indices of
    those a line may be, and the one the hand-set weighing chooses."""

    question: str
    set: str
    rows: list[list[float]]
    labels: list[int]
    pool: list[int]
    rules: int
    #: what the part asks (:attr:`research.question.Focus.kind`)
    kind: str = ""
    #: whether the model chooses the part's line (:func:`research.lines.model_chooses`)
    chosen_by_model: bool = False
    #: the part as the plan asks it
    text: str = ""


def _parts(q: Shaped, host: Any) -> list[Part]:
    """One question's run (its Host); its answered parts' candidates."""
    findings: Findings = host.state.research
    zh = q.case.article.page.lang in UNSPACED
    answers: dict[str, list[str]] = {}
    for qa in q.case.gold:
        best = max(findings.plan.subquestions, key=lambda s: overlap(qa.question, s.text))
        answers.setdefault(best.id, []).extend(qa.answers)
    parts: list[Part] = []
    seen: set[str] = set()  # a part asked again among fewer candidates is recorded once

    def record(research: Findings, sub_id: str, ids: list[str]) -> str | None:
        focus, scores = research.focus[sub_id], research.evidence[sub_id]
        cands = [
            (Quote(i, item.url, item.span, item.start), scores.get(i, 0.0))
            for i in ids
            if (item := research.item(i)) is not None
        ]
        lang, likely = research.plan.language, research.likelihood.get(sub_id, {})
        pool = line_pool(focus, cands, lang, likely)
        ordered = line_in_order(focus, cands, lang, likely) if cands else None
        rules = hand_set_line(focus, cands, lang, likely) if cands else 0
        if cands and ordered is None and sub_id in answers and sub_id not in seen:
            seen.add(sub_id)
            rows = line_features(focus, cands, likely)
            labels = [int(states([c.span], answers[sub_id], zh)) for c, _ in cands]
            features = [[row[n] for n in LINE_FEATURES] for row in rows]
            parts.append(
                Part(
                    q.case.question,
                    "",
                    features,
                    labels,
                    pool,
                    rules,
                    focus.kind,
                    chosen_by_model=model_chooses(focus),
                    text=focus.text,
                )
            )
        # the hand-set weighing's line, not the committed model's choice: what the later
        # parts are offered must not depend on the model being fitted
        return cands[rules][0].key if cands else None

    summary_lines(findings, choose=record)
    return parts


async def run_questions(
    shape: str, sub: str, tmp: Path, kind: str, limit: int, take: Callable[[Shaped, Any], list[T]]
) -> list[T]:
    """The ``limit`` questions of one kind (``multi`` or ``off``, as the benchmark names
    them) of one tune sub-set through the offline pipeline, one world serving them all as
    in the benchmark (for the own-files set, each its input file and no web); what
    ``take`` makes of each question and the Host that ran it."""
    wanted = (limit, 0) if kind == "multi" else (0, limit)
    built = BUILDERS[shape](load(shape, sub, _Args, {}), "tune", wanted, SEED)
    questions = [q for q in built.questions if q.case.kind == kind]
    runs = tmp / "runs"
    runs.mkdir(exist_ok=True)
    out: list[T] = []
    if shape == "files":
        for i, q in enumerate(questions):
            assert q.input_file is not None
            folder = tmp / f"input-{sub}-{kind}-{i}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / q.input_file[0]).write_bytes(q.input_file[1])
            host, _ = await research_run(q.case.question, no_web_world(folder), runs)
            out += take(q, host)
    else:
        with corpus_world(built.pages, tmp / f"site-{shape}-{sub}-{kind}") as world:
            for q in questions:
                host, _ = await research_run(q.case.question, world, runs)
                out += take(q, host)
    return out


class _Args:
    """What ``bench_shapes.load`` reads of the command line: where the data is."""

    xquad = XQUAD_GIT
    cmrc = CMRC_GIT


def gather(limit: int) -> tuple[list[Part], dict[str, int]]:
    """Every set's answered parts, and how many each gave."""
    parts: list[Part] = []
    counts: dict[str, int] = {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="train-lines-") as tmp, quiet_logs():
        for shape in SETS:
            for sub in SUBSETS[shape]:
                got = asyncio.run(run_questions(shape, sub, Path(tmp), "multi", limit, _parts))
                counts[f"{shape}/{sub}"] = len(got)
                for part in got:
                    part.set = f"{shape}/{sub}"
                parts += got
                print(
                    f"{shape}/{sub}: {len(got)} parts ({time.perf_counter() - started:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    return parts, counts


def _fit(parts: Sequence[Part]) -> Any:
    rows = [p.rows[i] for p in parts for i in p.pool]
    labels = [p.labels[i] for p in parts for i in p.pool]
    return fit_trees(rows, labels, LINE_FEATURES)


def _fold(question: str) -> int:
    return hashlib.sha256(f"lines:{question}".encode()).digest()[0] % FOLDS


def figures(parts: Sequence[Part]) -> dict[str, Any]:
    """The share of parts whose line holds the gold answer: by the model fitted on the
    other folds (``cross_validated``), by the hand-set weighing (``rules``), by the
    first candidate a line may be (``first``), and by any (``any``); the first two again
    over the parts asking for a span (``spans``), and over those whose line the model
    chooses (``chosen_by_model``: those asking for a span or for what a thing is
    called)."""
    chosen: dict[int, int] = {}
    for k in range(FOLDS):
        judge = _fit([p for p in parts if _fold(p.question) != k])
        for n, p in enumerate(parts):
            if _fold(p.question) == k:
                rows = [dict(zip(LINE_FEATURES, row, strict=True)) for row in p.rows]
                chosen[n] = best_line(judge, rows, p.pool)
    typed = LINE_FEATURES.index("typed")
    spans = [n for n, p in enumerate(parts) if p.rows[0][typed]]
    mine = [n for n, p in enumerate(parts) if p.chosen_by_model]

    def share(hits: Sequence[int]) -> float:
        return round(sum(hits) / max(1, len(hits)), 4)

    return {
        "parts": len(parts),
        "cross_validated": share([p.labels[chosen[n]] for n, p in enumerate(parts)]),
        "rules": share([p.labels[p.rules] for p in parts]),
        "first": share([p.labels[p.pool[0]] for p in parts]),
        "any": share([max(p.labels[i] for i in p.pool) for p in parts]),
        "spans": {
            "parts": len(spans),
            "cross_validated": share([parts[n].labels[chosen[n]] for n in spans]),
            "rules": share([parts[n].labels[parts[n].rules] for n in spans]),
        },
        "chosen_by_model": {
            "parts": len(mine),
            "cross_validated": share([parts[n].labels[chosen[n]] for n in mine]),
            "rules": share([parts[n].labels[parts[n].rules] for n in mine]),
        },
    }


def train(limit: int = LIMIT, cache: Path | None = None) -> dict[str, Any]:
    """The model file's content, fitted on :func:`gather`'s parts (read from ``cache``
    when it holds them, and written there when it does not: a quicker way to try a
    change to the fitting, never to the features)."""
    if cache is not None and cache.is_file():
        parts, counts = pickle.loads(cache.read_bytes())
    else:
        parts, counts = gather(limit)
        if cache is not None:
            cache.write_bytes(pickle.dumps((parts, counts)))
    judge = _fit(parts)
    return {
        "features": list(LINE_FEATURES),
        "threshold": 0.0,
        "thresholds": {},
        "trees": [[list(node) for node in tree] for tree in judge.trees],
        "figures": figures(parts),
        "training": {
            "script": "scripts/train_lines.py",
            "data": {
                "google-deepmind/xquad": git_head(XQUAD_GIT),
                "ymcui/cmrc2018": git_head(CMRC_GIT),
            },
            "split": "tune half of each set, as bench/bench_shapes.py splits it",
            "sets": counts,
            "questions_per_subset": limit,
            "seed": SEED,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed model")
    parser.add_argument("--out", type=Path, default=LINE_PATH)
    parser.add_argument(
        "--limit", type=int, default=LIMIT, help="questions per sub-set (a quick look: 3)"
    )
    parser.add_argument("--cache", type=Path, help="keep the parts here between tries")
    args = parser.parse_args()
    model = train(args.limit, args.cache)
    print(json.dumps(model["figures"] | {"sets": model["training"]["sets"]}, indent=1))
    write_or_check(args.out, model_text(model), args.check)


if __name__ == "__main__":
    main()
