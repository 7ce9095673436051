"""Fit the research core's models (``research/model/ranker.json``) from public data.

Usage (from the repository root, after ``bash run.sh test`` or ``bash scripts/setup.sh``)::

    git clone --mirror https://github.com/google-deepmind/xquad /tmp/xquad.git
    git clone --mirror https://github.com/ymcui/cmrc2018 /tmp/cmrc2018.git
    git clone --mirror https://github.com/emorynlp/selqa /tmp/selqa.git
    .venv/bin/python scripts/train_ranker.py            # rewrites research/model/ranker.json
    .venv/bin/python scripts/train_ranker.py --check    # retrains and compares, writes nothing

The data is read at run time with ``git show`` (``QUARTET_XQUAD``/``QUARTET_CMRC``/
``QUARTET_SELQA`` name other git directories) and never copied here. Training uses the
**tune half only** of every set, split by article exactly as the benchmarks split them
(:func:`split_of`, a hash of the article's key), so that no article any evaluation reports
on is seen: XQuAD in its twelve languages (the same 48 articles, keyed by the English
title), CMRC 2018's development set (keyed by title), and SelQA's dev and test articles
(keyed by title) for broad questions. CMRC 2018's trial set is kept for a fresh held-out
check and is not read.

The reading-comprehension sets ask narrow questions, answered by one sentence. Research
also asks broad ones ("why did it decline?"), answered by a whole section of a site whose
heading names the topic, where the section's sentences need not repeat the question's
words. So SelQA's articles of two sections or more (English Wikipedia, with their real
section headings) give broad questions too: each section is asked what is known about its
topic (:func:`broad_question`, from its heading), every sentence of it answers, and the
article is read as a site (a page per section, some titled without the subject, and an
overview linking them by their headings) or as one page with a heading per section.

Questions are joined two or three at a time into one question, as a user asks several
things at once: from one tune article, or (a share :data:`ACROSS`) from two, each part
answered on its own page; and planned by the offline planner
(:func:`research.plan.offline_plan`); each gold question goes to the part whose words it
shares most. A run reads, for each part, its gold article and three other articles of
the same language (the two a search engine ranks first for the part's words, and one at
random). A question of one article whose parts are asked of different paragraphs is,
a share :data:`SECTIONS` of the time each, read as a site on its subject (a page per
paragraph, some titled without the subject, and an overview linking them by their
labels, beside :data:`HARD` other articles) or as
one page with a heading per paragraph (see :func:`_shape`). Every sentence of every
page read gives one example per part: its own features
(:func:`research.features.features_of`), its page's standing among the pages read for
the question's parts (:func:`research.retrieval.standing`), and whether it holds that
part's gold answer (the occurrence at the data's answer offset). The weights are fitted
as a ranking of each part's sentences (a logistic regression on pairs, scikit-learn's
lbfgs: deterministic), then scaled to a probability (see :func:`fit`).

The evidence thresholds are then calibrated on the same training examples, never on an
evaluation set: the score that the best sentence stays under for :data:`HONEST` of the
parts when the part's gold article (every page of it) is taken out of the pages read
(the pages are ranked again without it: a part asked of pages none of which answers
it should find nothing), one for each script the parts are written in (the features
read some scripts better than others), and one over all of them for any other script.
Then the answer models: for each part, its :data:`~research.ranking.CANDIDATES` best
sentences by the sentence model, with their standing among them
(:func:`research.ranking.standing_in_part`), asked with and without the gold page among
the pages read; gradient-boosted trees of whether each is on the part's gold page
(:func:`fit_answer`: a page that answers a part is quoted by its
:data:`~research.ranking.PAGE_QUOTES` best sentences), first for a part alone, then
again with whether another part of the question quotes the candidate's page by the
first model's choices (:func:`fit_answers`). Trees are surer of the parts they were
fitted on than of new ones, so both models' thresholds (per script, alike) and the first
model's choices come from scores by models fitted on the other half of the articles
(:func:`out_of_fold`). The file
records the data's commits, the counts, and the figures on the training data, in the
sample and cross-validated over two halves of the articles.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import pickle
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rank_bm25 import BM25Okapi  # noqa: E402

from research.document import Document  # noqa: E402
from research.features import signals  # noqa: E402
from research.lang import asked_in  # noqa: E402
from research.plan import offline_plan  # noqa: E402
from research.question import Focus  # noqa: E402
from research.ranking import (  # noqa: E402
    ALONE_FEATURES,
    ANSWER_FEATURES,
    CANDIDATES,
    FEATURES,
    MODEL_PATH,
    PAGE_FEATURES,
    PAGE_QUOTES,
    PART_FEATURES,
    SENTENCE_FEATURES,
    Trees,
    standing_in_part,
)
from research.retrieval import link_words, rankings_of, standings  # noqa: E402
from research.rules import RuleTerms  # noqa: E402
from research.text import grams, reading, script, terms, words  # noqa: E402

XQUAD_GIT = Path(os.environ.get("QUARTET_XQUAD", "/tmp/xquad.git"))
CMRC_GIT = Path(os.environ.get("QUARTET_CMRC", "/tmp/cmrc2018.git"))
XQUAD_LANGS = ("en", "zh", "de", "es", "ru", "el", "tr", "ar", "hi", "th", "vi", "ro")
CMRC_FILE = "squad-style-data/cmrc2018_dev.json"
SELQA_GIT = Path(os.environ.get("QUARTET_SELQA", "/tmp/selqa.git"))
SELQA_FILES = ("ass/selqa-ass-dev.json", "ass/selqa-ass-test.json")
#: SelQA's name for an article's lead section.
SELQA_LEAD = "Abstract"
#: The share of parts whose best sentence on pages that do not answer them stays under
#: the threshold: the honest-nothing rate the benchmarks hold every set to.
HONEST = 0.95
#: Parts a script needs in the training data to have a threshold of its own.
PER_SCRIPT = 200
#: Articles of other subjects scored beside the gold one for each part, of which
#: :data:`HARD` are those a search engine would rank first for the part's words.
DISTRACTORS, HARD = 3, 2
#: Parts taken per XQuAD language and from CMRC 2018 (the tune halves are larger).
PARTS_PER_SET = 360
SEED = 0
#: The share of questions joined from two articles' questions (each part answered on its
#: own page), the rest from one article's.
ACROSS = 1 / 3
#: The share of questions of one article, each part asked of another of its paragraphs,
#: read as research reads a site on one subject: the article as a page per paragraph
#: (when it has :data:`SECTION_PAGES` or more), the part answered on one of them, its
#: other pages on the same subject beside it (some titled without the subject: see
#: :func:`_section_title`) and its overview linking them, and :data:`HARD` articles of other
#: subjects (page-level features tell a part's page from pages of other subjects more
#: easily than from pages of its own); and the same share read as one page with a
#: heading per paragraph, where a section about another part is no answer.
SECTIONS = 1 / 4
SECTION_PAGES = 3
#: Sentences without the answer each sentence with it is paired with, at most.
PAIRS = 40
#: The L2 strength of the regression (scikit-learn's ``C``).
REGULARISATION = 1.0
#: The answer model's gradient boosting (scikit-learn's ``GradientBoostingClassifier``):
#: trees, their depth, the learning rate, and the fewest candidates a leaf holds.
BOOSTING = {"n_estimators": 200, "max_depth": 3, "learning_rate": 0.05, "min_samples_leaf": 40}


@dataclass
class QA:
    question: str
    answers: list[tuple[str, int]]  # text, offset in the article's page text
    paragraph: int = 0  # which of the article's paragraphs it is asked of


@dataclass
class Article:
    key: str
    lang: str
    title: str
    text: str  # the page as Markdown
    qas: list[QA]
    #: the article as a site of one page per paragraph, each titled by its label (see
    #: :func:`_labels`, :func:`_section_title`), for articles of :data:`SECTION_PAGES` or more
    sections: list[Article] = field(default_factory=list)
    #: the article as one page with a heading per paragraph (its label), alike
    headed: Article | None = None
    #: the site's overview beside its page per paragraph: titled as the article, each
    #: paragraph's first sentence and a link to its page by its label (``s{i}``, see
    #: :func:`addresses`); read for its links and its standing, no examples of its own
    overview: Article | None = None
    #: its questions are broad, one a section (read as a site or a headed page only)
    broad: bool = False


def split_of(key: str) -> str:
    """``tune`` or ``held-out``, by a stable hash of an article's key (as the benchmarks)."""
    return "tune" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def git_bytes(gitdir: Path, path: str) -> bytes:
    proc = subprocess.run(
        ["git", "--git-dir", str(gitdir), "show", f"HEAD:{path}"], capture_output=True
    )
    if proc.returncode != 0:
        raise SystemExit(f"train_ranker: error: no {path} in {gitdir} (clone it: see --help)")
    return proc.stdout


