"""A run that reaches no web source says so in its notes, in the report's language, and
tells apart a report answered from the user's files from one with nothing to answer from."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from research.labels import label
from research.notes import research_notes
from research.plan import offline_plan


def findings(question: str, files: int) -> SimpleNamespace:
    """The findings of a run that read ``files`` files and found nothing relevant."""
    plan = offline_plan(question)
    parts = [s.id for s in plan.subquestions]
    sources = {
        f"/workspace/sources/f{n}.md": SimpleNamespace(
            url=f"/userinput/f{n}.md", title=f"f{n}.md", kind="file", relevant_to=set()
        )
        for n in range(files)
    }
    return SimpleNamespace(
        plan=plan,
        evidence={p: {} for p in parts},
        tables={p: {} for p in parts},
        found_tables={},
        sources=sources,
        queries={p: [] for p in parts},
        unresearched=set(),
        failures=["search_google: could not reach google at 127.0.0.1:9 (ConnectError)"],
        off_topic=lambda: [],
    )


@pytest.mark.parametrize(
    ("question", "lang"),
    [("How was the Grand Canal built?", "en"), ("京杭大运河是如何修建的？", "zh")],
)
def test_the_notes_say_once_that_no_web_source_was_reached(question, lang):
    with_files = research_notes(findings(question, files=1), no_web=True)
    assert with_files.count(label(lang, "no_web")) == 1
    lead = with_files.split("\n\n")[2]  # the marker, the title, then this
    assert lead == label(lang, "no_web")
    without = research_notes(findings(question, files=0), no_web=True)
    assert label(lang, "no_web_no_files") in without and label(lang, "no_web") not in without
    reached = research_notes(findings(question, files=1))
    assert label(lang, "no_web") not in reached
    assert label(lang, "no_web_no_files") not in reached


def test_the_chinese_words_say_the_same():
    assert label("zh", "no_web") == "无法访问任何网络来源；本报告仅依据你提供的文件作答。"
    assert label("en", "no_web") == (
        "No web source could be reached; this report answers from your files only."
    )


async def test_notes_that_answer_a_do_question_in_other_words_answer_it_with_no_web(tmp_path):
    """A user's notes that answer the question in their own words ("colony losses" for
    "colonies die") answer it from the files alone: the question's subject is the noun
    phrase before its verb, not the verb with it."""
    from demo.corpus import cited_sources, read_report, research
    from demo.web import DemoWorld

    notes = tmp_path / "input" / "notes.md"
    notes.parent.mkdir()
    notes.write_text(
        "# Reading notes: honey bees\n\n"
        "Varroa mites are the main cause of colony losses over winter.\n"
        "The region's winter losses of honey bee colonies reached 38 percent in one survey.\n",
        encoding="utf-8",
    )
    closed = "http://127.0.0.1:9"  # every search source at a closed loopback port
    world = DemoWorld("", "", notes.parent, closed, {}, ("127.0.0.1:9",), [])
    result = await research("Why do honey bee colonies die over winter?", world, tmp_path / "runs")
    report = read_report(result)
    assert result.exit_code == 0, report
    assert cited_sources(report) == ["/userinput/notes.md"]
    assert "Varroa mites" in report
