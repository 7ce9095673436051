"""What the research core prepares from the texts a run reads, kept in the page cache
across runs, so that a second run reading the same texts prepares, judges, scores and
cuts none of them again.

Three kinds of :data:`~subagents.net.pagecache.DERIVED` entry, in the run's namespace
and under the cache's freshness window like the rest:

- a source's prepared document (:class:`research.document.Document`: its sentences, their
  terms and clauses, the terms of its headings and title), with what the parts of the
  plans that read it made of it (see :class:`host.research.Judged`, by the digest of
  the parts' focus: :func:`plan_digest`), under a key naming all the document was made
  from: the SHA-256 of the source's text and of its title, the language words in Latin
  letters are read in, the words jieba was taught, and a
  :func:`~subagents.net.pagecache.fingerprint` of the research core and the libraries
  it reads words with. A changed page has another text, so another key: it is prepared
  and judged anew, never served stale. Citations are checked against the run's own
  stored copy of the text, as ever; the document only says where its sentences are in
  that text.
- the scores the parts of a plan gave short texts (a search result's title and snippet,
  a link's text, a table: :mod:`research.scores`), one entry per plan, each score under
  a digest of the part's focus, the text and its title: no text is kept.
- the run's Chinese word cuts (:mod:`research.cuts`): one entry per namespace, written as
  each run ends with every cut it used, each under the run of characters it cuts, and
  handed to the next run, which cuts none of those again and need not load jieba's
  dictionary for them.

Nothing is kept of a text read from what the cache may not keep (a page or download
marked ``no-store``, see :meth:`~subagents.net.pagecache.RunCache.withhold`): not its
document, no score of a text read in it, and no cut of a run of characters written in
it. A run with ``--fresh`` reads none of these and keeps them all; a run without a
cache has none.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from research import cuts
from research.cuts import CutBook, handing
from research.document import Document, keep, keeping
from research.scope import setting
from research.scores import ScoreBook, scoring
from research.text import reading_language
from subagents.net.pagecache import (
    DERIVED,
    active_cache,
    fingerprint,
    remember,
    reuse,
    text_digest,
)

#: The code prepared documents and cuts are made by: the research core, and the libraries
#: it cuts, stems and reads words with.
PREPARING_CODE = (
    ("research",),
    (
        "jieba",
        "OpenCC",
        "PyStemmer",
        "snowballstemmer",
        "lemminflect",
        "wordfreq",
        "regex",
        "sentencex",
        "pythainlp",
        "PyYAML",
    ),
)
#: The code that judges a source for a plan's parts besides the research core: the Host's
#: research state.
JUDGING_CODE = (("research", "host.research"), PREPARING_CODE[1])
#: The most cuts one entry keeps (those the last run used first).
MOST_CUTS = 100_000
#: The most plans whose judgements a source's entry keeps (the latest).
MOST_PLANS = 8


def document_key(text: str, title: str) -> str:
    """The page cache's key of the prepared document of ``text`` titled ``title``, as it
    is prepared here (in the language read here, with the words jieba knows here)."""
    code = fingerprint(*PREPARING_CODE)
    return (
        f"document {text_digest(text)} {text_digest(title)[:16]} {code} "
        f"{reading_language()} {cuts.state()}"
    )


def cuts_key() -> str:
    """The page cache's key of the entry that hands a run's Chinese word cuts on."""
    return f"cuts {fingerprint(*PREPARING_CODE)}"


class Preparing:
    """One run's prepared documents, scores of short texts and Chinese word cuts.

    Attributes:
        book: the run's cuts: those handed to it, and those it used.
        scores: the run's scores of short texts: those handed to it, and those it made.
        scores_key: the page cache's key of the scores of the run's plan ("" before the
            run is planned).
        private: texts read from what the cache may not keep (none of their runs of
            characters is kept).
    """

    def __init__(self) -> None:
        self.book = CutBook()
        self.scores = ScoreBook(focus_digest)
        self.scores_key = ""
        self.private: list[str] = []

    @contextmanager
    def scope(self) -> Iterator[Preparing]:
        """Make this the run's for the code inside (and the tasks and threads it starts):
        its sources' documents are held until it ends, and its cuts and scores are its
        books'."""
        with setting(_current, self), keeping(), handing(self.book), scoring(self.scores):
            yield self

    async def begin(self) -> None:
        """Take the cuts the last run handed on, when the run's cache holds them."""
        body = await reuse(DERIVED, await asyncio.to_thread(cuts_key))
        handed = _decoded_cuts(body) if body is not None else None
        if handed is not None:
            self.book.taught, self.book.handed = handed

    async def recall_scores(self, plan: str) -> None:
        """Take the scores of short texts the last run of the plan whose digest is
        ``plan`` kept, when the run's cache holds them."""
        self.scores_key = f"scores {plan} {reading_language()} {cuts.state()}"
        body = await reuse(DERIVED, self.scores_key)
        try:
            found = json.loads(body) if body is not None else {}
            self.scores.known |= {str(k): float(v) for k, v in found.items()}
        except (ValueError, TypeError, AttributeError):
            return

    async def end(self) -> None:
        """Hand the cuts the run used on to the next run (none written in a private
        text), with those it was handed and did not use, up to :data:`MOST_CUTS`; and
        the scores of short texts, when the run made any."""
        if active_cache() is None:
            return
        body = await asyncio.to_thread(self._encoded_cuts)
        if body is not None:
            await remember(DERIVED, await asyncio.to_thread(cuts_key), body)
        if self.scores.added and self.scores_key:
            scored = json.dumps(self.scores.known).encode("utf-8")
            await remember(DERIVED, self.scores_key, scored)

    def _encoded_cuts(self) -> bytes | None:
        """The entry's body: the words jieba was taught and the cuts (None: none)."""
        book, taught = self.book, cuts.taught_words()
        kept = dict(book.used)
        if book.taught == taught:
            kept.update((k, v) for k, v in book.handed.items() if k not in kept)
        private = [text.lower() for text in self.private]
        rows = [
            [run, search, list(words)]
            for (run, search), words in kept.items()
            if not any(run in text for text in private)
        ][:MOST_CUTS]
        if not rows:
            return None
        raw = {"taught": sorted(taught), "cuts": rows}
        return json.dumps(raw, ensure_ascii=False).encode("utf-8")


