"""How well research.support tells a supported claim from an unsupported one.

Claims are made from public reading-comprehension data read at run time (XQuAD, English
and Chinese): each question with its answer put where the question word was ("Which
river flows through Paris?" + "the Seine" → "the Seine flows through Paris") is what a
writer would say having read the answer's sentence. Checked against that sentence it
should be supported; checked against another sentence of the same article (one that does
not give the answer) it should not. The script prints, for a range of overlap
thresholds, the share of true claims kept and of false claims let through, and the same
at the threshold in use (``research.support.SUPPORT_OVERLAP``)::

    .venv/bin/python bench/bench_support.py [--xquad GITDIR] [--limit N]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_general import load_xquad

from research import support
from research.text import passages

_EN_WH = re.compile(
    r"^(?:what|which|who|whom|where|when|how many|how much)"
    r"(?:\s+(?:is|was|are|were|did|does|do))?\s+",
    re.I,
)
_ZH_WH = re.compile(r"什么|哪[个些里一]?|谁|多少|何时")


def claim_of(question: str, answer: str, zh: bool) -> str | None:
    """The question as a statement of its answer, or None when it cannot be made."""
    q = question.strip().rstrip("?？").strip()
    if zh:
        return _ZH_WH.sub(answer, q, count=1) + "。" if _ZH_WH.search(q) else None
    if not _EN_WH.match(q):
        return None
    return f"{answer} {_EN_WH.sub('', q, count=1)}."


Pair = tuple[str, str, str]  # a sentence, the one before it and the one after it


def pairs(lang: str, gitdir: Path, limit: int, rng: random.Random) -> list[tuple[str, Pair, Pair]]:
    """``(claim, its sentence, another sentence)`` of one language, each sentence with the
    sentences around it on its page."""
    out = []
    zh = lang == "zh"
    for article in load_xquad(gitdir, lang):
        for paragraph in article.page.paragraphs:
            said = [s.text for s in passages(paragraph)]
            around = [
                (s, said[i - 1] if i else "", said[i + 1] if i + 1 < len(said) else "")
                for i, s in enumerate(said)
            ]
            for qa in article.qas:
                answer = qa.answers[0] if qa.answers else ""
                claim = claim_of(qa.question, answer, zh) if answer else None
                gold = [a for a in around if answer and answer in a[0]]
                others = [a for a in around if answer not in " ".join(a)]
                if claim and gold and others:
                    out.append((claim, gold[0], rng.choice(others)))
    rng.shuffle(out)
    return out[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--xquad", type=Path, default=Path("/tmp/xquad.git"))
    parser.add_argument("--limit", type=int, default=400, help="claims per language")
    args = parser.parse_args()
    rng = random.Random(7)
    thresholds = [0.3, 0.4, 0.5, 0.6, 0.7]
    print(f"{'lang':5} {'threshold':>9} {'true kept':>10} {'false kept':>11} {'claims':>7}")
    for lang in ("en", "zh"):
        triples = pairs(lang, args.xquad, args.limit, rng)
        true = [support.supports(c, s[0], f"{s[1]} {s[2]}") for c, s, _ in triples]
        false = [support.supports(c, o[0], f"{o[1]} {o[2]}") for c, _, o in triples]
        for t in [*thresholds, support.SUPPORT_OVERLAP]:
            kept = sum(not v.missing and v.overlap >= t for v in true) / len(true)
            leak = sum(not v.missing and v.overlap >= t for v in false) / len(false)
            mark = " (in use)" if t == support.SUPPORT_OVERLAP else ""
            print(f"{lang:5} {t:>9.2f} {kept:>10.0%} {leak:>11.0%} {len(triples):>7}{mark}")


if __name__ == "__main__":
    main()
