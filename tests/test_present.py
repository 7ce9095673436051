"""Questions that ask for the present ("latest", "now", 目前): what they search for, what a
sentence must say to answer them, and which dated fact answers them, on invented
questions; and the page's own date, from its markup to the report's source entry."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest
from browser_sites import SiteServer, page
from browser_support import LOOPBACK_SETTINGS, stored_path

from research.answer import in_order_asked
from research.document import Document
from research.features import features_of
from research.lines import summary_choice
from research.plan import offline_plan
from research.present import as_of, present_terms
from research.question import Focus
from research.selection import Quote
from subagents.browser.viewer import source_of, viewer_fetch
from subagents.evidence import EvidenceItem, PageRecord, sidecar_path
from subagents.generate.citations import Citation
from subagents.generate.markdown import source_head
from subagents.generate.report import Report
from subagents.results import text_of

#: question → the words by which it asks for the present, as its queries must say them
TEMPORAL = {
    "What is the latest version of the Quillon compiler?": "latest",
    "What is the current population of Ardenport?": "current",
    "How many ferries cross the Ostel river today?": "today",
    "How much grain does Ardenport export this year?": "this year",
    "How many people live in Velmouth now?": "now",
    "阿登港目前有多少人口？": "目前",
    "瓦恩运河最新的通航里程是多少？": "最新",
    "阿登港现在的货物吞吐量是多少？": "现在",
    "阿登港今年接待了多少游客？": "今年",
    "韦尔茅斯当前的失业率是多少？": "当前",
    "瓦恩运河如今的货运量是多少？": "如今",
}


@pytest.mark.parametrize(("question", "word"), sorted(TEMPORAL.items()))
def test_the_words_asking_for_the_present_are_searched_but_no_facet(question, word) -> None:
    """Every query keeps the word; a sentence need not say it, only what is measured."""
    plan = offline_plan(question)
    for part in plan.subquestions:
        assert all(word.casefold() in q.casefold() for q in part.queries), part.queries
        facets = {f.term for f in plan.focus(part).facets}
        assert facets and not facets & present_terms(question), facets


FREIGHT = [
    ("In 2015 the Varn Canal carried 41 million tonnes of freight.", 0.9, "2016-05-01"),
    ("The Varn Canal now carries 53 million tonnes of freight a year.", 0.85, "2025-03-18"),
    ("The Varn Canal carries freight, visitors and drinking water.", 0.95, ""),
]


def _quotes(rows: list[tuple[str, float, str]]) -> list[tuple[Quote, float]]:
    return [
        (Quote(f"k{i}", f"http://a.test/{i}", text, 0, day), score)
        for i, (text, score, day) in enumerate(rows)
    ]


def test_a_part_asking_for_now_prefers_the_most_recent_dated_source() -> None:
    """A sentence with no year is dated by its page: "now" on a page of 2025 is newer than
    a figure for 2015, and answers the part."""
    focus = Focus.build("How much freight does the Varn Canal carry today?")
    quotes = _quotes(FREIGHT)
    with as_of(date(2026, 6, 1)):
        chosen = in_order_asked(focus, quotes, lambda q: q.span, lambda q: q.published)
        assert chosen is not None and chosen.key == "k1"
        assert summary_choice(focus, quotes, "en") == "k1"


def test_a_page_dated_after_the_run_dates_nothing() -> None:
    """Run in 2020, a page claiming 2025 is no fact yet: the figure for 2015 answers."""
    focus = Focus.build("How much freight does the Varn Canal carry today?")
    quotes = _quotes(FREIGHT)
    with as_of(date(2020, 6, 1)):
        chosen = in_order_asked(focus, quotes, lambda q: q.span, lambda q: q.published)
    assert chosen is not None and chosen.key == "k0"


def test_a_chinese_part_asking_for_now_prefers_the_most_recent_dated_source() -> None:
    focus = Focus.build("瓦恩运河如今的货运量是多少？")
    quotes = _quotes(
        [
            ("2015年，瓦恩运河完成货运量约4100万吨。", 0.9, "2016-05-01"),
            ("目前，瓦恩运河每年的货运量约为5300万吨。", 0.85, "2025-03-18"),
        ]
    )
    with as_of(date(2026, 6, 1)):
        assert summary_choice(focus, quotes, "zh") == "k1"


@pytest.mark.parametrize(
    ("run", "sentence", "mismatch"),
    [
        (date(2026, 6, 1), "In 1980 the census gave Ardenport 30,000 people.", True),
        (date(2026, 6, 1), "In 2021 the census gave Ardenport 45,900 people.", False),
        (date(2026, 6, 1), "By 2090 Ardenport is projected to have 60,000 people.", True),
        (date(1985, 6, 1), "In 1980 the census gave Ardenport 30,000 people.", False),
    ],
)
def test_a_sentences_year_is_current_by_the_runs_date(run, sentence, mismatch) -> None:
    """A year counts as the present by the run's own date, not any year since 1951; a
    year after the run's date is no fact yet."""
    focus = Focus.build("What is the current population of Ardenport?")
    doc = Document.of(sentence, "Ardenport")
    with as_of(run):
        assert features_of(focus, doc, 0)["time_mismatch"] == float(mismatch)


