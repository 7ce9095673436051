"""The research plan: the question broken into sub-questions, each with its own queries.

The plan is the run's todo list. Each sub-question has a status (pending, in progress,
answered, partly answered, not found) and the evidence found for it; the plan is kept in
``/internal/plan.json`` and in ``run.json``.

:func:`offline_plan` is the offline brain's deterministic decomposition: it splits the
question on clauses, conjunctions and question words, carries the subject into clauses
that only point at it ("why did *it* decline"), and makes short keyword queries.
An LLM brain proposes a plan as structured output (:class:`PlanModel`); :func:`validated`
checks it, and anything unusable falls back to the offline plan, with the reason recorded.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from research.relevance import SCAFFOLD, Focus, entity, question_kind
from research.text import CJK, STOP_WORDS, is_cjk, stem

STATUSES = ("pending", "in progress", "answered", "partly answered", "not found")
MIN_SUBQUESTIONS, MAX_SUBQUESTIONS = 1, 6
MAX_QUERIES = 4

_QUESTION_WORDS = ("how", "why", "what", "when", "where", "which", "who", "whom", "whose")
_AUX = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "will",
        "would",
        "should",
        "has",
        "have",
        "had",
        "may",
        "might",
        "must",
    ]
)
_PRONOUNS = {"it": "", "its": "'s", "they": "", "their": "'s", "them": "", "this": "", "these": ""}
_ZH_QW = ("如何", "为什么", "为何", "哪些", "何时", "什么", "怎样", "怎么", "是否", "多少", "哪里")
_ZH_PRONOUNS = ("它们", "它", "其", "该")


# --- the plan ---------------------------------------------------------------------------


@dataclass
class SubQuestion:
    """One part of the question: its text, its search queries, status and evidence."""

    id: str
    text: str
    queries: list[str]
    status: str = "pending"
    evidence_ids: list[str] = field(default_factory=list)


@dataclass
class Plan:
    """The run's plan and the record of its research rounds."""

    question: str
    language: str
    subquestions: list[SubQuestion]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    planner: str = "offline"

    def get(self, sub_id: str) -> SubQuestion | None:
        return next((s for s in self.subquestions if s.id == sub_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "language": self.language,
            "planner": self.planner,
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
        )

    def focus(self, sub: SubQuestion) -> Focus:
        """The relevance focus of one sub-question among its siblings."""
        return Focus.build(sub.text, [s.text for s in self.subquestions], self.question)


class PlannedSubQuestion(BaseModel):
    """One part of the research question."""

    text: str = Field(
        description="One part of the question, written as a complete question that names "
        "its subject (no 'it' or 'they'), in the language of the question."
    )
    queries: list[str] = Field(
        description="2 to 4 short web search queries of key terms for this part, e.g. "
        "['Grand Canal construction Sui', 'Grand Canal Yuan realignment']; not the whole "
        "question."
    )


class PlanModel(BaseModel):
    """The research plan: the question broken into the parts a report must answer."""

    subquestions: list[PlannedSubQuestion] = Field(
        description="2 to 6 parts that together cover the whole question, in the order a "
        "report should answer them."
    )


def validated(raw: dict[str, Any] | None, question: str) -> tuple[Plan | None, str]:
    """A plan from a model's structured output, or ``(None, why it is unusable)``."""
    if not raw:
        return None, "the model gave no valid plan"
    try:
        model = PlanModel.model_validate(raw)
    except ValidationError as exc:
        return None, f"the plan did not validate ({exc.error_count()} errors)"
    subs: list[SubQuestion] = []
    seen: set[str] = set()
    for item in model.subquestions:
        text = " ".join(item.text.split())
        if not text or len(text) > 400 or text.lower() in seen:
            continue
        seen.add(text.lower())
        queries = [" ".join(q.split())[:200] for q in item.queries if q and q.strip()]
        queries = list(dict.fromkeys(q for q in queries if q))[:MAX_QUERIES]
        if not queries:
            queries = keyword_queries(text, text)
        subs.append(SubQuestion(f"q{len(subs) + 1}", text, queries))
    if not MIN_SUBQUESTIONS <= len(subs) <= MAX_SUBQUESTIONS:
        return None, f"the plan has {len(subs)} usable sub-questions (1 to 6 are allowed)"
    return Plan(question, "zh" if is_cjk(question) else "en", subs, planner="model"), ""


# --- the offline decomposition ---------------------------------------------------------


def offline_plan(question: str) -> Plan:
    """Break ``question`` into sub-questions with keyword queries, deterministically."""
    question = " ".join(question.split())
    if is_cjk(question):
        texts = _split_zh(question)
        lang = "zh"
    else:
        texts = _split_en(question)
        lang = "en"
    texts = list(dict.fromkeys(t for t in texts if t))[:MAX_SUBQUESTIONS] or [question]
    if len(texts) == 1:
        texts = [*_background(texts[0], question, lang), *texts]
    subs = [
        SubQuestion(f"q{i}", text, keyword_queries(text, question, texts))
        for i, text in enumerate(texts, 1)
    ]
    return Plan(question, lang, subs)


def _background(text: str, question: str, lang: str) -> list[str]:
    """A "what is it?" part for a one-part question, unless it already asks just that."""
    named = entity(question)
    if not named or (question_kind(text) == "what" and len(text.split()) <= len(named.split()) + 4):
        return []
    if lang == "zh":
        return [f"什么是{named}？"]
    plural = named.lower().endswith("s") and not named.lower().endswith("ss")
    if re.search(rf"\bthe {re.escape(named)}", question, re.I) and not plural:
        named = f"the {named}"
    return [f"What {'are' if plural else 'is'} {named}?"]


def keyword_queries(text: str, question: str, siblings: list[str] | None = None) -> list[str]:
    """2–3 short queries of key terms for one sub-question (never the whole question)."""
    focus = Focus.build(text, siblings or [text], question)
    surface = _surface_words(text)
    if is_cjk(text):
        subject = entity(question)
        core = focus.core[0] if focus.core else ""
        aspects = [w for w in surface if w not in subject and w != core and stem(w) not in SCAFFOLD]
        queries = [" ".join([subject or core, *aspects]).strip()]
        if core and subject and core != subject:
            queries.append(" ".join([core, *aspects]).strip())
        if aspects and subject:
            queries.append(" ".join([subject, aspects[0]]).strip())
    else:
        facet_stems = {f.term for f in focus.facets}
        subject_stems = set(focus.subject)
        aspects = [w for w in surface if stem(w.lower()) in facet_stems]
        subject_words = [w for w in surface if stem(w.lower()) in subject_stems]
        core_words = [w for w in subject_words if stem(w.lower()) in set(focus.core)]
        queries = [" ".join([*(core_words or subject_words), *aspects])]
        queries.append(" ".join([*subject_words, *aspects]))
        for facet in focus.facets:
            alt = _readable_equivalent(facet)
            if alt:
                queries.append(" ".join([*(core_words or subject_words), alt]))
                break
        if not focus.facets:  # the question's own wording: "heat pumps work"
            verbs = [
                w for w in re.findall(r"[A-Za-z][\w'’-]*", text) if stem(w.lower()) in SCAFFOLD
            ]
            if verbs:
                queries.append(" ".join([*subject_words, *verbs[:1]]))
    out = list(dict.fromkeys(q.strip() for q in queries if q.strip()))
    return out[:MAX_QUERIES] or [text]


def _readable_equivalent(facet: Any) -> str:
    """A plain word that says what a facet says (for a second, differently worded query)."""
    for word in ("construction", "history", "decline", "today", "role", "water supply"):
        if stem(word.split()[0]) in facet.equivalents and stem(word.split()[0]) != facet.term:
            return word
    return ""


def _surface_words(text: str) -> list[str]:
    """The content words of ``text`` as written (hyphenated names kept whole)."""
    if is_cjk(text):
        from research.text import words

        return [w for w in words(text) if CJK.match(w) and w not in STOP_WORDS]
    out = []
    for raw in re.findall(r"[A-Za-z0-9][\w'’-]*", text):
        word = re.sub(r"['’]s$", "", raw)
        low = word.lower()
        if low in STOP_WORDS or low in _AUX or low in _QUESTION_WORDS:
            continue
        if stem(low) in SCAFFOLD:
            continue
        out.append(word)
    return list(dict.fromkeys(out))


def _split_en(question: str) -> list[str]:
    body = question.strip().rstrip("?.! ")
    qw = "|".join(_QUESTION_WORDS)
    parts = re.split(
        rf"\?\s*|;\s*|,\s*(?:and\s+|but\s+)?(?=(?:{qw})\b)|\s+(?:and|but)\s+(?=(?:{qw})\b)",
        body,
        flags=re.I,
    )
    clauses: list[str] = []
    for part in (p.strip(" ,") for p in parts):
        if part:
            clauses.extend(_split_and(part))
    if not clauses:
        return [question]
    subject = entity(question)
    lead = _lead(clauses[0])
    out = []
    for clause in clauses:
        text = _with_subject(clause, subject, lead)
        out.append(text[0].upper() + text[1:] + "?")
    return out


def _content_count(text: str) -> int:
    return sum(1 for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in STOP_WORDS)


def _split_and(clause: str) -> list[str]:
    """Split "X built and kept supplied with water" where both sides say something."""
    pieces = re.split(r"\s+and\s+", clause)
    if len(pieces) < 2:
        return [clause]
    out = [pieces[0]]
    for piece in pieces[1:]:
        verbish = re.match(
            r"(?:\w+ed|kept|made|became|built|grew|fell|is|are|was|were|has|have|had|"
            r"does|do|did|can|could|will|would)\b",
            piece,
            re.I,
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


def _with_subject(clause: str, subject: str, lead: str) -> str:
    """``clause`` naming its subject: pronouns replaced, a bare verb phrase completed."""
    if not subject:
        return clause
    words = clause.split()
    out = []
    replaced = False
    for word in words:
        low = word.lower().strip(",")
        if low in _PRONOUNS and not replaced and subject.lower() not in clause.lower():
            out.append(subject + _PRONOUNS[low])
            replaced = True
        else:
            out.append(word)
    text = " ".join(out)
    mentions = subject.lower() in text.lower() or any(
        w.lower() in text.lower() for w in subject.split()[-1:]
    )
    if not mentions and words and words[0].lower() not in _QUESTION_WORDS and lead:
        text = f"{lead} {subject} {text}"
    elif not mentions:
        text = f"{text} ({subject})"
    return text


def _split_zh(question: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"[，,。？?！!；;]", question) if p.strip()]
    clauses: list[str] = []
    for part in parts:
        pieces = re.split(r"(?:并且|并|而且|以及|同时)(?=[\u4e00-\u9fff]{2,})", part)
        clauses.extend(p for p in pieces if p)
    subject = entity(question)
    lead = ""
    if clauses and subject and clauses[0].startswith(subject):
        rest = clauses[0][len(subject) :]
        match = re.match("(是)?(" + "|".join(_ZH_QW) + ")", rest)
        lead = match.group(0) if match else ""
    out = []
    for clause in clauses:
        text = clause
        for pronoun in _ZH_PRONOUNS:
            if subject and text.startswith(pronoun):
                text = subject + text[len(pronoun) :]
                break
        if subject and subject not in text:
            has_qw = any(q in text for q in _ZH_QW)
            text = subject + ("" if has_qw else lead) + text
        if lead.startswith("是") and text.startswith(subject + "是") and not text.endswith("的"):
            text += "的"
        out.append(text + "？")
    return out