_current: ContextVar[Preparing | None] = ContextVar("quartet_preparing", default=None)


async def recall_scores(plan: str) -> None:
    """Hand the run under way the scores of short texts its plan's last run kept (see
    :meth:`Preparing.recall_scores`; nothing outside a run)."""
    run = _current.get()
    if run is not None:
        await run.recall_scores(plan)


def focus_digest(focus: Any) -> str:
    """What names a part's focus the same way in every process: the digest of all its
    fields (see :func:`canonical`)."""
    raw = json.dumps(canonical(focus), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:24]


def _decoded_cuts(body: bytes) -> tuple[frozenset[str], dict[cuts.Key, tuple[str, ...]]] | None:
    """The taught words and cuts an entry holds; None when it is not one."""
    try:
        raw = json.loads(body)
        taught = frozenset(str(w) for w in raw["taught"])
        found = {(str(r), bool(s)): tuple(str(w) for w in words) for r, s, words in raw["cuts"]}
    except (ValueError, TypeError, KeyError):
        return None
    return taught, found


@dataclass
class Prepared:
    """A source's prepared document, and what the page cache held of it.

    Attributes:
        doc: the document (held for the rest of the run).
        key: the page cache's key of the source's entry ("": none is kept).
        judged: what the parts of each plan made of it, by the plan's digest (see
            :func:`plan_digest`), as the entry held them.
        cached: the document came from the page cache.
        private: the text was read from what the cache may not keep.
    """

    doc: Document
    key: str = ""
    judged: dict[str, Any] = field(default_factory=dict)
    cached: bool = False
    private: bool = False


