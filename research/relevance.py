"""How well a sentence answers a sub-question: an absolute score in [0, 1].

A part is read into a :class:`~research.question.Focus` (:mod:`research.question`), a
page is prepared once into a :class:`~research.document.Document`
(:mod:`research.document`), :mod:`research.aboutness` says whether a page, a section or
a sentence is about the part, and :mod:`research.features` describes each sentence by
named features (:func:`~research.features.features_of`). This module turns them into a
score. With ``QUARTET_RANKER=learned``, the learned model (:mod:`research.ranking`)
weighs the features, with the standing of the sentence's page among the pages read
(:func:`research.retrieval.standing`), into the probability that the sentence answers
the part; from :func:`evidence_threshold` it is evidence. By default the rules combine
them (with the weights in :mod:`research.rules`' file), and a part's best sentence under
the threshold may still answer it as a lead (:attr:`Scored.lead`) or, on a page the
question's other parts show to be about the question, as a passage
(:attr:`Scored.passage`). It also says where a quote of a sentence starts and ends in its
page (:func:`quote_bounds`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import scores
from .aboutness import _leaned_on, _page_view, _site_terms, as_written
from .document import Document
from .facts import opening_connective, opens_leaning, refers_outside
from .features import LOCAL_TOP, _local, paraphrase_of, signals
from .question import Focus
from .ranking import ALONE, Features, answer_model, model
from .rules import rule_weights
from .text import Sentence, plain, pointer_aside, script

#: Whether sentences are scored by the learned model (:mod:`research.ranking`) rather
#: than by the rules (:mod:`research.rules`). The rules stay the default until the
#: model, trained by ``scripts/train_ranker.py``, beats them on the benchmarks' tune halves
#: (``QUARTET_RANKER=learned`` measures it: ``bench/bench_general.py``,
#: ``bench/bench_shapes.py``).
LEARNED = os.environ.get("QUARTET_RANKER", "rules") == "learned"
#: Under the rules, whether the leads of a part no sentence read answers over the
#: threshold (its nearest quotes, see :attr:`Scored.lead`) are what the learned models
#: choose for it (``QUARTET_UNSURE=model``, the default: :mod:`research.ranking`'s
#: sentence and answer models, which judge from data what the hand-set tests of a lead
#: guess), those tests deciding only when the models choose nothing; or the tests' alone
#: (``leads``: to measure the two apart). See ``host.research.Research._unsure``.
UNSURE_MODEL = os.environ.get("QUARTET_UNSURE", "model") == "model"
#: The evidence threshold for a part written in a script that has none of its own (see
#: :func:`evidence_threshold`).
THRESHOLD = model().threshold if LEARNED else rule_weights().threshold


def evidence_threshold(focus: Focus) -> float:
    """The score from which a sentence is evidence for ``focus``: the threshold for the
    script the part is written in, in the rules' file (see :mod:`research.rules`: one for
    every script when it holds none per script) or the learned model's, calibrated on its
    training data for the honest-nothing rate (see :mod:`research.ranking`)."""
    weights = model() if LEARNED else rule_weights()
    return weights.threshold_for(script(focus.text))


def answer_threshold(focus: Focus) -> float:
    """Under the learned model, the score from which one of a part's best sentences is
    its evidence: the answer model's threshold for the script the part is written in,
    calibrated on its training data for the honest-nothing rate (see
    :mod:`research.ranking`)."""
    return answer_model().threshold_for(script(focus.text))


#: Under the rules, a part's best sentence under its threshold still answers it (see
#: :attr:`Scored.lead`) from this score, when its page names the subject (a subject
#: score of :data:`ON_SUBJECT`) and it says :data:`SAYS_MOST` of the part's facets.
LEAD_FLOOR, ON_SUBJECT, SAYS_MOST = 0.2, 0.8, 0.5
#: How much the page-local match counts in ranking a page's sentences under the rules
#: (one of their weights, see :mod:`research.rules` and :attr:`Scored.rank`; the learned
#: model weighs it itself); the
#: :data:`~research.features.LOCAL_TOP` sentences of a page by rank may stand as a part's
#: lead without saying most of its facets, when their page-local match is at least
#: :data:`LOCAL_LEAD` of the page's best (the passage that answers a question is among the
#: first three of its page for the question's words nine times in ten).
LOCAL, LOCAL_LEAD = (0.0 if LEARNED else rule_weights().local), 0.5


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
    #: the page's best sentence (see :func:`~research.features.local_match`)
    local: float = 0.0
    #: whether it is among the :data:`~research.features.LOCAL_TOP` sentences of its page
    #: by :attr:`rank`
    top_of_page: bool = False
    #: whether its page's title names the part's subject (the page is about it)
    page_named: bool = False
    #: what the score was computed from (see :func:`~research.features.features_of`)
    features: Features = field(default_factory=dict)

    @property
    def rank(self) -> float:
        """The order of a page's sentences for the part: the score, and the page-local
        match (a word rare on this page tells one passage from another better than a word
        rare in the language; the learned model weighs it in the score itself)."""
        return self.score if LEARNED else self.score + LOCAL * self.local

    @property
    def lead(self) -> bool:
        """Whether the sentence may stand as its part's best answer though it scores under
        its part's threshold: its page is about the subject, and either it is among the
        best of a page whose title names the subject by the page's own rare words (see
        :func:`~research.features.local_match`), or it says most of what the part asks
        and is not a faint match (a paraphrase that leaves a word of the question unsaid,
        "required to hold a pilot's licence" for "what must a ferry captain have at a
        minimum"). The learned model uses no leads: a page's standing among the pages
        read is one of its features (see :func:`research.retrieval.standing`)."""
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


def score_sentence(focus: Focus, doc: Document, index: int) -> float:
    """The relevance of sentence ``index`` of ``doc`` to ``focus``, in [0, 1] (see
    :func:`assess`)."""
    return assess(focus, doc, index).score


def assess(focus: Focus, doc: Document, index: int) -> Scored:
    """How sentence ``index`` of ``doc`` answers ``focus``: its score, how far it (or its
    page) is about the subject, and the share of the part's facets it says.

    A sentence in a section about the part (:func:`~research.aboutness.context_about`)
    borrows from its context what it leaves implicit: the facet its title or heading
    names, and the subject of the page ("smelting them recovers the cobalt" on the
    lithium-ion batteries' recycling page). Naming one of the topics the title announces
    for the part counts as saying the facet itself.

    A part the planner lent a subject is answered as well as the sentence answers it
    either way: with that subject or as its own words ask
    (:attr:`~research.question.Focus.alternative`). A sentence about the other side of
    the comparison a part asks one side of answers nothing of it (scores 0:
    :func:`off_side`), and one about a single side does not answer the comparison.
    """
    scored = _assess(focus, doc, index)
    if focus.alternative is not None:
        other = _assess(focus.alternative, doc, index)
        if other.score > scored.score:
            scored = other
    if off_side(focus, doc, index):
        scored.score = 0.0
    return scored


def by_model(
    focus: Focus, doc: Document, every: Sequence[Scored]
) -> list[tuple[int, float, Features]]:
    """Sentences the rules assessed (``every``) but those off the side of a comparison
    the part asks (:func:`off_side`), best first by the sentence model: each by its
    index in ``doc``, with its score and its full features (the paraphrase ones added,
    which the rules do not read: see :func:`research.features.paraphrase_of`)."""
    rows = []
    for scored in every:
        i = doc.index(scored.sentence)
        if off_side(focus, doc, i):  # about the other side of a comparison
            continue
        features = scored.features
        if "paraphrase" not in features:
            features = features | paraphrase_of(focus, doc, i)
        rows.append((i, scored.score, features))
    ranker = model()
    rows.sort(key=lambda r: (-ranker.log_odds(r[2] | ALONE), r[0]))
    return rows


def off_side(focus: Focus, doc: Document, index: int) -> bool:
    """Whether sentence ``index`` of ``doc`` is off the side of a comparison that
    ``focus`` asks (see :attr:`~research.question.Focus.sides`).

    For a part asking one side, it is when it names the other side and not this one ("the
    Ostel Tunnel is about 8 km long", for "How long is the Varn Tunnel?"), or names
    neither on a page whose title names the other side and not this one; a sentence
    naming both is about both. For the comparison itself, it is when it does not name
    both sides: one side alone answers that side's part."""
    sides = focus.sides
    if sides is None:
        return False
    mine, other = set(sides.own), set(sides.other)
    said = doc.sentence_terms[index]
    if sides.both:
        return not (said & mine and said & other)
    if said & mine:
        return False
    if said & other:
        return True
    titled = doc.title_terms - _site_terms(doc.title)  # not "… — Varn Tunnel Guide"
    return bool(titled & other) and not titled & mine


def _assess(focus: Focus, doc: Document, index: int) -> Scored:
    # the rules read no paraphrase: the embedding model is loaded for the learned core
    features, subject, said, rules = signals(focus, doc, index, embed=LEARNED)
    score = model().score(features | ALONE) if LEARNED else rule_weights().score(rules)
    return Scored(doc.sentences[index], score, subject, said, features=features)


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
    local = _local(as_written(focus, doc), doc)[0]
    out = []
    for i, sentence in enumerate(doc.sentences):
        if sentence.complete or not complete_only:
            scored = assess(focus, doc, i)
            scored.local = local[i]
            out.append(scored)
    out.sort(key=lambda s: (-s.rank, s.sentence.start))
    named = _page_view(as_written(focus, doc), doc).named
    for scored in out[:LOCAL_TOP]:
        scored.top_of_page = True
        scored.page_named = named
    return out


#: The longest a quote that carries the sentences before it may be, in characters as
#: read (about six printed lines: two long sentences, where a sentence seldom runs past
#: 350, or a few short ones): a longer quote is not made, and its sentence does not stand
#: alone (see :func:`quote_bounds`).
LONGEST_QUOTE = 600


def quote_bounds(doc: Document, sentence: Sentence) -> tuple[int, int]:
    """Where a quote of ``sentence`` starts and ends in its page: the sentence itself, or,
    when a pronoun or pointing word in it stands for something named before it
    ("它们的人口是120万…", "It reached the coast in 610.", "In 1902 the council built a weir
    across it."), from the nearest sentence before it in the same paragraph that reads on
    its own, over any that point back in turn ("It was founded in the 2nd century. The
    population at this period …"), so that the quote says what it is about. A sentence
    with none before it to carry (the first of its paragraph, or one whose quote would
    run past :data:`LONGEST_QUOTE`) is quoted alone, or with the one sentence before it
    that its opening pronoun leans on, and does not stand alone in a part's body (see
    :func:`research.facts.points_back`, which the writer asks of the quote). A pointer in
    brackets that closes the sentence ("(see …)") is left out of the quote (see
    :func:`research.text.pointer_aside`). A quote of the sentence alone starts after an
    opening connective set off by its comma ("However, Smith …", "然而，团队测到…": see
    :func:`research.facts.opening_connective`): it joins the sentence to one the quote
    does not give, and the rest reads on its own."""
    end = sentence.start + pointer_aside(doc.text[sentence.start : sentence.end])
    prior = _carried(doc, sentence, end) or _leaned_on(doc, sentence)
    if prior is None or len(plain(doc.text[prior.start : end])) > LONGEST_QUOTE:
        return sentence.start + opening_connective(doc.text[sentence.start : end]), end
    return prior.start, end


def _carried(doc: Document, sentence: Sentence, end: int) -> Sentence | None:
    """The sentence a quote of ``sentence`` ending at ``end`` starts from when it points
    back (see :func:`_stands_for_before`): the nearest before it in its paragraph that
    does not, within :data:`LONGEST_QUOTE`; None when there is none."""
    if not _stands_for_before(sentence):
        return None
    prior = doc.before(sentence)
    while prior is not None and len(plain(doc.text[prior.start : end])) <= LONGEST_QUOTE:
        if not _stands_for_before(prior):
            return prior
        prior = doc.before(prior)
    return None


def _stands_for_before(sentence: Sentence) -> bool:
    """Whether a sentence's subject is a pronoun or a share of something named before it,
    or a pronoun or pointing word in it stands for something it does not name (see
    :func:`research.facts.opens_leaning`, :func:`research.facts.refers_outside`). Unlike
    the writer's test of a whole quote (:func:`research.facts.points_back`), an opening
    connective ("However", 因此) is no reason to carry the sentence before: it leaves the
    sentence its own subject."""
    return opens_leaning(sentence.text) or refers_outside(sentence.text)


def score_text(focus: Focus, text: str, title: str = "") -> float:
    """The relevance of a short text (a search result's title and snippet) to ``focus``
    (as the run's score book holds it, when it does: see :mod:`research.scores`)."""
    return scores.remembered(focus, text, title, lambda: _score_text(focus, text, title))


def _score_text(focus: Focus, text: str, title: str) -> float:
    doc = Document.of(text if text.strip() else title, title)
    if not doc.sentences:
        doc = Document.of(f"{title}.", title)
    if not doc.sentences:
        return 0.0
    return max(score_sentence(focus, doc, i) for i in range(len(doc.sentences)))
