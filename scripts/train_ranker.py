"""Fit the research core's sentence model (``research/model/ranker.json``) from public data.

Usage (from the repository root, after ``bash run.sh test`` or ``bash scripts/setup.sh``)::

    git clone --mirror https://github.com/google-deepmind/xquad /tmp/xquad.git
    git clone --mirror https://github.com/ymcui/cmrc2018 /tmp/cmrc2018.git
    .venv/bin/python scripts/train_ranker.py            # rewrites research/model/ranker.json
    .venv/bin/python scripts/train_ranker.py --check    # retrains and compares, writes nothing

The data is read at run time with ``git show`` (``QUARTET_XQUAD``/``QUARTET_CMRC`` name other
git directories) and never copied here. Training uses the **tune half only** of every set,
split by article exactly as the benchmarks split them (:func:`split_of`, a hash of the
article's key), so that no article any evaluation reports on is seen: XQuAD in its twelve
languages (the same 48 articles, keyed by the English title) and CMRC 2018's development set
(keyed by title). CMRC 2018's trial set is kept for a fresh held-out check and is not read.

For each tune article, its questions are joined two or three at a time into one question,
as a user asks several things at once, and planned by the offline planner
(:func:`research.plan.offline_plan`); each gold question goes to the part whose words it
shares most. Every sentence of the gold article and of three other articles of the same
language (the two a search engine ranks first for the part's words, as a run would read
them, and one at random) gives one example per part: its features
(:func:`research.relevance.features_of`) and whether it holds that part's gold answer (the
occurrence at the data's answer offset). The weights are fitted as a ranking of each part's
sentences (a logistic regression on pairs, scikit-learn's lbfgs: deterministic), then
scaled to a probability (see :func:`fit`).

Two cut-offs are then calibrated on the same training examples, never on an evaluation
set: ``threshold`` is the score that the best sentence of the *other* articles stays under
for :data:`HONEST` of the parts (a part asked of pages that do not answer it should find
nothing), and ``lead_floor`` the score it stays under for :data:`HONEST_LEAD` of them (a
lead stands only on a page about the part's subject). The file records the data's commits,
the counts, and the figures on the training data: the model's in the sample and
cross-validated over two halves of the articles, and the hand-set rules' beside them.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import pickle
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rank_bm25 import BM25Okapi  # noqa: E402

from research.plan import offline_plan  # noqa: E402
from research.ranking import FEATURES, MODEL_PATH  # noqa: E402
from research.relevance import Document, Focus  # noqa: E402
from research.relevance import _signals as signals  # noqa: E402
from research.text import grams  # noqa: E402

XQUAD_GIT = Path(os.environ.get("QUARTET_XQUAD", "/tmp/xquad.git"))
CMRC_GIT = Path(os.environ.get("QUARTET_CMRC", "/tmp/cmrc2018.git"))
XQUAD_LANGS = ("en", "zh", "de", "es", "ru", "el", "tr", "ar", "hi", "th", "vi", "ro")
CMRC_FILE = "squad-style-data/cmrc2018_dev.json"
#: The share of parts whose best sentence on pages that do not answer them stays under
#: the threshold.
HONEST = 0.975
#: The same share for the lead floor: a lead stands only on a page about the part's
#: subject (see :attr:`research.relevance.Scored.lead`), so it may be fainter.
HONEST_LEAD = 0.9
#: Articles of other subjects scored beside the gold one for each part, of which
#: :data:`HARD` are those a search engine would rank first for the part's words.
DISTRACTORS, HARD = 3, 2
#: Parts taken per XQuAD language and from CMRC 2018 (the tune halves are larger).
PARTS_PER_SET = 360
SEED = 0
#: The evidence threshold of the hand-set rules (:data:`research.relevance.THRESHOLD`
#: under ``QUARTET_RANKER=rules``), for the comparison the file records.
RULES_THRESHOLD = 0.45
#: Sentences without the answer each sentence with it is paired with, at most.
PAIRS = 40
#: The L2 strength of the regression (scikit-learn's ``C``).
REGULARISATION = 1.0


@dataclass
class QA:
    question: str
    answers: list[tuple[str, int]]  # text, offset in the article's page text


@dataclass
class Article:
    key: str
    lang: str
    title: str
    text: str  # the page as Markdown
    qas: list[QA]


def split_of(key: str) -> str:
    """``tune`` or ``held-out``, by a stable hash of an article's key (as the benchmarks)."""
    return "tune" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def git_bytes(gitdir: Path, path: str) -> bytes:
    proc = subprocess.run(
        ["git", "--git-dir", str(gitdir), "show", f"HEAD:{path}"], capture_output=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"train_ranker: error: no {path} in {gitdir} (clone it: see --help)")
    return proc.stdout


