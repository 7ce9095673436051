"""A sentence that only says where something is told is never quoted as evidence.

Every example is invented.
"""

from __future__ import annotations

import pytest

from research.document import Document
from research.relevance import quote_bounds
from research.text import is_cross_reference


@pytest.mark.parametrize(
    "sentence",
    [
        "How the sluices of the Mirren canal worked is explained under [sluices](sluices.html).",
        "The ferry tolls are described in detail in [the tolls page](tolls.html).",
        "See [the harbour board](board.html) for the names of its members.",
        "For more on the floods, see [floods](https://example.org/floods).",
        "详见[白鹭桥的历史](history.html)。",
        "参见下文的年表。",
    ],
)
def test_a_pointer_to_where_something_is_told_is_a_cross_reference(sentence: str) -> None:
    assert is_cross_reference(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Twelve sluices were built on the canal by 1790 (see [sluices](sluices.html)).",
        "The tolls are described in the harbour board's annual report of 1902.",
        "Seeing the floods, the town raised the quay by two metres.",
        "白鹭桥于1936年建成通车，见证了城市的发展。",
    ],
)
def test_a_statement_with_a_pointer_beside_it_is_not(sentence: str) -> None:
    assert not is_cross_reference(sentence)


@pytest.mark.parametrize(
    ("sentence", "quoted"),
    [
        (
            "Twelve sluices were built on the canal by 1790 (see [sluices](sluices.html)).",
            "Twelve sluices were built on the canal by 1790",
        ),
        ("白鹭桥于1936年建成通车（详见下文）。", "白鹭桥于1936年建成通车"),
        # a pointer in the middle of the sentence stays: the quote is the whole sentence
        (
            "Twelve sluices (see [sluices](sluices.html)) were built by 1790.",
            "Twelve sluices (see [sluices](sluices.html)) were built by 1790.",
        ),
    ],
)
def test_a_quote_ends_before_a_pointer_that_closes_its_sentence(sentence: str, quoted: str) -> None:
    doc = Document.of(f"The Mirren canal. {sentence}", "The Mirren canal")
    last = doc.sentences[-1]
    start, end = quote_bounds(doc, last)
    assert doc.text[start:end] == quoted
