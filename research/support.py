"""Whether a cited span supports the claim written beside it.

A writer (a model, above all) may cite a real evidence id for a sentence the quote does
not say: "The Guild financed the bridge with moon bonds [ev-…]". A claim is supported when

- every number, date and name it states is in the span or in the sentences around it on
  its page (a name is a capitalised word inside an English sentence, or a Chinese word
  the word list tags as a name or that is rare; a number is compared without its
  thousands separators), and
- at least :data:`SUPPORT_OVERLAP` of its content words (stemmed, weighted by how rare
  they are) are in the span or around it.

The threshold is measured by ``bench/bench_support.py``: a sentence rewritten in other
words keeps most of its rare words, a claim about something else does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .question import weight, zh_tagged
from .text import is_cjk, plain, terms

#: The weighted share of a claim's content words its span (or the sentences around it)
#: must contain.
SUPPORT_OVERLAP = 0.5
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+")
#: A Chinese word at least this rare names a thing a claim must not invent.
_RARE = 4.0


@dataclass(frozen=True)
class Support:
    """The verdict on one claim: whether it holds, what it states that the source does
    not, and the share of its words the source has."""

    supported: bool
    missing: tuple[str, ...] = ()
    overlap: float = 1.0

    def reason(self) -> str:
        """Why a claim is not supported, in words."""
        if self.missing:
            return "states what its source does not: " + ", ".join(self.missing[:4])
        return f"shares too few words with its source ({self.overlap:.0%})"


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}


def _names(text: str) -> set[str]:
    """The names a claim states: capitalised words inside an English sentence; Chinese
    words tagged as names or rare."""
    if is_cjk(text):
        tagged = [p for p in zh_tagged(text) if len(p.word) >= 2 and not _NUMBER.search(p.word)]
        named = ("nr", "ns", "nt")
        return {p.word for p in tagged if p.flag.startswith(named) or weight(p.word) >= _RARE}
    return {m.group(0).lower().removesuffix("'s").removesuffix("’s") for m in _NAME.finditer(text)}


def _named_in(name: str, source: str, lowered: str) -> bool:
    """Whether a source names ``name``: as written, or for a Chinese name by a pair of its
    characters (铁路 for 滇越铁路), or by the first of a two-character one (唐 for 唐朝)."""
    if name in lowered or name in source:
        return True
    if not is_cjk(name):
        return False
    if len(name) == 2:
        return name[0] in source
    return any(name[i : i + 2] in source for i in range(len(name) - 1))


def supports(claim: str, span: str, around: str = "") -> Support:
    """Whether ``span`` (with ``around``, the sentences beside it on its page) supports
    ``claim``; see the module's text."""
    said, source = plain(claim), plain(f"{span} {around}")
    compact = source.replace(",", "")
    lowered = source.lower()
    missing = [n for n in sorted(_numbers(said)) if n not in compact]
    missing += [n for n in sorted(_names(said)) if not _named_in(n, source, lowered)]
    wanted = {t for t in terms(said) if not t[0].isdigit()}  # numbers are checked above
    if not wanted:
        return Support(not missing, tuple(missing))
    have = set(terms(source))
    total = sum(weight(t) for t in wanted)
    overlap = sum(weight(t) for t in wanted if t in have) / total
    return Support(not missing and overlap >= SUPPORT_OVERLAP, tuple(missing), overlap)
