"""Languages as data: the language a question is written in, and what its words do.

Each ``<code>.yaml`` beside this module describes one language written in Latin letters
other than English (whose rules, and Chinese's, are in :mod:`research.question` and
:mod:`research.plan`): the words a question asks with (``question_words``, some of
several words: "por qué"), the words that join two asks in one sentence (``joiners``) and
the subject pronouns a later ask uses for the question's subject (``pronouns``). Adding a
language is adding a file; nothing else names one.

:func:`text_language` tells which language a text is written in by how common its words
are in each (wordfreq's Zipf scale), so a language needs no model of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import yaml

from ..text import is_cjk, words

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
        :data:`FUNCTION_WORDS` most common words, its question words, joiners and
        pronouns (lower case)."""
        return _function_words(self)


@cache
def _function_words(known: Language) -> frozenset[str]:
    from wordfreq import top_n_list

    common = top_n_list(known.code, FUNCTION_WORDS)
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
        joiners=frozenset(str(w).casefold() for w in raw.get("joiners", ())),
        pronouns=frozenset(str(w).casefold() for w in raw.get("pronouns", ())),
    )


@lru_cache(maxsize=1024)
def text_language(text: str) -> str:
    """The language ``text`` is written in: ``zh``, one of :data:`LATIN_LANGUAGES`, or
    ``other`` for mostly other letters (Cyrillic, kana, …).

    Latin-script text is scored by the mean word frequency (wordfreq's Zipf scale) of its
    words in each language; English wins unless another language scores clearly higher
    (:data:`LANGUAGE_MARGIN`).
    """
    if is_cjk(text):
        return "zh"
    letters = _LETTERS.findall(text)
    latin = sum(1 for ch in letters if ord(ch) < 0x250)
    if not letters:
        return "en"
    if latin * 2 < len(letters):
        return "other"
    found = [w for w in words(text) if not any(ch.isdigit() for ch in w)]
    if not found:
        return "en"
    scores = {lang: _mean_zipf(found, lang) for lang in LATIN_LANGUAGES}
    best = max(scores, key=lambda lang: scores[lang])
    return "en" if scores[best] - scores["en"] <= LANGUAGE_MARGIN else best


def _mean_zipf(found: list[str], lang: str) -> float:
    from wordfreq import zipf_frequency

    return sum(zipf_frequency(w, lang) for w in found) / len(found)


def question_language(question: str) -> Language | None:
    """The data of the language ``question`` is written in, when it has a file here."""
    return language(text_language(question))


__all__ = [
    "FUNCTION_WORDS",
    "LANGUAGE_MARGIN",
    "LATIN_LANGUAGES",
    "Language",
    "language",
    "question_language",
    "text_language",
]
