"""How well a sentence answers a sub-question: an absolute score in [0, 1].

A sub-question is turned into a :class:`Focus`:

- its **subject**, the entity the whole question is about (the terms it shares with its
  sibling sub-questions, e.g. *Eiffel Tower*), with a **core** phrase (*eiffel tower*,
  *埃菲尔铁塔*) that a page about that entity uses;
- its **facets**, the terms that make this part of the question different from the others
  (*built*; *lit*, *night*; *visitors*), each with the words that say the same thing
  in research writing (*built* ~ *constructed*, *erected*; *today* ~ *still*, *now*);
- its **kind** (when / how many / why / …), for which a date, a number or a cause is a
  sign of an answer.

A sentence is described by named features (:func:`features_of`): how far it, or its
page, is about the subject; how each facet is met (in the sentence, by an equivalent word,
only in its section heading or the page title, or not at all), rare words weighing more
than common ones (word frequencies from ``wordfreq``); the kind of answer it carries; and
how it stands among its page's sentences by the part's words that are rare *on that page*
(:func:`local_match`: on the subject's own page its name is in every sentence and tells
nothing, while the one word of the question few sentences use points at the passage that
answers it). With ``QUARTET_RANKER=learned``, the learned model (:mod:`research.ranking`)
weighs them, with the standing of the sentence's page among the pages read
(:func:`research.retrieval.standing`), into the probability that the sentence answers
the part; from :func:`evidence_threshold` it is evidence. By default the hand-set rules
combine them (:func:`_rules_score`), and a part's best sentence under the threshold may
still answer it as a lead (:attr:`Scored.lead`) or, on a page the question's other parts
show to be about the question, as a passage (:attr:`Scored.passage`).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from itertools import pairwise
from typing import Any

from .facts import (
    counted_in,
    has_count,
    has_date,
    has_quantity,
    has_span,
    opens_leaning,
    states_cause,
)
from .facts import years as facts_years
from .ranking import Features, answer_model, model
from .retrieval import BM25
from .text import (
    CJK,
    CJK_CLASS,
    STOP_WORDS,
    Sentence,
    grams,
    headings,
    is_cjk,
    is_word,
    jieba_loaded,
    known_word,
    lemma,
    passages,
    plain,
    script,
    simplified,
    spaceless,
    stem,
    terms,
    word_tag,
    words,
)

#: Whether sentences are scored by the learned model (:mod:`research.ranking`) rather
#: than by the hand-set rules (:func:`_rules_score`). The rules stay the default until the
#: model, trained by ``scripts/train_ranker.py``, beats them on the benchmarks' tune halves
#: (``QUARTET_RANKER=learned`` measures it: ``bench/bench_general.py``,
#: ``bench/bench_shapes.py``).
LEARNED = os.environ.get("QUARTET_RANKER", "rules") == "learned"
#: A sentence scoring at least this is relevant evidence for its sub-question under the
#: rules; the learned model has a threshold for each script (see
#: :func:`evidence_threshold`).
THRESHOLD = model().threshold if LEARNED else 0.45


def evidence_threshold(focus: Focus) -> float:
    """The score from which a sentence is evidence for ``focus``: under the learned
    model, its threshold for the script the part is written in, calibrated on its
    training data for the honest-nothing rate (see :mod:`research.ranking`)."""
    return model().threshold_for(script(focus.text)) if LEARNED else THRESHOLD


def answer_threshold(focus: Focus) -> float:
    """Under the learned model, the score from which one of a part's best sentences is
    its evidence: the answer model's threshold for the script the part is written in,
    calibrated on its training data for the honest-nothing rate (see
    :mod:`research.ranking`)."""
    return answer_model().threshold_for(script(focus.text))


#: A sentence in a section about another part of the question counts this share.
ELSEWHERE = 0.85
#: A sentence that gives no number counts this share for a part asking how many.
UNTYPED = 0.85
#: Under the rules, a part's best sentence under :data:`THRESHOLD` still answers it (see
#: :attr:`Scored.lead`) from this score, when its page names the subject (a subject
#: score of :data:`ON_SUBJECT`) and it says :data:`SAYS_MOST` of the part's facets.
LEAD_FLOOR, ON_SUBJECT, SAYS_MOST = 0.2, 0.8, 0.5
#: How much the page-local match counts in ranking a page's sentences under the rules
#: (see :attr:`Scored.rank`; the learned model weighs it itself); the :data:`LOCAL_TOP`
#: sentences of a page by rank may stand as a part's lead without saying most of its
#: facets, when their page-local match is at least :data:`LOCAL_LEAD` of the page's best
#: (the passage that answers a question is among the first three of its page for the
#: question's words nine times in ten).
LOCAL, LOCAL_TOP, LOCAL_LEAD = (0.0 if LEARNED else 0.3), 3, 0.5
#: A facet counts as said from this match (an equivalent word, a heading about it;
#: not a page that merely mentions it elsewhere).
SAID = 0.6

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

#: Words that place a statement in the present (a part asking about "today" wants them).
_PRESENT_TEXT = "today now nowadays currently present 今天 如今 现在 目前 当今"
PRESENT = frozenset(stem(w) if not CJK.match(w) else w for w in _PRESENT_TEXT.split())

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")


@lru_cache(maxsize=4096)
def weight(term: str) -> float:
    """How much a term says: rare words weigh more (1 to 5)."""
    from wordfreq import zipf_frequency

    lang = "zh" if CJK.match(term) else "en"
    zipf = zipf_frequency(term, lang)
    if zipf == 0.0 and lang == "en":
        zipf = max(zipf_frequency(term + "s", lang), zipf_frequency(term + "e", lang))
    return max(1.0, min(5.0, 7.5 - zipf)) if zipf else 5.0


#: Words by which a part points back to a thing named elsewhere in the question.
_POINTS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|theirs|he|him|his|she|her|hers|this|these|those|there)\b",
    re.I,
)

#: Verbs that open a request asked as a question ("Name one cause of …").
IMPERATIVES = frozenset(["name", "list", "give", "identify", "describe", "explain", "define"])

#: The words of a question that say what kind of answer it wants, not what it is about:
#: "in what year", "what is the name of", "how far", "哪一年", "什么地方". They are not
#: facets: a sentence answers "in what year …" with a year, not with the word "year".
_FRAMES = re.compile(
    r"\b(?:in |during |by )?(?:what|which) (?:year|date|month|day|time|century|decade|period)s?\b"
    r"|\b(?:what|which) (?:is|was|are|were) the names? of\b|\bthe names? of\b"
    r"|\bhow (?:many|much|long|far|big|large|tall|high|deep|old|often)\b"
    r"|\b(?:what|which) (?:kind|type|sort)s? of\b"
    rf"|^\s*(?:{'|'.join(sorted(IMPERATIVES))})\b"
    r"|哪一年|哪年|什么时候|何时|什么地方|哪个地方|哪里|何处|哪儿|多少|多长|多大|多远|多高|多久"
    r"|叫什么|名字|名称"
    # what the answer is called: "what is it called", "referred to as what", 被称为什么
    r"|\b(?:is|are|was|were|be) (?:called|named|known as|referred to as)\b"
    r"|\b(?:called|named|known as|referred to as)(?=\s*(?:what\b|\?|$))"
    r"|被称为|被称作|称为|称作|叫做"
    # a question word with its measure word (哪次, 哪位), a count asked for (两种, 一系列)
    rf"|哪?[一二两三四五六七八九十每几][个种支位次条名项部本座家类]|一系列|哪[{CJK_CLASS}]",
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
    r"could|will|would|should|may|might|must)\b)([a-z][a-z'-]*)(?=\s+[a-z])"
)


def answer_kind_terms(text: str) -> set[str]:
    """The noun that names the kind of thing an English question asks for, right after its
    question word ("which *river* flows through Paris"): the sentence that answers names
    the thing itself (the Seine), not its kind, so this word is no facet. (A Chinese
    answer often says its kind, 蒙古族 for 哪个民族, so 什么/哪个 keep their noun.)"""
    if is_cjk(text):
        return set()
    return {stem(m.group(1)) for m in _KIND_NOUN.finditer(text)}


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


def question_kind(text: str) -> str:
    """``when``, ``number``, ``why``, ``who``, ``where``, ``how`` or ``what``."""
    low = text.lower()
    if re.search(
        r"\bwhen\b|(?:what|which) (?:year|date|month|century|decade|period|era)|何时|什么时候"
        r"|哪一年|哪年|什么时[间期代]|哪个时[期代]|哪个朝代|什么年代",
        low,
    ):
        return "when"
    if re.search(
        r"\bhow (many|much|long|far|big|large|tall|high|deep|old|often)\b"
        # a measure asked for by its name: "what is the population of", "the length of"
        r"|\b(?:what|which) (?:is|was|are|were) the (?:population|number|size|length|height"
        r"|width|depth|area|distance|amount|total|percentage|cost|price)\b"
        r"|多少|多长|多大|多远|多高|多久|几",
        low,
    ):
        return "number"
    if re.search(r"\bwhy\b|\bwhat (?:caused|causes)\b|为什么|为何|原因|起因|缘由|缘故|理由", low):
        return "why"
    if re.search(r"\bwho\b|\bwhom\b|谁", low):
        return "who"
    if re.search(r"\bwhere\b|哪里|何处|在哪|什么地方|哪个地方|哪儿", low):
        return "where"
    if re.search(r"\bhow\b|如何|怎样|怎么", low):
        return "how"
    return "what"


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

    @property
    def words(self) -> tuple[str, ...]:
        """The terms the part asks about in its own words: its subject's and its facets'
        (not the words that frame the question, "how", "solve the problem of")."""
        return tuple(dict.fromkeys([*self.subject, *(f.term for f in self.facets)]))

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
        With ``rivals``, the siblings' facets are kept too (see :func:`context_about`).
        A ``glossary`` (the user's words for their field) gives each facet the words
        that meet it besides its own. ``as_asked`` is the part as the question words it
        before the planner lent it a subject (see :attr:`alternative`).
        """
        glossary = glossary or Glossary()
        asked = _FRAMES.sub(" ", subquestion)
        own = [t for t in dict.fromkeys(terms(asked)) if t not in SCAFFOLD]
        surface = _surface_forms(subquestion)
        lead = lead_subject(question)[0] if question else ""
        surface = {**_surface_forms(lead), **surface}
        named, entity_terms, lead = _part_named(subquestion, question, asked, own, lead)
        own, entity_terms = _name_as_term(named, subquestion, asked, own, entity_terms)
        subject = _subject_terms(subquestion, siblings, own, entity_terms, lead)
        kinds = answer_kind_terms(subquestion)
        own = [t for t in own if t in subject or t not in kinds]
        facets = _facets_of(subquestion, own, subject, surface, glossary)
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
            One tuple of facets per sibling other than the part, in plan order, those
            without facets left out.
        """
        return tuple(
            found
            for s in siblings
            if s != subquestion
            and (found := cls.build(s, siblings, question, False, glossary).facets)
        )

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
    if question and not lead and not entity_terms & set(own) and not written:
        mine = entity(asked)
        own_subject = is_cjk(asked) or mine[:1].isupper() or not named[:1].isupper()
        if own_subject or (mine and not _POINTS_BACK.search(asked)):
            named = mine  # the part asks about a subject of its own
            entity_terms = set(terms(named))
        else:  # it names nothing or points back, so it asks about the question's
            lead = named  # named subject ("…, and where do most of its farmers work?")
    return named, entity_terms, lead


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
) -> list[str]:
    """The terms of a part that make up its subject.

    The entity's terms and those shared with at least half of the other sub-questions,
    after the lead subject's terms; all the part's terms when that leaves none.

    Args:
        subquestion: the part.
        siblings: the sub-questions of its plan.
        own: the part's terms.
        entity_terms: the terms of the entity it is about.
        lead: the subject named before the parts, or lent by the question ("" for none).

    Returns:
        The subject's terms, in order, each once.
    """
    others = [set(terms(s)) for s in siblings if s != subquestion]
    need = max(1, math.ceil(len(others) / 2))
    shared = {t for t in own if others and sum(t in o for o in others) >= need}
    subject = [t for t in own if t in entity_terms or t in shared]
    if lead:  # the subject named before the parts, or by the question for a part
        # that names none ("…in Freedonia, and where do most of its farmers work?")
        subject = list(dict.fromkeys([*(t for t in terms(lead) if t not in SCAFFOLD), *subject]))
    if not subject:
        subject = own
    return subject


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
    titled = _zh_titled(text)
    if titled != named or telling(titled):
        titled = ""  # a rare title names the work wherever it is written
    return titled


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


#: How a Chinese facet is met by another word sharing one of its telling characters.
MORPHEME = 0.6
#: A character at least this rare (wordfreq's Zipf scale) tells what its word is about.
TELLING_ZIPF = 5.1


@lru_cache(maxsize=4096)
def morphemes(term: str) -> frozenset[str]:
    """The telling characters of a Chinese word of two or more characters: those rarer
    than :data:`TELLING_ZIPF` (熊, 猫 in 熊猫; not 有 or 人, which many words share)."""
    if len(term) < 2 or not all(CJK.match(ch) for ch in term):
        return frozenset()
    from wordfreq import zipf_frequency

    return frozenset(ch for ch in term if zipf_frequency(ch, "zh") < TELLING_ZIPF)


def _shares_morpheme(facet: Facet, said: set[str]) -> bool:
    return any(ch in word for word in said for ch in facet.morphemes)


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
_AUX_TEXT = "is are was were do does did can could will would should has have had may might must"
_AUX = frozenset(_AUX_TEXT.split())
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


def lead_subject(question: str) -> tuple[str, str]:
    """``(subject, rest)`` when the question opens with a subject and a colon
    ("About Lake Marrow: …", "锂离子电池：…") and the lead asks nothing itself;
    else ``("", question)``."""
    match = _LEAD.match(" ".join(question.split()))
    if not match:
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
    66"); otherwise the noun phrase of its first clause: after "of" ("the health effects
    of *microplastics*"), or between the auxiliary and the verb ("how do *heat pumps*
    work"), or after the verb ("what caused *the 2008 financial crisis*"). For Chinese,
    the first run of nouns of the first clause that has one (jieba's parts of speech).
    """
    question = " ".join(question.split())
    lead, _ = lead_subject(question)
    if lead:
        return lead
    if is_cjk(question):
        return _zh_question_entity(question)
    runs = _capital_runs(question)
    if runs:
        return " ".join(max(runs, key=lambda r: sum(not t.isdigit() for t in r)))
    return _noun_phrase_entity(question)


