"""Reading a question: what a sub-question asks about, ready to score sentences against.

A part is read into a :class:`Focus`: its subject (the entity the whole question is
about, with the core phrase a page about that entity uses), its facets (the terms that
set it apart from its sibling parts, each with its weight and the words that meet it:
equivalents from the user's :class:`Glossary`, the telling characters of a Chinese word,
another localizer), and the kind of answer it asks for (:func:`question_kind`, and the
noun that names the kind of thing asked for). Here too are the readings of a question's
words these rest on: how much a word says (:func:`weight`, :func:`telling`,
:func:`rare`), the entity a question names (:func:`entity`, :func:`lead_subject`, the
Chinese subject helpers), Chinese parts of speech (:func:`zh_tagged`), and the word
lists they use. Nothing here reads a page.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

from .comparison import SideWords, as_one, comparison, side_parts, sides_first
from .lang import Language, asked_language, own_script, question_language, zipf
from .lang.verbs import finite_verb
from .present import present_terms
from .text import (
    CJK,
    CJK_CLASS,
    STOP_WORDS,
    WORD,
    ZH_COUNTER_CLASS,
    is_bare_verb,
    is_cjk,
    is_function_script,
    is_verb_form,
    is_word,
    jieba_loaded,
    known_word,
    lemma,
    reading_language,
    readings,
    script,
    simplified,
    spaceless,
    stem,
    terms,
    uncounted,
    word_tag,
    words,
)

#: Verbs and nouns that frame a question without saying what it is about.
_SCAFFOLD_TEXT0 = (
    "work works worked working play plays played keep kept happen happened "
    "make made get got take took go went come came give gave put look seem "
    "become became exist mean thing things way ways kind type sort know "
    "known tell explain describe role roles importance significance"
)
_SCAFFOLD_TEXT1 = "解决 问题 发挥 起到 进行 情况 方面 怎么样 样 又 还 作用 意义"
SCAFFOLD = frozenset(stem(w) for w in (_SCAFFOLD_TEXT0.split())) | frozenset(
    _SCAFFOLD_TEXT1.split()
)


def idle_terms(question: str) -> frozenset[str]:
    """The terms (as :func:`~research.text.terms` gives them) of the function words of the
    language ``question`` is written in, when it has data (:mod:`research.lang`): "ist",
    "die" and "wie" ask nothing of a German page. Case-folded, as wordfreq lists them
    (Greek's final ς as σ): compare a term's :meth:`str.casefold`."""
    return _idle_terms(question, asked_language(), reading_language())


@lru_cache(maxsize=1024)
def _idle_terms(question: str, asked: str, reading: str) -> frozenset[str]:
    """:func:`idle_terms` of ``question`` read in the languages ``asked`` and
    ``reading`` (see :func:`research.lang.asked_in`, :func:`research.text.reading`)."""
    known = question_language(question)
    if known is None:
        return frozenset()
    return frozenset(t.casefold() for w in known.function_words for t in terms(w))


def own_terms(text: str, question: str) -> list[str]:
    """The terms a part asks with, each once: its terms but those that frame a question
    (:data:`SCAFFOLD`) and the function words of the language ``question`` is written in
    (:func:`idle_terms`)."""
    idle = idle_terms(question)
    return [t for t in dict.fromkeys(terms(text)) if t not in SCAFFOLD and t.casefold() not in idle]


@lru_cache(maxsize=4096)
def weight(term: str) -> float:
    """How much a term says: rare words weigh more (1 to 5), by wordfreq's large lists
    (read as :func:`research.lang.zipf` reads them)."""
    found = _term_zipf(term)
    return max(1.0, min(5.0, 7.5 - found)) if found else 5.0


def _term_zipf(term: str) -> float:
    """How common a term is on wordfreq's Zipf scale (0 for one it does not list); an
    English stem is looked up as written, else with "s" or "e" after it."""
    lang = "zh" if CJK.match(term) else "en"
    found = zipf(term, lang, "best")
    if found == 0.0 and lang == "en":
        found = max(zipf(term + "s", lang, "best"), zipf(term + "e", lang, "best"))
    return found


#: Words by which a part points back to a thing named elsewhere in the question.
_POINTS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|theirs|he|him|his|she|her|hers|this|these|those|there)\b",
    re.I,
)

#: An "it" that stands for nothing: "what does *it* take a town to …", "*it* is said
#: that …", "is *it* known that …". It is not the question's subject.
EXPLETIVE = re.compile(
    r"it\s+(?:take|takes|took|taken)\b.*\bto\b"
    r"|it\s+(?:(?:is|was|has\s+been)\s+)?(?:said|thought|believed|known|claimed|reported"
    r"|estimated)\s+that\b",
    re.I,
)


def _part_points_back(text: str) -> bool:
    """Whether a part points back to a thing named elsewhere in the question by a pronoun
    ("…, and where do most of *its* farmers work?"); an :data:`EXPLETIVE` "it" points at
    nothing ("what does it take a town to …" asks about the town)."""
    return any(not EXPLETIVE.match(text, found.start()) for found in _POINTS_BACK.finditer(text))


def owned_by_subject(asked: str, question: str) -> bool:
    """Whether a part asks of a thing a possessive of the question's language gives to
    something named elsewhere in the question ("¿quién es *su* presidente?", "chi era *il
    suo* primo direttore?"): it points back, as "its" does."""
    known = question_language(question)
    return known is not None and any(w.casefold() in known.possessives for w in WORD.findall(asked))


#: Verbs that open a request asked as a question ("Name one cause of …").
IMPERATIVES = frozenset(["name", "list", "give", "identify", "describe", "explain", "define"])

#: What an English check of a claim opens with, the claim following it ("is it true that
#: coffee stunts growth", "is it a myth that bats are blind"): it asks whether the claim
#: holds, and says nothing of what the claim is about.
_CLAIM_JUDGED_TEXT = "true|false|a myth|a fact|correct|accurate|right|the case|a misconception"
_CLAIM_FRAME = (
    r"(?:is|was|isn't|wasn't) it (?:really |actually |just |only )?"
    rf"(?:{_CLAIM_JUDGED_TEXT})(?: or (?:{_CLAIM_JUDGED_TEXT}))? that"
)
CLAIM_OPENING = re.compile(rf"^\s*¿?{_CLAIM_FRAME}\s+", re.I)
#: Words that only stress that a yes/no question checks a claim ("does coffee *really*
#: stunt growth"): no part of the claim.
_STRESS_TEXT = "really actually truly"
#: What asks whether a Chinese claim holds, by itself (…是真的吗) or with the 吗 that
#: closes the question (喝咖啡真的会…吗): no part of the claim.
_ZH_ASKS_CLAIM_TEXT = (
    "是真的吗|是不是真的|是真是假|是真的还是假的|是否属实|是谣言吗|是误区吗|真的吗"
)
_ZH_CLAIM_TEXT = f"{_ZH_ASKS_CLAIM_TEXT}|真的"
_ZH_CLAIM = re.compile(_ZH_CLAIM_TEXT)
#: A Chinese check of a claim: a phrase that asks it by itself, or 真的 in a question
#: that closes with 吗 (喝咖啡真的会影响长高吗).
_ZH_CHECK = re.compile(rf"{_ZH_ASKS_CLAIM_TEXT}|真的[^？?，,]*吗")
#: A Chinese question answered yes or no when no question word asks for more: one that
#: closes with 吗, or asks 是否, 是不是, 有没有, 能不能 ….
_ZH_WHETHER = re.compile(
    r"吗\s*[？?！!。]?\s*$|是否|是不是|有没有|能不能|会不会|可不可以|对不对|难道"
)

#: The portions a quantity is asked of ("how many calories are in *a slice of* rye bread"):
#: a page gives it per portion or per weight, in words of its own.
_PORTION_TEXT = "slice cup glass can bowl bottle spoonful tablespoon teaspoon serving portion"

#: The words after "how" that ask a quantity ("how tall", "how fast"): the question wants
#: a figure, and the word is no facet (a sentence answers "how fast" with "110 km/h").
_HOW_MUCH = (
    "many|much|long|far|big|large|tall|high|deep|wide|heavy|old|often|fast|quickly|hot|cold"
    "|warm|expensive"
)
#: The Chinese words that ask a quantity (多少, 多长, 多快).
_ZH_HOW_MUCH = "多少|多长|多大|多远|多高|多久|多快|多深|多宽|多厚"

#: The words of a question that say what kind of answer it wants, not what it is about:
#: "in what year", "what is the name of", "how far", "哪一年", "什么地方", and those that
#: ask whether a claim holds ("is it true that", "really", 是真的吗). They are not facets:
#: a sentence answers "in what year …" with a year, not with the word "year".
#: "the word" or "the term" before the word a question asks about as a word ("who
#: coined *the word* glimmerite"): the word is what the question is about, and "word" is
#: no facet.
_WORD_AS_WORD_TEXT = r"\bthe (?:word|term)\b(?=\s+[\"“'‘]?\w)"
_FRAMES = re.compile(
    r"\b(?:in |during |by )?(?:what|which) (?:year|date|month|day|time|century|decade|period)s?\b"
    r"|\b(?:what|which) (?:is|was|are|were) the names? of\b|\bthe names? of\b"
    rf"|\bhow (?:{_HOW_MUCH})\b"
    r"|\b(?:what|which) (?:kind|type|sort)s? of\b"
    # a verb phrase that says only that something happened: "when did the fair *take
    # place*", "when did the treaty *come into force*" (a sentence says it with a date)
    r"|\b(?:take|takes|taking|taken|took) place\b"
    r"|\b(?:come|comes|came|coming) into (?:force|effect|being)\b"
    # how many of a kind the answer names: "who were *two of* the advisers" (a sentence
    # names them, it does not count them)
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2}) of\b"
    # a cause asked for by its name: "the causes of", "one reason for" (a why: a sentence
    # answers it by stating a cause, not by the word "cause")
    r"|\b(?:(?:the|a|an|one|two|three|some|main|chief|major) )*(?:causes?|reasons?)"
    r" (?:of|for|behind)\b"
    # a portion a quantity is asked of: "how much sugar is in *a can of* cola"
    rf"|\b(?:a|an|one|per|each) (?:{_PORTION_TEXT.replace(' ', '|')})s? of\b"
    rf"|^\s*(?:{'|'.join(sorted(IMPERATIVES))})\b"
    rf"|哪一年|哪年|什么时候|何时|什么地方|哪个地方|哪里|何处|哪儿|(?:{_ZH_HOW_MUCH})[{ZH_COUNTER_CLASS}]?"
    r"|叫什么|名字|名称"
    # a word asked about as a word: "who coined *the word* glimmerite" asks of glimmerite
    rf"|{_WORD_AS_WORD_TEXT}"
    # what the answer is called: "what is it called", "referred to as what", 被称为什么
    r"|\b(?:is|are|was|were|be) (?:called|named|known as|referred to as)\b"
    r"|\b(?:called|named|known as|referred to as)(?=\s*(?:what\b|\?|$))"
    r"|被称为|被称作|称为|称作|叫做"
    # a question word with its measure word (哪次, 哪位), a count asked for (两种, 一系列),
    # a portion a quantity is asked of (一片, 一杯)
    rf"|哪?[一二两三四五六七八九十每几][{ZH_COUNTER_CLASS}]"
    rf"|一系列|哪[{CJK_CLASS}]"
    # the words that ask whether a claim holds
    rf"|\b{_CLAIM_FRAME}\b|\b(?:{_STRESS_TEXT.replace(' ', '|')})\b|{_ZH_CLAIM_TEXT}",
    re.I,
)


#: "What is the *scale* used to … called?", "What is the glowing *ring* around … called?":
#: the head noun of the thing whose name is asked for (the last word before a
#: preposition or a participle).
_CALLED_KIND = re.compile(
    r"\b(?:[Ww]hat|[Ww]hich)\s+(?:is|was|are|were)\s+the\s+(?:[a-z][a-z'-]*\s+){0,3}?"
    r"([a-z][a-z'-]*)(?=\s+(?:of|in|on|at|around|for|from|to|with|by|that|which|who|used|"
    r"given|known|called|named|between|near)\b)"
    r"(?=[^?]*\b(?:called|named|known as|referred to as)\s*\??\s*$)"
)
_KIND_NOUN = re.compile(
    r"\b(?:[Ww]hat|[Ww]hich)\s+(?!(?:the|a|an|is|are|was|were|do|does|did|has|have|had|can|"
    r"could|will|would|should|may|might|must)\b)([a-z][a-z'-]*)(?=\s+([a-z][a-z'-]*))"
)


def frames_blanked(text: str) -> str:
    """``text`` with the words that frame a question ("how long", "in what year", 多少)
    replaced by spaces, so that every other character keeps its offset."""
    return _FRAMES.sub(lambda m: " " * len(m.group(0)), text)


def answer_kind_terms(text: str) -> set[str]:
    """The noun that names the kind of thing an English question asks for, right after its
    question word ("which *river* flows through Paris"): the sentence that answers names
    the thing itself (the Seine), not its kind, so this word is no facet. (A Chinese
    answer often says its kind, 蒙古族 for 哪个民族, so 什么/哪个 keep their noun.) A
    question that closes on its question word's noun phrase ("… based on what primary
    *attribute*?") names the kind with all of it."""
    if is_cjk(text):
        return set()
    kinds = {stem(m.group(1)) for m in _KIND_NOUN.finditer(text) if not _asks_by_verb(m)}
    closing = _CLOSING_KIND.search(text)
    said = closing.group(1).split() if closing else []
    if said and said[0] not in _AUX and said[0] not in _ARTICLES and not finite_verb(said[0]):
        kinds |= {stem(w) for w in said}
    return kinds


#: A question closing on "what" or "which" and a noun phrase of two or three words.
_CLOSING_KIND = re.compile(
    r"\b(?:[Ww]hat|[Ww]hich)\s+((?:[a-z][a-z'-]*\s+){1,2}[a-z][a-z'-]*)\s*\?\s*$"
)


def _asks_by_verb(found: re.Match[str]) -> bool:
    """Whether the word after "what" or "which" is the question's verb, not the kind of
    thing asked ("what *threatens* the crop", "what *caused* the flood", but "which
    *works* did she write"): a finite verb by the treebank's uses
    (:func:`~research.lang.verbs.finite_verb`) that no auxiliary follows, or any word an
    article follows (a kind noun is followed by its verb or by "of")."""
    after = found.group(2)
    if after in _ARTICLES:
        return True
    return after not in _AUX and finite_verb(found.group(1))


