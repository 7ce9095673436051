"""The research plan: the question broken into sub-questions, each with its own queries.

The plan is the run's todo list. Each sub-question has a status (pending, in progress,
answered, partly answered, not found, or not researched when the research ended before
reaching it) and the evidence found for it; the plan is kept in
``/internal/plan.json`` and in ``run.json``.

:func:`offline_plan` is the offline brain's deterministic decomposition: it splits the
question on clauses, conjunctions and question words, carries the subject into clauses
that only point at it ("why did *it* erupt"), and makes short keyword queries.
An LLM brain proposes a plan as structured output (:class:`PlanModel`); :func:`checked`
accepts it only when it is whole (not JSON repaired after being cut off), in the
question's language, covers every part of the offline decomposition (a missing part is
added from it) and has usable queries (replaced by key terms where they are not). Every
fallback is recorded on the plan with its reason (:attr:`Plan.fallbacks`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import regex
from pydantic import BaseModel, Field, ValidationError

from research.comparison import (
    Comparison,
    as_one,
    comparison,
    side_parts,
    side_words,
    sides_first,
)
from research.facts import ZH_MEASURE_WORDS
from research.lang import (
    Language,
    asked_in,
    asked_language,
    language_name,
    question_language,
    served,
    text_language,
)
from research.lemmas import PAST, all_lemmas, verb_form
from research.owners import (
    PERSONAL,
    after_who,
    owned_phrase,
    possessive,
    possessive_used,
    possessor,
    split_owned,
    standing_for,
    things_asked,
    zh_split_owned,
)
from research.present import present_words
from research.question import (
    AUXILIARIES,
    CLAIM_OPENING,
    EXPLETIVE,
    IMPERATIVES,
    QUESTION_WORDS,
    SCAFFOLD,
    ZH_ASKS,
    ZH_QUESTION_WORDS,
    Focus,
    Glossary,
    checks_whether,
    claim_said,
    claim_word,
    entity,
    frames_blanked,
    idle_terms,
    lead_subject,
    named_phrase,
    own_terms,
    owned_by_subject,
    question_kind,
    telling,
    topic_of,
    weight,
    zh_about,
    zh_content,
    zh_tagged,
)
from research.requests import direct
from research.text import (
    CJK,
    STOP_WORDS,
    WORD,
    ZH_COUNTER_CLASS,
    is_cjk,
    is_hangul,
    is_verb_form,
    learn_words,
    longest_first,
    marked,
    simplified,
    spaceless,
    stem,
    terms,
    uncounted,
    words,
)

STATUSES = (
    "pending",
    "in progress",
    "answered",
    "partly answered",
    "not found",
    "not researched",
)
MIN_SUBQUESTIONS, MAX_SUBQUESTIONS = 1, 6
MAX_QUERIES = 4
#: Words of a part, besides its subject, that one query carries at most.
QUERY_ASPECTS = 3

_QUESTION_WORDS = QUESTION_WORDS
_AUX = AUXILIARIES
_PRONOUNS = {"it": "", "its": "'s", "they": "", "their": "'s", "them": "", "this": "", "these": ""}
#: English pronouns for a person's own ("what was *her* later work"), English's alone.
_PERSONS = {word: "'s" for word in PERSONAL}
_ZH_PRONOUNS = ("它们", "它", "其", "该")
#: Chinese pronouns for people, which stand for the subject of the clause before them
#: (石溪镇的茶农…，他们… is about the tea farmers, not the town).
_ZH_PERSONS = ("他们", "她们", "他", "她")


# --- the plan ---------------------------------------------------------------------------


@dataclass
class SubQuestion:
    """One part of the question: its text, its search queries, status and evidence."""

    id: str
    text: str
    queries: list[str]
    status: str = "pending"
    evidence_ids: list[str] = field(default_factory=list)
    #: the part as the question words it, when the planner lent it the subject another
    #: clause names (白沙镇 for 什么流经青石山和黑水岭之间？): the part may be about a
    #: subject of its own ("" when nothing was lent)
    own: str = ""
    #: the evidence id of the line that answers the part in the report's summary (see
    #: :func:`research.notes.summary_lines`; one line may answer several parts, "When
    #: and by whom …"); "" before the notes are written or when nothing answers it
    answer_id: str = ""


@dataclass
class Plan:
    """The run's plan and the record of its research rounds."""

    question: str
    language: str
    subquestions: list[SubQuestion]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    planner: str = "offline"
    #: What a model's plan was mended or replaced for: ``{"action", "part", "reason"}``.
    fallbacks: list[dict[str, str]] = field(default_factory=list)

    def get(self, sub_id: str) -> SubQuestion | None:
        return next((s for s in self.subquestions if s.id == sub_id), None)

    @property
    def read_as(self) -> dict[str, str]:
        """The language the question is written in and how it is read: ``{"code",
        "name", "read"}``, ``read`` one of :data:`research.lang.SERVED` (a question in a
        language with no data of its own is read by the generic path, which the report
        says)."""
        code = text_language(self.question)
        return {"code": code, "name": language_name(code), "read": served(code)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "language": self.language,
            "question_language": self.read_as,
            "planner": self.planner,
            "fallbacks": [dict(f) for f in self.fallbacks],
            "subquestions": [asdict(s) for s in self.subquestions],
            "rounds": self.rounds,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Plan:
        return cls(
            question=str(raw["question"]),
            language=str(raw.get("language", "en")),
            subquestions=[SubQuestion(**s) for s in raw["subquestions"]],
            rounds=list(raw.get("rounds", [])),
            planner=str(raw.get("planner", "offline")),
            fallbacks=[dict(f) for f in raw.get("fallbacks") or []],
        )

    def focus(self, sub: SubQuestion, glossary: Glossary | None = None) -> Focus:
        """The relevance focus of one sub-question among its siblings."""
        siblings = [s.text for s in self.subquestions]
        focus = Focus.build(sub.text, siblings, self.question, glossary=glossary, as_asked=sub.own)
        sides = side_words(sub.text, self.question)
        return dataclasses.replace(focus, sides=sides) if sides else focus


class PlannedSubQuestion(BaseModel):
    """One part of the research question."""

    text: str = Field(
        description="One part of the question, written as a complete question that names "
        "its subject (no 'it' or 'they'), in the language of the question."
    )
    queries: list[str] = Field(
        description="2 to 4 short web search queries of key terms for this part, e.g. "
        "['Eiffel Tower construction 1887', 'Eiffel Tower repainting']; not the whole "
        "question."
    )


class PlanModel(BaseModel):
    """The research plan: the question broken into the parts a report must answer."""

    subquestions: list[PlannedSubQuestion] = Field(
        description="2 to 6 parts that together cover the whole question, in the order a "
        "report should answer them."
    )


def validated(raw: dict[str, Any] | None, question: str) -> tuple[Plan | None, str]:
    """A plan from structured output, or ``(None, why it is unusable)``; a part without
    queries gets key terms of its text."""
    parts, why = _parts(raw)
    if parts is None:
        return None, why
    for sub in parts:
        sub.queries = sub.queries or keyword_queries(sub.text, sub.text)
    return Plan(question, "zh" if is_cjk(question) else "en", parts, planner="model"), ""


def _parts(raw: dict[str, Any] | None) -> tuple[list[SubQuestion] | None, str]:
    """The distinct parts of a structured plan with their non-empty queries, or
    ``(None, why they are unusable)``."""
    if not raw:
        return None, "the model gave no valid plan"
    try:
        model = PlanModel.model_validate(raw)
    except ValidationError as exc:
        errors = exc.error_count()
        return None, f"the plan did not validate ({errors} error{'s' * (errors != 1)})"
    subs: list[SubQuestion] = []
    seen: set[str] = set()
    for item in model.subquestions:
        text = " ".join(item.text.split())
        if not text or len(text) > 400 or text.lower() in seen:
            continue
        seen.add(text.lower())
        queries = [" ".join(q.split())[:200] for q in item.queries if q and q.strip()]
        queries = list(dict.fromkeys(q for q in queries if q))[:MAX_QUERIES]
        subs.append(SubQuestion(f"q{len(subs) + 1}", text, queries))
    if not MIN_SUBQUESTIONS <= len(subs) <= MAX_SUBQUESTIONS:
        return None, f"the plan has {len(subs)} usable sub-questions (1 to 6 are allowed)"
    return subs, ""


# --- checking a model's plan ------------------------------------------------------------

#: Key terms a usable query has, at least and at most.
MIN_QUERY_TERMS, MAX_QUERY_TERMS = 2, 5
#: Share of an offline part's weighted terms a model part must name to cover it.
COVERED = 0.5

REPAIRED = "the plan JSON was cut off or malformed and had to be repaired"


def key_terms(query: str) -> list[str]:
    """The key terms of a search query: its words (a hyphenated name is one), without
    stop words and single Latin letters."""
    out = []
    for word in words(query):
        if word in STOP_WORDS or (len(word) == 1 and not CJK.match(word)):
            continue
        out.append(word)
    return out


def query_problem(query: str) -> str:
    """Why ``query`` is no usable search query ("" when it is one)."""
    found = key_terms(query)
    if not query.strip():
        return "it is empty"
    if not MIN_QUERY_TERMS <= len(found) <= MAX_QUERY_TERMS:
        return f"it has {len(found)} key terms ({MIN_QUERY_TERMS} to {MAX_QUERY_TERMS} are usable)"
    return ""


def covers(part: Focus, said: set[str]) -> bool:
    """Whether terms ``said`` (a model part's text and queries) name what ``part`` (an
    offline part's focus) asks: at least :data:`COVERED` of the weight of its facets (of
    all its terms when it has none)."""
    asked = [(f.term, f.weight, f.equivalents, f.morphemes) for f in part.facets]
    if not asked:
        asked = [
            (t, part.subject_weights.get(t, 1.0), frozenset(), frozenset()) for t in part.subject
        ]
    total = sum(w for _, w, _, _ in asked)
    if not total:
        return True
    met = 0.0
    for term, w, equivalents, marks in asked:
        if term in said or equivalents & said:
            met += w
        elif marks and any(ch in word for word in said for ch in marks):
            met += w / 2
    return met / total >= COVERED


def checked(raw: dict[str, Any] | None, question: str, repaired: bool = False) -> Plan:
    """The plan to research ``question`` by: the model's structured plan ``raw`` when it
    is usable (mended where it can be), else the offline decomposition.

    The model's plan is replaced when its JSON had to be ``repaired``, when it does not
    validate, or when a part is not in the question's language. A part of the offline
    plan that no model part covers is added; a query that is not 2–5 key terms is
    dropped, and a part left without queries gets key-term queries of its text. Each
    replacement or mend is in :attr:`Plan.fallbacks` with its reason.

    Args:
        raw: the model's structured output (a :class:`PlanModel` as a dict), or None.
        question: the research question.
        repaired: whether the model's JSON was incomplete and parsed only by repair.
    """
    offline = offline_plan(question)
    parts, why = (None, REPAIRED) if repaired else _parts(raw)
    if parts is not None:
        why = _wrong_language(parts, text_language(offline.question))
    if parts is None or why:
        return replaced_by_offline(offline, why)
    plan = Plan(offline.question, offline.language, parts, planner="model")
    siblings = [s.text for s in parts]
    for sub in parts:
        _check_queries(plan, sub, siblings)
    missing = _uncovered(offline, parts)
    if len(parts) + len(missing) > MAX_SUBQUESTIONS:
        return replaced_by_offline(
            offline,
            f"the plan misses {len(missing)} part{'s' * (len(missing) != 1)} of the question and "
            f"has no room for {'them' if len(missing) != 1 else 'it'} "
            f"({MAX_SUBQUESTIONS} parts at most)",
        )
    for sub in missing:
        added = SubQuestion(f"q{len(plan.subquestions) + 1}", sub.text, list(sub.queries))
        plan.subquestions.append(added)
        plan.fallbacks.append(
            {
                "action": "part added",
                "part": added.id,
                "reason": f"no part of the model's plan covers {sub.text!r} "
                "(added from the offline plan)",
            }
        )
    return plan


def replaced_by_offline(offline: Plan, reason: str) -> Plan:
    """``offline`` as the run's plan, in place of a model's plan refused for ``reason``."""
    offline.planner = f"offline (fallback: {reason})"
    offline.fallbacks.append({"action": "plan replaced", "part": "", "reason": reason})
    return offline


def _wrong_language(parts: list[SubQuestion], language: str) -> str:
    """Why the parts are not in ``language`` ("" when they are): told once from all of
    them together, as a question's language is (a part of a few words says little of
    its own), naming the first part read as another language."""
    together = text_language(" ".join(sub.text for sub in parts))
    if together == language:
        return ""
    for sub in parts:
        found = text_language(sub.text)
        if found != language:
            return (
                f"part {sub.id} is in {language_name(found)}, not in the "
                f"question's language ({language_name(language)})"
            )
    return f"the parts are in {language_name(together)}, not in {language_name(language)}"


def _check_queries(plan: Plan, sub: SubQuestion, siblings: list[str]) -> None:
    """Drop ``sub``'s unusable queries, recording why; key terms where none is left."""
    kept, dropped = [], []
    for query in sub.queries:
        problem = query_problem(query)
        if problem:
            dropped.append(f"{query!r}: {problem}")
        else:
            kept.append(query)
    if kept and not dropped:
        return
    if not sub.queries:
        dropped.append("no queries")
    sub.queries = kept or keyword_queries(sub.text, plan.question, siblings)
    plan.fallbacks.append(
        {
            "action": "queries dropped" if kept else "queries replaced",
            "part": sub.id,
            "reason": "; ".join(dropped) + ("" if kept else " (replaced by key terms of the part)"),
        }
    )


def _uncovered(offline: Plan, parts: list[SubQuestion]) -> list[SubQuestion]:
    """The parts of ``offline`` that none of ``parts`` covers."""
    said = [set(terms(" ".join([s.text, *s.queries]))) for s in parts]
    missing = []
    for sub in offline.subquestions:
        focus = offline.focus(sub)
        if not any(covers(focus, terms_) for terms_ in said):
            missing.append(sub)
    return missing


# --- the offline decomposition ---------------------------------------------------------


def offline_plan(question: str) -> Plan:
    """Break ``question`` into sub-questions with keyword queries, deterministically.

    The question's language is told once, from the whole question, and every part is
    read in it (:func:`research.lang.asked_in`), unless the caller reads in one already;
    letters written in place of the language's own are read as its own (Romanian ş, ţ).
    The names the question marks (titles in 《》, quoted spans) and the sides it
    compares are taught to jieba first (:func:`research.text.learn_words`), so that the
    question, its parts and the pages read for it cut a rare name alike, as one word."""
    question = direct(" ".join(question.split()))
    with asked_in(asked_language() or text_language(question)):
        known = question_language(question)
        return _planned(known.spelled(question) if known is not None else question)


def _planned(question: str) -> Plan:
    """:func:`offline_plan` of ``question``, its language set."""
    compared = comparison(question)
    learn_words([*marked(question), *(compared.sides if compared is not None else ())])
    simple = simplified(question)
    if simple != question and text_language(question) == "zh":
        # Traditional Chinese: planned as Simplified, written back (not Japanese kanji)
        return _written_as(offline_plan(simple), question)
    owns, sides, lang = _asks(question)
    texts = list(owns)[:MAX_SUBQUESTIONS] or [question]
    subs: list[SubQuestion] = []
    for i, text in enumerate(texts, 1):
        if subs and _bare(text, question):  # "…, and why?" asks it of the part before
            queries = list(subs[-1].queries)
        elif len(sides.get(text, ())) == 1:  # one side, searched as asked on its own
            side = sides[text][0]
            queries = _naming(keyword_queries(text, f"{side}: {text}", [text]), (side,))
        elif (compared := comparison(text)) is not None:  # both sides, without "which"
            asked = _naming(keyword_queries(as_one(compared), question, texts), compared.sides)
            queries = _both_sides(subs[-1].queries if subs else [], compared, asked)
        else:
            queries = _naming(keyword_queries(text, question, texts), sides.get(text, ()))
            if subs and lang in ("en", "zh") and text not in sides:
                queries = _carried(queries, text, question)
        subs.append(SubQuestion(f"q{i}", text, queries, own=owns.get(text, "")))
    return Plan(question, lang, subs)


def _asks(question: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]], str]:
    """The question's parts, each with what it says in its own words ("" when the planner
    lent it nothing); the parts asking about one side of a comparison, each with its
    side; and the report's language. A comparison is asked as one part per side, then as
    the user asked it (also when the sides come first: "A vs B: which …?"); each such
    part comes with what its queries must name (its side, or both)."""
    turned = sides_first(question)
    split, lang = _split_asks(turned)
    if turned != question:
        split = [(question if t == turned else t, own) for t, own in split]
    owns: dict[str, str] = {}
    sides: dict[str, tuple[str, ...]] = {}
    last: Comparison | None = None
    for text, own in split:
        compared = comparison(text) if text else None
        if compared is None and last is not None:  # "…, and which is cheaper?"
            text, compared = _compared_again(text, last)
        if compared is not None:
            last = compared
            for part, side in zip(side_parts(compared), compared.sides, strict=True):
                sides.setdefault(part, (side,))
                owns.setdefault(part, "")
            sides.setdefault(text, compared.sides)
        if text:
            owns.setdefault(text, own)
    return owns, sides, lang


