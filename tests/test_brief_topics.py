"""A topic a brief asks the report to cover beside the question's parts: answered from the
pages and files read, in a section of its own, or said to be missing."""

from __future__ import annotations

from host.research import Research
from research.notes import research_notes, summary_lines
from research.plan import offline_plan
from research.requirements import ReportView, judge
from research.topics import Read, topic_focus, topic_quotes
from subagents.evidence import EvidenceLedger

QUESTION = "When was the Harlow ferry built, and what did it carry?"
FERRY = """# The Harlow ferry

The Harlow ferry crosses the Sallow estuary. It was built in 1884 by the
Sallow Navigation Company, whose yard at Dunmere also built its two sister boats. It
carried carts, cattle and up to sixty passengers on each crossing. In winter it carried
the mail to the islands as well.

## The chains

Two iron chains are laid on the river bed from one slipway to the other. A steam engine
on the deck turns a pair of toothed wheels that grip the chains, so the boat winds itself
from bank to bank and the tide cannot sweep it away.
"""
TOWN = """# Sallow town guide

The market square of Sallow holds a fair every September. The town hall was rebuilt in
1931 after a fire. Visitors often take the Harlow ferry across to the dunes in summer.
"""
BRIEF_TOPIC = "Cover how the ferry's chains worked."


def _read(*pages: tuple[str, str, str]) -> Research:
    research = Research(offline_plan(QUESTION), EvidenceLedger(), None, max_rounds=1)
    for path, text, title in pages:
        research._score(path, text, f"http://127.0.0.1:9{path}", title, "web")
    return research


FERRY_PAGE = ("/workspace/pages/ferry.md", FERRY, "The Harlow ferry")
TOWN_PAGE = ("/workspace/pages/town.md", TOWN, "Sallow town guide")


def test_a_topic_is_read_as_a_part_about_the_questions_subject():
    parts = [s.text for s in offline_plan(QUESTION).subquestions]
    focus = topic_focus("how the chains worked", QUESTION, parts)
    assert {"harlow", "ferri"} <= set(focus.subject) or "harlow" in focus.subject
    assert "chain" in {f.term for f in focus.facets}


def test_the_page_that_explains_a_topic_is_quoted_not_one_naming_it_in_passing():
    parts = [s.text for s in offline_plan(QUESTION).subquestions]
    focus = topic_focus("how the chains worked", QUESTION, parts)
    read = [Read(p, t, title) for p, t, title in (TOWN_PAGE, FERRY_PAGE)]
    quotes = topic_quotes(focus, read)
    assert quotes
    assert {q.path for q in quotes} == {FERRY_PAGE[0]}
    said = " ".join(FERRY[q.start : q.end] for q in quotes)
    assert "chains" in said
    # a sentence the report quotes already is not quoted again
    again = topic_quotes(focus, read, said=[FERRY[q.start : q.end] for q in quotes])
    assert not {(q.start, q.end) for q in again} & {(q.start, q.end) for q in quotes}


def test_a_sentence_sending_its_reader_elsewhere_is_no_quote_for_a_topic():
    """A sentence on the topic that points elsewhere in brackets ("(see the chains)")
    sends the reader to a page the report does not give: the topic quotes the others."""
    parts = [s.text for s in offline_plan(QUESTION).subquestions]
    focus = topic_focus("how the chains worked", QUESTION, parts)
    aside = "The Harlow ferry's chains were renewed in 1902 (see the chains), and oiled weekly."
    page = FERRY.replace("## The chains\n\n", f"## The chains\n\n{aside} ")
    quotes = topic_quotes(focus, [Read(FERRY_PAGE[0], page, FERRY_PAGE[2])])
    said = [page[q.start : q.end] for q in quotes]
    assert said and not any("(see" in q for q in said), said


def test_a_topic_nothing_read_answers_gets_no_quote():
    parts = [s.text for s in offline_plan(QUESTION).subquestions]
    focus = topic_focus("how the fares were set", QUESTION, parts)
    read = [Read(p, t, title) for p, t, title in (TOWN_PAGE, FERRY_PAGE)]
    assert topic_quotes(focus, read) == []


def test_the_notes_give_a_briefs_topic_a_section_that_covers_it():
    research = _read(FERRY_PAGE, TOWN_PAGE)
    notes = research_notes(research, requirements=[BRIEF_TOPIC])
    heading = next(line for line in notes.splitlines() if "chains worked" in line)
    assert heading.startswith("## ")
    section = notes.split(heading, 1)[1].split("\n## ", 1)[0]
    quoted = [line for line in section.splitlines() if line.startswith("- ")]
    assert quoted and all("[ev-" in line for line in quoted)
    for line in quoted:
        ev_id = line.rsplit("[", 1)[1].rstrip("]")
        assert research.item(ev_id).page_path == FERRY_PAGE[0]
    view = ReportView(
        tuple(line[2:] for line in quoted),
        headings=(heading[3:],),
        contexts=(heading[3:],) * len(quoted),
    )
    assert judge(BRIEF_TOPIC, view).status == "covered"


