"""A part's best answer under the relevance threshold (a lead), and the quotes a part
keeps when a sentence answers two parts."""

from __future__ import annotations

import host.research
from host.research import Research
from research.document import Document
from research.features import local_match
from research.plan import Plan, SubQuestion, offline_plan
from research.question import Focus, entity
from research.relevance import THRESHOLD, assessed
from research.selection import promote
from subagents.evidence import EvidenceItem, EvidenceLedger

QUESTION = "About Mount Orvald: when did its last eruption happen, and what must climbers carry?"

ORVALD = """# Mount Orvald

Mount Orvald is the highest peak of the Marrow Range. Its glaciers feed five rivers, and
its lahars reached the Dunmore lowlands. Its last eruption was around 1887. The park was
founded in 1899. Every climber needs a pass from the park rangers. Wildflower meadows
surround the volcano at Larkfield.
"""
ORVALD_TITLE = "Volcanoes of the Marrow Range — Parks"
#: The same words about another mountain.
EDDA = """# Mount Edda

Mount Edda is a peak of the Marrow Range. Every climber on Mount Edda needs a pass from
the forest service.
"""
#: A page that says the part's words outright, read later.
PERMITS = """# Permits on Mount Orvald

On Mount Orvald every climber must carry a climbing pass and a park entrance pass above
10,000 feet.
"""


def _focus() -> tuple[Plan, Focus]:
    plan = offline_plan(QUESTION)
    texts = [s.text for s in plan.subquestions]
    return plan, Focus.build(texts[1], texts, QUESTION)


def test_a_subject_named_before_a_colon_is_every_parts_subject():
    plan, focus = _focus()
    assert plan.subquestions[1].text == "What must climbers carry?"
    assert focus.core == ("mount", "orvald")
    assert {f.term for f in focus.facets} == {"climber", "carri"}


def test_a_paraphrase_on_the_subjects_page_is_a_lead_and_the_same_words_elsewhere_are_not():
    """ "Needs a pass" for "must carry": under the threshold, yet the page is about Mount
    Orvald and the sentence says most of the part, so it may stand as the part's answer.
    The same sentence about Mount Edda may not."""
    _, focus = _focus()
    best = assessed(focus, Document.of(ORVALD, ORVALD_TITLE))[0]
    assert best.sentence.text.startswith("Every climber needs a pass")
    assert best.score < THRESHOLD and best.lead
    edda = [s for s in assessed(focus, Document.of(EDDA, "Mount Edda — Parks")) if s.lead]
    assert edda == []


def test_the_best_lead_is_taken_in_and_gives_way_to_evidence_read_later(
    memory_service, monkeypatch
):
    """The hand-set tests' lead (the learned models choose a part's leads by default:
    see ``test_unsure.py``)."""
    monkeypatch.setattr(host.research, "UNSURE_MODEL", False)
    plan, _ = _focus()
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=2)
    research._score(
        "/workspace/pages/edda.md", EDDA, "http://127.0.0.1:9/edda", "Mount Edda", "web"
    )
    assert research.evidence["q2"] == {}  # another mountain answers nothing
    research._score("/workspace/pages/r.md", ORVALD, "http://127.0.0.1:9/r", ORVALD_TITLE, "web")
    [lead] = research.evidence["q2"]
    assert research.ledger.get(lead).span.startswith("Every climber needs a pass")
    assert research.select(limit=3)["q2"] == [lead]
    research._score("/workspace/pages/p.md", PERMITS, "http://127.0.0.1:9/p", "Permits", "web")
    ids = research.select(limit=3)["q2"]
    assert research.ledger.get(ids[0]).span.startswith("On Mount Orvald every climber must carry")
    # The lead stays a candidate only while it is the best the part has under the bar.
    assert set(research.state()["promoted"]["q2"]) <= set(research.evidence["q2"])


def test_a_parts_best_quote_is_in_its_section_though_it_answers_another_part_better(
    memory_service,
):
    both = "The bridge opened in 1932 and carries 160,000 vehicles a day."
    plan = Plan(
        "When did the bridge open, and how busy is it?",
        "en",
        [SubQuestion("q1", "When did the bridge open?", []), SubQuestion("q2", "How busy?", [])],
    )
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    item = research.ledger.add(
        EvidenceItem(url="http://127.0.0.1:9/b", span=both, start=0, end=len(both))
    )
    other = "Traffic on the bridge grew after the tolls were cut."
    second = research.ledger.add(
        EvidenceItem(url="http://127.0.0.1:9/c", span=other, start=0, end=len(other))
    )
    research.evidence["q1"][item.id] = 0.9
    research.evidence["q2"][item.id] = 0.6
    chosen = research.select(limit=3)
    assert chosen == {"q1": [item.id], "q2": [item.id]}
    research.evidence["q2"][second.id] = 0.5  # a weaker quote of its own follows it
    assert research.select(limit=3) == {"q1": [item.id], "q2": [item.id, second.id]}
    research.evidence["q2"][second.id] = 0.7  # its own best: the shared one is q1's alone
    assert research.select(limit=3) == {"q1": [item.id], "q2": [second.id]}