def _both_sides(side: list[str], compared: Comparison, asked: list[str]) -> list[str]:
    """The queries of a comparison's own part: its last side's first query with both
    sides named where that side is ("Kobo screen" gives "Kindle Kobo screen"), then the
    queries of the comparison asked of both (``asked``), those naming both sides first."""
    a, b = (_searched_name(x, x) for x in compared.sides)
    first = side[0] if side else ""
    both = first.replace(b, f"{a} {b}", 1) if b in first else ""
    queries = list(dict.fromkeys(q for q in [both, *asked] if q))
    named = [q for q in queries if _says_name(q, a) and _says_name(q, b)]
    return [*named, *(q for q in queries if q not in named)][:MAX_QUERIES]


def _says_name(query: str, name: str) -> bool:
    """Whether a query says a word of a name (Chinese: the name itself)."""
    if is_cjk(name):
        return name in query
    return bool(
        {w.casefold() for w in WORD.findall(name)} & {w.casefold() for w in WORD.findall(query)}
    )


def _compared_again(text: str, before: Comparison) -> tuple[str, Comparison | None]:
    """A later part that compares again without naming the sides ("Which is cheaper?",
    "哪个更便宜？" after a comparison of tea and coffee) asks it of the same sides: the part
    with the sides written in, and its comparison; else the part as it is, and None."""
    a, b = before.sides
    body = text.strip().rstrip("?？.。 ")
    if before.language == "zh":  # a Chinese part lent a side as its subject (咖啡哪个更便宜)
        for side in (a, b):
            body = body.removeprefix(side)
    again = f"{a}和{b}{body}？" if before.language == "zh" else f"{body}, {a} or {b}?"
    found = comparison(again)
    return (again, found) if found is not None else (text, None)


def _naming(queries: list[str], sides: tuple[str, ...]) -> list[str]:
    """A comparison's queries, each naming a side: a side's part its side ("How much
    caffeine does tea have?" is searched with "tea" in every query, though the measure
    leads its words), the comparison part one of them or both."""
    names = [_searched_name(side, side) for side in sides]
    words = {w.casefold() for name in names for w in WORD.findall(name)}
    named = [
        q
        if not words or words & {w.casefold() for w in WORD.findall(q)}
        else f"{' '.join(names)} {q}"
        for q in queries
    ]
    return list({q.casefold(): q for q in reversed(named)}.values())[::-1]


