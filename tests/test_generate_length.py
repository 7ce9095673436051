"""The offline writer on research notes: the brief's length is the PDF's page count,
instructions are never cited as facts, and a table sits only under the part it answers."""

from __future__ import annotations

import io
import random

import pypdf
import pytest
from generate_samples import write_page
from scripted import call_tool as call

from research.facts import first_year
from research.labels import RESEARCH_MARKER
from research.question import Focus
from research.relevance import THRESHOLD
from research.tables import Found, table_score
from research.text import Sentence, asks, is_instruction
from subagents import build_toolkit
from subagents.generate.notes import Cite, Point
from subagents.generate.writer import chronological
from subagents.results import text_of

PARTS = [
    "How was the harbour built?",
    "How was the harbour kept free of silt?",
    "Why did the harbour decline?",
    "What role does the harbour play today?",
]
_VOCABULARY = (
    "granite timber engineers merchants tides dredgers quays warehouses cranes pilots "
    "lighthouse breakwater customs ledgers ferries barges herring salt coal grain wool "
    "tariffs storms floods canals bridges railways steamers sailors guilds councils "
    "surveyors maps bells clocks chapels markets inns roads carts horses oxen gulls "
    "lanterns ropes anchors chains sluices gates basins jetties piers moorings "
    "fishermen weavers brewers bakers masons carpenters smiths coopers chandlers"
)
WORDS = _VOCABULARY.split()
TABLE = """| Year | Ships | Tonnage (t) |
|---|---|---|
| 1850 | 412 | 38,000 |
| 1870 | 655 | 61,500 |
| 1890 | 530 | 70,200 |
| 1910 | 301 | 44,900 |"""


def _sentences(rng: random.Random, n: int) -> list[str]:
    """Distinct full sentences of unrelated words, so none is merged as a repeat."""
    out = []
    for i in range(n):
        words = rng.sample(WORDS, 12)
        out.append(f"In {1800 + i * 3} the {' '.join(words[:6])} met {' '.join(words[6:])}.")
    return out


async def _research_notes(svc) -> tuple[str, str]:
    """A stored page of 80 sentences and a table, and research notes quoting them all:
    twenty candidates per part, far more than a 2–3 page report can hold."""
    rng = random.Random(7)
    sentences = _sentences(rng, 80)
    text = "# Harbour history\n\n" + " ".join(sentences) + "\n\n" + TABLE + "\n"
    page = await write_page(
        svc,
        "/workspace/pages/harbour.md",
        "http://127.0.0.1:8765/harbour",
        "Harbour history",
        text,
        [*sentences, TABLE],
    )
    ids = page.ids()
    lines = [RESEARCH_MARKER, "", "# The harbour", ""]
    lines += [f"- {sentences[i * 20]} [{ids[i * 20]}]" for i in range(4)]
    lines.append("")
    for p, part in enumerate(PARTS):
        lines += [f"## {part}", ""]
        lines += [f"- {sentences[p * 20 + k]} [{ids[p * 20 + k]}]" for k in range(1, 20)]
        lines.append("")
        if p == 0:
            lines += [TABLE, "", f"Table: Ships by year (Harbour history). [{ids[-1]}]", ""]
    notes = "/workspace/notes/research.md"
    await svc.write_text(notes, "\n".join(lines))
    return notes, page.path


@pytest.mark.parametrize(
    ("requirements", "low", "high"),
    [
        ("The harbour\n\nRequirements from the brief:\n- Length wanted: 2–3 pages", 2, 3),
        ("The harbour", 2, 4),
    ],
)
async def test_the_pdf_has_the_pages_asked_for(disk_service, requirements, low, high):
    notes, page = await _research_notes(disk_service)
    toolkit = build_toolkit("generate", service=disk_service, evidence=None, model=None)
    res = await call(
        toolkit,
        "generate_pdf",
        requirements=requirements,
        out_path="/workspace/reports/report.pdf",
        from_paths=[notes, page],
    )
    assert res.metadata["status"] == "ok", text_of(res)
    reader = pypdf.PdfReader(
        io.BytesIO(await disk_service.read_bytes("/workspace/reports/report.pdf"))
    )
    assert low <= len(reader.pages) <= high
    text = "".join(p.extract_text() for p in reader.pages)
    assert "Ships by year" in text  # the table is kept, with sentences cut to fit
    assert text.count("In 18") + text.count("In 19") < 80


