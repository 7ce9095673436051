"""Preparing a page for scoring: a :class:`Document`.

A page or file extract is cut once into its sentences, each with its terms, its terms in
order with the clause each stands in, and the terms of its links; with the terms of its
headings and title, its term counts, its normalised text and its name without the
site's. A Document also keeps a memo of what is computed once per page and part. The
same text is prepared once (:meth:`Document.of`). Nothing here reads a question.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, OrderedDict
from contextlib import AbstractContextManager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .scope import setting
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

    def index(self, sentence: Sentence) -> int:
        """The place of ``sentence`` (one of :attr:`sentences`, by identity) among them."""
        if "index" not in self.memo:
            self.memo["index"] = {id(s): i for i, s in enumerate(self.sentences)}
        return self.memo["index"][id(sentence)]

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
        against every sub-question), and a Document is never changed once made. A
        document :meth:`kept` for the run under way is taken as it is."""
        kept = _kept.get()
        found = kept.get((text, title)) if kept is not None else None
        return found if found is not None else _prepared(text, title)

    @classmethod
    def kept(cls, text: str, title: str = "") -> Document:
        """The prepared document of ``text``, held for the rest of the run under way (see
        :func:`keeping`) besides the few the process holds: a source's document is asked
        for again long after it was scored, when the report's notes are made.

        Args:
            text: the text.
            title: its title.
        """
        return keep(Document.of(text, title))

    def to_dict(self) -> dict[str, Any]:
        """What :meth:`prepare` made of the text, JSON-ready (see :meth:`from_dict`)."""
        pairs = zip(self.said_terms, self.sentence_terms, strict=True)
        said = [None if a is b else list(a) for a, b in pairs]  # None: the sentence's terms
        return {
            "text": self.text,
            "title": self.title,
            "sentences": [[s.start, s.end, s.text, s.section, s.kind] for s in self.sentences],
            "sentence_terms": [list(t) for t in self.sentence_terms],
            "said_terms": said,
            "sentence_seq": self.sentence_seq,
            "sentence_clauses": self.sentence_clauses,
            "anchor_terms": [list(t) for t in self.anchor_terms],
            "section_terms": {k: list(v) for k, v in self.section_terms.items()},
            "heading_terms": list(self.heading_terms),
            "title_terms": list(self.title_terms),
            "counts": list(self.counts.items()),
            "lowered": self.lowered,
            "name": self.name,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Document:
        """The document :meth:`to_dict` gave ``raw`` of.

        Raises:
            KeyError, TypeError, ValueError: ``raw`` is not one.
        """
        terms_of = [set(map(str, t)) for t in raw["sentence_terms"]]
        said = zip(terms_of, raw["said_terms"], strict=True)
        return cls(
            text=str(raw["text"]),
            title=str(raw["title"]),
            sentences=[_sentence(*fields) for fields in raw["sentences"]],
            sentence_terms=terms_of,
            said_terms=[mine if other is None else set(map(str, other)) for mine, other in said],
            sentence_seq=[list(map(str, seq)) for seq in raw["sentence_seq"]],
            sentence_clauses=[list(map(int, c)) for c in raw["sentence_clauses"]],
            anchor_terms=[set(map(str, t)) for t in raw["anchor_terms"]],
            section_terms={str(k): set(map(str, v)) for k, v in raw["section_terms"].items()},
            heading_terms=set(map(str, raw["heading_terms"])),
            title_terms=set(map(str, raw["title_terms"])),
            counts=Counter({str(k): int(n) for k, n in raw["counts"]}),
            lowered=str(raw["lowered"]),
            name=str(raw["name"]),
        )

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


def _sentence(start: int, end: int, text: str, section: str, kind: str) -> Sentence:
    """A sentence as :meth:`Document.to_dict` wrote it."""
    return Sentence(int(start), int(end), str(text), str(section), str(kind))


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


#: The prepared documents the process holds (most recently used last), besides those
#: kept for a run (see :func:`keeping`).
PREPARED = 64
_recent: OrderedDict[tuple[str, str], Document] = OrderedDict()
_lock = threading.Lock()
_kept: ContextVar[dict[tuple[str, str], Document] | None] = ContextVar(
    "quartet_kept_documents", default=None
)


def _prepared(text: str, title: str) -> Document:
    with _lock:
        found = _recent.get((text, title))
        if found is not None:
            _recent.move_to_end((text, title))
            return found
    return _hold(Document.prepare(text, title))


def _hold(doc: Document) -> Document:
    """Hold ``doc`` among the process's recent documents; ``doc``."""
    with _lock:
        _recent[(doc.text, doc.title)] = doc
        _recent.move_to_end((doc.text, doc.title))
        while len(_recent) > PREPARED:
            _recent.popitem(last=False)
    return doc


def keep(doc: Document) -> Document:
    """Hold ``doc`` (prepared here or made by :meth:`Document.from_dict`) for the run
    under way, where :meth:`Document.of` finds it for the same text and title; ``doc``."""
    kept = _kept.get()
    if kept is not None:
        kept[(doc.text, doc.title)] = doc
    return _hold(doc)


def keeping() -> AbstractContextManager[dict[tuple[str, str], Document] | None]:
    """Hold the documents :func:`keep` is given in the code inside until it ends: a run's
    sources are asked for again long after they were scored."""
    return setting(_kept, {})


@lru_cache(maxsize=65536)
def _normal(text: str) -> str:
    return " ".join(stem(w) for w in words(text) if w not in ("'",))


#: A file's name as a title: words joined by hyphens, underscores or dots, and its
#: extension ("harlow-mill_notes.pdf").
_FILE_NAME = re.compile(r"^[^\s/]+\.[A-Za-z][A-Za-z0-9]{0,4}$")


def _without_site(title: str) -> str:
    """A page title without the site name closing it ("… — City Guide"); a file's name
    (a file of the user's is titled by it) as the words it is written with, without its
    extension ("harlow-mill_notes.pdf": "harlow mill notes")."""
    if _FILE_NAME.match(title):
        return " ".join(re.split(r"[-_.]+", title.rsplit(".", 1)[0])).strip()
    parts = re.split(r"\s+[—|–-]\s+", title)
    return " ".join(parts[:-1]) if len(parts) > 1 else title
