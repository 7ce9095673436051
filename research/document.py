"""Preparing a page for scoring: a :class:`Document`.

A page or file extract is cut once into its sentences, each with its terms, its terms in
order with the clause each stands in, and the terms of its links; with the terms of its
headings and title, its term counts, its normalised text and its name without the
site's. A Document also keeps a memo of what is computed once per page and part. The
same text is prepared once (:meth:`Document.of`). Nothing here reads a question.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .text import Sentence, grams, headings, passages, plain, stem, terms, words

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")


@dataclass
class Document:
    """A page or file extract prepared for scoring: its sentences, headings and terms."""

    text: str
    title: str = ""
    sentences: list[Sentence] = field(default_factory=list)
    sentence_terms: list[set[str]] = field(default_factory=list)
    #: each sentence's terms as a reader reads it, the text of its links included
    said_terms: list[set[str]] = field(default_factory=list)
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
    #: (see :func:`~research.aboutness._speaks_of`); None where the page names it often
    mentions: dict[tuple[str, ...], frozenset[int] | None] = field(default_factory=dict)
    #: what is computed once per page and part (page-local matches), by a key naming it
    memo: dict[Any, Any] = field(default_factory=dict)

    def grams(self) -> list[frozenset[str]]:
        """Each sentence's grams (see :func:`research.text.grams`), computed once."""
        if "grams" not in self.memo:
            self.memo["grams"] = [grams(_LINK.sub(r"\1", s.text)) for s in self.sentences]
        return self.memo["grams"]

    def before(self, sentence: Sentence) -> Sentence | None:
        """The sentence before ``sentence`` in its paragraph: the last one ending before it
        in its section and of its kind, with no blank line between them."""
        before = [
            s
            for s in self.sentences
            if s.end <= sentence.start and s.section == sentence.section and s.kind == sentence.kind
        ]
        if not before or "\n\n" in self.text[before[-1].end : sentence.start]:
            return None
        return before[-1]

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
        doc.said_terms = [
            set(terms(_LINK.sub(r"\1", s.text))) if "](" in s.text else said
            for s, said in zip(sentences, doc.sentence_terms, strict=True)
        ]
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


def _without_site(title: str) -> str:
    """A page title without the site name closing it ("… — City Guide")."""
    parts = re.split(r"\s+[—|–-]\s+", title)
    return " ".join(parts[:-1]) if len(parts) > 1 else title
