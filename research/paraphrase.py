"""How close a sentence comes to what a part asks, in other words than the question's.

A part asks something of its subject ("how tall", "when … last erupt"); a page often
answers in other words ("its summit reaches 3,776 metres", "the most recent eruption").
Word matches miss that; static word embeddings catch some of it. WordLlama (its weights
ship inside its wheel, read with downloads off) embeds the part's words beyond its subject
and every sentence of a page; the cosine between them is one feature the learned model
weighs (:func:`research.features.features_of`), beside the page's best.

A page's sentence embeddings are computed once per page (kept in its memo), the part's
once per part.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import Any

from .document import Document
from .question import Focus
from .text import CJK, STOP_WORDS, simplified, stem, words


@lru_cache(maxsize=1)
def _model() -> Any:
    """WordLlama's default model, from the weights inside its package (never fetched).

    Importing wordllama configures the root logger (``logging.basicConfig`` at INFO),
    which would print every HTTP request a run makes: the logger is put back as it was.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
        root.setLevel(level)

    return wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )


@lru_cache(maxsize=4096)
def asked(text: str, subject: tuple[str, ...]) -> str:
    """The words of a part's question beyond its subject and stop words, as written
    ("tall" for "How tall is Mount Fuji?", 设定利率 for 美联储如何设定利率); the question
    without its subject when nothing else is left, the whole question when that is empty.

    Args:
        text: the part's question.
        subject: the part's subject terms (see :class:`research.question.Focus`).
    """
    own, whole = set(subject), text
    for term in sorted(subject, key=len, reverse=True):  # Chinese: its characters, cut any way
        if CJK.match(term):
            text = text.replace(term, " ")
    kept = [w for w in words(text) if w not in STOP_WORDS and stem(w) not in own]
    # a lone Chinese character is a particle or what is left of the subject's name
    kept = [w for w in kept if any(c.isalnum() for c in w) and not (len(w) == 1 and CJK.match(w))]
    if not kept:
        return " ".join(text.split()) or whole
    return "".join(kept) if all(CJK.match(w) for w in kept) else " ".join(kept)


def _embeddings(doc: Document) -> Any:
    """The page's sentence embeddings, unit length, one row per sentence, each of its
    Simplified form (a Traditional sentence comes as close as the same sentence in
    Simplified characters)."""
    key = ("embeddings",)
    if key not in doc.memo:
        texts = [simplified(s.text) for s in doc.sentences]
        doc.memo[key] = _model().embed(texts, norm=True) if texts else None
    return doc.memo[key]


def similarities(focus: Focus, doc: Document) -> tuple[list[float], float]:
    """For every sentence of the page, the cosine between it and what the part asks
    beyond its subject (:func:`asked`); and the page's best.

    Args:
        focus: the part.
        doc: the prepared page.
    """
    key = ("paraphrase", focus.text, focus.subject)
    if key not in doc.memo:
        rows = _embeddings(doc)
        if rows is None:
            doc.memo[key] = ([], 0.0)
        else:
            query = _model().embed([simplified(asked(focus.text, focus.subject))], norm=True)[0]
            sims = [float(v) for v in rows @ query]
            doc.memo[key] = (sims, max(sims))
    return doc.memo[key]


__all__ = ["asked", "similarities"]