def _zh_question_entity(question: str) -> str:
    """The entity a Chinese question is about.

    The subject most of its pieces open with, else the work it names in title marks,
    else the name or first telling run of nouns of its first clause that names one; a
    clause that only says when is passed over, and the search stops at a clause that
    asks something.

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The entity as written, or "" when no clause before the first that asks names one.
    """
    clauses = [c for c in re.split(r"[，,。？?！!；;、]", question) if c.strip()]
    # the first clause that names something; one that only says when ("20世纪70年代，
    # …", "在1996年，…") names nothing
    asked = [c for c in clauses if not _zh_time(c)]
    titled = _zh_titled(question)  # 《武则天》 names a work
    if shared := _zh_shared(question) or titled:
        return shared
    # …and one that names nothing either (即使在今天，…) leaves the name to the next,
    # unless it asks something itself (茶树枯萎会导致什么，…: a question of its own)
    for clause in asked:
        nouns = _zh_entity(clause)
        if named := _zh_opening(clause, nouns) or nouns:
            return named
        if ZH_ASKS.search(clause):
            break
    return ""


def _capital_runs(question: str) -> list[list[str]]:
    """The runs of capitalised words of a question, as written.

    A number right after a capitalised word belongs to its run; a capital that only opens
    a sentence on a question word or a dictionary word opens none, and auxiliaries,
    question words and "I" end a run.

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The runs, each a list of its words, in order.
    """
    found = list(re.finditer(r"[A-Za-z0-9][\w'’-]*", question))
    tokens = [m.group(0) for m in found]
    runs: list[list[str]] = []
    run: list[str] = []
    for i, tok in enumerate(tokens):
        low = tok.lower()
        before = question[: found[i].start()].rstrip(" \"'“‘(¿¡")
        opening = not before or before[-1] in ".?!:;؟"
        # A capital that only opens a sentence names nothing ("Primitive jawless …").
        capital = tok[0].isupper() and not (opening and (low in _QUESTION_WORDS or _common(low)))
        number = tok.isdigit() and bool(run)
        if (capital or number) and low not in _AUX and low not in _QUESTION_WORDS and low != "i":
            run.append(tok)
        else:
            if run:
                runs.append(run)
            run = []
    if run:
        runs.append(run)
    return runs