#: The verbs by which a "how many" or "how much" question asks what a thing holds ("how
#: many calories does rye bread *have*", "how much sugar does a can of cola *hold*"):
#: they frame the quantity asked, which a sentence gives in its own words ("250 calories
#: per 100 g").
_HAVING_TEXT = "have contain hold include carry"
_HAVING = frozenset(stem(w) for w in _HAVING_TEXT.split())
_COUNTED_BY = re.compile(r"^\s*how (?:many|much)\b.*\b([a-z]+)\W*$", re.I)


def _having_terms(text: str) -> set[str]:
    """The term of the verb of having that closes an English "how many" or "how much"
    question (:data:`_HAVING_TEXT`), which is no facet; none for any other question."""
    found = _COUNTED_BY.match(text)
    verb = stem(found.group(1).lower()) if found else ""
    return {verb} if verb in _HAVING else set()


def named_kind_terms(text: str) -> set[str]:
    """The nouns whose instances, named, answer an English question: its kind noun
    ("which *river*") and the head of the thing whose name it asks for ("what is the
    *scale* used to … called", which stays a facet: the answer often defines it)."""
    if is_cjk(text):
        return set()
    return answer_kind_terms(text) | {stem(m.group(1)) for m in _CALLED_KIND.finditer(text)}


#: A Chinese question word that the kind of thing asked for follows (什么, 哪个, 何种).
_ZH_KIND_WORD = (
    r"(?:(?<!为)什么|哪(?![里儿])[一几些]?[个种位类家所座条部本项路名只支届次门间场首]?"
    r"|何(?![时处地])种?)(?:样的)?"
)
_ZH_KIND = re.compile(_ZH_KIND_WORD + rf"([{CJK_CLASS}]{{1,4}})")


def zh_kind_nouns(text: str) -> set[str]:
    """The noun that names the kind of thing a Chinese question asks for, right after its
    question word (城市 in 隶属于哪个城市, 颜色 in 是什么颜色的, 河 in 是哪条河？). It
    stays a facet: a Chinese answer often ends as its kind does (重庆市, 蒙古族, 暗黄色,
    青龙河). A single character is a kind only where it ends the question word's
    phrase (什么人？, not the 是 of 什么是…), and not in a question for a date (哪一年)."""
    if not is_cjk(text):
        return set()
    found = set()
    single = question_kind(text) != "when"  # 哪一年 asks a date, not a thing called …年
    for match in _ZH_KIND.finditer(text):
        cut = [w for w in words(match.group(1)) if w.strip()]
        if cut and (len(cut[0]) >= 2 or (single and len(match.group(1)) == 1)):
            found.add(cut[0])
    return found


#: How far a name of the kind asked for (重庆市 for 哪个城市) meets the kind's facet.
KIND_NAMED = 0.85


def names_kind(facet: Facet, text: str) -> bool:
    """Whether a Chinese sentence names a thing of the kind a facet asks for: a word the
    question does not use that ends as the kind does (重庆市 for 城市, 蒙古族 for 民族),
    or the kind's last character standing after a name the word list does not know
    (宁州 市, which it cuts in two)."""
    if not facet.kind_of:
        return False
    end = facet.term[-1]
    cut = [w for w in words(text) if w.strip()]
    for i, word in enumerate(cut):
        if word == facet.term or not word.endswith(end):
            continue
        name = word if len(word) > 1 else (cut[i - 1] + word if i else "")
        new = not any(name in t for t in facet.kind_of)
        if len(name) > 1 and all(CJK.match(c) for c in name) and new:
            return True
    return False


#: The nouns that name a quantity a question asks for ("what is the population of"), and
#: those a word or two may qualify ("the estimated population of"; not "the serial
#: number", "the second volume").
_MEASURE_NOUNS = (
    "population|size|length|height|width|depth|area|distance|amount|percentage|cost|price"
    "|speed|temperature|weight|capacity|diameter"
)
_COUNT_NOUNS = f"{_MEASURE_NOUNS}|number|total"
#: The kinds of answer a question asks for, each with the English and Chinese words that
#: ask for it, in the order they are tried.
_KINDS = (
    (
        "when",
        r"\bwhen\b|(?:what|which) (?:year|date|month|century|decade|period|era)|何时|什么时候"
        r"|哪一年|哪年|什么时[间期代]|哪个时[期代]|哪个朝代|什么年代",
    ),
    (
        "number",
        rf"\bhow (?:{_HOW_MUCH})\b"
        # a measure asked for by its name: "what is the population of", "the length of",
        # also after a word or two that qualify it ("the estimated population of")
        rf"|\b(?:what|which) (?:is|was|are|were) the (?:{_COUNT_NOUNS})\b"
        rf"|\b(?:what|which) (?:is|was|are|were) the (?:[a-z-]+ ){{1,2}}(?:{_MEASURE_NOUNS})"
        r"\s+(?:of|in|at|on|for|around|during)\b"
        # a price asked by its verb: "what did the bridge cost (to build)"
        r"|\bwhat (?:did|does|do|will|would) (?:\S+ ){1,8}?cost\b"
        rf"|{_ZH_HOW_MUCH}|几",
    ),
    (
        "why",
        r"\bwhy\b|\bwhat (?:caused|causes|led to)\b|\b(?:causes?|reasons?) (?:of|for|behind)\b"
        r"|为什么|为何|原因|起因|缘由|缘故|理由",
    ),
    ("who", r"\bwho\b|\bwhom\b|谁"),
    ("where", r"\bwhere\b|哪里|何处|在哪|什么地方|哪个地方|哪儿"),
    ("how", r"\bhow\b|如何|怎样|怎么"),
)
_KIND_PATTERNS = tuple((kind, re.compile(pattern)) for kind, pattern in _KINDS)

#: The kind of a question answered yes or no: a check of a claim ("is it true that …",
#: "does X really …", 是真的吗) or any question opening with an auxiliary ("can goats eat
#: acorns?", 这家面包店周日营业吗？). Any relevant sentence may answer it.
WHETHER = "whether"


def question_kind(text: str) -> str:
    """``when``, ``number``, ``why``, ``who``, ``where``, ``how``, ``whether`` (yes or no)
    or ``what``: by the language's data when it lists its question words by kind
    (``kinds``), else by the English and Chinese question words (:data:`_KINDS`); of
    two English question words, the first (see :func:`_first_asked`).

    An English question opening with an auxiliary, or a Chinese check of a claim (是真的吗),
    asks whether, whatever question word its claim holds ("is it true that the man *who*
    built it was French"), unless it asks someone to tell what a question word asks ("can
    you tell me *when* …") or a question word asks more after a comma; a Chinese
    question closing with 吗 or asking 是否 asks whether when no question word asks for
    more."""
    known = question_language(text)
    for kind, asked in known.kinds if known is not None else ():
        if any(known.says(word, text) for word in asked):
            return kind
    low = text.lower()
    later = low.partition(",")[2]  # "is the mill still used, by whom": who
    if checks_whether(text) and not any(p.search(later) for _, p in _KIND_PATTERNS):
        return WHETHER
    return _kind_by_words(low)


def _kind_by_words(low: str) -> str:
    """The kind a lower-cased question asks by the English and Chinese question words (see
    :func:`question_kind`)."""
    for kind, pattern in _KIND_PATTERNS:
        found = next((m for m in pattern.finditer(low) if not _zh_as_what(low, m)), None)
        if found:
            if found.group(0) == "几" and (other := _beside_a_few(low)):
                return other
            return _first_asked(low, kind, found.start())
    return WHETHER if _ZH_WHETHER.search(low) else "what"


def _zh_as_what(text: str, found: re.Match[str]) -> bool:
    """Whether a 为什么 of a Chinese question asks "as what", not why: its 为 closes the
    verb before it (被称为什么, 被任命为什么职务, 它后来改称为什么: the verb's complement),
    read by the words jieba cuts and tags: its 为 is part of the verb's word, or 为什么 is a
    word after a verb (one the passive marker, with or without its agent's nouns, stands
    before: 被任命); 它为什么被称为白桥 asks why."""
    if found.group(0) != "为什么":
        return False
    tagged, at = zh_tagged(text), 0
    for i, pair in enumerate(tagged):
        end = at + len(pair.word)
        if end > found.start():
            if at < found.start():
                return True  # 称为 | 什么: the verb's word holds the 为
            return at == found.start() and pair.word == "为什么" and _zh_verb_before(tagged, i)
        at = end
    return False


def _zh_verb_before(tagged: list[Any], i: int) -> bool:
    """Whether the word before word ``i`` of a tagged Chinese clause is a verb: tagged so,
    or standing after the passive marker and its agent's nouns (被任命, 被知府任命)."""
    return i > 0 and (tagged[i - 1].flag.startswith("v") or _zh_after_passive(tagged, i - 1))


def _beside_a_few(low: str) -> str:
    """The kind a Chinese question asks by a question word other than 几, which beside
    one is the indefinite "a few" (为什么用了*几*年才建成 asks why); "" when none asks."""
    for kind, pattern in _KIND_PATTERNS:
        if kind != "number" and (found := pattern.search(low)) and CJK.match(found.group(0)):
            return kind
    return ""


def _first_asked(low: str, kind: str, at: int) -> str:
    """The kind of an English question whose question word at ``at`` (of ``kind``) comes
    after another: the first one asks, and the later one opens a clause of it ("what sea
    bordered the empire *when* he died" asks what, "who was mayor *when* …" who); a
    noun that asks ("the reason for") and a Chinese question keep ``kind``."""
    first = _EN_ASKING.search(low)
    if first is None or first.start() >= at or not _EN_ASKING.match(low, at):
        return kind
    return _kind_by_words(low[:at])


#: Whom a question opening with an auxiliary asks to tell what its question word asks
#: ("can *you* tell me when …", "does *anyone* know why …"): it asks that, not whether.
_TOLD_BY_TEXT = "you anyone anybody someone somebody"
_TOLD_BY = frozenset(_TOLD_BY_TEXT.split())
#: Auxiliaries that are also names or nouns ("*Will* Smith's first film", "*May* Day"):
#: one opens a yes/no question only when a word in lower case follows it.
_NAMING_AUX_TEXT = "will may can must"
_NAMING_AUX = frozenset(_NAMING_AUX_TEXT.split())


def checks_whether(text: str) -> bool:
    """Whether a question asks yes or no, whatever question word the claim it checks
    holds: an English one opening with an auxiliary (after a lead subject and its colon)
    or with "is it true that" (:data:`CLAIM_OPENING`), but not one asking someone to tell
    what a question word asks ("can you tell me when …") nor a name opening with one
    ("Will Smith's first film, …"); a Chinese check of a claim (是真的吗, 真的…吗)."""
    if is_cjk(text):
        return _ZH_CHECK.search(text) is not None
    rest = lead_subject(text)[1]
    if CLAIM_OPENING.match(rest):
        return True
    written = [w.strip("¿\"'“‘(") for w in rest.split()]
    said = [w.lower() for w in written]
    if not said or said[0] not in _AUX:
        return False
    if said[0] in _NAMING_AUX and written[1:2] and written[1][:1].isupper():
        return False  # "Will Smith's first film, …"
    told = len(said) > 1 and said[1] in _TOLD_BY
    return not (told and any(w in _QUESTION_WORDS for w in said[2:]))


@lru_cache(maxsize=4096)
def claim_word(word: str) -> bool:
    """Whether a word only asks whether a claim holds ("really", 真的): no word of the
    claim, and none to search for."""
    stress = _STRESS_TEXT.replace(" ", "|")
    return re.fullmatch(rf"{_ZH_CLAIM_TEXT}|{stress}", word, re.I) is not None


@lru_cache(maxsize=4096)
def claim_said(text: str) -> str:
    """The claim an English yes/no question checks, as written: what follows "is it true
    that" (:data:`CLAIM_OPENING`: "the Great Wall is visible from space"), or the
    question without its opening auxiliary and the words that stress it ("does coffee
    really stunt growth": "coffee stunt growth"), up to its first clause's end; "" for
    any other question."""
    rest = lead_subject(text)[1]
    opening = CLAIM_OPENING.match(rest)
    if is_cjk(rest) or (opening is None and not checks_whether(rest)):
        return ""
    said = rest[opening.end() :] if opening else rest.split(None, 1)[-1]
    said = re.split(r"[?;,:]|\s+and\s+(?=(?:how|why|what|when|where|which|who)\b)", said)[0]
    stress = _STRESS_TEXT.replace(" ", "|")
    return " ".join(re.sub(rf"\b(?:{stress})\b", " ", said, flags=re.I).split())


@dataclass(frozen=True)
class Facet:
    """One thing a sub-question asks about, and the words that meet it."""

    term: str
    weight: float
    equivalents: frozenset[str] = frozenset()
    phrase: int = 0  # facets written side by side ("powered by steam") share a phrase
    #: the telling characters of a Chinese word: another word built on one of them says
    #: something close (著作 "writings" and 著有 "wrote")
    morphemes: frozenset[str] = frozenset()
    #: the words the glossary says name the same thing, itself included (a heading names
    #: the facet only by these; ``equivalents`` adds the related words)
    synonyms: frozenset[str] = frozenset()
    #: for a Chinese noun naming the kind of answer asked for (城市 in 哪个城市), the
    #: question's words: a new word ending as the kind does (重庆市) names one
    kind_of: frozenset[str] = frozenset()
    #: a Chinese localizer (方位词: 旁边, 附近, 之间): it places the answer rather than
    #: says what it is about, and another localizer places it nearly as well (沿岸)
    relation: bool = False
    #: the Chinese verb a "how long" asks with (持续 in 持续了多久): a sentence giving a
    #: span of time says what it does in other words (…在六年内结束)
    measures: bool = False


