"""Possessives: two things asked of one owner, and what a pronoun after a possessive
stands for.

"What are the Orinoco Trading Company's origins and its main exports?" asks two things
of one company, and is cut into "What are the Orinoco Trading Company's origins?" and
"What are the Orinoco Trading Company's main exports?"; "What was his early career and
his later work?" likewise. A possessive pronoun joined by "and" to a possessive phrase
("X's A and its B") stands for the owner X, who owns both, not for A, the nearest noun,
unless A is a name of its own ("Ostria's Varn Tower and its bells") or number says
otherwise: "their" after a plural A of one owner ("Mara Velt's students and their
teachers") stands for A. Chinese joins them with 及其, 和它的, 和她的
("X的A及其B是什么": "X的A是什么", "X的B是什么").

In a later ask of a question whose subject is written as a possessive ("What is Port
Aldane's harbour, and how deep is it?"), a pronoun stands for the nearest thing it can:
a possessive pronoun for the owner ("what are its main exports": the company's), any
other for the phrase the possessive heads ("how deep is Port Aldane's harbour").

English's and Chinese's words; a question in another language is left as it is.
"""

from __future__ import annotations

import re

from .lemmas import all_lemmas
from .question import AUXILIARIES, ZH_ASKS, ZH_QUESTION_WORDS, zh_tagged
from .text import CJK, STOP_WORDS, is_verb_form, readings

#: English possessive pronouns; "her" is one only before the noun it owns.
POSSESSIVES = frozenset(["its", "his", "her", "their"])
#: English possessive pronouns for a person, which after an ask of "who" stand for the
#: person asked for ("Who founded the mill, and what was his trade?"), not the subject.
PERSONAL = frozenset(["his", "her"])
#: Words of a noun phrase owned at most (its adjectives and nouns).
MAX_OWNED_WORDS = 5

_AND_OWNED = re.compile(r",?\s+and\s+(?P<pronoun>its|his|her|their)\s+(?=\w)", re.I)
#: A possessive word: a noun with its 's (or a plural's '), or a possessive pronoun.
_OWNER = re.compile(r"\b(?:[\w-]+(?:['’]s|s['’])|its|his|her|their)(?=\s)", re.I)
_POSSESSIVE_END = re.compile(r"(?:['’]s|(?<=s)['’])$")
#: A name with the possessive of its owner in it ("Mara Velt's", "Mara Velt's studio").
_POSSESSIVE_IN = re.compile(r"(?P<owner>.*?\w)(?:['’]s|(?<=s)['’])(?=\s|$)")
#: Asks of a person: a personal pronoun after one stands for the person asked for.
_WHO = re.compile(r"\b(?:who|whom)\b", re.I)
#: An ask who a named person is ("Who was Tomas Brandt"): its answer is that person.
_WHO_IS = re.compile(r"\s*(?i:who\s+(?:is|was))\s+(?:[A-Z][\w'’.-]*\s*)+")


def split_owned(clause: str) -> list[str]:
    """An English clause asking two things of one owner, one ask each.

    Args:
        clause: one clause of a question, without its question mark ("What are the
            Orinoco Trading Company's origins and its main exports").

    Returns:
        The clause cut in two, each ask naming the owner as the clause names it ("What
        are the Orinoco Trading Company's origins", "What are the Orinoco Trading
        Company's main exports"), the words after the second thing shared by both; the
        clause alone when it does not join a possessive pronoun to a possessive phrase.
    """
    found = _AND_OWNED.search(clause)
    if found is None:
        return [clause]
    before = clause[: found.start()]
    owners = list(_OWNER.finditer(before))
    if not owners:
        return [clause]
    owner, pronoun = owners[-1], found.group("pronoun").lower()
    first = before[owner.end() :].strip()
    second, tail = noun_run(clause[found.end() :])
    mine = owner.group(0).lower()
    if not _owned_words(first) or not second or (mine in POSSESSIVES and mine != pronoun):
        return [clause]
    head = before[: owner.end()]
    if _owns_next(first, pronoun, mine):
        return [f"{head} {first}{tail}", f"{head} {possessive(first)} {second}{tail}"]
    return [f"{head} {first}{tail}", f"{head} {second}{tail}"]


def _owns_next(first: str, pronoun: str, owner: str) -> bool:
    """Whether the pronoun after "X's A and" stands for A rather than X: A is a name of
    its own ("Ostria's Varn Tower and its bells": the tower's bells), or "their" follows
    a plural A of one owner ("Mara Velt's students and their teachers": the students')."""
    if all(w[0].isupper() for w in first.split()):
        return True
    return pronoun == "their" and _plural(first) and not _plural_owner(owner)


