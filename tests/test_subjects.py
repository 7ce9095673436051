"""Research quality beyond the demo: five subjects, each in English and in Chinese.

Each ``tests/subjects/<subject>.yaml`` holds, per language, a question of several parts,
the facts each part's answer must state, 5–8 pages (three to five on the subject and two
or three distractors that share the question's words but are about something else) and
an off-topic question none of the pages answer. For every subject and language the pages
are served with the project's local search engines (:mod:`demo.corpus`) and the whole
pipeline runs offline on the question (Host, offline brain, Markdown report):

- over the five subjects of a language, the share of every part's fact groups stated in
  a cited line of its own sub-question's answer — its summary line and its section
  (see :attr:`demo.corpus.PartOfRun.answer_lines`) — (each part matched to one sub-question by
  the overlap of its words, or characters in Chinese), and the share of cited sources that
  are on-subject pages (never a distractor), stay at or above :data:`FLOORS`, the level
  the offline core reaches now; the message lists every fact missed and where it went;
- the off-topic question of each subject answers nothing and cites nothing.

The fixtures say the facts in other words than the questions ("the greatest danger to"
for "threatens", "developed" for "invented"): a core that only matches words does not
reach them all, which is what the floors measure. Select these tests with ``-k subjects``.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from research_support import states

from demo.corpus import (
    CitedLine,
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
from demo.web import DemoWorld

SUBJECTS = Path(__file__).resolve().parent / "subjects"
#: The pages one run may read. The corpus of a subject-language has at most eight pages.
MAX_PAGES = 8

pytestmark = pytest.mark.timeout(600)


# ------------------------------------------------------------------------------ fixtures


@dataclass(frozen=True)
class Part:
    """One thing the question asks, with the fact groups its answer must state (each
    group needs at least one of its alternatives)."""

    ask: str
    facts: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Case:
    """One subject in one language, as its YAML file describes it."""

    key: str
    subject: str
    lang: str
    question: str
    parts: tuple[Part, ...]
    pages: tuple[CorpusPage, ...]
    distractors: frozenset[str]
    off_topic: str

    @property
    def id(self) -> str:
        return f"{self.key}-{self.lang}"

    @property
    def on_subject(self) -> list[CorpusPage]:
        return [p for p in self.pages if p.slug not in self.distractors]


def load_cases() -> list[Case]:
    cases = []
    for file in sorted(SUBJECTS.glob("*.yaml")):
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
        for lang in ("en", "zh"):
            spec = raw[lang]
            pages = tuple(
                CorpusPage(p["title"], p["slug"], list(p["paragraphs"]), lang)
                for p in spec["pages"]
            )
            cases.append(
                Case(
                    key=file.stem,
                    subject=raw["subject"],
                    lang=lang,
                    question=spec["question"],
                    parts=tuple(
                        Part(p["ask"], tuple(tuple(g) for g in p["facts"])) for p in spec["parts"]
                    ),
                    pages=pages,
                    distractors=frozenset(p["slug"] for p in spec["pages"] if p.get("distractor")),
                    off_topic=spec["off_topic"],
                )
            )
    return cases


CASES = load_cases()
IDS = [c.id for c in CASES]


@dataclass
class Served:
    case: Case
    world: DemoWorld
    runs: Path

    def slug_of(self, url: str) -> str:
        """The slug of the page served at ``url`` (marked when a distractor), or the URL."""
        for page in self.case.pages:
            if _same_url(url, url_of(self.world, page)):
                odd = page.slug in self.case.distractors
                return f"{page.slug} (distractor)" if odd else page.slug
        return url


@dataclass
class Answered:
    served: Served
    report: str
    parts: list[PartOfRun]
    exit_code: int
    answered: int
    read: list[str]


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def served(request, tmp_path_factory) -> Iterator[Served]:
    """The subject-language's pages and search engines on 127.0.0.1."""
    case: Case = request.param
    root = tmp_path_factory.mktemp(f"subject-{case.id}")
    with corpus_world(case.pages, root / "site") as world:
        yield Served(case, world, root / "runs")


def _run(served: Served, question: str):
    return asyncio.run(research(question, served.world, served.runs, max_pages=MAX_PAGES))


def _answer(served: Served) -> Answered:
    """The run on the subject's question."""
    before = len(served.world.site_requests)
    result = _run(served, served.case.question)
    read = [
        served.slug_of(served.world.site_url.rstrip("/") + path)
        for path in served.world.site_requests[before:]
        if path.endswith(".html") and path != "/index.html"
    ]
    return Answered(
        served,
        read_report(result),
        parts_by_subquestion(Path(result.run.path)),
        result.exit_code,
        result.answered,
        list(dict.fromkeys(read)),
    )


