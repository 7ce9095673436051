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


def test_a_quote_holding_a_parts_sentence_is_weighed_by_the_sentence_it_adds():
    """A part quotes a sentence; the quote of it with the next sentence (which gives the
    figure the part asks for) would take its place, so it is not weighed down for
    repeating the names of the sentence it replaces, and it goes to that part rather
    than to another part that scores it lower."""
    first = "Port Elvan has one harbour, eight quays and a Customs House."
    both = first + " Its two deepest quays each take ships of over 300 metres."
    url = "http://127.0.0.1:9/port"
    quotes = {
        "a": Quote("a", url, first, 100),
        "b": Quote("b", url, both, 100),
        "c": Quote("c", "http://127.0.0.1:9/other", "Elvan's quays handle 4 million tonnes.", 0),
    }
    scores = {"q1": {"a": 0.62, "b": 0.51}, "q2": {"c": 0.9, "b": 0.45}}
    chosen = select(["q1", "q2"], scores, quotes, "en", 3)
    assert chosen == {"q1": ["b"], "q2": ["c"]}


def _one_page(spans: dict[str, str]) -> dict[str, Quote]:
    url = "http://127.0.0.1:9/alder"
    return {key: Quote(key, url, span, 100 * n) for n, (key, span) in enumerate(spans.items())}


def test_a_quote_goes_to_the_part_it_answers_best_however_full_that_parts_page_is():
    """One page answers both parts. The second part's best quote shares a name with its
    first, and the part already quotes several sentences of that page, so it weighs less
    in that section than three others; it still goes to that part (0.65) and not to the
    first part, which scores it 0.2 and holds it only as a lead."""
    quotes = _one_page(
        {
            "k1": "The river Alder flows west past Tolby into the bay.",
            "k2": "The Upper Alder runs between Mirn and Tolby.",
            "k3": "Snowmelt raised the sea and flooded the coast.",
            "k4": "Most meltwater drains into the lower valley.",
            "k5": "The valley was cut as the land slowly rose.",
        }
    )
    scores = {
        "q1": {"k6": 0.3, "k2": 0.2},
        "q2": {"k1": 0.76, "k2": 0.65, "k3": 0.64, "k4": 0.64, "k5": 0.64},
    }
    quotes["k6"] = Quote("k6", "http://127.0.0.1:9/bay", "The bay froze in the last cold age.", 0)
    chosen = select(["q1", "q2"], scores, quotes, "en", 8)
    assert "k2" in chosen["q2"]
    assert chosen["q1"] == ["k6"]


def test_a_quote_goes_to_the_part_whose_answer_it_most_likely_holds():
    """Two parts hold one sentence as a lead under the threshold; the rules score it a
    little higher for the second, while the sentence model finds the first part's answer
    in it (likelihood 0.3 against 0.02): the first part quotes it."""
    quotes = _one_page(
        {
            "k1": "A soldier named Orsel led an army of Franks into the upper valley.",
            "k2": "Before the settlers came, the people were counted as Franks.",
        }
    )
    scores = {"q1": {"k1": 0.06, "k2": 0.06}, "q2": {"k1": 0.2, "k2": 0.25}}
    likely = {"q1": {"k1": 0.3, "k2": 0.01}, "q2": {"k1": 0.02, "k2": 0.05}}
    chosen = select(["q1", "q2"], scores, quotes, "en", 3, likelihood=likely)
    assert chosen == {"q1": ["k1"], "q2": ["k2"]}


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


def test_a_part_agrees_on_the_first_of_the_pages_that_name_its_subject():
    """Two parts rank a page first by their words while it never names what they ask
    about: it is about neither. Each part's first among the pages naming its subject
    counts, still read among several pages (the page read alone agrees with nothing)."""
    rankings = [{"/drama": 3.0, "/war": 1.0, "/farms": 0.5}, {"/drama": 2.0, "/war": 1.5}]
    assert agreed(rankings) == {"/drama"}
    assert agreed(rankings, [{"/war", "/farms"}, {"/war"}]) == {"/war"}
    assert agreed(rankings, [{"/farms"}, set()]) == set()
    alone = [{"/war": 3.0}, {"/war": 2.0}]
    assert agreed(alone, [{"/war"}, {"/war"}]) == set()


def test_a_sites_page_on_the_thing_asked_stands_first_on_what_the_part_asks():
    """A site's overview names its subject in every line and ranks first by the part's
    words; its page on the thing asked, titled without the subject, says that thing most
    and stands first by what the part asks beyond the subject (``page_asked``)."""
    from research.retrieval import standing

    parts = ["When did the Pellow Ferry open?", "Why did the Pellow Ferry close?"]
    site = {
        "/": (
            "The Pellow Ferry",
            "The Pellow Ferry crossed the Avon at Pellow. The Pellow Ferry opened in 1821. The "
            "Pellow Ferry carried carts and cattle. The Pellow Ferry closed in 1958.",
        ),
        "/closing": (
            "Why the crossing closed",
            "Traffic fell after the road bridge at Tarne opened in 1954. The ferry closed when "
            "its last boat failed inspection. The parish closed the landing stage later.",
        ),
    }
    focus = Focus.build(parts[1], parts, " and ".join(parts))
    assert set(focus.asked) < set(focus.words)
    pages = {p: PageTerms.of(focus.words, Document.of(t, ti).counts) for p, (ti, t) in site.items()}
    stand = standing({"q2": bm25(focus.words, pages)}, "q2", {"q2": bm25(focus.asked, pages)})
    assert stand["/"]["page_first"] == 1.0 and stand["/closing"]["page_share"] < 1.0
    assert stand["/closing"]["page_asked"] == 1.0 > stand["/"]["page_asked"]
    alone = standing({"q2": bm25(focus.words, pages)}, "q2")  # without it: page_share
    assert all(v["page_asked"] == v["page_share"] for v in alone.values())


def test_a_page_is_named_by_the_text_of_the_links_other_pages_read_point_to_it_with():
    """An overview linking its page on the closure by that word lends the page the
    part's word (the link made absolute, its fragment dropped); a page's link to itself
    and a link to a page not read lend nothing."""
    from research.retrieval import inbound, link_words, linked_share

    def anchored(asked, linking, where):
        return linked_share(asked, inbound(linking, where), where)

    overview = (
        "The ferry ran until 1958 ([closure](closing.html#top)). See [the crossing](/) and "
        "[the closure of the mill](https://elsewhere.test/mill)."
    )
    where = {"/": "https://ferry.test/", "/closing": "https://ferry.test/closing.html"}
    linking = {
        "/": link_words(overview, where["/"]),
        "/closing": link_words("Back to [the ferry](/closing.html).", where["/closing"]),
    }
    targets = [target for target, _ in linking["/"]]
    assert targets == [where["/closing"], where["/"], "https://elsewhere.test/mill"]
    closure = sorted(linking["/"][0][1])
    assert anchored(closure, linking, where) == {"/": 0.0, "/closing": 1.0}
    assert anchored([*closure, "ferri"], linking, where)["/closing"] == 0.5
    assert anchored([], linking, where) == {"/": 0.0, "/closing": 0.0}
