"""English lemmas by lemminflect's table, kept compact (see :mod:`research.kept`).

lemminflect holds its lemma table (seventy thousand words) as Python dictionaries, about
30 MB in every process that reads English, loaded in the run's first half second. The
same table is kept once as three arrays (each word's key, where its entry starts, the
entries' UTF-8 text) and mapped; a lookup decodes one entry.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib.metadata import version
from typing import Any

from .kept import kept, key

#: Between a part of speech and its lemmas in an entry, and between lemmas.
_UNIT = "\x1f"
#: Between the parts of speech of an entry.
_RECORD = "\x1e"


@lru_cache(maxsize=200_000)
def all_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllLemmas(word)``: the lemmas of ``word`` by part of speech
    (``{"VERB": ("build",)}`` for "built"), ``{}`` for a word it does not list. A word
    with a capital is answered by lemminflect itself (it restores the word's capitals
    in its lemmas). Callers must not change the dictionary returned."""
    if word != word.lower():
        from lemminflect import getAllLemmas

        return getAllLemmas(word)
    keys, starts, text = _table()
    wanted = key(word)
    at = int(keys.searchsorted(wanted))
    if at == len(keys) or keys[at] != wanted:
        return {}
    entry = bytes(text[int(starts[at]) : int(starts[at + 1])]).decode("utf-8")
    found: dict[str, tuple[str, ...]] = {}
    for record in entry.split(_RECORD):
        upos, *lemmas = record.split(_UNIT)
        found[upos] = tuple(lemmas)
    return found


@cache
def _table() -> tuple[Any, Any, Any]:
    table = kept(f"lemminflect-{version('lemminflect')}/lemmas", _read_table)
    return table["keys"], table["starts"], table["text"]


def _read_table() -> dict[str, Any]:
    """lemminflect's answers for every lower-case word its table lists, as arrays sorted
    by key: each word's key, where its entry starts in ``text`` (and the last entry's
    end), and the entries' UTF-8 bytes. Each entry is ``getAllLemmas``' own answer; only
    the words are read from its table (lemminflect has no public list of them)."""
    import numpy as np
    from lemminflect import getAllLemmas
    from lemminflect.core.Lemmatizer import Lemmatizer

    lemmatizer = Lemmatizer()
    listed = {*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict()}
    table = {w: getAllLemmas(w) for w in listed if w == w.lower()}
    words = sorted((w for w in table if table[w]), key=key)
    encoded = [
        _RECORD.join(_UNIT.join((upos, *lemmas)) for upos, lemmas in table[w].items()).encode()
        for w in words
    ]
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(e) for e in encoded])
    return {
        "keys": np.fromiter((key(w) for w in words), dtype=np.int64),
        "starts": starts,
        "text": np.frombuffer(b"".join(encoded), dtype=np.uint8),
    }
