"""A site's pages on one subject often leave the subject out of their titles but not out
of their addresses: such a page is read as being about the subject
(:func:`host.sources.addressed_title`), so that its sentences answer a part about it, and
a page on something else that shares the question's words does not."""

from __future__ import annotations

import asyncio
import re

from demo.corpus import CorpusPage, corpus_world, read_report, research
from host.sources import addressed_title

_CORES = [("orvel",)]


def test_an_address_naming_the_subject_lends_it_to_a_title_that_does_not():
    text = "Lake Orvel is fed by three streams. Twelve kinds of fish live in the lake."
    assert addressed_title("http://127.0.0.1:9/en/lake-orvel-3.html", "Fish", text, _CORES) == (
        "orvel: Fish"
    )
    # a title naming the subject is read as it is; so is an address that does not name it
    assert addressed_title("http://127.0.0.1:9/en/orvel.html", "Lake Orvel", text, _CORES) == ""
    assert addressed_title("http://127.0.0.1:9/en/marsh-3.html", "Fish", text, _CORES) == ""
    # a page whose text never speaks of the subject keeps its title
    elsewhere = "Twelve kinds of fish live in the marsh."
    assert addressed_title("http://127.0.0.1:9/en/orvel-3.html", "Fish", elsewhere, _CORES) == ""


def test_a_section_page_titled_without_the_subject_answers_a_part_about_it(tmp_path):
    """The answer stands on a page of the lake's site titled "Wildlife" whose answer
    sentence says "the lake"; a marsh's page of the same title says the same words about
    another number. The lake's page is quoted, the marsh's is not."""
    pages = [
        CorpusPage(
            "Lake Orvel",
            "en/lake-orvel",
            [
                "Lake Orvel is a glacial lake in the northern hills, fed by three streams.",
                "Its shores are a nature reserve, open to walkers all year.",
            ],
            "en",
        ),
        CorpusPage(
            "Wildlife",
            "en/lake-orvel-wildlife",
            [
                "Twelve species of fish live in the lake, the largest of them the pike.",
                "Herons nest on its two islands each spring, and Orvel's reed beds shelter"
                " warblers through the summer.",
            ],
            "en",
        ),
        CorpusPage(
            "Wildlife",
            "en/tarn-marsh-wildlife",
            [
                "Four species of fish live in the marsh, most of them small.",
                "Tarn Marsh lies in the valley south of the hills.",
            ],
            "en",
        ),
    ]
    question = "How many species of fish live in Lake Orvel?"
    with corpus_world(pages, tmp_path / "site") as world:
        result = asyncio.run(research(question, world, tmp_path / "runs"))
    report = read_report(result)
    body, sources = report.split("\n## Sources", 1)
    assert re.search(r"Twelve species of fish live in the lake.*\[\d+\]", body), report
    assert "Four species" not in body, report
    assert "tarn-marsh-wildlife" not in sources, report
