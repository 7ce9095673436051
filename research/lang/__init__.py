"""Languages as data: the language a question is written in, and what its words do.

Each ``<code>.yaml`` beside this module describes one language written in Latin letters
other than English (whose rules, and Chinese's, are in :mod:`research.question` and
:mod:`research.plan`): the words a question asks with (``question_words``, some of
several words: "por qué"), the words that join two asks in one sentence (``joiners``) and
the subject pronouns a later ask uses for the question's subject (``pronouns``), its
articles and the prepositions that join a noun to the name naming or placing it
(``links``: the phrase a name stands in, "die Brücke von Altdorf", is what a later ask
names), whether an ask may leave its subject unsaid (``pro_drop``, with the
``prepositions`` an object follows), and the marks that attach a subject pronoun after
its verb (``inverted``: "mesure-t-il"), the kind of answer each question word asks for
(``kinds``), whether question words are found only as whole words (``whole_words``),
the endings of a name that describes the noun after it (``name_endings``: "Karlův most"),
and whether every noun is written with a capital (``capital_nouns``: German).
Adding a language is adding a file; nothing else names one.

:func:`text_language` tells which language a text is written in by how common its words
are in each (wordfreq's Zipf scale), so a language needs no model of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from importlib.metadata import version
from pathlib import Path
from typing import Any

import yaml

from ..kept import kept, key
from ..text import HANGUL_CLASS, KANA_CLASS, is_cjk, longest_first, script, scripts_data, words

HERE = Path(__file__).parent

#: Languages written in Latin letters that a text is compared with, by code.
LATIN_LANGUAGES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "sv": "Swedish",
    "pl": "Polish",
}
#: The most common words of a language (wordfreq's list) that say nothing of what a
#: question asks: its articles, prepositions, auxiliaries (the fiftieth is still one in
#: every language here; further down the lists come nouns such as "años" or "france").
FUNCTION_WORDS = 50
#: How far (mean Zipf frequency) another language may score above English before a text
#: counts as written in it.
LANGUAGE_MARGIN = 0.5
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
#: Marks a question word of ``kinds`` that asks only where it opens the question (or the
#: ask): one that inside a sentence is a relative or a conjunction ("^qui": "le pont qui
#: relie").
OPENING = "^"
#: What ends a word besides a space: punctuation, Latin and Arabic.
_PUNCTUATION = re.compile(r"[?!.,;:¿¡؟،؛\"'()«»“”]")
_HANGUL = re.compile(rf"[{HANGUL_CLASS}]")
_KANA = re.compile(rf"[{KANA_CLASS}]")
#: The wordfreq list a text's words are weighed by in each language: its short list, a
#: language's commonest 30,000 words or so (the full lists of the thirty-odd languages
#: weighed take seconds to load and hundreds of MB to hold, and tell them apart no better:
#: 6,819 against 6,818 of 6,840 XQuAD questions and contexts in twelve languages).
WORDLIST = "small"
#: Kana among at least one in this many letters make a text Japanese (Chinese text
#: has none; a Japanese sentence writes its particles and endings in kana).
KANA_SHARE = 10


@dataclass(frozen=True)
class Language:
    """What the words of one language do in a question (see the module's data files)."""

    code: str
    name: str
    #: the words a question asks with, each in lower case (some of several words)
    question_words: tuple[str, ...] = ()
    #: the words that join two asks in one sentence ("und", "y")
    joiners: frozenset[str] = frozenset()
    #: the subject pronouns that stand for the question's subject in a later ask
    pronouns: frozenset[str] = frozenset()
    #: its articles, in lower case ("die", "el")
    articles: frozenset[str] = frozenset()
    #: the prepositions that join a noun to the name naming or placing it ("die Brücke
    #: *von* Altdorf", "la sequía *en* España"), in lower case
    links: frozenset[str] = frozenset()
    #: whether an ask may leave its subject unsaid, the verb saying whose it is
    #: ("¿cuánto mide?")
    pro_drop: bool = False
    #: its prepositions, in lower case (an article after one opens an object, not a
    #: subject)
    prepositions: frozenset[str] = frozenset()
    #: the marks that attach a subject pronoun after its verb in a question, longest
    #: first ("-t-" in "combien mesure-t-il")
    inverted: tuple[str, ...] = ()
    #: the particles a word ends with, longest first (Korean: 경복궁은 is 경복궁 + 은)
    particles: tuple[str, ...] = ()
    #: the particles that mark what a sentence is about (its subject: 경복궁은, 東京タワーは)
    topic_particles: tuple[str, ...] = ()
    #: the particles that mark the owner of what follows (富士山の噴火, 경복궁의 정문)
    owner_particles: tuple[str, ...] = ()
    #: the endings of a word that closes one ask and goes on to another (지어졌고 누가…)
    clause_endings: tuple[str, ...] = ()
    #: the kind of answer each question word asks for, in the order they are tried
    #: (``when``, ``number``, ``why``, ``who``, ``where``, ``how``, or ``what``, tried
    #: first, for a phrase that would read as another kind: "wie heißt" asks a name,
    #: not how), for a language whose question words the English and Chinese ones do
    #: not cover; one marked :data:`OPENING` asks only where the question opens
    kinds: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the endings of a name that describes the noun after it, which the phrase it
    #: stands in goes on to (Czech Karl*ův* most, Finnish Turu*n* linna), in lower case
    name_endings: tuple[str, ...] = ()
    #: whether a question word is found only as a whole word (or words): where a short
    #: one is also part of other words (Arabic كم in حكم), not where words are written
    #: together or carry their particles (Thai, Korean)
    whole_words: bool = False
    #: whether the language writes every noun with a capital (German): a capital names
    #: no thing by itself, and of two capitalised words the rarer is the name
    capital_nouns: bool = False

    def says(self, phrase: str, text: str) -> bool:
        """Whether ``text`` holds ``phrase`` (a question word of the language, some of
        several words), in any case ("Kdy" opening a question): anywhere in it, or as
        whole words (see :attr:`whole_words`); only where the text opens when the phrase
        is marked :data:`OPENING` ("^como": "como" is also "as" inside a sentence)."""
        opening = phrase.startswith(OPENING)
        phrase, text = phrase.removeprefix(OPENING).casefold(), text.casefold()
        if self.whole_words:
            phrase, text = f" {_spaced(phrase)} ", f" {_spaced(text)} "
        elif opening:
            text = _spaced(text)
        return text.startswith(phrase) if opening else phrase in text

    @property
    def opener(self) -> str:
        """A regular expression for a question word of the language, longest first."""
        alternatives = sorted(self.question_words, key=len, reverse=True)
        return r"(?:" + "|".join(re.escape(w) for w in alternatives) + r")(?![\w'])"

    def asks_with(self, word: str) -> bool:
        """Whether ``word`` (any case) is one the language asks with."""
        return word.casefold() in self.question_words

    @property
    def function_words(self) -> frozenset[str]:
        """The words that say nothing of what a question asks: the language's
        :data:`FUNCTION_WORDS` most common words (when wordfreq lists the language), its
        question words, joiners and pronouns (lower case)."""
        return _function_words(self)


@cache
def _function_words(known: Language) -> frozenset[str]:
    from wordfreq import top_n_list

    try:
        common = top_n_list(known.code, FUNCTION_WORDS)
    except LookupError:  # no list for it (Thai, whose words are cut with their own list)
        common = []
    asked = {part for w in known.question_words for part in w.split()}
    return frozenset(common) | asked | known.joiners | known.pronouns


@cache
def language(code: str) -> Language | None:
    """The data of the language ``code`` (None for English, Chinese or one without a
    file here)."""
    path = HERE / f"{code}.yaml"
    if not path.is_file():
        return None
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return Language(
        code=code,
        name=str(raw["name"]),
        question_words=tuple(str(w).casefold() for w in raw.get("question_words", ())),
        joiners=_lowered(raw.get("joiners", ())),
        pronouns=_lowered(raw.get("pronouns", ())),
        articles=_lowered(raw.get("articles", ())),
        links=_lowered(raw.get("links", ())),
        pro_drop=bool(raw.get("pro_drop", False)),
        prepositions=_lowered(raw.get("prepositions", ())),
        inverted=longest_first(raw.get("inverted", ())),
        particles=longest_first(raw.get("particles", ())),
        topic_particles=tuple(str(w) for w in raw.get("topic_particles", ())),
        owner_particles=tuple(str(w) for w in raw.get("owner_particles", ())),
        kinds=tuple(
            (str(k), tuple(str(w).lower() for w in v)) for k, v in (raw.get("kinds") or {}).items()
        ),
        clause_endings=longest_first(raw.get("clause_endings", ())),
        whole_words=bool(raw.get("whole_words", False)),
        capital_nouns=bool(raw.get("capital_nouns", False)),
        name_endings=longest_first(str(w).casefold() for w in raw.get("name_endings", ())),
    )


def _spaced(text: str) -> str:
    """``text`` with its punctuation (:data:`_PUNCTUATION`) as spaces, one space between
    words."""
    return " ".join(_PUNCTUATION.sub(" ", text).split())


def _lowered(listed: Iterable[object] | None) -> frozenset[str]:
    return frozenset(str(w).casefold() for w in listed or ())


@lru_cache(maxsize=1024)
def text_language(text: str) -> str:
    """The language ``text`` is written in, as a code: ``ko`` for mostly hangul, ``ja``
    for Chinese characters with kana among them, ``zh``, one of
    :data:`LATIN_LANGUAGES`, a language of ``scripts.yaml`` for another script, or
    ``other`` for a script listed nowhere.

    Latin-script text is scored by the mean word frequency (wordfreq's Zipf scale) of its
    words in each language; English wins unless another language scores clearly higher
    (:data:`LANGUAGE_MARGIN`). Text in another script is scored alike among the
    languages written in it. Each language's words are weighed by wordfreq's short list
    (:data:`WORDLIST`).
    """
    letters = _LETTERS.findall(text)
    if not letters:
        return "en"
    if 2 * len(_HANGUL.findall(text)) >= len(letters):
        return "ko"
    if KANA_SHARE * len(_KANA.findall(text)) >= len(letters):
        return "ja"
    if is_cjk(text):
        return "zh"
    latin = sum(1 for ch in letters if ord(ch) < 0x250)
    found = [w for w in words(text) if not any(ch.isdigit() for ch in w)]
    if latin * 2 < len(letters):
        return _by_script(script(text), found)
    if not found:
        return "en"
    scores = {lang: _mean_zipf(found, lang) for lang in (*LATIN_LANGUAGES, *_latin_others())}
    best = max(scores, key=lambda lang: scores[lang])
    return "en" if scores[best] - scores["en"] <= LANGUAGE_MARGIN else best


def _by_script(name: str, found: list[str]) -> str:
    """The language of ``scripts.yaml`` written in the script ``name`` whose words
    ``found`` are commonest in, or ``other``."""
    candidates = scripts_data()["scripts"].get(name, [])
    if len(candidates) < 2 or not found:
        return candidates[0] if candidates else "other"
    return max(candidates, key=lambda lang: _mean_zipf(found, lang))


def _latin_others() -> list[str]:
    """The languages written in Latin letters that have no data file here, which a
    question is told apart from English by (see ``scripts.yaml``)."""
    return list(scripts_data()["latin"])


def language_name(code: str) -> str:
    """The English name of the language ``code`` (``scripts.yaml``), or the code."""
    return str(scripts_data()["names"].get(code, code))


#: How a question's language is read: ``full`` (English and Chinese: their own question
#: grammar, word cuts and frames), ``lists`` (a data file of this folder: question words,
#: joiners, pronouns), or ``generic`` (no data: split at question marks and cut into
#: words and character n-grams, which can still answer but reads the question less well).
SERVED = ("full", "lists", "generic")


def served(code: str) -> str:
    """How a question in the language ``code`` is read (see :data:`SERVED`)."""
    if code in ("en", "zh"):
        return "full"
    return "lists" if language(code) is not None else "generic"


#: The word-language pairs whose frequency is kept once read (wordfreq keeps as many as
#: 100,000): a run weighs each page's words in every language, most of them again.
ZIPF_CACHE = 65536


def _mean_zipf(found: list[str], lang: str) -> float:
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


def question_language(question: str) -> Language | None:
    """The data of the language ``question`` is written in: its file here, or for a
    language with none that wordfreq knows, only its function words (see
    :func:`generic`); None for English, Chinese and any other language."""
    code = text_language(question)
    return language(code) or generic(code)


@cache
def generic(code: str) -> Language | None:
    """What is known of a language with no file here: nothing but its most common words
    (wordfreq's list), which say nothing of what a question asks (None when wordfreq
    does not know it, and for English, Chinese and Japanese, whose words are read by
    their own rules)."""
    from wordfreq import available_languages

    if code in ("en", "zh", "ja") or code not in available_languages():
        return None
    return Language(code=code, name=language_name(code))


__all__ = [
    "FUNCTION_WORDS",
    "LANGUAGE_MARGIN",
    "LATIN_LANGUAGES",
    "OPENING",
    "SERVED",
    "Language",
    "generic",
    "language",
    "language_name",
    "question_language",
    "served",
    "text_language",
]