@dataclass(frozen=True)
class Focus:
    """What a sub-question is about, ready to score sentences against."""

    text: str
    subject: tuple[str, ...]
    core: tuple[str, ...]
    facets: tuple[Facet, ...]
    kind: str = "what"
    subject_weights: dict[str, float] = field(default_factory=dict, compare=False, hash=False)
    #: the English noun naming the kind of answer asked for ("scale" in "what is the scale
    #: … called"), which is no facet: a name ending in it names one ("Marrow-Lindqvist Scale")
    kinds: frozenset[str] = field(default=frozenset(), compare=False, hash=False)
    #: the facets of the sibling sub-questions: a section about one of them is about
    #: another part of the question
    rivals: tuple[tuple[Facet, ...], ...] = field(default=(), compare=False, hash=False)
    #: a subject named by a title in 《》 that is a common word (《回家》): a page is about
    #: the work only where it writes the title in 《》 or is named by it
    titled: str = field(default="", compare=False, hash=False)
    #: the part in its own words when the planner lent it another clause's subject and
    #: it names a telling subject of its own (黑水岭 in 什么流经青石山和黑水岭之间): a sentence
    #: may answer it as either
    alternative: Focus | None = field(default=None, compare=False, hash=False)
    #: for a part of the question's comparison, the words that tell its sides apart (see
    #: :func:`research.comparison.side_words`): a sentence about the other side answers
    #: nothing of one side, and one about a single side does not answer the comparison
    sides: SideWords | None = field(default=None, compare=False, hash=False)

    @property
    def words(self) -> tuple[str, ...]:
        """The terms the part asks about in its own words: its subject's and its facets'
        (not the words that frame the question, "how", "solve the problem of")."""
        return tuple(dict.fromkeys([*self.subject, *(f.term for f in self.facets)]))

    @property
    def asked(self) -> tuple[str, ...]:
        """The terms of what the part asks beyond its subject (its facets'), or its
        subject's when it asks nothing more: what tells a page on one thing about the
        subject from a page on another."""
        return tuple(dict.fromkeys(f.term for f in self.facets)) or self.words

    @property
    def historical(self) -> bool:
        """Whether the sub-question asks about the past, in the past tense ("How *was* it
        built?", "Why *did* it erupt?", 曾…, …是如何建造的), so that dates help answer it."""
        past = r"\b(was|were|did|had)\b|曾|过去|历史上|古代|当年|是[^？?，,]*的[？?]?$"
        return bool(re.search(past, self.text, re.I))

    @classmethod
    def build(
        cls,
        subquestion: str,
        siblings: Sequence[str] = (),
        question: str = "",
        rivals: bool = True,
        glossary: Glossary | None = None,
        as_asked: str = "",
    ) -> Focus:
        """The focus of ``subquestion`` among the sub-questions of its plan.

        The subject is the entity the whole ``question`` names (see :func:`entity`), or
        the part's own when it does not mention that one, plus the terms shared with at
        least half of the other sub-questions; the rest are facets. Without siblings or
        an entity, all terms are subject, and all must be met.
        With ``rivals``, the siblings' facets are kept (:func:`~.aboutness.context_about`).
        A part in Traditional characters is read as its Simplified form, its text kept.
        A ``glossary`` (the user's words for their field) gives each facet the words
        that meet it besides its own. ``as_asked`` is the part as the question words it
        before the planner lent it a subject (see :attr:`alternative`).
        """
        if simplified(subquestion) != subquestion:  # read in Simplified, for matching only
            return cls._in_simplified(subquestion, siblings, question, rivals, glossary, as_asked)
        question, siblings = _read_in(subquestion, question, siblings)
        compared = comparison(subquestion)
        if compared is not None:  # both sides are the subject; "better" is no facet
            read = as_one(compared)
            whole = read if question in ("", subquestion) else question
            focus = cls.build(read, siblings, whole, rivals, glossary, as_asked)
            return dataclasses.replace(focus, text=subquestion)
        glossary = glossary or Glossary()
        asked = _FRAMES.sub(" ", subquestion)
        own = own_terms(asked, question)
        surface = _surface_forms(subquestion)
        lead = lead_subject(question)[0] if question else ""
        surface = {**_surface_forms(lead), **surface}
        named, entity_terms, lead = _part_named(subquestion, question, asked, own, lead)
        own, entity_terms = _name_as_term(named, subquestion, asked, own, entity_terms)
        asked_verb = set(terms(_verb_after(subquestion, named)))
        subject = _subject_terms(subquestion, siblings, own, entity_terms, lead, asked_verb)
        facets = _facets_of(
            subquestion, _asked(subquestion, own, subject), subject, surface, glossary
        )
        others_facets = (
            cls._rival_facets(subquestion, siblings, question, glossary) if rivals else ()
        )
        titled = _work_titled(named, question or subquestion)
        alternative = cls._as_asked(as_asked, subquestion, siblings, question, rivals, glossary)
        return cls(
            text=subquestion,
            subject=tuple(subject),
            core=_core(named or subquestion, tuple(subject)),
            facets=facets,
            kind=question_kind(subquestion),
            subject_weights={t: weight(surface.get(t, t)) for t in subject},
            rivals=others_facets,
            kinds=frozenset(named_kind_terms(subquestion)),
            titled=titled,
            alternative=alternative,
        )

    @classmethod
    def _rival_facets(
        cls, subquestion: str, siblings: Sequence[str], question: str, glossary: Glossary
    ) -> tuple[tuple[Facet, ...], ...]:
        """The facets of each sibling of a part that has any (see :attr:`rivals`).

        Args:
            subquestion: the part.
            siblings: the sub-questions of its plan.
            question: the whole question.
            glossary: the user's words for their field.

        Returns:
            One tuple of facets per sibling other than the part, in plan order: each
            sibling's facets other than the words any part takes as its subject (a word
            one part asks about and another is about, "strike" in "How long did the
            Harlow general strike last?" beside "Who were the strike's casualties?", is
            the question's topic: a heading naming it is not about one part); those left
            with none are left out.
        """
        built = {s: cls.build(s, siblings, question, False, glossary) for s in siblings}
        mine = built.get(subquestion) or cls.build(subquestion, siblings, question, False, glossary)
        topic = {t for f in (mine, *built.values()) for t in f.subject}
        return tuple(
            found
            for s, focus in built.items()
            if s != subquestion and (found := tuple(f for f in focus.facets if f.term not in topic))
        )

    @classmethod
    def _in_simplified(
        cls,
        subquestion: str,
        siblings: Sequence[str],
        question: str,
        rivals: bool,
        glossary: Glossary | None,
        as_asked: str,
    ) -> Focus:
        """The focus of a part written in Traditional characters: that of its Simplified
        form among its siblings' (see :meth:`build`), with its text as written."""
        focus = cls.build(
            simplified(subquestion),
            [simplified(s) for s in siblings],
            simplified(question),
            rivals,
            glossary,
            simplified(as_asked),
        )
        return dataclasses.replace(focus, text=subquestion)

    @classmethod
    def _as_asked(
        cls,
        as_asked: str,
        subquestion: str,
        siblings: Sequence[str],
        question: str,
        rivals: bool,
        glossary: Glossary,
    ) -> Focus | None:
        """The focus of a part in its own words (see :attr:`alternative`).

        Args:
            as_asked: the part as the question words it ("" when nothing was lent).
            subquestion: the part as planned.
            siblings: the sub-questions of its plan.
            question: the whole question.
            rivals: whether the siblings' facets are kept.
            glossary: the user's words for their field.

        Returns:
            The focus of ``as_asked`` among the siblings (it standing for the part), or
            None when it is the part itself or names no telling subject.
        """
        if as_asked and as_asked != subquestion and telling(entity(as_asked)):
            mine = [as_asked if s == subquestion else s for s in siblings]
            return cls.build(as_asked, mine, question, rivals, glossary)
        return None


def _part_named(
    subquestion: str, question: str, asked: str, own: list[str], lead: str
) -> tuple[str, set[str], str]:
    """The entity a part is about, and the subject it takes from the question.

    The entity the whole question names, unless the part neither mentions it nor has a
    lead: then the part's own entity when it names one (or writes no capitalised name
    where the question does not), and otherwise the question's, taken as the lead
    subject of a part that names nothing or points back.

    Args:
        subquestion: the part.
        question: the whole question ("" for none).
        asked: the part without the words that frame it.
        own: the part's terms.
        lead: the subject the question names before its parts ("" for none).

    Returns:
        The entity, its terms, and the lead subject.
    """
    named = entity(question or subquestion)
    entity_terms = set(terms(named))
    written = is_cjk(named) and named in asked  # cut otherwise in the part (潘 淑是)
    if question and not lead and not written and _names_another(asked, entity_terms, own):
        return entity(asked), set(terms(entity(asked))), lead
    if question and not lead and not entity_terms & set(own) and not written:
        mine = entity(subquestion) or entity(asked)  # "how many eggs does *a kiwi* lay"
        owned = owned_by_subject(asked, question)  # "wer war *sein* erster Direktor"
        capital = mine[:1].isupper() and not owned
        own_subject = is_cjk(asked) or capital or not named[:1].isupper()
        if own_subject or (mine and not (owned or _part_points_back(asked))):
            named = mine  # the part asks about a subject of its own
            entity_terms = set(terms(named))
        else:  # it names nothing or points back, so it asks about the question's
            lead = named  # named subject ("…, and where do most of its farmers work?")
    return named, entity_terms, lead


def _names_another(asked: str, entity_terms: set[str], own: list[str]) -> bool:
    """Whether a part names, in capitals, a thing other than the question's entity that
    shares a word with it ("When was the Brooklyn Bridge built" in a question whose
    entity is "the Golden Gate Bridge"): the part is about its own thing, not the
    question's, though it says one of its words. A part naming only words of the
    question's entity ("the Bank" of "the Bank of England") is about that entity."""
    if not entity_terms & set(own) or entity_terms <= set(own):
        return False
    mine = entity(asked)
    return mine[:1].isupper() and bool(set(terms(mine)) - entity_terms)


def _name_as_term(
    named: str, subquestion: str, asked: str, own: list[str], entity_terms: set[str]
) -> tuple[list[str], set[str]]:
    """A part's terms, with a Chinese name the cut splits or glues to the next word made
    one term.

    Args:
        named: the entity the part is about.
        subquestion: the part.
        asked: the part without the words that frame it.
        own: the part's terms.
        entity_terms: the entity's terms.

    Returns:
        The part's terms and the entity's: the name first and alone as the entity's,
        when it is one term, the pieces it was cut into dropped.
    """
    if _unsegmented(named) and named in subquestion:
        # a name the word list does not know (章同 cut into 章 and 同) is one term
        return [named, *(t for t in own if t not in terms(named))], {named}
    if (across := _cut_across(named, asked)) is not None:
        # the part's own cut glues the name to the word after it (潘 淑是): the name
        # is one term, and the pieces that overlap it are none
        return [named, *(t for t in own if t not in across)], {named}
    return own, entity_terms


def _subject_terms(
    subquestion: str,
    siblings: Sequence[str],
    own: list[str],
    entity_terms: set[str],
    lead: str,
    asked_verb: Collection[str] = (),
) -> list[str]:
    """The terms of a part that make up its subject.

    The entity's terms and those shared with at least half of the other sub-questions
    (but those that say all its words, the same clause asked by another question word,
    and the verb the part asks of its subject: "how often did the ferry *cross*" beside
    "what did a crossing cost" asks about the crossing, and the words of the claim the
    part checks or another part checks and it repeats, which say what the claim says of
    its subject: "is it true that the Great Wall is *visible from space*" beside "who
    first claimed that the Great Wall is visible from space"), after the lead subject's
    terms; all the part's terms when that leaves none.

    Args:
        subquestion: the part.
        siblings: the sub-questions of its plan.
        own: the part's terms.
        entity_terms: the terms of the entity it is about.
        lead: the subject named before the parts, or lent by the question ("" for none).
        asked_verb: the terms of the verb the part asks of its subject (see
            :func:`_verb_after`).

    Returns:
        The subject's terms, in order, each once.
    """
    mine = set(terms(subquestion))
    # a twin (the same clause asked by another question word: "when and by whom was the
    # pier built") shares every word by construction, which says nothing of the subject
    others = [t for s in siblings if s != subquestion and (t := set(terms(s))) != mine]
    need = max(1, math.ceil(len(others) / 2))
    claims = [claim_said(subquestion), *(_repeated_claim(s, siblings) for s in siblings)]
    said = {t for claim in claims for t in terms(claim)}
    shared = {
        t
        for t in own
        if others and sum(t in o for o in others) >= need and t not in {*asked_verb, *said}
    }
    subject = [t for t in own if t in entity_terms or t in shared]
    if lead:  # the subject named before the parts, or by the question for a part
        # that names none ("…in Freedonia, and where do most of its farmers work?")
        idle = idle_terms(subquestion)  # "von" of "der Hafen von Valdora"
        lent = (t for t in terms(lead) if t not in SCAFFOLD and t.casefold() not in idle)
        subject = list(dict.fromkeys([*lent, *subject]))
    if not subject:
        subject = own
    return subject


def _repeated_claim(part: str, siblings: Sequence[str]) -> str:
    """The claim a part checks (:func:`claim_said`) when another part repeats it ("who
    first claimed that the Great Wall is visible from space"), else ""."""
    claim = claim_said(part)
    return claim if claim and any(claim in s for s in siblings if s != part) else ""


def _asked(subquestion: str, own: list[str], subject: list[str]) -> list[str]:
    """A part's terms that its subject and facets are made of: without the noun naming
    the kind of answer and the verb of having (see :func:`answer_kind_terms`,
    :func:`_having_terms`), and without the words by which it asks for the present
    ("latest", "now", 目前: see :mod:`research.present`), which a sentence dates rather
    than says, unless the part asks nothing else of its subject ("What role does it play
    today?"): there the present is what sets the part apart from the subject's past."""
    kinds = answer_kind_terms(subquestion) | _having_terms(subquestion)
    own = [t for t in own if t in subject or t not in kinds]
    present = present_terms(subquestion)
    rest = [t for t in own if t in subject or t not in present]
    return rest if any(t not in subject for t in rest) else own


def _facets_of(
    subquestion: str,
    own: list[str],
    subject: list[str],
    surface: dict[str, str],
    glossary: Glossary,
) -> tuple[Facet, ...]:
    """The facets of a part: its terms outside its subject, each with its weight, the
    words that meet it and what it is.

    Args:
        subquestion: the part.
        own: the part's terms.
        subject: the subject's terms.
        surface: each term's form as written.
        glossary: the user's words for their field.

    Returns:
        The facets, in the order of the part's terms.
    """
    phrases = _phrases(subquestion, [t for t in own if t not in subject])
    zh_kinds = zh_kind_nouns(subquestion)
    measured = zh_measuring_verbs(subquestion)
    asked_terms = frozenset(terms(subquestion))
    return tuple(
        Facet(
            t,
            weight(surface.get(t, t)),
            glossary.related(t),
            phrases[t],
            morphemes(t),
            glossary.same(t),
            asked_terms if t in zh_kinds else frozenset(),
            localizer(t),
            t in measured,
        )
        for t in own
        if t not in subject
    )