def git_head(gitdir: Path) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(gitdir), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()


def first_clause(paragraph: str, shortest: int = 6, limit: int = 18) -> str:
    """A page title from an article's own first clauses (for sets with no title in the
    article's language)."""
    title = ""
    for clause in re.split(r"[，。；：！？（(、,;:.]", paragraph.strip()):
        title = f"{title}, {clause.strip()}" if title else clause.strip()
        if len(title) >= shortest:
            break
    return (title or paragraph)[:limit].strip()


def _page(title: str, paragraphs: Sequence[str]) -> tuple[str, list[int]]:
    """The page's Markdown and where each paragraph starts in it."""
    text, starts = f"# {title}\n\n", []
    for p in paragraphs:
        starts.append(len(text))
        text += p + "\n\n"
    return text, starts


def _article(key: str, lang: str, title: str, paragraphs: list[dict[str, Any]]) -> Article:
    contexts = [p["context"] for p in paragraphs]
    text, starts = _page(title, contexts)
    qas = []
    for p, start in zip(paragraphs, starts, strict=True):
        for qa in p["qas"]:
            answers = [(a["text"], start + a["answer_start"]) for a in qa["answers"] if a["text"]]
            if answers:
                qas.append(QA(" ".join(qa["question"].split()), answers))
    return Article(key, lang, title, text, qas)


def load_xquad(lang: str) -> list[Article]:
    english = json.loads(git_bytes(XQUAD_GIT, "xquad.en.json"))["data"]
    own = english if lang == "en" else json.loads(git_bytes(XQUAD_GIT, f"xquad.{lang}.json"))
    data = english if lang == "en" else own["data"]
    out = []
    for en, art in zip(english, data, strict=True):
        key = en["title"]
        title = (
            key.replace("_", " ") if lang == "en" else first_clause(art["paragraphs"][0]["context"])
        )
        out.append(_article(key, lang, title, art["paragraphs"]))
    return out


def load_cmrc() -> list[Article]:
    out = []
    for item in json.loads(git_bytes(CMRC_GIT, CMRC_FILE))["data"]:
        for p in item["paragraphs"]:
            title = item.get("title", "").strip() or first_clause(p["context"])
            key = item.get("title", "").strip() or p["id"]
            out.append(_article(key, "zh", title, [p]))
    return out


# ----------------------------------------------------------------------------- examples


def joined(qs: Sequence[str], lang: str, rng: random.Random) -> str:
    """Several questions asked as one, as the benchmarks ask them."""
    bare = [q.strip().rstrip("?？ .。").strip() for q in qs]
    if lang in ("zh", "ja"):
        return "".join(q + "？" for q in bare)
    if lang == "en" and rng.random() < 0.4:
        rest = [q[0].lower() + q[1:] if q.split()[0].lower() in _EN_OPENERS else q for q in bare]
        return ", ".join([bare[0], *rest[1:-1]]) + f", and {rest[-1]}?"
    return " ".join(q + "?" for q in bare)


_EN_OPENERS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])


def _tokens(text: str) -> set[str]:
    low = text.lower()
    if re.search(r"[\u3040-\u9fff\u0e00-\u0e7f]", low):
        chars = re.findall(r"\w", low)
        return {a + b for a, b in itertools.pairwise(chars)} or set(chars)
    return {w for w in re.findall(r"\w+", low) if len(w) > 2}


