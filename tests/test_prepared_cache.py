"""What the research core prepares from the texts a run reads, kept across runs.

A source's prepared document with what the plan's parts made of it, the scores of short
texts, and the Chinese word cuts a run used are kept in the page cache and taken by the
next run that reads the same text: it prepares, judges, scores and cuts none of it again
and comes to the same evidence. A changed text is prepared anew; nothing is kept of a
page the cache may not keep. Each "run" here is a Research on the same store, with the
process's own memory of documents and cuts emptied between them, as a new process would
have it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import pytest
from cache_support import Clock, make_cache

from fs_service import FileDomainService
from host import research as host_research
from host.prepared import Preparing, prepare_source
from host.research import Research
from research import cuts, document, relevance
from research.cuts import CutBook, handing
from research.document import Document
from research.plan import offline_plan
from research.scores import ScoreBook, scoring, withholding
from research.text import terms
from subagents.evidence import EvidenceLedger, PageRecord, sidecar_path
from subagents.net.pagecache import PageCache, RunCache, caching, text_digest

QUESTION = "How were the locks of the Grand Canal kept?"

PAGE = """# Locks of the Grand Canal

The locks of the Grand Canal were kept by keepers who opened the sluices at dawn.
Each keeper had a house beside the gate and a crew of twelve men.

## Repairs

