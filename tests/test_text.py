"""One of each: the CJK character class, the terms, jieba through its public API and the
BM25 that the research core and the Browser share, and Traditional Chinese read as
Simplified for matching while quotes stay as written."""

from __future__ import annotations

import re

import pytest

from research.document import Document
from research.features import local_match
from research.plan import offline_plan
from research.question import Focus
from research.relevance import assessed
from research.retrieval import BM25, Bag
from research.text import (
    CJK,
    CJK_CLASS,
    known_word,
    learn_words,
    marked,
    passages,
    simplified,
    terms,
    word_tag,
    words,
)
from subagents.browser.evidence import answer_bm25

#: An invented town, written in Traditional characters and in Simplified ones.
TRADITIONAL = (
    "# 石溪鎮\n\n"
    "石溪鎮位於山谷之中，鎮上有兩條河流穿過。"
    "石溪鎮的茶農每年在春天採摘新茶，然後運往縣城出售。"
    "鎮上的學校建於1950年，現在有三百名學生。\n"
)
SIMPLIFIED = (
    "# 石溪镇\n\n"
    "石溪镇位于山谷之中，镇上有两条河流穿过。"
    "石溪镇的茶农每年在春天采摘新茶，然后运往县城出售。"
    "镇上的学校建于1950年，现在有三百名学生。\n"
)
QUESTION = "石溪镇的茶农在什么季节采摘新茶？"
ANSWER = "石溪鎮的茶農每年在春天採摘新茶，然後運往縣城出售。"


@pytest.mark.parametrize("char", ["\u3400", "\u4dbf", "\u4e00", "\u9fff", "\uf900", "\ufaff"])
def test_the_cjk_class_holds_the_three_ideograph_blocks(char):
    assert CJK.fullmatch(char)
    assert re.fullmatch(rf"[{CJK_CLASS}]", char)


@pytest.mark.parametrize("char", ["\u4dc0", "\u33ff", "\ufb00", "あ", "한", "A", "1", "。"])
def test_the_cjk_class_holds_no_other_character(char):
    assert not CJK.fullmatch(char)


def test_the_cjk_class_composes_into_other_patterns():
    name = re.compile(rf"[{CJK_CLASS}0-9]{{2,12}}")
    assert name.fullmatch("石溪镇86号")
    assert not name.fullmatch("Stone Creek")


def test_traditional_text_has_the_terms_of_its_simplified_form():
    assert simplified(ANSWER) == "石溪镇的茶农每年在春天采摘新茶，然后运往县城出售。"
    assert terms(ANSWER) == terms(simplified(ANSWER))
    assert words(ANSWER) == words(simplified(ANSWER))
    assert simplified("Stone Creek, 1950") == "Stone Creek, 1950"


def test_quotes_and_offsets_stay_on_the_text_as_written():
    """Sentences are cut from the original text: their offsets give back the Traditional
    characters, never the Simplified ones they were matched by."""
    found = [s for s in passages(TRADITIONAL) if s.text == ANSWER]
    assert len(found) == 1
    assert TRADITIONAL[found[0].start : found[0].end] == ANSWER


def test_a_traditional_sentence_scores_for_a_simplified_question_as_its_simplified_form():
    focus = Focus.build(QUESTION, [QUESTION], QUESTION)
    traditional = assessed(focus, Document.of(TRADITIONAL, "石溪鎮"))
    simple = assessed(focus, Document.of(SIMPLIFIED, "石溪镇"))
    assert traditional[0].sentence.text == ANSWER
    assert simple[0].sentence.text == "石溪镇的茶农每年在春天采摘新茶，然后运往县城出售。"
    assert traditional[0].score == pytest.approx(simple[0].score)
    assert [round(s.score, 6) for s in traditional] == [round(s.score, 6) for s in simple]
    doc = Document.of(TRADITIONAL, "石溪鎮")
    assert local_match(focus, doc) == local_match(focus, Document.of(SIMPLIFIED, "石溪镇"))


