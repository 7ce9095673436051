"""Which of the pages read answers a part best: classic document ranking (Okapi BM25) over
the run's own pages.

A part's words are weighed by how few of the pages read use them (the subject's name is
on every page about it and tells the pages apart no better than "the"; the one word of
the part that only two pages use points at them), and a page by how often it says them
for its length. The statistics come from the pages of the run itself, so the ranking
needs no word list and works alike for any subject and in any language.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: BM25's saturation of repeated words and its length normalisation (the usual values).
K1, B = 1.2, 0.75


@dataclass(frozen=True)
class PageTerms:
    """What a page says of a part's words: how often it says each, and its length in
    terms."""

    counts: Mapping[str, int] = field(default_factory=dict)
    length: int = 0

    @classmethod
    def of(cls, words: Iterable[str], page_counts: Mapping[str, int]) -> PageTerms:
        """The page's counts of ``words``, from all its term counts."""
        said = {w: page_counts[w] for w in set(words) if page_counts.get(w)}
        return cls(said, sum(page_counts.values()))

    def to_dict(self) -> dict[str, object]:
        return {"counts": dict(self.counts), "length": self.length}

    @classmethod
    def from_dict(cls, raw: Mapping[str, object]) -> PageTerms:
        counts = raw.get("counts", {})
        length = raw.get("length", 0)
        return cls(dict(counts) if isinstance(counts, Mapping) else {}, int(str(length)))


def bm25(words: Iterable[str], pages: Mapping[str, PageTerms]) -> dict[str, float]:
    """Each page's BM25 score for ``words``, with the words' rarity taken over ``pages``.

    Args:
        words: the part's terms.
        pages: what each page (by its path) says of them.
    """
    if not pages:
        return {}
    wanted = set(words)
    n = len(pages)
    df = Counter(w for page in pages.values() for w in wanted if page.counts.get(w))
    idf = {w: math.log(1 + (n - k + 0.5) / (k + 0.5)) for w, k in df.items()}
    average = sum(p.length for p in pages.values()) / n or 1.0
    out = {}
    for path, page in pages.items():
        norm = K1 * (1 - B + B * page.length / average)
        out[path] = sum(
            idf[w] * tf * (K1 + 1) / (tf + norm) for w in wanted if (tf := page.counts.get(w, 0))
        )
    return out


def agreed(rankings: Sequence[Mapping[str, float]]) -> set[str]:
    """The page that more than half of a question's parts (two at least) rank first among
    several pages that say their words: the page the question as a whole is about, though
    its title may name none of the parts' subjects (questions asked of one article, each
    about a different thing in it). A page read alone is first for every part, and so
    agreed on by none.

    Args:
        rankings: each part's ranking of the pages (see :func:`bm25`).
    """
    firsts = Counter(
        max(ranking, key=lambda p: (ranking[p], p))
        for ranking in rankings
        if sum(v > 0 for v in ranking.values()) >= 2  # first among several, not alone
    )
    need = max(2, len(rankings) // 2 + 1)
    return {page for page, n in firsts.items() if n >= need}
