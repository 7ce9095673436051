"""The Host's research state: what was searched, read and found for each sub-question.

:class:`Research` keeps the run's state and asks the research core (:mod:`research`) for
every judgement. It pools search results per sub-question and ranks them by expected
relevance (title and snippet against the sub-question), scores every stored page and
file extract against *every* sub-question (a page read for one part often answers
another), keeps the sentences above the relevance threshold and the best leads as
evidence, reports coverage (:mod:`research.coverage`), picks what each section quotes
(:mod:`research.selection`), and proposes how to close a gap: new queries from the
sub-question's key terms and from the headings and link texts of pages already read, and
in-site links whose text matches the gap. It never fetches anything itself.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fs_service import FsError
from research import answer, selection
from research.aboutness import page_salience
from research.coverage import RULES, Coverage, calibrated
from research.coverage import coverage as part_coverage
from research.coverage import missing as still_missing
from research.document import Document
from research.lines import likelihood
from research.notes import no_web_label
from research.plan import Plan, SubQuestion
from research.question import Focus, Glossary, entity
from research.ranking import Features, Part
from research.ranking import evidence as ranked_evidence
from research.relevance import (
    LEARNED,
    UNSURE_MODEL,
    answer_threshold,
    assessed,
    by_model,
    evidence_threshold,
    quote_bounds,
    score_text,
)
from research.retrieval import PageTerms, agreed, bm25, link_words, standings
from research.scores import withholding
from research.selection import Quote, informative
from research.tables import Found, file_table_score, table_score, tables_in
from research.text import CJK, Sentence, links, plain, script, terms
from subagents.evidence import (
    EvidenceItem,
    EvidenceLedger,
    PageRecord,
    sidecar_path,
    site_key,
    url_key,
)
from subagents.search.render import result_list

from .prepared import Prepared, keep_source, plan_digest, prepare_source, recall_scores
from .sources import (
    FileSource,
    addressed_title,
    file_place,
    file_record,
    lent_title,
    own_file,
    speaks_of_subject,
)

#: Evidence items kept per page (or file) and sub-question.
ITEMS_PER_SOURCE = 8
#: Leads (sentences under the threshold that may be a part's best answer) kept per source
#: and sub-question.
LEADS_PER_SOURCE = 3
#: A source whose title or headings name the part's facets is about that part; a part is
#: answered only by sources about it, not by passing mentions elsewhere.
ABOUT = 0.8
DOCUMENT_SUFFIXES = (".pdf", ".xlsx", ".xls", ".csv", ".pptx", ".docx")


def is_document(url: str) -> bool:
    """Whether ``url`` names a document to download rather than a page to read."""
    return urlsplit(url).path.lower().endswith(DOCUMENT_SUFFIXES)


@dataclass
class Candidate:
    """A search result pooled across tools and sub-questions."""

    url: str
    title: str
    snippet: str
    tools: set[str] = field(default_factory=set)
    rank: int = 99
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)  # best rank in each part's searches
    linked_from: list[str] = field(default_factory=list)  # the pages read that link to it

    def expected(self, sub_id: str) -> float:
        """How relevant the page promises to be for a part: its title and snippet, and how
        high the search engines put it for that part's queries."""
        match = self.scores.get(sub_id, 0.0)
        if sub_id not in self.ranks:
            return match
        return 0.5 * match + 0.5 / (1 + self.ranks[sub_id] / 3)


@dataclass
class Source:
    """A page or file extract the Host has scored."""

    path: str
    url: str
    title: str
    kind: str  # web | file
    relevant_to: set[str] = field(default_factory=set)
    #: the title a file of the user's own was scored under, when the question's subject
    #: was lent to it (see :func:`~host.sources.lent_title`); "" for the rest
    read_as: str = ""
    #: a web page's own date, published or updated (ISO 8601; "" when it gives none)
    published: str = ""


@dataclass
class Judged:
    """What one part makes of a source: whether the source is about it, its best
    sentences as evidence and its leads, each sentence by its index in the source's
    prepared document (see :func:`judge`).

    Attributes:
        about: the source's title or headings name the part's facets.
        items: the sentences over the threshold, best first: index, score, likelihood.
        leads: the sentences under it that may answer the part: index, score, rank,
            whether it is a passage (see :attr:`~research.relevance.Scored.passage`),
            likelihood.
        weighed: its best sentences by the learned sentence model, for the learned
            models to choose a part's leads from (see :meth:`Research._unsure`): index,
            score, features.
    """

    about: bool
    items: list[tuple[int, float, float]] = field(default_factory=list)
    leads: list[tuple[int, float, float, bool, float]] = field(default_factory=list)
    weighed: list[tuple[int, float, dict[str, float]]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "about": self.about,
            "items": self.items,
            "leads": self.leads,
            "weighed": [[i, s, f] for i, s, f in self.weighed],
        }

    def fits(self, sentences: int) -> bool:
        """Whether every sentence it names is one of a document's ``sentences``."""
        named = [*self.items, *self.leads, *self.weighed]
        return all(0 <= x[0] < sentences for x in named)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Judged:
        """The judgement :meth:`to_dict` gave ``raw`` of.

        Raises:
            KeyError, TypeError, ValueError: ``raw`` is not one.
        """
        return cls(
            bool(raw["about"]),
            [(int(i), float(s), float(c)) for i, s, c in raw["items"]],
            [(int(i), float(s), float(r), bool(p), float(c)) for i, s, r, p, c in raw["leads"]],
            [
                (int(i), float(s), {str(k): float(v) for k, v in f.items()})
                for i, s, f in raw["weighed"]
            ],
        )


