"""Which page answers a part best: BM25 over the run's own pages, and the sources a
part's section quotes from."""

from __future__ import annotations

from research.document import Document
from research.question import Focus
from research.retrieval import PageTerms, agreed, bm25
from research.selection import Quote, select

QUESTION = "When did Strokkur last erupt, and who unblocked the vent of Strokkur?"
PAGES = {
    "/geysers": (
        "Geysers of Iceland — Guide",
        "Strokkur is a geyser. Strokkur erupts every few minutes. Visitors watch Strokkur "
        "from a rope line. The vent of Strokkur is narrow.",
    ),
    "/history": (
        "Strokkur — History",
        "Strokkur stopped in 1896 after an earthquake blocked its vent. In 1963 local "
        "farmers unblocked the vent, on the advice of the Geysir committee, and Strokkur "
        "has erupted since.",
    ),
    "/farms": (
        "Farming in Iceland",
        "Farmers keep sheep near Strokkur. Local farmers sell wool in the south.",
    ),
}


def _ranking(part: str) -> dict[str, float]:
    texts = ["When did Strokkur last erupt?", "Who unblocked the vent of Strokkur?"]
    focus = Focus.build(part, texts, QUESTION)
    pages = {
        path: PageTerms.of(focus.words, Document.of(text, title).counts)
        for path, (title, text) in PAGES.items()
    }
    return bm25(focus.words, pages)


def test_the_page_that_says_the_parts_rare_words_ranks_first():
    """Every page names Strokkur, so its name tells them apart no better than "the": the
    page that says "unblocked" and "vent" answers the part, not the one that repeats the
    subject's name most."""
    ranking = _ranking("Who unblocked the vent of Strokkur?")
    assert max(ranking, key=ranking.get) == "/history"
    assert ranking["/geysers"] < ranking["/history"]


def test_the_parts_own_words_rank_the_pages_and_the_question_frame_does_not():
    """ "Who" and "did" are no words of the part: a page full of them gains nothing."""
    texts = ["Who unblocked the vent of Strokkur?"]
    focus = Focus.build(texts[0], texts, texts[0])
    assert "who" not in focus.words and "strokkur" in focus.words
    framed = PageTerms.of(focus.words, Document.of("Who did what? Who did it? Strokkur.").counts)
    plain = PageTerms.of(focus.words, Document.of("Strokkur has a vent. It was unblocked.").counts)
    ranking = bm25(focus.words, {"/framed": framed, "/plain": plain})
    assert ranking["/plain"] > ranking["/framed"]


def test_no_pages_rank_nothing():
    assert bm25(["strokkur"], {}) == {}


def test_a_section_leaves_out_a_source_ranked_far_below_the_parts_best():
    """A page that names the subject in passing is not quoted beside the pages about the
    part, though its sentence scores well; without a ranking every source is quoted."""
    quotes = {
        "a": Quote("a", "http://127.0.0.1:9/history", "In 1963 local farmers unblocked it."),
        "b": Quote("b", "http://127.0.0.1:9/history", "The vent was blocked in 1896."),
        "c": Quote("c", "http://127.0.0.1:9/farms", "Farmers near Strokkur keep sheep."),
    }
    scores = {"q2": {"a": 0.9, "b": 0.6, "c": 0.7}}
    ranking = {"q2": {"http://127.0.0.1:9/history": 4.0, "http://127.0.0.1:9/farms": 1.0}}
    assert "c" not in select(["q2"], scores, quotes, "en", 3, ranking)["q2"]
    assert "c" in select(["q2"], scores, quotes, "en", 3)["q2"]
    close = {"q2": {"http://127.0.0.1:9/history": 4.0, "http://127.0.0.1:9/farms": 3.0}}
    assert "c" in select(["q2"], scores, quotes, "en", 3, close)["q2"]


def test_a_quote_that_holds_a_quoted_sentence_and_the_one_after_it_takes_its_place():
    """The sentence that leans on the one before it is quoted with it: that quote holds
    the first sentence, and stands in the section in its place (not both, not only the
    first)."""
    first = "However, a distinct molecule has been found in lampreys and hagfish."
    both = first + " These animals possess receptors called VLRs."
    url = "http://127.0.0.1:9/immune"
    quotes = {"a": Quote("a", url, first, 100), "b": Quote("b", url, both, 100)}
    assert select(["q1"], {"q1": {"a": 0.5, "b": 0.4}}, quotes, "en", 3)["q1"] == ["b"]
    apart = {"a": Quote("a", url, first, 100), "b": Quote("b", url, both, 900)}
    assert select(["q1"], {"q1": {"a": 0.5, "b": 0.4}}, apart, "en", 3)["q1"] == ["a"]


def test_the_page_most_parts_rank_first_is_the_page_the_question_is_about():
    """Three parts asked of one article: two of them rank it first, so it is about the
    question. One part alone, or two parts that each rank another page first, agree on
    nothing (a one-part question gets no answer from agreement with itself)."""
    rankings = [{"/war": 3.0, "/farms": 1.0}, {"/war": 2.5, "/farms": 0.2}, {"/farms": 2.0}]
    assert agreed(rankings) == {"/war"}
    assert agreed(rankings[:1]) == set()
    assert agreed([{"/war": 3.0, "/farms": 1.0}, {"/farms": 2.0, "/war": 1.0}]) == set()
    assert agreed([{"/war": 0.0}, {"/war": 0.0}]) == set()  # no part's words on any page
    assert agreed([{"/war": 3.0}, {"/war": 2.0}]) == set()  # the only page read
