"""A question asking for the present, run end to end on the demo world: its answer line
gives the newer of two figures and cites the newer page, whose entry gives its date.

The demo site has two dated pages on the canal's freight, in English and in Chinese: one
giving the figure for 2015 (dated 2016), one giving the figure the canal carries "now"
(dated 2025) with no year in its sentence, so only the page's own date makes it newer.
"""

from __future__ import annotations

import re

import pytest
from research_support import run_demo

#: question → (the newer figure, the newer page, what the source entry says of its date)
ASKED = {
    "How much freight does the Grand Canal carry today?": (
        "530 million tonnes",
        "en/freight-now.html",
        "published 2025-03-18",
    ),
    "京杭大运河现在的货运量是多少？": ("5.3亿吨", "zh/freight-now.html", "2025-03-18发布"),
}


@pytest.mark.parametrize("question", sorted(ASKED))
def test_a_question_asking_for_now_is_answered_by_the_newer_dated_page(tmp_path, question):
    figure, newer, dated = ASKED[question]
    _, result, _ = run_demo(tmp_path, question, formats=("md",))
    (markdown,) = result.outputs
    report = result.run.real_path(markdown).read_text(encoding="utf-8")
    head = report.split("\n## ")[0]
    (line,) = [ln for ln in head.splitlines() if ln.startswith("- ")]
    assert figure in line.replace("\\", ""), line
    (cited,) = re.findall(r"\[(\d+)\]$", line)
    entry = _entry_citing(report, cited)
    assert re.search(rf"<http://[^>]+/{re.escape(newer)}>", entry), entry
    assert dated in entry, entry


def _entry_citing(report: str, number: str) -> str:
    """The head line of the source entry in a Markdown report's Sources that lists the
    quote numbered ``number``."""
    entry = ""
    for line in report.split("\n## Sources")[-1].splitlines():
        if line.startswith("- "):
            entry = line
        elif line.startswith(f"  - [{number}] "):
            return entry
    raise AssertionError(f"no source lists [{number}]")