async def test_a_report_its_estimate_overfills_is_written_again_to_the_pages_asked(
    disk_service, monkeypatch
):
    """The writer's estimate of a page's room can be wrong (wide text, long words): the
    printed PDF still keeps to the brief's most pages, and the Markdown says the same."""
    import subagents.generate.writer as writer

    monkeypatch.setattr(writer, "CHARS_PER_PAGE", writer.CHARS_PER_PAGE * 3)
    notes, page = await _research_notes(disk_service)
    toolkit = build_toolkit("generate", service=disk_service, evidence=None, model=None)
    requirements = "The harbour\n\nRequirements from the brief:\n- Length wanted: 2–3 pages"
    for tool, out in (("generate_pdf", "report.pdf"), ("generate_markdown", "report.md")):
        res = await call(
            toolkit,
            tool,
            requirements=requirements,
            out_path=f"/workspace/reports/{out}",
            from_paths=[notes, page],
        )
        assert res.metadata["status"] == "ok", text_of(res)
    reader = pypdf.PdfReader(
        io.BytesIO(await disk_service.read_bytes("/workspace/reports/report.pdf"))
    )
    assert 2 <= len(reader.pages) <= 3
    printed = " ".join(p.extract_text() for p in reader.pages).split()
    markdown = await disk_service.read_text("/workspace/reports/report.md")
    lines = [line for line in markdown.splitlines() if line.startswith("- In 1")]
    assert lines
    for line in lines:  # every line of the Markdown is in the PDF too
        first = line.removeprefix("- ").split()[:6]
        assert any(printed[i : i + 6] == first for i in range(len(printed))), line


INSTRUCTIONS = [
    "Show how the route changed from a V shape to a nearly straight line.",
    "End with photos from the field trip.",
    "Start with a map of the route from Hangzhou to Beijing.",
    "Use the attached field-trip plan (XLSX) and the city list (CSV) for the section on cities.",
    "请在引用时注明来源和年份。",
    # any bare verb opens one, not only the ones a brief usually asks with
    "Find out how the water was divided between north and south.",
    "Visit the old pumping station before the report is written.",
    "Draw up a list of the mills that closed.",
    # after a clause that sets the reader's case
    "If you are new to the mills, begin with the map, then follow the river downstream.",
    "When you reach Dunmere, visit the weir before the museum.",
]
STATEMENTS = [
    "End of the line was at Hangzhou, where the canal met the Qiantang River.",
    "Start of work on the Tonghui River came in 1292 under Guo Shoujing.",
    "Use of the northern canal fell after the Yellow River moved in 1855.",
    "Open water froze on the northern canal for two months each winter.",
    "Close to the summit the locks stood only a few hundred metres apart.",
    "会通河是京杭运河穿越鲁西丘陵的河段。",
    # a noun that is also a verb, before its verb; a participle opening a statement
    "Water flows north from the summit to the river mouth.",
    "Research shows that the locks saved water.",
    "If you cross the Sallow bridge, the mill stands on your left.",
    "Set in the hills, the town grew around its mill.",
    "Built in 1884, the ferry carried carts across the estuary.",
]


def test_instructions_are_told_from_statements():
    assert all(is_instruction(s) for s in INSTRUCTIONS)
    assert not any(is_instruction(s) for s in STATEMENTS)


#: Lines of notes that ask or list things to do: none states a fact.
ASKING = [
    "Question for the group: why did the barges still go by sea?",
    "To visit: the mill museum in Dunmere and the weir at Sallow.",
    "Key dates to check: 1884 (the ferry), 1931 (the town hall).",
    "为什么渡船在冬天停航？",
]


def test_a_line_that_asks_or_lists_things_to_do_is_never_a_complete_statement():
    for line in ASKING:
        assert asks(line), line
        assert not Sentence(0, len(line), line).complete, line
    for line in STATEMENTS:
        assert not asks(line), line
        assert Sentence(0, len(line), line).complete, line


