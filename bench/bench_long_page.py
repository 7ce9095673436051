"""Preparing and scoring a long page: seconds for a page of about 500 sentences and a
question of three parts, against a plain BM25 over the same sentences.

The pages are made from the demo's bundled articles (English and Chinese), each repeat a
different order of them, with the core's caches of words and sentences emptied first, so
that every repeat prepares a page as a new one (word lists and models stay loaded, as in a
run). For each
page it times :meth:`research.document.Document.prepare` and :func:`assessed` for every
part of the demo question, and, as the naive baseline measured in the same run,
``rank_bm25`` over the page's sentences cut by the same tokenizer. It prints the mean,
median and 90th percentile of each and the ratio of the core's total to the baseline's.

    .venv/bin/python bench/bench_long_page.py [--repeat N] [--sentences N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rank_bm25 import BM25Okapi  # noqa: E402

from demo.site import DEMO_QUESTION, DEMO_QUESTION_ZH  # noqa: E402
from research.document import Document  # noqa: E402
from research.plan import offline_plan  # noqa: E402
from research.relevance import assessed  # noqa: E402
from research.text import passages, terms  # noqa: E402

CONTENT = ROOT / "demo" / "content"


def articles(lang: str) -> list[str]:
    """The bodies of the demo's bundled articles in one language (front matter cut)."""
    out = []
    for path in sorted((CONTENT / lang).glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---"):
            text = text.split("---", 2)[-1]
        out.append(text.strip())
    return out


def long_page(bodies: list[str], sentences: int, rng: random.Random) -> str:
    """Articles in a random order, as sections of one page, until it has ``sentences``."""
    order = bodies[:]
    rng.shuffle(order)
    page, count = "# A long page\n\n", 0
    while count < sentences:
        for body in order:
            page += body + "\n\n"
            count += len(passages(body))
            if count >= sentences:
                break
    return page


def forget() -> None:
    """Empty the research core's caches of words, sentences and pages (its word lists
    and models stay loaded), so that a page is prepared as a new one is."""
    for name, module in list(sys.modules.items()):
        if name.startswith("research"):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)) and value.__name__ not in (
                    "model",
                    "jieba_loaded",
                    "_stemmer",
                    "_lemmas",
                    "_segmenter",
                ):
                    value.cache_clear()


def timed(question: str, page: str) -> tuple[float, float, float, int]:
    """Seconds to prepare the page, to score it for every part, and for the baseline."""
    plan = offline_plan(question)
    forget()
    focuses = [plan.focus(s) for s in plan.subquestions]
    started = time.perf_counter()
    doc = Document.prepare(page, "A long page")
    prepared = time.perf_counter()
    for focus in focuses:
        assessed(focus, doc)
    scored = time.perf_counter()
    tokens = [terms(s.text) for s in passages(page)]
    index = BM25Okapi(tokens)
    for sub in plan.subquestions:
        index.get_scores(terms(sub.text))
    baseline = time.perf_counter()
    return prepared - started, scored - prepared, baseline - scored, len(doc.sentences)


def _figures(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    mean, median = statistics.mean(values), statistics.median(values)
    return f"mean {mean:.2f} s, median {median:.2f} s, p90 {p90:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sentences", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(0)
    for lang, question in (("en", DEMO_QUESTION), ("zh", DEMO_QUESTION_ZH)):
        bodies = articles(lang)
        timed(question, long_page(bodies, 50, rng))  # word lists and models loaded
        rows = [timed(question, long_page(bodies, args.sentences, rng)) for _ in range(args.repeat)]
        prepare = [r[0] for r in rows]
        score = [r[1] for r in rows]
        total = [r[0] + r[1] for r in rows]
        base = [r[2] for r in rows]
        parts = len(offline_plan(question).subquestions)
        print(f"{lang}: {statistics.mean(r[3] for r in rows):.0f} sentences, {parts} parts")
        print(f"  prepare       {_figures(prepare)}")
        print(f"  score         {_figures(score)}")
        print(f"  total         {_figures(total)}")
        print(f"  plain BM25    {_figures(base)}")
        print(f"  core / BM25   {statistics.mean(total) / statistics.mean(base):.1f}x")


if __name__ == "__main__":
    main()