def test_a_chinese_subject_is_what_the_pieces_open_with_or_a_telling_noun():
    assert entity("王小明是什么时候毕业的，王小明在哪里工作？") == "王小明"
    assert entity("李华在2010年去了哪里，李华在哪年回国？") == "李华"
    assert entity("谁是目前世界上最大的咖啡出口国？") == "咖啡出口国"
    assert entity("1905年阿尔伯特·爱因斯坦发表了什么论文？") == "阿尔伯特·爱因斯坦"


def test_a_chinese_name_the_word_list_cuts_into_characters_is_one_subject():
    """向远 is cut into 向 and 远 by the word list; its characters alone must not stand for
    it (any text with 向 would be about it)."""
    question = "向远是哪一年考中进士的，向远在哪里读书？"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert texts == ["向远是哪一年考中进士的？", "向远在哪里读书？"]
    focus = Focus.build(texts[1], texts, question)
    assert focus.core == ("向远",)
    about = Document.of("# 生平\n\n向远少年时在岳麓书院读书。\n", "向远 — 百科")
    other = Document.of("# 书院\n\n岳麓书院位于长沙，学生向北远行求学。\n", "书院 — 百科")
    assert assessed(focus, about)[0].subject == 1.0
    assert assessed(focus, other)[0].subject < 0.5


def test_a_chinese_question_after_a_comma_with_a_subject_of_its_own_keeps_it():
    question = "咖啡树原产于哪里，茶叶的主要成分是什么？"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert texts == ["咖啡树原产于哪里？", "茶叶的主要成分是什么？"]
    question = "莫罗蒂的画作收藏在哪里？关于教育改革的报告提到了哪些问题？"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert texts[1] == "关于教育改革的报告提到了哪些问题？"  # says what it is about


def test_a_part_that_names_nothing_asks_about_the_questions_named_subject():
    question = "How many people live in Tromsø, and where do most children go to school?"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert Focus.build(texts[1], texts, question).core == ("tromsø",)
    question = "When was the Eiffel Tower built, and when was Big Ben built?"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert Focus.build(texts[1], texts, question).core == ("big", "ben")


def test_a_sentence_carrying_the_answer_type_outranks_one_that_only_shares_words():
    from research.features import carried_answer

    focus = Focus.build("Who designed the Tromsø bridge?")
    assert carried_answer(focus, "The Tromsø bridge was designed by Eva Lunde.") == "name"
    assert carried_answer(focus, "The Tromsø bridge was designed in a hurry.") == ""
    many = Focus.build("How many cars crossed the bridge in 2019?")
    assert carried_answer(many, "In 2019, 12,400 cars crossed it each day.") == "number"
    assert carried_answer(many, "In 2019 the bridge was closed for repairs.") == ""
    where = Focus.build("向远在哪里读书？")
    assert carried_answer(where, "向远少年时在长沙读书。") == "name"
    assert carried_answer(where, "向远少年时很用功。") == ""


def test_a_common_chinese_word_is_not_given_to_the_other_pieces_and_a_name_has_its_family():
    texts = [s.text for s in offline_plan("什么条件导致停电，什么部门负责抢修电网？").subquestions]
    assert texts == ["什么条件导致停电？", "什么部门负责抢修电网？"]
    question = "阿尔伯特·爱因斯坦在哪一年发表了论文，阿尔伯特·爱因斯坦在哪里工作？"
    texts = [s.text for s in offline_plan(question).subquestions]
    assert Focus.build(texts[1], texts, question).core == ("爱因斯坦",)


def test_words_that_say_what_kind_of_answer_is_wanted_are_not_facets():
    for question, facets in [
        ("哪两种矿物在高温时最稳定？", {"高温", "时", "最", "稳定"}),
        ("北极燕鸥的迁徙路线被称为什么？", {"迁徙", "路线"}),
        ("What is the glowing ring around the Moon called?", {"glow", "ring"}),
    ]:
        assert {f.term for f in Focus.build(question).facets} == facets, question