def _part_of(question: str, parts: Sequence[Any]) -> Any:
    gold = _tokens(question)
    return max(parts, key=lambda p: len(gold & _tokens(p.text)) / max(1, len(gold)))


def _gold_sentences(doc: Document, answers: Sequence[tuple[str, int]]) -> set[int]:
    """The sentences holding an answer at its offset (or, when the page's sentences do
    not cover that offset, any sentence saying it)."""
    out = set()
    for text, offset in answers:
        for i, s in enumerate(doc.sentences):
            if s.start <= offset and offset + len(text) <= s.end + 1:
                out.add(i)
    if not out:
        wanted = {t for t, _ in answers}
        out = {i for i, s in enumerate(doc.sentences) if any(t in s.text for t in wanted)}
    return out


@dataclass
class Example:
    features: list[float]
    label: int
    group: str  # the part it belongs to
    article: str  # the gold article's key (folds never split an article)
    gold_page: bool
    rules: float  # the hand-set rules' score, to compare with


def part_examples(
    focus: Focus, gold: Article, answers: list[tuple[str, int]], others: Sequence[Article], gid: str
) -> Iterator[Example]:
    """The examples of one part: every complete sentence of its article and of the
    others."""
    for article in [gold, *others]:
        doc = Document.of(article.text, article.title)
        positive = _gold_sentences(doc, answers) if article is gold else set()
        for i, sentence in enumerate(doc.sentences):
            if not sentence.complete:
                continue
            feats, _, _, rules = signals(focus, doc, i)
            yield Example(
                [feats[n] for n in FEATURES],
                int(i in positive),
                gid,
                gold.key,
                article is gold,
                rules,
            )


def examples(
    articles: list[Article], name: str, rng: random.Random, limit: int = PARTS_PER_SET
) -> list[Example]:
    """The examples of one set's tune articles, at most ``limit`` parts."""
    tune = [a for a in articles if split_of(a.key) == "tune" and a.qas]
    index = BM25Okapi([sorted(grams(a.text)) for a in tune])
    out: list[Example] = []
    parts_done = 0
    order = tune[:]
    rng.shuffle(order)
    queue = []
    for article in order:
        qas = article.qas[:]
        rng.shuffle(qas)
        i = 0
        while i + 1 < len(qas):
            n = rng.choice((2, 2, 3))
            queue.append((article, qas[i : i + n]))
            i += n
    rng.shuffle(queue)
    for article, group in queue:
        if parts_done >= limit:
            break
        plan = offline_plan(joined([q.question for q in group], article.lang, rng))
        by_part: dict[str, list[tuple[str, int]]] = {}
        for qa in group:
            by_part.setdefault(_part_of(qa.question, plan.subquestions).id, []).extend(qa.answers)
        for sub in plan.subquestions:
            if sub.id not in by_part:
                continue
            others = distractors(sub.text, article, tune, index, rng)
            focus = plan.focus(sub)
            gid = f"{name}:{article.key}:{len(out)}:{sub.id}"
            out.extend(part_examples(focus, article, by_part[sub.id], others, gid))
            parts_done += 1
    return out


def distractors(
    part: str, gold: Article, tune: list[Article], index: Any, rng: random.Random
) -> list[Article]:
    """The other articles a run would read for a part: the ones a search engine ranks
    first for its words (:data:`HARD` of them), and one drawn at random."""
    scores = index.get_scores(sorted(grams(part)))
    ranked = sorted(range(len(tune)), key=lambda i: (-scores[i], tune[i].key))
    hard = [tune[i] for i in ranked if tune[i] is not gold][:HARD]
    rest = [a for a in tune if a is not gold and a not in hard]
    return hard + rng.sample(rest, min(len(rest), DISTRACTORS - HARD))


# ------------------------------------------------------------------------------ fitting


