"""How often a part's answer line shows the right span, on public reading-comprehension
data read at run time (XQuAD English, CMRC 2018).

For each question that asks *when*, *how many*, *who* or *where* (as
:func:`research.question.question_kind` reads it), the sentence of its paragraph that
holds the gold answer is what the report would quote; the span the report would bold is
:func:`research.answer.answer_span` of that sentence. A span is **right** when it and a
gold answer hold each other (either contains the other, case and spaces aside), **wrong**
when it is shown and not right, and **none** when no span is shown (the line is then the
sentence alone, which is never wrong). The naive baseline, measured in the same run, takes
the first number (for *when*, *how many*) or the first capitalised run or tagged name
(for *who*, *where*) the question does not give.

Articles are split into tune and held-out halves by ``bench_general.split_of``::

    .venv/bin/python bench/bench_answer_spans.py [--split tune|held-out|all]
        [--xquad GITDIR] [--cmrc GITDIR] [--limit N]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_general import Article, load_cmrc, load_xquad

from research.answer import answer_span
from research.names import names_in
from research.question import Focus, question_kind
from research.text import passages

KINDS = ("when", "number", "who", "where")


def _norm(text: str) -> str:
    text = re.sub(r"^(?:the|a|an)\s+", "", text.strip().lower())
    return re.sub(r"[\s\"'“”‘’.,，。]+", "", text)


def right(span: str, answers: list[str]) -> bool:
    """Whether a shown span and a gold answer hold each other."""
    got = _norm(span)
    return bool(got) and any((g := _norm(a)) and (g in got or got in g) for a in answers)


def naive(question: str, kind: str, sentence: str) -> str:
    """The baseline: the first number, or the first name, the question does not give."""
    if kind in ("when", "number"):
        asked = set(re.findall(r"\d[\d,.]*", question))
        return next((n for n in re.findall(r"\d[\d,.]*", sentence) if n not in asked), "")
    found = names_in(sentence, kind, question)
    return found[0].text if found else ""


def cases(articles: list[Article], split: str) -> Iterator[tuple[str, str, str, list[str]]]:
    """``(kind, question, sentence, answers)`` for each question of a kind a span answers
    whose answer one sentence of its paragraph holds."""
    for article in articles:
        if split != "all" and article.split != split:
            continue
        paragraphs = article.page.paragraphs
        for qa in article.qas:
            kind = question_kind(qa.question)
            if kind not in KINDS or not qa.answers:
                continue
            texts = paragraphs if qa.paragraph < 0 else [paragraphs[qa.paragraph]]
            holding = [
                s.text for p in texts for s in passages(p) if any(a in s.text for a in qa.answers)
            ]
            if holding:
                yield kind, qa.question, holding[0], qa.answers


def tally(
    rows: list[tuple[str, str, str, list[str]]], spanner: Callable[[str, str, str], str]
) -> dict[str, Counter[str]]:
    """Per kind, how many spans are right, wrong or none."""
    out: dict[str, Counter[str]] = {}
    for kind, question, sentence, answers in rows:
        span = spanner(question, kind, sentence)
        verdict = "none" if not span else "right" if right(span, answers) else "wrong"
        out.setdefault(kind, Counter())[verdict] += 1
    return out


def ours(question: str, kind: str, sentence: str) -> str:
    return answer_span(Focus(question, (), (), (), kind), sentence)


def show(name: str, got: dict[str, Counter[str]]) -> None:
    for kind in KINDS:
        c = got.get(kind, Counter())
        n = sum(c.values())
        if not n:
            continue
        shown = c["right"] + c["wrong"]
        precision = c["right"] / shown if shown else 0.0
        print(
            f"  {name:<6} {kind:<7} n={n:<5} right {100 * c['right'] / n:5.1f}%  "
            f"wrong {100 * c['wrong'] / n:5.1f}%  none {100 * c['none'] / n:5.1f}%  "
            f"precision {precision:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="tune", choices=["tune", "held-out", "all"])
    parser.add_argument("--xquad", type=Path, default=Path("/tmp/xquad.git"))
    parser.add_argument("--cmrc", type=Path, default=Path("/tmp/cmrc2018.git"))
    parser.add_argument("--limit", type=int, default=0, help="at most N questions a set")
    args = parser.parse_args()
    sets = {"xquad-en": load_xquad(args.xquad, "en"), "cmrc": load_cmrc(args.cmrc)}
    for name, articles in sets.items():
        rows = list(cases(articles, args.split))
        rows = rows[: args.limit] if args.limit else rows
        print(f"{name} ({args.split}, {len(rows)} questions)")
        show("ours", tally(rows, ours))
        show("naive", tally(rows, naive))


if __name__ == "__main__":
    main()