def _work_titled(named: str, text: str) -> str:
    """The work a question names in title marks, when it is its subject and a common word
    (see :attr:`Focus.titled`).

    Args:
        named: the entity the part is about.
        text: the question (or the part when there is none).

    Returns:
        The title, or "" when it is not the entity or is telling (a rare title names the
        work wherever it is written).
    """
    if not is_cjk(text):
        return _en_titled(named, text)
    titled = _zh_titled(text)
    if titled != named or telling(titled):
        titled = ""  # a rare title names the work wherever it is written
    return titled


#: The articles that mark an English name as the title of a work when they open it in the
#: middle of a sentence ("What is *The* Lantern?") or stand inside it ("Man at *the*
#: Ferry").
TITLE_ARTICLES = frozenset(["the", "a", "an"])


def _en_titled(named: str, text: str) -> str:
    """The title of a work an English question names as its subject: a name of two
    words or more that opens with a capitalised article in the middle of a sentence, or
    holds an article between its capitalised words (see :data:`TITLE_ARTICLES`); "" for
    any other name.

    Args:
        named: the entity the part is about, as written.
        text: the question (or the part when there is none).
    """
    name = named.removesuffix("'s").removesuffix("’s")
    tokens = name.split()
    at = text.find(name)
    if len(tokens) < 2 or at < 0 or not tokens[-1][:1].isupper():
        return ""
    before = text[:at].rstrip(" \"'“‘")
    opening = tokens[0] in ("The", "A", "An") and bool(before) and before[-1] not in ".?!:;"
    inner = any(t in TITLE_ARTICLES for t in tokens[1:-1])
    return name if opening or inner else ""


@lru_cache(maxsize=1024)
def _unsegmented(name: str) -> bool:
    """Whether a Chinese name is cut into single characters by the word list (章同 into
    道 and 同), so that its characters alone would stand for it."""
    if not is_cjk(name) or len(name) < 2 or not all(CJK.match(ch) for ch in name):
        return False
    return all(len(t) == 1 for t in terms(name))


def _cut_across(name: str, text: str) -> frozenset[str] | None:
    """The terms of a Chinese ``text`` that overlap ``name`` where its cut runs across
    the name's edge (韩光是谁的老师 cut 韩 光是: 韩 and 光是); ``None`` when no term
    crosses an edge of the name, or the text does not hold it."""
    start = text.find(name) if name and all(CJK.match(ch) for ch in name) else -1
    if start < 0:
        return None
    end = start + len(name)
    over, crossing, at = set(), False, 0
    for word in words(text):
        left, right = at, at + len(word)
        at = right
        if right <= start or left >= end or not word.strip():
            continue
        over.add(word)
        crossing = crossing or left < start or right > end
    return frozenset(t for w in over for t in terms(w)) if crossing else None


def _phrases(text: str, facet_terms: list[str]) -> dict[str, int]:
    """Each facet term's phrase: terms separated only by small words share one."""
    wanted = set(facet_terms)
    phrase, gap, out = 0, 99, {}
    for word in words(text):
        term = stem(word.strip("'"))
        if term in wanted and term not in out:
            if gap > 2:
                phrase += 1
            out[term] = phrase
            gap = 0
        elif word in STOP_WORDS or len(word) < 2:
            gap += 1
        else:
            gap = 99
    return {t: out.get(t, i + 1000) for i, t in enumerate(facet_terms)}


def _surface_forms(text: str) -> dict[str, str]:
    """Each term of ``text`` mapped to a word it was written as (word frequencies need
    words, not stems)."""
    out: dict[str, str] = {}
    for word in words(text, search=True):
        for part in word.split("-"):
            out.setdefault(stem(part.strip("'")), part.strip("'"))
    return out


#: A character at least this rare (wordfreq's Zipf scale) tells what its word is about.
TELLING_ZIPF = 5.1


@lru_cache(maxsize=4096)
def morphemes(term: str) -> frozenset[str]:
    """The telling characters of a Chinese word of two or more characters: those rarer
    than :data:`TELLING_ZIPF` (熊, 猫 in 熊猫; not 有 or 人, which many words share)."""
    if len(term) < 2 or not all(CJK.match(ch) for ch in term):
        return frozenset()
    return frozenset(ch for ch in term if zipf(ch, "zh", "best") < TELLING_ZIPF)


def zh_measuring_verbs(text: str) -> set[str]:
    """The verbs a Chinese question asks how long with: the verb right before 多久 or
    多长时间 (持续 in 持续了多久, 存在 in 存在了多长时间)."""
    if not re.search("多久|多长", text):  # Focus.build asks this of every part and rival
        return set()
    tagged = [p for p in zh_tagged(text) if p.word.strip() and p.word not in ("了", "过")]
    return {
        before.word
        for before, word in pairwise(tagged)
        if before.flag.startswith(("v", "a")) and re.match("多久|多长", word.word)
    }


@lru_cache(maxsize=4096)
def localizer(term: str) -> bool:
    """Whether a Chinese word is a localizer (方位词) in jieba's word list: it says where
    or when relative to something (旁边, 沿岸, 之间, 之后)."""
    if len(term) < 2 or not all(CJK.match(ch) for ch in term):
        return False
    return word_tag(term) == "f"


@dataclass(frozen=True)
class Glossary:
    """Words a user says mean the same in their field (``[[quartet.glossary]]`` in
    quartet.toml): data handed in by the user, never a list kept here.

    Each group has the words that name the same thing (``same``: "build", "construct")
    and the words for closely related things (``related``: "design", "assemble"). A facet
    is met by any word of a group holding it, a little less than by its own word; a
    heading names it only by a word of ``same``.
    """

    groups: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()

    @classmethod
    def of(cls, raw: Sequence[Mapping[str, Sequence[str]]]) -> Glossary:
        """A glossary from ``[{"same": [...], "related": [...]}, ...]``, each word in its
        comparable form."""
        groups = [
            (_comparable(entry.get("same") or ()), _comparable(entry.get("related") or ()))
            for entry in raw
        ]
        return cls(tuple(g for g in groups if len(g[0] | g[1]) > 1))

    def same(self, term: str) -> frozenset[str]:
        """``term`` and the words naming the same thing."""
        found = {term}
        for same, _ in self.groups:
            if term in same:
                found |= same
        return frozenset(found)

    def related(self, term: str) -> frozenset[str]:
        """Every word of a group holding ``term``, but ``term`` itself."""
        found: set[str] = set()
        for same, related in self.groups:
            if term in same or term in related:
                found |= same | related
        return frozenset(found - {term})


def _comparable(words_: Sequence[Any]) -> frozenset[str]:
    """Words as terms: English stemmed, Chinese as written."""
    found = (str(w).strip() for w in words_)
    return frozenset(w if CJK.match(w) else stem(w.lower()) for w in found if w)


#: A Chinese name written as one run: characters and digits, at most 12.
_ZH_NAME = re.compile(rf"[{CJK_CLASS}0-9]{{2,12}}")


def _name_words(phrase: str) -> list[str]:
    """The words of a Chinese run of nouns that name something: without the words at its
    end that the word list gives as a verb, adverb, adjective or distinguishing word,
    which the tagger took for nouns in the question (认可 in 青州法律认可哪几种执照,
    主要 in …青溪鲷鱼主要分布在…)."""
    cut = [w for w in words(phrase) if w.strip()]
    while len(cut) > 1 and (word_tag(cut[-1]) or "n")[:1] in ("v", "d", "a", "b"):
        cut.pop()
    return cut


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _core(phrase: str, subject: tuple[str, ...]) -> tuple[str, ...]:
    """The subject's head: the last two terms of its phrase (en); for Chinese, the whole
    name when it is written as one run of several words (see :func:`_name_words`), else
    its main word."""
    if not subject:
        return ()
    if is_cjk(phrase):
        named = _name_words(phrase) if _ZH_NAME.fullmatch(phrase) else []
        if len(named) > 1:
            return ("".join(named),)  # 石湾巴士52线 is one name, not 石湾
        if "·" in phrase:  # a transliterated name: its last part is the family name
            family = [t for t in terms(phrase.rsplit("·", 1)[1]) if t in subject]
            if family:
                return (max(family, key=len),)
        longest = max((w for w in words(phrase) if CJK.match(w)), key=len, default="")
        subs = [s for s in subject if len(s) >= 3 and s in longest]
        if subs:
            return (min(subs, key=len),)
        # its main word is a code with a number in it (7b in 青城巴士7B线), else a Chinese
        # word (青城 in 《STAR 青城旧事》, not "star")
        return (max(subject, key=lambda t: (_has_digit(t), bool(CJK.match(t)), len(t))),)
    order = [t for t in terms(phrase) if t in subject] or list(subject)
    return tuple(order[-2:])


_QUESTION_TEXT = "how why what when where which who whom whose"
_QUESTION_WORDS = frozenset(_QUESTION_TEXT.split())
#: English question words.
QUESTION_WORDS = _QUESTION_WORDS
#: An English question word, as a question opens with it (see :func:`_first_asked`).
_EN_ASKING = re.compile(rf"\b(?:{'|'.join(_QUESTION_TEXT.split())})\b")
_AUX_TEXT = "is are was were do does did can could will would should has have had may might must"
_AUX = frozenset(_AUX_TEXT.split())
#: English auxiliaries (what a question's verb phrase may open with).
AUXILIARIES = _AUX
_ARTICLES_TEXT = "the a an its their this these those"
_ARTICLES = frozenset(_ARTICLES_TEXT.split())
#: Chinese question words.
ZH_QUESTION_WORDS = (
    "如何",
    "为什么",
    "为何",
    "哪些",
    "何时",
    "什么",
    "怎样",
    "怎么",
    "是否",
    "多少",
    "哪里",
)


#: What makes a Chinese text ask something: a question word, 谁, 哪, 几 or 吗; 何 before
#: what it asks of (何处, 何人, 何为; not 任何 or 几何); 多 before an adjective of measure
#: (多远, 多高; not 很多 or 许多); 能否 and 可否; a verb asked as yes or no (是不是, 有没有).
ZH_ASKS = re.compile(
    "|".join(
        [
            *ZH_QUESTION_WORDS,
            "谁",
            "哪",
            "几",
            "吗",
            r"(?<![任几])何[处地人种为以故在]",
            r"(?<![很许最更较诸众好])多[远久长大高深重宽厚快老]",
            "能否",
            "可否",
            rf"([{CJK_CLASS}])[不没]\1",
        ]
    )
)

#: A lead that names the subject before the questions ("Lithium-ion batteries: who …").
_LEAD = re.compile(r"^(?P<lead>[^:：?？]{2,80})[:：]\s*(?P<rest>\S.*)$")
_LEAD_PREPOSITIONS = frozenset(["about", "on", "regarding", "concerning", "re", "as", "for"])
#: Parts of speech (jieba's tags) that make up a Chinese noun phrase.
_ZH_NOUNISH = ("n", "eng", "j", "l", "b")
#: jieba's tags of the aspect particles 了, 着 and 过, which follow a verb only.
_ZH_ASPECT = frozenset({"ul", "uz", "ug"})
#: The passive marker, and the words that close a passive verb's result (被*任命*为,
#: 被*改*成): a word between them is a verb.
_ZH_PASSIVE, _ZH_RESULT = "被", frozenset({"为", "成", "作", "做"})


def _zh_verb_at(tagged: list[Any], i: int) -> bool:
    """Whether word ``i`` of a tagged Chinese clause is a verb by its place, whatever the
    word list calls it: an aspect particle follows it (定义了, 记载着), or it stands
    between the passive marker, with or without the nouns of its agent, and the word
    closing its result (被任命为, 被青州知府任命为)."""
    after = tagged[i + 1].word if i + 1 < len(tagged) else ""
    if after and tagged[i + 1].flag in _ZH_ASPECT:
        return True
    return after in _ZH_RESULT and _zh_after_passive(tagged, i)


def _zh_after_passive(tagged: list[Any], i: int) -> bool:
    """Whether word ``i`` of a tagged Chinese clause stands right after the passive
    marker, with or without the nouns of its agent between them (被任命, 被青州知府任命)."""
    k = i - 1
    while k >= 0 and tagged[k].word != _ZH_PASSIVE and tagged[k].flag.startswith(_ZH_NOUNISH):
        k -= 1  # the agent's nouns
    return k >= 0 and tagged[k].word == _ZH_PASSIVE


def lead_subject(question: str) -> tuple[str, str]:
    """``(subject, rest)`` when the question opens with a subject and a colon
    ("About Lake Marrow: …", "锂离子电池：…") and the lead asks nothing itself;
    else ``("", question)``."""
    match = _LEAD.match(" ".join(question.split()))
    if not match or sides_first(question) != question:  # "A vs B: which …?" compares
        return "", question
    lead = match.group("lead").strip()
    words_ = lead.split()
    if words_ and words_[0].lower() in _QUESTION_WORDS | _AUX:
        return "", question
    if is_cjk(lead) and any(q in lead for q in ZH_QUESTION_WORDS):
        return "", question
    while len(words_) > 1 and words_[0].lower() in _LEAD_PREPOSITIONS:
        words_ = words_[1:]
    return " ".join(words_), match.group("rest").strip()


def entity(question: str) -> str:
    """The entity a question is about, as written ("Italy's Mount Vesuvius").

    The subject a lead names before a colon ("Lithium-ion batteries: who …"); else its
    longest run of capitalised words (numbers that follow a name belong to it: "Route
    66"); otherwise, for a check of a claim, the claim's own subject ("is it true that
    *coffee* stunts growth"), else the noun phrase of its first clause: after "of" ("the
    health effects of *microplastics*"), or between the auxiliary and the verb ("how do
    *heat pumps* work"), or after the verb ("what caused *the 2008 financial crisis*"),
    or what a quantity is asked of ("how many calories does *rye bread* have"). For
    Chinese, the first run of nouns of the first clause that has one (jieba's parts of
    speech), the words asking whether a claim holds (真的, 是真的吗) set apart.
    """
    question = " ".join(question.split())
    lead, _ = lead_subject(question)
    if lead:
        return lead
    known = question_language(question)
    if known is not None and known.topic_particles:
        topic, _ = topic_of(question, known)
        if topic:
            return topic
    if is_cjk(question):
        return _zh_question_entity(_ZH_CLAIM.sub("，", question))
    runs = _capital_runs(question)
    if runs:
        name = " ".join(max(runs, key=_run_weight(known)))
        if known is not None:
            return name
        name = _lettered(question, name)
        return _placed_subject(question, name) or _with_head_nouns(question, name)
    opening = CLAIM_OPENING.match(question)
    if opening:  # "is it true that coffee stunts growth": what the claim is about
        return _claimed_subject(question[opening.end() :])
    return _noun_phrase_entity(question)


