"""English lemmas and verb forms by lemminflect's tables, kept compact (see
:mod:`research.kept`).

lemminflect holds its lemma table (seventy thousand words) and its inflection table as
Python dictionaries, about 65 MB in every process that reads English, loaded in the
run's first half second. The lemma table is kept once as three arrays (each word's key,
where its entry starts, the entries' UTF-8 text) and mapped; a lookup decodes one entry.
What a run asks of the inflections (whether a word is a past or a third-person present
form of a verb it is a form of) is kept the same way, as each such word's key and its
flags.
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


#: The flags of :func:`verb_form`: a past form, a third-person present form.
PAST, THIRD_PERSON = 1, 2


@lru_cache(maxsize=200_000)
def all_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllLemmas(word)``: the lemmas of ``word`` by part of speech
    (``{"VERB": ("build",)}`` for "built"), ``{}`` for a word it does not list. A word
    with capitals is looked up in lower case, its lemmas given its capitals as
    lemminflect gives them ("Built" → "Build"). Callers must not change the dictionary
    returned."""
    low = word.lower()
    keys, starts, text = _table()
    wanted = key(low)
    at = int(keys.searchsorted(wanted))
    if at == len(keys) or keys[at] != wanted:
        return {}
    entry = bytes(text[int(starts[at]) : int(starts[at + 1])]).decode("utf-8")
    found: dict[str, tuple[str, ...]] = {}
    for record in entry.split(_RECORD):
        upos, *lemmas = record.split(_UNIT)
        found[upos] = tuple(lemmas)
    if word != low:
        from lemminflect.core.LexicalUtils import applyCapsStyleToDict, getCapsStyle

        found = applyCapsStyleToDict(found, getCapsStyle(word))
    return found


@lru_cache(maxsize=20_000)
def verb_form(word: str) -> int:
    """Whether an English word is, by lemminflect's inflections of the verbs its lemma
    table makes it a form of, a past form of one of them (:data:`PAST`: "found",
    "rose") and a third-person present form of one (:data:`THIRD_PERSON`: "decides"):
    those flags, 0 for neither. Capitals do not change the answer."""
    keys, flags = _forms()
    wanted = key(word.lower())
    at = int(keys.searchsorted(wanted))
    return int(flags[at]) if at < len(keys) and keys[at] == wanted else 0


@cache
def _table() -> tuple[Any, Any, Any]:
    table = kept(f"lemminflect-{version('lemminflect')}/lemmas", _read_table)
    return table["keys"], table["starts"], table["text"]


@cache
def _forms() -> tuple[Any, Any]:
    table = kept(f"lemminflect-{version('lemminflect')}/verb-forms", _read_forms)
    return table["keys"], table["flags"]


def _listed_words() -> list[str]:
    """The lower-case words lemminflect's lemma table and its overrides list (it has no
    public list of them)."""
    from lemminflect.core.Lemmatizer import Lemmatizer

    lemmatizer = Lemmatizer()
    listed = {*lemmatizer._getLemmaDict(), *lemmatizer._getOverridesDict()}
    return sorted(w for w in listed if w == w.lower())


def _read_forms() -> dict[str, Any]:
    """The :func:`verb_form` flags of every listed word that has any, as arrays sorted
    by key: ``getAllInflections`` of each of the word's verb lemmas, as a verb."""
    import numpy as np
    from lemminflect import getAllInflections, getAllLemmas

    found: dict[int, int] = {}
    for word in _listed_words():
        flags = 0
        for lemma in getAllLemmas(word).get("VERB") or ():
            forms = getAllInflections(lemma, upos="VERB")
            flags |= PAST if word in forms.get("VBD", ()) else 0
            flags |= THIRD_PERSON if word in forms.get("VBZ", ()) else 0
        if flags:
            found[key(word)] = flags
    order = sorted(found)
    return {
        "keys": np.array(order, dtype=np.int64),
        "flags": np.array([found[k] for k in order], dtype=np.uint8),
    }


def _read_table() -> dict[str, Any]:
    """lemminflect's answers for every lower-case word its table lists, as arrays sorted
    by key: each word's key, where its entry starts in ``text`` (and the last entry's
    end), and the entries' UTF-8 bytes. Each entry is ``getAllLemmas``' own answer; only
    the words are read from its table (lemminflect has no public list of them)."""
    import numpy as np
    from lemminflect import getAllLemmas

    table = {w: getAllLemmas(w) for w in _listed_words()}
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