def _split_asks(question: str) -> tuple[list[tuple[str, str]], str]:
    """The question's asks, each with what it says in its own words ("" when the
    planner lent it nothing), and the report's language: by Korean's and Japanese's
    topic particles, Chinese rules, or the rules of spaced languages."""
    known = question_language(question)
    if known is not None and known.topic_particles:  # Korean, Japanese
        return [(text, "") for text in _split_sov(question, known)], "en"
    if is_cjk(question):
        return _split_zh(question), "zh"
    return [(text, "") for text in _split_en(question)], "en"


def _split_sov(question: str, known: Language) -> list[str]:
    """One part per ask of a question in a language that marks its topic with a particle
    and puts its verb last (Korean, Japanese; see :mod:`research.lang`).

    Its sentences are cut at question marks, then where a comma, a joiner word or a word
    with a clause ending (지어졌고) closes an ask (a piece that asks nothing is the lead-in
    of the ask after it); a later ask that does not say the question's topic is given
    it, with its particle (경복궁은 누가 지었나요?, 東京タワーは高さは何メートルですか？).
    """
    unspaced = spaceless(question)
    asks: list[str] = []
    for sentence in re.split(r"[?？]", question):
        sentence = sentence.strip(" 。.!！")
        if sentence:
            asks.extend(_sov_asks(_sov_pieces(sentence, known, unspaced), known, unspaced))
    topic, particle = topic_of(question, known)
    out = []
    for ask in asks:
        if topic and topic not in ask:
            ask = f"{topic}{particle}{'' if unspaced else ' '}{ask}"
        out.append(ask + ("？" if unspaced else "?"))
    return out or [question]


def _sov_pieces(sentence: str, known: Language, unspaced: bool) -> list[str]:
    """A sentence cut after its commas and its words with a clause ending, and around its
    joiner words (dropped)."""
    if unspaced:
        pieces = [p.strip() for p in re.split(r"[、，,]", sentence)]
        return [_without_joiner(p, known) for p in pieces if p]
    pieces, words_ = [], []
    for word in sentence.split():
        if word in known.joiners:
            pieces.append(" ".join(words_))
            words_ = []
            continue
        words_.append(word.rstrip(",，、"))
        if word[-1] in ",，、" or word.endswith(known.clause_endings):
            pieces.append(" ".join(words_))
            words_ = []
    pieces.append(" ".join(words_))
    return [p for p in pieces if p]


def _without_joiner(piece: str, known: Language) -> str:
    for joiner in known.joiners:
        if piece.startswith(joiner) and len(piece) > len(joiner):
            return piece[len(joiner) :].strip()
    return piece


def _sov_asks(pieces: list[str], known: Language, unspaced: bool) -> list[str]:
    """The asks among ``pieces``: each piece that holds a question word, with the pieces
    before it that hold none (its lead-in); pieces left over at the end go to the last
    ask."""
    glue = "、" if unspaced else " "
    asks: list[str] = []
    pending: list[str] = []
    for piece in pieces:
        pending.append(piece)
        if any(word in piece for word in known.question_words):
            asks.append(glue.join(pending))
            pending = []
    if pending:
        if asks:
            asks[-1] = glue.join([asks[-1], *pending])
        else:
            asks.append(glue.join(pending))
    return asks


def _names(text: str) -> bool:
    """Whether a clause names a thing: a capitalised word after its first, or a number;
    a Chinese clause, a subject of its own it opens with (:func:`_zh_named`)."""
    if is_cjk(text):
        return _zh_named(text)
    words = WORD.findall(text)
    return any(w[0].isupper() or w[0].isdigit() for w in words[1:])


#: A later part with at most this many content words of its own that does not name the
#: question's subject follows on from it ("…, and how did regulators respond?").
FOLLOW_UP_WORDS = 2


#: Words by which a later part says it follows on from what the question asked before
#: ("What happened to the Senate afterwards?", 之后…怎么样了): it asks about the
#: question's subject though it names a thing of its own.
_FOLLOWS_ON = re.compile(
    r"\b(?:afterwards?|after that|thereafter|subsequently|since then|in response|in turn"
    r"|as a result)\b|之后|此后|其后|后来|随后|然后|接着|结果",
    re.I,
)


def _carried(queries: list[str], text: str, question: str) -> list[str]:
    """A follow-up part's queries with one that names the question's subject: a short
    later part that does not name it asks about it ("What caused the crisis, and how did
    regulators respond?" searches "crisis regulators respond" too), and so does a part
    saying it follows on (:data:`_FOLLOWS_ON`), though its own words keep their own query
    first (a part that names its own thing is searched as it is)."""
    subject = named_phrase(question)
    if not subject or subject.lower() in text.lower() or not queries:
        return queries
    carried = f"{_searched_name(subject, question)} {queries[0]}"
    if owned_by_subject(text, question):
        return list(dict.fromkeys([carried, *queries]))[:MAX_QUERIES]
    short = len(own_terms(text, question)) <= FOLLOW_UP_WORDS and not _names(text)
    if not short and not _FOLLOWS_ON.search(text):
        return queries
    return list(dict.fromkeys([queries[0], carried, *queries[1:]]))[:MAX_QUERIES]


def _searched_name(subject: str, question: str) -> str:
    """A subject as a query names it: its words without the articles and prepositions of
    the question's language ("lago Valdera" for "el lago de Valdera")."""
    known = question_language(question)
    idle = known.function_words if known is not None else STOP_WORDS
    kept = [w for w in _VERSIONED.findall(subject) if w.casefold() not in idle]
    return " ".join(kept) or subject


def _written_as(plan: Plan, question: str) -> Plan:
    """``plan``, made for the Simplified form of ``question`` (the Chinese rules read
    Simplified characters), with its parts and queries written back in the characters of
    ``question`` as the user wrote it."""
    table = _writing(plan.question, question)

    def back(text: str) -> str:
        return "".join(table.get(ch, ch) for ch in text)

    subs = [
        SubQuestion(s.id, back(s.text), [back(q) for q in s.queries], own=back(s.own))
        for s in plan.subquestions
    ]
    return Plan(question, plan.language, subs)


def _writing(simple: str, written: str) -> dict[str, str]:
    """Each Simplified character of ``simple`` that ``written`` (the same text as written:
    Traditional Chinese, Japanese kanji) writes otherwise, with the character it writes;
    nothing unless the two are the same length, character for character, as OpenCC's
    t2s writes them."""
    if len(simple) != len(written):
        return {}
    return {s: o for s, o in zip(simple, written, strict=True) if s != o}


def _in_own_characters(queries: list[str], text: str, question: str) -> list[str]:
    """``queries`` written in the characters of the part ``text`` and of ``question``:
    a Chinese reading cuts a Japanese part in Simplified characters (东京 for 東京), which
    a search in Japanese does not find."""
    table = {**_writing(simplified(question), question), **_writing(simplified(text), text)}
    return ["".join(table.get(ch, ch) for ch in q) for q in queries]


def _bare(text: str, question: str) -> bool:
    """Whether a part is only a question word ("…, and why?", "…，为什么？", "…et
    pourquoi ?") of the language ``question`` is written in."""
    word = text.strip(" ?？!！.。,，¿")
    known = question_language(question)
    asks = known is not None and known.asks_with(word)
    return word.lower() in _QUESTION_WORDS or word in ZH_QUESTION_WORDS or asks


def keyword_queries(text: str, question: str, siblings: list[str] | None = None) -> list[str]:
    """2–3 short queries of key terms for one sub-question (never the whole question)."""
    if spaceless(text) and not is_cjk(text):  # Thai, Lao, Khmer: no word list cuts it
        return [text.strip(" ?？")]  # the search engine's own segmenter will
    focus = Focus.build(text, siblings or [text], question)
    idle = idle_terms(question)  # the question language's function words (何, いつ)
    surface = [
        w
        for w in _surface_words(text)
        if not idle.issuperset(t.casefold() for t in terms(w) or [w])
        and not claim_word(w)  # 真的: what asks whether a claim holds is not searched
    ]
    if is_cjk(text):
        queries = _in_own_characters(_zh_queries(question, focus, surface), text, question)
    else:
        queries = _en_queries(text, focus, surface)
    queries = _asking_now(queries, present_words(text))
    out = list(dict.fromkeys(q.strip() for q in queries if q.strip()))
    return out[:MAX_QUERIES] or [text]


def _asking_now(queries: list[str], present: list[str]) -> list[str]:
    """Each query with the words by which its part asks for the present ("latest", "this
    year", 目前) that it lacks: they are no facet of the part, yet a search for the
    latest figure must say so (see :mod:`research.present`)."""
    out = []
    for query in queries:
        missing = [
            w for w in present if not re.search(rf"(?<!\w){re.escape(w)}(?!\w)", query, re.I)
        ]
        out.append(" ".join([query, *missing]) if query.strip() else query)
    return out


def _zh_queries(question: str, focus: Focus, surface: list[str]) -> list[str]:
    """The queries of a Chinese part: the question's subject (or the part's core) with the
    part's rarest other words, the core with them, and the subject with the first of them.

    A part that does not name the question's subject (nor was lent it) asks about a
    subject of its own: its queries name its core only.

    Args:
        question: the whole question, whose subject the queries name.
        focus: the part's focus.
        surface: the part's content words as written.

    Returns:
        The queries, possibly blank or repeated (the caller drops those).
    """
    subject = entity(question)
    if subject and not _zh_mentions(focus.text, subject):
        subject = ""  # a question of its own (…？生活在北宋的那位词人写过哪些诗集？)
    core = focus.core[0] if focus.core else ""
    head = subject or core
    aspects = [w for w in surface if w not in head and w != core and stem(w) not in SCAFFOLD]
    if len(aspects) > QUERY_ASPECTS:  # the rarest words say most
        rarest = sorted(aspects, key=weight, reverse=True)[:QUERY_ASPECTS]
        aspects = [w for w in aspects if w in rarest]
    queries = [" ".join([subject or core, *aspects]).strip()]
    if core and subject and core != subject:
        queries.append(" ".join([core, *aspects]).strip())
    if aspects and subject:
        queries.append(" ".join([subject, aspects[0]]).strip())
    return queries