def git_head(gitdir: Path) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(gitdir), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()


def first_clause(paragraph: str, shortest: int = 6, limit: int = 18) -> str:
    """A page title from an article's own first clauses (for sets with no title in the
    article's language)."""
    title = ""
    for clause in re.split(r"[，。；：！？（(、,;:.]", paragraph.strip()):
        title = f"{title}, {clause.strip()}" if title else clause.strip()
        if len(title) >= shortest:
            break
    return (title or paragraph)[:limit].strip()


def _page(
    title: str, paragraphs: Sequence[str], headings: Sequence[str] = ()
) -> tuple[str, list[int]]:
    """The page's Markdown (each paragraph under its heading, when given) and where each
    paragraph starts in it."""
    text, starts = f"# {title}\n\n", []
    for i, p in enumerate(paragraphs):
        if headings:
            text += f"## {headings[i]}\n\n"
        starts.append(len(text))
        text += p + "\n\n"
    return text, starts


#: A section's label: the words of its paragraph that tell it from the article's other
#: paragraphs, as a heading names the topic its section is about.
LABEL_WORDS = 3


def _labels(paragraphs: Sequence[str]) -> list[str]:
    """Each paragraph's label as a section of its article: the :data:`LABEL_WORDS` words
    of it that tell it best from the article's other ``paragraphs`` (each term weighed
    by how often the paragraph says it and how few of the paragraphs do: tf-idf), as the
    paragraph first writes them and in its order. Numbers are left out: a heading names a
    topic, not its figures. Joined by spaces, or without them where words are not spaced.
    """
    spread = Counter(t for p in paragraphs for t in set(terms(p)))
    return [_label(p, spread, len(paragraphs)) for p in paragraphs]


def _label(paragraph: str, spread: Counter[str], size: int) -> str:
    """One paragraph's label (see :func:`_labels`), given how many of its article's
    ``size`` paragraphs say each term."""
    text = paragraph.strip().lstrip("\ufeff")
    counts: Counter[str] = Counter()
    first: dict[str, tuple[int, str]] = {}
    for i, word in enumerate(words(text)):
        found = terms(word)
        if len(found) != 1 or any(c.isdigit() for c in found[0]):
            continue
        counts[found[0]] += 1
        first.setdefault(found[0], (i, word))
    weight = {t: n * math.log((size + 1) / max(spread[t], 1)) for t, n in counts.items()}
    best = sorted(counts, key=lambda t: (-weight[t], first[t][0]))[:LABEL_WORDS]
    joiner = "" if script(text) in ("cjk", "thai") else " "
    return joiner.join(first[t][1] for t in sorted(best, key=lambda t: first[t][0]))


def _article(
    key: str,
    lang: str,
    title: str,
    paragraphs: list[dict[str, Any]],
    headings: Sequence[str] = (),
    whole: bool = True,
    labels: Sequence[str] = (),
) -> Article:
    """One article as a page (under ``headings`` when given), and, when ``whole`` and it
    has :data:`SECTION_PAGES` paragraphs or its sections' own ``labels``, as a site and
    as a headed page (see :class:`Article`), each section labelled by its ``labels`` or
    else by :func:`_labels`."""
    contexts = [p["context"] for p in paragraphs]
    text, starts = _page(title, contexts, headings)
    qas = []
    for n, (p, start) in enumerate(zip(paragraphs, starts, strict=True)):
        for qa in p["qas"]:
            answers = [(a["text"], start + a["answer_start"]) for a in qa["answers"] if a["text"]]
            if answers:
                qas.append(QA(" ".join(qa["question"].split()), answers, n))
    article = Article(key, lang, title, text, qas)
    if whole and (labels or len(paragraphs) >= SECTION_PAGES) and not headings:
        labels = labels or _labels(contexts)
        article.sections = [
            _article(key, lang, _section_title(key, i, title, label), [p], whole=False)
            for i, (label, p) in enumerate(zip(labels, paragraphs, strict=True))
        ]
        article.headed = _article(key, lang, title, paragraphs, labels)
        lines = [
            {"context": f"{_first_sentence(c)} [{label}](s{i})", "qas": []}
            for i, (c, label) in enumerate(zip(contexts, labels, strict=True))
        ]
        article.overview = _article(key, lang, title, lines, whole=False)
    return article


