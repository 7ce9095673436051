"""How common a word is in a language: wordfreq's frequency lists, read as bands.

A question's words are weighed by how rare they are in its language (the rarest is the
likeliest name), and a text's language is told partly by how common its words are in
each (:mod:`research.lang.identify`). wordfreq's own ``zipf_frequency`` holds each list as
a dictionary of its words; :func:`zipf` gives the same figure from the list kept as
sorted keys and bands, a tenth of the memory in every process that reads a page.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache, partial
from importlib.metadata import version
from typing import Any

from ..kept import kept, key

#: The wordfreq list a text's words are weighed by in each language: its short list, a
#: language's commonest 30,000 words or so (the full lists of the thirty-odd languages
#: weighed take seconds to load and hundreds of MB to hold, and tell them apart no better:
#: 6,819 against 6,818 of 6,840 XQuAD questions and contexts in twelve languages).
WORDLIST = "small"

#: The word-language pairs whose frequency is kept once read (wordfreq keeps as many as
#: 100,000): a run weighs each page's words in every language, most of them again.
ZIPF_CACHE = 65536


def mean_zipf(found: list[str], lang: str) -> float:
    """The mean Zipf frequency of the words ``found`` in ``lang`` by its
    :data:`WORDLIST`, as wordfreq's ``zipf_frequency`` gives it (see :func:`zipf`)."""
    return sum(zipf(w, lang) for w in found) / len(found)


@lru_cache(maxsize=ZIPF_CACHE)
def zipf(word: str, lang: str, wordlist: str = WORDLIST) -> float:
    """wordfreq's ``zipf_frequency(word, lang, wordlist)``, read from the list's bands
    (:func:`_bands`) instead of a dictionary of its words: the word cut into tokens as
    wordfreq cuts it, a token's digits counted as wordfreq counts them, the tokens'
    frequencies combined as it combines them (1/f = 1/f1 + 1/f2 …, less for each word
    break it had to guess in unspaced text), 0 when one is not listed, rounded as it
    rounds.

    Args:
        word: a word or short phrase.
        lang: a language code wordfreq knows.
        wordlist: wordfreq's list: ``small``, ``large`` or ``best``.
    """
    from wordfreq import (
        INFERRED_SPACE_FACTOR,
        digit_freq,
        freq_to_zipf,
        get_language_info,
        lossy_tokenize,
        smash_numbers,
        zipf_to_freq,
    )

    tokens = lossy_tokenize(word, lang)
    if not tokens:
        return 0.0
    keys, bands = _bands(lang, wordlist)
    inverse = 0.0
    for token in tokens:
        smashed = smash_numbers(token)
        found = key(smashed)
        at = int(keys.searchsorted(found, side="right")) - 1  # listed twice: its later band
        if at < 0 or keys[at] != found:
            return 0.0
        freq = 10 ** (-int(bands[at]) / 100)  # a word in band b has frequency 10^(-b/100)
        if smashed != token:
            freq *= digit_freq(token)
        inverse += 1.0 / freq
    freq = 1.0 / inverse
    if get_language_info(lang)["tokenizer"] == "jieba":
        freq *= INFERRED_SPACE_FACTOR ** -(len(tokens) - 1)
    freq = max(freq, zipf_to_freq(0.0))  # nothing rarer than Zipf 0, as wordfreq has it
    freq = round(freq, math.floor(-math.log(freq, 10)) + 3)
    return round(freq_to_zipf(freq), 2)


@cache
def _bands(lang: str, wordlist: str = WORDLIST) -> tuple[Any, Any]:
    """The words of ``lang``'s ``wordlist``, each as its key (:func:`research.kept.key`)
    with its frequency band (wordfreq's centibels under 1: band b is frequency
    10^(-b/100)), sorted by key (a word listed in two bands in the order of its bands).

    Read once from wordfreq and kept (see :mod:`research.kept`): as dictionaries of
    their words, the lists of the thirty-odd languages a text is weighed in and the
    large lists that weigh a question's words take ten times the memory in every
    process that reads a page, and reading a list's words leaves the process that much
    larger again."""
    table = kept(
        f"wordfreq-{version('wordfreq')}/{lang}-{wordlist}", partial(_read_bands, lang, wordlist)
    )
    return table["keys"], table["bands"]


def _read_bands(lang: str, wordlist: str) -> dict[str, Any]:
    """``lang``'s ``wordlist`` read from wordfreq: each word's key and its band, sorted
    by key (see :func:`_bands`)."""
    import numpy as np
    from wordfreq import get_frequency_list

    listed = get_frequency_list(lang, wordlist)
    keys = np.fromiter((key(w) for band in listed for w in band), dtype=np.int64)
    bands = np.fromiter((b for b, band in enumerate(listed) for _ in band), dtype=np.uint16)
    get_frequency_list.cache_clear()  # the list itself is let go
    order = keys.argsort(kind="stable")
    return {"keys": keys[order], "bands": bands[order]}


@cache
def listed(code: str) -> bool:
    """Whether wordfreq has a frequency list for the language ``code``."""
    from wordfreq import available_languages

    return code in available_languages()