def test_an_entry_of_a_list_of_clauses_ending_on_its_semicolon_is_a_statement():
    """A list that enumerates what was done ("1. 在青溪上修筑石坝，拦截溪水；") gives
    statements the report may quote; a paragraph's clause cut at a semicolon does not, nor
    does an entry naming a link, nor a lead-in ending on a colon."""
    items = [
        "在青溪上修筑石坝，拦截溪水，不使其流入北湖；",
        "the lock keepers closed the lower gates before each barge entered;",
    ]
    assert all(Sentence(0, len(t), t, kind="item").complete for t in items)
    assert not any(Sentence(0, len(t), t).complete for t in items)
    link = "[The Sallow mill](mill.html) and its weir on the river Dun;"
    assert not Sentence(0, len(link), link, kind="item").complete
    lead = "石匠提出了三个关键方案："
    assert not Sentence(0, len(lead), lead, kind="item").complete


async def test_an_instruction_in_the_notes_is_not_cited(disk_service):
    fact = "The Daicun Dam on the Wen River sent water to Nanwang, the summit of the canal."
    other = "Lakes along the summit were kept as reservoirs and let out in the dry season."
    note = INSTRUCTIONS[0]
    page = await write_page(
        disk_service,
        "/workspace/sources/talk.md",
        "/userinput/talk.pptx",
        "talk.pptx",
        f"## Slide 3: Building it\n\n{fact} {other}\n\n{note}\n",
        [fact, other, note],
    )
    a, b, c = page.ids()
    notes = "\n".join(
        [RESEARCH_MARKER, "", "# The canal", "", f"## {PARTS[1]}", "",
         f"- {note} [{c}]", f"- {fact} [{a}]", f"- {other} [{b}]", ""]
    )  # fmt: skip
    await disk_service.write_text("/workspace/notes/research.md", notes)
    toolkit = build_toolkit("generate", service=disk_service, evidence=None, model=None)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="The canal",
        out_path="/workspace/reports/report.md",
        from_paths=["/workspace/notes/research.md", page.path],
    )
    assert res.metadata["status"] == "ok", text_of(res)
    md = await disk_service.read_text("/workspace/reports/report.md")
    assert "Daicun Dam" in md and "reservoirs" in md
    assert "V shape" not in md and c not in md


def _found(rows: list[list[str]], header: list[str], section: str) -> Found:
    return Found(0, 0, header, rows, section)


def test_a_table_goes_only_under_the_part_more_than_one_row_answers():
    water = Focus.build("How was China's Beijing-Hangzhou Grand Canal kept supplied with water?")
    itinerary = _found(
        [
            ["1", "Beijing", "Tongzhou and the canal park", "Northern terminus"],
            ["2", "Tianjin", "Sancha River mouth", "Junction with the Hai River"],
            ["3", "Jining", "Nanwang water-dividing site", "Summit water supply"],
            ["4", "Yangzhou", "Grand Canal Museum", "World Heritage"],
            ["5", "Hangzhou", "Gongchen Bridge", "Southern terminus"],
        ],
        ["Day", "City", "Site to visit", "Topic"],
        "Sheet Itinerary",
    )
    supply = _found(
        [
            ["Nanwang", "Water from the Wen River divided north and south to supply the canal"],
            ["Daicun Dam", "Raised the Wen River to supply water to the canal summit"],
            ["Lakes", "Reservoirs stored water to supply the canal in the dry season"],
            ["Locks", "Kept water in the canal between releases of the water supply"],
        ],
        ["Work", "How it kept the Grand Canal supplied with water"],
        "Water supply of the Grand Canal",
    )
    assert table_score(water, itinerary, "field-trip-plan.xlsx Sheet Itinerary") < THRESHOLD
    assert table_score(water, supply, "Water supply — Grand Canal Atlas") >= THRESHOLD