# --- the page's own date ----------------------------------------------------------------

_BODY = "".join(
    f"<p>Paragraph {i}: the Varn Canal carries barges of grain and timber to Ardenport.</p>"
    for i in range(12)
)
PAGES = {
    "/dated": (
        "<html><head><title>Freight now</title>"
        '<meta property="article:published_time" content="2025-03-18T08:00:00Z">'
        f"</head><body><article><h1>Freight now</h1>{_BODY}</article></body></html>"
    ),
    "/time": (
        "<html><head><title>Freight in 2015</title></head><body><article>"
        f'<h1>Freight</h1><time datetime="2016-05-20">20 May 2016</time>{_BODY}'
        "</article></body></html>"
    ),
    "/undated": f"<html><head><title>Freight</title></head><body>{_BODY}</body></html>",
    "/broken": (
        "<html><head><title>Freight</title>"
        '<meta property="article:published_time" content="not a date at all">'
        f'</head><body><time datetime="99-99-99">soon</time>{_BODY}</body></html>'
    ),
}


@pytest.fixture(scope="module")
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    for path, html in PAGES.items():
        server.routes[path] = page(html.encode())
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize(
    ("path", "day"),
    [("/dated", "2025-03-18"), ("/time", "2016-05-20"), ("/undated", ""), ("/broken", "")],
)
async def test_a_page_keeps_its_own_date_with_its_stored_copy(site, memory_service, path, day):
    """The date its markup gives (a meta tag, a ``<time>``) goes into the page's sidecar;
    a page with none, or with one that is no date, is stored as well, undated."""
    res = await viewer_fetch(site.url(path), service=memory_service, settings=LOOPBACK_SETTINGS)
    assert res.metadata["status"] == "ok", text_of(res)
    stored = stored_path(res)
    record = PageRecord.from_json(await memory_service.read_text(sidecar_path(stored)))
    assert record.published == day
    assert source_of(record)["published"] == day  # run.json's web_sources entry


def test_the_report_gives_a_pages_own_date_beside_the_day_it_was_fetched() -> None:
    item = EvidenceItem(
        url="http://h/a", span="x", start=0, end=1, page_path="/workspace/pages/a.md"
    )
    dated = Citation(1, item, "Freight", "2026-12-03T09:00:00+00:00", "2025-03-18")
    report = Report("T", [], [], [dated])
    (entry,) = report.source_entries()
    assert source_head(report, entry).endswith("(published 2025-03-18; fetched 2026-12-03)")
    zh = Report("T", [], [], [dated], lang="zh")
    assert source_head(zh, zh.source_entries()[0]).endswith("(2025-03-18发布，2026-12-03获取)")


@pytest.mark.parametrize("question", ["内罗毕目前的人口是多少？", "拉各斯目前有多少人口？"])
def test_a_word_for_now_after_a_name_is_not_part_of_the_name(question) -> None:
    """目前 right after a city's name asks for the present; the name alone is what the
    question is about, and every query says it apart from 目前."""
    plan = offline_plan(question)
    (part,) = plan.subquestions
    assert plan.focus(part).core == (question[:3],)
    assert all(f"{question[:3]}目前" not in q for q in part.queries), part.queries