def _noun_phrase_entity(question: str) -> str:
    """The noun phrase of a question's first clause, for a question that capitalises no
    name.

    The phrase after the last "of", else the one after a request's verb, else (for a
    clause opening with a question word) the one from its third word on, its last word
    dropped when the second is a form of "do" and the phrase runs to the clause's end
    (that word is then the clause's verb).

    Args:
        question: the question, its whitespace collapsed.

    Returns:
        The phrase in lower case, or "" when the clause has none of these shapes.
    """
    first = re.split(r"[?;,:]|\s+and\s+(?=(?:how|why|what|when|where|which|who)\b)", question)[0]
    words_ = first.split()
    if " of " in f" {first.lower()} ":  # "made of" at the end leaves nothing after it
        after = f" {first.lower()} ".rsplit(" of ", 1)[1].split()
        phrase = _noun_run(after)
        if phrase:
            return phrase
    if len(words_) >= 2 and words_[0].lower() in IMPERATIVES:
        return _noun_run([w.lower() for w in words_[1:]])
    if len(words_) >= 3 and words_[0].lower() in _QUESTION_WORDS:
        rest = [w.lower() for w in words_[2:]]
        phrase = _noun_run(rest)
        said = [w.strip(".,?!") for w in rest if w not in _ARTICLES]
        if words_[1].lower() in ("do", "does", "did") and len(said) >= 2 and phrase.split() == said:
            # "what does the index measure": after do, the clause's last word is its verb
            phrase = _noun_run(rest[:-1])
        return phrase
    return ""


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
    import jieba.posseg

    jieba_loaded()  # the dictionary loaded once, quietly
    return jieba.posseg


def zh_tagged(text: str) -> list[Any]:
    """The words of a Chinese text with their parts of speech (jieba's ``pair.word``,
    ``pair.flag``: n… nouns, v… verbs, r pronouns and question words, m numbers).

    Traditional characters are tagged as their Simplified form (jieba's word list is
    Simplified, and its guesses at words it does not hold are slow and poor), each word
    given back as written in ``text``."""
    simple = simplified(text)
    tagged = list(_posseg().cut(simple))
    if simple == text or len(simple) != len(text):
        return tagged
    out, at = [], 0
    for pair in tagged:
        out.append(type(pair)(text[at : at + len(pair.word)], pair.flag))
        at += len(pair.word)
    return out


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
    opening = match.group(1)
    if ZH_ASKS.search(opening) or any(c in _ZH_FUNCTION for c in opening):
        return ""
    if _zh_time(opening) or not (telling(opening) or _unsegmented(opening)):
        return ""
    if nouns and nouns not in opening:
        after = clause.find(nouns) >= match.end()
        if match.group(2) != "是" or not after:
            return ""
    return opening


def _zh_entity(clause: str) -> str:
    """The first telling run of nouns of a Chinese clause, as written: one holding a word
    rarer than :data:`COMMON_ZIPF` (世界 is too common to name what 哪国是当年世界第三大
    茶叶生产国 asks about; in a clause of common nouns only, its first run). Names joined
    by · or - are one (彼得·布兰森); a number and measure word before a noun are skipped
    (一个蜂群 → 蜂群)."""

    runs, kinds = _zh_noun_runs(zh_tagged(clause))
    # 什么后天因素导致…: the noun after the question word is the kind of answer (因素), not
    # what the question is about; a clause that names nothing else names no subject
    runs = [run for run, kind in zip(runs, kinds, strict=True) if not kind]
    # 最早那座桥的名称: the name asked for (名称, 名字) frames the question, it is no subject
    runs = [run for run in runs if not _FRAMES.fullmatch("".join(run))]
    found = [run for run in runs if 2 <= len("".join(run)) <= 20]
    named = [run for run in found if any(rare(w) for w in run if w.strip())]
    chosen = (named or found or [[]])[0]
    return "".join(chosen).strip("".join(_NAME_JOINS))


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
        inside one (not the clause's last word) and a word the word list does not hold.
    """
    word, flag = tagged[i].word, tagged[i].flag
    joins = word in _NAME_JOINS and bool(out) and i + 1 < len(tagged)
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
_ZH_FUNCTION = frozenset("在是的了和与及被把将从对向为于也都就还又曾所有")


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
    from wordfreq import zipf_frequency

    return zipf_frequency(text, "zh") < COMMON_ZIPF


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


def _noun_run(tokens: list[str]) -> str:
    """Leading words of ``tokens`` up to the first verb-like word or preposition."""
    out: list[str] = []
    for tok in tokens:
        tok = tok.strip(".,?!")
        if tok in _ARTICLES and not out:
            continue
        if (
            tok in _AUX
            or tok in STOP_WORDS
            or stem(tok) in SCAFFOLD
            or (out and (tok.endswith("ed") or tok.endswith("ing")))
        ):
            break
        out.append(tok)
    return " ".join(out)


# --- texts to score ------------------------------------------------------------------


@dataclass
class Scored:
    """A sentence with its score for one focus, and what the score is made of."""

    sentence: Sentence
    score: float
    #: how far the sentence, or at least its page, is about the subject (1: it names it;
    #: 0.8: its page does)
    subject: float = 1.0
    #: the share of the part's facets (by weight) the sentence says, by its own words, an
    #: equivalent, or the heading of a section about the part
    said: float = 1.0
    #: how well it says the part's words that are rare on its own page, as a share of
    #: the page's best sentence (see :func:`local_match`)
    local: float = 0.0
    #: whether it is among the :data:`LOCAL_TOP` sentences of its page by :attr:`rank`
    top_of_page: bool = False
    #: whether its page's title names the part's subject (the page is about it)
    page_named: bool = False
    #: what the score was computed from (see :func:`features_of`)
    features: Features = field(default_factory=dict)

    @property
    def rank(self) -> float:
        """The order of a page's sentences for the part: the score, and the page-local
        match (a word rare on this page tells one passage from another better than a word
        rare in the language; the learned model weighs it in the score)."""
        return self.score + LOCAL * self.local

    @property
    def lead(self) -> bool:
        """Whether the sentence may stand as its part's best answer though it scores under
        :data:`THRESHOLD`: its page is about the subject, and either it is among the
        best of a page whose title names the subject by the page's own rare words (see
        :func:`local_match`), or it says most of what the part asks and is not a faint
        match (a paraphrase that leaves a word of the question unsaid, "required to hold
        a pilot's licence" for "what must a ferry captain have at a minimum"). The
        learned model uses no leads: a page's standing among the pages read is one of its
        features (see :func:`research.retrieval.standing`)."""
        if self.subject < ON_SUBJECT:
            return False
        if self.top_of_page and self.page_named and self.local >= LOCAL_LEAD:
            return True
        return self.score >= LEAD_FLOOR and self.said >= SAYS_MOST

    @property
    def passage(self) -> bool:
        """Whether the sentence may stand as its part's answer only where its page is
        known to be about the question (it answers another part, or this one, with
        evidence of its own): it is among the best of its page for the part by the page's
        own rare words, on a page whose title does not name the part's subject (a
        question on "the British settlers" asked about a page on the war they fought; the
        same sentence on an unrelated page that mentions them once is no answer)."""
        return not self.lead and self.top_of_page and self.local >= LOCAL_LEAD


@dataclass
class Document:
    """A page or file extract prepared for scoring: its sentences, headings and terms."""

    text: str
    title: str = ""
    sentences: list[Sentence] = field(default_factory=list)
    sentence_terms: list[set[str]] = field(default_factory=list)
    sentence_seq: list[list[str]] = field(default_factory=list)
    sentence_clauses: list[list[int]] = field(default_factory=list)
    anchor_terms: list[set[str]] = field(default_factory=list)
    section_terms: dict[str, set[str]] = field(default_factory=dict)
    heading_terms: set[str] = field(default_factory=set)
    title_terms: set[str] = field(default_factory=set)
    counts: Counter = field(default_factory=Counter)
    lowered: str = ""
    #: the title without the site's name
    name: str = ""
    #: for a subject's core the page names once, the sentences that may speak of it
    #: (see :func:`_speaks_of`); None where the page names it often
    mentions: dict[tuple[str, ...], frozenset[int] | None] = field(default_factory=dict)
    #: what is computed once per page and part (page-local matches), by a key naming it
    memo: dict[Any, Any] = field(default_factory=dict)

    def grams(self) -> list[frozenset[str]]:
        """Each sentence's grams (see :func:`research.text.grams`), computed once."""
        if "grams" not in self.memo:
            self.memo["grams"] = [grams(_LINK.sub(r"\1", s.text)) for s in self.sentences]
        return self.memo["grams"]

    @classmethod
    def of(cls, text: str, title: str = "") -> Document:
        """The prepared document of ``text``; the same text is prepared once (it is scored
        against every sub-question), and a Document is never changed once made."""
        return _prepared(text, title)

    @classmethod
    def prepare(cls, text: str, title: str = "") -> Document:
        sentences = passages(text)
        doc = cls(text=text, title=title, sentences=sentences)
        for s in sentences:
            seq, clauses = _clauses(_LINK.sub(r"\1", s.text))
            doc.sentence_seq.append(seq)
            doc.sentence_clauses.append(clauses)
        doc.sentence_terms = [set(terms(_LINK.sub(" ", s.text))) for s in sentences]
        doc.anchor_terms = [set(terms(" ".join(_LINK.findall(s.text)))) for s in sentences]
        doc.title_terms = set(terms(title))
        for heading in headings(text):
            doc.section_terms.setdefault(heading, set(terms(heading)))
            doc.heading_terms |= doc.section_terms[heading]
        doc.counts = Counter(terms(plain(title) + "\n" + text))
        doc.lowered = _normal(plain(title) + " " + plain(text))
        doc.name = plain(_without_site(title))
        return doc


