"""How the ranker's training script reads a question as research reads a site: the
article as a page per paragraph, or as one page with a heading per paragraph, each part
answered on the page of its own paragraph (invented articles; no data is fetched)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import train_ranker as tr

PARAGRAPHS = [
    ("The Tessmoor tunnel was first bored in 1871 by the Halden railway.", "1871"),
    ("Its portals are faced with grey granite from the Ambry quarries.", "grey granite"),
    ("Since 1990 the tunnel has carried only freight trains at night.", "freight trains"),
]
QUESTIONS = [
    "When was the Tessmoor tunnel first bored?",
    "What are the tunnel's portals faced with?",
    "What has the tunnel carried since 1990?",
]


def _squad_paragraphs() -> list[dict]:
    out = []
    for (text, answer), question in zip(PARAGRAPHS, QUESTIONS, strict=True):
        start = text.index(answer)
        qa = {"question": question, "answers": [{"text": answer, "answer_start": start}]}
        out.append({"context": text, "qas": [qa]})
    return out


def _article() -> tr.Article:
    return tr._article("Tessmoor_tunnel", "en", "Tessmoor tunnel", _squad_paragraphs())


def _said(page: tr.Article, answers: list[tuple[str, int]]) -> list[str]:
    return [page.text[offset : offset + len(text)] for text, offset in answers]


def test_an_article_is_also_a_site_of_a_page_per_paragraph_and_a_page_with_headings():
    article = _article()
    assert len(article.sections) == len(PARAGRAPHS)
    for section, (text, _) in zip(article.sections, PARAGRAPHS, strict=True):
        assert section.title.startswith("Tessmoor tunnel: ") and text in section.text
        assert section.key == article.key  # a fold never splits an article's pages
    assert article.headed is not None
    assert article.headed.text.count("\n## ") == len(PARAGRAPHS)
    heads = [ln[3:] for ln in article.headed.text.splitlines() if ln.startswith("## ")]
    for head, (text, _) in zip(heads, PARAGRAPHS, strict=True):
        # a heading names what tells its paragraph from the others, in the paragraph's
        # words: never the word every paragraph says, nor a figure
        said = head.split()
        assert said and all(w in text.lower() for w in said), (head, text)
        assert "tunnel" not in said and not any(c.isdigit() for c in head)
    assert heads[1] == "portals faced grey"  # the first of its rarest words, in its order


def test_each_part_is_asked_of_its_own_paragraphs_page_with_its_answer_there():
    article = _article()
    for shape in ("sections", "headed", "whole"):
        for n, qa in enumerate(article.qas):
            page, answers = tr._asked_on(article, qa, shape)
            assert _said(page, answers) == [PARAGRAPHS[n][1]]
            if shape == "sections":
                assert page is article.sections[n]


def test_only_a_question_whose_parts_are_on_different_paragraphs_is_read_as_a_site():
    article = _article()
    apart = [(article, qa) for qa in article.qas[:2]]
    together = [(article, article.qas[0]), (article, article.qas[0])]
    rng = random.Random(0)
    shapes = {tr._shape(apart, rng) for _ in range(200)}
    assert shapes == {"sections", "headed", "whole"}
    assert {tr._shape(together, rng) for _ in range(200)} == {"whole"}
    short = tr._article("Short", "en", "Short", _squad_paragraphs()[:2])
    assert not short.sections and short.headed is None
    assert {tr._shape([(short, qa) for qa in short.qas], rng) for _ in range(50)} == {"whole"}


def test_a_page_about_something_else_names_the_subject_once_and_answers_nothing():
    subject = _article()
    host = tr._article(
        "Ambry_quarries",
        "en",
        "Ambry quarries",
        [
            {"context": "The Ambry quarries lie west of Halden. Granite was cut there.", "qas": []},
            {"context": "The quarries closed in 1932.", "qas": []},
        ],
    )
    said = [text for qa in subject.qas[1:] for text, _ in qa.answers]
    page = tr.mentioning(subject, host, said)
    assert page is not None and page.key == host.key and page.qas == []
    # the subject's article's first sentence, once, in the host's first paragraph
    assert page.text.count("Tessmoor tunnel") == 1
    assert "lie west of Halden. Granite was cut there. The Tessmoor tunnel was" in page.text
    assert "The quarries closed in 1932." in page.text
    # a first sentence that holds an answer of the question makes no such page
    assert tr.mentioning(subject, host, ["1871"]) is None
