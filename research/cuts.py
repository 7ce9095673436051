"""jieba's cuts of Chinese text, remembered: those made in this process, and those an
earlier run made and handed over, so that a run reading the same Chinese text as an
earlier one cuts none of it again and need not load jieba's dictionary (most of a second
of a run) at all.

A cut is one run of Chinese characters (as :func:`research.text.words` finds it) cut into
words, for search or not. It depends on nothing but the run, that flag and the words
jieba was taught on top of its own list (:func:`research.text.learn_words`): the cuts
made in this process are forgotten when jieba is taught a word (:func:`taught`), and cuts
handed over (:func:`handing`) are used only while jieba knows exactly the taught words it
knew when they were made.

A :class:`CutBook` is one run's: the cuts handed to it and every cut it used (made or
found), which its code, and the threads it starts, see as long as it is :func:`handing`.
Nothing here reads or writes a store: the Host keeps a run's cuts for the next.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field

from .scope import setting

#: A run of Chinese characters and whether it is cut for search.
Key = tuple[str, bool]
#: The most cuts this process keeps, and one run's book records.
LIMIT = 200_000

_lock = threading.Lock()
#: The words this process taught jieba (see :func:`taught`).
_taught: set[str] = set()
#: The cuts made in this process since jieba was last taught a word, oldest first.
_made: dict[Key, tuple[str, ...]] = {}


@dataclass
class CutBook:
    """One run's cuts.

    Attributes:
        taught: the words jieba had been taught when the cuts of ``handed`` were made.
        handed: cuts an earlier run made, by run and flag.
        used: every cut this run used, made now or found, by run and flag.
    """

    taught: frozenset[str] = frozenset()
    handed: dict[Key, tuple[str, ...]] = field(default_factory=dict)
    used: dict[Key, tuple[str, ...]] = field(default_factory=dict)


_book: ContextVar[CutBook | None] = ContextVar("quartet_cut_book", default=None)


def handing(book: CutBook) -> AbstractContextManager[CutBook]:
    """Make ``book`` the cut book of the code inside (and of the threads it starts)."""
    return setting(_book, book)


def known(key: Key) -> tuple[str, ...] | None:
    """The cut of ``key`` made in this process, or handed to the run under way and made
    with the words jieba knows now; None when there is none."""
    found = _made.get(key)
    book = _book.get()
    if found is None and book is not None and book.handed and book.taught == _taught:
        found = book.handed.get(key)
        if found is not None:
            _remember(key, found)
    if found is not None and book is not None:
        _note(book, key, found)
    return found


def keep(key: Key, words: tuple[str, ...]) -> None:
    """Remember the cut of ``key`` just made (for the run under way too)."""
    _remember(key, words)
    book = _book.get()
    if book is not None:
        _note(book, key, words)


def _remember(key: Key, words: tuple[str, ...]) -> None:
    with _lock:
        if len(_made) >= LIMIT:
            del _made[next(iter(_made))]
        _made[key] = words


def _note(book: CutBook, key: Key, words: tuple[str, ...]) -> None:
    if len(book.used) < LIMIT:
        book.used[key] = words


def taught(words: Iterable[str]) -> None:
    """jieba was taught ``words``: the cuts made before are made anew."""
    with _lock:
        _taught.update(words)
        _made.clear()
    book = _book.get()
    if book is not None:
        book.used.clear()


def taught_words() -> frozenset[str]:
    """The words this process taught jieba."""
    return frozenset(_taught)


def state() -> str:
    """A digest of the words this process taught jieba, for the key of anything computed
    from cut words."""
    joined = "\n".join(sorted(_taught))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16]


__all__ = ["LIMIT", "CutBook", "Key", "handing", "keep", "known", "state", "taught", "taught_words"]