def noun_run(text: str) -> tuple[str, str]:
    """The noun phrase ``text`` opens with, and the rest of it.

    Args:
        text: words after a possessive ("main exports in 1900").

    Returns:
        Its adjectives and nouns up to the first word that is neither (a stop word, a
        verb, a mark), ending on a noun ("main exports"), and what follows (" in 1900",
        with its space); ``("", text)`` when it opens with no noun.
    """
    run: list[str] = []
    for word in text.split()[:MAX_OWNED_WORDS]:
        bare = word.rstrip(",;:.?!")
        low = bare.lower()
        said = readings(low)
        if not bare or low in STOP_WORDS or not (said & {"NOUN", "ADJ"} or _noun(bare)):
            break
        run.append(bare)
        if bare != word:
            break
    while run and not _noun(run[-1]):
        run.pop()  # "later work *like*": a word that is no noun goes with the rest
    if not run:
        return "", text
    cut = re.match(r"\s*" + r"\s+".join(re.escape(w) for w in run), text)
    return (" ".join(run), text[cut.end() :]) if cut else ("", text)


def possessor(subject: str) -> str:
    """The owner a subject written with a possessive names ("Mara Velt" for "Mara
    Velt's" and for "Mara Velt's studio"); any other subject as it is."""
    found = _POSSESSIVE_IN.match(subject)
    return found.group("owner") if found else subject


def possessive(name: str) -> str:
    """``name`` owning: "the Varn Museum's", "red pandas'"."""
    return name + ("'" if name.endswith("s") else "'s")


def owned_phrase(subject: str, question: str) -> str:
    """The phrase a subject written as a possessive heads in ``question`` ("Port
    Aldane's harbour" for "Port Aldane's" in "What is Port Aldane's harbour, and how deep
    is it?"); a subject that names what it owns ("Mara Velt's studio") is that phrase;
    "" for one with no possessive, or heading no noun."""
    if possessor(subject) == subject:
        return ""
    if not _POSSESSIVE_END.search(subject):
        return subject
    found = re.search(rf"(?<!\w){re.escape(subject)}(?!\w)", question, re.I)
    if found is None:
        return ""
    owned, _ = noun_run(question[found.end() :])
    return f"{subject} {owned}" if owned else ""


def standing_for(pronoun: str, mark: str, subject: str, owned: str) -> str:
    """What an English pronoun of a later ask stands for, written as it stands in the ask.

    Args:
        pronoun: the pronoun, in lower case ("its", "it").
        mark: what the pronoun adds to the name it stands for ("'s" for a possessive).
        subject: the question's subject, as a later ask names it (possibly a possessive:
            "Mara Velt's").
        owned: the phrase a possessive subject heads (:func:`owned_phrase`), or "".

    Returns:
        For a possessive pronoun after a subject that is a possessive ("Mara Velt's"),
        the owner owning ("Mara Velt's"; for "their" after a plural thing of one owner,
        the thing: "Mara Velt's novels'"); after a name with a possessive in it, "his"
        and "her" the owner ("Tomas Brandt's studio": "Tomas Brandt's"), "its" and
        "their" the name ("Ostria's Varn Tower": "Ostria's Varn Tower's"). For any other
        pronoun, the nearest thing named (the owned phrase, "Port Aldane's harbour") or
        the subject.
    """
    if not mark:
        return owned or possessor(subject)
    if pronoun == "their" and owned and _plural(owned) and not _plural_owner(subject):
        return possessive(owned)
    if pronoun in PERSONAL or _POSSESSIVE_END.search(subject):
        return possessive(possessor(subject))
    return possessive(subject)


def possessive_used(pronoun: str, after: list[str]) -> bool:
    """Whether ``pronoun`` owns what follows it: "her" only before a word that is no
    stop word ("her later work", not "about her" or "her in 1990"); the others always."""
    if pronoun != "her":
        return True
    return bool(after) and after[0].lower().strip(",;:.?!") not in STOP_WORDS


def after_who(clauses: list[str]) -> list[bool]:
    """For each clause, whether a clause before it asks who someone is not named
    ("Who founded the mill": its personal pronouns then stand for the person asked for;
    after "Who was Tomas Brandt" they stand for him)."""
    out, asked = [], False
    for clause in clauses:
        out.append(asked)
        named = _WHO_IS.fullmatch(clause) is not None
        asked = asked or (_WHO.search(clause) is not None and not named)
    return out


def _owned_words(first: str) -> bool:
    """Whether the words between an owner and "and" are a short noun phrase: no comma,
    no stop word (an auxiliary, a question word), a noun last."""
    said = first.split()
    if not 1 <= len(said) <= MAX_OWNED_WORDS or "," in first:
        return False
    if any(w.lower() in STOP_WORDS for w in said):
        return False
    return _noun(said[-1])


def _noun(word: str) -> bool:
    """Whether an English word may be a noun: the dictionary has it as one, as a verb
    in its base form only (the word list has "dam" so), or not at all ("waterwheel", a
    name)."""
    said = readings(word.lower())
    bare_verb = said == {"VERB"} and not is_verb_form(word)
    return not said or "NOUN" in said or bare_verb