def _lettered(question: str, name: str) -> str:
    """A name that is one capital letter with the word before it, which it marks ("vitamin
    D", "hepatitis B": the letter alone names nothing); any other name as it is."""
    if len(name) != 1 or not name.isupper():
        return name
    before = re.search(rf"([a-z][\w-]*)\s+{re.escape(name)}\b", question)
    if before is None or before.group(1) in STOP_WORDS or before.group(1) in _QUESTION_WORDS:
        return name
    return f"{before.group(1)} {name}"


def _read_in(subquestion: str, question: str, siblings: Sequence[str]) -> tuple[str, Sequence[str]]:
    """The question and siblings a part is read among: a side of the question's
    comparison is asked on its own, about its side (it shares no subject with the other
    side); any other part among the question's."""
    side = side_asked(subquestion, question)
    return (f"{side}: {subquestion}", [subquestion]) if side else (question, siblings)


def side_asked(subquestion: str, question: str) -> str:
    """The side a part asks about when it is one side of the question's comparison,
    asked on its own (read as a question about that side: "rye bread: How many calories
    does rye bread have?"); else ""."""
    asked_of = comparison(question) if question else None
    if asked_of is None:
        return ""
    return dict(zip(side_parts(asked_of), asked_of.sides, strict=True)).get(subquestion, "")


def named_phrase(question: str) -> str:
    """What a later ask of ``question`` stands for when it names nothing of its own: in a
    language with data (:mod:`research.lang`), the noun phrase the question's entity
    stands in (see :func:`_phrase_of`: "die Brücke von Altdorf", where the entity, what a
    sentence must name, is Altdorf); else the entity itself."""
    named = entity(question)
    known = question_language(question)
    if known is None or not named or is_cjk(named):
        return named
    return _phrase_of(" ".join(question.split()), named, known)


def _phrase_of(question: str, name: str, known: Language) -> str:
    """The noun phrase ``name`` stands in, as written, in a language with data: with the
    names a link joins on ("die Brücke *von Altdorf*"), the noun it names or places
    ("*el puente de* Alcántara", "*la sequía en* España") and the article before it, in
    lower case ("die Brücke von Altdorf"), as a later ask names it."""
    found = list(WORD.finditer(question))
    tokens = [m.group(0) for m in found]
    lows = [t.casefold() for t in tokens]
    size = len(name.split())
    start = next(
        (i for i in range(len(tokens) - size + 1) if " ".join(tokens[i : i + size]) == name),
        None,
    )
    if start is None:
        return name
    end = _described_noun(tokens, lows, _joined_names(tokens, lows, start + size, known), known)
    at = start - 1
    if at >= 0 and lows[at] in known.articles:
        at -= 1  # "de *la* Mancha"
    if at >= 1 and lows[at] in known.links and _is_content(lows[at - 1], known):
        start = at - 1
    if start >= 1 and lows[start - 1] in known.articles:
        start -= 1
    phrase = question[found[start].start() : found[end - 1].end()]
    return phrase[0].lower() + phrase[1:] if lows[start] in known.articles else phrase


def _joined_names(tokens: Sequence[str], lows: Sequence[str], end: int, known: Language) -> int:
    """Where a name ending at ``end`` ends with the names links join on to it ("von
    Altdorf", "de la Mancha")."""
    while end + 1 < len(tokens) and lows[end] in known.links:
        at = end + 1
        if lows[at] in known.articles and at + 1 < len(tokens):
            at += 1
        if not tokens[at][0].isupper():
            break
        end = at + 1
        while end < len(tokens) and tokens[end][0].isupper():
            end += 1
    return end


def _described_noun(tokens: Sequence[str], lows: Sequence[str], end: int, known: Language) -> int:
    """Where a name ending at ``end`` ends with the noun it describes, when its last word
    has one of the language's ``name_endings`` ("Karlův *most*", "Turun *linna*")."""
    if (
        end < len(tokens)
        and lows[end - 1].endswith(known.name_endings)
        and tokens[end][0].islower()
        and _is_content(lows[end], known)
    ):
        return end + 1
    return end


def _is_content(low: str, known: Language) -> bool:
    """Whether a word (lower case) of a language with data says something: not one of
    its function words, question words, joiners or pronouns."""
    return low not in known.function_words and not known.asks_with(low) and low.isalpha()


#: The auxiliaries after which a clause's verb is bare ("did the flood *kill*"); after
#: the others ("was", "has") it is a participle ("was the bridge *built*").
_BARE_AFTER_TEXT = "do does did can could will would should may might must"
_BARE_AFTER = frozenset(_BARE_AFTER_TEXT.split())


#: Prepositions that place a thing ("colonies *in* Vermont", "the temples *at* Angkor").
_PLACING_TEXT = "in at on near of from around across"
_PLACING = frozenset(_PLACING_TEXT.split())


def _placed_subject(question: str, name: str) -> str:
    """The subject of a clause that an English name only places, with the name: "why
    are honeybee colonies in Vermont dying" is about the honeybee colonies in Vermont,
    not about Vermont ("what can beekeepers do about it" asks about the colonies). Taken
    when the name follows a preposition after common nouns that stand right after the
    clause's auxiliary, and a verb of the form the auxiliary asks for follows the name;
    else empty ("how many people live in Tokyo" is about Tokyo)."""
    clause = _clause_around(question, name)
    if clause is None or not clause.aux or clause.before[-1].lower() not in _PLACING:
        return ""
    nouns = clause.before[clause.aux_at + 1 : -1]
    common = [w for w in nouns if w.lower() not in _ARTICLES]
    if not common or not all(_head_noun(w) for w in common) or not _head_noun(nouns[-1]):
        return ""
    if not clause.after or not clause.verb(clause.after[0].lower()):
        return ""
    return " ".join([*nouns, clause.before[-1], name])


def _verb_after(subquestion: str, name: str) -> str:
    """The verb an English part asks of the subject it names: the word right after the
    name, when it is of the form the clause's auxiliary asks for (bare after "did", a
    participle after "was") and ends the clause or opens a phrase with a stop word ("how
    often did the ferry *cross*", "when was the bridge *built* in"), or an inflected verb
    right after "who" or "what" ("who *built* the bridge"); else empty."""
    opening = re.match(r"\s*(?:who|what)\s+([a-z]+)\b", subquestion, re.I)
    if opening and is_verb_form(opening.group(1).lower()):
        return opening.group(1)
    clause = _clause_around(subquestion, name) if name else None
    if clause is None or not clause.aux or not clause.after:
        return ""
    after = clause.after
    closes = len(after) == 1 or after[1].lower() in STOP_WORDS
    return after[0] if clause.verb(after[0].lower()) and closes else ""


@dataclass(frozen=True)
class _Clause:
    """The words of an English clause around a name in it, as written."""

    #: the clause's words before the name
    before: list[str]
    #: the clause's words after the name
    after: list[str]
    #: where the clause's last auxiliary before the name stands in :attr:`before` (-1
    #: for none)
    aux_at: int

    @property
    def aux(self) -> str:
        """That auxiliary, in lower case ("" for none)."""
        return self.before[self.aux_at].lower() if self.aux_at >= 0 else ""

    def verb(self, word: str) -> bool:
        """Whether a lower-case word is a verb of the form the auxiliary asks for: bare
        after "did", a participle after "was"."""
        return (is_bare_verb if self.aux in _BARE_AFTER else is_verb_form)(word)


def _clause_around(question: str, name: str) -> _Clause | None:
    """The clause of an English ``question`` around ``name`` (None when the question
    does not write it, or it is not written in ASCII letters)."""
    at = question.find(name)
    if at < 0 or not name.isascii():
        return None
    before = re.split(r"[?.!;,:]", question[:at])[-1].split()
    after = re.split(r"[?.!;,:]", question[at + len(name) :])[0].split()
    auxes = [i for i, w in enumerate(before) if w.lower() in _AUX]
    return _Clause(before, after, auxes[-1] if auxes else -1)


def _with_head_nouns(question: str, name: str) -> str:
    """An English name with the common nouns it heads ("the Krell *flood*", "the Varn
    *eruption*"), when the name stands after its clause's auxiliary and those nouns run
    from it to the clause's verb: "how many people did the Krell flood kill" is about
    the Krell flood, whose verb is "kill". A noun is taken only when the word after it
    is a verb of the form the auxiliary asks for (bare after "did", a participle after
    "was") that ends the clause or opens a phrase with a stop word ("land *on* the
    moon"), or an adverb before such a verb ("was the Kelby lighthouse *first* lit"):
    "did the Ostel Railway stop carrying freight" and "does the Marrow Reserve set
    interest rates" keep the name alone. After a form of "be", nouns that run from the
    name to the end of its clause (or to "and", "or") are its too: "how tall is the
    Varne lighthouse"."""
    clause = _clause_around(question, name)
    if clause is None or not clause.aux:
        return name
    after = clause.after
    nouns = next(
        (
            k
            for k, word in enumerate(after)
            if not _head_noun(word) or _FRAMES.match(" ".join(after[k:]))
        ),
        len(after),
    )
    ends = nouns == len(after) or after[nouns].lower() in ("and", "or")
    if clause.aux in _BE and ends and not re.search(r"['’]s?$", name):  # not what it owns
        return " ".join([name, *after[:nouns]])
    heads = 0
    for k in range(1, nouns + 1):
        verb_at = k + 1 if k < len(after) and _adverb(after[k]) else k
        if verb_at >= len(after):
            break
        rest = after[verb_at + 1 :]
        closes = (
            not rest
            or rest[0].lower() in STOP_WORDS
            or bool(_FRAMES.match(" ".join(after[verb_at:])))
        )
        if clause.verb(after[verb_at].lower()) and closes:
            heads = k
    return " ".join([name, *after[:heads]])


#: The forms of "be" after which a name with its nouns may close the clause.
_BE = frozenset(["is", "are", "was", "were"])


def _adverb(word: str) -> bool:
    """Whether a lower-case English word can be an adverb ("first", "originally") and is
    no verb of its own form ("built")."""
    said = readings(word)
    return word.isalpha() and word.islower() and "ADV" in said and not is_verb_form(word)


def _head_noun(word: str) -> bool:
    """Whether a lower-case English word can only be a common noun or a verb (not an
    adjective or adverb: "first", "set"), and is no stop word."""
    said = readings(word)
    plain = word.isalpha() and word.islower() and word not in STOP_WORDS
    return plain and "NOUN" in said and not said & {"ADJ", "ADV"}


#: Where a clause of a question ends: a question mark, a comma, a full stop.
_CLAUSE_END = re.compile(r"[?？、，,。.!！]")


def topic_of(text: str, known: Language) -> tuple[str, str]:
    """What a question in a language that marks its topic with a particle is about, and
    that particle: in its first clause, the word before the first topic particle (for
    Korean, a word that ends with one: 경복궁은 → 경복궁; for Japanese, written without
    spaces, the characters before the first one, hiragana-free: 東京タワーは → 東京タワー).
    A particle that marks an owner (富士山の最後の噴火 → 富士山) marks it too; the particle
    returned is then the language's first topic particle, for carrying the topic to a
    later ask. ``("", "")`` when none is found.

    Args:
        text: the question.
        known: its language's data (:attr:`~research.lang.Language.topic_particles`).
    """
    first = _CLAUSE_END.split(text.strip(), maxsplit=1)[0].strip()
    marks = (*known.topic_particles, *known.owner_particles)
    carried = known.topic_particles[0] if known.topic_particles else ""
    if not spaceless(first):
        before: list[str] = []
        for word in first.split():
            ends = [p for p in marks if word.endswith(p) and len(word) > len(p)]
            if ends:
                particle = ends[0]
                phrase = " ".join([*before, word[: -len(particle)]])
                return phrase, particle if particle in known.topic_particles else carried
            bare = not word.endswith(known.particles) and not known.asks_with(word)
            before = [*before, word] if bare else []
        return "", ""
    found = [(first.find(p), p) for p in marks if first.find(p) > 0]
    if not found:
        return "", ""
    at, particle = min(found)
    topic = first[:at]
    if any(is_function_script(ch) for ch in topic):
        return "", ""
    return topic, particle if particle in known.topic_particles else carried


def _zh_question_entity(question: str) -> str:
    """The entity a Chinese question is about.

    The subject most of its pieces open with, else the work it names in title marks,
    else the name or first telling run of nouns of its first clause that names one; a
    clause that only says when or in what respect (:func:`_zh_setting`) is passed over,
    and the search stops at a clause that asks something.

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The entity as written, or "" when no clause before the first that asks names one.
    """
    clauses = [c for c in re.split(r"[，,。？?！!；;、]", question) if c.strip()]
    # the first clause that names something; one that only says when ("20世纪70年代，
    # …", "在1996年，…", "在大桥建成之前，…") names nothing
    asked = [c for c in clauses if not _zh_time(c) and not _zh_setting(c)]
    titled = _zh_titled(question)  # 《武则天》 names a work
    if shared := _zh_shared(question) or titled:
        return shared
    # …and one that names nothing either (即使在今天，…) leaves the name to the next,
    # unless it asks something itself (茶树枯萎会导致什么，…: a question of its own)
    for clause in asked:
        if defined := _zh_defined(clause):
            return defined
        nouns = _zh_entity(clause)
        if named := _zh_opening(clause, nouns) or nouns:
            return named
        if ZH_ASKS.search(clause):
            break
    return ""


