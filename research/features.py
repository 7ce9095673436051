"""The named features of a sentence for a part (:func:`features_of`).

The learned model (:mod:`research.ranking`) weighs them and the rules
(:mod:`research.rules`) combine them: how far the sentence is about the subject and how
it meets each facet (from :mod:`research.aboutness`), the share of the facets it says
(:func:`said_share`), the kind of answer it carries (:func:`carried_answer`), whether
it speaks of the time the part asks about (:func:`time_mismatch`), and how it stands
among its page's sentences by the part's words that are rare on that page
(:func:`local_match`) and by the part's grams.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from .aboutness import (
    MORPHEME,
    _aboutness,
    _facet_match,
    _geometric,
    _page_view,
    _PageView,
    _section_view,
    _site_terms,
    as_written,
)
from .document import Document
from .facts import (
    asks_frequency,
    count_of,
    counted_in,
    dimension_asked,
    gives_measure,
    has_count,
    has_date,
    has_frequency,
    has_quantity,
    has_span,
    measure_asked,
    opens_leaning,
    states_cause,
)
from .facts import years as facts_years
from .paraphrase import similarities
from .present import asks_present, is_current, is_modern, says_present
from .question import KIND_NAMED, Facet, Focus, localizer, names_kind, zh_tagged
from .ranking import Features
from .retrieval import BM25
from .rules import RuleTerms
from .text import CJK, grams, is_cjk, plain, stem, terms

#: A facet counts as said from this match (an equivalent word, a heading about it;
#: not a page that merely mentions it elsewhere).
SAID = 0.6

#: The sentences of a page ranked first by the page-local match (see :func:`_local`):
#: the feature ``local_top``, and under the rules the sentences that may stand as a
#: part's lead (see :data:`research.relevance.LOCAL_LEAD`).
LOCAL_TOP = 3


def features_of(focus: Focus, doc: Document, index: int) -> Features:
    """The features of sentence ``index`` of ``doc`` for ``focus`` that the learned model
    (:mod:`research.ranking`) weighs:

    - ``subject``: the log of how far the sentence, or at least its page, is about the
      part's subject (:func:`~research.aboutness._aboutness`);
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
    - ``local``, ``local_top``: how it says the part's words that are rare on its own page
      (the text of its links included, as a reader reads it),
      as a share of the page's best, and whether it is among the page's best
      :data:`LOCAL_TOP`; ``page_named``: the page's title names the subject;
      ``title_asked``: the share of the part's facets (by weight) its page's title says
      (a site's page on one topic names the topic, not always the subject);
    - ``grams``, ``grams_best``: the share of the part's words (any language: character
      pairs where words are not spaced) it says, weighed by their rarity on the page, and
      as a share of the page's best: the one signal that needs no word list;
      ``spaceless``, ``grams_spaceless``: the part is written without spaces between
      words (Chinese, Thai), and ``grams`` again for such a part only (a pair of
      characters says less than a word);
    - ``length``: the log of its length;
    - ``paraphrase``, ``paraphrase_gap``: how close it comes, by word embeddings, to what
      the part asks beyond its subject (in other words than the question's), and how
      far under the page's closest (see :mod:`research.paraphrase`).
    """
    return signals(focus, doc, index)[0]


def signals(
    focus: Focus, doc: Document, index: int, embed: bool = True
) -> tuple[Features, float, float, RuleTerms]:
    """:func:`features_of`, with the raw subject score and said share
    :class:`~research.relevance.Scored` keeps, and what the rules combine (see
    :class:`research.rules.RuleTerms`). Without ``embed`` the paraphrase features
    are left out (the rules do not read them, and they need the embedding model: see
    :func:`paraphrase_of`)."""
    focus = as_written(focus, doc)
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
    mismatch = time_mismatch(focus, text)
    leaning = opens_leaning(text)
    untyped = focus.kind == "number" and not gives_number(focus, text)
    carried = carried_answer(focus, text)
    unspaced = float(view.spaceless)
    # a part that asks nothing beyond its subject but a figure ("How long is the pier?")
    # is answered only by a sentence that gives one
    base = 0.0 if untyped and not focus.facets else subject * facets
    rules = RuleTerms(base, elsewhere, page, mismatch, leaning, untyped, carried)
    features = {
        "subject": math.log(max(subject, 0.01)),
        "facets": math.log(max(facets, 0.01)),
        "said": said,
        "no_facets": float(not focus.facets),
        "elsewhere": float(elsewhere),
        "salience": math.log(max(page, 0.01)),
        "time_mismatch": float(mismatch),
        "leaning": float(leaning),
        "untyped": float(untyped),
        "kind_answer": float(bool(carried)),
        "local": local[index],
        "local_top": float(index in top),
        "page_named": float(view.named),
        "title_asked": _title_asked(focus, doc),
        "grams": grams[index],
        "grams_best": grams[index] / best if best else 0.0,
        "spaceless": unspaced,
        "grams_spaceless": grams[index] * unspaced,
        "length": math.log(1 + len(plain(text))) / 5,
        **(paraphrase_of(focus, doc, index) if embed else {}),
    }
    return features, subject, said, rules


def paraphrase_of(focus: Focus, doc: Document, index: int) -> Features:
    """The paraphrase features of sentence ``index`` of ``doc`` for ``focus`` (see
    :func:`features_of`)."""
    close, closest = similarities(focus, doc)
    return {"paraphrase": close[index], "paraphrase_gap": close[index] - closest}


def _title_asked(focus: Focus, doc: Document) -> float:
    """The share of the part's facets (by weight) the page's title says, by their own
    word or an equivalent, the site's name after a dash left out (0 when the part asks
    nothing beyond its subject)."""
    key = ("title_asked", focus)
    if key not in doc.memo:
        title = doc.title_terms - _site_terms(doc.title)
        total = sum(f.weight for f in focus.facets)
        met = sum(f.weight for f in focus.facets if ({f.term} | f.equivalents) & title)
        doc.memo[key] = met / total if total else 0.0
    return doc.memo[key]


def _facet_matches(
    focus: Focus, doc: Document, index: int, lent: bool, view: _PageView
) -> list[float]:
    """How sentence ``index`` meets each facet of the part (see
    :func:`~research.aboutness._facet_match`)."""
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


def local_match(focus: Focus, doc: Document) -> list[float]:
    """How well each sentence of ``doc`` says the part's words, each weighted by how rare
    it is among the page's sentences, as a share of the best sentence's: on the subject's
    own page, the subject's name is everywhere and tells nothing, while the one word of
    the question that few sentences use points at the passage that answers it.

    The page's sentences are ranked by :class:`~research.retrieval.BM25`, each sentence
    as the set of its terms and with no length normalisation (``b`` = 0): a sentence
    answers by saying a word, not by repeating it, and a long sentence saying it says it
    no less. Its score is then the sum of the rarity (inverse document frequency over the
    page) of the part's words it says. A link's text is words the sentence says (a page
    converted from HTML links its key words: "its [water supply](…) came from…"), as
    the pages the model was trained on, which have no links, say them. A word the user's
    glossary says names the same thing as a facet (see
    :class:`~research.question.Glossary`) is that facet's word here too, as it is for the
    facets: "fed" says "supplied" when the glossary puts them in one group."""
    asked = set(terms(focus.text))
    if not asked or not doc.sentences:
        return [0.0] * len(doc.sentences)
    raw = BM25(_as_the_glossary_reads(focus, doc.said_terms), b=0.0).scores(asked)
    best = max(raw, default=0.0)
    return [r / best if best else 0.0 for r in raw]


def _as_the_glossary_reads(focus: Focus, said: list[set[str]]) -> list[set[str]]:
    """Each sentence's terms, with a facet's own term where the sentence says a word the
    glossary names the same thing by (``said`` itself when the glossary names none)."""
    same = {w: f.term for f in focus.facets for w in f.synonyms if w != f.term}
    if not same:
        return said
    return [s | {same[w] for w in s & same.keys()} for s in said]


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


def carried_answer(focus: Focus, text: str) -> str:
    """The kind of answer the part asks for that a sentence carries beyond the question's
    own words (one of :data:`research.rules.CARRIED`), or "": a date for *when* (or a part
    about the past), a quantity for *how many*, a stated cause for *why*, a person or
    organisation for *who* or a place for *where* (a name), a name of the kind asked for
    ("the … Scale" for "what is the scale called")."""
    new = new_to(focus.text, plain(text))
    if (focus.kind == "when" or focus.historical) and has_date(new):
        return "date"
    if focus.kind == "number" and gives_number(focus, text):
        return "number"
    if focus.kind == "why" and states_cause(text):
        return "cause"
    if focus.kind in ("who", "where") and _names_of(new, focus.kind) - _names_of(
        focus.text, focus.kind
    ):
        return "name"
    if focus.kinds and _names_a_kind(focus, plain(text)):
        return "kind"
    return ""


def gives_number(focus: Focus, text: str) -> bool:
    """Whether a sentence gives the number a "how many" part asks for: how often for a
    part that asks how often ("every five years", "rarely"; never any number, "two
    pence"), one counted as the question counts (两所 for 多少所大学, not 一年) when a
    Chinese question says how, else any quantity the question does not give itself."""
    return _gives_number_to(focus.text, text)


@lru_cache(maxsize=8192)
def _gives_number_to(question: str, text: str) -> bool:
    """:func:`gives_number` by the part's text: :func:`~research.relevance.assess` asks it
    for its penalty and :func:`carried_answer` for the kind carried, for the same sentence."""
    if asks_frequency(question):  # "how often": a frequency, not any number
        return has_frequency(new_to(question, plain(text)))
    measure = counted_in(question)
    if measure:
        return has_count(text, measure)
    measures = measure_asked(question)  # "how long": a length or a span, not a count
    if measures:
        return gives_measure(new_to(question, plain(text)), measures, dimension_asked(question))
    return has_quantity(count_of(question, new_to(question, plain(text))))


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


def new_to(question: str, text: str) -> str:
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


def time_mismatch(focus: Focus, text: str) -> bool:
    """Whether a sentence speaks of another time than the part asks about: only of modern
    times (or a time to come) when the question asks about the past, or dating nothing it
    says in the present when the question asks about it ("now", "latest", 目前: see
    :mod:`research.present`).

    Years are read against the run's date: a sentence speaks of the present when it says
    so ("today", 如今) or gives a year that is current then (see
    :func:`~research.present.is_current`; a year after it is no fact yet), and of modern
    times when all its years are recent (:func:`~research.present.is_modern`)."""
    said = facts_years(text)
    present = says_present(text)
    if focus.historical and not asks_present(focus.text):
        return bool(present or (said and all(is_modern(y) for y in said)))
    if asks_present(focus.text) and said and not present:
        return not any(is_current(y) for y in said)
    return False
