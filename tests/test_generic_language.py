"""A question in a language with no word lists here is answered, and says how it was read.

Two invented Lithuanian pages are served with the project's local search engines and the
whole pipeline runs offline on a Lithuanian question of two asks: the run answers from the
page that holds the facts, and its report, ``run.json`` and the command line's closing
table say that the question was read by the generic path, so that a thin answer is never
a silent one.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from rich.console import Console

from demo.corpus import CorpusPage, corpus_world, read_report, research
from host.display.progress import GENERIC_READ, summary_table
from research.labels import label

pytestmark = pytest.mark.timeout(600)

PAGES = [
    CorpusPage(
        "Orvaldo tiltas",
        "lt/orvald-bridge",
        [
            "Orvaldo tiltas – akmeninis arkinis tiltas per Veltos upę Orvaldo mieste.",
            "Orvaldo tiltas pastatytas 1874 metais; jį suprojektavo inžinierius Paulius Somovas.",
            "Orvaldo tilto ilgis – 212 metrų, jis turi septynis tarpatramius.",
            "1961 metais Orvaldo tiltas buvo uždarytas sunkvežimiams, ir dabar juo eina "
            "pėstieji ir važiuoja dviratininkai.",
        ],
        lang="lt",
    ),
    CorpusPage(
        "Veltos upė",
        "lt/velta-river",
        [
            "Velta – upė šalies šiaurėje, jos ilgis – 340 kilometrų.",
            "Pavasarį Velta dažnai išsilieja, o upės slėnyje yra daug užliejamų pievų.",
        ],
        lang="lt",
    ),
]
QUESTION = "Kada buvo pastatytas Orvaldo tiltas ir kas jį suprojektavo?"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generic")
    with corpus_world(PAGES, folder / "site") as world:
        return asyncio.run(research(QUESTION, world, folder / "runs", max_pages=4))


def test_the_question_is_answered_from_the_page_that_holds_its_facts(run):
    report = read_report(run)
    assert run.exit_code == 0 and run.answered >= 1, report
    assert "1874" in report, report


def test_the_report_says_the_question_was_read_by_the_generic_path(run):
    report = read_report(run)
    assert label("en", "generic_language").format(name="Lithuanian") in report


def test_run_json_and_the_closing_table_name_the_language(run):
    record = json.loads(Path(run.run.real_path("/internal/run.json")).read_text())
    assert record["plan"]["question_language"] == {
        "code": "lt",
        "name": "Lithuanian",
        "read": "generic",
    }
    console = Console(width=120, record=True)
    console.print(summary_table(run))
    text = console.export_text()
    assert "Lithuanian" in text and GENERIC_READ.split(":")[0] in text


def test_a_report_that_found_nothing_says_so_too(tmp_path):
    """Nothing on the pages answers the off-topic question: the report that says so also
    says how the question was read."""
    with corpus_world(PAGES, tmp_path / "site") as world:
        result = asyncio.run(
            research("Kiek kainuoja kelto bilietas į Kelmo salą?", world, tmp_path / "runs")
        )
    report = read_report(result)
    assert result.exit_code == 3, report
    assert label("en", "generic_language").format(name="Lithuanian") in report