def test_a_topic_the_parts_already_say_and_one_nothing_answers_get_no_section():
    research = _read(FERRY_PAGE, TOWN_PAGE)
    notes = research_notes(
        research, requirements=["Cover what the ferry carried.", "Cover how the fares were set."]
    )
    headings = [line for line in notes.splitlines() if line.startswith("## ")]
    assert not any("carried" in h and not h.startswith("## When") for h in headings[2:])
    assert not any("fares" in h for h in headings)


QUESTION_ZH = "哈洛渡船是哪一年建造的？它运送什么？"
FERRY_ZH = """# 哈洛渡船

哈洛渡船往来于萨洛河口两岸。它于1884年由萨洛航运公司建造，该公司在邓米尔的船厂还建造了两艘姊妹船。它每次运送马车、牛群和最多六十名乘客。

## 铁链

两条铁链从一侧的码头铺到另一侧的码头，沉在河床上。船上的蒸汽机带动一对齿轮咬住铁链，渡船便沿着铁链从一岸驶向另一岸，潮水无法把它冲走。
"""
TOWN_ZH = """# 萨洛镇指南

萨洛镇的集市广场每年九月举办集会。镇政厅在1931年的一场火灾后重建。夏天游客常乘哈洛渡船去对岸的沙丘。
"""


def test_a_chinese_briefs_topic_is_quoted_from_the_page_that_explains_it():
    research = Research(offline_plan(QUESTION_ZH), EvidenceLedger(), None, max_rounds=1)
    for path, text, title in (
        ("/workspace/pages/ferry.md", FERRY_ZH, "哈洛渡船"),
        ("/workspace/pages/town.md", TOWN_ZH, "萨洛镇指南"),
    ):
        research._score(path, text, f"http://127.0.0.1:9{path}", title, "web")
    notes = research_notes(research, requirements=["请说明渡船的铁链如何运作。"])
    heading = next(line for line in notes.splitlines() if "铁链" in line and line.startswith("## "))
    section = notes.split(heading, 1)[1].split("\n## ", 1)[0]
    quoted = [line for line in section.splitlines() if line.startswith("- ")]
    assert quoted and all("铁链" in line for line in quoted)
    for line in quoted:
        ev_id = line.rsplit("[", 1)[1].rstrip("]")
        assert research.item(ev_id).page_path == "/workspace/pages/ferry.md"


HARBOUR = """# The Kelby lighthouse

The Kelby lighthouse was first lit in 1852 by the keeper Anna Roe. The Kelby
lighthouse was last lit in 1961, when a buoy with a lamp took its place.
"""


def _light(question: str) -> Research:
    research = Research(offline_plan(question), EvidenceLedger(), None, max_rounds=1)
    research._score("/workspace/pages/light.md", HARBOUR, "http://127.0.0.1:9/l", "Kelby", "web")
    return research


def _lines(question: str) -> dict[str, list[str]]:
    research = _light(question)
    return {research.item(ev).span: ids for ev, ids in summary_lines(research).items()}


def test_one_line_answers_two_parts_only_with_an_answer_for_each():
    """ "When and by whom …": the line gives the date and the name, one line for both
    parts. Two parts asking when two things happened are not both answered by the first
    line's date: the second part has its own line."""
    both = _lines("When and by whom was the Kelby lighthouse first lit?")
    assert list(both.values()) == [["q1", "q2"]]
    assert "1852" in next(iter(both))
    apart = _lines("When was the Kelby lighthouse first lit, and when was it last lit?")
    assert len(apart) == 2, apart
    assert next(s for s, ids in apart.items() if ids == ["q2"]).count("1961") == 1


def test_a_line_giving_one_date_answers_one_when_though_two_parts_take_it():
    """Both lines are evidence for both parts (each names the lighthouse and a date):
    the first part's line gives 1852, which answers no second "when" beside it; the
    second part is summed up by its own line."""
    research = _light("When was the Kelby lighthouse first lit, and when was it last lit?")
    first, last = (next(iter(research.evidence[s.id])) for s in research.plan.subquestions)
    for sub in research.plan.subquestions:
        research.evidence[sub.id] = {first: 1.0, last: 1.0}
    lines = summary_lines(
        research, choose=lambda _, sub_id, ids: last if sub_id == "q2" else ids[0]
    )
    assert lines == {first: ["q1"], last: ["q2"]}


def test_a_line_another_part_would_not_choose_never_answers_it():
    """A page that answers one part lends every part its best sentences: the first part's
    line, which names a keeper, is among the second part's evidence, but the second
    part's own choice is another line, so the second part is summed up by that one, not
    by the first part's for the name it happens to hold."""
    research, first, last = _first_and_last_lit(
        "When was the Kelby lighthouse first lit, and who keeps it today?"
    )
    lines = summary_lines(research, choose=_second_picks(last))
    assert lines == {first: ["q1"], last: ["q2"]}
    shared = summary_lines(research, choose=lambda _, sub_id, ids: first if first in ids else None)
    assert shared == {first: ["q1", "q2"]}, "a line both parts choose, naming the keeper"


