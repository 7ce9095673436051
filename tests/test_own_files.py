"""A question about the user's own folder, with no web: notes, a Word document, a CSV
and a brief answer it, and every file in the folder is accounted for in ``run.json`` —
cited, used as the brief, read without being quoted, unreadable, or of a type no reader
takes — and the report's limits name those it could not read."""

from __future__ import annotations

import json

import docx
import pytest
from file_support import epub_book
from odf.opendocument import OpenDocumentText
from odf.text import H, P

QUESTION = "How often did the Orvel ferry cross, and what did a crossing cost?"


def _folder(root):
    """Invented files on an invented ferry, with one file on nothing asked, one of a
    type no reader takes and one damaged Word document."""
    folder = root / "input"
    folder.mkdir()
    (folder / "brief.md").write_text(
        "# Research brief: the Orvel ferry\n\n## Notes for the writer\n\n"
        "- Explain how often the Orvel ferry crossed and what a crossing cost.\n"
        "- Use the attached landing list (CSV) for a section on landings.\n"
        "- The Orvel ferry crossed the river every forty minutes in summer.\n",
        encoding="utf-8",
    )
    (folder / "notes.md").write_text(
        "# My notes on the Orvel ferry\n\n"
        "A crossing on the Orvel ferry cost two pence for a foot passenger and a shilling "
        "for a cart in 1900.\n",
        encoding="utf-8",
    )
    doc = docx.Document()
    doc.add_heading("The Orvel ferry in winter", level=1)
    doc.add_paragraph("In winter the Orvel ferry crossed once an hour from Ardon to Belis.")
    doc.save(folder / "winter.docx")
    (folder / "landings.csv").write_text(
        "Landing,Bank,Built\nArdon,North,1788\nBelis,South,1790\n", encoding="utf-8"
    )
    (folder / "recipes.txt").write_text(
        "Knead the rye dough for ten minutes and bake it at 220 degrees for forty minutes.\n",
        encoding="utf-8",
    )
    (folder / "letter.doc").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    (folder / "broken.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 300)
    return folder


async def _offline_run(folder, tmp_path) -> tuple[str, dict[str, dict]]:
    """The report of a run on ``folder`` with no web, and each file's entry in its
    ``run.json`` by name (every file of the folder has one)."""
    from demo.corpus import read_report, research
    from demo.web import DemoWorld

    world = DemoWorld("", "", folder, "http://127.0.0.1:9", {}, ("127.0.0.1:9",), [])
    result = await research(QUESTION, world, tmp_path / "runs")
    report = read_report(result)
    assert result.exit_code == 0, report
    record = json.loads(result.run.real_path("/internal/run.json").read_text(encoding="utf-8"))
    uses = {f["path"].rsplit("/", 1)[-1]: f for f in record["files"]}
    assert sorted(uses) == sorted(p.name for p in folder.iterdir())
    return report, uses


async def test_every_file_in_the_folder_is_accounted_for(tmp_path) -> None:
    report, uses = await _offline_run(_folder(tmp_path), tmp_path)
    assert uses["brief.md"]["use"] == "brief"
    for name in ("notes.md", "winter.docx", "landings.csv"):
        assert uses[name]["use"] == "cited" and uses[name]["citations"] >= 1, (name, report)
    assert uses["recipes.txt"] == {
        "path": "/userinput/recipes.txt", "use": "read", "citations": 0, "note": ""
    }  # fmt: skip
    assert uses["letter.doc"]["use"] == "not read"
    assert "no reader for .doc files" in uses["letter.doc"]["note"]
    assert uses["broken.docx"]["use"] == "unreadable"
    assert "not a valid .docx file" in uses["broken.docx"]["note"]

    body, sources = report.split("## Sources")
    assert "two pence" in body and "once an hour" in body and "forty minutes" in body
    limits = body.split("## Limits of this report")[1].split("\n## ")[0]
    assert "recipes.txt" not in report  # read, quoted nowhere: run.json says so
    assert "Your files of a type no reader takes, not read: letter.doc." in limits
    assert "broken.docx" in limits
    assert "- Use the attached landing list (CSV) for a section on landings. — met" in body
    assert "| Ardon | North | 1788 |" in body
    for name in ("notes.md", "winter.docx", "landings.csv", "brief.md"):
        assert name in sources, name


async def test_files_that_never_name_the_questions_subject_still_answer_it(tmp_path) -> None:
    """A folder given for a question is about the question's subject though its files
    seldom name it: notes and a Word document that never say "Tarnby" answer the
    question about Tarnby's orchards, with no web, and each part cites its file."""
    from demo.corpus import parts_by_subquestion, read_report, research
    from demo.web import DemoWorld

    folder = tmp_path / "input"
    folder.mkdir()
    (folder / "notes.md").write_text(
        "# Field notes\n\nMost orchards lost trees last spring because a canker spread "
        "through pruning cuts made in wet weather.\n",
        encoding="utf-8",
    )
    doc = docx.Document()
    doc.add_heading("What to do", level=1)
    doc.add_paragraph("Growers can seal pruning cuts and prune only in dry weather.")
    doc.save(folder / "advice.docx")
    question = "Why are apple orchards in Tarnby losing trees, and what can growers do about it?"
    world = DemoWorld("", "", folder, "http://127.0.0.1:9", {}, ("127.0.0.1:9",), [])
    result = await research(question, world, tmp_path / "runs")
    report = read_report(result)
    assert result.exit_code == 0, report
    why, what = parts_by_subquestion(result.run.path)
    assert any("canker" in line.text for line in why.answer_lines), report
    assert any("seal pruning cuts" in line.text for line in what.answer_lines), report
    record = json.loads(result.run.real_path("/internal/run.json").read_text(encoding="utf-8"))
    uses = {f["path"].rsplit("/", 1)[-1]: f["use"] for f in record["files"]}
    assert uses == {"notes.md": "cited", "advice.docx": "cited"}

    # ``quartet explain`` reads the files as the run read them: the notes' line answers
    import contextlib
    import io

    from quartet.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["explain", result.run.id, "--runs-dir", str(tmp_path / "runs")]) == 0
    firsts = [block.splitlines()[:2] for block in out.getvalue().split("\n  1. ")[1:]]
    assert [head.split()[1] for head, _ in firsts] == ["evidence", "evidence"], out.getvalue()
    assert "canker" in firsts[0][1] and "seal pruning cuts" in firsts[1][1]