_THE = r"(?:an?\s+|the\s+)?"
#: The ways a question asks only what a thing is, in English and Chinese, each matching
#: the whole question (its closing mark left off): the thing is ``x``. Those that name
#: the meaning or the definition come before the plain "What is …" (which would take
#: "the meaning of X" for the thing).
DEFINITION_FRAMES = (
    re.compile(
        rf"(?:what|who)\s+(?:is|are)\s+the\s+(?:meaning|definition)s?\s+of\s+{_THE}(?P<x>.+)", re.I
    ),
    re.compile(rf"what\s+is\s+meant\s+by\s+{_THE}(?P<x>.+)", re.I),
    re.compile(rf"what\s+(?:does|do)\s+{_THE}(?P<x>.+?)\s+mean", re.I),
    re.compile(rf"define\s+{_THE}(?P<x>.+)", re.I),
    re.compile(rf"(?:what|who)\s+(?:is|are)\s+{_THE}(?P<x>.+)", re.I),
    re.compile(r"(?:请问)?什么(?:是|叫做|叫作|叫)(?P<x>[^，,]+)"),
    re.compile(r"(?P<x>[^，,]+?)的(?:含义|定义|意思)是什么"),
    re.compile(r"(?P<x>[^，,]+?)(?:是什么意思|指的是什么|是指什么|指什么)"),
    re.compile(r"(?P<x>[^，,]+?)是什么"),
)


def definition_asked(text: str) -> str:
    """The thing a question (or a clause of one) asks only what it is, as written ("bell
    tower" in "What is a bell tower?", "What does bell tower mean?", 钟楼是什么意思？),
    by :data:`DEFINITION_FRAMES`; "" when it asks something else."""
    whole = " ".join(text.split()).rstrip("?？.。!！ ")
    for frame in DEFINITION_FRAMES:
        if found := frame.fullmatch(whole):
            return found.group("x").strip()
    return ""


#: The longest thing a Chinese definition asks about that is read whole, in characters.
ZH_DEFINED = 8


def _zh_defined(clause: str) -> str:
    """The thing a Chinese clause asks what it is (:func:`definition_asked`), read whole
    however the word list cuts and tags it (量子计算: 量子 and the verb 计算), when it is
    one short phrase with no 的 in it; else ""."""
    thing = definition_asked(clause)
    if not thing or len(thing) > ZH_DEFINED or re.search(r"[的之]", thing):
        return ""
    return thing


def _zh_setting(clause: str) -> bool:
    """Whether a Chinese clause only sets when (在大桥建成之前), in what respect (在人口方面)
    or where within something (在哪场比赛中) the question asks: what it names is not what
    the question is about."""
    clause = clause.strip()
    settings = (_ZH_WHEN_SETTING, _ZH_RESPECT_SETTING, _ZH_PLACE_SETTING)
    return any(setting.fullmatch(clause) for setting in settings)


def _capital_runs(question: str) -> list[list[str]]:
    """The runs of capitalised words of a question, as written.

    A number right after a capitalised word belongs to its run; a capital that only opens
    a sentence on a question word, a stop word or a dictionary word opens none, and
    auxiliaries, question words and "I" end a run.

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The runs, each a list of its words, in order.
    """
    found = list(WORD.finditer(question))
    tokens = [m.group(0) for m in found]
    known = question_language(question)
    # in a question written in another script, words in Latin letters are a name whole
    # ("Кто написал Codex marvellianus?")
    foreign = bool(own_script(question))
    runs: list[list[int]] = []
    run: list[int] = []
    for i, tok in enumerate(tokens):
        low = tok.lower()
        before = question[: found[i].start()].rstrip(" \"'“‘(¿¡")
        opening = not before or before[-1] in ".?!:;؟"
        # A capital that only opens a sentence names nothing ("Primitive jawless …",
        # "The old mill …").
        capital = tok[0].isupper() and not (opening and _plain_word(low, known))
        capital = capital or (foreign and tok[0].isalpha() and script(tok) == "latin")
        number = tok.isdigit() and bool(run)
        if (capital or number) and low not in _AUX and low not in _QUESTION_WORDS and low != "i":
            run.append(i)
        else:
            if run:
                runs.append(run)
            run = []
    if run:
        runs.append(run)
    return [[tokens[i] for i in r] for r in _linked_runs(runs, tokens, question, found)]


def _run_weight(known: Language | None) -> Callable[[list[str]], tuple[int, float]]:
    """How a run of capitalised words is weighed when a question's longest is its subject:
    by its length (:func:`_run_length`), the first run winning a tie; in a language that
    writes every noun with a capital (``capital_nouns``), a tie goes to the run whose
    commonest capitalised word is the rarest in the language ("Wie viele *Einwohner* hat
    *Brannow*?" is about Brannow)."""
    if known is None or not known.capital_nouns:
        return lambda run: (_run_length(run), 0.0)

    def weight(run: list[str]) -> tuple[int, float]:
        named = [w for w in run if w[:1].isupper()] or run
        return _run_length(run), -max(zipf(w.lower(), known.code) for w in named)

    return weight


def _run_length(run: list[str]) -> int:
    """How long a run of capitalised words counts as when a question's longest is its
    subject: its longest stretch of capitalised words, numbers aside. The words linking
    a name's parts ("Marine Society *of* Dunmere") make it no longer than its parts, so
    a name is chosen as before its links were read, then read whole."""
    longest = length = 0
    for token in run:
        if token[:1].isupper():
            length += 1
        elif not token.isdigit():
            length = 0
        longest = max(longest, length)
    return longest


def _plain_word(low: str, known: Language | None) -> bool:
    """Whether a lower-case word names nothing when a capital opens a sentence with it: a
    question word, a stop word, a common dictionary word, or a word the question's
    language asks with or uses for its grammar."""
    if low in _QUESTION_WORDS or low in STOP_WORDS or _common(low):
        return True
    return known is not None and (known.asks_with(low) or low.casefold() in known.function_words)


#: Lower-case words that join two capitalised runs into one name wherever they stand
#: between them ("Harbour Board of Kessing", "Marta da Lorne", "Piet van Holm").
NAME_LINKS = frozenset(
    ["of", "de", "da", "del", "della", "di", "du", "von", "van", "der", "den", "le", "la"]
)
#: Lower-case words that join two capitalised runs into one name when the name is owned
#: ("'s" closes it: "Man at the Ferry's") or, with an article among them, when it opens
#: with a capitalised article inside the sentence ("who directed The Boy with a Kite"):
#: a title with a preposition and an article inside.
TITLE_LINKS = frozenset(
    ["a", "an", "the", "at", "in", "on", "with", "to", "for", "from", "and", "or", "by", "into"]
)
#: Lower-case words a link between two runs has at most.
LINK_WORDS = 2


def _linked_runs(
    runs: list[list[int]], tokens: list[str], question: str, found: list[Any]
) -> list[list[int]]:
    """Capitalised runs (token indices) joined where the words between two are a name's
    links (see :data:`NAME_LINKS` and :data:`TITLE_LINKS`) and nothing but spaces stands
    between them and the words."""
    out: list[list[int]] = []
    for run in runs:
        if out and _links(out[-1], run, tokens, question, found):
            out[-1] = list(range(out[-1][0], run[-1] + 1))
        else:
            out.append(run)
    return out


def _links(before: list[int], after: list[int], tokens: list[str], question: str, found) -> bool:
    between = list(range(before[-1] + 1, after[0]))
    if not 1 <= len(between) <= LINK_WORDS:
        return False
    gap = question[found[before[-1]].end() : found[after[0]].start()]
    if gap.split() != [tokens[i] for i in between]:
        return False  # a comma or a bracket stands between them
    words = [tokens[i] for i in between]
    owned = tokens[after[-1]].endswith(("'s", "’s"))
    if words[0] in NAME_LINKS and all(w in NAME_LINKS | {"the"} for w in words):
        # "of" makes one name of a head that names nothing alone ("Abbey of Saint Orrin",
        # "the Song of the Quiet Hills"); after a name of its own it places it ("the Old
        # Harbour of Ostria"); a name's particles always join it ("da Lorne")
        head = [tokens[i] for i in before if tokens[i] not in ("The", "A", "An")]
        return words[0] != "of" or len(head) <= 1 or owned
    if not all(w in TITLE_LINKS for w in words):
        return False
    titled = tokens[before[0]] in ("The", "A", "An") and found[before[0]].start() > 0
    return owned or (titled and any(w in TITLE_ARTICLES for w in words))


#: :data:`_WORD_AS_WORD_TEXT` with the spaces after it, taken out of a question whose
#: subject is read.
_WORD_AS_WORD = re.compile(_WORD_AS_WORD_TEXT + r"\s+", re.I)
#: A word, a comma and the word after it (see :func:`_coordinate`).
_COMMA_BETWEEN = re.compile(r"\b([A-Za-z]+),\s+([A-Za-z]+)\b")


def _coordinate(question: str) -> str:
    """``question`` without the commas between two adjectives of one noun ("the tallest,
    most slender tower"), which cut no clause: a comma after a word read only
    as an adjective, before one read as an adjective or an adverb."""

    def joined(found: re.Match[str]) -> str:
        before, after = found.group(1).lower(), found.group(2).lower()
        if readings(before) == {"ADJ"} and readings(after) & {"ADJ", "ADV"}:
            return f"{found.group(1)} {found.group(2)}"
        return found.group(0)

    return _COMMA_BETWEEN.sub(joined, question)


def _noun_phrase_entity(question: str) -> str:
    """The noun phrase of a question's first clause, for a question that capitalises no
    name.

    The phrase after the last "of", else the one after a request's verb, else for a
    clause opening with a question word the one it asks about (:func:`_asked_phrase`),
    for one opening with an auxiliary the one it asks something of ("is *coffee* bad for
    …"), else the one a statement opens with ("coastal towns in the region are …").

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The phrase in lower case, or "" when the clause has none of these shapes.
    """
    question = _coordinate(_WORD_AS_WORD.sub("", question))
    first = re.split(r"[?;,:]|\s+and\s+(?=(?:how|why|what|when|where|which|who)\b)", question)[0]
    words_ = first.split()
    if " of " in f" {first.lower()} ":  # "made of" at the end leaves nothing after it
        before, _, rest = f" {first.lower()} ".rpartition(" of ")
        after = rest.split()
        phrase = _noun_run(after)
        if phrase and _BARE_AFTER & set(before.split()):  # "does a can of cola *hold*"
            phrase = _before_bare_verb(phrase, [w for w in after if w not in _ARTICLES])
        if phrase:
            return phrase
    if len(words_) >= 2 and words_[0].lower() in IMPERATIVES:
        return _noun_run([w.lower() for w in words_[1:]])
    asked_for = _asker_object(words_) or _judged_object(words_)
    if asked_for:
        return asked_for
    return _opening_phrase([w.lower() for w in words_])


def _claimed_subject(claim: str) -> str:
    """What a claim a question checks is about (lower case): the noun phrase its first
    clause opens with, up to its verb (:func:`_statement_phrase`: "*coffee* stunts
    growth"), or the one after the "of" that follows it ("the population of *the old
    town* is over a million"); "" when it opens with none."""
    words_ = [w.strip(".,?!") for w in re.split(r"[?;,:]", claim)[0].lower().split()]
    phrase = _statement_phrase(words_)
    size = len(phrase.split())
    at = next((i + size for i in range(len(words_)) if words_[i : i + size] == phrase.split()), 0)
    if phrase and words_[at : at + 1] == ["of"]:
        return _statement_phrase(words_[at + 1 :]) or phrase
    return phrase


def _statement_phrase(words_: list[str]) -> str:
    """The noun phrase a statement opens with, without the verb it runs into: the words
    before an inflected verb that no bare verb or auxiliary follows ("coffee *stunts*
    growth", not "glass *bottles* break" nor "bus *stops* are …") or before a bare verb
    after a plural ("vaccines *cause* …", "honey bees *sting* …"), at least one kept."""
    phrase = _noun_run(words_).split()
    if not phrase:
        return ""
    clause = words_[words_.index(phrase[0]) :]
    for i in range(1, len(phrase)):
        after = clause[i + 1] if i + 1 < len(clause) else ""
        inflected = is_verb_form(phrase[i]) and not (is_bare_verb(after) or after in _AUX)
        if inflected or (phrase[i - 1].endswith("s") and is_bare_verb(phrase[i])):
            return " ".join(phrase[:i])
    return " ".join(phrase)


def _opening_phrase(opening: list[str]) -> str:
    """The noun phrase a clause's opening words lead to (lower case): the one a question
    word asks about, the one an auxiliary asks something of ("is *coffee* bad for …"), or
    the one a statement opens with; "" when none."""
    head = opening[0].strip(".,?!") if opening else ""
    if head in _QUESTION_WORDS:
        return _asked_phrase(opening)
    if head in _AUX:
        return _nominal(_asked_phrase(["what", *opening]))
    if head in _ARTICLES or (readings(head) & {"NOUN", "ADJ"} and not _verbal(head)):
        return _noun_run(opening)  # a statement opens with its subject
    return ""


#: The person an advice or how-to question asks for ("should *I* take …", "how do *you*
#: prune …"), and the words that make a thing theirs ("*my* electricity bill").
_ASKERS_TEXT = "i we you one"
_ASKERS = frozenset(_ASKERS_TEXT.split())
_THEIRS_TEXT = "my our your"
_THEIRS = frozenset(_THEIRS_TEXT.split())


def _nominal(phrase: str) -> str:
    """A phrase up to its last word that can be a noun ("coffee bad" → "coffee": the
    adjective is what the question asks of it)."""
    words_ = phrase.split()
    while words_ and "NOUN" not in readings(words_[-1]):
        words_.pop()
    return " ".join(words_)


def _asker_object(words_: list[str]) -> str:
    """The thing an advice or how-to question asks what a person does with: the noun
    phrase after the verb that follows "I", "we", "you" or "one" after an auxiliary
    ("how do I descale *a kettle*", "should I take *ibuprofen* for a headache", "how can
    I reduce *my electricity bill* in winter"); "" for any other clause. The verb and the
    rest of the clause are then what the question asks of that thing."""
    low = [w.lower().strip(".,?!") for w in words_]
    at = next((i for i in range(1, min(len(low), 4)) if low[i] in _ASKERS), -1)
    if at < 0 or low[at - 1] not in _AUX or at + 2 >= len(low):
        return ""
    rest = low[at + 2 :]
    return _owned_run(rest)


#: The empty subject of a question that judges an action ("is *it* worth buying …").
_EMPTY_SUBJECT = "it"
#: The word that may lead a judged action's verb ("is it safe *to* eat …").
_INFINITIVE = "to"