def fit(data: list[Example]) -> tuple[list[float], float]:
    """The model's weights and bias: a ranking fitted on pairs, then scaled to a
    probability.

    First, for each part, every sentence holding its answer is paired with the other
    sentences read for it (at most :data:`PAIRS` of them, drawn with a fixed seed), and a
    logistic regression without intercept learns which of a pair answers from the
    difference of their features: the weights order a part's sentences. Then a
    one-feature logistic regression on that order's scores (Platt scaling) turns it into
    the probability that a sentence answers its part, over every example.
    """
    from sklearn.linear_model import LogisticRegression

    rng = random.Random(SEED)
    diffs: list[list[float]] = []
    signs: list[int] = []
    by_group: dict[str, list[Example]] = {}
    for e in data:
        by_group.setdefault(e.group, []).append(e)
    for group in by_group.values():
        negatives = [e for e in group if not e.label]
        for pos in (e for e in group if e.label):
            drawn = negatives if len(negatives) <= PAIRS else rng.sample(negatives, PAIRS)
            for neg in drawn:
                diff = [a - b for a, b in zip(pos.features, neg.features, strict=True)]
                sign = 1 if len(diffs) % 2 == 0 else -1  # both classes, for the solver
                diffs.append([sign * d for d in diff])
                signs.append(int(sign > 0))
    ranker = LogisticRegression(
        C=REGULARISATION, solver="lbfgs", max_iter=5000, fit_intercept=False
    )
    ranker.fit(diffs, signs)
    order = [float(w) for w in ranker.coef_[0]]
    raw = [[sum(w * f for w, f in zip(order, e.features, strict=True))] for e in data]
    platt = LogisticRegression(C=REGULARISATION, solver="lbfgs", max_iter=5000)
    platt.fit(raw, [e.label for e in data])
    scale = float(platt.coef_[0][0])
    return [scale * w for w in order], float(platt.intercept_[0])