def _first_sentence(paragraph: str) -> str:
    """A paragraph's first sentence, as the shared splitter reads it."""
    found = Document.of(paragraph).sentences
    return found[0].text if found else paragraph


def _section_title(key: str, i: int, title: str, label: str) -> str:
    """The title of an article's page for its paragraph ``i``: its label after the
    article's title, or (every other page, by a hash of the article and the paragraph)
    its label alone, as a site's pages on one subject often leave the subject unsaid."""
    named = hashlib.sha256(f"{key}:{i}".encode()).digest()[0] % 2 == 0
    return f"{title}: {label}" if named else label


def load_xquad(lang: str) -> list[Article]:
    english = json.loads(git_bytes(XQUAD_GIT, "xquad.en.json"))["data"]
    own = english if lang == "en" else json.loads(git_bytes(XQUAD_GIT, f"xquad.{lang}.json"))
    data = english if lang == "en" else own["data"]
    out = []
    for en, art in zip(english, data, strict=True):
        key = en["title"]
        title = (
            key.replace("_", " ") if lang == "en" else first_clause(art["paragraphs"][0]["context"])
        )
        out.append(_article(key, lang, title, art["paragraphs"]))
    return out


def load_cmrc() -> list[Article]:
    out = []
    for item in json.loads(git_bytes(CMRC_GIT, CMRC_FILE))["data"]:
        for p in item["paragraphs"]:
            title = item.get("title", "").strip() or first_clause(p["context"])
            key = item.get("title", "").strip() or p["id"]
            out.append(_article(key, "zh", title, [p]))
    return out


def broad_question(name: str, heading: str, rng: random.Random) -> str:
    """A broad question about the section of an article a heading names, for any
    subject: what is known about it, asked one of two ways."""
    named = heading[:2].isupper() or re.search(r"\s[\"'(]*[A-Z]", heading) is not None
    topic = heading if named else heading[:1].lower() + heading[1:]
    if rng.random() < 0.5:
        return f"What is known about {name}'s {topic}?"
    return f"What about the {topic} of {name}?"


def _selqa_sections() -> dict[str, dict[str, list[str]]]:
    """SelQA's articles (dev and test) by title: each section's heading and sentences, in
    the data's order (the lead section left out: it is the article's overview)."""
    out: dict[str, dict[str, list[str]]] = {}
    for path in SELQA_FILES:
        for item in json.loads(git_bytes(SELQA_GIT, path)):
            if item["section"] != SELQA_LEAD:
                sentences = [" ".join(c.split()) for c in item["candidates"]]
                out.setdefault(item["article"], {}).setdefault(item["section"], sentences)
    return out


def load_selqa_broad(rng: random.Random) -> list[Article]:
    """SelQA's articles of two sections or more as sites of their sections, each
    labelled by its own heading, and each section asked one broad question
    (:func:`broad_question`) that any of its sentences answers."""
    out = []
    for title, sections in sorted(_selqa_sections().items()):
        if len(sections) < 2:
            continue
        name = re.sub(r"\s*\([^)]*\)\s*$", "", title).strip() or title
        paragraphs = []
        for heading, sentences in sections.items():
            starts = list(itertools.accumulate((len(x) + 1 for x in sentences[:-1]), initial=0))
            answers = [
                {"text": x, "answer_start": i} for x, i in zip(sentences, starts, strict=True)
            ]
            asked = {"question": broad_question(name, heading, rng), "answers": answers}
            paragraphs.append({"context": " ".join(sentences), "qas": [asked]})
        article = _article(title, "en", title, paragraphs, labels=list(sections))
        out.append(replace(article, broad=True))
    return out


# ----------------------------------------------------------------------------- examples


def joined(qs: Sequence[str], lang: str, rng: random.Random) -> str:
    """Several questions asked as one, as the benchmarks ask them."""
    bare = [q.strip().rstrip("?？ .。").strip() for q in qs]
    if lang in ("zh", "ja"):
        return "".join(q + "？" for q in bare)
    if lang == "en" and rng.random() < 0.4:
        rest = [q[0].lower() + q[1:] if q.split()[0].lower() in _EN_OPENERS else q for q in bare]
        return ", ".join([bare[0], *rest[1:-1]]) + f", and {rest[-1]}?"
    return " ".join(q + "?" for q in bare)


_EN_OPENERS = frozenset(["what", "which", "who", "whom", "whose", "when", "where", "why", "how"])


def _tokens(text: str) -> set[str]:
    low = text.lower()
    if re.search(r"[\u3040-\u9fff\u0e00-\u0e7f]", low):
        chars = re.findall(r"\w", low)
        return {a + b for a, b in itertools.pairwise(chars)} or set(chars)
    return {w for w in re.findall(r"\w+", low) if len(w) > 2}


def _part_of(question: str, parts: Sequence[Any]) -> Any:
    gold = _tokens(question)
    return max(parts, key=lambda p: len(gold & _tokens(p.text)) / max(1, len(gold)))


def _gold_sentences(doc: Document, answers: Sequence[tuple[str, int]]) -> set[int]:
    """The sentences holding an answer at its offset (or, when the page's sentences do
    not cover that offset, any sentence saying it)."""
    out = set()
    for text, offset in answers:
        for i, s in enumerate(doc.sentences):
            if s.start <= offset and offset + len(text) <= s.end + 1:
                out.add(i)
    if not out:
        wanted = {t for t, _ in answers}
        out = {i for i, s in enumerate(doc.sentences) if any(t in s.text for t in wanted)}
    return out


@dataclass
class Example:
    features: list[float]  # in FEATURES' order, the page's standing among every page read
    label: int
    group: str  # the part it belongs to
    article: str  # the gold article's key (folds never split an article)
    gold_page: bool
    #: off the gold page: its page's standing among the pages read without the gold page
    #: (the part asked of pages none of which answers it)
    unanswered: list[float] | None = None
    script: str = "latin"  # the part's (see research.text.script)
    page: str = ""  # the page it is on, within its question
    gold_key: str = ""  # the part's gold page, within its question
    #: what the rules combine for it (``scripts/fit_rules.py`` fits their weights)
    rules: RuleTerms | None = None


