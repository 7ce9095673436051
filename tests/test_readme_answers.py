"""The README's demo questions, each answered by an answer line that states the demo's
facts for it.

Each question the README tells a newcomer to ask the demo with ``--question`` is listed
here with the words its summary's answer line must say (the demo site is this project's
own invented content). A question the README lists and this file does not fails the
first test, so a new README example comes with what its answer must say. The questions
whose summary lines do not all answer yet are listed in :data:`NOT_YET`, with what is
wrong. A part no page of the site answers is listed with :data:`UNANSWERED`: its section
must say that no source answers it closely, and no summary line may stand for it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: A part of a README question that no page of the demo site answers.
UNANSWERED = None
#: Per README question, the words each part's answer line must say, in plan order.
EXPECTED: dict[str, list[tuple[str, ...] | None]] = {
    "When and by whom was the Grand Canal first built?": [("486 BCE",), ("Wu",)],
    "How was the Grand Canal kept supplied with water?": [("Daicun Dam",)],
    "Why did the Beijing-Hangzhou Grand Canal decline?": [("1855", "Yellow River")],
    "How do locks on the Grand Canal work?": [("gate", "chamber")],
    "What is the eastern route of the South-North Water Transfer Project?": [
        ("eastern route", "Grand Canal")
    ],
    "京杭大运河今天发挥着什么作用？": [("世界遗产", "航道")],
    # one line per side, each with its own figure; the comparison shares the line that
    # names both
    "Which is longer, the Grand Canal or the Erie Canal?": [
        ("1,794",),
        ("584",),
        ("Grand Canal", "Erie Canal"),
    ],
    # the newer of two dated figures
    "How much freight does the Grand Canal carry today?": [("530 million",)],
    # each kind of lock by the line that says what it is; no page says how they differ
    "What is the difference between a pound lock and a flash lock?": [
        ("chamber", "pound lock"),
        ("single gate", "flash lock"),
        UNANSWERED,
    ],
}
#: README questions whose answer lines do not all state their facts yet, and why.
NOT_YET = {
    "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？": (
        "the water part's line names the dam as a heritage site rather than saying how it "
        "fed the summit"
    ),
}
#: README questions the demo site holds nothing on: the run must say so and cite nothing.
OFF_SITE = ("How do heat pumps work?",)


def readme_questions() -> list[str]:
    """The questions the README's quick start asks the demo with ``--question``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r'demo --question "([^"]+)"', text)


def test_every_readme_question_is_listed_with_what_its_answer_says():
    asked = readme_questions()
    assert asked
    assert set(asked) == set(EXPECTED) | set(NOT_YET) | set(OFF_SITE)


@pytest.mark.parametrize("question", sorted(EXPECTED))
def test_each_part_of_a_readme_question_opens_with_a_line_stating_its_facts(tmp_path, question):
    from research_support import run_demo

    _, result, _ = run_demo(tmp_path, question, formats=("md",))
    (markdown,) = result.outputs
    report = result.run.real_path(markdown).read_text(encoding="utf-8")
    summary = [line for line in report.split("\n## ")[0].splitlines() if line.startswith("- ")]
    expected = EXPECTED[question]
    parts = result.plan.subquestions
    assert len(parts) == len(expected), [s.text for s in parts]
    wanted = [words for words in expected if words is not UNANSWERED]
    for words in wanted:
        line = next((ln for ln in summary if all(w in ln for w in words)), None)
        assert line is not None, (words, summary)
        assert re.search(r"\[\d+\]$", line), line  # the line is cited
    for sub, words in zip(parts, expected, strict=True):
        if words is UNANSWERED:
            section = report.split(f"\n## {sub.text}\n", 1)[1].lstrip()
            assert section.startswith("> Partly answered: no source found answers it"), section
    # no line stands for a part without stating its facts: a line answers a part or more
    stray = [ln for ln in summary if not any(all(w in ln for w in ws) for ws in wanted)]
    assert len(summary) <= len(wanted) and not stray, summary


@pytest.mark.parametrize("question", OFF_SITE)
def test_a_readme_question_the_demo_site_cannot_answer_cites_nothing(tmp_path, question):
    """Nothing on the demo's site answers it: the run exits 3, and its report quotes and
    cites nothing, and says that no part was answered."""
    from research_support import run_demo

    _, result, _ = run_demo(tmp_path, question, formats=("md",))
    assert result.exit_code == 3
    assert result.citations == 0
    (markdown,) = result.outputs
    report = result.run.real_path(markdown).read_text(encoding="utf-8")
    assert not re.search(r"\[\d+\]", report), report
    assert "No relevant evidence was found for any part of this question" in report
    assert "## What was searched" in report
    # what it says it examined is what its closing line says it read, a file once
    examined = int(re.search(r"^- (\d+) pages and files examined\.$", report, re.M).group(1))
    pages, files = map(int, re.search(r"(\d+) web pages and (\d+) files read", report).groups())
    assert examined == pages + files > 0
