"""A brief is both: its instructions are requirements, listed in the report with whether
each was met (and those not met again in its limits), and its facts are evidence like any
file's text, cited to the brief.

Every example is invented.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from host.sources import file_source
from research.brief import FACT, INSTRUCTION, OTHER, read_brief, sentence_kind
from research.notes import _asked_sections
from research.plan import offline_plan
from research.requirements import (
    BRIEF_HEADER,
    ReportView,
    brief_requirements,
    judge,
    pages_wanted,
    read_requirement,
)
from subagents.evidence import EvidenceItem
from subagents.generate.brief import answer_brief, brief_section, limits_lines, verdict_line
from subagents.generate.notes import Cite, Draft, Point, Section, Table
from subagents.generate.writer import shape

# -- instruction or fact ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "heading", "kind"),
    [
        ("Explain how the weir at Orvel was repaired after the flood.", "", INSTRUCTION),
        ("The report should fit on two pages.", "Page 1", INSTRUCTION),
        ("Please add a map of the ferry crossings.", "", INSTRUCTION),
        ("Do not quote the parish newsletter.", "Notes", INSTRUCTION),
        ("Why the ferry stopped running.", "What the report should cover", INSTRUCTION),
        ("Its owners: the salt guild and the town council.", "Topics to cover", INSTRUCTION),
        ("The toll bridge and the salt road", "What to cover", INSTRUCTION),
        ("The 1998 survey of the valley counted 40 working mills.", "Notes for the writer", FACT),
        ("Water levels rose sharply in the spring of 1911.", "Background", FACT),
        ("Use of the ferry fell after the toll bridge opened in 1820.", "Background", FACT),
        ("The photo of the old landing is from the town archive.", "Notes for the writer", FACT),
        ("How did the Orvel ferry change the valley?", "Question", OTHER),
        ("Prepared for: the history club", "Research brief: the Orvel ferry", OTHER),
        ("请说明渡口停运的原因。", "", INSTRUCTION),
        ("报告应涵盖盐运和洪水。", "说明", INSTRUCTION),
        ("需要单列一节介绍沿岸城镇。", "", INSTRUCTION),
        ("盐运的兴衰", "报告应涵盖的内容", INSTRUCTION),
        ("渡口在1931年停运，此后再未恢复。", "背景", FACT),
        ("1998年的调查统计了四十座仍在运转的水磨。", "写作说明", FACT),
        ("渡口是如何改变河谷的？", "问题", OTHER),
    ],
)
def test_each_sentence_of_a_brief_is_an_instruction_a_fact_or_neither(
    sentence: str, heading: str, kind: str
) -> None:
    assert sentence_kind(sentence, heading) == kind


_BRIEF = """## Page 1

### Research brief: the Orvel ferry

Prepared for: the history club · Length wanted: 3 pages

### Question

How did the Orvel ferry change the valley?

### What the report should cover

Why the ferry stopped running.

The toll bridge, the salt trade and the floods.

### Notes for the writer

Use the attached town list (CSV) for a section on towns.