def _standings(
    focus: dict[str, Focus],
    docs: dict[str, Document],
    where: dict[str, str],
    without: set[str] = frozenset(),
) -> dict[str, dict[str, dict[str, float]]]:
    """Each part's page features for each page read (but ``without``), as a run ranks
    them (see :func:`research.retrieval.standing`); ``where`` is each page's address."""
    counts = {k: d.counts for k, d in docs.items() if k not in without}
    rankings = rankings_of({sid: f.words for sid, f in focus.items()}, counts)
    asked = rankings_of({sid: f.asked for sid, f in focus.items()}, counts)
    linking = {k: link_words(docs[k].text, where[k]) for k in counts}
    found = {k: where[k] for k in counts}
    return standings(rankings, asked, {sid: f.asked for sid, f in focus.items()}, linking, found)


def addresses(pages: dict[str, Article], tune: list[Article]) -> dict[str, str]:
    """Each page's address: a site's overview at its folder, its page on paragraph ``i``
    at ``s{i}`` in it (where the overview's links point); any other page at its own."""
    out = {key: f"https://pages.test/{key}" for key in pages}
    key_of = {id(page): key for key, page in pages.items()}
    for whole in tune:
        site = key_of.get(id(whole.overview))
        if site is None:
            continue
        out[site] = f"https://sites.test/{site}/"
        for i, section in enumerate(whole.sections):
            if id(section) in key_of:
                out[key_of[id(section)]] = f"https://sites.test/{site}/s{i}"
    return out


def question_examples(
    focus: dict[str, Focus],
    golds: dict[str, tuple[Article, list[tuple[str, int]]]],
    pages: dict[str, Article],
    gid: str,
    tune: list[Article],
) -> Iterator[Example]:
    """The examples of one question: every complete sentence of every page read, for
    each part (``golds`` gives each part's page and answers). A sentence's page
    features are its page's standing among all the pages read; off the pages of the
    part's article, also among the pages read without them. A site's overview gives
    none (see ``Article.overview``)."""
    docs = {k: Document.of(a.text, a.title) for k, a in pages.items()}
    where = addresses(pages, tune)
    silent = {id(a.overview) for a in tune if a.overview is not None}
    full = _standings(focus, docs, where)
    for sid, (gold, answers) in golds.items():
        gold_key = next(k for k, a in pages.items() if a is gold)
        own = {k for k, a in pages.items() if a.key == gold.key}  # its article's pages
        alone = _standings(focus, docs, where, own)[sid]
        for key, article in pages.items():
            if id(article) in silent:
                continue  # an overview is read for its links and standing only
            doc = docs[key]
            positive = _gold_sentences(doc, answers) if article is gold else set()
            page = [full[sid][key][n] for n in PAGE_FEATURES]
            other = None if key in own else [alone[key][n] for n in PAGE_FEATURES]
            for i, sentence in enumerate(doc.sentences):
                if not sentence.complete:
                    continue
                feats, _, _, rules = signals(focus[sid], doc, i)
                mine = [feats[n] for n in SENTENCE_FEATURES]
                yield Example(
                    mine + page,
                    int(i in positive),
                    f"{gid}:{sid}",
                    gold.key,
                    article is gold,
                    None if other is None else mine + other,
                    script(focus[sid].text),
                    key,
                    gold_key,
                    rules,
                )


def _questions(tune: list[Article], rng: random.Random) -> list[list[tuple[Article, QA]]]:
    """The tune questions joined two or three at a time: from one article, or (a share
    :data:`ACROSS`) two from two different articles."""
    order = tune[:]
    rng.shuffle(order)
    singles: list[list[tuple[Article, QA]]] = []
    for article in order:
        qas = article.qas[:]
        rng.shuffle(qas)
        i = 0
        while i + 1 < len(qas):
            n = rng.choice((2, 2, 3))
            singles.append([(article, qa) for qa in qas[i : i + n]])
            i += n
    rng.shuffle(singles)
    out: list[list[tuple[Article, QA]]] = []
    while singles:
        group = singles.pop()
        if singles and rng.random() < ACROSS and singles[-1][0][0] is not group[0][0]:
            out.append([group[0], singles.pop()[0]])
        else:
            out.append(group)
    return out


def examples(
    articles: list[Article],
    name: str,
    rng: random.Random,
    limit: int = PARTS_PER_SET,
    mentions: bool = False,
) -> list[Example]:
    """The examples of one set's tune articles, at most ``limit`` parts; with
    ``mentions``, each part's pages read include one about something else that names
    the part's subject once (see :func:`mentioning`)."""
    tune = [a for a in articles if split_of(a.key) == "tune" and a.qas]
    index = BM25Okapi([sorted(grams(a.text)) for a in tune])
    place = {id(a): f"{i:05d}" for i, a in enumerate(tune)}  # keys may repeat (CMRC titles)
    for a in tune:
        for i, section in enumerate(a.sections):
            place[id(section)] = f"{place[id(a)]}-{i}"
        if a.headed is not None:
            place[id(a.headed)] = f"{place[id(a)]}-h"
        if a.overview is not None:
            place[id(a.overview)] = f"{place[id(a)]}-o"
    out: list[Example] = []
    parts_done = 0
    for n, group in enumerate(_questions(tune, rng)):
        if parts_done >= limit:
            break
        lang = group[0][0].lang
        shape = _shape(group, rng)
        sectioned = shape == "sections"
        with reading(lang), asked_in(lang):  # read as a run on a question in it reads it
            plan = offline_plan(joined([qa.question for _, qa in group], lang, rng))
            golds: dict[str, tuple[Article, list[tuple[str, int]]]] = {}
            whole_of: dict[str, Article] = {}
            for article, qa in group:
                page, answers = _asked_on(article, qa, shape)
                sid = _part_of(qa.question, plan.subquestions).id
                if sid in golds and golds[sid][0] is not page:
                    continue  # two pages' questions read as one part: its gold is unclear
                golds[sid] = (page, [*golds.get(sid, (page, []))[1], *answers])
                whole_of[sid] = article
            said = [text for _, answers in golds.values() for text, _ in answers]
            pages: dict[str, Article] = {}
            for sub in plan.subquestions:
                if sub.id in golds:
                    gold = golds[sub.id][0]
                    whole = group[0][0] if sectioned else gold
                    others = distractors(sub.text, whole, tune, index, rng)
                    named = mentioning(whole_of[sub.id], others[0], said) if mentions else None
                    if named is not None:
                        pages[f"{place[id(others[0])]}-m{place[id(whole_of[sub.id])]}"] = named
                    if sectioned:
                        site = [*whole.sections, *([whole.overview] if whole.overview else [])]
                        others = [*site, *others[:HARD]]
                    for a in [gold, *others]:
                        pages.setdefault(place[id(a)], a)
            focus = {s.id: plan.focus(s) for s in plan.subquestions if s.id in golds}
            out.extend(question_examples(focus, golds, pages, f"{name}:{n}", tune))
        parts_done += len(golds)
    return out