@pytest.fixture(scope="module")
def off_topic(served: Served):
    """The run on the subject's off-topic question (on the same pages)."""
    return _run(served, served.case.off_topic)


# ------------------------------------------------------------------------------ matching

_EN_STOP = {
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or",
    "is", "are", "was", "were", "be", "been", "do", "does", "did", "how", "what", "when",
    "where", "which", "who", "whom", "whose", "why", "many", "much", "it", "its", "they",
    "them", "their", "this", "that", "these", "those", "there", "as", "so", "into"
}  # fmt: skip


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _tokens(text: str) -> set[str]:
    """Content-word stems (English) or CJK character bigrams and numbers (Chinese)."""
    if re.search(r"[\u4e00-\u9fff]", text):
        out = set(re.findall(r"[0-9]+", text))
        for run in re.findall(r"[\u4e00-\u9fff]+", text):
            out |= {run[i : i + 2] for i in range(len(run) - 1)} or {run}
        return out
    words = re.findall(r"[a-z0-9][a-z0-9'-]*", text.lower())
    return {_stem(w) for w in words if w not in _EN_STOP}


def _overlap(ask: str, sub: str, common: set[str]) -> float:
    """The share of the ask's own tokens (those not shared by every ask: the subject)
    that the sub-question has."""
    mine = _tokens(ask) - common or _tokens(ask)
    return len(mine & _tokens(sub)) / len(mine) if mine else 0.0


def match_parts(parts: tuple[Part, ...], subs: list[PartOfRun]) -> list[PartOfRun | None]:
    """Each part's sub-question: the one-to-one assignment with the best total overlap
    (a part gets None when the plan has fewer sub-questions than the question has parts,
    or when no sub-question shares a word with it)."""
    asks = [_tokens(p.ask) for p in parts]
    common = set.intersection(*asks) if len(asks) > 1 else set()
    score = [[_overlap(p.ask, s.text, common) for s in subs] for p in parts]
    best: tuple[float, tuple[int | None, ...]] = (-1.0, ())
    slots: list[int | None] = [*range(len(subs)), *([None] * len(parts))]
    for choice in itertools.permutations(slots, len(parts)):
        total = sum(score[i][j] for i, j in enumerate(choice) if j is not None)
        if total > best[0] + 1e-9:
            best = (total, choice)
    return [subs[j] if j is not None and score[i][j] > 0 else None for i, j in enumerate(best[1])]


# ------------------------------------------------------------------------------ reporting


def _plain(heading: str) -> str:
    return " ".join(heading.split()).casefold()


def _same_url(a: str, b: str) -> bool:
    return a.split("#")[0].rstrip("/") == b.split("#")[0].rstrip("/")


def _missing(lines: list[CitedLine], groups: tuple[tuple[str, ...], ...]) -> list[tuple[str, ...]]:
    return [g for g in groups if not any(states(ln.text, f) for f in g for ln in lines)]


def _show(lines: list[CitedLine], served: Served, limit: int = 6) -> str:
    if not lines:
        return "      (nothing cited)"
    out = []
    for line in lines[:limit]:
        text = " ".join(line.text.split())
        text = text if len(text) <= 150 else text[:147] + "..."
        where = ", ".join(served.slug_of(u) for u in line.sources) or "no source"
        out.append(f"      - {text}  [{where}]")
    if len(lines) > limit:
        out.append(f"      ... and {len(lines) - limit} more cited lines")
    return "\n".join(out)


def _elsewhere(group: tuple[str, ...], part: PartOfRun | None, run: Answered) -> str:
    """Where else in the report a missing fact group is stated (another part's section,
    or the summary only)."""
    where = [
        f"{other.id} '{other.text}'"
        for other in run.parts
        if other is not part and not _missing(other.answer_lines, (group,))
    ]
    summary = report_parts(run.report).get("", [])
    if not _missing(summary, (group,)):
        where.append("the summary")
    return f" (stated instead in {'; '.join(where)})" if where else " (stated nowhere)"


# ---------------------------------------------------------------------------------- tests


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_subjects_fixture_is_well_formed(case: Case):
    """Five to eight pages, three to five on the subject and two or three distractors, and
    every fact alternative stated verbatim on an on-subject page."""
    assert 5 <= len(case.pages) <= 8 and 2 <= len(case.distractors) <= 3, case.id
    assert len({p.slug for p in case.pages}) == len(case.pages)
    assert len(case.parts) >= 2 and case.off_topic
    text = "\n".join(p.text for p in case.on_subject)
    absent = [f for part in case.parts for g in part.facts for f in g if not states(text, f)]
    assert absent == [], f"{case.id}: facts not on any on-subject page: {absent}"