_CLAUSE_BREAK = re.compile(r"[,;:—–]|\s-\s")


def _clauses(text: str) -> tuple[list[str], list[int]]:
    """The terms of a sentence in order, and the clause (between commas, semicolons,
    colons and dashes) each stands in."""
    seq: list[str] = []
    clauses: list[int] = []
    for i, part in enumerate(_CLAUSE_BREAK.split(text)):
        found = terms(part)
        seq.extend(found)
        clauses.extend([i] * len(found))
    return seq, clauses


@lru_cache(maxsize=64)
def _prepared(text: str, title: str) -> Document:
    return Document.prepare(text, title)


@lru_cache(maxsize=65536)
def _normal(text: str) -> str:
    return " ".join(stem(w) for w in words(text) if w not in ("'",))


_CAP_RUN = re.compile(r"\b(?:[A-Z][\w'’]*\s+)+[A-Z][\w'’]*")


def _other_names_masked(text: str, core: tuple[str, ...]) -> str:
    """``text`` with longer names built on the subject masked: "Eiffel Tower Museum"
    and "Eiffel Tower Gift Shop" name something else than the Eiffel Tower."""
    if not core or CJK.match(core[0]):
        return text

    def mask(match: re.Match[str]) -> str:
        names = [stem(w.lower()) for w in match.group(0).split()]
        if set(core) <= set(names) and names[-1] not in core:
            return " "
        return match.group(0)

    return _CAP_RUN.sub(mask, text)


#: How far a sentence that does not name the subject is about it, on a page that names
#: the subject only once and not in its title, unless it follows the sentence naming it:
#: the page is about something else, and its other sentences are about that (石X's
#: biography, which names 陈Y once, tells where 石X took a degree, not 陈Y).
PASSING = 0.5
#: A page naming the subject this many times (or in its title) is about it in part.
MENTIONS = 2


def _speaks_of(core: tuple[str, ...], doc: Document, index: int) -> bool:
    """Whether sentence ``index`` of a page may speak of the subject without naming it:
    the page names the subject's core in its title or at least :data:`MENTIONS` times (a
    name with a number in it, met only by its pieces, counts as often), or the sentence
    follows one naming it in the same paragraph ("…在青石湖中发现了三种。这三种都没有…")."""
    if core not in doc.mentions:
        cjk = len(core) == 1 and bool(CJK.match(core[0]))
        if cjk:
            said = doc.lowered.replace(" ", "").count(core[0])
            named = core[0] in doc.name.replace(" ", "")
        else:
            said = f" {doc.lowered} ".count(f" {' '.join(core)} ")
            named = _has_core(core, _normal(doc.name))
        near: frozenset[int] | None = None
        if core and said and not named and said < MENTIONS:
            naming = [
                i
                for i, s in enumerate(doc.sentences)
                if _has_core(core, plain(s.text) if cjk else _normal(s.text))
            ]
            near = frozenset(j for i in naming for j in _paragraph_after(doc, i))
        doc.mentions[core] = near
    near = doc.mentions[core]
    return near is None or index in near


def _paragraph_after(doc: Document, index: int) -> list[int]:
    """The sentences after sentence ``index`` in its paragraph (no blank line between)."""
    out: list[int] = []
    before = doc.sentences[index]
    for j in range(index + 1, len(doc.sentences)):
        after = doc.sentences[j]
        if after.section != before.section or "\n\n" in doc.text[before.end : after.start]:
            break
        out.append(j)
        before = after
    return out


def _has_core(core: tuple[str, ...], text_terms: Sequence[str] | str) -> bool:
    if not core:
        return False
    if isinstance(text_terms, str):
        if len(core) == 1 and CJK.match(core[0]):  # the text has it cut: 章 同, 石湾 巴士
            return _names_whole(core[0], text_terms.replace(" ", ""))
        return " ".join(core) in text_terms
    joined = " ".join(text_terms)
    return " ".join(core) in joined


def _names_whole(name: str, text: str) -> bool:
    """Whether a Chinese text names ``name``: as written, or, for a name with a number
    in it, by each of its pieces (a text writes 石溪杯12 as 第12届石溪杯)."""
    if name in text:
        return True
    pieces = re.findall(r"\d+|\D+", name)
    return len(pieces) > 1 and all(p in text for p in pieces)


def _facet_match(
    facet: Facet,
    sentence: set[str],
    title: set[str],
    heading: set[str],
    anchors: set[str],
    salience: float,
    near: bool = True,
    lent: bool = False,
) -> float:
    """How a sentence meets a facet.

    1 when it says the word, 0.85 an equivalent one, each a little less when the word is
    not ``near`` the subject (the sentence may be about building something else). The
    sentence's context lends it the facet: when its section is about the part (``lent``,
    see :func:`context_about`), the title or heading saying the word (or a synonym)
    counts nearly as much as the sentence saying it (0.9; 0.8 by an equivalent); one that
    names the facet above a section about something else lends less (0.85; 0.7). A word
    that is only the text of a link, 0.6. Otherwise a facet is met only as far as the
    whole page is about it (``salience``), and not at all on a page about something else.
    """
    group = facet.equivalents
    context = title | heading
    met = [max(0.05, 0.55 * salience)]
    if facet.term in sentence:
        met.append(1.0 if near else 0.85)
    if (facet.synonyms or {facet.term}) & context:  # "Construction" above a part on building
        met.append(0.9 if lent else 0.85)
    if group & sentence:
        met.append(0.85 if near else 0.75)
    if group & context:
        met.append(0.8 if lent else 0.7)
    if facet.morphemes and facet.term not in sentence and _shares_morpheme(facet, sentence):
        met.append(MORPHEME)
    if facet.term in anchors or group & anchors:
        met.append(0.6)
    return max(met)


def _phrases_met(
    facets: tuple[Facet, ...], said: set[str], literal: bool = False, close: bool = False
) -> bool:
    """Whether ``said`` (a title's or heading's terms) names every phrase of the facets,
    by a word of it or an equivalent one (with ``close``, only a synonym); with
    ``literal``, every facet in its own word."""
    if literal:
        return bool(facets) and all(f.term in said for f in facets)
    phrases: dict[int, bool] = {}
    for facet in facets:
        near = (facet.synonyms or {facet.term}) if close else facet.equivalents | {facet.term}
        met = bool(near & said)
        phrases[facet.phrase] = phrases.get(facet.phrase, False) or met
    return bool(phrases) and all(phrases.values())