#: The words that ask for a count or a choice of things before the noun naming them.
_ASKING_FOR = re.compile(r"^\s*(?:how\s+many|what|which)\s+", re.I)
#: The most words the things asked for are named in ("grain mills").
THINGS_WORDS = 3


def things_asked(ask: str, subject: str) -> str:
    """The plural things an English ask asks for a count or a choice of, when they are
    not its subject: "bridges" in "How many bridges does Altdorf have", "towns" in
    "Which towns lie on the Varn" (the subject a single thing), which a later "they"
    stands for before the subject; "" otherwise. The things are the words after the
    question word up to the verb after them, the last a plural noun."""
    opening = _ASKING_FOR.match(ask)
    said = ask[opening.end() :].split() if opening else []
    for count in range(1, min(THINGS_WORDS, len(said) - 1) + 1):
        kind, verb = " ".join(said[:count]), said[count].lower()
        if _plural(kind) and (verb in AUXILIARIES or "VERB" in all_lemmas(verb)):
            mine = kind.lower() in subject.lower() or _plural(subject)
            return "" if mine else kind
    return ""


def _plural(phrase: str) -> bool:
    """Whether a noun phrase ends on a plural noun ("main exports", "novels")."""
    said = phrase.split()
    last = said[-1].lower() if said else ""
    nouns = all_lemmas(last).get("NOUN", ()) if last.isascii() and last.isalpha() else ()
    return bool(nouns) and last not in nouns


def _plural_owner(owner: str) -> bool:
    """Whether a possessive, or a name with one in it, names more than one owner ("the
    brothers'", "the Velt brothers' studio", "their")."""
    low = owner.lower()
    return low == "their" or bool(re.search(r"s['’](?:\s|$)", low))


# --- Chinese ------------------------------------------------------------------------------

#: 以及其, 及其, 和其 …, 和它的, 与她的 …: "and" with a possessive pronoun (其 not in 其他, 其中
#: and the like, which are no pronoun).
_ZH_OWNED = re.compile(
    r"(?:以及|及|和|与|跟|同)(?P<pronoun>它们的|他们的|她们的|它的|他的|她的|其(?![他它余中实次]))"
)
#: Chinese pronouns for an owner, before 的.
_ZH_OWNERS = ("它们", "他们", "她们", "它", "他", "她")
#: Words that close the thing owned and open what is asked of it (是什么, 有哪些).
_ZH_ASKING_VERBS = frozenset(["是", "有", "为", "在", "叫", "叫做", "称为", "指"])
#: Words that ask each of several things in turn (分别是什么): one thing asks without them.
_ZH_EACH = ("分别", "各自")
#: Characters of a Chinese thing owned at most.
MAX_ZH_OWNED = 8


def zh_split_owned(clause: str) -> list[str]:
    """A Chinese clause asking two things of one owner, one ask each.

    Args:
        clause: one clause of a question ("奥里诺科贸易公司的起源及其主要出口商品是什么").

    Returns:
        The clause cut in two, each ask naming the owner as the clause names it
        ("奥里诺科贸易公司的起源是什么", "奥里诺科贸易公司的主要出口商品是什么"); the clause
        alone when it does not join a possessive pronoun to a thing owned (X的A及其B).
    """
    found = _ZH_OWNED.search(clause)
    if found is None:
        return [clause]
    before = clause[: found.start()]
    at = before.rfind("的")
    first = before[at + 1 :]
    owner = before[: at + 1]
    pronoun = found.group("pronoun")
    said = len(CJK.findall(first))
    if at < 0 or not said or said != len(first) or said > MAX_ZH_OWNED or ZH_ASKS.search(first):
        return [clause]
    named = next((p for p in _ZH_OWNERS if owner.endswith(p + "的")), "")
    if named and pronoun not in (named + "的", "其"):
        return [clause]  # 他的A和她的B: two owners
    second, tail = _zh_thing(clause[found.end() :])
    if not second or not ZH_ASKS.search(tail):
        return [clause]
    return [owner + first + tail, owner + second + tail]


def _zh_thing(text: str) -> tuple[str, str]:
    """The thing owned ``text`` opens with (up to what asks of it), and what asks of it,
    without a word asking of each (分别)."""
    thing = ""
    words = list(zh_tagged(text))
    for k, pair in enumerate(words):
        if (
            pair.word in _ZH_ASKING_VERBS
            or pair.word in ZH_QUESTION_WORDS
            or pair.flag.startswith(("r", "d"))
        ):
            rest = "".join(p.word for p in words[k:])
            for each in _ZH_EACH:
                rest = rest.removeprefix(each)
            return thing, rest
        thing += pair.word
    return thing, ""
