"""A cited span supports a claim when it states the claim's numbers, dates and names and
enough of its words: on several subjects, in English and Chinese."""

from __future__ import annotations

import pytest

from research.support import SUPPORT_OVERLAP, supports

CASES = [
    # (span, claim, supported)
    (
        "The lighthouse on Skerry Point was lit for the first time in 1874.",
        "The Skerry Point lighthouse was first lit in 1874.",
        True,
    ),
    (
        "The lighthouse on Skerry Point was lit for the first time in 1874.",
        "The Skerry Point lighthouse was first lit in 1876.",
        False,  # a date the span does not give
    ),
    (
        "Marrow Bay has about 12,000 inhabitants, most of them fishers.",
        "About 12000 inhabitants live in Marrow Bay.",
        True,  # the number without its separator
    ),
    (
        "Marrow Bay has about 12,000 inhabitants, most of them fishers.",
        "The Harbour Board of Marrow Bay was founded by Admiral Quist.",
        False,  # names the span never gives
    ),
    (
        "Module prices fell by almost half over two years, which made rooftop systems cheaper.",
        "Rooftop systems became cheaper as module prices fell.",
        True,
    ),
    (
        "Module prices fell by almost half over two years, which made rooftop systems cheaper.",
        "Heat pumps are now required in every new house.",
        False,  # words about something else
    ),
    (
        "唐代陆羽撰写了《茶经》，系统总结了种茶、制茶和饮茶的方法。",
        "陆羽在唐代写了《茶经》。",
        True,
    ),
    (
        "唐代陆羽撰写了《茶经》，系统总结了种茶、制茶和饮茶的方法。",
        "《茶经》由苏轼于1085年写成。",
        False,
    ),
    ("青海湖湖面面积约4,400平方公里，是中国最大的咸水湖。", "青海湖的面积约为4400平方公里。", True),
    (
        "青海湖湖面面积约4,400平方公里，是中国最大的咸水湖。",
        "青海湖的面积约为5200平方公里。",
        False,
    ),
]


@pytest.mark.parametrize(("span", "claim", "expected"), CASES)
def test_a_claim_is_supported_only_by_a_span_that_says_it(span, claim, expected):
    verdict = supports(claim, span)
    assert verdict.supported is expected, verdict


def test_a_name_said_in_the_sentence_before_the_span_counts():
    span = "It was lit for the first time in 1874."
    claim = "The Skerry Point lighthouse was first lit in 1874."
    assert not supports(claim, span).supported
    assert supports(claim, span, around="The lighthouse stands on Skerry Point.").supported


def test_the_verdict_says_what_is_missing():
    verdict = supports("The Guild of Quist paid for it in 1901.", "The town paid for the pier.")
    assert not verdict.supported and "1901" in verdict.reason() and "quist" in verdict.reason()
    assert 0 < SUPPORT_OVERLAP < 1