def context_about(focus: Focus, doc: Document, section: str) -> bool:
    """Whether the section a sentence stands in is about the sub-question's part.

    It is when its heading names the part in its words or their synonyms ("Furnaces"
    does not, "Recycling old phones" does for a question on recycling; "A swollen cell" is
    not a heading about ageing), or when the page title names the part and the
    section is one of the topics the title announces: the lead, or a section whose
    heading shares a word with the title ("Smelting in a furnace" under "Recycling:
    shredding, smelting and the black mass"). A page title naming the part does not make
    every section of the page about it: under "The recycling rules of 2006", a section
    headed "Results" is about what followed.
    """
    return _about(focus.facets, focus, doc, section)


def _about(facets: tuple[Facet, ...], focus: Focus, doc: Document, section: str) -> bool:
    if not facets:
        return False
    heading = doc.section_terms.get(section, set())
    if _phrases_met(facets, heading, close=True):
        return True
    shared = (heading & doc.title_terms) - set(focus.subject)
    return (not heading or bool(shared)) and _phrases_met(facets, doc.title_terms)


def about_other_part(focus: Focus, doc: Document, section: str) -> bool:
    """Whether a section is about another part of the question and not this one (the
    "Eruptions" chapter of a report, for a sub-question on how the volcano formed)."""
    return not context_about(focus, doc, section) and any(
        _about(facets, focus, doc, section) for facets in focus.rivals
    )


def _topic_terms(focus: Focus, doc: Document) -> set[str]:
    """The title's words for what the page says about the part ("shred", "smelt",
    "black", "mass" in "Recycling: shredding, smelting and the black mass"): its terms
    other than the subject's and the facets', when the title names the part in the
    sub-question's own words (a title that only comes close, "The Nevada reuse plant" for
    recycling, does not make "Nevada" a word for recycling)."""
    if not _phrases_met(focus.facets, doc.title_terms, literal=True):
        return set()
    taken = set(focus.subject) | {f.term for f in focus.facets}
    taken |= {e for f in focus.facets for e in f.equivalents}
    site = _site_terms(doc.title)
    return {t for t in doc.title_terms if t not in taken and t not in site}


def _bare_name(name: str) -> str:
    """A page's name without a qualifier after a comma or in brackets ("Springfield,
    Ohio", "回家 (杂志)")."""
    return re.split(r"\s*[,，(（]", name)[0].strip()


def _own_article(focus: Focus, doc: Document) -> bool:
    """Whether the page is the subject's own article: its title (without the site's name
    and a qualifier after a comma or in brackets) is the subject's name ("Springfield,
    Ohio", "方申"), not one aspect of it ("Springfield in the Civil War")."""
    name = _bare_name(doc.name)
    return (
        bool(name)
        and _has_core(focus.core, _normal(name))
        and set(terms(name)) <= set(focus.subject)
    )


#: What a sentence on a page about another thing of the subject's kind weighs as being
#: about the subject, unless it names the subject as the question writes it.
SIBLING = 0.5


def _is_subsequence(short: str, long: str) -> bool:
    """Whether the characters of ``short`` occur in ``long`` in order (石溪 in 石溪东湖)."""
    rest = iter(long)
    return all(ch in rest for ch in short)


@lru_cache(maxsize=4096)
def _sibling_name(question: str, page_name: str, core: tuple[str, ...]) -> str:
    """The name a Chinese question gives its subject when a page is about another thing
    of the same kind: the page's name ends in words the question ends its subject's name
    with, but the question writes another modifier before them (a page on 黑X鱼 for a
    question on 疣X鱼, on 甲机场 for one on 乙机场). A Chinese name puts its head last, so
    a shared head with a different modifier is a sibling, not a short form (石溪机场 for
    石溪东湖机场 keeps the page's characters in order and is the same thing). Empty when
    the page's name is in the question, or the question's name around the shared head is
    not its subject's (``core``)."""
    name = _bare_name(page_name).replace(" ", "")
    written = question.replace(" ", "")
    if len(name) < 2 or not is_cjk(name) or name in written:
        return ""
    for size in range(len(name) - 1, 0, -1):
        head = name[-size:]
        if not all(CJK.match(ch) for ch in head) or head not in written:
            continue
        at = written.index(head)
        before = re.search(rf"[{CJK_CLASS}]*$", written[:at]).group(0)
        cut = max((i + 1 for i, ch in enumerate(before) if ch in _ZH_FUNCTION), default=0)
        asks = [m.end() for m in ZH_ASKS.finditer(before)]
        modifier = before[max([cut, *asks]) :]
        whole = modifier + head
        if not modifier or _is_subsequence(modifier, name[:-size]):
            return ""
        if not any(c in whole or whole in c for c in core if c):
            return ""
        return whole
    return ""


def _writes_title(title: str, doc: Document) -> bool:
    """Whether a page names a work: it writes its title in 《》, or its own name is it."""
    return f"《{title}》" in doc.text or _bare_name(doc.name) == title


def _without_site(title: str) -> str:
    """A page title without the site name closing it ("… — City Guide")."""
    parts = re.split(r"\s+[—|–-]\s+", title)
    return " ".join(parts[:-1]) if len(parts) > 1 else title


def _site_terms(title: str) -> set[str]:
    """The terms of a site name closing a page title ("… — City Guide")."""
    parts = re.split(r"\s+[—|–-]\s+", title)
    return set(terms(parts[-1])) if len(parts) > 1 else set()


def _near(
    facet: Facet, focus: Focus, seq: list[str], clauses: list[int] | None = None, window: int = 6
) -> bool:
    """Whether a word meeting the facet stands within ``window`` terms of the subject's
    head word, in the same clause (or, for a sentence without it, whether the facet is
    there at all). In "the Trocadero fountain, a basin first built for the 1878
    world's fair, faces the tower across the Seine", what was built is the fountain."""
    head = focus.core[-1] if focus.core else ""
    group = {facet.term} | facet.equivalents
    heads = [i for i, t in enumerate(seq) if t == head]
    hits = [i for i, t in enumerate(seq) if t in group]
    if not heads or not hits or CJK.match(head or "a"):
        return True
    same = clauses if clauses and len(clauses) == len(seq) else [0] * len(seq)
    return any(abs(i - j) <= window and same[i] == same[j] for i in heads for j in hits)


def _salience(facet: Facet, doc: Document) -> float:
    """How much a page is about a facet: 1 in its title, 0.8 in a heading, else by mentions."""
    group = {facet.term} | facet.equivalents
    if group & doc.title_terms:
        return 1.0
    if group & doc.heading_terms:
        return 0.8
    mentions = sum(doc.counts[t] for t in group)
    return 0.8 * min(1.0, mentions / (4 + sum(doc.counts.values()) / 150))


def page_salience(focus: Focus, doc: Document) -> float:
    """How much a whole page is about a sub-question's facets (1 when its title names
    them all; a page about the subject alone, for a sub-question without facets)."""
    if not focus.facets:
        return 1.0
    return sum(_salience(f, doc) for f in focus.facets) / len(focus.facets)


def _phrase_scores(facets: tuple[Facet, ...], matches: list[float]) -> list[tuple[float, float]]:
    """``(match, weight)`` per phrase. Within a phrase a missing word is tolerated (0.35)
    when most of the phrase (by weight) is met; a phrase met only in a small part counts
    by that part. Across phrases every one must be met."""
    groups: dict[int, list[tuple[float, float]]] = {}
    for facet, match in zip(facets, matches, strict=True):
        groups.setdefault(facet.phrase, []).append((match, facet.weight))
    out = []
    for members in groups.values():
        total = sum(w for _, w in members)
        if max(m for m, _ in members) <= 0.05:
            out.append((0.05, total))
            continue
        mean = sum(max(m, 0.35) * w for m, w in members) / total
        said = sum(w for m, w in members if m > 0.05) / total
        out.append((max(0.05, mean * min(1.0, said / MOST)), total))
    return out