def _score(weights: Sequence[float], bias: float, feats: Sequence[float]) -> float:
    import math

    z = bias + sum(w * f for w, f in zip(weights, feats, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _groups(data: list[Example], scores: Sequence[float]) -> list[list[tuple[float, Example]]]:
    groups: dict[str, list[tuple[float, Example]]] = {}
    for e, score in zip(data, scores, strict=True):
        groups.setdefault(e.group, []).append((score, e))
    return list(groups.values())


def cut_offs(data: list[Example], scores: Sequence[float]) -> tuple[float, float]:
    """The evidence threshold and the lead floor: the scores the best sentence of the
    other articles stays under for :data:`HONEST` and :data:`HONEST_LEAD` of the parts."""
    groups = _groups(data, scores)
    off = [max((s for s, e in g if not e.gold_page), default=0.0) for g in groups]
    threshold = _quantile(off, HONEST) + 1e-6
    return threshold, min(threshold, _quantile(off, HONEST_LEAD) + 1e-6)


def figures(data: list[Example], scores: Sequence[float], threshold: float) -> dict[str, float]:
    """How a scorer does on examples: the share of parts whose best sentence on the gold
    page, and over every page read, holds the answer; whose answer reaches the
    threshold; and (honest) whose best sentence elsewhere stays under it."""
    groups = _groups(data, scores)
    answerable = [g for g in groups if any(e.label for _, e in g)]
    first_on_page = first = over = 0
    for g in answerable:
        on_page = max((se for se in g if se[1].gold_page), key=lambda se: se[0])
        first_on_page += on_page[1].label
        first += max(g, key=lambda se: se[0])[1].label
        over += any(e.label and s >= threshold for s, e in g)
    honest = sum(max((s for s, e in g if not e.gold_page), default=0.0) < threshold for g in groups)
    n = max(1, len(answerable))
    return {
        "answer_first_on_its_page": round(first_on_page / n, 4),
        "answer_first_of_all_pages": round(first / n, 4),
        "answer_over_threshold": round(over / n, 4),
        "honest_nothing": round(honest / max(1, len(groups)), 4),
        "parts": len(groups),
    }


def cross_validated(data: list[Example]) -> dict[str, float]:
    """:func:`figures` of models fitted on half the articles and scored on the other
    half (thresholds calibrated on the fitting half), averaged over the two halves."""
    folds = [[e for e in data if _fold(e.article) == k] for k in (0, 1)]
    out: dict[str, float] = {}
    for k in (0, 1):
        train_on, test_on = folds[1 - k], folds[k]
        weights, bias = fit(train_on)
        threshold, _ = cut_offs(train_on, [_score(weights, bias, e.features) for e in train_on])
        got = figures(test_on, [_score(weights, bias, e.features) for e in test_on], threshold)
        for key, value in got.items():
            out[key] = round(out.get(key, 0.0) + value / 2, 4)
    return out


def _fold(key: str) -> int:
    return hashlib.sha256(f"fold:{key}".encode()).digest()[0] % 2


def gather(limit: int) -> tuple[list[Example], dict[str, dict[str, int]]]:
    """Every set's training examples, and how many each gave."""
    rng = random.Random(SEED)
    data: list[Example] = []
    counts = {}
    started = time.perf_counter()
    sets = [(f"xquad.{lang}", lambda lang=lang: load_xquad(lang)) for lang in XQUAD_LANGS]
    sets.append(("cmrc2018.dev", load_cmrc))
    for name, load in sets:
        got = examples(load(), name, rng, limit)
        counts[name] = {"examples": len(got), "positives": sum(e.label for e in got)}
        data += got
        print(
            f"{name}: {len(got)} examples, {counts[name]['positives']} positive "
            f"({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    return data, counts


def train(limit: int = PARTS_PER_SET, cache: Path | None = None) -> dict[str, Any]:
    """The model file's content, fitted on :func:`gather`'s examples (read from
    ``cache`` when it holds them, and written there when it does not: a quicker way to
    try a change to the fitting, never to the features)."""
    if cache is not None and cache.is_file():
        data, counts = pickle.loads(cache.read_bytes())
    else:
        data, counts = gather(limit)
        if cache is not None:
            cache.write_bytes(pickle.dumps((data, counts)))
    weights, bias = fit(data)
    weights, bias = [round(w, 6) for w in weights], round(bias, 6)
    scores = [_score(weights, bias, e.features) for e in data]
    threshold, lead_floor = cut_offs(data, scores)
    model = {
        "features": list(FEATURES),
        "weights": weights,
        "bias": bias,
        "threshold": round(threshold, 6),
        "lead_floor": round(lead_floor, 6),
        "calibration": {
            "honest_target": HONEST,
            "training": figures(data, scores, threshold),
            "cross_validated": cross_validated(data),
            "rules": figures(data, [e.rules for e in data], RULES_THRESHOLD),
        },
    }
    model["training"] = {
        "script": "scripts/train_ranker.py",
        "data": {
            "google-deepmind/xquad": git_head(XQUAD_GIT),
            "ymcui/cmrc2018": git_head(CMRC_GIT),
        },
        "split": "tune half of each set (sha256 of the article key, first byte even)",
        "sets": counts,
        "parts_per_set": limit,
        "seed": SEED,
        "regularisation": REGULARISATION,
    }
    return model


def main() -> None:
    if os.environ.get("PYTHONHASHSEED") != "0":
        # the order of a set of words decides ties in the core (which facet, which
        # subject): the same order in every run makes the model the same byte for byte
        os.execve(
            sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"}
        )
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed model")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument(
        "--parts", type=int, default=PARTS_PER_SET, help="parts per set (a quick look: 30)"
    )
    parser.add_argument("--cache", type=Path, help="keep the examples here between tries")
    args = parser.parse_args()
    model = train(args.parts, args.cache)
    text = json.dumps(model, ensure_ascii=False, indent=1) + "\n"
    for name, w in zip(FEATURES, model["weights"], strict=True):
        print(f"  {name:<14} {w:+.3f}")
    print(f"  {'bias':<14} {model['bias']:+.3f}")
    cut = {"threshold": model["threshold"], "lead_floor": model["lead_floor"]}
    print(json.dumps(model["calibration"] | cut, indent=1))
    if args.check:
        same = args.out.read_text(encoding="utf-8") == text
        print("the committed model is reproduced byte for byte" if same else "the model differs")
        raise SystemExit(0 if same else 1)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