def _judged_object(words_: list[str]) -> str:
    """The thing a question judges an action on: the noun phrase after the action's verb
    when an auxiliary, the empty "it" and a judging adjective open the clause ("is it
    worth buying *an electric bike* for …", "is it safe to eat *raw cookie dough*"); ""
    for any other clause. The judgement and the rest of the clause are then what the
    question asks of that thing."""
    low = [w.lower().strip(".,?!") for w in words_]
    if len(low) < 5 or low[0] not in _AUX or low[1] != _EMPTY_SUBJECT:
        return ""
    if "ADJ" not in readings(low[2]):
        return ""
    at = 4 if low[3] == _EMPTY_SUBJECT else 3  # "worth it to …"
    at += low[at] == _INFINITIVE
    if at >= len(low) - 1 or "VERB" not in readings(low[at]):
        return ""
    rest = low[at + 1 :]
    return _owned_run(rest)


def _owned_run(tokens: list[str]) -> str:
    """The noun phrase ``tokens`` open with, past a word that makes it the asker's ("how
    can I reduce *my* electricity bill")."""
    return _noun_run(tokens[1:] if tokens[0] in _THEIRS else tokens)


def _asked_phrase(tokens: list[str]) -> str:
    """The noun phrase a clause opening with a question word asks about.

    The noun after the question word names the kind of answer, not the subject
    (:func:`_asked_kind`): "what engineer managed to build a steam carriage" asks about
    the *steam carriage*, the object after its verb, and "what year did the war end"
    asks as "what did the war end". After an inflected verb the phrase is its object,
    past the words that lead to it ("what happened when the old bridge …"); otherwise it
    is the one from the clause's third word on. When the second is an auxiliary a bare
    verb follows (a form of "do", "can", "should" …), the phrase ends before the clause's
    verb (:func:`_before_bare_verb`: "what does the index *measure*", "can lightning
    *strike* twice"), or before its last word when it runs to the clause's end and no
    word of it is known as a verb. A quantity asked for ("how many calories does rye
    bread have") is asked of a phrase of its own (:func:`_measured_phrase`). An "it" that
    stands for nothing (:data:`EXPLETIVE`: "what does it take a town to …") leaves the
    phrase after its verb.

    Args:
        tokens: the clause's words, lower case, the question word first.

    Returns:
        The phrase, or "" when there is none.
    """
    if tokens[0] == _HOW and len(tokens) > 2 and tokens[1] in _COUNTING:
        return _measured_phrase(tokens[1:])
    kind = _asked_kind([t.strip(".,?!") for t in tokens])
    if kind and tokens[kind + 1] not in _AUX:
        return _noun_run(_after_verb(tokens[kind + 2 :]))
    tokens = [tokens[0], *tokens[kind + 1 :]]
    if len(tokens) < 3:
        return ""
    rest = tokens[2:]
    if len(rest) > 2 and EXPLETIVE.match(" ".join(rest)):  # "what does it take *a town* to"
        return _noun_run(_after_verb(rest[2:]))
    if tokens[1] not in _AUX and is_verb_form(tokens[1]):  # "what happens *when the* …"
        return _noun_run(_after_verb(rest))
    phrase = _noun_run(rest)
    if tokens[1] not in _BARE_AFTER:
        return phrase
    said = _said_of(rest)
    cut = _before_bare_verb(phrase, said)
    if cut == phrase and len(said) >= 2 and phrase.split() == said:
        return _noun_run(rest[:-1])  # its last word is the verb, one no dictionary knows
    return cut


#: The words after "how" that ask a quantity of what the clause goes on to name: "how
#: *many* calories does rye bread have" asks the calories of rye bread, "how *much* does a
#: blue whale weigh" the weight of a blue whale.
_HOW = "how"
_COUNTING_TEXT = "many much"
_COUNTING = frozenset(_COUNTING_TEXT.split())
#: The words after the auxiliary of a "how many" clause that lead to where what it
#: counts is ("how many people are *there in* the old town").
_PLACED = _PLACING | {"there"}
#: The words that join the things a quantity is asked of ("rye bread *and* spelt bread").
_JOINING_TEXT = "and or"
_JOINING = frozenset(_JOINING_TEXT.split())


def _measured_phrase(tokens: list[str]) -> str:
    """The noun phrase a "how many" or "how much" clause asks a quantity of, not the
    thing counted or measured (:func:`_counted`): after the verb that follows it ("how
    many people live in *the old town*"), after an auxiliary and the preposition or
    participle after it ("how much sugar is in *orange juice*", "how many languages are
    spoken in *the hill villages*"), else between the auxiliary and the clause's verb
    ("how many calories does *rye bread* have", "how much does *a blue whale* weigh").
    A quantity asked of several things at once ("how many calories do rye bread and
    spelt bread have", as a comparison of them is read) is asked of none alone, nor is
    one asked of a thing the clause does not name ("how many units is *it* made of"):
    the phrase is then what is counted.

    Args:
        tokens: the clause's words, lower case, from "many" or "much" on.

    Returns:
        The phrase, or "" when there is none.
    """
    count = _counted(tokens)
    counted = _noun_run(tokens[1:])
    after = [t.strip(".,?!") for t in tokens[count + 1 :]]
    if not after or _JOINING & set(after):
        return counted
    if after[0] not in _AUX:  # "how many people *live* in the old town"
        return _noun_run(_after_verb(after[1:])) or counted
    rest = after[1:]
    if rest and is_verb_form(rest[0]):  # "how many languages are *spoken* in …"
        return _noun_run(_after_verb(rest[1:])) or counted
    placed = bool(rest) and rest[0] in _PLACED  # "is *in* orange juice", "are *there* in"
    phrase = _noun_run(_after_verb(rest) if placed else rest)
    if after[0] in _BARE_AFTER:
        phrase = _before_bare_verb(phrase, _said_of(rest))
    return phrase or counted


def _said_of(tokens: list[str]) -> list[str]:
    """The words of a clause a phrase and its verb are found among: without articles and
    the adverbs between them ("does chewing gum *really* stay"; not "in", a stop word)."""
    words_ = [t.strip(".,?!") for t in tokens if t not in _ARTICLES]
    return [w for w in words_ if w in STOP_WORDS or readings(w) != {"ADV"}]


def _counted(tokens: list[str]) -> int:
    """How many words after "how many" or "how much" name what is counted or measured
    ("how many *calories* does …", "how many *square miles* does …", "how many *people*
    live in …"): the longest run of them, :data:`KIND_WORDS` at most, that an auxiliary
    or a verb follows; 0 when one follows at once ("how much does a blue whale weigh").

    Args:
        tokens: the clause's words, lower case, from "many" or "much" on.

    Returns:
        The number of words.
    """
    run = 0
    for tok in tokens[1 : 1 + KIND_WORDS]:
        if tok in _AUX or tok in STOP_WORDS:
            break
        run += 1
    for count in range(min(run, len(tokens) - 2), 0, -1):
        verb = tokens[count + 1]
        if verb in _AUX or is_verb_form(verb) or is_bare_verb(verb):
            return count
    return 0


def _before_bare_verb(phrase: str, said: list[str]) -> str:
    """A phrase after a form of "do" without its verb: the words before the first one
    that can be a bare verb after a plural ("why do honey bee colonies *die* over
    winter", "why do leaves *change* colour"), else before the last one that can be a
    bare verb ("what does the farmer *feed* cows"), at least one word kept; the phrase
    whole when the word after it in the clause (``said``) can be that verb or is an
    auxiliary ("how do heat pump systems *work* in winter", "what vitamins does rye bread
    *have*")."""
    words_ = phrase.split()
    at = next((i for i in range(len(said)) if said[i : i + len(words_)] == words_), -1)
    after = said[at + len(words_)] if 0 <= at < len(said) - len(words_) else ""
    if after in _AUX or (after and after not in STOP_WORDS and is_bare_verb(after)):
        return phrase  # "what vitamins does rye bread *have*"
    verbs = [i for i in range(1, len(words_)) if is_bare_verb(words_[i])]
    after_plural = [i for i in verbs if words_[i - 1].endswith("s")]
    ends = after_plural[:1] or verbs[-1:] or [len(words_)]
    return " ".join(words_[: ends[0]])


#: A title in Chinese title marks: a book, film, law or other work, named.
_ZH_TITLE = re.compile(r"《([^《》]{1,40})》")
#: Prepositions that make a work in title marks the setting of a question, not its
#: subject (石姓在《千家谱》里出现过几次).
_ZH_SETTING = frozenset("在于从据")


def _zh_titled(question: str) -> str:
    """The work a Chinese question asks about, named in title marks: the first title not
    right after a preposition (a question on a name's place *in* a book is about the
    name)."""
    for match in _ZH_TITLE.finditer(question):
        if question[: match.start()].rstrip()[-1:] not in _ZH_SETTING:
            return match.group(1).strip()
    return ""


@lru_cache(maxsize=4096)
def _unknown_word(word: str) -> bool:
    """Whether jieba found a Chinese word that its word list does not hold (缠扎): a term
    or a name, whatever part of speech its guess gives it. One ending in a particle or
    copula is a name with the word after it glued on (申有 in 方申有哪些学生), no term."""
    if len(word) < 2 or not all(CJK.match(c) for c in word) or word[-1] in _ZH_FUNCTION:
        return False
    return not known_word(word)


@lru_cache(maxsize=1)
def _posseg() -> Any:
    jieba_loaded()  # imported and its dictionary loaded once, quietly
    import jieba.posseg

    return jieba.posseg


def _function_unglued(pair: Any) -> list[Any]:
    """A word jieba guessed (its word list does not hold it) that ends in a preposition,
    copula or particle, cut before it: the name and the word after it were glued
    together (谷以 in 白沙谷以何种矿产出名). Any other word as it is."""
    word = pair.word
    if len(word) < 2 or word[-1] not in _ZH_FUNCTION or not all(CJK.match(c) for c in word):
        return [pair]
    if known_word(word):
        return [pair]
    return [type(pair)(word[:-1], pair.flag), type(pair)(word[-1], word_tag(word[-1]) or "p")]


def _asking_unglued(pair: Any) -> list[Any]:
    """A fixed phrase the word list holds that opens with a question word, cut after it
    (怎样才能 is 怎样 and 才能, as 如何才能 is cut): a question word is never part of a
    name or of what a question is about. Any other word as it is."""
    if not pair.flag.startswith(("l", "i")):  # page text too: the tag first, it is cheap
        return [pair]
    word = pair.word
    asking = next((w for w in ZH_QUESTION_WORDS if word.startswith(w) and word != w), "")
    if not asking:
        return [pair]
    rest = word[len(asking) :]
    return [type(pair)(asking, "r"), type(pair)(rest, word_tag(rest) or "v")]


#: jieba's tags of names: of people, places, bodies and other proper nouns.
_ZH_NAME_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})


def _bound_joined(tagged: list[Any]) -> list[Any]:
    """A bound morpheme (jieba's ``g``: a character that is no word on its own) right
    after a name joined to it: the word list cut the name short (莫罗 and 蒂 of a name
    莫罗蒂)."""
    out: list[Any] = []
    for pair in tagged:
        if out and pair.flag == "g" and out[-1].flag in _ZH_NAME_TAGS:
            out[-1] = type(pair)(out[-1].word + pair.word, out[-1].flag)
        else:
            out.append(pair)
    return out


def _counter_unglued(tagged: list[Any]) -> list[Any]:
    """A measure word right after a word that counts cut from the word it opens, and
    tagged as one (``q``): 多少 颗卫星 is 多少 颗 卫星, 多少 条 鱼 counts 鱼 (see
    :func:`research.text.uncounted`)."""
    out: list[Any] = []
    for pair in tagged:
        rest = uncounted(out[-1].word, pair.word) if out else pair.word
        if rest == pair.word:
            out.append(pair)
            continue
        out.append(type(pair)(pair.word[0], "q"))
        if rest:
            out.append(type(pair)(rest, word_tag(rest) or pair.flag))
    return out


def zh_tagged(text: str) -> list[Any]:
    """The words of a Chinese text with their parts of speech (jieba's ``pair.word``,
    ``pair.flag``: n… nouns, v… verbs, r pronouns and question words, m numbers).

    Traditional characters are tagged as their Simplified form (jieba's word list is
    Simplified, and its guesses at words it does not hold are slow and poor), each word
    given back as written in ``text``."""
    simple = simplified(text)
    tagged = _counter_unglued(
        _bound_joined(
            [
                part
                for pair in _posseg().cut(simple)
                for unglued in _function_unglued(pair)
                for part in _asking_unglued(unglued)
            ]
        )
    )
    if simple == text or len(simple) != len(text):
        return tagged
    out, at = [], 0
    for pair in tagged:
        out.append(type(pair)(text[at : at + len(pair.word)], pair.flag))
        at += len(pair.word)
    return out


#: A Chinese clause that sets the time of what a question asks by an event (在法国人到来之前,
#: 当大桥建成时): what it names is when, not what the question is about.
_ZH_WHEN_SETTING = re.compile(r"(?:在|当|于)[^，,？?]+?(?:之前|之后|以前|以后|期间|的时候|时)")
#: A Chinese clause that sets the respect in which a question asks (在人口方面, 就面积而言,
#: 从产量来看): what it names is the measure asked of the subject, not the subject.
_ZH_RESPECT_SETTING = re.compile(r"(?:在|就|从|以)[^，,？?]+?(?:方面|而言|来说|来看)")
#: A Chinese clause that sets where within something a question asks (在哪场比赛中,
#: 在这份报告里, 报告中): what it names, or asks, is the setting, not the subject.
_ZH_PLACE_SETTING = re.compile(
    r"(?:在|于)[^，,？?]{1,12}?(?:之中|当中|中|里|内)|[^，,？?]{1,8}?(?:之中|当中|中)"
)


#: What a Chinese clause says its noun is about: 关于*白沙湖*的研究, 有关*盐业税*的记载.
_ZH_ABOUT = re.compile(r"(?:关于|有关|对于)(?P<topic>[^，,？?的]{2,16})的")
#: Question words inside a span, which then asks rather than names.
_ZH_ASKS_IN = re.compile(r"什么|哪|谁|几|多少|怎|如何|为何|为什么")


def zh_about(clause: str) -> str:
    """What a Chinese clause says its noun is about (白沙湖 in 关于白沙湖的研究发现了什么),
    or "" when it says none or the phrase asks (关于什么的研究)."""
    found = _ZH_ABOUT.search(clause)
    topic = found.group("topic") if found else ""
    return "" if _ZH_ASKS_IN.search(topic) else topic


def _zh_time(clause: str) -> bool:
    """Whether a Chinese clause only says when (20世纪70年代, 在1996年): numbers, time
    words and a preposition, nothing else."""
    tagged = [p for p in zh_tagged(clause) if p.word.strip()]
    return any(p.flag in ("m", "t") for p in tagged) and all(
        p.flag in ("m", "t", "q", "p") or p.word in ("世纪", "年代") for p in tagged
    )


