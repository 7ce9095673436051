"""A report's files carry a short name taken from its question, in every place they show.

The name is a slug of the question's content words (:func:`research.naming.report_name`):
the Host hands it to the writer, the files in ``reports/`` and their zip are named by it,
``run.json`` lists them, the command line prints them with the zip, and the web app's
downloads keep it. Two runs of one question keep apart: each has its own run folder.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from research.naming import MAX_CHARS, report_name


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Why did the salt pans of Vellmar close?", "salt-pans-vellmar-close"),
        # the words that frame a question ("how deep") are no content
        ("How deep is Lake Orrin, and who first sounded it?", "lake-orrin-first-sounded"),
        # accents off a Latin letter, and the letters that have none to lose
        ("When was the Café Brønholm in Ærøskøbing opened?", "cafe-bronholm-aeroskobing-opened"),
        # a Chinese question keeps its characters; words written together stay together
        ("维尔马盐场为什么关闭？", "维尔马盐场-关闭"),
        ("托尔瓦大桥是哪一年建成的？", "托尔瓦大桥-建成"),
        # nothing but question words: the report's own word, in the question's language
        ("What is it?", "report"),
        ("它是什么？", "报告"),
    ],
)
def test_a_name_is_the_questions_content_words(question: str, name: str) -> None:
    assert report_name(question) == name


def test_a_long_question_keeps_its_most_telling_words_in_order() -> None:
    question = (
        "How were the terraced vineyards of the Quillon valley built, how were they watered "
        "through the dry summers, why were many abandoned after 1890, and what grows there now?"
    )
    name = report_name(question)
    assert len(name) <= MAX_CHARS and len(name.split("-")) <= 6
    assert name.startswith("terraced-vineyards-quillon") and "1890" in name
    words = name.split("-")
    assert [w for w in question.lower().replace(",", " ").split() if w in words] == words


def test_a_name_is_safe_in_a_path_and_never_empty() -> None:
    for question in ("", "?!", "Con?", "…", "a/b\\c: <d> |e| *f*?", "x" * 300):
        name = report_name(question)
        assert name and len(name) <= MAX_CHARS, question
        assert all(ch.isalnum() or ch == "-" for ch in name), name
        assert not name.startswith("-") and not name.endswith("-") and "--" not in name
    assert report_name("Con?") not in ("con", "aux", "nul", "prn")


def test_the_offline_writer_names_each_format_by_the_context_name() -> None:
    from subagents.generate import offline

    tools = set(offline.FORMAT_TOOLS.values())
    ctx = {"question": "q", "formats": ["md", "pdf"], "name": "salt-pans-vellmar-close"}
    calls = offline.plan(ctx, [], tools)
    assert [args["out_path"] for _, args in calls] == [
        "/workspace/reports/salt-pans-vellmar-close.md",
        "/workspace/reports/salt-pans-vellmar-close.pdf",
    ]
    unnamed = offline.plan({"question": "q", "formats": ["md"]}, [], tools)
    assert unnamed[0][1]["out_path"] == "/workspace/reports/report.md"


def test_the_host_hands_the_writer_the_questions_name() -> None:
    from subagents.generate.stage import prepare

    question = "Why did the salt pans of Vellmar close?"
    desk = SimpleNamespace(
        settings=SimpleNamespace(formats=("md", "html")),
        research=SimpleNamespace(plan=SimpleNamespace(question=question)),
        requirements=lambda: question,
        notes_path="/workspace/notes/research.md",
    )
    _, ctx = prepare(desk, None, {}, {"question": question})
    assert ctx["name"] == "salt-pans-vellmar-close"


NOTES = {
    "en": (
        "Why did the salt pans of Vellmar close?",
        "# Notes: the Vellmar salt pans\n\n"
        "The salt pans of Vellmar closed in 1911 because cheaper rock salt arrived by rail.\n",
    ),
    "zh": (
        "维尔马盐场为什么关闭？",
        "# 笔记：维尔马盐场\n\n维尔马盐场在1911年关闭，因为铁路运来了更便宜的岩盐。\n",
    ),
}


def _files_only_world(folder: Path, notes: str):
    """A world whose every search source is down, with ``notes`` as the user's file."""
    from demo.web import DemoWorld

    inputs = folder / "input"
    inputs.mkdir(parents=True)
    (inputs / "notes.md").write_text(notes, encoding="utf-8")
    closed = "http://127.0.0.1:9"
    return DemoWorld("", "", inputs, closed, {}, ("127.0.0.1:9",), [])


async def test_two_runs_write_files_named_by_the_question_each_in_its_own_folder(tmp_path):
    from demo.corpus import research
    from host.display.progress import output_lines
    from host.durability.runs import read_run

    question, notes = NOTES["en"]
    world = _files_only_world(tmp_path, notes)
    runs = tmp_path / "runs"
    first = await research(question, world, runs, formats=("md", "html"))
    second = await research(question, world, runs, formats=("md", "html"))
    name = "salt-pans-vellmar-close"
    for result in (first, second):
        assert result.outputs == [
            f"/workspace/reports/{name}.md",
            f"/workspace/reports/{name}.html",
        ]
        record = json.loads((result.run.path / "internal/run.json").read_text(encoding="utf-8"))
        assert record["outputs"] == result.outputs
    assert first.run.path != second.run.path
    one, two = (Path(r.run.real_path(r.outputs[0])) for r in (first, second))
    assert one.is_file() and two.is_file() and one != two
    # the zip beside them holds every format and the copies, under the name
    detail = read_run(first.run.path)
    assert detail.report("md") == one and detail.archive == one.with_suffix(".zip")
    with zipfile.ZipFile(detail.archive) as archive:
        names = set(archive.namelist())
    assert {f"{name}.md", f"{name}.html"} <= names
    assert any(n.startswith("copies/") for n in names)
    # the command line names each file and, last, the zip
    lines = output_lines(first)
    assert [line.split()[0] for line in lines] == ["md", "html", "zip"]
    assert lines[-1].endswith(f"{name}.zip")


async def test_a_chinese_question_names_its_files_in_chinese(tmp_path):
    from demo.corpus import read_report, research

    question, notes = NOTES["zh"]
    result = await research(question, _files_only_world(tmp_path, notes), tmp_path / "runs")
    assert result.outputs == ["/workspace/reports/维尔马盐场-关闭.md"]
    assert "1911" in read_report(result)


def test_the_web_app_downloads_each_file_by_its_name(tmp_path):
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    run = tmp_path / "runs" / "20260101-000000-000001"
    reports = run / "workspace" / "reports"
    reports.mkdir(parents=True)
    (run / "internal").mkdir()
    outputs = ["/workspace/reports/维尔马盐场-关闭.md"]
    record = {"id": run.name, "question": "维尔马盐场为什么关闭？", "outputs": outputs}
    (run / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    (reports / "维尔马盐场-关闭.md").write_text("# 维尔马盐场\n", encoding="utf-8")
    (reports / "维尔马盐场-关闭.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    app = build_app(tmp_path / "runs", Guard("127.0.0.1", 8765))
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    for fmt in ("md", "zip"):
        response = client.get(f"/runs/{run.name}/download/{fmt}")
        assert response.status_code == 200, response.text
        disposition = response.headers["content-disposition"]
        assert disposition.startswith("attachment; filename*=utf-8''")
        assert disposition.endswith(f"%E5%85%B3%E9%97%AD.{fmt}")  # …关闭.md, …关闭.zip
    assert client.get(f"/runs/{run.name}/download/pdf").status_code == 404
