"""The reader check (``bench/bench_reader.py``) counts what it says it counts: small reports
written here, each with one fault of a kind and a clean twin, give 1 and 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from script_support import load_script

MARKER = "<!-- quartet-report: [n] markers cite the numbered Sources below -->"
COLOPHON = "<!-- quartet-colophon: when and how this report was made -->"


br = load_script("bench/bench_reader.py")


def quote(n: int, text: str, page: str = "/workspace/pages/aqueduct.md", start: int = 0) -> str:
    """A Sources line as the Markdown renderer writes it."""
    where = {"url": "http://example.org/a", "page_path": page, "start": start,
             "end": start + len(text), "title": "Aqueduct"}  # fmt: skip
    return f"  - [{n}] “{text}” <!-- {json.dumps(where)} -->"


def report(
    title: str,
    lead: list[str],
    sections: list[tuple[str, list[str]]],
    quotes: list[str],
    stored: str = "../pages/aqueduct.md",
) -> str:
    """A Markdown report laid out as the pipeline writes one."""
    blocks = [MARKER, f"# {title}"]
    if lead:
        blocks.append("\n".join(f"- {line}" for line in lead))
    for heading, lines in sections:
        blocks.append(f"## {heading}")
        if lines:
            blocks.append("\n".join(f"- {line}" for line in lines))
    if quotes:
        blocks.append("## Sources")
        head = f"- **Aqueduct** — <http://example.org/a> — [stored copy](<{stored}>)"
        blocks.append("\n".join([head, *quotes]))
    blocks += [COLOPHON, "Made by Quartet 0.1.0 on 2026-01-01 with the offline extractive brain."]
    return "\n\n".join(blocks) + "\n"


FACT = "The Brightwater Aqueduct was finished in 1870 after six years of work."
OTHER = "Its nine stone arches carry the channel across the Marl valley."


def clean_report() -> str:
    return report(
        "When was the Brightwater Aqueduct built?",
        [f"{FACT}[1]"],
        [("When was the Brightwater Aqueduct built?", [f"{OTHER}[2]"])],
        [quote(1, FACT), quote(2, "The Brightwater Aqueduct has nine stone arches.")],
    )


def test_a_clean_report_counts_nothing() -> None:
    reading = br.read_markdown(clean_report())
    assert reading.title == "When was the Brightwater Aqueduct built?"
    assert reading.lead == [FACT]
    assert sorted(reading.quotes) == [1, 2]
    assert br.subjectless_headings(reading) == []
    assert br.leaning_quotes(reading) == []
    assert br.repeated_lines(reading) == []
    assert br.navigation_quotes(reading) == []


@pytest.mark.parametrize(
    ("heading", "lacks"),
    [
        ("When?", True),
        ("Why did it fail?", True),
        ("What can farmers do about it?", True),
        ("它为何停用？", True),
        ("When was the Brightwater Aqueduct finished?", False),
        ("How many arches does the Brightwater Aqueduct have?", False),
    ],
)
def test_a_heading_without_a_subject_counts(heading: str, lacks: bool) -> None:
    text = report("The Brightwater Aqueduct", [], [(heading, [f"{FACT}[1]"])], [quote(1, FACT)])
    assert len(br.subjectless_headings(br.read_markdown(text))) == int(lacks)


def test_the_sources_and_limits_headings_are_no_parts() -> None:
    text = report(
        "The Brightwater Aqueduct",
        [],
        [("Where the sources disagree", [f"{FACT}[1]"]), ("What could not be found", ["—"])],
        [quote(1, FACT)],
    )
    assert br.subjectless_headings(br.read_markdown(text)) == []


@pytest.mark.parametrize(
    ("span", "leans"),
    [
        ("It was finished in 1870 after six years of work.", True),
        ("However, the arches cracked in the hard frost of 1901.", True),
        ("From there the water ran down to the town mill.", True),
        ("此后渡槽逐渐废弃，不再输水。", True),
        ("There were nine arches in the valley below the town.", False),
        (FACT, False),
        ("白水渡槽建成于1870年，共有九个石拱。", False),
    ],
)
def test_a_quote_that_leans_on_what_it_does_not_give_counts(span: str, leans: bool) -> None:
    text = report("The Brightwater Aqueduct", [], [("Q?", [f"{span}[1]"])], [quote(1, span)])
    assert len(br.leaning_quotes(br.read_markdown(text))) == int(leans)


def test_a_line_shown_twice_counts_once() -> None:
    heading = "When was the Brightwater Aqueduct built?"
    twice = report(heading, [f"{FACT}[1]"], [(heading, [f"{FACT}[1]", f"{OTHER}[2]"])], [])
    assert br.repeated_lines(br.read_markdown(twice)) == [FACT]
    # markup and spacing do not make a line new
    marked_fact = "The **Brightwater Aqueduct**  was finished in 1870 after six years of work."
    marked = report(heading, [f"{FACT}[1]"], [(heading, [f"{marked_fact}[1]"])], [])
    assert len(br.repeated_lines(br.read_markdown(marked))) == 1
    # a fixed label said in two sections is no repeated content
    missing = "No relevant evidence was found for this part."
    labels = report(heading, [], [("A?", [missing]), ("B?", [missing])], [])
    assert br.repeated_lines(br.read_markdown(labels)) == []


def test_the_sources_list_is_not_body() -> None:
    text = report("T", [f"{FACT}[1]"], [], [quote(1, FACT)])
    assert br.repeated_lines(br.read_markdown(text)) == []


@pytest.mark.parametrize(
    ("span", "navigates"),
    [
        ("See section 3 for the arches and their repair.", True),
        ("The arches are described on a page of their own.", True),
        ('The valley is called "the steps" (see locks and weirs).', True),
        ("Use the attached plan for the section on the route.", True),
        ("To check: the date the channel first carried water.", True),
        ("渡槽的修复过程详见下文。", True),
        (FACT, False),
        ("Visitors can see the arches from the Marl bridge.", False),
        ("Water was led to Brightwater: a drop of nine metres in all.", False),
    ],
)
def test_a_navigation_or_to_do_quote_counts(span: str, navigates: bool) -> None:
    text = report("T", [], [("Q?", [f"{span}[1]"])], [quote(1, span)])
    assert len(br.navigation_quotes(br.read_markdown(text))) == int(navigates)


def test_a_quote_read_as_its_page_stores_it(tmp_path: Path) -> None:
    """A span that is mostly links, or a check-box line, is navigation or a to-do."""
    links = "[Home](/) · [Arches](arches.html) · [Repairs](repairs.html) of 1901."
    page = f"# Aqueduct\n\n{FACT}\n\n{links}\n\n- [ ] The 1870 opening date is unconfirmed.\n"
    (tmp_path / "workspace" / "pages").mkdir(parents=True)
    (tmp_path / "workspace" / "pages" / "aqueduct.md").write_text(page, encoding="utf-8")
    fact_at, links_at = page.index(FACT), page.index(links)
    todo = "The 1870 opening date is unconfirmed."
    quotes = [
        quote(1, FACT, start=fact_at),
        quote(2, "Home · Arches · Repairs of 1901.", start=links_at),
        quote(3, todo, start=page.index(todo)),
    ]
    text = report("T", [], [("Q?", ["a[1][2][3]"])], quotes)
    reading = br.read_markdown(text)
    # the stored spans' offsets are the page's
    reading.quotes[2].where["end"] = links_at + len(links)
    found = br.navigation_quotes(reading, tmp_path)
    assert [line[:3] for line in found] == ["[2]", "[3]"]
    assert br.navigation_quotes(reading) == []  # without the page, neither shows


PART = "When was the Brightwater Aqueduct built?"


@pytest.mark.parametrize(
    ("status", "section", "limits", "shown"),
    [
        ("partly answered", [f"{FACT}[1]"], None, False),
        ("partly answered", [f"{FACT}[1]", "This part is partly answered."], None, True),
        ("not found", [], None, False),
        ("not found", ["No relevant evidence was found for this part."], None, True),
        ("not found", None, f'{PART} Searched for: "aqueduct built".', True),
        ("not researched", None, f"{PART} Not researched: the research ended", True),
        ("not researched", None, f'{PART} Searched for: "aqueduct".', False),
        ("answered", [f"{FACT}[1]"], None, True),
    ],
)
def test_a_part_whose_status_is_not_shown_counts(
    status: str, section: list[str] | None, limits: str | None, shown: bool
) -> None:
    sections = [(PART, section)] if section is not None else []
    if limits is not None:
        sections.append(("What could not be found", [limits]))
    reading = br.read_markdown(report("T", [], sections, [quote(1, FACT)]))
    parts = [{"text": PART, "status": status}]
    assert len(br.unshown_statuses(reading, parts)) == int(not shown)


def test_a_report_that_found_nothing_shows_every_part_not_found() -> None:
    nothing = (
        "No relevant evidence was found for any part of this question, so this report "
        "cites nothing."
    )
    text = "\n\n".join([MARKER, f"# {PART}", nothing, "## What was searched", f"- {PART}"])
    parts = [{"text": PART, "status": "not found"}, {"text": "Who paid?", "status": "not found"}]
    assert br.unshown_statuses(br.read_markdown(text), parts) == []


def test_requirements_not_listed_count_and_none_is_not_applicable() -> None:
    wanted = [
        "Length wanted: 2 pages",
        "What the report should cover: The repairs of 1901.",
    ]
    reading = br.read_markdown(clean_report())
    assert br.unlisted_requirements(reading, []) is None
    assert br.unlisted_requirements(reading, wanted) == wanted
    listed = report(
        "T",
        [],
        [("What the brief asked for", ["Length wanted: 2 pages", "The repairs of 1901."])],
        [],
    )
    assert br.unlisted_requirements(br.read_markdown(listed), wanted) == []


def write_run(tmp_path: Path, markdown: str, html: str, record: dict) -> Path:
    """A run folder: its Markdown and HTML reports with a chart image, a stored page
    beside the reports folder, and its ``run.json``."""
    run = tmp_path / "run"
    reports = run / "workspace" / "reports"
    reports.mkdir(parents=True)
    (run / "workspace" / "pages").mkdir()
    (run / "workspace" / "pages" / "aqueduct.md").write_text(f"# A\n\n{FACT}\n", encoding="utf-8")
    (run / "internal").mkdir()
    (run / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    (reports / "report.md").write_text(markdown, encoding="utf-8")
    (reports / "report.html").write_text(html, encoding="utf-8")
    (reports / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    return run


HTML = """<!DOCTYPE html><html><body><main>
<p>{fact}<sup><a href="#src-1">[1]</a></sup><a href="#nowhere">[9]</a></p>
<img src="chart.png" alt="chart"><img src="data:image/png;base64,AAAA" alt="dot">
<ol><li id="src-1">“{fact}” <a href="http://example.org/a">web</a>
<a class="src-stored" href="{stored}">stored copy</a></li></ol>
</main></body></html>"""


def test_links_that_break_once_the_reports_folder_is_copied_count(tmp_path: Path) -> None:
    markdown = report(PART, [], [(PART, [f"{FACT}[1]", "![Chart](chart.png)"])], [quote(1, FACT)])
    html = HTML.format(fact=FACT, stored="../pages/aqueduct.md")
    record = {"question": PART, "plan": {"subquestions": [{"text": PART, "status": "answered"}]}}
    run = write_run(tmp_path, markdown, html, record)
    found = br.check_run(br.Run(run, "demo", 0), ["md", "html"])
    # the stored copy (outside the reports folder) and the HTML anchor with no target
    assert found.links == {
        "md": ["../pages/aqueduct.md"],
        "html": ["#nowhere", "../pages/aqueduct.md"],
    }
    assert br.figures(found)["md"] == 1 and br.figures(found)["requirements"] is None
    # the same reports with the stored copy inside the folder break nothing
    inside = markdown.replace("../pages/aqueduct.md", "chart.png")
    fixed = html.replace("../pages/aqueduct.md", "chart.png").replace("#nowhere", "#src-1")
    run2 = write_run(tmp_path / "2", inside, fixed, record)
    assert br.check_run(br.Run(run2, "demo", 0), ["md", "html"]).links == {"md": [], "html": []}


def test_a_missing_format_is_broken(tmp_path: Path) -> None:
    run = write_run(tmp_path, clean_report(), "<html></html>", {"question": "T"})
    found = br.check_run(br.Run(run, "demo", 0), ["md", "pptx"])
    assert found.links["pptx"] == ["report.pptx missing"]


def test_resolves_only_inside_the_copy(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"x")
    assert br.resolves("a.png", tmp_path)
    assert br.resolves("https://example.org/x", tmp_path)
    assert br.resolves("data:image/png;base64,AAAA", tmp_path)
    assert not br.resolves("b.png", tmp_path)
    assert not br.resolves("../a.png", tmp_path / "sub")
    assert not br.resolves(f"file://{tmp_path / 'a.png'}", tmp_path / "sub")
    assert not br.resolves("#x", tmp_path, {"y"})


def test_pdf_links_and_unlinked_markers(tmp_path: Path) -> None:
    weasyprint = pytest.importorskip("weasyprint")
    html = (
        '<html><body><p>First claim.<a href="#src-1">[1]</a> Second claim.[2] '
        '<a href="../pages/aqueduct.md">stored copy</a> <a href="https://example.org/">web</a>'
        '</p><h2>Sources</h2><p id="src-1">[1] a quote</p><p>[2] another quote</p></body></html>'
    )
    path = tmp_path / "report.pdf"
    path.write_bytes(weasyprint.HTML(string=html).write_pdf())
    broken, unlinked = br.pdf_check(path)
    assert broken == ["../pages/aqueduct.md"]
    assert unlinked == 1  # [2] in the body links nowhere; the Sources' own markers are not body


def test_pptx_hyperlinks(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    box = slide.shapes.add_textbox(0, 0, 100, 100).text_frame
    for target in ("../pages/aqueduct.md", "https://example.org/"):
        run = box.add_paragraph().add_run()
        run.text = target
        run.hyperlink.address = target
    deck.save(str(tmp_path / "report.pptx"))
    assert br.pptx_broken(tmp_path / "report.pptx") == ["../pages/aqueduct.md"]


def test_the_questions_come_from_the_readme(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "# X\n\n### Other questions to ask the demo\n\nText.\n\n```bash\n"
        'bash run.sh demo --question "Who built the aqueduct?"\n'
        'bash run.sh demo --question "渡槽何时停用？"    # a note\n'
        '```\n\n```bash\nbash run.sh demo --question "Not this one?"\n```\n',
        encoding="utf-8",
    )
    assert br.demo_questions(readme) == [None, "Who built the aqueduct?", "渡槽何时停用？"]
    assert len(br.readme_questions()) >= 2  # the real README has its block


def test_the_table_has_a_row_per_report_and_totals() -> None:
    check = br.Check("Who built the aqueduct?", "en", "demo", 0, repeated=["x"], requirements=None)
    check.links = {"md": ["../a.md"]}
    lines = br.table([check, check], ["md"]).splitlines()
    assert len(lines) == 6  # header, rule, two rows, rule, totals
    assert "n/a" in lines[2] and lines[-1].split()[-1] == "2"


def test_a_quote_linked_to_its_page_is_read_as_a_quote() -> None:
    line = (
        "  - [4] [“The weir \\[old\\] held.”](<https://example.org/w#:~:text=The%20weir>)"
        ' (in Chinese) <!-- {"url": "https://example.org/w"} -->'
    )
    quote = br.quote_of(line)
    assert quote is not None and (quote.number, quote.text) == (4, "The weir [old] held.")
