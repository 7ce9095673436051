"""Scores of short texts for a part, remembered for a run and handed on to the next.

A search result's title and snippet, a link's text under its page's title, a table's
text: each is scored for a part (:func:`research.relevance.score_text`), many of them
again by a second run of the same question. A :class:`ScoreBook` holds a run's scores,
each under a digest of the part's focus, the text and its title (so it holds no text),
and may be handed the scores of an earlier run: a score found there is not computed
again. Nothing here reads or writes a store: the Host hands the book on.

Scores made inside :func:`withholding` (of a text read on a page the cache may not keep)
are used in the run but not added to the book.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any

from .scope import setting


class ScoreBook:
    """One run's scores of short texts, by focus, text and title.

    Args:
        digest: what names a focus the same way in every process (its fields, not its
            identity).

    Attributes:
        known: the scores, by :meth:`key`.
        added: whether the run added any.
    """

    def __init__(self, digest: Callable[[Any], str]) -> None:
        self.digest = digest
        self.known: dict[str, float] = {}
        self.added = False
        self._focuses: dict[int, tuple[Any, str]] = {}

    def key(self, focus: Any, text: str, title: str) -> str:
        """The key of ``text`` under ``title`` scored for ``focus``."""
        held = self._focuses.get(id(focus))
        if held is None or held[0] is not focus:
            held = self._focuses[id(focus)] = (focus, self.digest(focus))
        joined = f"{held[1]}\0{title}\0{text}"
        return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:24]


_book: ContextVar[ScoreBook | None] = ContextVar("quartet_score_book", default=None)
_withheld: ContextVar[bool] = ContextVar("quartet_scores_withheld", default=False)


def scoring(book: ScoreBook) -> AbstractContextManager[ScoreBook]:
    """Make ``book`` the score book of the code inside (and of the tasks it starts)."""
    return setting(_book, book)


def withholding(withheld: bool = True) -> AbstractContextManager[bool]:
    """Add nothing scored inside to the run's book (when ``withheld``)."""
    return setting(_withheld, withheld or _withheld.get())


def remembered(focus: Any, text: str, title: str, score: Callable[[], float]) -> float:
    """The score of ``text`` under ``title`` for ``focus``: the one the run's book holds,
    else ``score()``, added to the book (unless it is withheld); without a book,
    ``score()``."""
    book = _book.get()
    if book is None:
        return score()
    key = book.key(focus, text, title)
    found = book.known.get(key)
    if found is None:
        found = score()
        if not _withheld.get():
            book.known[key] = found
            book.added = True
    return found


__all__ = ["ScoreBook", "remembered", "scoring", "withholding"]