#: The longest name a Chinese clause opens with before 是 or 的 (see :func:`_zh_opening`).
ZH_OPENING = 6
_ZH_OPENING = re.compile(rf"([^的是，,？?：:]{{2,{ZH_OPENING}}})([的是])")


def _zh_opening(clause: str, nouns: str) -> str:
    """The name a Chinese clause opens with, read past the tagger's cut: the characters
    before its first 是 or 的 (疣斑鲷鱼的尾鳍…, 硕宁是如何…, 章同是什么…), when they
    are a short name (:data:`ZH_OPENING` characters at most: a longer opening holds a
    verb, 青桥机场扩建后是…) with no question word, preposition or particle. Before 的
    the opening modifies what follows (文中提到的山火), so it is the name only when it
    holds the clause's first run of nouns (石溪站 for 石溪); before 是 it is what the
    clause is about, and the nouns after the copula say what it is (硕宁是…郡王)."""
    clause = clause.strip()
    match = _ZH_OPENING.match(clause)
    if not match:
        return ""
    opening = _zh_untimed(match.group(1))
    if not opening or ZH_ASKS.search(opening) or any(c in _ZH_FUNCTION for c in opening):
        return ""
    if _zh_time(opening) or not (telling(opening) or _unsegmented(opening)):
        return ""
    if nouns and nouns not in opening:
        after = clause.find(nouns) >= match.end()
        if match.group(2) != "是" or not after:
            return ""
    return opening


def _zh_untimed(opening: str) -> str:
    """A Chinese clause's opening without the words of time it ends on (拉各斯目前 → 拉各斯,
    the tagger's ``t``): a name never ends on one."""
    words = zh_tagged(opening)
    while words and words[-1].flag == "t":
        opening = opening[: -len(words.pop().word)]
    return opening


def _zh_entity(clause: str) -> str:
    """The first telling run of nouns of a Chinese clause, as written: one holding a word
    rarer than :data:`COMMON_ZIPF` (世界 is too common to name what 哪国是当年世界第三大
    茶叶生产国 asks about; in a clause of common nouns only, its first run). Names joined
    by · or - are one (彼得·布兰森); a number and measure word before a noun are skipped
    (一个蜂群 → 蜂群). What a clause says it is about (关于*白沙湖*的研究) is its subject,
    whatever its words' parts of speech."""

    if about := zh_about(clause):
        return about
    tagged = zh_tagged(clause)
    runs, kinds = _zh_noun_runs(tagged)
    # 什么后天因素导致…: the noun after the question word is the kind of answer (因素), not
    # what the question is about; a clause that names nothing else names no subject
    runs = [run for run, kind in zip(runs, kinds, strict=True) if not kind]
    modifying = _zh_modifying_passive(tagged)
    runs = [run for run in runs if run[0] not in modifying] or runs
    # 最早那座桥的名称: the name asked for (名称, 名字) frames the question, it is no subject
    runs = [run for run in runs if not _FRAMES.fullmatch("".join(run))]
    found = [run for run in runs if 2 <= len("".join(run)) <= 20]
    named = [run for run in found if any(rare(w) for w in run if w.strip())]
    chosen = (named or found or [[]])[0]
    return "".join(chosen).strip("".join(_NAME_JOINS))


def _zh_modifying_passive(tagged: list[Any]) -> set[str]:
    """The words of a passive that modifies a noun (被*石溪县列为文物*的古桥, 被*港务局列入名录*的
    灯塔): the thing asked about is the noun the clause leads to after 的, not the one
    that did it or what it was done with. A passive that is the clause's own verb
    (谁被青州府任命为知县) keeps its words, its agent may well be what is asked about."""
    out: set[str] = set()
    for i, pair in enumerate(tagged[:-1]):
        if pair.word != _ZH_PASSIVE:
            continue
        rest = [p.word for p in tagged[i + 1 :]]
        close = next((j for j, w in enumerate(rest) if w == "的" or w == _ZH_PASSIVE), None)
        span = rest[:close] if close is not None and rest[close] == "的" else []
        if len(span) > 1 and not _ZH_RESULT.intersection(span):  # 被任命为港口的…: its object
            out.update(span)
    return out


def _zh_noun_runs(tagged: list[Any]) -> tuple[list[list[str]], list[bool]]:
    """The runs of nouns of a tagged Chinese clause, each with whether it names the kind
    of answer asked for (it follows a question word that asks for a kind).

    A run is nouns, the numbers inside one, the marks that join names and the words the
    word list does not hold; a run that a time word closes right after a number is a
    time, no run.

    Args:
        tagged: the clause's words with their parts of speech (:func:`zh_tagged`).

    Returns:
        The runs (each a list of its words, as written) and, for each, whether it
        names the kind of answer.
    """
    runs: list[list[str]] = []
    kinds: list[bool] = []  # whether each run names the kind of answer asked for
    out: list[str] = []
    asking = False  # inside the words right after 什么, 哪个, 何种 …
    for i, pair in enumerate(tagged):
        word, flag = pair.word, pair.flag
        if _zh_in_run(tagged, i, out):
            if not out:
                kinds.append(asking)
            out.append(word)
            continue
        if out and not (flag == "t" and out[-1].isdigit()):  # 世纪70年代 is a time
            runs.append(out)
        elif out:
            kinds.pop()
        out = []
        asking = _zh_asking(tagged, i, asking)
    if out:
        runs.append(out)
    return runs, kinds


def _zh_in_run(tagged: list[Any], i: int, out: list[str]) -> bool:
    """Whether word ``i`` of a tagged Chinese clause belongs to a run of nouns.

    Args:
        tagged: the clause's words with their parts of speech.
        i: the word's index.
        out: the run so far (empty when none is open).

    Returns:
        True for a noun-like word, a number inside an open run, a mark joining names
        inside one (not the clause's last word) and a word the word list does not hold;
        False for a word its place makes a verb (see :func:`_zh_verb_at`).
    """
    word, flag = tagged[i].word, tagged[i].flag
    joins = word in _NAME_JOINS and bool(out) and i + 1 < len(tagged)
    if re.fullmatch(_ZH_KIND_WORD, word):
        return False  # 哪场, 什么: a question word, whatever the word list makes of it
    if _zh_verb_at(tagged, i):
        return False  # 定义了, 被任命为: a verb, whatever the word list calls it
    return bool(
        flag.startswith(_ZH_NOUNISH)
        or (out and flag == "m" and word.isdigit())
        or joins
        or _unknown_word(word)
    )


def _zh_asking(tagged: list[Any], i: int, asking: bool) -> bool:
    """Whether the words after word ``i`` of a tagged Chinese clause are those right after
    a question word asking for a kind of answer.

    Args:
        tagged: the clause's words with their parts of speech.
        i: the index of a word outside any run of nouns.
        asking: whether the words before it were.

    Returns:
        True after a word asking for a kind, after a time or count word following one,
        and after 的 following the question word for a person.
    """
    word, flag = tagged[i].word, tagged[i].flag
    return (
        bool(re.fullmatch(_ZH_KIND_WORD, word))
        or (asking and (flag == "t" or word[:1] == "几"))  # 哪 几路 公交车
        or (word == "的" and i > 0 and tagged[i - 1].word == "谁")  # 谁的 指导
    )


#: A word this common (wordfreq's Zipf scale) says nothing of what a question is about.
COMMON_ZIPF = 5.0
_NAME_JOINS = ("·", "-", "‧", "•")
#: Characters that end no name: a preposition, copula or particle following the subject
#: (石青山*在*哪年出生, 章同*是*哪里人).
_ZH_FUNCTION = frozenset("在是的了和与及被把将从对向为于以也都就还又曾所有")


def _common_opening(texts: list[str]) -> str:
    """The longest text every one of ``texts`` opens with."""
    first, last = min(texts), max(texts)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


def telling(text: str) -> bool:
    """Whether a Chinese subject names something: one of its words is rarer than
    :data:`COMMON_ZIPF` (布兰森, 茶叶生产国; not 条件 or 世界)."""
    return any(rare(w) for w in words(text) if CJK.match(w))


def rare(text: str) -> bool:
    """Whether a Chinese word or text is rarer than :data:`COMMON_ZIPF`."""
    return zipf(text, "zh", "best") < COMMON_ZIPF


def telling_term(term: str) -> bool:
    """Whether a term (as :func:`~research.text.terms` gives it) is rarer than
    :data:`COMMON_ZIPF`, so that a text saying it may be about what it names ("colonies",
    "vermont"; not "new" or "area")."""
    return _term_zipf(term) < COMMON_ZIPF


def zh_content(clause: str) -> tuple[list[str], list[str]]:
    """What a Chinese clause says in content words of its own: the words of its runs of
    nouns, and its verbs and time words, each rarer than :data:`COMMON_ZIPF` (a rare time
    word names a period: 北宋; 今天 is too common).

    Left out are the words that frame a question (名字, 称为), those that frame a clause
    without saying what it is about (作用, 问题) and the noun right after a question word
    that names the kind of answer asked for (皇帝 in 哪位皇帝): the answer's type, not
    something the clause is about. "为什么修建" says one content word (修建), "生活在北宋
    的那位词人叫什么名字" two (北宋, 词人).

    Args:
        clause: one clause of a Chinese question.

    Returns:
        The nouns, and the verbs and time words, each list in order, as written.
    """

    def says(word: str) -> bool:
        return (
            rare(word)
            and re.search(rf"[{CJK_CLASS}A-Za-z]", word) is not None
            and word not in SCAFFOLD
            and not _FRAMES.fullmatch(word)
        )

    tagged = zh_tagged(clause)
    runs, kinds = _zh_noun_runs(tagged)
    nouns = [w for run, kind in zip(runs, kinds, strict=True) for w in run[kind:]]
    others = [
        p.word
        for i, p in enumerate(tagged)
        if (p.flag.startswith("v") and not _unknown_word(p.word))
        or p.flag == "t"
        or _zh_verb_at(tagged, i)  # 首演了, 被任命为: a verb
    ]
    return [n for n in nouns if says(n)], [w for w in others if says(w)]


def _zh_shared(question: str) -> str:
    """The subject a Chinese question in a row opens most of its pieces with (章同 in
    章同是哪里人，章同做过什么官，章同为什么……): the longest opening that at
    least half of the pieces (and two or more) share, without a closing particle."""

    pieces = [p.strip() for p in re.split(r"[，,。？?！!；;、]", question) if p.strip()]
    need = max(2, math.ceil(len(pieces) / 2))
    groups: dict[str, list[str]] = {}
    for piece in pieces:
        groups.setdefault(piece[:2], []).append(piece)
    best = ""
    for group in groups.values():
        if len(group) < need:
            continue
        opening = _common_opening(group)
        while opening and opening[-1] in _ZH_FUNCTION:
            opening = opening[:-1]
        if (
            len(opening) >= 2
            and re.fullmatch(rf"[{CJK_CLASS}A-Za-z0-9·]+", opening)
            and not ZH_ASKS.search(opening)
            and rare(opening)
            and len(opening) > len(best)
        ):
            best = opening
    return best


def _common(word: str) -> bool:
    """Whether a lower-case English word is a dictionary word (a noun, verb, adjective or
    adverb lemminflect knows), not a name."""
    return lemma(word) != word or is_word(word)


#: The most words after a question word that name the kind of answer asked for
#: ("which *early jazz singer* recorded …").
KIND_WORDS = 3


def _asked_kind(tokens: list[str]) -> int:
    """How many words after an English question word name the kind of answer asked for:
    the nouns and adjectives right after it when a verb follows them ("what *engineer*
    managed to …", "which *merchant ships* carried …", "what *year* did …"); 0 when none
    do ("what causes tides", "what is …").

    A word is a verb that is an auxiliary, an inflected verb (:func:`is_verb_form`) or one
    lemminflect knows only as a verb ("eat"); a kind word is one it knows as a noun or
    adjective, the first of them no inflected verb ("causes"). The longest run of them
    that a verb follows is taken.

    Args:
        tokens: the clause's words, lower case, the question word first.

    Returns:
        The number of words naming the kind.
    """
    run = 0
    for tok in tokens[1 : 1 + KIND_WORDS]:
        if tok in _AUX or tok in STOP_WORDS or not readings(tok) & {"NOUN", "ADJ"}:
            break
        if not run and is_verb_form(tok):
            break
        run += 1
    for count in range(min(run, len(tokens) - 2), 0, -1):
        verb = tokens[count + 1]
        if verb in _AUX or is_verb_form(verb) or readings(verb) == {"VERB"}:
            return count
    return 0


def _after_verb(tokens: list[str]) -> list[str]:
    """The words after a clause's verb, from its object on: without the words leading to
    it, an infinitive's "to" and verb ("managed *to build* a steam carriage"), stop words
    and words that can be adverbs but no noun ("enough", "originally")."""
    i = 0
    while i < len(tokens):
        tok = tokens[i].strip(".,?!")
        known = readings(tok)
        if tok == "to" and i + 1 < len(tokens):
            i += 2
        elif tok in STOP_WORDS or ("ADV" in known and "NOUN" not in known):
            i += 1
        else:
            break
    return tokens[i:]


def _noun_run(tokens: list[str]) -> str:
    """Leading words of ``tokens`` up to the first adverb, verb-like word (:func:`_verbal`)
    or preposition; articles and framing words ("a *working* steam carriage") before it
    are passed over."""
    out: list[str] = []
    for tok in tokens:
        tok = tok.strip(".,?!")
        if not out and (tok in _ARTICLES or stem(tok) in SCAFFOLD):
            continue
        adverb = readings(tok) == {"ADV"}  # "the old mill *originally* built for"
        if tok in _AUX or tok in STOP_WORDS or stem(tok) in SCAFFOLD or adverb:
            break
        if out and _verbal(tok):
            break
        out.append(tok)
    return " ".join(out)


def _verbal(word: str) -> bool:
    """Whether a lower-case English word after a noun reads as a verb, ending the noun's
    phrase: one lemminflect knows as no noun that is only a verb ("approve"), an
    inflected verb ("built", "grew", "glowing") or an -ed or -ing form it does not know
    (not "ring", "pumps" in "heat pumps" nor "crossing")."""
    known = readings(word)
    if "NOUN" in known:
        return False
    unknown_form = not known and word.endswith(("ed", "ing"))
    return known == {"VERB"} or is_verb_form(word) or unknown_form