async def test_odt_epub_rtf_and_html_files_are_read_as_text_and_cited(tmp_path) -> None:
    """An OpenDocument text, an EPUB book, an RTF document and a saved web page in the
    folder are read as text (their headings and paragraphs, not their markup) and cited;
    a damaged .odt is listed unreadable with the reason."""
    folder = tmp_path / "input"
    folder.mkdir()
    doc = OpenDocumentText()
    doc.text.addElement(H(outlinelevel=1, text="The Orvel ferry timetable"))
    doc.text.addElement(P(text="In summer the Orvel ferry crossed every forty minutes."))
    doc.save(str(folder / "timetable.odt"))
    (folder / "fares.rtf").write_text(
        r"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\f0\b Orvel ferry fares\b0\par"
        r" A crossing on the Orvel ferry cost two pence for a foot passenger.\par}",
        encoding="ascii",
    )
    (folder / "winter.html").write_text(
        "<html><head><title>Winter</title><script>var x = 1;</script></head><body>"
        "<h1>The Orvel ferry in winter</h1>"
        "<p>In winter the Orvel ferry crossed once an hour from Ardon to Belis.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    sundays = [
        ("The Orvel ferry on Sundays", "On Sundays the Orvel ferry crossed every two hours.")
    ]
    (folder / "sundays.epub").write_bytes(epub_book(sundays))
    (folder / "broken.odt").write_bytes(b"PK\x03\x04" + b"\x00" * 300)
    report, uses = await _offline_run(folder, tmp_path)
    for name in ("timetable.odt", "sundays.epub", "fares.rtf", "winter.html"):
        assert uses[name]["use"] == "cited" and uses[name]["citations"] >= 1, (name, report)
    assert uses["broken.odt"]["use"] == "unreadable"
    assert "not a valid .odt file" in uses["broken.odt"]["note"]
    body, sources = report.split("## Sources")
    assert "forty minutes" in body and "two pence" in body and "once an hour" in body
    assert "every two hours" in body
    assert "<h1>" not in report and "rtf1" not in report and "var x" not in report
    assert "broken.odt" in body.split("## Limits of this report")[1].split("\n## ")[0]
    for name in ("timetable.odt", "sundays.epub", "fares.rtf", "winter.html"):
        assert name in sources, name


def test_the_closing_table_says_what_became_of_the_files() -> None:
    """The command line's closing table counts the files by use and names those the
    report does not quote, with why."""
    from research.inputs import told_uses

    files = [
        {"path": "/userinput/notes.md", "use": "cited", "citations": 2, "note": ""},
        {"path": "/userinput/brief.md", "use": "brief", "citations": 0, "note": ""},
        {"path": "/userinput/recipes.txt", "use": "read", "citations": 0, "note": ""},
        {"path": "/userinput/letter.doc", "use": "not read", "citations": 0,
         "note": "no reader for .doc files"},
    ]  # fmt: skip
    assert told_uses(files) == (
        "4: 1 cited, 1 brief, 1 read but not cited (recipes.txt), "
        "1 not read (letter.doc: no reader for .doc files)"
    )