def test_two_parts_split_from_one_clause_share_the_line_that_surely_answers_both():
    """ "When and by whom was it first lit?" asks of one event twice: when the second
    part's own pick gives no name in the role asked, the line giving the date and "by the
    keeper …" answers both parts."""
    research, first, last = _first_and_last_lit(
        "When and by whom was the Kelby lighthouse first lit?"
    )
    assert [s.id for s in research.plan.subquestions] == ["q1", "q2"]
    assert summary_lines(research, choose=_second_picks(last)) == {first: ["q1", "q2"]}


def test_a_part_whose_only_line_sums_up_another_part_shares_it():
    """A part whose every quote is already another part's summary line has no line of
    its own, and its section repeats no summary line: the line it would choose answers
    it too, said once, rather than the part vanishing from the report."""
    research, first, _ = _first_and_last_lit(
        "When was the Kelby lighthouse first lit, and why did a buoy replace it?"
    )
    research.evidence["q2"] = {first: 1.0}
    assert summary_lines(research, choose=lambda _, sub_id, ids: ids[0]) == {first: ["q1", "q2"]}


def _first_and_last_lit(question: str):
    """The harbour page's research for ``question``, every part given the lines on when
    the lighthouse was first and last lit as its evidence, each as likely to hold its
    answer; and those two lines' ids."""
    research = _light(question)
    path = "/workspace/pages/light.md"
    first, last = (
        research.cite(path, start := HARBOUR.index(s), start + len(s)).id
        for s in (
            "The Kelby lighthouse was first lit in 1852 by the keeper Anna Roe.",
            "The Kelby\nlighthouse was last lit in 1961, when a buoy with a lamp took its place.",
        )
    )
    for sub in research.plan.subquestions:
        research.evidence[sub.id] = {first: 1.0, last: 1.0}
        research.likelihood[sub.id] = {first: 0.5, last: 0.5}
    return research, first, last


def _second_picks(line: str):
    """A chooser by which the second part picks ``line`` and every other part its first
    quote."""
    return lambda _, sub_id, ids: line if sub_id == "q2" and line in ids else ids[0]


def test_a_topics_heading_after_a_comparison_is_the_topic_alone():
    """A comparison has no single subject: a brief's topic is headed by itself, not after
    the word that frames the comparison ("difference: how the chains worked"); a question
    about one thing lends it that thing."""
    from research.topics import topic_heading

    compared = "What is the difference between the Harlow ferry and the Dunmere ferry?"
    assert topic_heading("how the chains worked", compared) == "How the chains worked"
    assert topic_heading("铁链如何运作", "哈洛渡船和萨洛渡船有什么区别？") == "铁链如何运作"
    assert topic_heading("how the chains worked", QUESTION) == "Harlow ferry: how the chains worked"


def test_a_topics_heading_after_a_comparison_names_the_side_its_quotes_name():
    """Quotes on one side only lend that side to a topic's heading, so that "Shipping"
    under a comparison of two canals says whose shipping; quotes on both, or neither,
    lend what the brief is about, when its title says; every heading the notes may give
    is one the writer recognises."""
    from research.topics import brief_subject, is_topic_heading, topic_heading

    compared = "Which is older, the Harlow ferry or the Dunmere ferry?"
    harlow = ["The Harlow ferry still carries cars across the estuary.", "It runs hourly."]
    both = [*harlow, "The Dunmere ferry carries only foot passengers."]
    assert topic_heading("shipping", compared, harlow) == "Harlow ferry: shipping"
    assert topic_heading("shipping", compared, both) == "Shipping"
    assert topic_heading("shipping", compared, ["Boats run hourly."]) == "Shipping"
    # failing a side, what the brief is about, by its title
    about = brief_subject("# Research brief: the Sallow estuary\n\nCover shipping.")
    assert about == "Sallow estuary"
    assert topic_heading("shipping", compared, both, about) == "Sallow estuary: shipping"
    assert topic_heading("shipping", "What did the Harlow ferry carry?", both, about) == (
        "Harlow ferry: shipping"
    )
    for quoted, lent in ((harlow, ""), (both, ""), (both, about)):
        heading = topic_heading("shipping", compared, quoted, lent)
        assert is_topic_heading(heading, "shipping", compared)


def test_the_demos_comparison_heads_the_briefs_topics_with_no_frame_word(tmp_path):
    """The demo's brief asks for topics the lock question does not: their sections are
    headed by the topics as the brief words them, after what the brief is about (its
    title's "the Grand Canal"), none by "difference"."""
    from research_support import run_demo

    question = "What is the difference between a pound lock and a flash lock?"
    _, result, _ = run_demo(tmp_path, question, formats=("md",))
    (markdown,) = result.outputs
    report = result.run.real_path(markdown).read_text(encoding="utf-8")
    headings = [line[3:] for line in report.splitlines() if line.startswith("## ")]
    assert not [h for h in headings if h.lower().startswith("difference")], headings
    assert "Grand Canal: how the locks worked" in headings, headings