def test_the_noun_naming_the_kind_of_answer_is_not_a_facet_in_english():
    focus = Focus.build("Which river flows through the city of Tromsø?")
    assert "river" not in {f.term for f in focus.facets}
    named = Focus.build("Which NFL team won in 2016?")  # a name is never the kind
    assert "nfl" in (*named.subject, *(f.term for f in named.facets))


#: The subject's own page: its name is in every sentence, the part's rarer words in few.
GEYSIR = """# Strokkur

Strokkur is a geyser in the south of Iceland. Strokkur lies beside the Hvita river valley.
Strokkur erupts every six to ten minutes. Strokkur throws water up to forty metres high.
Strokkur's basin is lined with silica. Strokkur has been a tourist sight since the 1800s.
Strokkur was unblocked by local farmers in 1963, after an earthquake had sealed its vent.
Visitors at Strokkur keep behind a rope.
"""


def test_a_pages_own_rare_words_rank_its_sentences_for_a_part():
    """On the subject's page the subject's name tells no sentence from another; the word of
    the part that few sentences use (farmers, vent) points at the one that answers it."""
    question = "How often does Strokkur erupt, and who unblocked the vent of Strokkur?"
    texts = ["How often does Strokkur erupt?", "Who unblocked the vent of Strokkur?"]
    focus = Focus.build(texts[1], texts, question)
    doc = Document.of(GEYSIR, "Strokkur — Geysers of Iceland")
    local = local_match(focus, doc)
    best = max(range(len(local)), key=local.__getitem__)
    assert doc.sentences[best].text.startswith("Strokkur was unblocked by local farmers")
    assert local[best] == 1.0 and sorted(local)[-2] < 0.5
    ranked = assessed(focus, doc)
    assert ranked[0].sentence.text.startswith("Strokkur was unblocked")
    assert ranked[0].top_of_page and not ranked[-1].top_of_page


def test_a_page_that_names_the_subject_once_ranks_nothing_by_its_own_words():
    """A page about something else that mentions the subject in passing is not the
    subject's page: its sentences are not the top of a page about it."""
    texts = ["How often does Strokkur erupt?", "Who unblocked the vent of Strokkur?"]
    focus = Focus.build(texts[1], texts, " and ".join(texts))
    other = Document.of(
        "# Farming in Iceland\n\nFarmers in the south keep sheep. One farm is near Strokkur. "
        "A vent in the barn keeps the hay dry. Local farmers unblocked the road in 1963.\n",
        "Farming in Iceland — Rural Life",
    )
    ranked = assessed(focus, other)
    assert not any(s.page_named for s in ranked)


ACADIANS = "Who ordered the expulsion of the Acadians, and where did the Acadian families settle?"
#: The page the question was asked about: its title names the war, not the Acadians.
UPHEAVAL = """# The Expulsion

In 1755 Governor Charles Lawrence ordered the expulsion of the Acadians from Nova Scotia.
British troops burned the villages along the Bay of Fundy. Many Acadian families later made
new homes in Louisiana, where their descendants are called Cajuns. The deportation lasted
until 1764. Farmland was given to settlers from New England.
"""
#: A page on something else that names the Acadians once, in the same words.
COOKING = """# Cajun cooking

Cajun cooking uses rice, peppers and onions. Gumbo is served in Louisiana. Some Acadian
families made new homes in Louisiana long ago. Jambalaya is a rice dish.
"""


def test_a_passage_answers_a_part_only_on_a_page_that_answers_the_question(memory_service):
    """ "Made new homes" for "settle" is a paraphrase under the threshold, on a page whose
    title names the war and not the Acadians. It is the part's answer there, because that
    page answers the other part with evidence of its own; the same words on a cooking page
    that names the Acadians once are no answer, even when that page is read first."""
    plan = offline_plan(ACADIANS)
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=2)
    research._score(
        "/workspace/pages/c.md", COOKING, "http://127.0.0.1:9/c", "Cajun cooking", "web"
    )
    assert research.evidence["q2"] == {}
    research._score(
        "/workspace/pages/u.md", UPHEAVAL, "http://127.0.0.1:9/u", "The Great Upheaval", "web"
    )
    said = [" ".join(research.ledger.get(i).span.split()) for i in research.select(limit=3)["q2"]]
    assert said and said[0].startswith("Many Acadian families later made new homes")
    assert not any("long ago" in s for s in said)