def _en_queries(text: str, focus: Focus, surface: list[str]) -> list[str]:
    """The queries of a part in a spaced language: its core (or whole subject) words with
    its facet words, and its whole subject with them; a part with no facets also gets its
    subject with the first scaffold verb it uses.

    Args:
        text: the part as written.
        focus: the part's focus.
        surface: the part's content words as written.

    Returns:
        The queries, possibly blank or repeated (the caller drops those).
    """
    facet_stems = {f.term for f in focus.facets}
    subject_stems = set(focus.subject)
    aspects = [w for w in surface if _stems(w) & facet_stems]
    subject_words = _numbered(text, surface, [w for w in surface if _stems(w) & subject_stems])
    core = [w for w in subject_words if _stems(w) & set(focus.core)]
    core_words = _numbered(text, surface, core)
    # the noun whose instances answer ("which *towns* lie on …") says what to look for
    kind = [w for w in surface if _stems(w) & focus.kinds and w not in subject_words]
    measure = _measure_noun(text) if focus.kind == "number" and not aspects else []
    queries = [" ".join([*(core_words or subject_words), *kind, *aspects, *measure])]
    queries.append(" ".join([*subject_words, *kind, *aspects]))
    if not focus.facets:  # the question's own wording: "heat pumps work"
        said = frames_blanked(text)  # "take place" asks when, and is no verb to search
        verbs = [w for w in re.findall(r"[A-Za-z][\w'’-]*", said) if stem(w.lower()) in SCAFFOLD]
        if verbs:
            queries.append(" ".join([*subject_words, *verbs[:1]]))
    return queries


def _numbered(text: str, surface: list[str], chosen: list[str]) -> list[str]:
    """``chosen`` words with the numbers or the capital letter written right after one of
    them in ``text`` (or after "and" after one), in ``surface`` order: they are part of the
    name ("Model 3", "iPhone 15", "vitamin D", "Python 3.11 and 3.12"; not the year of
    "Tokyo in 1900")."""
    out: list[str] = []
    for i, word in enumerate(surface):
        marks = bool(re.fullmatch(r"\d[\d.]*", word)) or (len(word) == 1 and word.isupper())
        before = surface[i - 1] if i else ""
        right_after = rf"(?<!\w){re.escape(before)}\s+(?:and\s+)?{re.escape(word)}(?!\w)"
        if word in chosen or (marks and before in out and re.search(right_after, text)):
            out.append(word)
    return out


#: The noun a page names the measure an English "how …" asks for by, when it names it:
#: "How long is the bridge?" is searched as "bridge length" (a page gives "the bridge is
#: 1.8 km long" or "a length of 1.8 km"; either way the part's words alone are its name).
_MEASURE_NOUN = {
    "long": "length",
    "tall": "height",
    "high": "height",
    "deep": "depth",
    "far": "distance",
    "wide": "width",
    "heavy": "weight",
    "old": "age",
}
_HOW_MEASURE = re.compile(rf"\bhow ({'|'.join(_MEASURE_NOUN)})\s+(?:is|are|was|were)\b", re.I)


def _measure_noun(text: str) -> list[str]:
    """The noun of the measure an English part asks "how long is …", "how tall was …"
    for (see :data:`_MEASURE_NOUN`), as a word to search with; none for any other part
    ("how long did it last" asks a span of time)."""
    found = _HOW_MEASURE.search(text)
    return [_MEASURE_NOUN[found.group(1).lower()]] if found else []


def _stems(word: str) -> set[str]:
    """The stems a word as written stands for: its own, and its parts' when hyphenated
    ("cast-iron": cast, iron), as a part's terms cut it."""
    low = word.lower()
    return {stem(low)} | {stem(p) for p in re.split(r"[-‐–]", low) if p}


#: What follows a number in a Chinese date ("2024年", "3月", "20世纪").
_ZH_DATE_UNITS = frozenset(["年", "月", "日", "世纪", "年代"])


def _dated(cut: list[str], i: int) -> bool:
    """Whether word ``i`` of ``cut`` is the unit of the date before it (年 in 2024年)."""
    return i > 0 and cut[i - 1].isdigit() and cut[i] in _ZH_DATE_UNITS


#: A Chinese measure word after a word that asks how many or points (几颗, 这座, 每个):
#: it says nothing a page must say.
_ZH_POINTED_COUNT = re.compile(rf"[几这那每哪][{ZH_COUNTER_CLASS}]")


def _surface_words(text: str) -> list[str]:
    """The content words of ``text`` as written (hyphenated names kept whole)."""
    if is_cjk(text):
        from research.text import words

        cut = words(text)
        out = []
        for i, w in enumerate(cut):
            if w.isdigit() and i + 1 < len(cut) and cut[i + 1] in _ZH_DATE_UNITS:
                out.append(w + cut[i + 1])  # a date keeps its number: "2024年"
            elif CJK.match(w) and w not in STOP_WORDS and not _dated(cut, i) and w[0] != "哪":
                # a word opening with 哪 asks (哪一年, 哪位, 哪座): no page says it
                out.append(uncounted(cut[i - 1], w) if i else w)  # 多少颗卫星: 卫星
        return [w for w in out if w and not _ZH_POINTED_COUNT.fullmatch(w)]
    out = []
    for raw in _VERSIONED.findall(text):  # letters of any script: "Über", "мост"; "3.11"
        word = re.sub(r"['’]s$", "", raw)
        low = word.lower()
        if low in STOP_WORDS or low in _AUX or low in _QUESTION_WORDS:
            continue
        if stem(low) in SCAFFOLD:
            continue
        out.append(stem(word) if is_hangul(word) else word)  # 경복궁은 → 경복궁
    return list(dict.fromkeys(out))


#: A word as :data:`WORD` reads it, or a number with decimals or a version ("3.11",
#: "2.4.1"), read whole.
_VERSIONED = regex.compile(rf"\d+(?:\.\d+)+(?![\d.])|{WORD.pattern}")


#: What opens a question inside a longer one: a question word, with the preposition that
#: may stand before it ("since when", "in which year", "by whom").
_OPENER = (
    r"(?:(?:since|until|in|on|at|by|for|from|to|with|of|and|but|or)\s+)?"
    rf"(?:{'|'.join(longest_first(sorted(QUESTION_WORDS)))})\b"
)


#: A request that asks as a question does ("Name one cause of …", "List the …").
_IMPERATIVE = r"(?:" + "|".join(sorted(IMPERATIVES)) + r")\s"


#: The marks a question (or a clause of one) ends with: the question mark, the Arabic one,
#: the Greek one (U+037E) and the semicolon it is canonically the same as.
_QUESTION_MARKS = "?؟\u037e;"


def _split_en(question: str) -> list[str]:
    """One clause per thing asked: questions in a row, a list of questions after a colon
    ("Lithium-ion batteries: who invented them, when …, and why …?"), clauses joined by
    a comma or "and" before a question word, and verb phrases joined by "and".

    A clause whose sentence opens with what it says of a subject it names ("Coastal
    towns are known to be small, and what else are they known for?") is about that
    subject: its pronouns are its own, not the question's subject. After a yes/no check
    of a claim, the pronoun a verb of saying takes stands for the claim ("Is it true that
    the Great Wall is visible from space, and who first claimed it?": who first claimed
    that the Great Wall is visible from space)."""
    lead, rest = lead_subject(question)
    body = rest.strip().rstrip(f".! {_QUESTION_MARKS}")
    opener, joiner = _opener_of(question)
    pieces: list[tuple[str, bool]] = []  # each with whether it opens its sentence
    for sentence in re.split(rf"[{_QUESTION_MARKS}]\s*", body):
        cut = _shared_asks(_cut_sentence(sentence, opener, joiner, question), opener)
        cut = _trailing_asks(cut, opener, question_language(question) is None)
        cut = _superlatives_of_counted(cut)
        cut = _lent_lead(cut, opener) if spaceless(sentence) else cut
        pieces.extend((piece, i == 0) for i, piece in enumerate(cut))
    clauses = _en_clauses(question, body, pieces)
    if not clauses:
        return [question]
    subject, owned, known = _pointed_at(question, lead)
    first = _lead(clauses[0][0])
    out = []
    claim = ""  # the claim a clause before checks, if one does
    maps = _pronoun_maps([c for c, _ in clauses], subject, known)
    mark = _closing_mark(question)
    heads = _owned_by_clause([c for c, _ in clauses], subject, owned, known)
    for (clause, led), pronouns, owned in zip(clauses, maps, heads, strict=True):
        named = led and entity(clause)  # "Coastal towns are …, what else are they …"
        if known is not None and subject and not named:
            clause = _clitic_subject(_inverted_subject(clause, subject, known), subject, known)
        clause, claim = _claim_named(clause, claim), claim_said(clause) or claim
        # the "it" of "is it true that …" stands for nothing
        opening = CLAIM_OPENING.match(clause)
        head = clause[: opening.end()] if opening else ""
        said = "" if named else subject
        text = head + _with_subject(clause[len(head) :], said, first, pronouns, owned)
        if known is not None and known.pro_drop and subject and not named:
            text = _unsaid_subject(text, subject, known)
        out.append(_opened(text, known) + mark)
    return out


def _opened(text: str, known: Language | None) -> str:
    """A part with its first letter a capital, as the question's language writes it."""
    return known.capitalised(text) if known is not None else text[0].upper() + text[1:]


def _lent_lead(parts: list[str], opener: str) -> list[str]:
    """The pieces of one sentence written without spaces between words (Thai), whose
    subject cannot be told from its words: each later piece that does not hold it opened
    with what the first says before its question word ("หอคอยออร์วัลด์เปิด" of
    "…เปิดเมื่อใด และใคร…"), the only words that can stand for what it asks
    about."""
    found = re.search(opener, parts[0], re.I) if parts else None
    lead = parts[0][: found.start()].strip() if found else ""
    if not lead:
        return parts
    return parts[:1] + [p if lead in p else f"{lead} {p}" for p in parts[1:]]