def judge(focus: Focus, doc: Document) -> Judged:
    """What the part of ``focus`` makes of the source prepared as ``doc`` (the rules: see
    :data:`~research.relevance.LEARNED`): its best :data:`ITEMS_PER_SOURCE` sentences over
    the threshold, its first :data:`LEADS_PER_SOURCE` leads under it, and (see
    :data:`UNSURE_MODEL`) its best :data:`ITEMS_PER_SOURCE` by the learned sentence
    model."""
    every = assessed(focus, doc)
    bar = evidence_threshold(focus)
    found = [x for x in every if x.score >= bar]
    asked = answer.explains(focus)
    found.sort(key=lambda x: (-(x.score + informative(x.sentence.text, asked)), x.sentence.start))
    fresh = [x for x in every if x.score < bar and (x.lead or x.passage)]
    return Judged(
        page_salience(focus, doc) >= ABOUT,
        [
            (doc.index(x.sentence), x.score, likelihood(x.features))
            for x in found[:ITEMS_PER_SOURCE]
        ],
        [
            (doc.index(x.sentence), x.score, x.rank, x.passage, likelihood(x.features))
            for x in fresh[:LEADS_PER_SOURCE]
        ],
        by_model(focus, doc, every)[:ITEMS_PER_SOURCE] if UNSURE_MODEL else [],
    )


