"""Ranking texts for a part's words with Okapi BM25: the one ranking the research core and
the Browser share (:class:`BM25`), and which of the pages read answers a part best.

A part's words are weighed by how few of the pages read use them (the subject's name is
on every page about it and tells the pages apart no better than "the"; the one word of
the part that only two pages use points at them), and a page by how often it says them
for its length. The statistics come from the pages of the run itself, so the ranking
needs no word list and works alike for any subject and in any language. The same ranking
over a page's sentences tells which of them says the part's words that are rare on that
page (:func:`research.features.local_match`, and the Browser's answer without a model).
The text of the links between the pages read names each page too (:func:`inbound`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from urllib.parse import urldefrag, urljoin

from rank_bm25 import BM25Plus

from .text import links, terms

#: BM25's saturation of repeated words and its length normalisation (the usual values,
#: Lucene's and Elasticsearch's defaults).
K1, B = 1.2, 0.75


class BM25:
    """Okapi BM25 over one collection of documents (each a collection of terms), scored
    by ``rank_bm25``.

    It is ``rank_bm25``'s BM25+ with its ``delta`` at 0, which is the classic Okapi
    formula with the inverse document frequency ``log((N + 1) / n)``: positive for any
    word the collection holds, so that a word on one of two pages, or on every page of a
    few, still counts a little (``BM25Okapi``'s ``log((N - n + 0.5) / (n + 0.5))`` is zero
    or negative there, and a run often reads two or three pages). ``delta`` is left at 0
    because ``rank_bm25`` adds it for a word a document lacks too, which would lift every
    document alike. A query's words count once each.

    Args:
        documents: the terms of each document; anything with a length (the document's
            length in terms) that iterates over its terms, such as a list, a set (each
            term once) or a :class:`Bag`.
        b: the length normalisation, :data:`B` by default; 0 where documents are of like
            length and a word says as much in a long one as in a short one (sentences).
    """

    def __init__(self, documents: Sequence[Collection[str]], b: float = B) -> None:
        self.size = len(documents)
        filled = any(len(d) for d in documents)
        self._ranker = BM25Plus(documents, k1=K1, b=b, delta=0) if filled else None

    def scores(self, query: Iterable[str]) -> list[float]:
        """Each document's score for the words of ``query``, in the documents' order."""
        if self._ranker is None:
            return [0.0] * self.size
        return [float(s) for s in self._ranker.get_scores(list(dict.fromkeys(query)))]


@dataclass(frozen=True)
class Bag(Collection[str]):
    """A document known by its counts of some words and its whole length in terms, for
    :class:`BM25`: it iterates over the words it counts, each as often as it is said."""

    counts: Mapping[str, int]
    length: int

    def __len__(self) -> int:
        return self.length

    def __iter__(self) -> Iterator[str]:
        for word, count in self.counts.items():
            yield from repeat(word, count)

    def __contains__(self, word: object) -> bool:
        return bool(self.counts.get(word, 0)) if isinstance(word, str) else False


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
    """Each page's BM25 score for ``words``, with the words' rarity taken over ``pages``
    (see :class:`BM25`).

    Args:
        words: the part's terms.
        pages: what each page (by its path) says of them.
    """
    paths = list(pages)
    bags = [Bag(pages[p].counts, pages[p].length) for p in paths]
    return dict(zip(paths, BM25(bags).scores(words), strict=True))


def agreed(
    rankings: Sequence[Mapping[str, float]], named: Sequence[Collection[str]] | None = None
) -> set[str]:
    """The page that more than half of a question's parts (two at least) rank first among
    several pages that say their words: the page the question as a whole is about, though
    its title may name none of the parts' subjects (questions asked of one article, each
    about a different thing in it). A page read alone is first for every part, and so
    agreed on by none.

    Args:
        rankings: each part's ranking of the pages (see :func:`bm25`).
        named: for each part, when given, the pages that name its subject: a part's first
            page is the first of them (a page that shares a part's words while never naming
            what it asks about is not what the part is about).
    """
    firsts: Counter[str] = Counter()
    for i, ranking in enumerate(rankings):
        if sum(v > 0 for v in ranking.values()) < 2:  # first among several, not alone
            continue
        among = [p for p in ranking if named is None or p in named[i]]
        if among:
            firsts[max(among, key=lambda p: (ranking[p], p))] += 1
    need = max(2, len(rankings) // 2 + 1)
    return {page for page, n in firsts.items() if n >= need}


def link_words(text: str, address: str) -> list[tuple[str, frozenset[str]]]:
    """The links of a page at ``address``: each target's address (made absolute, without
    its fragment) and the terms of its text (see :func:`inbound`)."""
    out = []
    for anchor, target in links(text):
        said = frozenset(terms(anchor))
        if said and not target.startswith(("#", "mailto:", "javascript:")):
            out.append((urldefrag(urljoin(address, target))[0], said))
    return out


Links = Mapping[str, Sequence[tuple[str, frozenset[str]]]]


def inbound(linking: Links, addresses: Mapping[str, str]) -> dict[str, set[str]]:
    """For each page read that others link to, the terms of the text of the links the
    other pages read point to it with: a site's overview links its page on a topic by
    the topic's name, as the web names a page by the links to it.

    Args:
        linking: each page's links (see :func:`link_words`), by the page's name.
        addresses: each page's address, by its name.
    """
    named = {urldefrag(url)[0]: page for page, url in addresses.items()}
    said: dict[str, set[str]] = {}
    for source, out in linking.items():
        for target, words in out:
            page = named.get(target)
            if page is not None and page != source:
                said.setdefault(page, set()).update(words)
    return said


def linked_share(
    asked: Collection[str], said: Mapping[str, set[str]], pages: Iterable[str]
) -> dict[str, float]:
    """For each of ``pages``, the share of what a part asks (its terms,
    :attr:`research.question.Focus.asked`) that the links to it say (``said``, see
    :func:`inbound`)."""
    wanted = set(asked)
    if not wanted:
        return dict.fromkeys(pages, 0.0)
    return {page: len(wanted & said.get(page, set())) / len(wanted) for page in pages}


def standings(
    rankings: Mapping[str, Mapping[str, float]],
    asked: Mapping[str, Mapping[str, float]],
    asked_terms: Mapping[str, Collection[str]],
    linking: Links,
    addresses: Mapping[str, str],
) -> dict[str, dict[str, dict[str, float]]]:
    """Each part's :func:`standing` of every page read, by part id, with what the links
    between the pages say of each (see :func:`inbound`).

    Args:
        rankings: each part's ranking of the pages by its words.
        asked: each part's ranking of the pages by what it asks beyond its subject.
        asked_terms: each part's terms of what it asks (:attr:`~research.question.Focus.asked`).
        linking: each page's links (see :func:`link_words`), by the page's name.
        addresses: each page's address, by its name.
    """
    said = inbound(linking, addresses)
    return {
        part: standing(rankings, part, asked, linked_share(asked_terms[part], said, addresses))
        for part in rankings
    }


def standing(
    rankings: Mapping[str, Mapping[str, float]],
    part: str,
    asked: Mapping[str, Mapping[str, float]] | None = None,
    linked: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """How each page read stands for ``part`` among the pages read, as the model's page
    features (:data:`research.ranking.PAGE_FEATURES`):

    - ``page_share``: its score for the part as a share of the best page's (see
      :func:`bm25`);
    - ``page_first``: it is the best page for the part;
    - ``page_agreed``: it is the page the question's parts agree on (see :func:`agreed`);
    - ``page_asked``: its score for what the part asks beyond its subject
      (:attr:`research.question.Focus.asked`) as a share of the best page's: among pages
      that all name the subject, the page on the thing asked (a site's page on one topic
      beside its overview, which names the subject more often), ``page_share`` where
      ``asked`` is not given;
    - ``page_linked``: the share of what the part asks that the links to it from the
      other pages read say (see :func:`linked_share`; 0 where ``linked`` is not given).

    Args:
        rankings: each part's ranking of the pages, by part id.
        part: the part whose pages are wanted.
        asked: each part's ranking of the pages by what it asks beyond its subject.
        linked: the part's :func:`linked_share` of each page.
    """
    ranking = rankings.get(part, {})
    top = max(ranking.values(), default=0.0)
    first = max(ranking, key=lambda p: (ranking[p], p)) if top > 0 else None
    shared = agreed(list(rankings.values()))
    own = (asked or rankings).get(part, {})
    best = max(own.values(), default=0.0)
    return {
        page: {
            "page_share": score / top if top > 0 else 0.0,
            "page_first": float(page == first),
            "page_agreed": float(page in shared),
            "page_asked": own.get(page, 0.0) / best if best > 0 else 0.0,
            "page_linked": (linked or {}).get(page, 0.0),
        }
        for page, score in ranking.items()
    }


def rankings_of(
    words: Mapping[str, Collection[str]], pages: Mapping[str, Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """Each part's ranking of the pages (see :func:`bm25`), from every page's term counts.

    Args:
        words: each part's terms, by part id.
        pages: each page's counts of its terms, by the page's name.
    """
    return {
        part: bm25(said, {name: PageTerms.of(said, counts) for name, counts in pages.items()})
        for part, said in words.items()
    }