def test_each_file_gets_one_use_by_what_the_run_did_with_it() -> None:
    """A brief stays a brief however often its facts are cited; a file read and cited is
    cited; one read and never quoted is read; a failed reader gives its reason; a file no
    reader was called on is not read, with its type."""
    from research.inputs import file_uses

    uses = file_uses(
        listed=["/userinput/a.md", "/userinput/b.pdf", "/userinput/c.txt", "/userinput/d.bin"],
        read=["/userinput/a.md", "/userinput/c.txt", "/userinput/brief.md"],
        failed={"/userinput/b.pdf": "b.pdf is a truncated or damaged PDF"},
        briefs=["/userinput/brief.md"],
        cited={"/userinput/a.md": 3, "/userinput/brief.md": 1, "http://x.test/": 4},
    )
    assert [(u.name, u.use, u.citations, u.note) for u in uses] == [
        ("a.md", "cited", 3, ""),
        ("b.pdf", "unreadable", 0, "b.pdf is a truncated or damaged PDF"),
        ("brief.md", "brief", 1, ""),
        ("c.txt", "read", 0, ""),
        ("d.bin", "not read", 0, "no reader for .bin files"),
    ]


def test_show_and_the_web_app_list_each_file_with_its_use(tmp_path, capsys) -> None:
    """``quartet show`` sums the files up in a line; the web app's run page lists each
    with its use, its citations and why it was not read."""
    import argparse

    from starlette.testclient import TestClient

    from quartet.cli.runs import cmd_show
    from webapp.app import build_app
    from webapp.security import Guard

    run = tmp_path / "runs" / "20260101-000000-000001"
    (run / "workspace" / "reports").mkdir(parents=True)
    (run / "internal").mkdir()
    files = [
        {"path": "/userinput/notes.md", "use": "cited", "citations": 2, "note": ""},
        {"path": "/userinput/letter.doc", "use": "not read", "citations": 0,
         "note": "no reader for .doc files"},
        {"path": "/userinput/odd", "use": "cited", "citations": "many"},  # damaged entry
        "not a file",
    ]  # fmt: skip
    record = {"id": run.name, "question": "What did the ferry cost?", "files": files}
    (run / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    args = argparse.Namespace(runs_dir=str(tmp_path / "runs"), run_id=run.name, json=False)
    assert cmd_show(args) == 0
    out = capsys.readouterr().out
    assert "Your files: 3: 2 cited, 1 not read (letter.doc: no reader for .doc files)" in out

    app = build_app(tmp_path / "runs", Guard("127.0.0.1", 8765))
    page = TestClient(app, base_url="http://127.0.0.1:8765").get(f"/runs/{run.name}").text
    assert '<span class="mono">notes.md</span> — cited (2 citations)' in page
    assert "letter.doc</span> — not read: no reader for .doc files" in page


@pytest.mark.parametrize("name", ["harlow-mill.pdf", "harlow_mill.docx", "Harlow.Mill.md"])
def test_a_file_named_after_the_subject_is_read_as_a_page_titled_by_it(name) -> None:
    """A file of the user's is titled by its name: "harlow-mill.pdf" names the Harlow
    Mill as a page titled "The Harlow Mill" does, so a sentence far from the text's own
    mention of it is about it all the same; a name that says nothing of it does not."""
    from research.document import Document
    from research.question import Focus
    from research.relevance import relevant

    focus = Focus.build("When was the Harlow Mill rebuilt after the fire?")
    filler = " ".join(f"The valley road passes farm number {i} on its way." for i in range(40))
    line = "The wheelhouse was rebuilt in 1872 after the fire, with a new iron wheel."
    text = f"# The Harlow Mill\n\nThe Harlow Mill stands on the Varn.\n\n{filler}\n\n{line}\n"

    def score(title: str) -> float:
        found = relevant(focus, Document.of(text, title), threshold=0)
        return next(s.score for s in found if s.sentence.text == line)

    assert score(name) == score("The Harlow Mill")
    assert score(name) > score("scan-0031.pdf")


def test_a_file_speaks_of_the_subject_by_a_telling_word_or_by_the_whole_head() -> None:
    """Notes that never name "Vermont" still speak of "colonies in Vermont" by "colonies";
    a head of common words ("new areas") is spoken of only whole, not by a launch pad's
    "new" and "area"."""
    from host.sources import speaks_of_subject
    from research.text import terms

    colonies, areas = tuple(terms("colonies Vermont")), tuple(terms("new areas"))
    assert speaks_of_subject("My notes", "Winter losses of colonies were high.", [colonies])
    assert not speaks_of_subject("Rockets", "A new launch pad area was built.", [areas])
    assert speaks_of_subject("Survey", "The new areas were drilled in 1970.", [areas])