def _owned_by_clause(
    clauses: list[str], subject: str, owned: str, known: Language | None
) -> list[str]:
    """What a pronoun other than a possessive stands for in each clause, where it is not
    the question's subject: the phrase a possessive subject heads (``owned``), or in
    English the things the clause before asks a count or a choice of, owned by the
    subject ("How many bridges does Altdorf have, and when were they built?": they are
    Altdorf's bridges; see :func:`research.owners.things_asked`)."""
    out = [owned]
    for before in clauses[:-1]:
        things = things_asked(before, subject) if known is None and subject else ""
        out.append(f"{possessive(subject)} {things}" if things else owned)
    return out


def _cut_sentence(sentence: str, opener: str, joiner: str, question: str) -> list[str]:
    """One sentence of a question cut into pieces: after a colon before a question word,
    at a comma or a joiner before one, and before a request; kept whole when its first
    piece asks with no question word known (:func:`_unknown_opening`). In a script
    written without spaces between words (Thai), a joiner may stand against the question
    word after it ("…เมื่อใด และใคร…")."""
    gap = r"\s*" if spaceless(sentence) else r"\s+"
    cut = re.split(
        rf":\s*(?={opener})|,\s*(?:(?:{joiner}|or)\s+)?(?={opener})"
        rf"|{gap}{joiner}{gap}(?={opener})|(?:\.|,\s*and)\s+(?={_IMPERATIVE})",
        sentence,
        flags=re.I,
    )
    known = question_language(question)
    if known is not None and known.asks_late:
        cut = [piece for part in cut for piece in _late_asks(part, opener, joiner)]
    return [sentence] if len(cut) > 1 and _unknown_opening(cut[0], opener, question) else cut


def _late_asks(sentence: str, opener: str, joiner: str) -> list[str]:
    """A sentence of a language whose question word stands late in its clause (see
    :attr:`research.lang.Language.asks_late`) cut at each joiner with a question word on
    either side of it ("Valdora limanı ne zaman kuruldu | ilk müdürü kimdi?"); a joiner
    inside one ask (two things it asks of) cuts nothing."""
    asks = re.compile(rf"(?<!\w){opener}", re.I)
    pieces: list[str] = []
    start = 0
    for found in re.finditer(rf"\s+{joiner}\s+", sentence, re.I):
        before, after = sentence[start : found.start()], sentence[found.end() :]
        if asks.search(before) and asks.search(after):
            pieces.append(before)
            start = found.end()
    return [*pieces, sentence[start:]]


def _closing_mark(question: str) -> str:
    """The mark each part closes with: the question's own (؟ in Arabic script, ; in
    Greek), else "?"."""
    closing = question.rstrip()[-1:]
    return closing if closing and closing in _QUESTION_MARKS else "?"


def _unknown_opening(first: str, opener: str, question: str) -> bool:
    """Whether the first piece of a sentence asks with no question word the question's
    language is known to have, where its words were read from a treebank that may lack
    some (:attr:`research.lang.Language.complete`): its question word is then likely one
    not read, and the sentence is one ask or a cut that cannot be told."""
    known = question_language(question)
    return known is not None and not known.complete and not re.search(opener, first, re.I)


def _pointed_at(question: str, lead: str) -> tuple[str, str, Language | None]:
    """What a later clause's pronoun may stand for, and the question's language.

    Args:
        question: the whole question.
        lead: the subject a lead names before a colon ("" for none).

    Returns:
        The question's subject as a later clause names it (:func:`_as_written`), the
        phrase it heads when it is written as a possessive ("Port Aldane's harbour"; see
        :func:`research.owners.owned_phrase`), and the question's language with data
        (None for English).
    """
    subject = _as_written(lead or named_phrase(question), question)
    return subject, owned_phrase(subject, question), question_language(question)


def _pronoun_maps(clauses: list[str], subject: str, known: Language | None) -> list[dict[str, str]]:
    """For each clause, the pronouns that stand for the question's subject, each with
    what a possessive adds.

    Args:
        clauses: the question's clauses.
        subject: the question's subject.
        known: the question's language with data (None for English).

    Returns:
        The pronouns of the question's language with data; else English's, with "his"
        and "her" for a person's own when the subject names something (not "This") and
        no clause before asks who someone not named is ("Who founded the mill, and what
        was his trade?" asks the founder's).
    """
    if known is not None:
        return [_PRONOUNS | {p: "" for p in known.pronouns} for _ in clauses]
    named = any(w.lower() not in STOP_WORDS for w in WORD.findall(subject))
    return [_PRONOUNS | _PERSONS if named and not who else _PRONOUNS for who in after_who(clauses)]


#: Verbs whose object, in a clause after a check of a claim, is the claim: "who first
#: *claimed* it", "why do people *believe* it", "who *said* so".
_SAYING_TEXT = (
    "claim say believe think suggest prove disprove debunk show start spread state find "
    "test confirm deny"
)
_SAYING = frozenset(stem(w) for w in _SAYING_TEXT.split())
#: The pronoun a verb of saying takes for a claim ("that" only where it ends the clause:
#: "who showed *that* it was false" opens a clause of its own).
_CLAIM_PRONOUN = re.compile(r"\b([A-Za-z]+)\s+(it|this|so|that(?=\W*$))\b", re.I)


def _claim_named(clause: str, claim: str) -> str:
    """A clause after a check of ``claim`` with the pronoun a verb of saying or believing
    takes for the claim replaced by it ("who first claimed it" → "who first claimed that
    the Great Wall is visible from space"); the clause as it is when there is no claim
    or no such pronoun."""
    for match in _CLAIM_PRONOUN.finditer(clause) if claim else ():
        if stem(match.group(1).lower()) in _SAYING:
            return f"{clause[: match.start(2)]}that {claim}{clause[match.end(2) :]}"
    return clause


def _opener_of(question: str) -> tuple[str, str]:
    """The regular expressions for what opens an ask and what joins two asks in
    ``question``: English's (:data:`_OPENER`; "and", "but"), or, for a question in a
    language with data (:mod:`research.lang`), its question words and joiners too."""
    return _opener_in(question, asked_language())


@lru_cache(maxsize=256)
def _opener_in(question: str, asked: str) -> tuple[str, str]:
    """:func:`_opener_of` of ``question`` read in the language ``asked``."""
    known = question_language(question)
    if known is None or not known.question_words:
        return _OPENER, "(?:and|but)"
    joiners = "|".join(sorted(re.escape(w) for w in known.joiners | {"and", "but"}))
    # a question word in a script written without spaces stands against the next word
    own = known.question_word if spaceless(question) else known.opener
    return rf"(?:{_OPENER}|{own})", rf"(?:{joiners})"


def _shared_asks(pieces: list[str], opener: str = _OPENER) -> list[str]:
    """Pieces that are only a question word asking what the next piece asks ("When" and
    "by whom was the mill rebuilt" from "When and by whom was the mill rebuilt"), each
    completed with the rest of that piece: "When was the mill rebuilt"."""
    out = list(pieces)
    for i in range(len(out) - 2, -1, -1):
        if not re.fullmatch(rf"\s*{opener}\s*,?\s*", out[i], re.I):
            continue
        rest = re.match(rf"\s*(?:and\s+|or\s+)?{opener}\s+(?P<rest>\S.*)", out[i + 1], re.I)
        if rest:
            out[i] = f"{out[i].strip(' ,')} {rest.group('rest')}"
    return out


def _trailing_asks(pieces: list[str], opener: str, english: bool) -> list[str]:
    """Pieces that are only a question word after an ask ("Who built the mill, and
    when?"), each asking it of what the piece before asks (:func:`_asked_again`); left
    as they are when that cannot be said."""
    out = list(pieces)
    for i in range(1, len(out)):
        bare = re.fullmatch(rf"\s*(?:(?:and|or)\s+)?({opener})\s*", out[i], re.I)
        before = re.match(rf"[\s¿¡]*{opener}\s+(?P<rest>\S.*)", out[i - 1], re.I)
        if bare and before:
            out[i] = _asked_again(bare.group(1), before.group("rest"), english) or out[i]
    return out


#: "…, and which is the largest?": a superlative asked with no noun after it.
_ELIDED_SUPERLATIVE = re.compile(
    r"(?P<head>(?:(?:and|but)\s+)?(?:which|what)(?:\s+one)?\s+(?:is|was|are|were)\s+the)\s+"
    r"(?P<adj>(?:most|least)\s+\w+|best|worst|\w+est)",
    re.I,
)
#: A count of what a subject has ("how many moons does Jupiter have"), and a count of
#: what does something ("how many bridges cross the river").
_COUNTED_OWNED = re.compile(
    r"how\s+many\s+(?P<noun>\w+)\s+(?:does|do|did)\s+(?P<owner>.+?)\s+(?:have|has|had|own)",
    re.I,
)
_COUNTED_DOING = re.compile(
    r"how\s+many\s+(?P<noun>\w+)\s+(?P<rest>(?!(?:does|do|did|is|are|was|were)\b)\w+.*)",
    re.I,
)


def _superlatives_of_counted(pieces: list[str]) -> list[str]:
    """Pieces that ask for a superlative with no noun after a piece that counts ("How many
    moons does Jupiter have, and which is the largest?"), each asking it of what that
    piece counts: "which is the largest of Jupiter's moons", "which is the oldest of the
    bridges that cross the river"."""
    out = list(pieces)
    for i in range(1, len(out)):
        elided = _ELIDED_SUPERLATIVE.fullmatch(out[i].strip())
        if elided is None:
            continue
        head, adj = elided.group("head"), elided.group("adj")
        if owned := _COUNTED_OWNED.fullmatch(out[i - 1].strip()):
            out[i] = f"{head} {adj} of {owned.group('owner')}'s {owned.group('noun')}"
        elif doing := _COUNTED_DOING.fullmatch(out[i - 1].strip()):
            out[i] = f"{head} {adj} of the {doing.group('noun')} that {doing.group('rest')}"
    return out