def mentioning(subject: Article, host: Article, said: Sequence[str]) -> Article | None:
    """``host``'s page with the first sentence of ``subject``'s article (which names its
    subject) added to its first paragraph: a page about something else that names the
    subject once, as research meets them (a page on a rival, a town, a person that
    mentions the subject in passing). None when that sentence holds an answer of the
    question (``said``): the page is to answer nothing."""
    paragraphs = [p for p in subject.text.split("\n\n") if p.strip() and not p.startswith("#")]
    if not paragraphs:
        return None
    sentence = _first_sentence(paragraphs[0]).strip()
    if not sentence or any(len(t) >= 2 and t in sentence for t in said):
        return None
    blocks = host.text.split("\n\n")
    at = next((i for i, b in enumerate(blocks) if b.strip() and not b.startswith("#")), None)
    if at is None:
        return None
    joiner = "" if script(sentence) in ("cjk", "thai") else " "
    blocks[at] = blocks[at].rstrip() + joiner + sentence
    return Article(host.key, host.lang, host.title, "\n\n".join(blocks), [])


def _shape(group: Sequence[tuple[Article, QA]], rng: random.Random) -> str:
    """How a question's article is read (see :data:`SECTIONS`): ``sections`` (a page per
    paragraph) or ``headed`` (one page, a heading per paragraph), each a share of the
    time when it is asked of one article that has them, each part of another paragraph
    (as research asks a site: each part answered in its own section); else ``whole``."""
    one = all(a is group[0][0] for a, _ in group)
    apart = len({qa.paragraph for _, qa in group}) == len(group)
    if not (one and apart and group[0][0].sections):
        return "whole"
    if group[0][0].broad:  # a broad question asks a section its heading names
        return "sections" if rng.random() < 0.5 else "headed"
    draw = rng.random()
    return "sections" if draw < SECTIONS else "headed" if draw < 2 * SECTIONS else "whole"


def _asked_on(article: Article, qa: QA, shape: str) -> tuple[Article, list[tuple[str, int]]]:
    """The page a question is asked of as its article is read (see :func:`_shape`), and
    its answers on that page."""
    if shape == "whole":
        return article, qa.answers
    page = article.sections[qa.paragraph] if shape == "sections" else article.headed
    assert page is not None
    same = next(q for q in page.qas if q.question == qa.question)
    return page, same.answers


def distractors(
    part: str, gold: Article, tune: list[Article], index: Any, rng: random.Random
) -> list[Article]:
    """The other articles a run would read for a part: the ones a search engine ranks
    first for its words (:data:`HARD` of them), and one drawn at random."""
    scores = index.get_scores(sorted(grams(part)))
    ranked = sorted(range(len(tune)), key=lambda i: (-scores[i], tune[i].key))
    # another paragraph of the gold article (CMRC 2018 keeps them apart) is no distractor
    hard = [tune[i] for i in ranked if tune[i].key != gold.key][:HARD]
    rest = [a for a in tune if a.key != gold.key and a not in hard]
    return hard + rng.sample(rest, min(len(rest), DISTRACTORS - HARD))


# ------------------------------------------------------------------------------ fitting


def fit(data: list[Example]) -> tuple[list[float], float]:
    """The model's weights and bias: a ranking fitted on pairs, then scaled to a
    probability.

    First, for each part, every sentence holding its answer is paired with the other
    sentences read for it (at most :data:`PAIRS` of them, drawn with a fixed seed), and a
    logistic regression without intercept learns which of a pair answers from the
    difference of their features: the weights order a part's sentences. Every part
    weighs the same, however many of its sentences answer it (a broad part is answered
    by a whole section). Then a
    one-feature logistic regression on that order's scores (Platt scaling) turns it into
    the probability that a sentence answers its part, over every example.
    """
    from sklearn.linear_model import LogisticRegression

    rng = random.Random(SEED)
    diffs: list[list[float]] = []
    signs: list[int] = []
    weights: list[float] = []
    by_group: dict[str, list[Example]] = {}
    for e in data:
        by_group.setdefault(e.group, []).append(e)
    for group in by_group.values():
        negatives = [e for e in group if not e.label]
        positives = [e for e in group if e.label]
        for pos in positives:
            drawn = negatives if len(negatives) <= PAIRS else rng.sample(negatives, PAIRS)
            for neg in drawn:
                diff = [a - b for a, b in zip(pos.features, neg.features, strict=True)]
                sign = 1 if len(diffs) % 2 == 0 else -1  # both classes, for the solver
                diffs.append([sign * d for d in diff])
                signs.append(int(sign > 0))
                weights.append(1.0 / len(positives))
    ranker = LogisticRegression(
        C=REGULARISATION, solver="lbfgs", max_iter=5000, fit_intercept=False
    )
    ranker.fit(diffs, signs, sample_weight=weights)
    order = [float(w) for w in ranker.coef_[0]]
    raw = [[sum(w * f for w, f in zip(order, e.features, strict=True))] for e in data]
    platt = LogisticRegression(C=REGULARISATION, solver="lbfgs", max_iter=5000)
    platt.fit(raw, [e.label for e in data])
    scale = float(platt.coef_[0][0])
    return [scale * w for w in order], float(platt.intercept_[0])


