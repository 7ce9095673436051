"""A brief's requirements are listed in the report with whether each is met.

Every example is invented.
"""

from __future__ import annotations

from research.requirements import BRIEF_HEADER, brief_requirements, judge, pages_wanted
from subagents.generate.notes import Draft, Point, Section, Table
from subagents.generate.report import brief_section

_ASKED = "\n".join(
    [
        "How did the Orvel ferry change the valley?",
        "",
        BRIEF_HEADER,
        "- Brief: the ferry: For the history club · Length wanted: 3 pages",
        "- Length wanted: 3 pages",
        "- What the report should cover: the toll bridge, the salt trade and the floods.",
        "- Notes for the writer: Mention the lighthouse keepers' strike.",
    ]
)


def test_the_requirements_are_the_bullets_under_the_brief_header_without_bundles() -> None:
    assert brief_requirements(_ASKED) == [
        "Length wanted: 3 pages",
        "What the report should cover: the toll bridge, the salt trade and the floods.",
        "Notes for the writer: Mention the lighthouse keepers' strike.",
    ]
    assert brief_requirements("How did the Orvel ferry change the valley?") == []
    assert pages_wanted(_ASKED) == (3, 3)
    assert pages_wanted("Length wanted: 2 to 5 pages") == (2, 5)


def test_a_requirement_is_covered_partly_covered_or_not_by_what_the_report_says() -> None:
    wanted = "What the report should cover: the toll bridge, the salt trade and the floods."
    full = "The toll bridge opened in 1820. Salt trade moved upstream. Floods closed the ford."
    assert judge(wanted, full).status == "covered"
    part = judge(wanted, "The toll bridge opened in 1820 and the salt trade grew.")
    assert part.status == "partly covered" and part.missing == ("floods",)
    none = judge(wanted, "The ferry carried cattle.")
    assert none.status == "not covered" and set(none.missing) == {
        "toll",
        "bridge",
        "salt",
        "floods",
    }
    assert judge("Length wanted: 3 pages", "").status == "length"


def test_the_report_lists_each_requirement_with_its_verdict_judged_on_its_own_text() -> None:
    draft = Draft(
        title="The Orvel ferry",
        lead=[Point(["The toll bridge replaced the ferry in 1820."])],
        sections=[
            Section(
                "How did the Orvel ferry change the valley?",
                [Point(["The salt trade moved to the bridge road."])],
                [Table(["Year", "Floods"], [["1831", "2"]])],
            ),
            Section(
                "Limits of this report",
                [Point(["The lighthouse keepers' strike."])],
                kind="not_found",
            ),
        ],
    )
    section = brief_section(_ASKED, draft, "en")
    assert section is not None and section.heading == "What the brief asked"
    lines = [p.text for p in section.points]
    assert lines == [
        "3 pages — the writer aimed at this length.",
        "the toll bridge, the salt trade and the floods. — covered.",
        "Mention the lighthouse keepers' strike. — not covered; "
        "the report does not say: lighthouse, keepers, strike.",
    ]
    assert brief_section("How did the Orvel ferry change the valley?", draft, "en") is None
    zh = brief_section(_ASKED, draft, "zh")
    assert zh is not None and zh.heading == "简报的要求" and "未涵盖" in zh.points[-1].text