async def prepare_source(text: str, title: str, origin: str = "") -> Prepared:
    """The prepared document of a source's text, held for the rest of the run: the page
    cache's when it holds one (with what the parts of earlier plans made of it), else
    prepared now (kept by :func:`keep_source`).

    Args:
        text: the source's text, as the run stored it.
        title: its title.
        origin: the SHA-256 (hex) of what the text was read from (a page's stored text,
            a download's bytes; "" for the user's own files): nothing is kept of a text
            read from what the cache may not keep.
    """
    cache = active_cache()
    if cache is None:
        return Prepared(Document.kept(text, title))
    if origin and origin in cache.withheld:
        run = _current.get()
        if run is not None:
            run.private.append(text)
        return Prepared(Document.kept(text, title), private=True)
    key = await asyncio.to_thread(document_key, text, title)
    body = await reuse(DERIVED, key)
    found = _decoded_source(body, text, title) if body is not None else None
    if found is None:
        return Prepared(Document.kept(text, title), key)
    doc, judged = found
    return Prepared(keep(doc), key, judged, cached=True)


async def keep_source(prepared: Prepared, plan: str, judged: dict[str, Any]) -> None:
    """Keep a source's document in the page cache with what the parts of the plan whose
    digest is ``plan`` made of it (``judged``, JSON-ready), unless it holds them already
    (or the source may not be kept)."""
    if not prepared.key or (prepared.cached and plan in prepared.judged):
        return
    plans = {k: v for k, v in prepared.judged.items() if k != plan}
    plans = dict(list(plans.items())[-(MOST_PLANS - 1) :]) | {plan: judged}
    body = await asyncio.to_thread(_encoded_source, prepared.doc, plans)
    await remember(DERIVED, prepared.key, body)
    prepared.judged, prepared.cached = plans, True


def _encoded_source(doc: Document, judged: dict[str, Any]) -> bytes:
    raw = {"document": doc.to_dict(), "judged": judged}
    return json.dumps(raw, ensure_ascii=False).encode("utf-8")


def _decoded_source(body: bytes, text: str, title: str) -> tuple[Document, dict] | None:
    """The document and judgements an entry holds, when it is the document of ``text``
    titled ``title``; None otherwise."""
    try:
        raw: Any = json.loads(body)
        doc = Document.from_dict(raw["document"])
        judged = dict(raw["judged"])
    except (ValueError, TypeError, KeyError):
        return None
    return (doc, judged) if doc.text == text and doc.title == title else None


def canonical(value: Any) -> Any:
    """``value`` as JSON-ready data that is the same for equal values in every process:
    dataclasses as their class and fields, sets sorted, mappings by sorted key."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        named = {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return [type(value).__name__, named]
    if isinstance(value, set | frozenset):
        return sorted((canonical(v) for v in value), key=_sort_key)
    if isinstance(value, dict):
        return sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=_sort_key)
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    return value


def _sort_key(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def plan_digest(parts: Mapping[str, Any]) -> str:
    """The digest of what a plan's parts ask (each part's focus, by its id), and of the
    code that judges a source for them: what a source's judgements are kept under."""
    code = fingerprint(*JUDGING_CODE)
    raw = json.dumps(canonical(dict(parts)), ensure_ascii=False, sort_keys=True)
    return f"{code}:{hashlib.sha256(raw.encode('utf-8')).hexdigest()[:32]}"


__all__ = [
    "JUDGING_CODE",
    "MOST_CUTS",
    "MOST_PLANS",
    "PREPARING_CODE",
    "Prepared",
    "Preparing",
    "canonical",
    "cuts_key",
    "document_key",
    "focus_digest",
    "keep_source",
    "plan_digest",
    "prepare_source",
    "recall_scores",
]