The ferry's last crossing was on 12 May 1931, after the toll bridge at Belis opened.
"""


def test_a_brief_gives_its_instructions_as_requirements_and_its_facts_as_text() -> None:
    reading = read_brief(_BRIEF)
    assert reading.requirements == [
        "Length wanted: 3 pages",
        "What the report should cover: Why the ferry stopped running.",
        "What the report should cover: The toll bridge, the salt trade and the floods.",
        "Notes for the writer: Use the attached town list (CSV) for a section on towns.",
    ]
    (fact,) = reading.facts
    assert fact.text.startswith("The ferry's last crossing was on 12 May 1931")
    shown = "Read brief.pdf (PDF):\nbrief.pdf — 1 page\n" + _BRIEF
    mine = file_source("read_text_file", "/userinput/brief.md", shown)
    assert mine is not None and mine.brief and mine.requirements == reading.requirements
    # the brief's text as a source is its facts alone, under the page they are on
    assert mine.text.startswith("## Page 1\n\n### Notes for the writer\n\nThe ferry's last")
    assert "Why the ferry stopped" not in mine.text and "town list" not in mine.text


def test_a_chinese_brief_is_read_the_same_way() -> None:
    reading = read_brief(
        "# 研究任务书：渡口\n\n## 写作要求\n\n- 请说明渡口停运的原因。\n- 篇幅：两页\n"
        "- 渡口在1931年停运，此后再未恢复。\n"
    )
    assert reading.requirements == [
        "Length wanted: 两页",
        "写作要求: 请说明渡口停运的原因。",
        "写作要求: 篇幅：两页",
    ]
    assert [f.text for f in reading.facts] == ["渡口在1931年停运，此后再未恢复。"]
    assert pages_wanted("\n".join(reading.requirements)) == (2, 2)


# -- what a requirement asks for ---------------------------------------------------------


@pytest.mark.parametrize(
    ("requirement", "kind", "topic", "topics"),
    [
        ("Length wanted: 2–3 pages", "length", "", ()),
        ("Brief: Keep it to one page.", "length", "", ()),
        ("Notes: Use the list for a section on mill owners.", "section", "mill owners", ()),
        ("说明: 需要单列一节介绍沿岸城镇。", "section", "沿岸城镇", ()),
        ("Notes: Give ranges where sources disagree on dates.", "style", "disagreements", ()),
        ("说明: 来源不一致时请给出范围。", "style", "disagreements", ()),
        ("Notes: Write for a general audience.", "style", "manner", ()),
        (
            "Brief: The report should cover the floods, the toll bridge and what replaced "
            "the ferry.",
            "topic",
            "",
            ("the floods", "the toll bridge", "what replaced the ferry"),
        ),
        ("Cover: Its owners: the guild and the town.", "topic", "", ("the guild", "the town")),
        ("Cover: How the weir (the sluice) was fixed.", "topic", "", ("how the weir was fixed",)),
        ("说明: 请介绍渡口的用途、票价和航线。", "topic", "", ("渡口的用途", "票价", "航线")),
    ],
)  # fmt: skip
def test_a_requirement_is_read_as_a_length_a_section_a_style_or_topics(
    requirement: str, kind: str, topic: str, topics: tuple[str, ...]
) -> None:
    asked = read_requirement(requirement)
    assert (asked.kind, asked.topic, asked.topics) == (kind, topic, topics)


# -- verdicts ----------------------------------------------------------------------------

_VIEW = ReportView(
    sentences=(
        "The toll bridge at Belis opened in 1820.",
        "The salt trade moved to the bridge road after 1831.",
        "Floods closed the ford in the winter of 1852.",
        "Town Role",
        "Ardon Ferry landing",
    ),
    headings=("Why did the Orvel ferry stop?", "Towns", "Where the sources disagree"),
    features={"disagreements": "Where the sources disagree", "tables": "Towns", "citations": ""},
    subject="the Orvel ferry",
    lang="en",
)


@pytest.mark.parametrize(
    ("requirement", "line"),
    [
        ("Length wanted: 3 pages", "3 pages — the writer aimed at this length."),
        (
            "Cover: The toll bridge, the salt trade and the floods.",
            "The toll bridge, the salt trade and the floods. — covered.",
        ),
        (
            "Cover: The toll bridge and how the weir worked.",
            "The toll bridge and how the weir worked. — partly covered: no source gave how "
            "the weir worked.",
        ),
        (
            "Cover: The lighthouse keepers and the herring fleet.",
            "The lighthouse keepers and the herring fleet. — not covered: no source gave the "
            "lighthouse keepers or the herring fleet.",
        ),
        (
            "Cover: The floods of the 19th century.",
            "The floods of the 19th century. — covered.",
        ),
        (
            "Notes: Use the list for a section on towns.",
            "Use the list for a section on towns. — met: see “Towns”.",
        ),
        (
            "Notes: Add a section on the mill owners.",
            "Add a section on the mill owners. — not met: no source gave enough on mill owners "
            "for a section.",
        ),
        (
            "Notes: Give ranges where sources disagree.",
            "Give ranges where sources disagree. — followed: see “Where the sources disagree”.",
        ),
        (
            "Notes: Write for a general audience.",
            "Write for a general audience. — noted; how the report is written is not checked.",
        ),
        (
            "说明: 请说明渡口停运的原因。",
            "请说明渡口停运的原因。 — not checked: the brief and the report are in different "
            "languages.",
        ),
    ],
)
def test_each_requirement_is_judged_by_its_kind_with_a_verdict_that_reads(
    requirement: str, line: str
) -> None:
    assert verdict_line(judge(requirement, _VIEW), "en") == line


def test_a_topic_is_said_by_a_quote_with_the_heading_of_the_section_it_answers() -> None:
    """A section asking how the weir works answers it in the words of its sources ("the
    gate held back the race"), which need not repeat "weir" or "works"; a heading with no
    quote under it, or a quote under another heading, says nothing of the topic."""
    quote = "The keeper closed the gate and held back the race until the wheel turned."
    answered = ReportView(
        (quote,),
        headings=("How does the Orvel weir work?",),
        contexts=("How does the Orvel weir work?",),
    )
    elsewhere = ReportView(
        (quote,), headings=("How does the Orvel weir work?", "Towns"), contexts=("Towns",)
    )
    bare = ReportView((), headings=("How does the Orvel weir work?",))
    requirement = "Cover: How the weir worked."
    assert judge(requirement, answered).status == "covered"
    assert judge(requirement, elsewhere).status == "not covered"
    assert judge(requirement, bare).status == "not covered"


def test_a_topic_a_source_gave_but_the_report_left_out_is_said_so_not_as_never_given() -> None:
    found = ReportView((*_VIEW.sentences, "The weir worked by holding back the mill race."))
    verdict = judge("Cover: The toll bridge and how the weir worked.", _VIEW, found)
    assert verdict.status == "partly covered" and verdict.left_out == ("how the weir worked",)
    assert verdict_line(verdict, "en").endswith(
        "partly covered: how the weir worked left out to keep within the length."
    )
    assert limits_lines([verdict], "en") == [
        "Not done as the brief asks: how the weir worked (see “What the brief asked”)."
    ]


def test_a_section_the_notes_had_but_the_length_left_out_is_said_so() -> None:
    view = ReportView(("The toll bridge opened in 1820.",), headings=("Why did it close?",))
    found = ReportView((), headings=("Why did it close?", "Towns"))
    verdict = judge("Notes: Use the list for a section on towns.", view, found)
    assert verdict.status == "not met" and verdict.left_out == ("towns",)
    assert verdict_line(verdict, "en") == (
        "Use the list for a section on towns. — not met: the section on towns was left out "
        "to keep within the length."
    )
    assert limits_lines([verdict], "en") == [
        "Not done as the brief asks: the section on towns (see “What the brief asked”)."
    ]


def test_with_no_disagreement_to_give_a_request_for_ranges_is_not_needed() -> None:
    view = ReportView(("The toll bridge opened in 1820.",), features={"citations": ""})
    verdict = judge("Notes: Give ranges where sources disagree.", view)
    assert verdict.status == "not needed" and limits_lines([verdict], "en") == []
    assert verdict_line(verdict, "zh").endswith("——无需处理：所引来源之间没有分歧。")


def test_chinese_requirements_are_judged_on_a_chinese_report() -> None:
    view = ReportView(("1931年渡口停运，原因是贝利斯收费桥通车。",), subject="渡口", lang="zh")
    covered = judge("说明: 请说明渡口停运的原因。", view)
    assert covered.status == "covered"
    partly = judge("说明: 请介绍渡口停运的原因和票价。", view)
    assert partly.missing == ("票价",)
    assert (
        verdict_line(partly, "zh") == "请介绍渡口停运的原因和票价。——部分涵盖：没有来源说明票价。"
    )
    assert limits_lines([partly], "zh") == ["简报要求而本报告未能做到：票价（见“简报的要求”）。"]


# -- the report's sections ---------------------------------------------------------------

_ASKED = "\n".join(
    [
        "How did the Orvel ferry change the valley?",
        "",
        BRIEF_HEADER,
        "- Research brief – the ferry: Prepared for: the history club · Length wanted: 3 pages",
        "- Length wanted: 3 pages",
        "- What the report should cover: The toll bridge, the salt trade and the floods.",
        "- Notes for the writer: Mention the lighthouse keepers' strike.",
    ]
)


def _draft(limits: bool) -> Draft:
    closing = [Section("Limits of this report", [Point(["Nothing failed."])], kind="not_found")]
    return Draft(
        title="How did the Orvel ferry change the valley?",
        lead=[Point(["The toll bridge replaced the ferry in 1820."])],
        sections=[
            Section(
                "How did the Orvel ferry change the valley?",
                [Point(["The salt trade moved to the bridge road."])],
                [Table(["Year", "Floods"], [["1831", "2"]])],
            ),
            *(closing if limits else []),
        ],
    )


def test_the_requirements_are_the_bullets_under_the_brief_header_without_bundles() -> None:
    assert brief_requirements(_ASKED) == [
        "Length wanted: 3 pages",
        "What the report should cover: The toll bridge, the salt trade and the floods.",
        "Notes for the writer: Mention the lighthouse keepers' strike.",
    ]
    assert brief_requirements("How did the Orvel ferry change the valley?") == []
    assert pages_wanted(_ASKED) == (3, 3)
    assert pages_wanted("Length wanted: 2 to 5 pages") == (2, 5)


def test_the_report_lists_each_requirement_and_its_limits_say_what_it_could_not_do() -> None:
    draft = _draft(limits=True)
    closing = answer_brief(_ASKED, draft, "en")
    (brief,) = closing
    assert brief.heading == "What the brief asked"
    assert [p.text for p in brief.points] == [
        "3 pages — the writer aimed at this length.",
        "The toll bridge, the salt trade and the floods. — covered.",
        "Mention the lighthouse keepers' strike. — not covered: no source gave the "
        "lighthouse keepers' strike.",
    ]
    limits = draft.sections[-1]
    unmet = (
        "Not done as the brief asks: the lighthouse keepers' strike (see “What the brief asked”)."
    )
    assert [p.text for p in limits.points][-1] == unmet
    # a report without a limits section gets one, before the brief's
    bare = _draft(limits=False)
    made, asked = answer_brief(_ASKED, bare, "en")
    assert (made.heading, asked.heading) == ("Limits of this report", "What the brief asked")
    assert [p.text for p in made.points] == [unmet]
    assert brief_section("How did the Orvel ferry change the valley?", bare, "en") is None


# -- following the brief -----------------------------------------------------------------


def _cite(key: str) -> Point:
    return Point([f"Sentence {key} says something about the valley and its ferry. ", Cite(key)])


def test_a_section_the_brief_asks_for_keeps_its_table_or_its_topic_column_as_one_line() -> None:
    towns = Table(
        ["Year", "Town", "Role"],
        [[str(1800 + i), f"Town{i}", "A long role " * 6] for i in range(12)],
        Point(["valley-towns.csv.", Cite("ev-towns")]),
    )
    asked = _ASKED + "\n- Notes for the writer: Use the attached list for a section on towns."

    def draft(rows: int) -> Draft:
        table = Table(towns.header, towns.rows[:rows], towns.caption)
        parts = [Section(f"Part {n}?", [_cite(f"ev-{n}{k}") for k in range(8)]) for n in range(3)]
        boats = Table(
            ["Year", "Boats"], [["1800", "3"], ["1810", "5"]], Point(["Boats.", Cite("b")])
        )
        parts[0].tables.append(boats)  # a part's table: the first stays whatever it costs
        return Draft("The Orvel ferry", [], [*parts, Section("Towns", [], [table])])

    fits = shape(draft(3), asked, "en")
    (section,) = [s for s in fits.sections if s.heading == "Towns"]
    assert section.tables and section.tables[0].header == ["Year", "Town"]  # cut to a line
    tight = shape(draft(12), asked.replace("3 pages", "1 page"), "en")
    (section,) = [s for s in tight.sections if s.heading == "Towns"]
    assert not section.tables
    assert section.points[0].text == "Town: " + ", ".join(f"Town{i}" for i in range(11)) + (
        " and Town11."
    )
    assert [c.key for c in section.points[0].cites()] == ["ev-towns"]


def test_a_topic_the_brief_asks_for_comes_before_the_parts_other_extra_lines() -> None:
    asked = "\n".join(
        ["The Orvel ferry", "", BRIEF_HEADER, "- Length wanted: 1 page", "- Cover: The lime kilns."]
    )
    filler = [_cite(f"ev-{k}") for k in range(6)]
    kilns = Point(["The lime kilns above the landing burned until 1902. ", Cite("ev-kilns")])
    draft = Draft("The Orvel ferry", [], [Section("Why did the ferry close?", [*filler, kilns])])
    (part,) = shape(draft, asked, "en").sections
    assert kilns in part.points[:3], [p.text for p in part.points]


def _town_list(question: str) -> SimpleNamespace:
    """The findings of a run on ``question`` that read one file, a table of towns."""
    text = (
        "## Table\n\n| Town | County | Role |\n|---|---|---|\n"
        "| Ardon | North | Ferry landing |\n| Belis | South | Salt market |\n"
        "| Corra | South | Toll bridge |\n"
    )
    path, name = "/workspace/sources/valley-towns.md", "valley-towns.csv"
    items: dict[str, EvidenceItem] = {}

    def cite(path: str, start: int, end: int, locator: str = "") -> EvidenceItem:
        item = EvidenceItem(f"/userinput/{name}", text[start:end], start, end, path, "ev-towns")
        items[item.id] = item
        return item

    return SimpleNamespace(
        plan=offline_plan(question),
        sources={path: SimpleNamespace(url=f"/userinput/{name}", title=name, kind="file")},
        texts={path: text},
        found_tables={},
        item=items.get,
        cite=cite,
    )  # fmt: skip


TOWN_LIST = "Notes for the writer: Use the attached town list (CSV) for a section on towns."


def test_the_notes_add_a_section_the_brief_asks_for_from_a_table_about_its_topic() -> None:
    research = _town_list("How did the Orvel ferry change the valley?")
    lines = _asked_sections(research, [TOWN_LIST], {})
    assert lines[:2] == ["## Towns", ""]
    assert "| Ardon | North | Ferry landing |" in lines
    assert lines[-2] == "Table: valley-towns.csv. [ev-towns]"
    assert _asked_sections(research, ["Notes: Add a section on the mill owners."], {}) == []


async def test_a_brief_fact_answers_a_part_cited_to_the_brief(tmp_path) -> None:
    """With the web out of reach, the brief's own statement of fact answers the question,
    cited to the brief; its instruction is listed as a requirement, met."""
    from demo.corpus import read_report, research
    from demo.web import DemoWorld

    brief = tmp_path / "input" / "brief.md"
    brief.parent.mkdir()
    brief.write_text(
        "# Research brief: the Orvel ferry\n\n## Notes for the writer\n\n"
        "- Explain why the Orvel ferry stopped running.\n"
        "- The Orvel ferry stopped running in 1931 because the new toll bridge at Belis took "
        "its trade.\n",
        encoding="utf-8",
    )
    closed = "http://127.0.0.1:9"
    world = DemoWorld("", "", brief.parent, closed, {}, ("127.0.0.1:9",), [])
    result = await research("Why did the Orvel ferry stop running?", world, tmp_path / "runs")
    report = read_report(result)
    assert result.exit_code == 0, report
    assert "toll bridge at Belis took its trade" in report.split("## Sources")[0]
    assert "/userinput/brief.md" in report.split("## Sources")[1]
    assert "- Explain why the Orvel ferry stopped running. — covered." in report
    assert result.requirements == [
        "Notes for the writer: Explain why the Orvel ferry stopped running."
    ]


def test_requirements_the_report_cannot_judge_are_counted_in_one_line() -> None:
    """A brief in another language than the report's: its requirements are not checked,
    and the section on the brief lists them together with the reason said once rather
    than after each; a single one keeps its own line."""
    from subagents.generate.brief import verdict_lines

    brief = ["说明: 请说明渡口停运的原因。", "说明: 请列出沿岸的村镇。", "Length wanted: 2 pages"]
    verdicts = [judge(r, _VIEW) for r in brief]
    lines = verdict_lines(verdicts, "en")
    assert lines[-1] == (
        "Not checked, as the brief and the report are in different languages: "
        "请说明渡口停运的原因。 请列出沿岸的村镇。"
    )
    assert len(lines) == 2 and lines[0].startswith("2 pages")
    (single,) = verdict_lines(verdicts[:1], "en")
    assert single.startswith("请说明渡口停运的原因。 — not checked")


def test_a_summary_line_is_read_with_the_part_it_answers() -> None:
    """The summary gives a part's answer line, and the part's section does not repeat it:
    the line still says the topic of its part, as it would in that section ("the gate
    held back the race" says how the weir worked, under the part that asks it)."""
    question = "How did the Orvel weir work, and why was it closed?"
    asked = "\n".join([question, "", BRIEF_HEADER, "- Cover: How the weir worked."])
    line = "The keeper closed the gate and held back the race until the wheel turned."
    notes = Draft(
        question,
        [Point([line, Cite("ev-gate")])],
        [
            Section("How did the Orvel weir work?", [Point([line, Cite("ev-gate")])]),
            Section(
                "Why was the Orvel weir closed?", [Point(["It silted up in 1902.", Cite("b")])]
            ),
        ],
    )
    report = Draft(
        question,
        [Point([line, Cite("#1")])],
        [Section("Why was the Orvel weir closed?", [Point(["It silted up in 1902.", Cite("#2")])])],
    )
    (brief,) = answer_brief(asked, report, "en", notes)
    assert [p.text for p in brief.points] == ["How the weir worked. — covered."]


def test_a_brief_in_another_language_is_judged_where_the_report_says_it_in_its_words() -> None:
    """A Chinese report on an English brief: a topic its English quotes say is covered,
    a section headed in the brief's words is met; the rest cannot be judged, and the
    limits name them, as they name what was not done."""
    view = ReportView(
        ("1931年渡口停运。", "The Belis toll bridge took the ferry's trade in 1931."),
        headings=("渡口为何停运？", "Towns"),
        contexts=("渡口为何停运？", "渡口为何停运？"),
        subject="渡口",
        lang="zh",
    )
    brief = [
        "Cover: The toll bridge.",
        "Cover: The salt trade.",
        "Notes: Use the attached list for a section on towns.",
        "Notes: Add a section on the mills.",
    ]
    verdicts = [judge(r, view) for r in brief]
    assert [v.status for v in verdicts] == ["covered", "not checked", "met", "not checked"]
    assert verdicts[2].where == "Towns"
    assert limits_lines(verdicts, "zh") == [
        "简报与报告使用的语言不同、未能核对：the salt trade、“Add a section on the mills.”"
        "（见“简报的要求”）。"
    ]


def test_the_notes_add_a_section_an_english_brief_asks_of_a_chinese_report() -> None:
    """The brief's words find the table about its topic in a source written in them."""
    lines = _asked_sections(_town_list("渡口是如何改变河谷的？"), [TOWN_LIST], {})
    assert lines[:2] == ["## Towns", ""]
    assert "| Ardon | North | Ferry landing |" in lines