def _fact_problems(answered: Answered) -> tuple[int, int, list[str]]:
    """``(fact groups stated in their part's own section, fact groups, what is missing)``."""
    case, served = answered.served.case, answered.served
    matched = match_parts(case.parts, answered.parts)
    headings = {_plain(h) for h in report_parts(answered.report) if h}
    total = sum(len(part.facts) for part in case.parts)
    stated, problems = 0, []
    for n, (part, sub) in enumerate(zip(case.parts, matched, strict=True), 1):
        if sub is None:
            problems.append(
                f"  part {n} '{part.ask}': no sub-question of its own; facts "
                + "; ".join(f"{list(g)}{_elsewhere(g, None, answered)}" for g in part.facts)
            )
            continue
        missing = _missing(sub.answer_lines, part.facts)
        stated += len(part.facts) - len(missing)
        if missing:
            problems.append(
                f"  part {n} '{part.ask}' -> {sub.id} '{sub.text}' ({sub.status or 'no status'}):"
                f" missing "
                + "; ".join(f"{list(g)}{_elsewhere(g, sub, answered)}" for g in missing)
                + (
                    f"\n    its answer cites:\n{_show(sub.answer_lines, served)}"
                    if sub.answer_lines or _plain(sub.text) in headings
                    else "\n    the report has no section for it"
                )
            )
    return stated, total, problems


def _citations(answered: Answered) -> tuple[int, int, list[str]]:
    """``(cited sources that are on-subject pages, cited sources, the off-subject ones)``."""
    served = answered.served
    allowed = [url_of(served.world, p) for p in served.case.on_subject]
    cited = cited_sources(answered.report)
    wrong = [u for u in cited if not any(_same_url(u, a) for a in allowed)]
    return len(cited) - len(wrong), len(cited), [served.slug_of(u) for u in wrong]


#: What the offline core reaches on these subjects, by language: the share of fact groups
#: stated in their part's own section (measured: en 16/25, zh 17/25), and of cited sources
#: that are on-subject pages (en 18/20, zh 14/14), less one fact group of slack (the
#: sources' floors are those of en 16/18, zh 15/16, measured before).
#: A floor, raised as the mechanisms get better; a change that lowers either fails.
FLOORS = {"en": (0.6, 0.83), "zh": (0.64, 0.87)}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_subjects_facts_and_sources_stay_above_their_floor(lang, tmp_path):
    """Over the five subjects in one language: the share of every part's fact groups that
    its own section states, and the share of cited sources that are on-subject pages (no
    distractor), do not fall below :data:`FLOORS`. The message lists every miss."""
    stated = total = on = cited = 0
    lines = []
    for case in (c for c in CASES if c.lang == lang):
        with corpus_world(case.pages, tmp_path / case.id / "site") as world:
            served = Served(case, world, tmp_path / case.id / "runs")
            run = _answer(served)
        got, of, problems = _fact_problems(run)
        good, all_, wrong = _citations(run)
        stated, total, on, cited = stated + got, total + of, on + good, cited + all_
        lines.append(f"{case.id}: facts {got}/{of}, sources {good}/{all_} {wrong or ''}")
        lines += problems
    facts, sources = stated / total, (on / cited if cited else 0.0)
    report = f"{lang}: facts {stated}/{total} = {facts:.2f}, sources {on}/{cited} = {sources:.2f}"
    floor_facts, floor_sources = FLOORS[lang]
    assert facts >= floor_facts and sources >= floor_sources, report + "\n" + "\n".join(lines)


def test_subjects_off_topic_question_answers_nothing(off_topic, served: Served):
    """A question none of the pages answer: nothing answered, nothing cited, exit 3."""
    report = read_report(off_topic)
    cited = cited_sources(report)
    subs = off_topic.plan.subquestions if off_topic.plan else []
    answered = [s.text for s in subs if s.evidence_ids]
    assert (off_topic.answered, off_topic.citations, cited) == (0, 0, []), (
        f"{served.case.id}: '{served.case.off_topic}' answered {answered}, "
        f"citing {[served.slug_of(u) for u in cited]}"
    )
    assert off_topic.exit_code == 3, off_topic.errors
    assert not re.search(r"\[\d+\]", report), report[:600]