#: The share of a phrase's weight that must be met for its missing words to be tolerated.
MOST = 0.5


def _geometric(pairs: list[tuple[float, float]]) -> float:
    total = sum(w for _, w in pairs)
    if not total:
        return 1.0
    return math.exp(sum(w * math.log(m) for m, w in pairs) / total)


def _subject_score(focus: Focus, doc: Document, index: int, context: set[str]) -> float:
    """Is the sentence (or at least its page) about the subject?"""
    if focus.facets:  # the subject is the backdrop: the page must be about it
        return _backdrop_score(focus, doc, index)
    return _question_subject_score(focus, doc, index, context)


def _backdrop_score(focus: Focus, doc: Document, index: int) -> float:
    """How far a sentence is about the subject of a part that has facets, the subject
    being the backdrop its page must be about.

    Args:
        focus: the part, with facets.
        doc: the page.
        index: the sentence's index in ``doc``.

    Returns:
        1 when the sentence names the core (other names masked), 0.95 when it names the
        core's last word or leans on a sentence naming the core on a page that names it,
        0.8 or :data:`PASSING` for another sentence of such a page (as the page speaks
        of the core near it or not), and otherwise half the share of the subject's
        weight the page mentions.
    """
    sentence_terms = doc.sentence_terms[index]
    own = _other_names_masked(plain(doc.sentences[index].text), focus.core)
    said = _normal(own)
    own_terms = set(terms(own)) if own != plain(doc.sentences[index].text) else sentence_terms
    if _has_core(focus.core, said) or (
        focus.core and set(focus.core) <= own_terms and len(focus.core) == 1
    ):
        return 1.0
    on_page = _core_on_page(focus, doc)
    if on_page and focus.core and focus.core[-1] in own_terms:
        return 0.95  # "the tower" on a page about the Eiffel Tower
    prior = _leaned_on(doc, doc.sentences[index]) if on_page else None
    if prior is not None and _has_core(focus.core, _normal(prior.text)):
        return 0.95  # "It …" after the sentence naming the subject
    if on_page:
        return 0.8 if _speaks_of(focus.core, doc, index) else PASSING
    return _subject_share(focus, doc)


def _subject_share(focus: Focus, doc: Document) -> float:
    """Half the share of the subject's weight whose terms a page mentions.

    Args:
        focus: the part.
        doc: the page.

    Returns:
        A score in [0, 0.5].
    """
    total = sum(focus.subject_weights.values()) or 1.0
    present = sum(w for t, w in focus.subject_weights.items() if doc.counts[t])
    return 0.5 * present / total


def _question_subject_score(focus: Focus, doc: Document, index: int, context: set[str]) -> float:
    """How far a sentence is about the subject of a part without facets, the subject
    being the question: every term of it must be met, in the sentence at best.

    Args:
        focus: the part, without facets.
        doc: the page.
        index: the sentence's index in ``doc``.
        context: the terms of the sentence's context (its page's title, its section's
            heading and the texts of its links).

    Returns:
        The weighted geometric mean of each subject term's match (1 in the sentence, 0.6
        in its context, 0.1 otherwise); 0.9 instead of 1 when the core's words are all
        there but not as the phrase.
    """
    sentence_terms = doc.sentence_terms[index]
    pairs = []
    said_text = plain(doc.sentences[index].text)
    for term, w in focus.subject_weights.items():
        inside = term in sentence_terms or (_unsegmented(term) and term in said_text)
        m = 1.0 if inside else 0.6 if term in context else 0.1
        pairs.append((m, w))
    score = _geometric(pairs)
    said = _normal(doc.sentences[index].text)
    if len(focus.core) > 1 and not _has_core(focus.core, said) and score == 1.0:
        score = 0.9  # the words are there but not as the phrase asked about
    return score


def score_sentence(focus: Focus, doc: Document, index: int) -> float:
    """The relevance of sentence ``index`` of ``doc`` to ``focus``, in [0, 1] (see
    :func:`assess`)."""
    return assess(focus, doc, index).score


def assess(focus: Focus, doc: Document, index: int) -> Scored:
    """How sentence ``index`` of ``doc`` answers ``focus``: its score, how far it (or its
    page) is about the subject, and the share of the part's facets it says.

    A sentence in a section about the part (:func:`context_about`) borrows from its
    context what it leaves implicit: the facet its title or heading names, and the
    subject of the page ("smelting them recovers the cobalt" on the lithium-ion batteries'
    recycling page). Naming one of the topics the title announces for the part counts
    as saying the facet itself.

    A part the planner lent a subject is answered as well as the sentence answers it
    either way: with that subject or as its own words ask (:attr:`Focus.alternative`).
    """
    scored = _assess(focus, doc, index)
    if focus.alternative is not None:
        other = _assess(focus.alternative, doc, index)
        if other.score > scored.score:
            return other
    return scored


def _assess(focus: Focus, doc: Document, index: int) -> Scored:
    features, subject, said, rules = _signals(focus, doc, index)
    score = model().score(features | ALONE) if LEARNED else rules
    return Scored(doc.sentences[index], score, subject, said, features=features)


#: The standing of a page read alone (the page features of :mod:`research.ranking`): it
#: is the best of the pages read for every part, and agreed on by none (see
#: :func:`research.retrieval.standing`).
ALONE: Features = {"page_share": 1.0, "page_first": 1.0, "page_agreed": 0.0}


def features_of(focus: Focus, doc: Document, index: int) -> Features:
    """The features of sentence ``index`` of ``doc`` for ``focus`` that the learned model
    (:mod:`research.ranking`) weighs:

    - ``subject``: the log of how far the sentence, or at least its page, is about the
      part's subject (:func:`_aboutness`);
    - ``facets``: the log of the weighted geometric mean of how each facet of the part is
      met (in the sentence, by an equivalent, by its section's heading or the title);
      ``said``: the share of the facets (by weight) it says; ``no_facets``: the part
      asks nothing beyond its subject;
    - ``elsewhere``: the sentence stands in a section about another part of the question;
      ``salience``: the log of how much the page is about the part's facets (0 on the
      subject's own article);
    - ``time_mismatch``: it speaks of the present where the part asks about the past, or
      the reverse; ``leaning``: it opens leaning on the sentence before;
      ``untyped``: the part asks how many and it gives no number; ``kind_answer``: it
      carries the kind of answer asked for beyond the question's own words;
    - ``local``, ``local_top``: how it says the part's words that are rare on its own page,
      as a share of the page's best, and whether it is among the page's best
      :data:`LOCAL_TOP`; ``page_named``: the page's title names the subject;
    - ``grams``, ``grams_best``: the share of the part's words (any language: character
      pairs where words are not spaced) it says, weighed by their rarity on the page, and
      as a share of the page's best: the one signal that needs no word list;
      ``spaceless``, ``grams_spaceless``: the part is written without spaces between
      words (Chinese, Thai), and ``grams`` again for such a part only (a pair of
      characters says less than a word);
    - ``length``: the log of its length.
    """
    return _signals(focus, doc, index)[0]


def _signals(focus: Focus, doc: Document, index: int) -> tuple[Features, float, float, float]:
    """:func:`features_of`, with the raw subject score and said share :class:`Scored`
    keeps, and the score the hand-set rules give (see :func:`_rules_score`)."""
    sentence = doc.sentences[index]
    view = _page_view(focus, doc)
    lent, elsewhere = _section_view(focus, doc, sentence.section)
    subject = _aboutness(focus, doc, index, lent)
    matches = _facet_matches(focus, doc, index, lent, view)
    facets = _geometric(_phrase_scores(focus.facets, matches))
    said = said_share(focus.facets, matches)
    page = view.page
    text = sentence.text
    local, top = _local(focus, doc)
    grams, best = _grams(focus, doc)
    time = _time_agreement(focus, text)
    leaning = opens_leaning(text)
    untyped = focus.kind == "number" and not _gives_number(focus, text)
    bonus = answer_type_bonus(focus, text)
    unspaced = float(view.spaceless)
    rules = _rules_score(
        subject * facets, elsewhere, 0.5 + 0.5 * page, time, leaning, untyped, bonus
    )
    features = {
        "subject": math.log(max(subject, 0.01)),
        "facets": math.log(max(facets, 0.01)),
        "said": said,
        "no_facets": float(not focus.facets),
        "elsewhere": float(elsewhere),
        "salience": math.log(max(page, 0.01)),
        "time_mismatch": float(time < 1.0),
        "leaning": float(leaning),
        "untyped": float(untyped),
        "kind_answer": float(bonus > 0),
        "local": local[index],
        "local_top": float(index in top),
        "page_named": float(view.named),
        "grams": grams[index],
        "grams_best": grams[index] / best if best else 0.0,
        "spaceless": unspaced,
        "grams_spaceless": grams[index] * unspaced,
        "length": math.log(1 + len(plain(text))) / 5,
    }
    return features, subject, said, rules