@pytest.mark.parametrize(
    ("simple", "traditional"),
    [
        ("石溪镇的茶农什么时候采摘新茶？", "石溪鎮的茶農什麼時候採摘新茶？"),
        ("七里湾战役持续了多长时间？", "七里灣戰役持續了多長時間？"),
        ("为什么青河水库在冬天结冰？", "爲什麼青河水庫在冬天結冰？"),
    ],
)
def test_a_traditional_part_is_read_as_its_simplified_form(simple, traditional):
    """Its subject, the kind of answer it asks for and its facets are those of the same
    part in Simplified characters (what it asks is read from the characters jieba and the
    question words know); its text stays as written."""
    ours, theirs = Focus.build(traditional, [traditional]), Focus.build(simple, [simple])
    assert ours.text == traditional
    assert (ours.subject, ours.core, ours.kind) == (theirs.subject, theirs.core, theirs.kind)
    assert [f.term for f in ours.facets] == [f.term for f in theirs.facets]


def test_the_browser_quotes_a_traditional_page_exactly_for_a_simplified_question():
    """The question's words (茶农, 采摘) are written otherwise on the page (茶農, 採摘)."""
    question = "茶农什么时候采摘？"
    answer = answer_bm25(TRADITIONAL, question, "http://127.0.0.1:9/town", "/pages/town.md")
    assert len(answer.items) == 1
    assert answer.items[0].span == ANSWER
    assert TRADITIONAL[answer.items[0].start : answer.items[0].end] == ANSWER


def test_jieba_is_read_through_its_public_api():
    """A word's part of speech and whether jieba knows it: 之间 is a localizer, 茶农 a
    word, a string of rare characters no word."""
    assert word_tag("之间") == "f"
    assert word_tag("茶农").startswith("n")
    assert word_tag("璟璐嵘") == ""
    assert known_word("之间") and not known_word("璟璐嵘")


def test_bm25_counts_a_word_that_only_one_of_two_documents_says():
    """With two documents, a word on one of them still tells them apart (the classic
    Okapi weighting gives it no weight at all)."""
    scores = BM25([["vent", "geyser"], ["geyser", "sheep"]]).scores(["vent", "geyser"])
    assert scores[0] > scores[1] > 0


def test_bm25_counts_each_word_of_a_query_once_and_reads_a_bag_as_its_terms():
    documents = [["vent", "vent", "geyser", "rope"], ["geyser", "sheep", "wool", "farm"]]
    bags = [Bag({"vent": 2, "geyser": 1}, 4), Bag({"geyser": 1}, 4)]
    ranking = BM25(documents)
    assert ranking.scores(["vent", "vent", "geyser"]) == ranking.scores(["vent", "geyser"])
    assert BM25(bags).scores(["vent", "geyser"]) == pytest.approx(
        ranking.scores(["vent", "geyser"])
    )


def test_bm25_of_nothing_is_nothing():
    assert BM25([]).scores(["vent"]) == []
    assert BM25([[], []]).scores(["vent"]) == [0.0, 0.0]
    assert BM25([["vent"]]).scores(["sheep"]) == [0.0]


def test_a_traditional_question_is_planned_as_its_simplified_form_in_its_own_characters():
    """The Chinese rules read Simplified characters: a question written in Traditional
    ones is split into the same parts, each written as the user wrote it."""
    question = "石溪鎮的茶農在什麼季節採摘新茶，茶葉運往哪個縣城出售？"
    traditional = offline_plan(question)
    simple = offline_plan(simplified(question))
    assert traditional.question == question
    assert len(traditional.subquestions) == len(simple.subquestions) == 2
    for mine, theirs in zip(traditional.subquestions, simple.subquestions, strict=True):
        assert simplified(mine.text) == theirs.text
        assert set(mine.text) <= set(question) | set("？")
        assert [simplified(q) for q in mine.queries] == theirs.queries


def test_the_names_a_question_marks_are_taught_to_jieba_and_cut_whole():
    """A made-up title in 《》 is cut into characters until the question that names it is
    planned; from then on the question and every page cut it as one word, in either
    script, tagged as a noun."""
    name = "璟岚往事"
    assert marked(f"石溪镇的《{name}》和“茶会”讲了什么？") == [name, "茶会"]
    assert name not in words(f"{name}是一本书。")
    offline_plan(f"石溪镇的《{name}》讲了什么？")
    assert name in words(f"{name}是一本书。")
    assert name in words("璟嵐往事是一本書。")
    assert word_tag(name).startswith("n")  # a name, as the question's nouns are
    assert name in terms(f"石溪镇的《{name}》讲了什么？")
    assert learn_words([name, "Stone Creek", "茶"]) == []  # known, not Chinese, too short