def _score(weights: Sequence[float], bias: float, feats: Sequence[float]) -> float:
    import math

    z = bias + sum(w * f for w, f in zip(weights, feats, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Scored = list[tuple[float, float, "Example"]]


def scored(data: list[Example], weights: Sequence[float], bias: float) -> list[Scored]:
    """Each part's examples with their scores: among every page read, and (off the gold
    page) among the pages read without the gold page (-1 on the gold page)."""
    groups: dict[str, Scored] = {}
    for e in data:
        off = -1.0 if e.unanswered is None else _score(weights, bias, e.unanswered)
        groups.setdefault(e.group, []).append((_score(weights, bias, e.features), off, e))
    return list(groups.values())


def honest_bars(
    best: Iterable[tuple[float, str]], target: float = HONEST
) -> tuple[float, dict[str, float]]:
    """The score a part's best sentence on pages that do not answer it stays under for
    ``target`` of the parts: over all of them, and for each script that has parts
    enough to measure it.

    Args:
        best: each part's best score on pages none of which answers it, with the
            script the part is written in.
        target: the share of parts to stay under (:data:`HONEST` unless given). A
            script has its own threshold when as many of its parts lie above it as
            :data:`PER_SCRIPT` parts leave above :data:`HONEST` (:data:`PER_SCRIPT` parts
            at that target): the higher the target, the more parts it needs.
    """
    found = list(best)
    by_script: dict[str, list[float]] = {}
    for score, script_ in found:
        by_script.setdefault(script_, []).append(score)
    enough = math.ceil(PER_SCRIPT * (1 - HONEST) / (1 - target) - 1e-9)
    per = {k: _quantile(v, target) + 1e-6 for k, v in sorted(by_script.items()) if len(v) >= enough}
    return _quantile([score for score, _ in found], target) + 1e-6, per


def cut_offs(groups: list[Scored]) -> tuple[float, dict[str, float]]:
    """The sentence model's evidence thresholds (see :func:`honest_bars`), from the best
    sentence of the pages read when none of them is the part's gold page."""
    return honest_bars(
        (max((o for _, o, e in g if not e.gold_page), default=0.0), g[0][2].script) for g in groups
    )


def _bar(group: Scored, thresholds: dict[str, float], default: float) -> float:
    return thresholds.get(group[0][2].script, default)


def figures(
    groups: list[Scored], threshold: float, thresholds: dict[str, float]
) -> dict[str, float]:
    """How the model does on examples: the share of parts whose best sentence on the gold
    page, and over every page read, holds the answer; whose answer reaches the
    threshold; and (honest) whose best sentence stays under it when the gold page is
    not among the pages read."""
    answerable = [g for g in groups if any(e.label for _, _, e in g)]
    first_on_page = first = over = 0
    for g in answerable:
        on_page = max((x for x in g if x[2].gold_page), key=lambda x: x[0])
        first_on_page += on_page[2].label
        first += max(g, key=lambda x: x[0])[2].label
        over += any(e.label and s >= _bar(g, thresholds, threshold) for s, _, e in g)
    honest = sum(
        max((o for _, o, e in g if not e.gold_page), default=0.0) < _bar(g, thresholds, threshold)
        for g in groups
    )
    n = max(1, len(answerable))
    return {
        "answer_first_on_its_page": round(first_on_page / n, 4),
        "answer_first_of_all_pages": round(first / n, 4),
        "answer_over_threshold": round(over / n, 4),
        "honest_nothing": round(honest / max(1, len(groups)), 4),
        "parts": len(groups),
    }


@dataclass
class Candidate:
    """One of a part's best sentences over the pages read, for the answer model."""

    features: list[float]  # in ALONE_FEATURES' order, then QUESTION_FEATURES' once known
    label: int  # whether its page is the part's gold page (read with it)
    group: str
    answered: bool  # whether the part's gold page is among the pages read
    script: str
    article: str
    page: str
    gold_key: str
    #: whether its page's PAGE_QUOTES best sentences by the sentence model hold the answer
    quotes_answer: bool = False

    @property
    def question(self) -> str:
        return self.group.rsplit(":", 1)[0]


def _log_odds(weights: Sequence[float], bias: float, feats: Sequence[float]) -> float:
    return bias + sum(w * f for w, f in zip(weights, feats, strict=True))


def _page_quotes_answer(g: Scored) -> set[str]:
    """The pages read for a part whose :data:`~research.ranking.PAGE_QUOTES` best
    sentences by the sentence model (scores ``g``) hold its answer."""
    pages: dict[str, list[tuple[float, int]]] = {}
    for s, _, e in g:
        pages.setdefault(e.page, []).append((-s, e.label))
    return {p for p, v in pages.items() if any(lb for _, lb in sorted(v)[:PAGE_QUOTES])}


def candidates(groups: list[Scored], weights: Sequence[float], bias: float) -> list[Candidate]:
    """Each part's :data:`CANDIDATES` best sentences by the sentence model, with their
    standing among them (:func:`research.ranking.standing_in_part`): over every page
    read, and over the pages read without the gold page."""
    out = []
    for g in groups:
        quoting = _page_quotes_answer(g)
        for answered in (True, False):
            pool = [
                (e.features if answered else e.unanswered, e)
                for _, _, e in g
                if answered or e.unanswered is not None
            ]
            ranked = sorted(
                ((_log_odds(weights, bias, f), f, e) for f, e in pool), key=lambda x: -x[0]
            )[:CANDIDATES]
            part = standing_in_part([z for z, _, _ in ranked])
            for (_, feats, e), extra in zip(ranked, part, strict=True):
                out.append(
                    Candidate(
                        [*feats, *(extra[n] for n in PART_FEATURES)],
                        int(answered and e.gold_page),
                        e.group,
                        answered,
                        e.script,
                        e.article,
                        e.page,
                        e.gold_key,
                        answered and e.page in quoting,
                    )
                )
    return out


def fit_answer(cands: list[Candidate], names: Sequence[str]) -> Trees:
    """An answer model, without thresholds: gradient-boosted trees (scikit-learn's, with
    :data:`BOOSTING`, deterministic by :data:`SEED`) of whether a candidate is on its
    part's gold page, over the candidates of parts asked with and without their gold
    page among the pages read; the trees as :class:`research.ranking.Trees` reads them."""
    return fit_trees([c.features for c in cands], [c.label for c in cands], names)


def fit_trees(
    rows: Sequence[Sequence[float]], labels: Sequence[int], names: Sequence[str]
) -> Trees:
    """Gradient-boosted trees (scikit-learn's, with :data:`BOOSTING`, deterministic by
    :data:`SEED`) of ``labels`` over ``rows``, without thresholds, as
    :class:`research.ranking.Trees` reads them."""
    from sklearn.ensemble import GradientBoostingClassifier

    clf = GradientBoostingClassifier(**BOOSTING, init="zero", random_state=SEED)
    clf.fit(rows, labels)
    rate = BOOSTING["learning_rate"]
    trees = []
    for (estimator,) in clf.estimators_:
        t = estimator.tree_
        nodes: list[tuple[float, ...]] = []
        for i in range(t.node_count):
            if t.children_left[i] == -1:  # a leaf: its share of the log-odds
                nodes.append((round(rate * float(t.value[i][0][0]), 6),))
            else:
                left, right = int(t.children_left[i]), int(t.children_right[i])
                nodes.append((int(t.feature[i]), round(float(t.threshold[i]), 6), left, right))
        trees.append(tuple(nodes))
    return Trees(threshold=0.0, thresholds={}, names=tuple(names), trees=tuple(trees))


def _inner_fold(key: str) -> int:
    return hashlib.sha256(f"inner:{key}".encode()).digest()[0] % 2


def judged(judge: Trees, cands: Sequence[Candidate]) -> list[float]:
    """Each candidate's score by an answer model."""
    return [judge.score(dict(zip(judge.names, c.features, strict=True))) for c in cands]


def out_of_fold(cands: list[Candidate], names: Sequence[str]) -> list[float]:
    """Each candidate's score by an answer model fitted on the other half of the
    articles (:func:`_inner_fold`): how the model scores parts it has not seen, which is
    what its thresholds and the question features must be set from (on the parts it was
    fitted on, trees are surer than they will be)."""
    scores = [0.0] * len(cands)
    for k in (0, 1):
        mine = [i for i, c in enumerate(cands) if _inner_fold(c.article) == k]
        model = fit_answer([c for c in cands if _inner_fold(c.article) != k], names)
        for i, score in zip(mine, judged(model, [cands[i] for i in mine]), strict=True):
            scores[i] = score
    return scores


def _chosen_pages(
    cands: list[Candidate], scores: Sequence[float], bar: float, bars: dict
) -> dict[str, set[str]]:
    """The pages each part quotes (read with its gold page) by an answer model's
    ``scores``: the page of each candidate reaching the part's threshold (see
    :func:`research.ranking.chosen`), by part."""
    out: dict[str, set[str]] = {}
    for c, p in zip(cands, scores, strict=True):
        if c.answered and p >= bars.get(c.script, bar):
            out.setdefault(c.group, set()).add(c.page)
    return out


def with_question(cands: list[Candidate], quoted: dict[str, set[str]]) -> list[Candidate]:
    """The candidates with their :data:`~research.ranking.QUESTION_FEATURES`: whether
    another part of the question quotes the candidate's page (``quoted``: each part's
    pages, by :func:`_chosen_pages` of the answer model without them); a part asked
    without its gold page does not see that page quoted by the others either."""
    by_question: dict[str, dict[str, set[str]]] = {}
    for group, pages in quoted.items():
        by_question.setdefault(group.rsplit(":", 1)[0], {})[group] = pages
    out = []
    for c in cands:
        others = set().union(
            *(p for g, p in by_question.get(c.question, {}).items() if g != c.group)
        )
        if not c.answered:
            others.discard(c.gold_key)
        out.append(replace(c, features=[*c.features, float(c.page in others)]))
    return out


def calibrated(cands: list[Candidate], names: Sequence[str]) -> tuple[Trees, list[float]]:
    """An answer model fitted on ``cands`` with its thresholds (:func:`answer_cut_offs`
    of the :func:`out_of_fold` scores), and those scores."""
    scores = out_of_fold(cands, names)
    bar, bars = answer_cut_offs(cands, scores)
    return replace(fit_answer(cands, names), threshold=bar, thresholds=bars), scores


def fit_answers(cands: list[Candidate]) -> tuple[Trees, list[Candidate]]:
    """The answer model, its first pass (the one that weighs a part alone) as its
    ``alone``; and the candidates with their question features that it was fitted on:
    whether another part of the question quotes the candidate's page, by the first
    pass's out-of-fold choices."""
    alone, scores = calibrated(cands, ALONE_FEATURES)
    full = with_question(cands, _chosen_pages(cands, scores, alone.threshold, alone.thresholds))
    answer, _ = calibrated(full, ANSWER_FEATURES)
    return replace(answer, alone=alone), full


def in_question(cands: list[Candidate], alone: Trees) -> list[Candidate]:
    """``cands`` with their question features, by the answer model's first pass."""
    scores = judged(alone, cands)
    return with_question(cands, _chosen_pages(cands, scores, alone.threshold, alone.thresholds))


def _unanswered_best(cands: list[Candidate], scores: Sequence[float]) -> dict:
    """Each part's best answer-model score when its gold page is not read, and its
    script, by part."""
    best: dict[str, tuple[float, str]] = {}
    for c, p in zip(cands, scores, strict=True):
        if not c.answered and (c.group not in best or p > best[c.group][0]):
            best[c.group] = (p, c.script)
    return best


def answer_cut_offs(
    cands: list[Candidate], scores: Sequence[float]
) -> tuple[float, dict[str, float]]:
    """The answer model's thresholds: the score a part's best candidate stays under, for
    :data:`HONEST` of the parts asked without their gold page, over all of them and for
    each script with at least :data:`PER_SCRIPT` of them."""
    bar, per = honest_bars(_unanswered_best(cands, scores).values())
    return round(bar, 6), {k: round(v, 6) for k, v in per.items()}


def answer_figures(cands: list[Candidate], judge: Trees) -> dict[str, float]:
    """How the answer model does: the share of parts (whose answer is in a sentence read)
    that quote a page whose :data:`~research.ranking.PAGE_QUOTES` best sentences hold
    the answer, with that page's candidate over their script's threshold; and (honest)
    the share of parts asked without their gold page with no candidate over it."""
    scores = judged(judge, cands)
    found: dict[str, bool] = {}
    answerable = {c.group for c in cands if c.answered and c.label}
    for c, p in zip(cands, scores, strict=True):
        if c.answered and c.group in answerable:
            hit = c.quotes_answer and p >= judge.threshold_for(c.script)
            found[c.group] = found.get(c.group, False) or hit
    best = _unanswered_best(cands, scores)
    honest = sum(p < judge.threshold_for(k) for p, k in best.values())
    return {
        "answered": round(sum(found.values()) / max(1, len(found)), 4),
        "honest_nothing": round(honest / max(1, len(best)), 4),
        "parts": len(best),
    }


def trees_dict(judge: Trees) -> dict[str, Any]:
    """An answer model as the model file holds it (:func:`research.ranking.trees_from_dict`
    reads it back)."""
    out: dict[str, Any] = {
        "features": list(judge.names),
        "threshold": judge.threshold,
        "thresholds": dict(judge.thresholds),
        "trees": [[list(node) for node in tree] for tree in judge.trees],
    }
    if judge.alone is not None:
        out["alone"] = trees_dict(judge.alone)
    return out


def cross_validated(data: list[Example]) -> tuple[dict[str, float], dict[str, float]]:
    """:func:`figures` and :func:`answer_figures` of models fitted on half the articles
    and scored on the other half (thresholds calibrated on the fitting half), averaged
    over the two halves."""
    folds = [[e for e in data if _fold(e.article) == k] for k in (0, 1)]
    out: dict[str, float] = {}
    answers: dict[str, float] = {}
    for k in (0, 1):
        train_on, test_on = folds[1 - k], folds[k]
        weights, bias = fit(train_on)
        fitted = scored(train_on, weights, bias)
        tested = scored(test_on, weights, bias)
        got = figures(tested, *cut_offs(fitted))
        for key, value in got.items():
            out[key] = round(out.get(key, 0.0) + value / 2, 4)
        judge, _ = fit_answers(candidates(fitted, weights, bias))
        assert judge.alone is not None
        held = in_question(candidates(tested, weights, bias), judge.alone)
        for key, value in answer_figures(held, judge).items():
            answers[key] = round(answers.get(key, 0.0) + value / 2, 4)
    return out, answers


def _fold(key: str) -> int:
    return hashlib.sha256(f"fold:{key}".encode()).digest()[0] % 2


def gather(limit: int, mentions: bool = False) -> tuple[list[Example], dict[str, dict[str, int]]]:
    """Every set's training examples, and how many each gave (with ``mentions``, see
    :func:`examples`)."""
    rng = random.Random(SEED)
    data: list[Example] = []
    counts = {}
    started = time.perf_counter()
    sets = [(f"xquad.{lang}", lambda lang=lang: load_xquad(lang)) for lang in XQUAD_LANGS]
    sets.append(("cmrc2018.dev", load_cmrc))
    sets.append(("selqa.broad", lambda: load_selqa_broad(random.Random(f"{SEED}:broad"))))
    for name, load in sets:
        got = examples(load(), name, rng, limit, mentions)
        counts[name] = {"examples": len(got), "positives": sum(e.label for e in got)}
        data += got
        print(
            f"{name}: {len(got)} examples, {counts[name]['positives']} positive "
            f"({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    return data, counts


def gathered(
    limit: int, cache: Path | None, mentions: bool = False
) -> tuple[list[Example], dict[str, dict[str, int]]]:
    """:func:`gather`'s examples, read from ``cache`` when it holds them, and written
    there when it does not: a quicker way to try a change to the fitting, never to the
    features."""
    if cache is not None and cache.is_file():
        return pickle.loads(cache.read_bytes())
    data, counts = gather(limit, mentions)
    if cache is not None:
        cache.write_bytes(pickle.dumps((data, counts)))
    return data, counts


def train(limit: int = PARTS_PER_SET, cache: Path | None = None) -> dict[str, Any]:
    """The model file's content, fitted on :func:`gather`'s examples (see
    :func:`gathered` for ``cache``)."""
    data, counts = gathered(limit, cache)
    weights, bias = fit(data)
    weights, bias = [round(w, 6) for w in weights], round(bias, 6)
    groups = scored(data, weights, bias)
    threshold, thresholds = cut_offs(groups)
    thresholds = {k: round(v, 6) for k, v in thresholds.items()}
    answer, cands = fit_answers(candidates(groups, weights, bias))
    ranked, answered = cross_validated(data)
    model = {
        "features": list(FEATURES),
        "weights": weights,
        "bias": bias,
        "threshold": round(threshold, 6),
        "thresholds": thresholds,
        "answer": trees_dict(answer),
        "calibration": {
            "honest_target": HONEST,
            "training": figures(groups, threshold, thresholds),
            "cross_validated": ranked,
            "answer": {
                "training": answer_figures(cands, answer),
                "cross_validated": answered,
            },
        },
    }
    model["training"] = {
        "script": "scripts/train_ranker.py",
        "data": {
            "google-deepmind/xquad": git_head(XQUAD_GIT),
            "ymcui/cmrc2018": git_head(CMRC_GIT),
            "emorynlp/selqa": git_head(SELQA_GIT),
        },
        "split": "tune half of each set (sha256 of the article key, first byte even)",
        "sets": counts,
        "parts_per_set": limit,
        "seed": SEED,
        "regularisation": REGULARISATION,
        "boosting": BOOSTING,
    }
    return model


def model_text(model: dict[str, Any]) -> str:
    """The model file's text: indented JSON, each of the answer models' trees on one
    line (thousands of small nodes would otherwise take a line each)."""
    trees: list[str] = []

    def folded(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {k: [mark(t) for t in v] if k == "trees" else folded(v) for k, v in value.items()}

    def mark(tree: list[list[float]]) -> str:
        trees.append(json.dumps(tree, separators=(",", ":")))
        return f"@tree{len(trees) - 1}@"

    text = json.dumps(folded(model), ensure_ascii=False, indent=1) + "\n"
    return re.sub(r'"@tree(\d+)@"', lambda m: trees[int(m.group(1))], text)


def fixed_hash_seed() -> None:
    """Run this script again with ``PYTHONHASHSEED=0`` unless it already is: the order of
    a set of words decides ties in the core (which facet, which subject), and the same
    order in every run makes a model the same byte for byte."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(
            sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"}
        )


def write_or_check(out: Path, text: str, check: bool) -> None:
    """Write a model file, or with ``check`` compare it with the one at ``out`` and exit 1
    unless they are the same byte for byte."""
    if check:
        same = out.read_text(encoding="utf-8") == text
        print("the committed model is reproduced byte for byte" if same else "the model differs")
        raise SystemExit(0 if same else 1)
    out.write_text(text, encoding="utf-8")
    print(f"wrote {out}")


def main() -> None:
    fixed_hash_seed()
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed model")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument(
        "--parts", type=int, default=PARTS_PER_SET, help="parts per set (a quick look: 30)"
    )
    parser.add_argument("--cache", type=Path, help="keep the examples here between tries")
    args = parser.parse_args()
    model = train(args.parts, args.cache)
    text = model_text(model)
    for name, w in zip(FEATURES, model["weights"], strict=True):
        print(f"  {name:<14} {w:+.3f}")
    print(f"  {'bias':<14} {model['bias']:+.3f}")
    cut = {"thresholds": model["thresholds"], "answer_thresholds": model["answer"]["thresholds"]}
    print(json.dumps(model["calibration"] | cut, indent=1))
    write_or_check(args.out, text, args.check)


if __name__ == "__main__":
    main()