def test_a_historical_part_reads_in_the_order_of_its_dates_three_digit_years_included():
    said = [
        "The Jizhou Canal (1283) and the Huitong Canal (1289) formed the summit section.",
        "The Sui joined older waterways between 605 and 610 into one system.",
        "The sections run 146–186 km and 400–524 km, and 800 men kept the locks.",
        "The oldest part is the Han Gou, cut in 486 BCE by the state of Wu.",
        "公元589年隋朝统一全国。",
    ]
    points = chronological([Point([text, Cite(f"ev-{i}")]) for i, text in enumerate(said)])
    # lengths and head counts are not years: that sentence is undated and comes last
    assert [p.text for p in points] == [said[3], said[4], said[1], said[0], said[2]]
    assert first_year("Emperor Yang reigned 604–618.") == 604
    assert first_year("It ran from 186 to 196 km.") is None


def test_a_line_the_summary_gives_is_not_repeated_in_a_section() -> None:
    """The summary gives each part's answer line; the sections give the rest of their
    evidence and do not repeat it. A section that has nothing else gives the line itself
    (a part is never left without its section), and the summary leaves it out."""
    from subagents.generate.notes import parse_notes
    from subagents.generate.writer import shape

    shared = "The harbour's council kept two basins open from 1779 onwards."
    best = "The harbour has fourteen basins in all."
    other = "Each basin has a lock keeper and a crane for cargo."
    notes = "\n".join(
        [
            RESEARCH_MARKER,
            "",
            "# The harbour",
            "",
            f"- {shared} [ev-000000000001]",
            f"- {best} [ev-000000000002]",
            "",
            "## Which basins were open in 1779?",
            "",
            f"- {shared} [ev-000000000001]",
            "",
            "## How many basins does the harbour have?",
            "",
            f"- {shared} [ev-000000000001]",
            f"- {other} [ev-000000000003]",
            f"- {best} [ev-000000000002]",
            "",
        ]
    )
    draft = shape(parse_notes(notes), "", "en")
    texts = {s.heading: [p.text.strip() for p in s.points] for s in draft.sections}
    assert texts["How many basins does the harbour have?"] == [other]
    assert texts["Which basins were open in 1779?"] == [shared]  # all it has
    assert [p.text.strip() for p in draft.lead if p.cites()] == [best]


def test_a_parts_best_line_stays_in_its_section_even_when_it_points_back() -> None:
    """A sentence opening with "This university …" is left out for the others, unless it
    is the part's best answer, which nothing else stands in for."""
    from subagents.generate.notes import parse_notes
    from subagents.generate.writer import shape

    best = "This university is made up of nine separate colleges."
    also = "That changed when the second college opened."
    others = [
        "The college library holds four million volumes.",
        "The main campus covers 140 acres along the river.",
        "The medical school stands in a district of its own.",
    ]
    lines = [f"- {best} [ev-000000000001]", f"- {also} [ev-000000000002]"]
    lines += [f"- {text} [ev-00000000001{i}]" for i, text in enumerate(others)]
    head = [RESEARCH_MARKER, "", "# The university", "", "## How many units is it made of?"]
    notes = "\n".join([*head, "", *lines, ""])
    draft = shape(parse_notes(notes), "", "en")
    (section,) = [s for s in draft.sections if s.kind == "part"]
    said = " ".join(p.text for p in section.points)
    assert best in said and also not in said


def test_a_line_that_sends_its_reader_elsewhere_is_left_out_while_others_answer() -> None:
    """A quote with "(see …)" inside it points at a page the report does not give: it is
    left out while the part has enough others, unless it is the part's best answer."""
    from subagents.generate.notes import parse_notes
    from subagents.generate.writer import shape

    best = "The weir was rebuilt in stone (see the weir's history) after the flood of 1790."
    aside = "The weir's sluices were widened (see sluices and gates) and a fish pass added."
    others = [
        "The weir holds back the river for the mill leat above the town.",
        "A keeper lowers the boards of the weir when the river rises.",
    ]
    lines = [f"- {best} [ev-000000000001]", f"- {aside} [ev-000000000002]"]
    lines += [f"- {text} [ev-00000000001{i}]" for i, text in enumerate(others)]
    head = [RESEARCH_MARKER, "", "# The weir", "", "## How does the weir work?"]
    draft = shape(parse_notes("\n".join([*head, "", *lines, ""])), "", "en")
    (section,) = [s for s in draft.sections if s.kind == "part"]
    said = " ".join(p.text for p in section.points)
    assert best in said and aside not in said and others[0] in said


