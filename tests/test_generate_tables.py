"""What the Host hands the writer besides sentences: tables named by the right heading and
captioned in the report's language, disagreements written as one readable sentence, and
summary lines that stand on their own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from file_support import FileTools

from host.research import Research, Source
from host.sources import file_source
from research.disagreements import Claim, Disagreement
from research.facts import leans_on_context, points_back, refers_outside
from research.notes import _disagreement_line, research_notes, summary_choice, table_caption
from research.plan import Plan, SubQuestion, offline_plan
from research.tables import announces_table, file_title, table_after, tables_in
from subagents.evidence import EvidenceItem, EvidenceLedger
from subagents.generate.charts import chart_for
from subagents.generate.notes import Point, Table

CONTENT = Path(__file__).resolve().parent.parent / "demo" / "content"


def _sections(page: str) -> dict[str, str]:
    """By its first header cell, the name each table of a demo page gets, the page read as
    it is served and stored: its title as the first heading, then its body."""
    raw = (CONTENT / page).read_text(encoding="utf-8")
    _, front, body = raw.split("---\n", 2)
    (title,) = re.findall(r'^title: "(.*)"$', front, re.M)
    text = f"# {title}\n\n{body}"
    return {found.header[0]: found.section for found in tables_in(text)}


def test_a_table_is_named_by_a_heading_only_when_the_heading_is_about_it():
    # Under its own heading, or announced by the sentence before it: named.
    assert _sections("en/decline.md") == {"Cause": "Summary of causes"}
    assert _sections("en/route-and-sections.md") == {"Section": "The sections"}
    assert _sections("zh/chronology.md") == {"年代": "大运河大事年表"}  # "下表列出…"
    # At the end of a section on something else ("南段的延续", the southern canal after
    # the decline): the causes table is not named after it.
    assert _sections("zh/decline.md") == {"原因": ""}


def test_captions_follow_the_report_language_and_name_the_source_once():
    assert table_caption("", "大运河的衰落 — 大运河图志", "zh") == "大运河的衰落 — 大运河图志"
    # A heading that is the page's own title is not repeated.
    chronology = table_caption("大运河大事年表", "大运河大事年表 — 大运河图志", "zh")
    assert chronology == "大运河大事年表 — 大运河图志"
    cities = table_caption("主要城市（自北向南）", "大运河沿线城市 — 大运河图志", "zh")
    assert cities == "主要城市（自北向南）（大运河沿线城市 — 大运河图志）"
    assert (
        table_caption("The sections", "The route — Atlas", "en")
        == "The sections (The route — Atlas)"
    )
    assert table_caption("Sheet Sections", "canal-sections.xlsx", "en") == (
        "canal-sections.xlsx, sheet Sections"
    )
    assert table_caption("Sheet Sections", "canal-sections.xlsx", "zh") == (
        "canal-sections.xlsx，工作表 Sections"
    )
    assert file_title("/userinput/canal-sections.xlsx") == "canal sections"


def test_a_chart_of_a_file_table_is_titled_by_what_it_draws():
    table = Table(
        ["Reach", "Low (km)", "High (km)"],
        [["Upper reach", "20", "42"], ["Middle reach", "146", "186"], ["Delta", "170", "180"]],
        caption=Point(["river-reaches.xlsx, sheet Reaches."]),
    )
    assert chart_for(table).title == "Length of each reach, low and high"
    table.caption = Point(["Reach lengths along the river."])
    assert chart_for(table).title == "Reach lengths along the river"


def _claims() -> Disagreement:
    return Disagreement(
        "length",
        "km",
        [
            Claim("1,747 km", 1747, 1747, "km", "ev-000000000001", "http://a"),
            Claim("about 1,794 to 1,797 km", 1794, 1797, "km", "ev-000000000002", "http://b",
                  about=True),
            Claim("约1,800公里", 1800, 1800, "km", "ev-000000000003", "http://c", about=True),
        ],
    )  # fmt: skip


def test_a_disagreement_reads_as_one_sentence_with_each_value_cited():
    assert _disagreement_line(_claims(), "en", "canal") == (
        "- Sources give the canal's length as 1,747 km [ev-000000000001], about 1,794–1,797 km "
        "[ev-000000000002] and about 1,800 km [ev-000000000003]."
    )
    assert _disagreement_line(_claims(), "zh", "京杭大运河") == (
        "- 关于京杭大运河的全长，来源说法不一：1,747公里 [ev-000000000001]、约1,794–1,797公里 "
        "[ev-000000000002]和约1,800公里 [ev-000000000003]。"
    )
    found = _claims()
    found.claims[2].ev_id = found.claims[0].ev_id  # one source giving two values
    assert _disagreement_line(found, "en") == (
        "- Sources give the length as 1,747 km and about 1,800 km [ev-000000000001] and "
        "about 1,794–1,797 km [ev-000000000002]."
    )
    assert _disagreement_line(found, "zh", "京杭大运河") == (  # not "…和…[1]和…[2]"
        "- 关于京杭大运河的全长，来源说法不一：1,747公里或约1,800公里 [ev-000000000001]和"
        "约1,794–1,797公里 [ev-000000000002]。"
    )


@pytest.mark.parametrize(
    ("sentence", "leans"),
    [
        ("On the Grand Canal this problem was concentrated in western Shandong.", True),
        ("When the canal declined, several of them declined too.", True),
        ("After the decline of the canal it grew further as a treaty port.", True),
        ("These foreshadowed the Sui canal.", True),
        ("That changed when the Yongle Emperor moved the capital to Beijing.", True),
        ("However, the northern canal silted up.", True),
        ("因此元代漕粮以海运为主。", True),
        ("与此同时，1826年试行过的海运逐渐成为常态。", True),
        ("该段运河水源不足。", True),
        ("这些运河后来废弃。", True),
        ("In 1855 the Yellow River broke its dikes and shifted north, cutting the canal.", False),
        ("The Grand Canal is still a working waterway — but only in its southern half.", False),
        ("From Jining southwards the canal carries freight, and in Jiangsu it is busy.", False),
        ("1855年黄河在铜瓦厢决口改道，由山东入渤海，冲断会通河。", False),
        ("元代以济宁为水脊引水济运，而南旺地势更高，这正是水源不足的原因之一。", False),
    ],
)
def test_a_sentence_that_leans_on_the_one_before_is_recognised(sentence, leans):
    assert leans_on_context(sentence) is leans


def test_a_sentence_opening_by_pointing_back_is_told_from_one_that_names_its_subject():
    # Out of a part's body: a sentence that opens by pointing back.
    for opening in ["因此元代漕粮以海运为主。", "与此同时，海运成为常态。", "These came later."]:
        assert leans_on_context(opening, opening_only=True), opening
    # Kept for the body (its place is named), though never a summary line on its own.
    named = "On the Grand Canal this problem was concentrated in western Shandong."
    assert not leans_on_context(named, opening_only=True) and leans_on_context(named)


def test_a_part_body_leaves_out_a_pronoun_with_nothing_to_stand_for():
    # "it" is Tianjin in its source; after another source's sentence it would be the canal
    assert points_back("After the decline of the canal it grew further as a treaty port.")
    assert points_back("That changed when the Yongle Emperor moved the capital to Beijing.")
    assert points_back("因此元代漕粮以海运为主。")
    # "it" is neither the council nor the weir: the names before it are its own clause's
    assert points_back("In 1902, on Ada Lind's advice, the council built a weir across it.")
    # a demonstrative that names its noun reads on its own, and so does a quote carrying
    # the sentence that names what its pronoun stands for
    assert not points_back("On the Grand Canal this problem was concentrated in western Shandong.")
    assert not points_back(
        "The Kell flows west. In 1902, on Ada Lind's advice, the council built a weir across it."
    )


@pytest.mark.parametrize(
    ("text", "outside"),
    [
        # a pronoun with nothing its earlier clauses name: its own clause's subject and
        # object are not what it stands for
        ("In 1846, on the harbour board's orders, the keepers lit a lamp on it every night.", True),
        ("In its first year it carried two thousand passengers.", True),
        ("Town and county officials registered them and cut channels to the mill.", True),
        # a pointing adverb or phrase, and a demonstrative standing alone
        ("From there the mail went on by cart to the villages.", True),
        ("Here the road climbs to the pass.", True),
        ("At that time the bakers' guild held forty masters.", True),
        ("Because of this, the mill closed.", True),
        # an earlier clause names what it stands for (a relative clause, a clause joined on)
        ("The mill turned the stream into a race that carried it to the wheel.", False),
        ("The orchestra played in the hall until 1990, when it moved to the new centre.", False),
        ("The library holds a million books, and this makes it the largest in the county.", False),
        ("Pilgrims walked to the shrine and prayed there for three days.", False),
        # the sentence before, quoted with it, names it
        ("The headland juts into the bay. In 1846 the keepers lit a lamp on it.", False),
        # an existential "there", a dummy "it", a demonstrative before its noun
        ("There are three inns on the quay.", False),
        ("In winter there were no boats to the island.", False),
        ("It was decided to close the mill in 1902.", False),
        ("The new tunnel made it possible to cross the pass in winter.", False),
        ("On the island this problem was worst in winter.", False),
        # a possessive may stand for a noun before it, or lead into its clause's subject
        ("The medical school stands in a district of its own.", False),
        ("Since its founding, the society has met every spring.", False),
        ("Soon after Mara's wedding, she moved to the coast.", False),
        # Chinese: 它, 那里, 此后 as subject or object with nothing named before them
        ("1846年，看守人每晚在它上面点灯。", True),
        ("1702年以后，那里只剩下两家面包房。", True),
        ("此后，邮件改由马车运送。", True),
        ("在明代，人们在此设立了水闸。", True),
        ("1846年，其灯光可照到十海里外。", True),
        ("看守人把灯油运到塔顶，再把它倒进灯里。", False),
        ("乐团于1990年迁往新中心，并在那里演出至今。", False),
        ("学校因其藏书丰富而闻名。", False),
        ("其他面包房也在同年关门。", False),
        ("灯塔建在黑岩岬上。1846年，看守人每晚在它上面点灯。", False),
    ],
)
def test_a_word_standing_for_what_the_text_does_not_name_is_recognised(text, outside):
    assert refers_outside(text) is outside


DECLINE = "Why did China's Beijing-Hangzhou Grand Canal decline?"
DECLINE_ZH = "京杭大运河为何衰落？"
CANDIDATES = [  # as the Host ranked them for the part, best first, with their scores
    ("The Tianjin–Pukou railway, completed in 1912, ran parallel to the canal.", 1.0),
    ("When the canal declined, several of them declined too.", 0.9),
    ("The Yellow River's change of course in 1855, sea shipping and the railways brought "
     "about the decline of the northern canal.", 0.85),
    ("与此同时，海运逐渐成为常态。", 0.95),
]  # fmt: skip


def _research(memory_service, question: str, language: str) -> Research:
    plan = Plan(question, language, [SubQuestion("q1", question, [])])
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    text = " ".join(span for span, _ in CANDIDATES)
    for span, score in CANDIDATES:
        start = text.index(span)
        item = research.ledger.add(
            EvidenceItem(url="http://127.0.0.1:9/d", span=span, start=start, end=start + len(span))
        )
        research.evidence["q1"][item.id] = score
    return research


def test_the_summary_line_stands_alone_answers_why_and_speaks_the_report_language(
    memory_service,
):
    research = _research(memory_service, DECLINE, "en")
    ids = list(research.evidence["q1"])
    chosen = research.ledger.get(summary_choice(research, "q1", ids)).span
    assert chosen.startswith("The Yellow River's change of course in 1855")
    # Without the sentence that names the cause, the best-scored one that stands alone.
    rest = [i for i in ids if "1855" not in research.ledger.get(i).span]
    assert "Tianjin–Pukou" in research.ledger.get(summary_choice(research, "q1", rest)).span
    # A Chinese report's line is Chinese when the part has one (here the only one leans on
    # the sentence before it, so it is taken only for want of another).
    research = _research(memory_service, DECLINE_ZH, "zh")
    ids = list(research.evidence["q1"])
    assert research.ledger.get(summary_choice(research, "q1", ids)).span.startswith("与此同时")


#: Eight further candidates for the part, each of its own period and names.
OTHER_CAUSES = [
    "In 1000 Kaifeng merchants sent their grain along the Bian River.",
    "Around 1060 the Song court in Hangzhou doubled the tolls on barges.",
    "By 1120 floods near Xuzhou had buried three of the Huai locks.",
    "After 1180 Jurchen raids closed the crossings at Yangzhou.",
    "In 1240 Mongol armies seized the granaries of Huai'an.",
    "Around 1300 Yuan officials sent tribute rice by sea from Taicang.",
    "In 1360 Zhu Yuanzhang's wars emptied the docks at Jining.",
    "By 1420 silt from the Wei River had narrowed the channel at Linqing.",
]


def test_the_summary_line_of_a_part_is_also_in_its_section(memory_service):
    """The summary shows a part's best line; the part's section gives it too, so the
    section states every fact of its part, and the other candidates follow it."""
    plan = Plan(DECLINE, "en", [SubQuestion("q1", DECLINE, [])])
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    quotes = [
        ("http://127.0.0.1:9/index", CANDIDATES[2][0], 1.0),  # the summary's line
        *[(f"http://127.0.0.1:9/p{n}", span, 0.84) for n, span in enumerate(OTHER_CAUSES)],
    ]
    for url, span, score in quotes:
        item = research.ledger.add(EvidenceItem(url=url, span=span, start=0, end=len(span)))
        research.evidence["q1"][item.id] = score
    notes = research_notes(research)
    summary, section = notes.split(f"## {DECLINE}")
    assert "brought about the decline" in summary
    assert "brought about the decline" in section
    assert sum(1 for line in section.splitlines() if line.startswith("- ")) >= 3


STATIONS = """# Harbour railway