def _asked_again(word: str, rest: str, english: bool) -> str:
    """The question word ``word`` asked of ``rest``, what an ask says after its own
    question word: in English, after an auxiliary as it stands ("did Ana marry" → "When
    did Ana marry"), after a verb in the past of its object in the passive ("built the
    mill" → "When was the mill built"), else ``""``; in another language, the question
    word before ``rest`` ("построил мост" → "Когда построил мост")."""
    if not english:
        return f"{word} {rest}"
    first, _, after = rest.partition(" ")
    low = first.lower()
    if low in _AUX:
        return f"{word} {rest}"
    lemmas = all_lemmas(low).get("VERB") or ()
    if not lemmas or not after or not verb_form(low) & PAST:
        return ""
    from lemminflect import getInflection  # its tables load only for such a question

    participle = (getInflection(lemmas[0], "VBN") or (low,))[0]
    return f"{word} was {after} {participle}"


def _en_clauses(question: str, body: str, pieces: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """The clauses that ask, from the pieces the question was cut into.

    A piece that asks nothing (:func:`_asking`) is a lead-in to the next clause that
    asks when it opens a sentence (a sentence after a question mark belongs to the next
    part), when no clause came before it or when another lead-in is pending; otherwise
    it says more of the clause before ("…, in 1990, …"). Each clause that asks is further
    cut into its asks (:func:`_asks_of`).

    Args:
        question: the whole question.
        body: the question without its lead subject and closing marks.
        pieces: the pieces ``body`` was cut into, each with whether it opens its
            sentence.

    Returns:
        The clauses, in order, each with whether it opens with a lead-in of content words
        ("Coastal towns in the region are known to be small, what else …"); a lead-in
        left over at the end is a clause of its own.
    """
    clauses: list[tuple[str, bool]] = []
    pending = ""  # a lead-in that asks nothing ("According to a 1962 audit, what …")
    parts = [(raw.strip(" ,:¿"), opens) for raw, opens in pieces]
    for (part, opens), asks in zip(parts, _asking(parts, body, question), strict=True):
        if not part:
            continue
        if not asks:
            if clauses and not pending and not opens:
                clauses[-1] = (f"{clauses[-1][0]}, {part}", clauses[-1][1])
            else:
                pending = f"{pending}, {part}" if pending else part
            continue
        said = _asks_of(f"{pending}, {part}" if pending else part)
        led = _content_count(pending) > 0
        clauses.extend((c, led and not j) for j, c in enumerate(said))
        pending = ""
    if pending:
        clauses.append((pending, False))
    return clauses


def _asks_of(clause: str) -> list[str]:
    """The asks of one clause: its verb phrases (:func:`_split_and`), each cut into the
    things it asks of one owner (:func:`research.owners.split_owned`); a comparison is
    read first and kept whole ("What is the difference between baking soda and baking
    powder?" is not cut at "and"), since its parts are the sides it compares."""
    if comparison(clause) is not None:
        return [clause]
    return [ask for phrase in _split_and(clause) for ask in split_owned(phrase)]


def _asking(parts: list[tuple[str, bool]], body: str, question: str) -> list[bool]:
    """Whether each piece of a question asks something.

    A piece asks when it holds a question word or a request (:func:`_en_asks`) or ends
    on "what"; a yes/no question opening its sentence asks on its own when the piece
    after it asks in words of its own ("Is it true that the Great Wall is visible from
    space, and who first claimed it?"), not when that one only asks a question word of
    it ("Is the mill still used, and by whom?" asks once).

    Args:
        parts: the pieces, stripped, each with whether it opens its sentence.
        body: the question without its lead subject and closing marks.
        question: the whole question.

    Returns:
        One flag per piece.
    """
    whole = _whole_questions(body)
    asks = [
        bool(part) and (_en_asks(part, whole, question) or part.rstrip().endswith("what"))
        for part, _ in parts
    ]
    for i, (part, opens) in enumerate(parts[:-1]):
        follows = asks[i + 1] and bool(own_terms(parts[i + 1][0], question))
        asks[i] = asks[i] or (opens and follows and checks_whether(part))
    return asks


def _whole_questions(body: str) -> set[str]:
    """The questions of their own in a row of questions, in any language ("Wer …? Wo …?").

    Args:
        body: the question without its lead subject and closing marks.

    Returns:
        Each piece between question marks of at least three words (or, unspaced, eight
        characters), stripped of the marks around it.
    """
    return {
        q.strip(" ,:¿")
        for q in re.split(rf"[{_QUESTION_MARKS}]\s*", body)
        if len(q.split()) >= 3 or (spaceless(q) and len(q) >= 8)
    }


def _en_asks(part: str, whole: set[str], question: str) -> bool:
    """Whether a piece of a question asks something.

    Args:
        part: the piece.
        whole: the questions of their own in the question (:func:`_whole_questions`).
        question: the whole question.

    Returns:
        True when the piece holds a question word, opens with a request, or is one of
        the questions of their own of a question written with a question mark.
    """
    return bool(
        re.search(_opener_of(question)[0], part, re.I)
        or re.match(_IMPERATIVE, part, re.I)
        or (part in whole and bool(re.search(f"[{_QUESTION_MARKS}]", question)))
    )


def _content_count(text: str) -> int:
    return sum(1 for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in STOP_WORDS)


def _split_and(clause: str) -> list[str]:
    """Split "X built and kept powered by steam" where both sides say something."""
    pieces = re.split(r"\s+and\s+", clause)
    if len(pieces) < 2:
        return [clause]
    out = [pieces[0]]
    for piece in pieces[1:]:
        head = re.match(r"[A-Za-z]+", piece)
        verbish = head is not None and (
            is_verb_form(head.group(0)) or head.group(0).lower() in _AUX
        )
        if verbish and _content_count(piece) >= 2 and _content_count(out[-1]) >= 2:
            out.append(piece)
        else:
            out[-1] = f"{out[-1]} and {piece}"
    return out


def _lead(first: str) -> str:
    """The question word and auxiliary that open the first clause ("How was")."""
    words = first.split()
    if len(words) >= 2 and words[0].lower() in _QUESTION_WORDS and words[1].lower() in _AUX:
        return f"{words[0]} {words[1]}"
    if words and words[0].lower() in _QUESTION_WORDS:
        return words[0]
    return ""


def _as_written(subject: str, question: str) -> str:
    """The question's subject as a later clause names it: with the article the question
    gives it ("the Orvald Bridge"), which stands inside a clause in lower case ("The Belis
    Tower: when was it built" → "When was the Belis Tower built")."""
    bare = re.sub(r"^the\s+", "", subject, flags=re.I)
    if bare != subject:
        return f"the {bare}"
    for found in re.finditer(rf"\bthe\s+{re.escape(bare)}\b\W*(\w*)", question, re.I):
        # "the Orvald Bridge built", "the Orvald Bridge first …", "the Orvald Bridge?",
        # "the Orvald Bridge's": the article is the subject's; in "the Harsk company" (a
        # word that is only a noun goes on) it is the longer name's
        if possessor(bare) != bare or set(all_lemmas(found.group(1).lower())) != {"NOUN"}:
            return f"the {bare}"
    return subject


def _with_subject(
    clause: str,
    subject: str,
    lead: str,
    pronouns: Mapping[str, str] = _PRONOUNS,
    owned: str = "",
) -> str:
    """``clause`` naming its subject: a pronoun standing for it replaced ("when did *it*
    go public" → "when did Tesla go public"; ``pronouns`` gives each with what a
    possessive adds), a bare verb phrase completed ("kept powered by steam" → "How was X
    kept powered by steam"). A clause that names a subject of its own is left as it
    is. After a subject written as a possessive, a possessive pronoun stands for the
    owner and any other for ``owned``, the phrase the possessive heads ("what are *its*
    exports": the company's; "how deep is *it*": Port Aldane's harbour; see
    :func:`research.owners.standing_for`)."""
    if not subject:
        return clause
    words = clause.split()
    out = []
    replaced = False
    for i, word in enumerate(words):
        low = word.lower().strip(",")
        if (
            low in pronouns
            and not replaced
            and subject.lower() not in clause.lower()
            and possessive_used(low, words[i + 1 :])
            and not EXPLETIVE.match(" ".join(words[i:]))
        ):
            out.append(standing_for(low, pronouns[low], subject, owned))
            replaced = True
        else:
            out.append(word)
    text = " ".join(out)
    asks = re.search(rf"\b{_OPENER}", clause, re.I) is not None  # "In 1990, what …"
    if not replaced and not asks and lead and subject.lower() not in text.lower():
        head = re.match(r"[A-Za-z]+", clause)
        if head and (is_verb_form(head.group(0)) or head.group(0).lower() in _AUX):
            text = f"{lead} {subject} {text}"
    return text


def _inverted_subject(clause: str, subject: str, known: Language) -> str:
    """An ask whose subject pronoun follows its verb, attached to it (``inverted``:
    "combien mesure-t-il"), naming the question's subject there instead ("combien mesure
    le pont de Millau"), when it does not name it already."""
    if subject.casefold() in clause.casefold() or not known.pronouns or not known.inverted:
        return clause
    marks = "|".join(re.escape(m) for m in known.inverted)
    pronouns = "|".join(re.escape(p) for p in longest_first(known.pronouns))
    attached = re.compile(rf"(?<=\w)(?:{marks})(?:{pronouns})(?![\w-])", re.I)
    return attached.sub(f" {subject}", clause, count=1)


def _clitic_subject(clause: str, subject: str, known: Language) -> str:
    """An ask whose object pronoun, written before its verb right after the question
    word (``clitics``: "quién *lo* diseñó", "qui *l'*a conçu", "cine *l-*a proiectat"),
    stands for the question's subject, naming it there instead, when it does not name
    it already; in a language that may leave its subject unsaid the pronoun is dropped
    and the subject named after the verb (:func:`_unsaid_subject`: "quién diseñó el
    puente de Alcubilla")."""
    if not known.clitics or subject.casefold() in clause.casefold():
        return clause
    asked = re.match(rf"\s*{known.opener}\s+", clause, re.I)
    pronoun = asked and re.match(r"([^\W\d_]+)(['’-]|\s+)", clause[asked.end() :])
    if not pronoun or pronoun.group(1).casefold() not in known.clitics:
        return clause
    said = "" if known.pro_drop else f"{subject} "
    return clause[: asked.end()] + said + clause[asked.end() + pronoun.end() :]


def _unsaid_subject(clause: str, subject: str, known: Language) -> str:
    """An ask of a language that may leave its subject unsaid (``pro_drop``), naming the
    question's subject after its verb when it says none of its own ("¿cuánto mide?" →
    "cuánto mide el puente de Alcántara"): no name after its first word, no article but
    after a preposition ("cómo afecta *a la* agricultura" asks of an object; "qué hizo
    *el* gobierno" has its own subject) and no possessive ("quién es *su* presidente"
    asks of the president)."""
    if subject.casefold() in clause.casefold():
        return clause
    asked = re.match(rf"\s*{known.opener}\s*", clause, re.I)
    if asked is None:
        return clause
    found = list(WORD.finditer(clause, asked.end()))
    lows = [m.group(0).casefold() for m in found]
    for k, match in enumerate(found):
        after = k > 0 and lows[k - 1] in known.prepositions
        owner = lows[k] in known.possessives
        if match.group(0)[0].isupper() or owner or (lows[k] in known.articles and not after):
            return clause
    if not found:
        return clause
    verb = found[0].end()
    return f"{clause[:verb]} {subject}{clause[verb:]}"


_ZH_SPLIT = re.compile(r"[？?！!；;。]")


#: Conjunctions that join two verb phrases of one question ("如何建造*并*保持开放").
_ZH_AND = frozenset(["并", "并且", "而且", "以及", "同时"])
#: The characters a Chinese negation opens with (不是, 没有, 非, 未曾, 无法).
_ZH_NEGATIONS = frozenset("不没非未无")


def _zh_verb_phrases(clause: str) -> list[tuple[str, bool]]:
    """A clause cut where a conjunction joins two verb phrases (jieba's words, so that
    合并 is not cut at 并). 并 before a negation stresses it and joins nothing (石桥*并*不是
    最常走的路线), and so does one after words that ask nothing yet (如果两块石板相叠*并*
    压紧，…) or inside a preposition's phrase (与哪些茶*同时*饮用).

    A later phrase that asks nothing shares what the first says before its verb: its
    setting, subject and question word (青石镇何时停电*并*全部被大雪覆盖 gives 青石镇何时全部
    被大雪覆盖). Each phrase comes with whether it was given that head."""
    out, current = [], ""
    tagged = zh_tagged(clause)
    for i, pair in enumerate(tagged):
        after = "".join(p.word for p in tagged[i + 1 :])
        stress = pair.word == "并" and after[:1] in _ZH_NEGATIONS
        if (
            pair.word in _ZH_AND
            and current
            # a phrase that asks nothing before it joins verbs of a setting (如果两块石板
            # 相叠*并*压紧，…称为什么), not two questions
            and _zh_asks("".join(out) + current)
            and not _open_frame(tagged[:i])
            and len(CJK.findall(after)) >= 2
            and not stress
        ):
            out.append(current)
            current = ""
        else:
            current += pair.word
    phrases = [p for p in [*out, current] if p]
    asked = ZH_ASKS.search(phrases[0]) if phrases else None
    head = phrases[0][: asked.end()] if asked and asked.end() < len(phrases[0]) else ""
    return [
        (f"{head}{p}", True) if j and head and not _zh_asks(p) else (p, False)
        for j, p in enumerate(phrases)
    ]


def _open_frame(tagged: list[Any]) -> bool:
    """Whether the words end inside a preposition's phrase: a preposition with no verb
    after it (…与哪些茶), which the next word closes (同时饮用)."""
    flags = [p.flag for p in tagged]
    opened = max((i for i, f in enumerate(flags) if f == "p"), default=-1)
    return opened >= 0 and not any(f.startswith("v") for f in flags[opened + 1 :])


#: A Chinese clause that stops where its answer would be (…的首都是？, …意为，) asks it.
_ZH_BLANK = re.compile(r"(?:是|为|叫|叫做|称为|指)\s*[？?]?\s*$")


def _zh_asks(text: str) -> bool:
    """Whether a Chinese clause asks something: a question word, 吗, or a blank where the
    answer goes (石溪镇的旧称是)."""
    return ZH_ASKS.search(text) is not None or _ZH_BLANK.search(text) is not None


def _zh_mentions(text: str, subject: str) -> bool:
    """Whether a Chinese clause names the subject, whole or by one of its nouns
    (石溪 for 石溪茶农)."""
    nouns = [p.word for p in zh_tagged(subject) if len(p.word) >= 2]
    return subject in text or any(n in text for n in nouns)


def _zh_named(clause: str) -> bool:
    """Whether a Chinese clause opens with a subject of its own (a noun before its verb
    or question word: "1821年的第一次洪水淹没了哪些村庄" does, "何时开始商用" does not;
    nor does a word of two characters or more before 是 that the word list tags
    otherwise, as names often are: "微软是谁创立的" does; one saying what its noun is
    about does: "关于白沙湖的研究发现了什么")."""
    if zh_about(clause):  # 关于白沙湖的研究…: what it is about, whatever its words
        return True
    before: list[Any] = []
    for pair in zh_tagged(clause):
        if pair.word == "是" and any(_ZH_NAMING.match(p.flag) for p in before):
            return True
        if pair.flag.startswith(("v", "r")) or pair.word in ZH_QUESTION_WORDS:
            return False
        if pair.flag.startswith(("n", "eng")):
            return True
        if len(pair.word) >= 2:
            before.append(pair)
    return False


#: The word list's tags a name before 是 may carry besides a noun's: an adjective
#: (微软), an abbreviation, an idiom or a fixed phrase.
_ZH_NAMING = re.compile(r"^(?:a|j|i|l)$")


#: Content words of its own (see :func:`research.question.zh_content`) that make a
#: Chinese clause asked on its own a whole question, not a follow-up on the subject
#: another names (为什么修建 says one).
ZH_OWN_CONTENT = 2


def _zh_own(clause: str) -> bool:
    """Whether a Chinese clause asked on its own (not listed after another of its
    sentence) is a question of its own: it opens with a subject (:func:`_zh_named`), or
    says at least :data:`ZH_OWN_CONTENT` content words of its own, a noun among them
    (生活在北宋的那位词人写过哪些诗集 is, 为什么修建 and 每年有多少游客 are not)."""
    if _zh_named(clause):
        return True
    nouns, others = zh_content(clause)
    return bool(nouns) and len({*nouns, *others}) >= ZH_OWN_CONTENT


_ZH_LIST = re.compile(r"([、，,：:])")


def _split_zh(question: str) -> list[tuple[str, str]]:
    """One clause per thing asked: questions in a row (…？…？), a list of questions after a
    colon or joined by 、 or ，, each piece that asks something ("谁发明的、何时开始商用、
    为什么会衰减"), verb phrases joined by 并/而且/以及/同时, and two things of one owner
    (X的A及其B: :func:`research.owners.zh_split_owned`).

    A clause that names no subject before it asks and says too little to be a question
    of its own (为什么衰落; see :func:`_zh_own`) is given the question's, and so is one
    listed after another of its sentence (…位于哪里、海拔多少米); each clause comes with its
    own words when it was so given but not listed (see :attr:`SubQuestion.own`)."""
    lead, rest = lead_subject(question)
    pieces: list[tuple[str, bool]] = []
    for sentence in (p.strip() for p in _ZH_SPLIT.split(rest) if p.strip()):
        pieces.extend(_zh_sentence_pieces(sentence))
    # A piece listed after the first of its sentence ("富士山位于哪里、海拔多少米") shares
    # that sentence's subject; a sentence of its own may name another.
    clauses: list[tuple[str, bool]] = []
    for part, listed in pieces:
        phrases = [
            (ask, head) for phrase, head in _zh_verb_phrases(part) for ask in zh_split_owned(phrase)
        ]
        clauses.extend((c, listed or (j > 0 and not head)) for j, (c, head) in enumerate(phrases))
    clauses = _zh_trailing_asks(clauses)
    subject = lead or entity(question)
    if not lead and not telling(subject):
        subject = ""  # a common word (条件, 情况) is nothing to give the other pieces
    first = _zh_first(clauses, subject)
    person = _zh_clause_subject(clauses[0][0]) if clauses else ""
    return [
        _zh_with_subject(clause, listed, subject, first, person or subject)
        for clause, listed in clauses
    ]


#: Chinese question words that stand before a verb and ask when, why or how of it.
_ZH_ADVERBIAL = (
    "什么时候",
    "为什么",
    "为何",
    "如何",
    "怎么样",
    "怎样",
    "怎么",
    "何时",
    "哪一年",
    "哪年",
)


#: The question word of a Chinese clause a bare one after it is asked of (see
#: :func:`_zh_asked_again`): one of :data:`_ZH_ADVERBIAL`, with the 是 of a 是…的 frame
#: before it, or 谁 in that frame.
_ZH_ASKED_BEFORE = re.compile(rf"(?P<shi>是)?(?:{'|'.join(_ZH_ADVERBIAL)})|(?P<who>是谁)")


def _zh_trailing_asks(clauses: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    """Clauses that are only a question word asking when, why or how after another
    (柏林墙是什么时候倒塌的，为什么？), each asking it of what the clause before asks
    (:func:`_zh_asked_again`); left as they are when that cannot be said."""
    out = list(clauses)
    for i in range(1, len(out)):
        word = out[i][0].strip(" ？?，,")
        if word in _ZH_ADVERBIAL and (again := _zh_asked_again(word, out[i - 1][0])):
            out[i] = (again, out[i][1])
        elif superlative := _zh_superlative_of_counted(word, out[i - 1][0]):
            out[i] = (superlative, out[i][1])
    return out


_COUNTER = f"[{ZH_COUNTER_CLASS}]"
#: "最大的是哪颗": a superlative asked with no noun.
_ZH_ELIDED_SUPERLATIVE = re.compile(
    rf"(?P<adj>最[^的，,]{{1,3}})的是(?P<asks>哪一?{_COUNTER}|什么)"
)
#: "木星有多少颗卫星": a count of what a subject has.
_ZH_COUNTED_OWNED = re.compile(rf"(?P<owner>.+?)有(?:多少|几){_COUNTER}?(?P<noun>[^，,？?]+)")


def _zh_superlative_of_counted(clause: str, before: str) -> str:
    """A Chinese clause asking for a superlative with no noun (最大的是哪颗) after one
    counting what a subject has (木星有多少颗卫星), asked of that: 木星最大的卫星是哪颗; else
    ""."""
    elided = _ZH_ELIDED_SUPERLATIVE.fullmatch(clause)
    owned = _ZH_COUNTED_OWNED.fullmatch(before.strip(" ？?"))
    if elided is None or owned is None:
        return ""
    noun = owned.group("noun")
    return f"{owned.group('owner')}{elided.group('adj')}的{noun}是{elided.group('asks')}"


def _zh_asked_again(word: str, before: str) -> str:
    """The Chinese question word ``word`` asked of the clause ``before``: ``before`` with
    its own question word (one asking when, why or how, or 谁 in a 是…的 frame) replaced by
    ``word``, and the frame's 是 and 的 left off (柏林墙是什么时候倒塌的 → 柏林墙为什么倒塌;
    汉萨同盟是谁建立的 → 汉萨同盟为什么建立); "" when it asks none of those."""
    found = _ZH_ASKED_BEFORE.search(before)
    if found is None:
        return ""
    head, rest = before[: found.start()], before[found.end() :].strip()
    if (found.group("shi") or found.group("who")) and rest.endswith("的"):
        rest = rest[:-1]
    if not rest or ZH_ASKS.search(rest):
        return ""
    return head + word + rest


def _zh_dropped_subject(clause: str) -> bool:
    """Whether a Chinese clause asks why, how or when of a subject it leaves unsaid: it
    opens with its question word, and no noun follows it (为什么用久了容量会下降 asks it of
    the question's subject; 为什么天空是蓝的 names its own)."""
    tagged = zh_tagged(clause)
    if len(tagged) < 2 or tagged[0].word not in ZH_QUESTION_WORDS:
        return False
    return question_kind(clause) in ("why", "how", "when") and not tagged[1].flag.startswith("n")


def _zh_clause_subject(clause: str) -> str:
    """The subject a Chinese clause names before it asks or says anything: its words
    before the first verb, pronoun or question word, when they end in a noun
    (石溪镇的茶农 of 石溪镇的茶农什么时候采摘新茶; "" for 为什么…)."""
    before = []
    for pair in zh_tagged(clause):
        if pair.flag.startswith(("v", "r")) or pair.word in ZH_QUESTION_WORDS:
            break
        before.append(pair)
    if not before or not before[-1].flag.startswith("n"):
        return ""
    return "".join(p.word for p in before)


def _zh_list_parts(sentence: str) -> tuple[list[str], list[str]]:
    """A Chinese sentence cut at the marks that list (、，,：:).

    Args:
        sentence: one sentence of the question.

    Returns:
        The non-blank parts, stripped, and for each the mark before it ("" for the
        first piece of the sentence).
    """
    cut = _ZH_LIST.split(sentence)
    seps = ["", *cut[1::2]]
    parts, marks = [], []
    for part, sep in zip(cut[::2], seps, strict=True):
        if part.strip():
            parts.append(part.strip())
            marks.append(sep)
    return parts, marks


def _zh_sentence_pieces(sentence: str) -> list[tuple[str, bool]]:
    """The pieces of one Chinese sentence that ask, each with whether it is listed.

    A part that asks nothing leads in to the next when that one asks (or when nothing
    has asked yet), and says more of the piece before otherwise; a lead-in left at the
    end is a piece of its own.

    Args:
        sentence: one sentence of the question.

    Returns:
        The pieces, each with whether it was listed after 、 or a colon with no lead-in
        (and so shares the subject of the piece before).
    """
    parts, marks = _zh_list_parts(sentence)
    joined: list[str] = []
    listing: list[bool] = []  # listed after 、 or a colon: shares the subject
    lead_in = ""  # "2012年，石溪……排名第几": a piece that asks nothing leads in
    for i, part in enumerate(parts):
        if _zh_asks(part):
            listing.append(not lead_in and marks[i] in ("、", "：", ":"))
            joined.append(f"{lead_in}，{part}" if lead_in else part)
            lead_in = ""
        elif i + 1 < len(parts) and _zh_asks(parts[i + 1]):
            lead_in = f"{lead_in}，{part}" if lead_in else part
        elif joined:
            joined[-1] = joined[-1] + "，" + part  # says more of the question before
        else:
            lead_in = f"{lead_in}，{part}" if lead_in else part
    if lead_in:
        joined.append(lead_in)
        listing.append(False)
    return list(zip(joined, listing, strict=True))


def _zh_first(clauses: list[tuple[str, bool]], subject: str) -> str:
    """The question word (with the 是 before it) the first clause asks right after the
    subject, which a clause given the subject borrows when it asks nothing itself.

    Args:
        clauses: the question's clauses, each with whether it is listed.
        subject: the subject given to clauses that name none ("" for none).

    Returns:
        The words, or "" when the first clause does not open with the subject followed
        by a question word.
    """
    if clauses and subject and clauses[0][0].startswith(subject):
        rest_ = clauses[0][0][len(subject) :]
        match = re.match("(是)?(" + "|".join(ZH_QUESTION_WORDS) + ")", rest_)
        return match.group(0) if match else ""
    return ""


#: Chinese pronouns for things that may stand after a verb (建造它, 保护它们); 其 and 该
#: there begin other words (其中, 应该).
_ZH_OBJECTS = ("它们", "它")


def _zh_object_pronoun(clause: str, subject: str) -> str:
    """``clause`` with a pronoun for a thing after its verb replaced by the question's
    subject (建造它花了多长时间 asks how long building the subject took), when no noun
    of the clause, other than people (人们, 工人们), stands before the pronoun for it to
    point to; else as it is."""
    if not subject:
        return clause
    for pronoun in _ZH_OBJECTS:
        at = clause.find(pronoun)
        if at <= 0:
            continue
        before = zh_tagged(clause[:at])
        if any(p.flag.startswith("n") and not p.word.endswith("们") for p in before):
            return clause  # 大坝建成后，它… points to the dam (人们 is no thing)
        return clause[:at] + subject + clause[at + len(pronoun) :]
    return clause


#: A Chinese word pointing back at a thing named before: 这, 那, 该 or 此, with a measure
#: word or none (这个, 那条, 该), as jieba cuts it (因此 and 应该 point at nothing).
_ZH_POINTING = re.compile(rf"[这那该此]一?[{ZH_MEASURE_WORDS}]?")


def _zh_pointing_phrase(clause: str, subject: str) -> str:
    """``clause`` with a phrase pointing back at the question's subject replaced by it:
    the pointing word (a measure word may follow it) then whole words the subject's name
    ends with (这座桥 for 瓦恩桥, 该水库 for 白沙水库); else as it is (这座城市 points to
    a city the subject is not, 那个港口 to a port 青石港 is not named by)."""
    cut = [(p.word, p.flag) for p in zh_tagged(clause)]
    said = [w for w, _ in cut]
    for i, word in enumerate(said):
        if not _ZH_POINTING.fullmatch(word):
            continue
        at = i + 1 + (i + 1 < len(cut) and cut[i + 1][1] == "q")  # 这 座 桥
        noun = ""
        for j in range(at, len(cut)):
            noun += said[j]
            if len(noun) >= len(subject) or not subject.endswith(noun):
                break
            if j + 1 == len(said) or not subject.endswith(noun + said[j + 1]):
                return "".join(said[:i]) + subject + "".join(said[j + 1 :])
    return clause


def _zh_acted(said: str) -> bool:
    """Whether what follows a Chinese subject's 是 ends on a verb (是谁发明, 是何时建成),
    which 的 closes."""
    words = zh_tagged(said)
    return bool(words) and words[-1].flag.startswith("v")


def _zh_with_subject(
    clause: str, listed: bool, subject: str, first: str, person: str = ""
) -> tuple[str, str]:
    """A Chinese clause naming its subject, as a part of the plan.

    A phrase pointing back at the subject (这座桥) is replaced by it, and so is a pronoun
    opening the clause (a pronoun for people by ``person``: the subject of the question's
    first clause); a clause that does not name the subject and is listed, or is no
    question of its own (:func:`_zh_own`), is given it in front, with ``first`` when it
    asks nothing itself.

    Args:
        clause: the clause.
        listed: whether it was listed after another of its sentence.
        subject: the question's subject ("" for none).
        first: the question word the first clause asks after the subject
            (:func:`_zh_first`).
        person: what a pronoun for people stands for ("" for none).

    Returns:
        The clause with its question mark, and its own words when it was given the
        subject without being listed ("" otherwise).
    """
    text = _zh_pointing_phrase(_zh_object_pronoun(clause, subject), subject)
    for pronoun in _ZH_PRONOUNS:
        if subject and text.startswith(pronoun):
            text = subject + text[len(pronoun) :]
            break
    for pronoun in _ZH_PERSONS:
        if person and text.startswith(pronoun):
            text = person + text[len(pronoun) :]
            break
    own = ""
    follows = listed or not _zh_own(text) or _zh_dropped_subject(text)
    if subject and not _zh_mentions(text, subject) and follows:
        # a clause listed after another of its sentence (…位于哪里、海拔多少米) is
        # about that one's subject; one asked on its own may be about another
        own = "" if listed else text + "？"
        text = subject + ("" if _zh_asks(text) else first) + text
    said = text[len(subject) + 1 :]  # what follows "subject是": 什么 asks what it is
    framed = first.startswith("是") and text.startswith(subject + "是")
    if framed and not text.endswith("的") and said not in ZH_QUESTION_WORDS and _zh_acted(said):
        text += "的"  # 是谁发明 closes as 是谁发明的; 是什么意思 stays as it is
    return text + "？", own
