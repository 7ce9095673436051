"""Which English words are finite verbs, as a public treebank shows them.

``scripts/fit_verbs.py`` reads the English Web Treebank into :data:`VERBS`: the lemmas
used mostly as verbs, and the finite forms it shows often enough to judge by their own
uses. A question reads by it whether the word after "what" names the kind of thing asked
("what *year* …") or is the question's verb ("what *threatens* …").
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

#: The verbs read by ``scripts/fit_verbs.py`` (with the treebank commit they were read
#: from).
VERBS = Path(__file__).resolve().parent.parent / "model" / "verbs.json"


@cache
def _read() -> dict[str, frozenset[str]]:
    found = json.loads(VERBS.read_text(encoding="utf-8"))["en"]
    return {key: frozenset(words) for key, words in found.items()}


def _stems(word: str) -> list[str]:
    """The lemmas a regular third-person or past form may come from ("carries": carry,
    "threatens": threaten, "raced": race, "pushes": push)."""
    stems = []
    for ending, lemma_end in (("ies", "y"), ("ied", "y"), ("es", ""), ("ed", ""), ("s", "")):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stems.append(word[: -len(ending)] + lemma_end)
    if word.endswith(("ed", "es")):
        stems.append(word[:-1])  # "raced", "causes"
    return stems


def finite_verb(word: str) -> bool:
    """Whether the English ``word`` reads as a finite verb: a form the treebank shows as
    one mostly, or, when it shows it too seldom to judge, a regular third-person or past
    ending on a lemma used mostly as a verb ("threatens", "drives"); never a form it
    shows mostly otherwise ("years", "lives")."""
    low = word.casefold()
    known = _read()
    if low in known["verbs"]:
        return True
    if low in known["others"]:
        return False
    return any(stem in known["lemmas"] for stem in _stems(low))


__all__ = ["VERBS", "finite_verb"]