class Research:
    """Search results, sources and evidence of a run, by sub-question.

    Args:
        plan: the run's plan (its sub-questions are the todo list).
        ledger: the run's evidence ledger (and page registry).
        service: a FileDomainService that can read ``/workspace/`` and write sources.
        max_rounds: research rounds allowed per sub-question.
        glossary: the user's words for their field (see
            :class:`~research.question.Glossary`).
    """

    def __init__(
        self,
        plan: Plan,
        ledger: EvidenceLedger,
        service: Any,
        max_rounds: int,
        glossary: Glossary | None = None,
    ) -> None:
        self.plan, self.ledger, self.service = plan, ledger, service
        self.max_rounds = max_rounds
        self.focus: dict[str, Focus] = {s.id: plan.focus(s, glossary) for s in plan.subquestions}
        self.candidates: dict[str, Candidate] = {}
        self.sources: dict[str, Source] = {}
        self.texts: dict[str, str] = {}
        #: Stored pages whose text has no links of its own (plain text).
        self.linkless: set[str] = set()
        self.evidence: dict[str, dict[str, float]] = {s.id: {} for s in plan.subquestions}
        #: per part, the probability the sentence model gives that an evidence item holds
        #: the part's answer, by evidence id (what the summary line is chosen by: see
        #: :func:`research.lines.likelihood`)
        self.likelihood: dict[str, dict[str, float]] = {s.id: {} for s in plan.subquestions}
        #: per part, sentences under the threshold that could be its best answer
        #: (:attr:`~research.relevance.Scored.lead`), by source path and span
        self.leads: dict[str, dict[str, dict[str, Any]]] = {s.id: {} for s in plan.subquestions}
        #: per part, the evidence ids its leads were taken in as (see :meth:`_unsure`)
        self.promoted: dict[str, list[str]] = {}
        #: under the learned model, per part, the best sentences of each source read (by
        #: source path and span): an evidence item's fields and the sentence's own
        #: features, weighed again with its page's standing each time a page is read
        #: (see :meth:`_rescore`)
        self.sentences: dict[str, dict[str, dict[str, Any]]] = {s.id: {} for s in plan.subquestions}
        #: per part, what each source read says of the part's words (to rank the sources
        #: for it, see :func:`~research.retrieval.bm25`)
        self.page_terms: dict[str, dict[str, PageTerms]] = {s.id: {} for s in plan.subquestions}
        #: each source's links, read from its text when first wanted (see :meth:`_links`)
        self.link_cache: dict[str, list[tuple[str, frozenset[str]]]] = {}
        #: the descriptions each part has weighed for each candidate page (see
        #: :meth:`_promise`): the same search result comes back for many queries
        self.promised: set[tuple[str, str, str, str]] = set()
        self.tables: dict[str, dict[str, float]] = {s.id: {} for s in plan.subquestions}
        self.about: dict[str, set[str]] = {s.id: set() for s in plan.subquestions}
        self.found_tables: dict[str, Found] = {}
        self.rounds: dict[str, int] = {s.id: 0 for s in plan.subquestions}
        self.queries: dict[str, list[str]] = {s.id: [] for s in plan.subquestions}
        self.assigned: dict[str, list[str]] = {s.id: [] for s in plan.subquestions}
        self.assigned_docs: set[str] = set()
        self.failures: list[str] = []
        self.requirements: list[str] = []
        self.briefs: list[str] = []
        #: what the first brief with a title is about (see :attr:`FileSource.about`)
        self.brief_about = ""
        self.finished: set[str] = set()
        #: parts the research ended before ever reaching (see :meth:`abandon`)
        self.unresearched: set[str] = set()
        #: every search result list, as each source gave it: source, part, query, URLs
        self.result_lists: list[dict[str, Any]] = []
        #: the web calls (search and browser tools) made, and how many were unavailable
        self.web_calls: dict[str, int] = {"made": 0, "unavailable": 0}
        #: held while stored pages and files are scored: a source is known as scored only
        #: once its score is in, and several tasks ending at once would otherwise each
        #: find the same new page unscored and score it again
        self.absorbing = asyncio.Lock()
        #: whether a file of the user's own has shown the folder to be about the
        #: question's subject (see :meth:`_lend_to_the_rest`)
        self.own_about = False
        #: the digest of what the plan's parts ask (see :func:`..prepared.plan_digest`),
        #: under which the page cache keeps what they made of a source
        self.plan_key = ""
        #: the sites (``host`` or ``host:port``) whose pages a part's reading list puts
        #: after the other candidates, by the kind of question the part asks
        #: (:attr:`~research.question.Focus.kind`); set by the Host, empty by default
        self.read_last: Mapping[str, frozenset[str]] = {}

    # -- what earlier runs made of the same texts -----------------------------------------

    async def recall(self) -> None:
        """Take the scores earlier runs of the same plan gave short texts (search results'
        and links' descriptions, tables) from the page cache (see :mod:`..prepared`); at
        once when the run starts."""
        if not self.plan_key:
            self.plan_key = await asyncio.to_thread(plan_digest, self.focus)
            await recall_scores(self.plan_key)

    async def _prepared(self, text: str, title: str, origin: str) -> tuple[Prepared, dict]:
        """A source's prepared document (held for the run), and what the plan's parts
        made of it in an earlier run (empty: nothing)."""
        await self.recall()
        prepared = await prepare_source(text, title, origin)
        try:
            raw = prepared.judged.get(self.plan_key) or {}
            judged = {str(sid): Judged.from_dict(found) for sid, found in raw.items()}
        except (ValueError, TypeError, KeyError, AttributeError):
            judged = {}
        whole = set(judged) == set(self.focus)
        fits = all(j.fits(len(prepared.doc.sentences)) for j in judged.values())
        return prepared, judged if whole and fits else {}

    async def _kept(self, prepared: Prepared, made: dict[str, Judged]) -> None:
        """Keep a source's document with what the plan's parts made of it."""
        judged = {sid: found.to_dict() for sid, found in made.items()}
        await keep_source(prepared, self.plan_key, judged)

    # -- checkpoints -------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """Everything but the texts (which stay in the run folder), JSON-ready."""
        return {
            "candidates": [
                asdict(c) | {"tools": sorted(c.tools)} for c in self.candidates.values()
            ],
            "sources": [
                asdict(s) | {"relevant_to": sorted(s.relevant_to)} for s in self.sources.values()
            ],
            "evidence": self.evidence,
            "likelihood": self.likelihood,
            "leads": self.leads,
            "promoted": self.promoted,
            "sentences": self.sentences,
            "page_terms": {
                sid: {path: t.to_dict() for path, t in pages.items()}
                for sid, pages in self.page_terms.items()
            },
            "tables": self.tables,
            "about": {k: sorted(v) for k, v in self.about.items()},
            "found_tables": {k: asdict(v) for k, v in self.found_tables.items()},
            "rounds": self.rounds,
            "queries": self.queries,
            "assigned": self.assigned,
            "assigned_docs": sorted(self.assigned_docs),
            "failures": self.failures,
            "requirements": self.requirements,
            "briefs": self.briefs,
            "brief_about": self.brief_about,
            "own_about": self.own_about,
            "finished": sorted(self.finished),
            "result_lists": self.result_lists,
            "linkless": sorted(self.linkless),
            "web_calls": self.web_calls,
        }

    async def restore(self, state: dict[str, Any]) -> None:
        """Continue from a checkpoint's state; the sources' texts are read back."""
        for raw in state["candidates"]:
            cand = Candidate(**{**raw, "tools": set(raw["tools"])})
            self.candidates[url_key(cand.url)] = cand
        for raw in state["sources"]:
            source = Source(**{**raw, "relevant_to": set(raw["relevant_to"])})
            self.sources[source.path] = source
            try:
                self.texts[source.path] = await self.service.read_text(source.path)
            except FsError:
                self.texts[source.path] = ""
        self.evidence = {k: dict(v) for k, v in state["evidence"].items()}
        for k, v in (state.get("likelihood") or {}).items():
            self.likelihood[k] = dict(v)
        self.leads = {k: dict(v) for k, v in state.get("leads", {}).items()} or self.leads
        self.promoted = {k: list(v) for k, v in state.get("promoted", {}).items()}
        self.sentences = {k: dict(v) for k, v in state.get("sentences", {}).items()} or (
            self.sentences
        )
        for sid, pages in state.get("page_terms", {}).items():
            self.page_terms[sid] = {p: PageTerms.from_dict(t) for p, t in pages.items()}
        self.tables = {k: dict(v) for k, v in state["tables"].items()}
        self.about = {k: set(v) for k, v in state["about"].items()}
        self.found_tables = {k: Found(**v) for k, v in state["found_tables"].items()}
        self.rounds, self.queries = dict(state["rounds"]), dict(state["queries"])
        self.assigned = {k: list(v) for k, v in state["assigned"].items()}
        self.assigned_docs = set(state["assigned_docs"])
        self.linkless = set(state.get("linkless", []))
        self.failures = list(state["failures"])
        self.requirements, self.briefs = list(state["requirements"]), list(state["briefs"])
        self.brief_about = str(state.get("brief_about") or "")
        self.own_about = bool(state.get("own_about"))
        self.finished = set(state["finished"])
        self.result_lists = list(state.get("result_lists", []))
        self.web_calls = {**self.web_calls, **(state.get("web_calls") or {})}

    def release(self, unfinished: list[dict[str, Any]]) -> None:
        """Hand back the pages and documents of tasks that did not finish, so that a
        later task may read them (their stored copies are reused, not fetched again)."""
        for task in unfinished:
            sub = task.get("subquestion")
            if sub in self.assigned:
                self.assigned[sub] = [u for u in self.assigned[sub] if u not in task["urls"]]
            self.assigned_docs -= set(task.get("documents") or [])

    # -- the web ---------------------------------------------------------------------

    def note_web_calls(self, statuses: list[str]) -> None:
        """Count a finished task's web calls by how they ended (``ok``, ``unavailable``…)."""
        self.web_calls["made"] += len(statuses)
        self.web_calls["unavailable"] += statuses.count("unavailable")

    @property
    def web_unreached(self) -> bool:
        """The run tried the web and reached none of it: web calls were unavailable, and
        not one web page was read (what the report says, it says from the files)."""
        return self.web_calls["unavailable"] > 0 and not any(
            s.kind == "web" for s in self.sources.values()
        )

    def no_web(self) -> str | None:
        """What the report says when the web was not reached (the key of its label in
        :mod:`research.labels`, as :func:`research.notes.research_notes` picks it)."""
        if not self.web_unreached:
            return None
        return no_web_label(self)

    # -- search results --------------------------------------------------------------

    def note_query(self, sub_id: str, query: str) -> None:
        """Keep a query sent for a part, answered or not (the report says what was
        searched, also when every search engine failed)."""
        if query and query not in self.queries[sub_id]:
            self.queries[sub_id].append(query)

    def add_results(self, sub_id: str, tool: str, text: str, query: str) -> int:
        """Pool the items of one search result text; returns how many were new."""
        self.note_query(sub_id, query)
        items = result_list(text)
        if not items:
            return 0
        self.result_lists.append(
            {
                "source": tool,
                "subquestion": sub_id,
                "query": query,
                "results": [str(i["url"]) for i in items if isinstance(i, dict) and i.get("url")],
            }
        )
        new = 0
        for rank, item in enumerate(items):
            if not isinstance(item, dict) or not str(item.get("url", "")).startswith("http"):
                continue
            url = str(item["url"])
            key = url_key(url)
            title, snippet = str(item.get("title", "")), str(item.get("snippet", ""))
            cand = self.candidates.get(key)
            if cand is None:
                cand = self.candidates[key] = Candidate(url, title, snippet)
                new += 1
            self._promise(cand, snippet, title)
            cand.tools.add(tool)
            cand.rank = min(cand.rank, rank)
            cand.ranks[sub_id] = min(cand.ranks.get(sub_id, rank), rank)
        return new

    def fetched(self, url: str) -> bool:
        return self.ledger.pages.stored(url) is not None

    def reading_list(self, sub_id: str, limit: int, exclude: set[str] | None = None) -> list[str]:
        """The best pages for a sub-question that nobody has read or been handed yet, most
        relevant first (a page read for one part is scored for every part anyway), those
        of a site :attr:`read_last` names for the part's kind of question after all the
        others."""
        taken = {u for urls in self.assigned.values() for u in urls} | (exclude or set())
        pool = [
            c
            for c in self.candidates.values()
            if not is_document(c.url) and not self.fetched(c.url) and c.url not in taken
        ]
        last = self.read_last.get(self.focus[sub_id].kind, frozenset())
        pool.sort(
            key=lambda c: (
                site_key(c.url) in last,
                -c.expected(sub_id),
                -len(c.tools),
                c.rank,
                c.url,
            )
        )
        return [c.url for c in pool[:limit]]

    def pages_read(self, sub_id: str) -> list[str]:
        """The address of each page read for a part: handed to one of its reading tasks
        and stored, at the address it was stored from (after redirects)."""
        read = []
        for url in dict.fromkeys(self.assigned[sub_id]):
            path = self.ledger.pages.stored(url)
            if path is not None:
                source = self.sources.get(path)
                read.append(source.url if source is not None else url)
        return read

    def answered_from(self, sub_id: str) -> set[str]:
        """The addresses of the sources a part took evidence (or a table) from."""
        return set(self._urls({**self.tables[sub_id], **self.evidence[sub_id]}).values())

    def documents(self) -> list[str]:
        """Documents found by search or linked from pages read, not downloaded or handed
        out yet, most relevant first: only those a search returned or a page that
        answers a part links to (a question the pages read do not answer downloads
        nothing they link to)."""
        answering = {url_key(s.url) for s in self.sources.values() if s.relevant_to}
        found = [
            c
            for c in self.candidates.values()
            if is_document(c.url)
            and not self.fetched(c.url)
            and c.url not in self.assigned_docs
            and (c.tools - {"link"} or any(url_key(u) in answering for u in c.linked_from))
        ]
        found.sort(key=lambda c: (-max(c.scores.values(), default=0.0), c.rank, c.url))
        return [c.url for c in found]

    # -- sources ---------------------------------------------------------------------

    async def absorb_pages(self) -> list[str]:
        """Score every stored page not scored yet against every sub-question.

        Tasks that end together absorb one after the other (see :attr:`absorbing`), so
        that a page is scored once and every task's coverage counts the pages stored
        before it ended.

        Returns the paths of the pages newly scored.
        """
        async with self.absorbing:
            return await self._absorb_pages()

    async def _absorb_pages(self) -> list[str]:
        try:
            entries = await self.service.walk_files("/workspace/pages/")
        except FsError:
            return []
        new = []
        for entry in sorted(entries, key=lambda e: e.path):
            path = entry.path
            if not path.endswith(".md") or path in self.sources:
                continue
            try:
                text = await self.service.read_text(path)
                record = PageRecord.from_json(await self.service.read_text(sidecar_path(path)))
            except (FsError, ValueError, TypeError, KeyError):
                continue
            url = record.final_url or record.url
            title = addressed_title(url, record.title, text, self._cores())
            prepared, judged = await self._prepared(text, title or record.title, record.sha256)
            with withholding(prepared.private):  # nothing of a page not to keep is kept
                made = self._score(path, text, url, record.title, "web", judged, title)
                self.sources[path].published = record.published
                if record.has_links:
                    self._add_links(text, url, record.title)
                else:  # a plain-text page: a URL written in it is text, never a link
                    self.linkless.add(path)
            await self._kept(prepared, made)
            new.append(path)
        return new

    def page_links(self, path: str, text: str) -> list[tuple[str, str]]:
        """The links of the stored page at ``path`` (none for a plain-text page)."""
        return [] if path in self.linkless else links(text)

    def _add_links(self, text: str, page_url: str, title: str) -> None:
        """A page's links become candidates: in-site pages scored by their link text (with
        the page's title as context), documents for downloading."""
        host = urlsplit(page_url).netloc
        for anchor, target in links(text):
            if not target.startswith(("http://", "https://")):
                continue
            key = url_key(target)
            inside = urlsplit(target).netloc == host
            if key not in self.candidates and not inside and not is_document(target):
                continue
            cand = self.candidates.get(key)
            if cand is None:
                cand = self.candidates[key] = Candidate(target, anchor, "", {"link"}, 50)
            if page_url not in cand.linked_from:
                cand.linked_from.append(page_url)
            self._promise(cand, f"{anchor}.", title)

    def _promise(self, cand: Candidate, text: str, title: str) -> None:
        """What one more description of a candidate page (a search result's title and
        snippet, or a link's text under its page's title) promises for each part: its best
        description counts, since engines describe the same page differently (one by a
        repository-like name, another by the page's title and an excerpt)."""
        key = url_key(cand.url)
        for sid, focus in self.focus.items():
            if (sid, key, text, title) in self.promised:
                continue  # the same description promises the same again
            self.promised.add((sid, key, text, title))
            cand.scores[sid] = max(cand.scores.get(sid, 0.0), score_text(focus, text, title))

    async def absorb_file(self, source: FileSource) -> None:
        """Store a file's extract and score it; a brief gives its requirements, and its
        facts (its extract, when it states any) are scored like any file's text. One
        source at a time, as pages are (see :attr:`absorbing`)."""
        async with self.absorbing:
            await self._absorb_file(source)

    async def _absorb_file(self, source: FileSource) -> None:
        if source.brief:
            if source.file_path not in self.briefs:
                self.briefs.append(source.file_path)
            self.brief_about = self.brief_about or source.about
            self.requirements.extend(r for r in source.requirements if r not in self.requirements)
        if not source.text.strip() or source.path in self.sources:
            return
        # A downloaded document is cited by the address it came from, not its place in
        # the run's folder.
        url = self.ledger.pages.origin(source.file_path) or source.file_path
        await self.service.write_text(source.path, source.text)
        record = file_record(source, url)
        if fetched := self.ledger.pages.source_at(source.file_path):  # a download's copy
            record.fetched_at = str(fetched.get("fetched_at") or record.fetched_at)
            record.from_cache = bool(fetched.get("from_cache"))
            record.revalidated = bool(fetched.get("revalidated"))
        await self.service.write_text(sidecar_path(source.path), record.to_json())
        origin = str((fetched or {}).get("sha256") or "")  # a download's bytes
        own = own_file(url)
        lend = own and (
            self.own_about or speaks_of_subject(source.title, source.text, self._cores())
        )
        if lend:
            title = self._lent_title(source.title, source.text)
        elif own:
            title = ""
        else:  # a download whose address names the subject, as a web page's may
            title = addressed_title(url, source.title, source.text, self._cores())
        prepared, judged = await self._prepared(source.text, title or source.title, origin)
        with withholding(prepared.private):  # nothing of a download not to keep is kept
            made = self._score(source.path, source.text, url, source.title, "file", judged, title)
        await self._kept(prepared, made)
        if lend:
            self._lend_to_the_rest()

    def _cores(self) -> list[tuple[str, ...]]:
        """The subject heads of the plan's parts (:attr:`~research.question.Focus.core`)."""
        return [f.core for f in self.focus.values()]

    def _lent_title(self, title: str, text: str) -> str:
        """The title a file of the user's own is read under, the question's subject lent
        (see :func:`~host.sources.lent_title`); "" for a file that names it itself."""
        return lent_title(self.plan.question, title, text, self._cores())

    def _lend_to_the_rest(self) -> None:
        """Once a file of the user's own shows the folder to be about the question's
        subject, score again under :func:`~host.sources.lent_title` the user's files read
        before that do not name the subject themselves (a file's evidence only gains)."""
        self.own_about = True
        for source in list(self.sources.values()):
            if source.kind != "file" or not own_file(source.url) or source.read_as:
                continue
            if title := self._lent_title(source.title, self.texts[source.path]):
                self._score(
                    source.path, self.texts[source.path], source.url, source.title, "file",
                    scored_title=title,
                )  # fmt: skip

    def _score(
        self,
        path: str,
        text: str,
        url: str,
        title: str,
        kind: str,
        judged: dict[str, Judged] | None = None,
        scored_title: str = "",
    ) -> dict[str, Judged]:
        """Score a source against every part: what each part makes of it (``judged``,
        when an earlier run judged the same text for the same parts: see
        :mod:`..prepared`), taken into the run's evidence and leads.

        A file of the user's own is scored under ``scored_title`` when the question's
        subject is lent to it (see :func:`~host.sources.lent_title`; a source scored
        before is scored again so), and so is a page whose address names the subject
        (see :func:`~host.sources.addressed_title`); the source keeps its own ``title``.

        Returns:
            What each part made of it (none under the learned model, which weighs every
            page read again as each is read).
        """
        doc = Document.of(text, scored_title or title)
        self.texts[path] = text
        source = self.sources.get(path) if scored_title else None  # scored again, lent
        if source is None:
            source = self.sources[path] = Source(path, url, title, kind)
        source.read_as = scored_title
        made: dict[str, Judged] = {}
        for sid, focus in self.focus.items():
            self.page_terms[sid][path] = PageTerms.of(focus.words, doc.counts)
            if LEARNED:
                if page_salience(focus, doc) >= ABOUT:
                    self.about[sid].add(url)
                best = assessed(focus, doc)[:ITEMS_PER_SOURCE]
                weighed = [(doc.index(s.sentence), s.score, s.features) for s in best]
                self._weigh(sid, weighed, doc, source)
                continue
            found = (judged or {}).get(sid) or judge(focus, doc)
            made[sid] = found
            self._take(sid, found, doc, source, kind)
        if LEARNED:  # a new page changes where every page stands
            self._rescore()
        else:  # a new page may change which page answers a part best
            self._unsure()
        self._score_tables(path, text, title, kind)
        return made

    def _take(self, sid: str, judged: Judged, doc: Document, source: Source, kind: str) -> None:
        """Take what part ``sid`` made of a source in: the source about the part, its
        best sentences as evidence and its leads."""
        url, path = source.url, source.path
        if judged.about:
            self.about[sid].add(url)
        for index, score, chance in judged.items:
            item = self.ledger.add(self._item(doc.sentences[index], doc, url, path, kind))
            old = self.evidence[sid].get(item.id, 0.0)
            self.evidence[sid][item.id] = max(old, score)
            self._likely(sid, item.id, chance)
            source.relevant_to.add(sid)
        self._weigh(sid, judged.weighed, doc, source)
        for index, score, rank, passage, chance in judged.leads:
            item = self._item(doc.sentences[index], doc, url, path, kind)
            self.leads[sid][f"{path}#{item.start}-{item.end}"] = item.to_dict() | {
                "score": score,
                "rank": rank,
                "passage": passage,
                "likelihood": chance,
            }

    def item(self, ev_id: str) -> EvidenceItem | None:
        """The evidence item with this id (None when the ledger has none)."""
        return self.ledger.get(ev_id)

    def cite(self, path: str, start: int, end: int, locator: str = "") -> EvidenceItem:
        """The ledger's item quoting ``start:end`` of the source read at ``path``; in a
        file, ``locator`` gives way to the page, slide or sheet the span is on."""
        text = self.texts[path]
        if self.sources[path].kind == "file":
            locator = file_place(text, start) or locator
        item = EvidenceItem(
            url=self.sources[path].url,
            span=text[start:end],
            start=start,
            end=end,
            page_path=path,
            locator=locator,
        )
        return self.ledger.add(item)

    @staticmethod
    def _item(s: Sentence, doc: Document, url: str, path: str, kind: str) -> EvidenceItem:
        """The evidence item quoting a sentence of ``doc`` (with the sentence before it,
        when it leans on that one: see :func:`~research.relevance.quote_bounds`)."""
        start, end = quote_bounds(doc, s)
        return EvidenceItem(
            url=url,
            span=doc.text[start:end],
            start=start,
            end=end,
            page_path=path,
            locator=(file_place(doc.text, start) or s.section) if kind == "file" else "",
        )

    def _weigh(
        self,
        sid: str,
        weighed: Iterable[tuple[int, float, Features]],
        doc: Document,
        source: Source,
    ) -> None:
        """Keep a source's best sentences for a part by the sentence model, each by its
        index in ``doc`` with its score and its own features, for the learned models
        (see :meth:`_choices`)."""
        for index, score, features in weighed:
            item = self._item(doc.sentences[index], doc, source.url, source.path, source.kind)
            key = f"{source.path}#{item.start}-{item.end}"
            self.sentences[sid][key] = item.to_dict() | {"score": score, "features": features}

    def _choices(self) -> dict[str, dict[int, float]]:
        """What the learned models have each part quote, by index in its kept sentences
        (:attr:`sentences`): of its :data:`~research.ranking.CANDIDATES` best over the
        sources read, by the sentence model with each page's standing among the pages
        read for the question's parts (see :func:`research.retrieval.standing`), what the
        answer model has it quote, weighing what the question's other parts quote too
        (see :func:`research.ranking.evidence`), with the answer model's probability."""
        rankings = {part: self._ranking(part) for part in self.page_terms}
        asked = {p: bm25(self.focus[p].asked, self.page_terms[p]) for p in self.page_terms}
        addresses = {path: source.url for path, source in self.sources.items()}
        linking = {path: self._links(path) for path in addresses}
        asked_terms = {sid: self.focus[sid].asked for sid in rankings}
        places = standings(rankings, asked, asked_terms, linking, addresses)
        parts = {}
        for sid, kept in self.sentences.items():
            read = [(raw["page_path"], raw["span"], raw["features"]) for raw in kept.values()]
            parts[sid] = Part.of(read, places[sid], script(self.focus[sid].text))
        return ranked_evidence(parts)

    def _take_chosen(
        self, sid: str, chosen: Mapping[int, float], own: bool = False
    ) -> dict[str, float]:
        """Take the sentences the learned models chose for a part (see :meth:`_choices`)
        into the ledger; their evidence ids with the answer model's probabilities (with
        ``own``, their own scores as kept instead)."""
        kept = list(self.sentences[sid].values())
        evidence: dict[str, float] = {}
        for i, probability in chosen.items():
            raw = dict(kept[i])
            item = self.ledger.add(EvidenceItem.from_dict(raw))
            score = float(raw["score"]) if own else probability
            evidence[item.id] = max(evidence.get(item.id, 0.0), score)
            self._likely(sid, item.id, likelihood(raw["features"]))
        return evidence

    def _rescore(self) -> None:
        """Under the learned model, every part's evidence: what the learned models have
        it quote (see :meth:`_choices`). A sentence that falls out as better pages are
        read stays in the ledger, uncited."""
        for sid, chosen in self._choices().items():
            self.evidence[sid] = self._take_chosen(sid, chosen)
            cited = {it.page_path for i in self.evidence[sid] if (it := self.ledger.get(i))}
            for source in self.sources.values():
                if source.path in cited:
                    source.relevant_to.add(sid)
                else:
                    source.relevant_to.discard(sid)

    def _unsure(self) -> None:
        """Under the rules, each part's leads: its nearest quotes under the threshold. For
        a part none of whose sentences read reaches the threshold, those the learned
        models choose (see :meth:`_choices`: they judge from data what the hand-set
        tests of a lead guess), each with its own score; for any other part, and one
        they choose nothing for, those the hand-set tests find (see :meth:`_promote`),
        as for every part with ``QUARTET_UNSURE=leads``. A part's leads are chosen again
        each time a page is read (see :meth:`_withdraw`)."""
        # every lead is under the threshold: a part has evidence over it of its own
        unsure = [
            sid
            for sid in self.focus
            if max(self.evidence[sid].values(), default=0.0) < self._bar(sid)
        ]
        chosen = self._choices() if UNSURE_MODEL and unsure else {}
        for sid in self.focus:
            taken = self._take_chosen(sid, chosen.get(sid, {}), own=True) if sid in unsure else {}
            if taken:
                self._withdraw(sid, taken)
                self.evidence[sid].update(taken)
                for item in filter(None, map(self.ledger.get, taken)):
                    if source := self.sources.get(item.page_path):
                        source.relevant_to.add(sid)
            elif self.leads[sid]:
                self._promote(sid)
            else:
                self._withdraw(sid, {})

    def _bar(self, sid: str) -> float:
        """The score from which a sentence is evidence for part ``sid`` (see
        :func:`~research.relevance.evidence_threshold`)."""
        return evidence_threshold(self.focus[sid])

    def _withdraw(self, sid: str, kept: Collection[str]) -> None:
        """Make ``kept`` a part's leads: the leads it took in before and not kept give
        way (they stay in the ledger, uncited)."""
        bar = self._bar(sid)
        for before in self.promoted.get(sid, []):
            if before not in kept and self.evidence[sid].get(before, 1.0) < bar:
                del self.evidence[sid][before]
        self.promoted[sid] = list(kept)

    def _links(self, path: str) -> list[tuple[str, frozenset[str]]]:
        """A source's links (see :func:`research.retrieval.link_words`), read once."""
        if path not in self.link_cache:
            self.link_cache[path] = link_words(self.texts.get(path, ""), self.sources[path].url)
        return self.link_cache[path]

    def _promote(self, sid: str) -> None:
        """Take a part's best leads in as evidence: from the page that answers the part
        best among those with leads (see :func:`research.retrieval.bm25`), its
        :data:`~research.selection.PROMOTED` best (see :func:`research.selection.promote`),
        whether or not others reach the threshold. A passage (see
        :attr:`~research.relevance.Scored.passage`) counts only on a page that answers the
        question with evidence of its own."""
        taken = []
        ranking = self._ranking(sid)
        anchored = self._anchored()
        first = max(ranking, key=lambda p: (ranking[p], p), default="")
        leads = [
            v
            for v in self.leads[sid].values()
            if (v["page_path"] in anchored or not v.get("passage")) and self._near(sid, v, first)
        ]
        bar = self._bar(sid)
        rivals = {
            item.page_path
            for ev_id, score in self.evidence[sid].items()
            if score >= bar and (item := self.ledger.get(ev_id)) is not None
        }
        for lead in selection.promote(leads, ranking, rivals):
            item = self.ledger.add(EvidenceItem.from_dict(dict(lead)))
            taken.append(item.id)
            self.evidence[sid][item.id] = max(self.evidence[sid].get(item.id, 0.0), lead["score"])
            self._likely(sid, item.id, lead.get("likelihood", 0.0))
            source = self.sources.get(lead["page_path"])
            if source is not None:
                source.relevant_to.add(sid)
        self._withdraw(sid, taken)

    def _near(self, sid: str, lead: Mapping[str, Any], first: str) -> bool:
        """Whether a lead may stand as a part's nearest quote: it scores something for the
        part, or its page is about the part, or its page (at path ``first``) answers the
        part best of those read. A top sentence of the page another part is answered on,
        scoring nothing for this one while another page answers it better, is none."""
        source = self.sources.get(lead["page_path"])
        about = source is not None and source.url in self.about[sid]
        return lead["score"] > 0.0 or about or lead["page_path"] == first

    def _likely(self, sid: str, ev_id: str, chance: float) -> None:
        """Keep the likelihood an evidence item holds a part's answer (the highest any
        of its sentences was given)."""
        self.likelihood[sid][ev_id] = max(self.likelihood[sid].get(ev_id, 0.0), chance)

    def _anchored(self) -> set[str]:
        """The sources known to be about the question: those that answer a part with
        evidence of their own (a sentence over the threshold, or a lead on a page whose
        title names the part's subject), and the page most of the question's parts (two
        at least) rank first, each when that page says its subject (see
        :func:`research.retrieval.agreed`): a page whose words several parts share, while
        it never names what they ask about, is about none of them."""
        passages = {
            (v["page_path"], v["start"], v["end"])
            for leads in self.leads.values()
            for v in leads.values()
            if v.get("passage")
        }
        out = set()
        for ids in self.evidence.values():
            for ev_id in ids:
                item = self.ledger.get(ev_id)
                if item is not None and (item.page_path, item.start, item.end) not in passages:
                    out.add(item.page_path)
        parts = list(self.page_terms)
        return out | agreed(
            [self._ranking(sid) for sid in parts], [self._naming(sid) for sid in parts]
        )

    def _naming(self, sid: str) -> set[str]:
        """The sources read that name part ``sid``'s subject by its most telling term (of
        the highest weight: the rarest, or any where all weigh alike, as every word of a
        language read by the generic path does), by their paths; every source, for a
        part with no subject."""
        subject = self.focus[sid].subject_weights
        top = max(subject.values(), default=0.0)
        telling = [term for term, weight in subject.items() if weight >= top]
        return {
            path
            for path, said in self.page_terms[sid].items()
            if not telling or any(said.counts.get(term) for term in telling)
        }

    def _ranking(self, sub_id: str) -> dict[str, float]:
        """How well each source read answers a part, by its path (see
        :func:`research.retrieval.bm25`)."""
        return bm25(self.focus[sub_id].words, self.page_terms[sub_id])

    def _score_tables(self, path: str, text: str, title: str, kind: str) -> None:
        """Each table of a source, cited as its exact block, scored against every part.

        A file's table has no page title to say what it is about: it is scored by
        :func:`~research.tables.file_table_score`, as being about the question's subject
        but answering only the parts whose own words it says; it is cited with its sheet
        as locator.
        """
        subject = entity(self.plan.question) if kind == "file" else ""
        for found in tables_in(text, sheets=kind == "file"):
            if len(found.rows) < 2:
                continue
            scores = {
                sid: (
                    file_table_score(focus, found, subject, self.sources[path].url)
                    if kind == "file"
                    else table_score(focus, found, f"{title} {found.section}")
                )
                for sid, focus in self.focus.items()
            }
            if all(v < evidence_threshold(self.focus[k]) for k, v in scores.items()):
                continue
            locator = found.section if kind == "file" else ""
            item = self.cite(path, found.start, found.end, locator)
            self.found_tables[item.id] = found
            for sid, score in scores.items():
                if score >= evidence_threshold(self.focus[sid]):
                    self.tables[sid][item.id] = score

    # -- coverage and gaps -------------------------------------------------------------

    def abandon(self) -> list[str]:
        """The research ends early (the Host failed, the user stopped the run or a
        budget was spent): every part it never reached, with no round, no query and no
        evidence, is marked *not researched* rather than *not found*. Returns their
        ids."""
        reached = {k for k, n in self.rounds.items() if n} | {
            k for k, q in self.queries.items() if q
        }
        self.unresearched = {
            s.id for s in self.plan.subquestions if s.id not in reached and not self.evidence[s.id]
        }
        return sorted(self.unresearched)

    def coverage(self, sub_id: str) -> Coverage:
        """How well a part is answered so far (see :func:`research.coverage.coverage`); a
        table that answers it counts as its evidence (a part a spreadsheet answers is
        found, with the table as its answer)."""
        ids = {**self.tables[sub_id], **self.evidence[sub_id]}
        if sub_id in self.unresearched and not ids:
            return Coverage(0, 0, "not researched")
        closed = sub_id in self.finished or self.rounds[sub_id] >= self.max_rounds
        urls = self._urls(ids)
        kind = answer.wanted(self.focus[sub_id])
        answering = self._answering(sub_id, ids) if kind else None
        rounds = self.rounds[sub_id]
        about, rule = self.about[sub_id], RULES
        if LEARNED:  # the answer model judged each page: any source it quotes is about it
            about, rule = set(urls.values()), calibrated(answer_threshold(self.focus[sub_id]))
        return part_coverage(ids, urls, about, rounds, closed, answering, kind, rule)

    def _answering(self, sub_id: str, ids: Iterable[str]) -> set[str]:
        """The evidence ids whose text gives the kind of answer a part asks for (a date,
        a figure: see :func:`research.answer.gives_answer`)."""
        focus = self.focus[sub_id]
        items = ((i, self.ledger.get(i)) for i in ids)
        return {
            i for i, item in items if item is not None and answer.gives_answer(focus, item.span)
        }

    def update_plan(self) -> None:
        """Write each sub-question's status and best evidence ids into the plan."""
        for sub in self.plan.subquestions:
            cov = self.coverage(sub.id)
            sub.status = cov.status
            sub.evidence_ids = self.best(sub.id, limit=12)

    def best(self, sub_id: str, limit: int) -> list[str]:
        """The best evidence ids of a sub-question, alternating between sources."""
        return selection.best(self.evidence[sub_id], self._urls(self.evidence[sub_id]), limit)

    def _urls(self, ids: Iterable[str]) -> dict[str, str]:
        """The source address of each evidence id the ledger holds."""
        return {i: item.url for i in ids if (item := self.ledger.get(i)) is not None}

    def quotes(self) -> dict[str, Quote]:
        """Every evidence item of the run as a quote (see :mod:`research.selection`)."""
        out = {}
        for sub in self.plan.subquestions:
            for ev_id in self.evidence[sub.id]:
                item = self.ledger.get(ev_id)
                if item is not None:
                    out[ev_id] = Quote(ev_id, item.url, item.span, item.start)
        return out

    def select(self, limit: int) -> dict[str, list[str]]:
        """The evidence each part's section quotes (see :func:`research.selection.select`)."""
        parts = [s.id for s in self.plan.subquestions]
        pages = {sid: self.page_ranking(sid) for sid in parts}
        quotes = self.quotes()
        explaining = {sid: answer.explains(self.focus[sid]) for sid in parts}
        lang = self.plan.language
        return selection.select(
            parts, self.evidence, quotes, lang, limit, pages, explaining, self.likelihood
        )

    def page_ranking(self, sub_id: str) -> dict[str, float]:
        """How well each source read answers a part, by its address (see
        :func:`research.retrieval.bm25`)."""
        ranking = self._ranking(sub_id)
        return {self.sources[p].url: v for p, v in ranking.items() if p in self.sources}

    def open_gaps(self) -> list[str]:
        """Sub-questions not answered yet that still have rounds left."""
        return [
            s.id
            for s in self.plan.subquestions
            if self.coverage(s.id).status != "answered"
            and self.rounds[s.id] < self.max_rounds
            and s.id not in self.finished
        ]

    def missing(self, sub_id: str) -> str:
        """What is still missing for a sub-question, in words."""
        return still_missing(self.coverage(sub_id))

    def suggestions(self, sub_id: str) -> dict[str, list[str]]:
        """New queries and links for a gap, from the key terms and the pages read so far
        (the same pages read give the same suggestions, whatever order they were read in)."""
        focus = self.focus[sub_id]
        sub = self.plan.get(sub_id)
        tried = set(self.queries[sub_id]) | set(sub.queries if sub else [])
        wanted = {f.term for f in focus.facets} | {e for f in focus.facets for e in f.equivalents}
        if not wanted:
            wanted = set(focus.subject)
        queries: list[str] = []
        links_out: list[str] = []
        # by path, not in the order read: pages read together are stored in any order
        for source in sorted(self.sources.values(), key=lambda s: s.path):
            if source.kind != "web":
                continue
            text = self.texts.get(source.path, "")
            for heading in re.findall(r"^#{1,6}\s+(.+)$", text, re.M):
                if wanted & set(terms(heading)):
                    queries.append(_query_from(plain(heading), focus))
            host = urlsplit(source.url).netloc
            for anchor, target in self.page_links(source.path, text):
                if not target.startswith("http") or self.fetched(target) or is_document(target):
                    continue
                if wanted & set(terms(anchor)):
                    queries.append(_query_from(anchor, focus))
                    if urlsplit(target).netloc == host:
                        links_out.append(target)
        for query in sub.queries if sub else []:
            queries.append(query)
        fresh = [q for q in dict.fromkeys(queries) if q and q not in tried]
        return {"queries": fresh[:3], "links": list(dict.fromkeys(links_out))[:4]}

    # -- records -----------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Coverage of every sub-question, for task results and run.json."""
        out = []
        for sub in self.plan.subquestions:
            cov = self.coverage(sub.id)
            out.append(
                {
                    "id": sub.id,
                    "text": sub.text,
                    "status": cov.status,
                    "evidence": cov.items,
                    "sources": cov.sources,
                    "rounds": self.rounds[sub.id],
                    "missing": self.missing(sub.id),
                }
            )
        return {"subquestions": out}

    def answered(self) -> int:
        """How many sub-questions have at least one relevant, verified item."""
        return sum(1 for s in self.plan.subquestions if self.evidence[s.id])

    def off_topic(self) -> list[Source]:
        """Pages read that answer no sub-question."""
        return [s for s in self.sources.values() if s.kind == "web" and not s.relevant_to]


def _query_from(text: str, focus: Focus) -> str:
    """A short query: the subject's core words and the key words of ``text``."""
    words = [w for w in re.findall(r"[\w'’-]+", text) if len(w) > 2][:5]
    lead = _core_surface(focus)
    return " ".join([lead, *[w for w in words if w.lower() not in lead.lower()]]).strip()


def _core_surface(focus: Focus) -> str:
    """The subject's core phrase as written in its sub-question ("Eiffel Tower")."""
    if not focus.core:
        return ""
    if _cjk(focus.core[0]):
        return focus.core[0]
    found = []
    for word in re.findall(r"[A-Za-z][\w'’-]*", focus.text):
        if terms(word) and terms(word)[0] in focus.core and word not in found:
            found.append(word)
    return " ".join(found[-2:])


def _cjk(text: str) -> bool:
    return bool(CJK.match(text))


__all__ = ["Candidate", "Coverage", "Research", "Source", "SubQuestion", "is_document"]