def _rules_score(
    base: float,
    elsewhere: bool,
    page: float,
    time: float,
    leaning: bool,
    untyped: bool,
    bonus: float,
) -> float:
    """The hand-set combination the learned model is measured against (see
    :data:`LEARNED`): the subject and facet scores' product, a share off for a sentence
    in another part's section (:data:`ELSEWHERE`), on a page about other things, about
    another time, leaning on the sentence before, or giving no number where one is asked
    for (:data:`UNTYPED`), plus a little for the kind of answer asked for."""
    score = base * (ELSEWHERE if elsewhere else 1.0) * page * time
    score *= (0.85 if leaning else 1.0) * (UNTYPED if untyped else 1.0)
    return min(1.0, score + bonus)


def _aboutness(focus: Focus, doc: Document, index: int, lent: bool) -> float:
    """How far sentence ``index`` (or at least its page) is about the part's subject:
    1 when it names it; less on a page about another thing of the subject's kind."""
    sentence = doc.sentences[index]
    context = (
        doc.title_terms | doc.section_terms.get(sentence.section, set()) | doc.anchor_terms[index]
    )
    subject = _subject_score(focus, doc, index, context)
    if lent and subject < 0.95 and _core_on_page(focus, doc):
        subject = 0.95  # the section is about the part of the page's subject
    if subject > SIBLING and focus.core and is_cjk(focus.text):
        written = plain(sentence.text)
        sibling = _sibling_name(focus.text, doc.name, focus.core)
        if sibling and sibling not in written.replace(" ", ""):
            subject = SIBLING  # the page is about another thing of the subject's kind
        elif focus.titled and not _writes_title(focus.titled, doc):
            subject = SIBLING  # 回家 as a verb does not name 《回家》
    return subject


def _facet_matches(
    focus: Focus, doc: Document, index: int, lent: bool, view: _PageView
) -> list[float]:
    """How sentence ``index`` meets each facet of the part (see :func:`_facet_match`)."""
    sentence = doc.sentences[index]
    written = plain(sentence.text)
    title = doc.title_terms
    heading = doc.section_terms.get(sentence.section, set())
    anchors = doc.anchor_terms[index]
    said = doc.sentence_terms[index]
    if focus.facets and is_cjk(focus.text):  # a Chinese word the sentence's cut splits
        said = said | {
            t
            for f in focus.facets
            for t in (f.term, *f.equivalents)
            if len(t) >= 2 and CJK.match(t) and t in written
        }
    seq, clauses = doc.sentence_seq[index], doc.sentence_clauses[index]
    if lent and said & view.topic:
        said = said | {f.term for f in focus.facets}  # names what the title says of the part
    matches = [
        _facet_match(f, said, title, heading, anchors, sal, _near(f, focus, seq, clauses), lent)
        for f, sal in zip(focus.facets, view.salience, strict=True)
    ]
    return [
        _widened(f, m, said, sentence.text, written)
        for f, m in zip(focus.facets, matches, strict=True)
    ]


def _widened(facet: Facet, match: float, said: set[str], text: str, written: str) -> float:
    """A facet's match, widened for a Chinese kind noun a new name of its kind meets
    (重庆市 for 哪个城市), a "how long" verb a span of time meets, and a localizer
    another localizer meets."""
    if facet.kind_of and facet.term not in said and names_kind(facet, written):
        match = max(match, KIND_NAMED)
    if facet.measures and has_span(text):  # …在六年内结束
        match = max(match, SAID)
    if facet.relation and any(localizer(t) for t in said):
        match = max(match, MORPHEME)
    return match


@dataclass(frozen=True)
class _PageView:
    """What a page is for a part, the same for each of its sentences."""

    #: how much the page is about each facet (see :func:`_salience`)
    salience: tuple[float, ...]
    #: their mean; 1 on the subject's own article or for a part without facets
    page: float
    #: the page's title names the subject
    named: bool
    #: the title's words for what the page says about the part (see :func:`_topic_terms`)
    topic: frozenset[str]
    #: the part is written in a script without spaces between words (Chinese, Thai)
    spaceless: bool


def _page_view(focus: Focus, doc: Document) -> _PageView:
    """The page's :class:`_PageView` for the part (computed once per page and part)."""
    key = ("page", focus)
    if key not in doc.memo:
        salience = tuple(_salience(f, doc) for f in focus.facets)
        own = not salience or _own_article(focus, doc)
        doc.memo[key] = _PageView(
            salience,
            1.0 if own else sum(salience) / len(salience),
            _names_subject(focus, doc),
            frozenset(_topic_terms(focus, doc)),
            spaceless(focus.text),
        )
    return doc.memo[key]


def _section_view(focus: Focus, doc: Document, section: str) -> tuple[bool, bool]:
    """Whether a section is about the part (:func:`context_about`) and whether it is
    about another part instead (:func:`about_other_part`), once per section and part."""
    key = ("section", focus, section)
    if key not in doc.memo:
        doc.memo[key] = (
            context_about(focus, doc, section),
            about_other_part(focus, doc, section),
        )
    return doc.memo[key]


def _core_on_page(focus: Focus, doc: Document) -> bool:
    """Whether the page names the subject's core anywhere (once per page and part)."""
    key = ("core", focus.core)
    if key not in doc.memo:
        doc.memo[key] = _has_core(focus.core, doc.lowered)
    return doc.memo[key]


def _local(focus: Focus, doc: Document) -> tuple[list[float], frozenset[int]]:
    """:func:`local_match` for every sentence of the page, and the :data:`LOCAL_TOP`
    sentences it ranks first (computed once per page and part)."""
    key = ("local", focus)
    if key not in doc.memo:
        local = local_match(focus, doc)
        order = sorted(range(len(local)), key=lambda i: (-local[i], i))
        doc.memo[key] = (local, frozenset(i for i in order[:LOCAL_TOP] if local[i] > 0))
    return doc.memo[key]


def _grams(focus: Focus, doc: Document) -> tuple[list[float], float]:
    """For every sentence of the page, the share of the part's grams (see
    :func:`research.text.grams`) it says, each weighed by how rare it is among the page's
    sentences; and the page's best share."""
    key = ("grams", focus.text)
    if key not in doc.memo:
        said = doc.grams()
        asked = grams(focus.text)
        n = len(said)
        df = Counter(g for s in said for g in s & asked)
        idf = {g: math.log(1 + (n - df[g] + 0.5) / (df[g] + 0.5)) for g in asked}
        total = sum(idf.values())
        shares = [sum(idf[g] for g in s & asked) / total if total else 0.0 for s in said]
        doc.memo[key] = (shares, max(shares, default=0.0))
    return doc.memo[key]


def said_share(facets: tuple[Facet, ...], matches: Sequence[float]) -> float:
    """The share of the facets (by weight) a sentence says (a match of :data:`SAID` at
    least). A Chinese word and the pieces the segmenter finds inside it (行政区划: 行政,
    政区, 区划, 行政区) are one facet, weighing as its heaviest piece and said as far as
    its pieces are: a sentence that says 行政区 has not said most of a question on 村社
    and 行政区划 by saying three pieces of one word."""
    groups: dict[str, list[tuple[float, bool]]] = {}
    for facet, whole, match in zip(facets, _wholes(facets), matches, strict=True):
        groups.setdefault(whole, []).append((facet.weight, match >= SAID))
    total = sum(max(w for w, _ in g) for g in groups.values())
    if not total:
        return 1.0
    said = sum(
        max(w for w, _ in g) * sum(w for w, met in g if met) / sum(w for w, _ in g)
        for g in groups.values()
    )
    return said / total