def test_a_line_whose_pronoun_stands_for_nothing_it_quotes_is_left_out_of_its_part() -> None:
    """A quote whose "it" is neither its own clause's subject nor its object, with nothing
    before it to stand for, is left out while the part has others; quoted with the sentence
    that names what it stands for, it stays. The part's best answer stays either way."""
    from subagents.generate.notes import parse_notes
    from subagents.generate.writer import shape

    best = "In 1846, on the harbour board's orders, the keepers lit a lamp on it every night."
    dangling = "From there the mail went on by cart to the villages of the island."
    carried = "The ferry ran from Kell to Marra. From there the mail went on by cart."
    others = [
        "The lighthouse tower is forty metres tall and built of local granite.",
        "Its lamp was converted from oil to electricity in 1931.",
        "The keepers' cottages now house a small museum of the light.",
    ]
    lines = [f"- {best} [ev-000000000001]", f"- {dangling} [ev-000000000002]"]
    lines.append(f"- {carried} [ev-000000000003]")
    lines += [f"- {text} [ev-00000000001{i}]" for i, text in enumerate(others)]
    head = [RESEARCH_MARKER, "", "# The lighthouse", "", "## How was the light kept?"]
    notes = "\n".join([*head, "", *lines, ""])
    draft = shape(parse_notes(notes), "", "en")
    (section,) = [s for s in draft.sections if s.kind == "part"]
    said = " ".join(p.text for p in section.points)
    assert best in said and carried in said
    assert dangling not in said


def test_a_row_is_as_tall_as_its_most_wrapped_cell() -> None:
    """Short columns keep the width of their longest cell and a long notes column takes
    what they leave: a row of short names and a long note costs the lines the note wraps
    to, more than the same row without the note."""
    from subagents.generate.notes import Table
    from subagents.generate.writer import TABLE_WIDTH, column_widths, table_cost

    note = "Rebuilt after the flood of 1861, when the old weir was swept away entirely. " * 2
    rows = [[f"Lock {i}", "1790", "4.2", note.strip()] for i in range(6)]
    widths = column_widths(rows)
    assert widths[:3] == [6, 4, 3] and sum(widths) <= TABLE_WIDTH
    assert widths[3] >= TABLE_WIDTH - 13 - 1
    header = ["Lock", "Built", "Rise (m)", "Notes"]
    noted = table_cost(Table(header, rows))
    bare = table_cost(Table(header[:3], [r[:3] for r in rows]))
    assert noted >= bare + 6 * 81  # each of the six rows wraps to a second line at least


def test_a_table_the_length_cannot_hold_whole_keeps_its_first_columns_and_every_row() -> None:
    """A table of long notes beside its figures would take the length from the answers: it
    is shown with the columns that fit a line, every row and its notes under it kept."""
    from subagents.generate.notes import parse_notes
    from subagents.generate.writer import shape

    note = "Rebuilt after the flood of 1861, when the old weir was swept away and a new one"
    rows = [
        f"| Lock {i} | {1780 + i} | {3 + i / 10:.1f} | {note} near mill {i}. |" for i in range(14)
    ]
    table = ["| Lock | Built | Rise (m) | Notes |", "|---|---|---|---|", *rows]
    sentences = [
        f"The lock keeper at Lock {i} collected a toll of {i + 2} pence." for i in range(6)
    ]
    notes = "\n".join(
        [
            RESEARCH_MARKER, "", "# The locks", "", "## How were the locks run?", "",
            *(f"- {s} [ev-00000000000{i}]" for i, s in enumerate(sentences)), "",
            *table, "", "Table: Locks of the river (Lock survey). [ev-000000000099]", "",
        ]
    )  # fmt: skip
    draft = shape(parse_notes(notes), "Length wanted: one page", "en")
    (shown,) = [t for s in draft.sections for t in s.tables]
    assert shown.header == ["Lock", "Built", "Rise (m)"]
    assert len(shown.rows) == 14 and all(len(r) == 3 for r in shown.rows)
