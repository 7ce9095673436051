"""A request read as the question it asks.

People ask without asking: "Explain how a heat pump works.", "I wonder when the bridge was
built.", "Tell me about the tunnel.", "List the main causes of the famine.", 请解释光合作用,
我想知道大桥有多长. Read as written, such a question is one part whose heading is the
request and whose queries search for "wonder", "tell" or 请. :func:`direct` gives the
question the request asks: the words of politeness and of asking left off, a question
put indirectly asked directly ("When was the bridge built?"), and a thing to describe
asked as what it is ("What is the tunnel?", 光合作用是什么？) or, for a list, what they are.
The words are data (``research/lang/requests.yaml``), for English and Chinese.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import yaml

from .lemmas import PAST, all_lemmas, verb_form
from .text import is_cjk

REQUESTS_PATH = Path(__file__).with_name("lang") / "requests.yaml"


@cache
def _words() -> dict[str, dict[str, tuple[str, ...]]]:
    raw: dict[str, dict[str, list[str]]] = yaml.safe_load(REQUESTS_PATH.read_text(encoding="utf-8"))
    return {
        lang: {k: tuple(sorted(v, key=len, reverse=True)) for k, v in lists.items()}
        for lang, lists in raw.items()
    }


def _opened(text: str, openers: tuple[str, ...], spaced: bool = True) -> tuple[str, str]:
    """The opener of ``openers`` ``text`` starts with (as a whole word when ``spaced``),
    and the rest; ("", text) when none."""
    low = text.lower()
    for opener in openers:
        if low.startswith(opener) and (
            not spaced or len(low) == len(opener) or not low[len(opener)].isalnum()
        ):
            return opener, text[len(opener) :].lstrip(" ,:")
    return "", text


def direct(question: str) -> str:
    """The question ``question`` asks when it opens with a request (see the module):
    its first sentence asked directly, the sentences after it as they are; else
    ``question`` itself."""
    text = question.strip()
    first, rest = _first_sentence(text)
    asked = _zh_direct(first) if is_cjk(first) else _en_direct(first)
    return f"{asked}{rest}" if asked else question


def _first_sentence(text: str) -> tuple[str, str]:
    """A text's first sentence (with its closing mark) and what follows it."""
    match = re.match(r"(.+?(?:[.!?](?=\s)|[。！？]))(.+)$", text, re.S)
    return (match.group(1), match.group(2)) if match else (text, "")


def _en_direct(text: str) -> str:
    words = _words()["en"]
    body = text.rstrip(" .!?")
    polite, body = _opened(body, words["polite"])
    opener, rest = _opened(body, words["indirect"])
    if opener and _opened(rest, words["asking"])[0]:
        # "how it works and when it was built": each asked on its own
        asks = [_en_asked(a, words) for a in _INDIRECT_JOINED.split(rest)]
        return " ".join(asks) if all(asks) else ""
    for kind in ("what_is", "what_are"):
        opener, rest = _opened(body, words[kind])
        if opener in words["nouns_too"] and not _determined(rest, words):
            continue
        if opener and rest and not _opened(rest, words["asking"])[0]:
            return f"What {'are' if _plural(rest) else 'is'} {rest}?"
    if polite and _opened(body, words["asking"])[0]:  # "Please, what is …?"
        return _asked(body)
    return ""


def _determined(phrase: str, words: dict[str, tuple[str, ...]]) -> bool:
    """Whether an English phrase opens with a determiner or a number."""
    first = phrase.split()[0].lower() if phrase.split() else ""
    return first in words["determiners"] or first.isdigit()


#: Where a question put indirectly goes on with another ("how it works, and when it was
#: built").
_INDIRECT_JOINED = re.compile(
    r",?\s+(?:and|or)\s+(?=(?:how|why|when|where|who|whom|whose|which|what)\b)", re.I
)