def test_a_part_takes_its_leads_from_the_page_that_answers_it_best_in_that_pages_order():
    """Across pages, by the pages' ranking for the part (else by their best lead's score);
    within the chosen page, by rank, as long as a lead ranks at least half of the first."""
    leads = [
        {"page_path": "/a", "start": 0, "score": 0.30, "rank": 0.50},
        {"page_path": "/a", "start": 50, "score": 0.28, "rank": 0.58},
        {"page_path": "/a", "start": 90, "score": 0.21, "rank": 0.20},
        {"page_path": "/b", "start": 0, "score": 0.25, "rank": 0.55},
    ]
    taken = promote(leads)
    assert [(lead["page_path"], lead["start"]) for lead in taken] == [("/a", 50), ("/a", 0)]
    ranked = promote(leads, {"/a": 1.2, "/b": 3.4})  # /b says the part's rare words more
    assert [(lead["page_path"], lead["start"]) for lead in ranked] == [("/b", 0)]
    assert promote([{"page_path": "/c", "start": 3, "score": 0.3}])[0]["start"] == 3
    # a page that answers the part with evidence of its own, ranked above them all: no lead
    assert promote(leads, {"/a": 1.2, "/b": 3.4, "/d": 5.0}, rivals={"/d"}) == []
    assert promote(leads, {"/a": 1.2, "/b": 3.4, "/d": 2.0}, rivals={"/d"})[0]["page_path"] == "/b"


#: Two parts on two subjects, each with its page.
TWO_SUBJECTS = "When was the Orvel lighthouse first lit, and who founded the Tarn ferry company?"
LIGHTHOUSE = """# The Orvel lighthouse

The Orvel lighthouse was first lit in 1872 by the harbour board. Its tower is built of
granite from the Dunmore quarries. The harbour board was founded by merchants of the
town in 1840. Keepers lived in the cottage beside it until 1961.
"""
#: The ferry company's page: its name and a list of links, no statement to quote.
FERRY = """# Tarn ferry company

- Timetable
- Fares and tickets
- Founded 1790
- Harsk quay
"""


def test_a_part_takes_no_nearest_quote_from_a_page_another_part_is_answered_on(
    memory_service,
):
    """The lighthouse's page answers the first part; its sentences score nothing for the
    second, which asks about a ferry company, though one says "founded", and the
    company's own page (with nothing to quote) answers that part better: they are not
    its nearest quotes. With only the lighthouse's page read, it is the best page there
    is for the part, and its nearest quote may come from it."""
    plan = offline_plan(TWO_SUBJECTS)
    first, second = (s.id for s in plan.subquestions)

    def read(research: Research, name: str, text: str, title: str) -> None:
        research._score(
            f"/workspace/pages/{name}.md", text, f"http://127.0.0.1:9/{name}", title, "web"
        )

    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=2)
    read(research, "l", LIGHTHOUSE, "The Orvel lighthouse")
    read(research, "f", FERRY, "Tarn ferry company")
    assert research.evidence[first]
    lighthouse = [i for i in research.evidence[second] if research.ledger.get(i).url.endswith("/l")]
    assert lighthouse == []
    alone = Research(plan, EvidenceLedger(), memory_service, max_rounds=2)
    read(alone, "l", LIGHTHOUSE, "The Orvel lighthouse")
    assert alone.evidence[second]


#: Two parts about one broadcaster; no page read names it.
BROADCASTER = (
    "What kind of audience surveys did the Velmar network begin using in the 1970s, and "
    "which programmes did the Velmar network make for younger audiences?"
)
#: A page on a television drama that shares the parts' other words.
DRAMA = """# The Lantern Keepers

The Lantern Keepers was a drama made in the 1970s for younger audiences. Its writers read
the letters of viewers and began using them to plan each series. The programmes were
filmed in a studio by the sea, and surveys of the audience praised the music.
"""
#: A page on something else that says a few of those words.
CHOIR = """# The harbour choir

The choir sang for audiences in the harbour hall through the 1970s. Its programmes were
printed by the town.
"""


def test_a_page_the_parts_agree_on_answers_none_of_them_when_it_never_names_their_subject(
    memory_service,
):
    """Both parts rank the drama's page first by their words, but it never names the
    network they ask about: it is not the page the question is about, and neither part
    takes its sentences as the nearest answer, so the run cites nothing."""
    plan = offline_plan(BROADCASTER)
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=2)
    for name, text, title in (("d", DRAMA, "The Lantern Keepers"), ("c", CHOIR, "Harbour choir")):
        research._score(
            f"/workspace/pages/{name}.md", text, f"http://127.0.0.1:9/{name}", title, "web"
        )
    assert len(plan.subquestions) == 2
    assert all(research.evidence[s.id] == {} for s in plan.subquestions), research.evidence
