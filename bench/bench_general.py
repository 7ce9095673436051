"""Development benchmark on public reading-comprehension data: XQuAD (en, zh) and CMRC 2018.

Usage:
    .venv/bin/python bench/bench_general.py --quick          # ~30 s: 2 multi-part + 1 off-topic
                                                             # question each in en and zh
    .venv/bin/python bench/bench_general.py --split tune --limit 10 --json /tmp/tune.json
    .venv/bin/python bench/bench_general.py [--split tune|held-out|all] [--lang en,zh,cmrc]
        [--limit N] [--seed S] [--max-pages N] [--json OUT] [--runs-dir DIR]
        [--xquad GITDIR] [--cmrc GITDIR]

The data is read at run time from git repositories (``git clone --mirror
https://github.com/google-deepmind/xquad /tmp/xquad.git`` and ``…/ymcui/cmrc2018
/tmp/cmrc2018.git``, or ``QUARTET_XQUAD``/``QUARTET_CMRC``), with ``git show``, and is never
copied into this repository. Each article becomes one page of a local web
(:func:`demo.corpus.corpus_world`) with the demo's search engines over it; each set (``en``
and ``zh`` XQuAD, ``cmrc``) is its own world. The offline Host then researches two kinds of
question per set (``--limit`` of each, default 20):

- multi-part: 2-4 questions about one article with short gold answers, joined into one
  question ("Q1, and q2?", "Q1, q2, and q3?", "About T: Q1? Q2? Q3?", "问一？问二？",
  "问一，问二？");
- off-topic: one question about an article the world leaves out.

Articles are split into a tune half and a held-out half by a hash of their title (the
English title for XQuAD, so English and Chinese share the split; CMRC's title or id);
questions come from the chosen half only (``--split``, default held-out; ``--quick`` draws
from the tune half unless ``--split`` is given, so that a quick look never shows held-out
questions). The world of a set serves every article of the set except the off-topic ones.

Scores per set: each gold question maps to the plan part whose text overlaps it most
(content words in English, character bigrams in Chinese). It is answered when one of its
gold answers (case-insensitive; Chinese ignoring spaces) occurs in a cited line of that
part's own section; "+summary" also counts the summary line the report gives that part.
Citation precision is the share of the sources the
reports cite (unique per question, pooled over the set) that are the gold article's page.
Honest nothing is the share of off-topic questions whose run answers nothing and cites
nothing. Wall time is the time of one question's whole run (median, mean and 90th
percentile). ``--json`` writes every question's outcome: the plan's parts with their
cited lines, which gold question mapped to which part, the gold answers, whether each was
answered, the cited sources, notes on what went wrong and the run's id (keep the runs
with ``--runs-dir``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import itertools
import json
import logging
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from demo.corpus import (  # noqa: E402
    CorpusPage,
    PartOfRun,
    cited_sources,
    corpus_world,
    parts_by_subquestion,
    read_report,
    report_parts,
    research,
    url_of,
)

#: Where the data repositories are (a bare clone or a checkout's ``.git``), unless given.
XQUAD_GIT = Path(os.environ.get("QUARTET_XQUAD", "/tmp/xquad.git"))
CMRC_GIT = Path(os.environ.get("QUARTET_CMRC", "/tmp/cmrc2018.git"))
CMRC_FILES = ("data/cmrc2018_dev.json", "squad-style-data/cmrc2018_dev.json")
SETS = ("en", "zh", "cmrc")
NAMES = {"en": "XQuAD English", "zh": "XQuAD Chinese", "cmrc": "CMRC 2018 (dev)"}
TARGETS = {"answered": 85.0, "precision": 0.9, "nothing": 95.0}
SHORT_ANSWER = 40
QUICK = {"multi": 2, "off": 1, "langs": ("en", "zh")}

_STOP_WORDS = (
    "a an the of in on at to for by with from and or is are was were be been did do does "
    "what which who whom whose when where why how that this these those it its as into "
    "than then there their they he she his her had has have not no"
)
_STOP = frozenset(_STOP_WORDS.split())
#: First words that are ordinary words, lower-cased when the question is joined on.
_ORDINARY_FIRST = (
    "what which who whom whose when where why how in on at during after before for from "
    "to by with the a an is was are were did does do can could would should will "
    "according along about as if under since other besides of approximately roughly "
    "around between beside while upon until there this that these those it its many "
    "some most much all each every one two three four five several few"
)
_LOWER_FIRST = frozenset(_ORDINARY_FIRST.split())


# ----------------------------------------------------------------------------- the data


@dataclass
class QA:
    """One question of the data with its gold answers."""

    question: str
    answers: list[str]
    paragraph: int = -1  # the index of the paragraph of its article that answers it


@dataclass
class Article:
    """One article: its page, its questions and the key its split is decided by."""

    key: str
    page: CorpusPage
    qas: list[QA]

    @property
    def split(self) -> str:
        return split_of(self.key)


def split_of(key: str) -> str:
    """``tune`` or ``held-out``, by a stable hash of an article's key."""
    return "tune" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def git_json(gitdir: Path, path: str) -> Any:
    """A JSON file at HEAD of a git directory (with no work tree)."""
    proc = subprocess.run(
        ["git", "--git-dir", str(gitdir), "show", f"HEAD:{path}"],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise FileNotFoundError(f"{gitdir}: no {path} at HEAD")
    return json.loads(proc.stdout)


def need_repo(gitdir: Path, repo: str, option: str) -> None:
    """Exit with one line when a data repository is missing."""
    if not (gitdir / "HEAD").is_file():
        raise SystemExit(
            f"bench_general: error: no git directory at {gitdir}; clone it with "
            f"git clone --mirror https://github.com/{repo} {gitdir} (or pass {option} GITDIR)"
        )


def _clean(text: object) -> str:
    return re.sub(r"[ \t]+", " ", str(text).replace("\ufeff", "")).strip()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "page"


def _zh_title(paragraph: str, shortest: int = 6, limit: int = 18) -> str:
    """A Chinese page title from its own text: its first clauses, at least ``shortest``
    and at most ``limit`` characters."""
    title = ""
    for clause in re.split(r"[，。；：！？（(、,;:]", paragraph.strip()):
        title = f"{title}，{clause.strip()}" if title else clause.strip()
        if len(title) >= shortest:
            break
    return (title or paragraph)[:limit].strip()


def _title_of(paragraph: str, lang: str, words: int = 8, limit: int = 60) -> str:
    """A page title from its own text in any language: the first clause, as
    :func:`_zh_title` makes it for Chinese; elsewhere at most ``words`` words and
    ``limit`` characters (cut at a space when there is one)."""
    if lang == "zh":
        return _zh_title(paragraph)
    clause = re.split(r"[,;:.!?()\u060c\u061b\u0964\u3001]", paragraph.strip())[0].strip()
    title = " ".join((clause or paragraph).split()[:words])
    if len(title) > limit:
        cut = title.rfind(" ", 0, limit)
        title = title[: cut if cut > limit // 2 else limit]
    return title.strip()


def _qas(paragraphs: Sequence[dict[str, Any]]) -> list[QA]:
    out = []
    for i, p in enumerate(paragraphs):
        for qa in p["qas"]:
            answers = list(dict.fromkeys(_clean(a["text"]) for a in qa["answers"]))
            out.append(QA(_clean(qa["question"]), [a for a in answers if a], i))
    return out


def load_xquad(gitdir: Path, lang: str) -> list[Article]:
    """The 48 XQuAD articles of one language, keyed by their English title.

    The English pages are titled by their article's title; the others by their own first
    clause (:func:`_title_of`).
    """
    need_repo(gitdir, "google-deepmind/xquad", "--xquad")
    english = git_json(gitdir, "xquad.en.json")["data"]
    data = english if lang == "en" else git_json(gitdir, f"xquad.{lang}.json")["data"]
    articles = []
    for en, art in zip(english, data, strict=True):
        key = en["title"]
        paragraphs = [_clean(p["context"]) for p in art["paragraphs"]]
        title = key.replace("_", " ") if lang == "en" else _title_of(paragraphs[0], lang)
        page = CorpusPage(title, f"{lang}/{_slug(key)}", paragraphs, lang=lang)
        articles.append(Article(key, page, _qas(art["paragraphs"])))
    return articles


def load_cmrc(gitdir: Path) -> list[Article]:
    """CMRC 2018's development set: one article per context, keyed by its title or id."""
    need_repo(gitdir, "ymcui/cmrc2018", "--cmrc")
    for path in CMRC_FILES:
        try:
            raw = git_json(gitdir, path)
            break
        except FileNotFoundError:
            continue
    else:
        raise SystemExit(f"bench_general: error: {gitdir} has none of {', '.join(CMRC_FILES)}")
    articles = []
    if isinstance(raw, list):  # data/: context_text, qas[].query_text, answers[] (strings)
        for item in raw:
            context = _clean(item["context_text"])
            qas = [
                QA(_clean(q["query_text"]), list(dict.fromkeys(_clean(a) for a in q["answers"])))
                for q in item["qas"]
            ]
            articles.append(_cmrc_article(item["context_id"], item.get("title", ""), context, qas))
    else:  # squad-style-data/: the SQuAD v1.1 shape
        for item in raw["data"]:
            for p in item["paragraphs"]:
                qas = _qas([p])
                articles.append(
                    _cmrc_article(p["id"], item.get("title", ""), _clean(p["context"]), qas)
                )
    return articles


def _cmrc_article(context_id: str, title: str, context: str, qas: list[QA]) -> Article:
    title = _clean(title) or _zh_title(context)
    page = CorpusPage(title, f"zh/cmrc-{_slug(context_id)}", [context], lang="zh")
    return Article(title if title and not title.isspace() else context_id, page, qas)


# ------------------------------------------------------------------------- the questions


def is_zh(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def tokens(text: str) -> set[str]:
    """Lower-cased content words (English), words (other languages written with spaces)
    or character bigrams (Chinese, Thai)."""
    if is_zh(text) or re.search(r"[\u0e00-\u0e7f]", text):
        chars = re.findall(r"[\u4e00-\u9fff\u0e00-\u0e7f]|[A-Za-z0-9]+", text.lower())
        return {a + b for a, b in itertools.pairwise(chars)} or set(chars)
    pattern = r"[a-z0-9]+" if text.isascii() else r"\w+"
    words = re.findall(pattern, text.lower())
    return {w for w in words if w not in _STOP} or set(words)


def overlap(gold: str, part: str) -> float:
    """How much of a gold question's tokens a plan part's text has (0..1)."""
    g = tokens(gold)
    return len(g & tokens(part)) / len(g) if g else 0.0


def _bare(question: str) -> str:
    return question.strip().rstrip("?？ .。").strip()


#: The question marks of XQuAD's languages: Latin and full-width, Greek, Arabic.
_QUESTION_MARKS = ("?", "？", ";", "\u037e", "\u061f")


def asked(question: str, lang: str) -> str:
    """One question as it is asked alone: with its own question mark (English and Chinese
    with ``?`` and ``？``; another language keeps its own mark, or is given ``?``)."""
    if lang in ("en", "zh"):
        return _bare(question) + ("？" if is_zh(question) else "?")
    text = question.strip().rstrip(" .。")
    return text if text.endswith(_QUESTION_MARKS) else text + "?"


def _lower_first(question: str, context: str) -> str:
    """``question`` with its first letter lower-cased unless it starts with a name or 'I'."""
    first = re.match(r"[A-Za-z']+", question)
    if not first or first.group() == "I":
        return question
    word = first.group()
    common = word.lower() in _LOWER_FIRST or re.search(rf"\b{word.lower()}\b", context)
    return question[0].lower() + question[1:] if common else question


#: A question that opens with its question word ("where …", "in which year …") can follow
#: another after ", and".
_ASKS = (
    r"(?:(?:in|on|at|by|for|from|to|since|until)\s+)?"
    r"(?:how|why|what|when|where|which|who|whom|whose)\b"
)


def phrase(qas: Sequence[QA], page: CorpusPage, rng: random.Random) -> str:
    """One natural question made of several, in the article's language (a language other
    than English and Chinese: the questions one after another, each with its own mark)."""
    if page.lang not in ("en", "zh"):
        return " ".join(asked(q.question, page.lang) for q in qas)
    qs = [_bare(q.question) for q in qas]
    if page.lang == "zh":
        if rng.random() < 0.5:
            return "".join(q + "？" for q in qs)
        sep = "、" if all(len(q) <= 12 for q in qs) else "，"
        return sep.join(qs) + "？"
    context = " ".join(page.paragraphs)
    rest = [_lower_first(q, context) for q in qs[1:]]
    style = rng.random()
    asks = all(re.match(_ASKS, q, re.I) for q in qs[1:])
    if style < 0.5 or not asks:  # ", and in 1990, the town built …" is no way to ask
        lead = f"About {page.title}: " if style < 0.5 else ""
        return lead + " ".join(q + "?" for q in qs)
    if len(qs) == 2:
        return f"{qs[0]}, and {rest[0]}?"
    return ", ".join([qs[0], *rest[:-1]]) + f", and {rest[-1]}?"


def _near_duplicate(a: QA, b: QA) -> bool:
    """Whether two questions ask nearly the same, share an answer, or one gives away the
    other's answer."""
    ta, tb = tokens(a.question), tokens(b.question)
    same = len(ta & tb) / max(1, min(len(ta), len(tb)))
    answers = {x.lower() for x in a.answers} & {x.lower() for x in b.answers}
    zh = is_zh(a.question)
    leaks = states([b.question], a.answers, zh) or states([a.question], b.answers, zh)
    return same >= 0.5 or bool(answers) or leaks


def pick_parts(
    article: Article,
    rng: random.Random,
    used: set[str],
    sizes: tuple[tuple[int, ...], tuple[int, ...]] = ((2, 3, 4), (5, 3, 2)),
    short: bool = True,
) -> list[QA]:
    """2-4 questions of one article (``sizes``: how many, and how often each) that are
    not near-duplicates, with short answers unless ``short`` is off; none of the
    questions in ``used``."""
    pool = [
        q
        for q in article.qas
        if q.answers
        and (not short or min(map(len, q.answers)) < SHORT_ANSWER)
        and q.question not in used
    ]
    rng.shuffle(pool)
    want = rng.choices(sizes[0], weights=sizes[1])[0]
    chosen: list[QA] = []
    for qa in pool:
        if not any(_near_duplicate(qa, c) for c in chosen):
            chosen.append(qa)
        if len(chosen) == want:
            break
    return chosen


@dataclass
class Case:
    """One benchmark question: its kind, its article and the gold questions in it."""

    kind: str  # multi or off
    question: str
    article: Article
    gold: list[QA]


def make_cases(
    articles: list[Article], split: str, n_multi: int, n_off: int, seed: int
) -> tuple[list[Case], set[str]]:
    """The multi-part and off-topic questions of one set, and the keys of the articles
    the world must leave out (the off-topic ones)."""
    rng = random.Random(seed)
    chosen = [a for a in articles if split == "all" or a.split == split]
    chosen.sort(key=lambda a: hashlib.sha256(f"{seed}:{a.key}".encode()).hexdigest())
    n_held = min(len(chosen) // 4 or 1, max(1, (n_off + 1) // 2)) if n_off else 0
    off_articles, on_articles = chosen[:n_held], chosen[n_held:]
    cases: list[Case] = []
    used: set[str] = set()
    while len(cases) < n_multi:  # round after round over the articles, new questions each
        before = len(cases)
        for article in on_articles:
            if len(cases) >= n_multi:
                break
            parts = pick_parts(article, rng, used)
            if len(parts) >= 2:
                used.update(q.question for q in parts)
                cases.append(Case("multi", phrase(parts, article.page, rng), article, parts))
        if len(cases) == before:
            break
    pools = {a.key: [q for q in a.qas if q.answers] for a in off_articles}
    for pool in pools.values():
        rng.shuffle(pool)
    for i in range(n_off):
        if not off_articles:
            break
        article = off_articles[i % len(off_articles)]
        pool = pools[article.key]
        if pool:
            qa = pool.pop()
            cases.append(Case("off", asked(qa.question, article.page.lang), article, [qa]))
    return cases, {a.key for a in off_articles}


# --------------------------------------------------------------------------- scoring


@dataclass
class Outcome:
    """What one question's run gave, scored."""

    set: str
    kind: str
    question: str
    article: str
    gold_url: str
    plan: list[dict[str, Any]]
    gold: list[dict[str, Any]]
    answered_parts: int
    run_answered: int
    exit_code: int
    cited: list[str]
    gold_page_fetched: bool
    pages_read: int
    seconds: float
    run_id: str
    notes: list[str] = field(default_factory=list)

    @property
    def honest_nothing(self) -> bool:
        return self.run_answered == 0 and not self.cited


#: Languages whose answers are compared without spaces (written without spaces between
#: words, so a page and a gold answer may space the same words differently).
UNSPACED = ("zh", "zh-Hant", "th")


def _norm_answer(text: str, zh: bool) -> str:
    return re.sub(r"\s+", "", text) if zh else re.sub(r"\s+", " ", text).lower()


def states(lines: Sequence[str], answers: Sequence[str], zh: bool) -> bool:
    """Whether any line holds any of the answers (case-insensitive; Chinese ignores spaces)."""
    wanted = [_norm_answer(a, zh) for a in answers if a.strip()]
    return any(a in _norm_answer(line, zh) for line in lines for a in wanted)


def score(
    case: Case, parts: list[PartOfRun], report_md: str, gold_url: str
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Each gold question's part and whether it is answered; the cited sources; notes on
    what went wrong.

    A part's answer lines are its section's cited lines and the summary line the report
    gives it (a part whose only evidence is its summary line has no section).
    """
    zh = case.article.page.lang in UNSPACED
    cited = cited_sources(report_md)
    all_lines = [ln.text for lines in report_parts(report_md).values() for ln in lines]
    gold_rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for qa in case.gold:
        best = max(  # the part saying most of it; of two alike, the one adding least
            parts,
            key=lambda p: (overlap(qa.question, p.text), overlap(p.text, qa.question)),
            default=None,
        )
        row: dict[str, Any] = {"question": qa.question, "answers": qa.answers}
        if best is None:
            row |= {"part": None, "answered": False}
            gold_rows.append(row)
            continue
        row |= {
            "part": best.id,
            "part_text": best.text,
            "overlap": round(overlap(qa.question, best.text), 2),
            "answered": states([ln.text for ln in best.answer_lines], qa.answers, zh),
            "in_section": states([ln.text for ln in best.lines], qa.answers, zh),
            "in_line": states([ln.text for ln in best.answer_line], qa.answers, zh),
        }
        if not row["answered"]:
            row["answer_elsewhere"] = [
                p.id for p in parts if states([ln.text for ln in p.answer_lines], qa.answers, zh)
            ] or (["(report)"] if states(all_lines, qa.answers, zh) else [])
        gold_rows.append(row)
    if case.kind == "multi":
        mapped = [r["part"] for r in gold_rows if r["part"]]
        if len(set(mapped)) < len(mapped):
            notes.append("merged: two gold questions map to one plan part")
        if len(parts) != len(case.gold):
            notes.append(f"plan has {len(parts)} parts for {len(case.gold)} questions")
        elsewhere = [x for r in gold_rows for x in r.get("answer_elsewhere", [])]
        if any(x != "(report)" for x in elsewhere):
            notes.append("an answer is cited under another part")
        if "(report)" in elsewhere:
            notes.append("an answer is in the report outside the parts")
        if any(s != gold_url for s in cited):
            notes.append("cites pages other than the article")
    elif cited:
        notes.append("off-topic question cites pages")
    return gold_rows, cited, notes


# --------------------------------------------------------------------------- running


@contextmanager
def quiet_logs() -> Iterator[None]:
    """Keep the pipeline's log lines off the terminal."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        root.setLevel(level)


async def run_case(
    case: Case, set_name: str, world: Any, runs: Path, max_pages: int | None
) -> Outcome:
    page = case.article.page
    gold_url = url_of(world, page)
    fetched_before = len(world.site_requests)
    started = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        result = await research(case.question, world, runs, max_pages=max_pages)
    seconds = time.perf_counter() - started
    fetched = world.site_requests[fetched_before:]
    parts = parts_by_subquestion(Path(result.run.path))
    report_md = read_report(result)
    gold, cited, notes = score(case, parts, report_md, gold_url)
    plan = [
        {
            "id": p.id,
            "text": p.text,
            "status": p.status,
            "summary": [{"text": ln.text, "sources": ln.sources} for ln in p.summary],
            "lines": [{"text": ln.text, "sources": ln.sources} for ln in p.lines],
        }
        for p in parts
    ]
    return Outcome(
        set=set_name,
        kind=case.kind,
        question=case.question,
        article=page.title,
        gold_url=gold_url,
        plan=plan,
        gold=gold,
        answered_parts=sum(bool(g["answered"]) for g in gold),
        run_answered=result.answered,
        exit_code=result.exit_code,
        cited=cited,
        gold_page_fetched="/" + page.path in fetched,
        pages_read=result.pages_read,
        seconds=seconds,
        run_id=result.run.id,
        notes=notes,
    )


async def run_set(
    set_name: str,
    articles: list[Article],
    cases: list[Case],
    left_out: set[str],
    site: Path,
    runs: Path,
    max_pages: int | None,
) -> list[Outcome]:
    pages = [a.page for a in articles if a.key not in left_out]
    outcomes = []
    with corpus_world(pages, site) as world:
        for i, case in enumerate(cases, 1):
            outcome = await run_case(case, set_name, world, runs, max_pages)
            outcomes.append(outcome)
            mark = f"{outcome.answered_parts}/{len(case.gold)}" if case.kind == "multi" else (
                "nothing" if outcome.honest_nothing else f"cites {len(outcome.cited)}"
            )  # fmt: skip
            print(
                f"  [{set_name} {i}/{len(cases)}] {case.kind:<5} {outcome.seconds:5.1f}s "
                f"{mark:<9} {case.question[:90]}",
                file=sys.stderr,
                flush=True,
            )
    return outcomes


# --------------------------------------------------------------------------- the table


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def p90(values: Sequence[float]) -> float:
    """The 90th percentile of ``values`` (the one value when there is one)."""
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=10, method="inclusive")[-1]


def table(set_name: str, outcomes: list[Outcome]) -> str:
    """One set's figures: a row per kind of question, then the targets."""
    head = (
        f"{set_name:<6} {'kind':<10} {'questions':>9} {'parts':>5} {'answered':>9} "
        f"{'+summary':>8} {'precision':>9} {'nothing':>8} {'median s':>8} {'mean s':>7} "
        f"{'p90 s':>6}"
    )
    rows = [head, "-" * len(head)]
    for kind, label in (("multi", "multi-part"), ("off", "off-topic")):
        got = [o for o in outcomes if o.kind == kind]
        if not got:
            continue
        secs = [o.seconds for o in got]
        parts = sum(len(o.gold) for o in got)
        answered = sum(o.answered_parts for o in got)
        in_section = sum(bool(g.get("in_section")) for o in got for g in o.gold)
        cited = sum(len(o.cited) for o in got)
        right = sum(s == o.gold_url for o in got for s in o.cited)
        if kind == "multi":
            ans, sect = _pct(in_section, parts), _pct(answered, parts)
            prec = f"{right / cited:.2f}" if cited else "-"
            nothing, n_parts = "-", str(parts)
        else:
            ans, sect, prec, n_parts = "-", "-", "-", "-"
            nothing = _pct(sum(o.honest_nothing for o in got), len(got))
        rows.append(
            f"{'':<6} {label:<10} {len(got):>9} {n_parts:>5} {ans:>9} {sect:>8} {prec:>9} "
            f"{nothing:>8} {statistics.median(secs):>8.1f} {statistics.mean(secs):>7.1f} "
            f"{p90(secs):>6.1f}"
        )
    targets = (
        f">={TARGETS['answered']:.0f}%",
        f">={TARGETS['precision']}",
        f">={TARGETS['nothing']:.0f}%",
    )
    rows.append(
        f"{'':<6} {'target':<10} {'':>9} {'':>5} {targets[0]:>9} {'':>8} {targets[1]:>9} "
        f"{targets[2]:>8}"
    )
    return "\n".join(rows)


LEGEND = (
    "answered: gold parts whose answer is in a cited line of their own part's section; "
    "+summary: or in the summary line the report gives that part; precision: cited sources "
    "that are the gold article; nothing: off-topic runs that answer and cite nothing"
)


# --------------------------------------------------------------------------- main


def add_run_options(parser: argparse.ArgumentParser, limit_help: str) -> None:
    """The options this benchmark and its siblings share: the half of the articles, how
    many questions, the seed, the page budget, where outcomes and runs go, and where the
    data repositories are."""
    parser.add_argument(
        "--split",
        choices=("tune", "held-out", "all"),
        default=None,
        help="which half the questions come from (default: held-out; tune with --quick)",
    )
    parser.add_argument("--limit", type=int, default=20, help=limit_help)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-pages", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, help="write every outcome here")
    parser.add_argument("--runs-dir", type=Path, default=None, help="keep the runs here")
    parser.add_argument("--xquad", type=Path, default=XQUAD_GIT, help="XQuAD git directory")
    parser.add_argument("--cmrc", type=Path, default=CMRC_GIT, help="CMRC 2018 git directory")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="a fixed small sample (~1 min)")
    parser.add_argument("--lang", default="en,zh,cmrc", help="sets: en, zh (XQuAD), cmrc")
    add_run_options(parser, "questions per set and kind")
    args = parser.parse_args()
    args.split = args.split or ("tune" if args.quick else "held-out")

    langs = [s.strip() for s in args.lang.split(",") if s.strip()]
    if args.quick:
        langs = [s for s in langs if s in QUICK["langs"]] or list(QUICK["langs"])
    unknown = [s for s in langs if s not in SETS]
    if unknown:
        parser.error(f"--lang: unknown {', '.join(unknown)}; choose from {', '.join(SETS)}")
    n_multi = QUICK["multi"] if args.quick else args.limit
    n_off = QUICK["off"] if args.quick else args.limit

    loaded = {}
    for name in langs:
        loaded[name] = load_cmrc(args.cmrc) if name == "cmrc" else load_xquad(args.xquad, name)

    all_outcomes: list[Outcome] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-general-") as tmp:
        runs = args.runs_dir or Path(tmp) / "runs"
        for name in langs:
            articles = loaded[name]
            cases, left_out = make_cases(articles, args.split, n_multi, n_off, args.seed)
            print(
                f"{name}: {len(articles) - len(left_out)} pages served, {len(cases)} questions "
                f"({args.split} split)",
                file=sys.stderr,
                flush=True,
            )
            with quiet_logs():
                outcomes = asyncio.run(
                    run_set(name, articles, cases, left_out, Path(tmp) / f"site-{name}", runs,
                            args.max_pages)
                )  # fmt: skip
            all_outcomes += outcomes
            print(f"{NAMES[name]}: {args.split} split, {len(articles) - len(left_out)} pages")
            print(table(name, outcomes))
            print()
    secs = [o.seconds for o in all_outcomes]
    if secs:
        print(LEGEND)
        print(
            f"{len(secs)} questions in {time.perf_counter() - started:.0f} s; per question "
            f"median {statistics.median(secs):.1f} s, mean {statistics.mean(secs):.1f} s, "
            f"90th percentile {p90(secs):.1f} s"
        )
    if args.json:
        args.json.write_text(
            json.dumps([asdict(o) for o in all_outcomes], ensure_ascii=False, indent=1),
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
