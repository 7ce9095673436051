"""A table keeps the notes under it (a sheet's caveat row, a page's "Note:") in every
format, and the report's description of a table in its Sources is never in quotation
marks: it is the report's text, not the source's."""

from __future__ import annotations

from io import BytesIO
from types import SimpleNamespace

from pptx import Presentation

from research.notes import _table
from research.tables import tables_in
from subagents.evidence import EvidenceItem
from subagents.generate.citations import Citation
from subagents.generate.html import render_html
from subagents.generate.markdown import render_markdown
from subagents.generate.notes import Cite, Point, Section, Table, parse_notes
from subagents.generate.pptx import render_pptx
from subagents.generate.report import Report, quote_shown

SHEET = """## Sheet Piers

| Pier | Length (m) |
|---|---|
| East pier | 120 |
| West pier | 135 |
| Sum of the rows above | 255 |

The lengths are rounded to the metre and leave out the landing ramps.
"""

PAGE = """# Piers of the bay

| Pier | Length (m) |
|---|---|
| East pier | 120 |
| West pier | 135 |

Note: lengths measured at low tide.

The piers were rebuilt after the storm.
"""


def test_a_sheets_caveat_row_stays_with_its_table():
    (found,) = tables_in(SHEET, sheets=True)
    assert found.rows[-1][0] == "Sum of the rows above"
    assert found.notes == ["The lengths are rounded to the metre and leave out the landing ramps."]
    assert SHEET[found.start : found.end].endswith("leave out the landing ramps.")
    (on_a_page,) = tables_in(PAGE)  # a note stays; the paragraph after it is the page's
    assert on_a_page.notes == ["Note: lengths measured at low tide."]
    assert (tables_in(SHEET)[0].notes, tables_in(SHEET)[0].end) == ([], SHEET.index("\n\nThe"))


def test_a_tables_notes_reach_the_report_between_it_and_its_caption():
    (found,) = tables_in(SHEET, sheets=True)
    item = SimpleNamespace(
        span=SHEET[found.start : found.end], page_path="/s.md", url="/userinput/piers.xlsx"
    )
    research = SimpleNamespace(
        found_tables={"ev-000000000001": found},
        item=lambda ev_id: item,
        sources={"/s.md": SimpleNamespace(title="piers.xlsx")},
    )
    notes = "\n".join(["## Piers", "", *_table(research, "ev-000000000001", "en")])
    draft = parse_notes(notes)
    (section,) = draft.sections
    (table,) = section.tables
    assert section.points == []  # the note is the table's, not a point of the section
    assert table.notes == [found.notes[0]]
    assert table.rows[-1][0] == "Sum of the rows above"
    assert table.caption.text.startswith("piers.xlsx, sheet Piers.")


def test_a_tables_description_is_never_in_quotation_marks():
    (found,) = tables_in(SHEET, sheets=True)
    span = SHEET[found.start : found.end]
    shown = quote_shown(span, "en")
    assert not shown.quoted
    assert shown.text == "Table of 3 rows with the columns Pier, Length (m), and a note under it"
    assert shown.marked() == shown.text
    assert quote_shown("The piers were rebuilt.", "en").marked() == "“The piers were rebuilt.”"
    zh = quote_shown(span, "zh")
    assert not zh.quoted and zh.text.startswith("表格（3 行）") and "“" not in zh.marked()


def _sheet_report() -> Report:
    """A report showing the sheet's table with its note, cited by the whole span."""
    (found,) = tables_in(SHEET, sheets=True)
    item = EvidenceItem(
        "/userinput/piers.xlsx",
        SHEET[found.start : found.end],
        found.start,
        found.end,
        "/workspace/sources/piers-xlsx.md",
        "ev-000000000001",
        "Sheet Piers",
    )
    table = Table(
        found.header,
        found.rows,
        Point(["piers.xlsx, sheet Piers.", Cite("#1")]),
        notes=list(found.notes),
    )
    section = Section("How long are the piers?", [], [table])
    return Report("Piers", [], [section], [Citation(1, item, "piers.xlsx")])


def test_every_format_shows_the_note_with_its_table_and_describes_it_unquoted():
    note = "The lengths are rounded to the metre and leave out the landing ramps."
    description = "Table of 3 rows with the columns Pier, Length (m), and a note under it"
    markdown = render_markdown(_sheet_report())
    body, sources = markdown.split("## Sources")
    assert body.index("| Sum of the rows above | 255 |") < body.index(note)
    assert body.index(note) < body.index("Table: piers.xlsx, sheet Piers.")
    assert f"[1] *{description}* (Sheet Piers)" in sources and "“" not in sources
    html = render_html(_sheet_report())
    assert f'<p class="table-note">{note}</p><figcaption>' in html
    assert '<em class="described">Table of 3 rows' in html and "“Table" not in html
    deck = Presentation(BytesIO(render_pptx(_sheet_report())))
    shown = [sh.text_frame.text for s in deck.slides for sh in s.shapes if sh.has_text_frame]
    assert any(note in text and "piers.xlsx, sheet Piers." in text for text in shown)
    notes = [s.notes_slide.notes_text_frame.text for s in deck.slides if s.has_notes_slide]
    assert any("\nTable of 3 rows with the columns Pier" in n for n in notes)
    assert not any("“Table" in n for n in notes)