The line opened with six stations along the bay.

The table below lists the stations and their distance from the terminus.

| Station | Distance (km) |
|---|---|
| Quay Street | 0 |
| Saltmarsh | 4 |
| North Point | 9 |

## Later years

Passenger numbers fell after the coast road was built.
"""


@pytest.mark.parametrize(
    ("sentence", "announces"),
    [
        ("The table below lists the stations.", True),
        ("各段长度见下表。", True),
        ("The stations are listed below.", True),
        ("This table shows the results of the survey.", True),
        ("It sat at the kitchen table every day.", False),
        ("The table of contents is long.", False),
        ("人民代表中有三人。", False),
    ],
)
def test_a_sentence_that_points_to_a_table_is_recognised(sentence, announces):
    assert announces_table(sentence) is announces


def test_a_sentence_announcing_a_table_is_quoted_only_beside_that_table(memory_service):
    question = "Which stations does the harbour railway have?"
    plan = Plan(question, "en", [SubQuestion("q1", question, [])])
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    path = "/workspace/pages/harbour.md"
    research.texts[path] = STATIONS
    research.sources[path] = Source(path, "http://127.0.0.1:9/harbour", "Harbour railway", "web")
    for span, score in [
        ("The table below lists the stations and their distance from the terminus.", 0.9),
        ("The line opened with six stations along the bay.", 0.8),
    ]:
        start = STATIONS.index(span)
        item = EvidenceItem(
            url="http://127.0.0.1:9/harbour",
            span=span,
            start=start,
            end=start + len(span),
            page_path=path,
        )
        research.evidence["q1"][research.ledger.add(item).id] = score
    found = tables_in(STATIONS)[0]
    assert table_after(STATIONS, STATIONS.index("The table below")) == found
    assert table_after(STATIONS, STATIONS.index("The line opened")) is None
    # Without its table, the announcing sentence says nothing: it is left out.
    notes = research_notes(research)
    assert "The table below lists" not in notes and "six stations" in notes
    # With the table it announces shown in the part, it stays, above the table.
    item = research.ledger.add(
        EvidenceItem(
            url="http://127.0.0.1:9/harbour",
            span=STATIONS[found.start : found.end],
            start=found.start,
            end=found.end,
            page_path=path,
        )
    )
    research.found_tables[item.id] = found
    research.tables["q1"][item.id] = 0.9
    notes = research_notes(research)
    assert "The table below lists" in notes
    assert notes.index("The table below lists") < notes.index("| Quay Street | 0 |")


LOSSES_CSV = "year,colonies_surveyed,loss_percent\n" + "".join(
    f"{year},{n},{pct}\n"
    for year, n, pct in [(2019, 410, 24), (2020, 395, 19), (2021, 402, 31), (2022, 388, 27)]
)
LOSSES_NOTES = (
    "# Colony losses\n\nWinter losses of honey bee colonies ranged between 19 and 31 "
    "percent from 2019 to 2022, beekeepers reported.\n\nHoney bees are kept by beekeepers, "
    "who move their hives to orchards in spring.\n"
)


@pytest.mark.parametrize(
    "question",
    [
        "Who keeps honey bees, and how large were winter colony losses?",
        "What are honey bees, and how large were their winter colony losses?",
    ],
)
async def test_a_table_from_the_users_file_goes_under_the_part_it_answers(
    disk_service, input_dir, question
):
    """The file is taken to be about the question's subject; that lends its table the
    subject, not an answer: the first part, which asks for nothing the table says, does
    not get it however well the subject alone would match."""
    (input_dir / "losses.csv").write_text(LOSSES_CSV, encoding="utf-8")
    (input_dir / "notes.md").write_text(LOSSES_NOTES, encoding="utf-8")
    plan = offline_plan(question)
    first, second = plan.subquestions
    research = Research(plan, EvidenceLedger(), disk_service, max_rounds=1)
    tools = FileTools(disk_service)
    for tool, name in [("csv_read", "losses.csv"), ("read_text_file", "notes.md")]:
        text = await tools.text(tool, path=f"/userinput/{name}")
        await research.absorb_file(file_source(tool, f"/userinput/{name}", text))
    (table_id,) = research.found_tables
    assert table_id in research.tables[second.id]
    assert table_id not in research.tables[first.id]
    notes = research_notes(research)
    assert research.evidence[first.id], "the first part is answered, by the notes"
    head, below = notes.split(f"## {second.text}")
    assert "| 2021 | 402 | 31 |" in below.split("\n## ")[0] and "| 2021 |" not in head


async def test_a_part_only_a_table_answers_is_found_and_shows_its_table(disk_service, input_dir):
    """With no sentence for it, a part the user's spreadsheet answers is not "not found":
    its section holds the table."""
    (input_dir / "losses.csv").write_text(LOSSES_CSV, encoding="utf-8")
    plan = offline_plan("Who keeps honey bees, and how large were winter colony losses?")
    first, second = plan.subquestions
    research = Research(plan, EvidenceLedger(), disk_service, max_rounds=1)
    text = await FileTools(disk_service).text("csv_read", path="/userinput/losses.csv")
    await research.absorb_file(file_source("csv_read", "/userinput/losses.csv", text))
    assert not research.evidence[second.id] and research.tables[second.id]
    research.finished.update({first.id, second.id})  # the research is over
    assert research.coverage(second.id).status in ("answered", "partly answered")
    assert research.coverage(first.id).status == "not found"
    notes = research_notes(research)
    section = notes.split(f"## {second.text}")[1].split("\n## ")[0]
    assert "| 2021 | 402 | 31 |" in section


LIGHTHOUSE = "How was the Bell Rock Lighthouse built?"
BUILT = [
    ("In 1807, on the engineer's advice, the board built a barracks beside it on iron legs.", 1.0),
    ("Masons dressed the granite blocks ashore at Arbroath during the winters.", 0.8),
    ("The Bell Rock Lighthouse rose course by course from dovetailed granite blocks.", 0.8),
]
BUILT_ZH = [
    ("1807年，工程师建议在它旁边用铁柱搭起营房。", 1.0),
    ("贝尔礁灯塔用彼此榫接的花岗岩块逐层砌成。", 0.8),
]


def test_the_summary_line_names_the_subject_rather_than_a_pronoun(memory_service):
    """Read alone, a line's "it" stands for nothing it says: the line that names the
    subject is taken, in English and in Chinese."""
    for question, lang, candidates in [
        (LIGHTHOUSE, "en", BUILT),
        ("贝尔礁灯塔是如何建造的？", "zh", BUILT_ZH),
    ]:
        plan = Plan(question, lang, [SubQuestion("q1", question, [])])
        research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
        for n, (span, score) in enumerate(candidates):
            item = EvidenceItem(url=f"http://127.0.0.1:9/{n}", span=span, start=0, end=len(span))
            research.evidence["q1"][research.ledger.add(item).id] = score
        chosen = research.ledger.get(summary_choice(research, "q1", list(research.evidence["q1"])))
        assert chosen.span == candidates[-1][0]


def test_a_line_summing_up_two_parts_is_given_once(memory_service):
    question = "How was the Bell Rock Lighthouse built, and who built it?"
    plan = offline_plan(question)
    first, second = plan.subquestions
    research = Research(plan, EvidenceLedger(), memory_service, max_rounds=1)
    shared = "Robert Stevenson's masons built the Bell Rock Lighthouse of granite from 1807."
    own = "Robert Stevenson, engineer to the Northern Lighthouse Board, led the Bell Rock works."
    for n, (span, scores) in enumerate([(shared, (1.0, 1.0)), (own, (0.0, 0.8))]):
        item = research.ledger.add(
            EvidenceItem(url=f"http://127.0.0.1:9/{n}", span=span, start=0, end=len(span))
        )
        for sub, score in zip((first, second), scores, strict=True):
            if score:
                research.evidence[sub.id][item.id] = score
    summary = research_notes(research).split("\n## ")[0]
    assert summary.count(shared) == 1 and own in summary
