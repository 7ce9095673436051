"""The name a report's files carry: a short slug of the question it answers.

:func:`report_name` keeps the question's content words — not its question words, stop
words, the words that frame a question ("how long", "role", "kept") nor the function
words of its language (:func:`~research.question.own_terms`) — in the order asked, each
once, and drops the least telling of them (:func:`~research.question.weight`) until at
most :data:`MAX_WORDS` fit in :data:`MAX_CHARS` characters: "Why did the copper mines of
the Orava valley close?" → ``copper-mines-orava-valley-close``.

Latin letters lose their accents (``café`` → ``cafe``); other scripts are kept as
written, since every current file system and a zip archive store them (a Chinese
question gets a Chinese name, its adjacent words written together as Chinese writes
them: ``铜矿-关闭``). Only letters, digits and hyphens remain, so the name is safe in a
path, a URL and a download's file name. A question without a content word gets the
report's own word in its language (``report``, ``报告``): a name is never empty.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .labels import label
from .question import frames_blanked, own_terms, weight
from .text import CJK_CLASS, WORD, is_cjk, words

#: At most this many words of the question name its report.
MAX_WORDS = 6
#: And at most this many characters.
MAX_CHARS = 50
#: Names Windows reserves for devices, whatever the suffix (a file ``con.md`` cannot be
#: opened there).
_RESERVED = frozenset(
    [
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{i}" for i in range(1, 10)),
        *(f"lpt{i}" for i in range(1, 10)),
    ]
)


#: Latin letters that are no letter with an accent, by the letters that stand for them.
_LATIN_LETTERS = {
    "ø": "o", "æ": "ae", "œ": "oe", "ß": "ss", "đ": "d", "ð": "d", "ł": "l", "þ": "th",
    "ı": "i", "ħ": "h", "ŋ": "n",
}  # fmt: skip


@dataclass(frozen=True)
class _Word:
    """A word of the question as the name writes it, where it stands and how telling it is."""

    text: str
    start: int
    end: int
    cjk: bool
    weight: float


def _ascii_letter(ch: str) -> str:
    """``ch`` without its accent when it is a Latin letter with one (``é`` → ``e``, ``ø``
    → ``o``), else ``ch`` as it is (a Chinese or Korean character keeps its form)."""
    if ch in _LATIN_LETTERS:
        return _LATIN_LETTERS[ch]
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if base.isascii() and base.isalnum() else ch


def _written(word: str) -> str:
    """``word`` as a name writes it: lower case, accents off, only letters, digits and
    single hyphens between them."""
    folded = "".join(_ascii_letter(ch) for ch in word.lower())
    return re.sub(r"[^\w]+|_+", "-", folded.replace("'", "")).strip("-")


def _pieces(question: str) -> list[tuple[str, int, bool]]:
    """The question's words in order, each with where it starts and whether it is
    Chinese: a Latin word as :func:`~research.text.words` reads it, a run of Chinese cut
    into jieba's words and written as the question writes them (Traditional characters
    stay Traditional)."""
    out: list[tuple[str, int, bool]] = []
    for match in WORD.finditer(question.replace("’", "'")):
        for run in re.finditer(rf"[{CJK_CLASS}]+|[^{CJK_CLASS}]+", match.group(0)):
            at, text = match.start() + run.start(), run.group(0)
            if not re.match(f"[{CJK_CLASS}]", text):
                out.append((text.removesuffix("'s").removesuffix("'S"), at, False))
                continue
            cut = words(text)
            if sum(map(len, cut)) != len(text):  # a cut that changed the text: take it whole
                cut = [text]
            for piece in cut:
                out.append((text[: len(piece)], at, True))
                text, at = text[len(piece) :], at + len(piece)
    return out


def _content_words(question: str) -> list[_Word]:
    """The words of ``question`` that say what it asks about, each once, in order."""
    found: list[_Word] = []
    seen: set[str] = set()
    for piece, start, cjk in _pieces(frames_blanked(question)):
        text = _written(piece)
        if not text or text in seen or not own_terms(piece, question):
            continue
        seen.add(text)
        found.append(_Word(text, start, start + len(piece), cjk, weight(piece.lower())))
    return found


def _joined(chosen: list[_Word]) -> str:
    """The words with a hyphen between them, but none between two Chinese words the
    question writes side by side."""
    out = ""
    for before, word in zip([None, *chosen], chosen, strict=False):
        together = before is not None and before.cjk and word.cjk and word.start == before.end
        out += word.text if before is None or together else f"-{word.text}"
    return out


def report_name(question: str, limit: int = MAX_CHARS) -> str:
    """A short, safe file name stem for the report on ``question`` (no suffix).

    Args:
        question: the question the report answers, in any language.
        limit: the most characters the name may have.

    Returns:
        Its content words joined by hyphens (``tidal-mills-brittany-output``), or the
        report's own word in the question's language when it has none; never empty.
    """
    chosen = _content_words(question)
    while len(chosen) > 1 and (len(chosen) > MAX_WORDS or len(_joined(chosen)) > limit):
        least = min(range(len(chosen)), key=lambda i: (chosen[i].weight, -i))
        chosen.pop(least)
    name = _joined(chosen)[:limit].strip("-")
    if not name:
        return label("zh" if is_cjk(question) else "en", "report").lower()
    return f"{name}-{label('en', 'report').lower()}" if name in _RESERVED else name


__all__ = ["MAX_CHARS", "MAX_WORDS", "report_name"]
