"""Which pages a part reads first: what the engines' results promise for it; and what
it searches for next: the same whatever order the pages were read in."""

from __future__ import annotations

import asyncio

from fs_service import ALL_OPS, FileDomainService, MemoryFileSystem
from host.research import Research
from research.plan import offline_plan
from subagents.evidence import EvidenceLedger, PageRecord, sidecar_path
from subagents.search.render import Item, render

QUESTION = "How was the Orvald Railway kept supplied with coal?"
BASE = "http://127.0.0.1:9/orvald"


def _results(rows: list[tuple[str, str, str]], source: str) -> str:
    """A search tool's text listing ``(title, path, snippet)`` in that order."""
    return render([Item(t, f"{BASE}/{p}", s) for t, p, s in rows], source, "Orvald Railway coal")


def test_a_page_is_promised_by_its_best_description_over_every_engine(memory_service):
    """One engine names the pages by repository-like names that say nothing; another gives
    their titles. The page whose title says what the part asks is read first, though the
    first engine listed it last."""
    research = Research(offline_plan(QUESTION), EvidenceLedger(), memory_service, max_rounds=1)
    names = [
        ("atlas/history", "history.html", "History (updated 2024)"),
        ("atlas/stations", "stations.html", "Stations (updated 2024)"),
        ("atlas/rolling-stock", "rolling-stock.html", "Rolling stock (updated 2024)"),
        ("atlas/coal-supply", "coal.html", "Coal supply (updated 2024)"),
    ]
    research.add_results("q1", "search_code", _results(names, "code"), "Orvald Railway coal")
    before = research.reading_list("q1", limit=4)
    assert before[-1].endswith("/coal.html")  # named alike, the engine's order decides
    titles = [
        ("Stations of the line — Orvald Railway", "stations.html", "Twelve stations."),
        ("Coal supply: the Orvald Railway's depots and coal trains", "coal.html", ""),
    ]
    research.add_results("q1", "search_web", _results(titles, "web"), "Orvald Railway coal")
    assert research.reading_list("q1", limit=4)[0].endswith("/coal.html")


def test_a_later_link_to_a_known_page_can_raise_its_promise(memory_service):
    """A page found first by a link whose text says nothing is promised again by a later
    link that says what the part asks."""
    research = Research(offline_plan(QUESTION), EvidenceLedger(), memory_service, max_rounds=1)
    research._add_links(f"[more]({BASE}/coal.html)", f"{BASE}/index.html", "Orvald Railway")
    low = research.candidates[next(iter(research.candidates))].scores["q1"]
    text = f"Its [coal supply]({BASE}/coal.html) came by barge."
    research._add_links(text, f"{BASE}/history.html", "Orvald Railway")
    [cand] = research.candidates.values()
    assert cand.scores["q1"] > low


LOCKS = "How were the locks of the Grand Canal kept?"
GRANTS = [{"prefix": "/workspace/", "ops": set(ALL_OPS)}]


def test_a_gaps_suggestions_do_not_depend_on_the_order_pages_were_read():
    """Pages read together are stored in any order; the queries a part is told to search
    next (from the headings of the pages read) must be the same either way."""
    pages = {
        f"lock-{n}": f"# Lock {n}\n\nThe locks were kept by keepers.\n\n## {heading}\n\nText.\n"
        for n, heading in enumerate(
            ["Lock keepers of Linqing", "Lock gates and sluices", "Keeping the locks open"]
        )
    }

    async def read(order: list[str]) -> dict[str, list[str]]:
        service = FileDomainService(MemoryFileSystem().create_handle(GRANTS))
        research = Research(offline_plan(LOCKS), EvidenceLedger(), service, max_rounds=3)
        for name in order:
            path = f"/workspace/pages/{name}.md"
            await service.write_text(path, pages[name])
            url = f"http://127.0.0.1:9/{name}.html"
            record = PageRecord(url, url, "", "", "http", "trafilatura", path, title=name)
            await service.write_text(sidecar_path(path), record.to_json())
            await research.absorb_pages()
        return research.suggestions("q1")

    forward = asyncio.run(read(list(pages)))
    assert forward["queries"]
    assert asyncio.run(read(list(reversed(pages)))) == forward