@lru_cache(maxsize=256)
def _wholes(facets: tuple[Facet, ...]) -> tuple[str, ...]:
    """Each facet's word: the longest Chinese facet term holding its term (行政区划 for 行政,
    政区 and 行政区), else its own term (see :func:`said_share`)."""
    return tuple(
        max(
            (f.term for f in facets if facet.term in f.term and CJK.match(f.term)),
            key=len,
            default=facet.term,
        )
        for facet in facets
    )


def answer_type_bonus(focus: Focus, text: str) -> float:
    """A little more for a sentence that carries what the part asks for, beyond the
    question's own words: a date for *when* (or a part about the past), a quantity for *how
    many*, a stated cause for *why*, a person or organisation for *who*, a place for
    *where*."""
    new = _new_to(focus.text, plain(text))
    if (focus.kind == "when" or focus.historical) and has_date(new):
        return 0.08
    if focus.kind == "number" and _gives_number(focus, text):
        return 0.1
    if focus.kind == "why" and states_cause(text):
        return 0.05
    if focus.kind in ("who", "where") and _names_of(new, focus.kind) - _names_of(
        focus.text, focus.kind
    ):
        return 0.06
    if focus.kinds and _names_a_kind(focus, plain(text)):
        return 0.08
    return 0.0


def _gives_number(focus: Focus, text: str) -> bool:
    """Whether a sentence gives the number a "how many" part asks for: one counted as the
    question counts (两所 for 多少所大学, not 一年) when a Chinese question says how,
    else any quantity the question does not give itself."""
    return _gives_number_to(focus.text, text)


@lru_cache(maxsize=8192)
def _gives_number_to(question: str, text: str) -> bool:
    """:func:`_gives_number` by the part's text: :func:`assess` asks it for its penalty
    and :func:`answer_type_bonus` for its bonus, for the same sentence."""
    measure = counted_in(question)
    if measure:
        return has_count(text, measure)
    return has_quantity(_new_to(question, plain(text)))


def _names_a_kind(focus: Focus, text: str) -> bool:
    """Whether an English sentence names a thing of the kind the part asks for: a
    capitalised name the question does not use, ending in the kind's word ("the
    Marrow-Lindqvist Scale" for "what is the scale … called")."""
    asked = focus.text.lower()
    for match in _NAME_RUN.finditer(text):
        name = match.group(0)
        last = re.split(r"[\s-]+", name)[-1]
        named = len(name.split()) > 1 and name.lower() not in asked
        if named and stem(last.lower()) in focus.kinds:
            return True
    return False


def _new_to(question: str, text: str) -> str:
    """``text`` without the numbers and words it shares with ``question`` (the answer is
    what the question does not already say)."""
    asked = set(re.findall(r"\d[\d,.]*", question))
    return re.sub(r"\d[\d,.]*", lambda m: " " if m.group(0) in asked else m.group(0), text)


_NAME_RUN = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+(?:\s+(?:of\s+|de\s+)?[A-Z][\w'’-]+)*")


@lru_cache(maxsize=8192)
def _names_of(text: str, kind: str) -> frozenset[str]:
    """The names of people or organisations (``who``) or of places (``where``) in
    ``text``: capitalised words inside an English sentence; for Chinese, the word list's
    names (nr, nt; ns)."""
    if is_cjk(text):
        flags = ("nr", "nt") if kind == "who" else ("ns",)
        return frozenset(
            p.word for p in zh_tagged(text) if p.flag.startswith(flags) and len(p.word) >= 2
        )
    return frozenset(m.group(0).lower() for m in _NAME_RUN.finditer(text))


_NOW = re.compile(
    r"\b(today|now|nowadays|currently|present-day|twenty-first century|21st century)\b"
    r"|今天|如今|现在|目前|当今",
    re.I,
)
#: Years at most this old count as the present for a question about today.
RECENT_YEARS = 75


def _time_agreement(focus: Focus, text: str) -> float:
    """Less for a sentence about the present when the question asks about the past, and
    for one only about the past when it asks about today."""
    years = facts_years(text)
    recent = datetime.now(UTC).year - RECENT_YEARS
    now = bool(_NOW.search(text)) or (bool(years) and min(years) >= recent)
    past = bool(years) and max(years) < recent and not _NOW.search(text)
    today = any(f.term in PRESENT for f in focus.facets)
    if focus.historical and not today and now:
        return 0.8
    if today and past:
        return 0.8
    return 1.0


def relevant(
    focus: Focus, doc: Document, threshold: float | None = None, complete_only: bool = True
) -> list[Scored]:
    """The sentences of ``doc`` scoring at least ``threshold`` (the part's
    :func:`evidence_threshold` by default) for ``focus``, best first."""
    least = evidence_threshold(focus) if threshold is None else threshold
    return [s for s in assessed(focus, doc, complete_only) if s.score >= least]


def assessed(focus: Focus, doc: Document, complete_only: bool = True) -> list[Scored]:
    """Every sentence of ``doc`` assessed for ``focus`` (complete ones only, with
    ``complete_only``), best first by :attr:`Scored.rank`."""
    local = _local(focus, doc)[0]
    out = []
    for i, sentence in enumerate(doc.sentences):
        if sentence.complete or not complete_only:
            scored = assess(focus, doc, i)
            scored.local = local[i]
            out.append(scored)
    out.sort(key=lambda s: (-s.rank, s.sentence.start))
    named = _page_view(focus, doc).named
    for scored in out[:LOCAL_TOP]:
        scored.top_of_page = True
        scored.page_named = named
    return out


def _names_subject(focus: Focus, doc: Document) -> bool:
    """Whether the page's title (without the site's name) names the part's subject: the
    page is about it, so that its own rare words tell where it answers the part."""
    return _has_core(focus.core, _normal(_without_site(doc.title)))


def local_match(focus: Focus, doc: Document) -> list[float]:
    """How well each sentence of ``doc`` says the part's words, each weighted by how rare
    it is among the page's sentences, as a share of the best sentence's: on the subject's
    own page, the subject's name is everywhere and tells nothing, while the one word of
    the question that few sentences use points at the passage that answers it.

    The page's sentences are ranked by :class:`~research.retrieval.BM25`, each sentence
    as the set of its terms and with no length normalisation (``b`` = 0): a sentence
    answers by saying a word, not by repeating it, and a long sentence saying it says it
    no less. Its score is then the sum of the rarity (inverse document frequency over the
    page) of the part's words it says."""
    asked = set(terms(focus.text))
    if not asked or not doc.sentences:
        return [0.0] * len(doc.sentences)
    raw = BM25(doc.sentence_terms, b=0.0).scores(asked)
    best = max(raw, default=0.0)
    return [r / best if best else 0.0 for r in raw]


def quote_bounds(doc: Document, sentence: Sentence) -> tuple[int, int]:
    """Where a quote of ``sentence`` starts and ends in its page: the sentence itself, or,
    when its subject is a pronoun for something the sentence before names ("它们的人口是
    120万…", "It reached the coast in 610."), that sentence and the one before it in the
    same paragraph, so that the quote says what it is about."""
    prior = _leaned_on(doc, sentence)
    return (prior.start if prior else sentence.start), sentence.end


def _leaned_on(doc: Document, sentence: Sentence) -> Sentence | None:
    """The sentence a sentence opening with a pronoun leans on: the one before it in its
    paragraph, when that one does not lean on another itself."""
    if not opens_leaning(sentence.text):
        return None
    before = [
        s
        for s in doc.sentences
        if s.end <= sentence.start and s.section == sentence.section and s.kind == sentence.kind
    ]
    if not before:
        return None
    prior = before[-1]
    if "\n\n" in doc.text[prior.end : sentence.start] or opens_leaning(prior.text):
        return None
    return prior


def score_text(focus: Focus, text: str, title: str = "") -> float:
    """The relevance of a short text (a search result's title and snippet) to ``focus``."""
    doc = Document.of(text if text.strip() else title, title)
    if not doc.sentences:
        doc = Document.of(f"{title}.", title)
    if not doc.sentences:
        return 0.0
    return max(score_sentence(focus, doc, i) for i in range(len(doc.sentences)))