The gates were repaired every winter, when the water was low.
京杭大运河的船闸由闸官管理，每年冬季检修闸门。
See [the keepers' houses](http://canal.test/houses.html) and [repairs](http://canal.test/repairs.html).
"""
TITLE = "Locks of the Grand Canal — Canal Atlas"


@pytest.fixture
def cache(tmp_path):
    made = make_cache(tmp_path, Clock())
    yield made
    made.close()


@pytest.fixture
def new_process(monkeypatch):
    """Forget what this process prepared and cut, as a new process would; count what is
    prepared, judged and cut from then on."""
    counts: dict[str, int] = {"prepared": 0, "assessed": 0, "cut": 0, "scored": 0}

    def fresh() -> None:
        monkeypatch.setattr(document, "_recent", OrderedDict())
        monkeypatch.setattr(cuts, "_made", {})
        for key in counts:
            counts[key] = 0

    _count(monkeypatch, Document, "prepare", counts, "prepared", classmethod)
    _count(monkeypatch, host_research, "assessed", counts, "assessed")
    _count(monkeypatch, relevance, "_score_text", counts, "scored")
    _count_cuts(monkeypatch, counts)
    return fresh, counts


def _count(monkeypatch, owner: Any, name: str, counts: dict, key: str, wrap=None) -> None:
    real = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[key] += 1
        return real(*args[1:], **kwargs) if wrap else real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrap(counted) if wrap else counted)


def _count_cuts(monkeypatch, counts: dict) -> None:
    from research import text

    jieba = text.jieba_loaded()
    for name in ("lcut", "lcut_for_search"):
        monkeypatch.setattr(jieba, name, _counted(getattr(jieba, name), counts))


def _counted(real: Any, counts: dict) -> Any:
    def counted(run: str) -> list[str]:
        counts["cut"] += 1
        return real(run)

    return counted


async def _store_page(service: FileDomainService, text: str, name: str = "locks") -> None:
    path = f"/workspace/pages/{name}.md"
    await service.write_text(path, text)
    record = PageRecord(
        f"http://canal.test/{name}.html",
        f"http://canal.test/{name}.html",
        "",
        text_digest(text),
        "http",
        "trafilatura",
        path,
        title=TITLE,
    )
    await service.write_text(sidecar_path(path), record.to_json())


def _evidence(research: Research) -> list[tuple[str, int, int, float]]:
    """Every evidence item of the run: part, start, end and score."""
    return sorted(
        (sid, research.ledger.get(i).start, research.ledger.get(i).end, score)
        for sid, items in research.evidence.items()
        for i, score in items.items()
    )


async def _run(cache: PageCache | None, service: FileDomainService, text: str) -> Research:
    """One run's research of :data:`QUESTION` reading the stored page ``text``."""
    run = RunCache(cache) if cache is not None else None
    preparing = Preparing()
    with caching(run), preparing.scope():
        await preparing.begin()
        research = Research(offline_plan(QUESTION), EvidenceLedger(), service, max_rounds=1)
        await research.recall()
        await _store_page(service, text)
        await research.absorb_pages()
        await preparing.end()
    return research


def _service() -> FileDomainService:
    from fs_service import ALL_OPS, MemoryFileSystem

    grants = [{"prefix": "/workspace/", "ops": set(ALL_OPS)}]
    return FileDomainService(MemoryFileSystem().create_handle(grants))


def test_a_second_run_prepares_judges_scores_and_cuts_nothing_it_read_before(cache, new_process):
    fresh, counts = new_process
    fresh()
    first = asyncio.run(_run(cache, _service(), PAGE))
    assert counts["prepared"] and counts["assessed"] and counts["cut"] and counts["scored"]
    fresh()
    again = asyncio.run(_run(cache, _service(), PAGE))
    assert counts == {"prepared": 0, "assessed": 0, "cut": 0, "scored": 0}
    assert _evidence(again) == _evidence(first) != []
    assert again.leads == first.leads
    assert {c.url: c.scores for c in again.candidates.values()} == {
        c.url: c.scores for c in first.candidates.values()
    }


def test_a_changed_page_is_prepared_and_judged_anew(cache, new_process):
    fresh, counts = new_process
    fresh()
    asyncio.run(_run(cache, _service(), PAGE))
    fresh()
    changed = PAGE.replace("every winter", "every spring")
    again = asyncio.run(_run(cache, _service(), changed))
    assert counts["prepared"] >= 1 and counts["assessed"] >= 1
    fresh()
    alone = asyncio.run(_run(None, _service(), changed))  # no cache at all
    assert _evidence(again) == _evidence(alone)
    spans = {again.ledger.get(i).span for items in again.evidence.values() for i in items}
    assert not any("every winter" in span for span in spans)


def test_nothing_is_kept_of_a_page_the_cache_may_not_keep(cache, new_process):
    fresh, _ = new_process
    fresh()
    run = RunCache(cache)
    run.withhold(text_digest(PAGE))  # the page's site said no-store

    async def read() -> None:
        preparing = Preparing()
        with caching(run), preparing.scope():
            research = Research(offline_plan(QUESTION), EvidenceLedger(), _service(), 1)
            await research.recall()
            await _store_page(research.service, PAGE)
            await research.absorb_pages()
            assert research.evidence and any(research.evidence.values())
            await preparing.end()

    asyncio.run(read())
    assert cache.stats().derived == 0
    fresh()
    asyncio.run(_run(cache, _service(), PAGE))  # the same page, fetched as one to keep
    assert cache.stats().derived == 3  # its document, the run's scores and cuts


def test_a_document_comes_back_as_it_was_prepared():
    doc = Document.prepare(PAGE, TITLE)
    back = Document.from_dict(doc.to_dict())
    assert back == doc
    assert list(back.counts.items()) == list(doc.counts.items())
    assert list(back.section_terms) == list(doc.section_terms)


def test_a_kept_document_is_reused_for_the_same_text_only(cache, new_process):
    fresh, counts = new_process

    async def cached(text: str, title: str) -> bool:
        """Whether the document came from the cache (it is kept there if not)."""
        with caching(RunCache(cache)), document.keeping():
            found = await prepare_source(text, title, text_digest(text))
            was = found.cached
            await host_research.keep_source(found, "plan", {})
            return was

    fresh()
    assert not asyncio.run(cached(PAGE, TITLE))
    fresh()
    assert asyncio.run(cached(PAGE, TITLE)) and counts["prepared"] == 0
    assert not asyncio.run(cached(PAGE + "\nOne more line.\n", TITLE))
    assert not asyncio.run(cached(PAGE, "Another title"))


def test_cuts_handed_on_are_used_only_with_the_words_jieba_was_taught_then(monkeypatch):
    from research import text

    monkeypatch.setattr(cuts, "_made", {})
    first = CutBook()
    with handing(first):
        words = terms("京杭大运河的船闸由闸官管理")
    assert first.used
    monkeypatch.setattr(cuts, "_made", {})
    handed = CutBook(taught=cuts.taught_words(), handed=dict(first.used))

    def no_jieba() -> None:
        raise AssertionError("jieba was asked to cut")

    monkeypatch.setattr(text, "jieba_loaded", no_jieba)
    with handing(handed):
        assert terms("京杭大运河的船闸由闸官管理") == words
    monkeypatch.setattr(cuts, "_made", {})
    monkeypatch.setattr(cuts, "_taught", {*cuts.taught_words(), "闸官管理处"})
    with handing(handed), pytest.raises(AssertionError, match="jieba was asked"):
        terms("京杭大运河的船闸由闸官管理")


def test_a_score_withheld_is_used_but_not_kept():
    from research.question import Focus

    focus = Focus("lock keepers", ("lock",), ("lock",), ())
    book = ScoreBook(lambda f: f.text)
    with scoring(book):
        first = relevance.score_text(focus, "The lock keepers opened the gates.", "Locks")
        with withholding():
            relevance.score_text(focus, "A private page's line on locks.", "Private")
    assert list(book.known.values()) == [first]
    handed = ScoreBook(lambda f: f.text)
    handed.known = dict(book.known)
    with scoring(handed):
        assert relevance.score_text(focus, "The lock keepers opened the gates.", "Locks") == first
    assert not handed.added