def _en_asked(clause: str, words: dict[str, tuple[str, ...]]) -> str:
    """An indirect English question asked directly: "when the bridge was built" is
    "When was the bridge built?", "how a heat pump works" "How does a heat pump work?"; a
    clause whose question word is its subject ("which bridge is the oldest", "how many
    people live there", "who designed it") keeps its order. A yes-no question put
    indirectly opens with its auxiliary ("whether the bridge is open": "Is the bridge
    open?"); "" for one without."""
    wh, rest = _opened(clause, words["asking"])
    if not wh:
        return ""
    said = rest.split()
    subject_first = wh in words["subject_asking"] and (
        not said or said[0].lower() not in words["determiners"]
    )
    if subject_first and (held := _held(said, words)):
        # "how many gates the dam has": the wh-phrase is "how many gates", "the dam" its
        # clause's subject
        wh, said, subject_first = " ".join([wh, *said[:held]]), said[held:], False
    aux = next((i for i, w in enumerate(said) if w.lower() in words["auxiliaries"]), None)
    if aux == len(said) - 1 and said[-1].lower() in words["main_verbs_too"]:
        aux = None  # "what the pump does": the clause's own verb
    if wh in words["yes_no"]:
        if not aux:
            return ""
        wh = ""  # "whether it is open": "Is it open?"
    if (subject_first or aux == 0) and wh:
        order = said
    elif aux is not None:
        order = [said[aux], *said[:aux], *said[aux + 1 :]]
    else:
        order = _do_support(said)
    return _asked(" ".join([wh, *order]).strip())


def _held(said: list[str], words: dict[str, tuple[str, ...]]) -> int:
    """How many words after a wh-word belong to its phrase when the clause's subject
    follows them ("gates" in "how many gates the dam has"): those before the first
    determiner or pronoun, when no auxiliary comes first; 0 when the wh-phrase is the
    subject itself ("which bridge is the oldest", "how many people live there")."""
    for i, word in enumerate(said):
        low = word.lower()
        if low in words["auxiliaries"]:
            return 0
        if low in words["determiners"] or low in words["pronouns"]:
            return i
    return 0


def _asked(text: str) -> str:
    """English words written as a question: a capital first, a question mark last."""
    return text[:1].upper() + text[1:] + "?"


def _do_support(said: list[str]) -> list[str]:
    """A clause whose last word is a verb in the present's third person or the past
    ("how a heat pump works", "why the famine happened"), asked with does or did: ["does",
    "a", "heat", "pump", "work"]. Any other clause as it is."""
    last = said[-1]
    form = verb_form(last)
    lemmas = [v for v in all_lemmas(last.lower()).get("VERB", ()) if v != last.lower()]
    if not form or not lemmas:
        return said
    return ["did" if form & PAST else "does", *said[:-1], lemmas[0]]


def _plural(phrase: str) -> bool:
    """Whether an English noun phrase's head (its last word before "of", "in", "for" or
    "on") is a plural noun ("the main causes of …")."""
    head = re.split(r"\s+(?:of|in|for|on|at|from)\s+", phrase, maxsplit=1)[0].split()[-1]
    nouns = all_lemmas(head.lower()).get("NOUN", ())
    return bool(nouns) and head.lower() not in nouns and head.lower().endswith("s")


def _zh_direct(text: str) -> str:
    words = _words()["zh"]
    body = text.rstrip("。！？?!. ")
    polite, body = _opened(body, words["polite"], spaced=False)
    opener, rest = _opened(body, words["indirect"], spaced=False)
    if opener and rest:
        closing = _ends_with(rest, words["closing"])
        return rest[: len(rest) - len(closing)].rstrip("，, ") + "？"
    for kind, asked in (("what_is", "是什么"), ("what_are", "有哪些")):
        opener, rest = _opened(body, words[kind], spaced=False)
        if opener and rest:
            return f"{rest}{asked}？"
    return f"{body}？" if polite and body else ""


def _ends_with(text: str, endings: tuple[str, ...]) -> str:
    return next((e for e in endings if text.endswith(e)), "")


__all__ = ["REQUESTS_PATH", "direct"]
