"""Every report format ends with its colophon: the run's date, Quartet's version, the brain,
and the web pages and files the run read, in the report's language."""

from __future__ import annotations

import io
import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from cli_support import written_report
from generate_samples import en_notes, en_page, pdf_text
from lxml import html as lxml_html
from pptx import Presentation
from scripted import call_tool as call

from host.orchestration.colophon import run_colophon, run_date
from host.version import quartet_version
from subagents import build_toolkit
from subagents.generate.notes import COLOPHON_MARKER, without_colophon
from subagents.generate.report import Colophon, colophon_text

REPORTS = "/workspace/reports/report"


def flat(text: str) -> str:
    """``text`` without whitespace (PDF text breaks lines where the page does)."""
    return re.sub(r"\s+", "", text)


def written(result, fmt: str) -> Path:
    """Where the run wrote its report in ``fmt`` (named after the question)."""
    return written_report(result.run.path, result.outputs, fmt)


def endings(result) -> dict[str, str]:
    """The last words a reader meets in each format of the run's report: the Markdown's
    last paragraph, the HTML's last element, the PDF's last page, the last slide's footer."""
    md = written(result, "md").read_text(encoding="utf-8")
    doc = lxml_html.fromstring(written(result, "html").read_bytes())
    (main,) = doc.xpath("//main")
    last = main[-1]
    assert last.tag == "footer" and last.get("class") == "colophon"
    deck = Presentation(written(result, "pptx"))
    slide = list(deck.slides)[-1]
    footer = min(
        (s for s in slide.shapes if s.has_text_frame and s.text_frame.text.strip()),
        key=lambda s: -s.top,
    )
    return {
        "md": md.rstrip("\n").rsplit("\n\n", 1)[-1],
        "html": last.text_content(),
        "pdf": pdf_text(written(result, "pdf").read_bytes()),
        "pptx": footer.text_frame.text,
    }


def recorded(result) -> tuple[dict, Colophon]:
    """The run's record and the colophon it should give: its date (from its id), the
    version, brain and counts ``run.json`` records."""
    record = json.loads(result.run.real_path("/internal/run.json").read_text(encoding="utf-8"))
    date = datetime.strptime(result.run.id[:8], "%Y%m%d").date().isoformat()
    want = Colophon(
        date, record["version"], record["brain"], record["pages_read"], record["files_read"]
    )
    return record, want


def assert_colophon_everywhere(result, line: str) -> None:
    ends = endings(result)
    assert ends["md"] == line, ends["md"]
    assert ends["html"] == line
    assert flat(ends["pdf"]).endswith(flat(line)) or flat(line) in flat(ends["pdf"])[-400:]
    assert ends["pptx"].startswith(line), ends["pptx"]


def test_the_demo_report_ends_with_its_colophon_in_every_format(demo_en):
    """The offline demo: the run's date, the version, the offline brain, and the counts
    run.json and the run itself keep, in all four formats."""
    host, result, _ = demo_en
    record, want = recorded(result)
    assert record["version"] == quartet_version() and record["brain"] == "offline"
    stored = list(result.run.real_path("/workspace/pages").glob("*.md"))
    assert record["pages_read"] == len(stored) > 0
    assert record["files_read"] == len(set(host.state.delegator.files_read)) > 0
    line = colophon_text(want, "en")
    assert line == (
        f"Made by Quartet {quartet_version()} on {want.date} with the offline extractive "
        f"brain; {want.pages} web pages and {want.files} files read."
    )
    assert_colophon_everywhere(result, line)
    props = Presentation(written(result, "pptx")).core_properties  # the deck's own date
    assert props.created.date().isoformat() == props.modified.date().isoformat() == want.date
    md = written(result, "md").read_text(encoding="utf-8")
    # A paragraph after the Sources, behind its marker; no heading of its own.
    sources, tail = md.split("\n## Sources\n")[1].split(f"\n{COLOPHON_MARKER}\n")
    assert sources.strip() and "\n#" not in tail and tail.strip() == line


def test_the_chinese_report_has_a_chinese_colophon(demo_zh_run):
    _, result, _ = demo_zh_run
    _, want = recorded(result)
    line = colophon_text(want, "zh")
    assert line == (
        f"本报告由 Quartet {quartet_version()} 于 {want.date} 生成，使用离线抽取式引擎；"
        f"读取了 {want.pages} 个网页和 {want.files} 个文件。"
    )
    assert_colophon_everywhere(result, line)


def test_the_colophon_names_a_model_and_counts_one_as_one():
    one = Colophon("2026-12-02", "0.1.0", "openai:gpt-4o-mini", 1, 1)
    assert colophon_text(one) == (
        "Made by Quartet 0.1.0 on 2026-12-02 with the model openai:gpt-4o-mini; "
        "1 web page and 1 file read."
    )
    assert colophon_text(one, "zh") == (
        "本报告由 Quartet 0.1.0 于 2026-12-02 生成，使用模型 openai:gpt-4o-mini；"
        "读取了 1 个网页和 1 个文件。"
    )
    none = Colophon("2026-12-02", "0.1.0", "offline", 0, 0)
    assert colophon_text(none).endswith("offline extractive brain; 0 web pages and 0 files read.")


def test_the_run_date_is_the_runs_own():
    assert run_date("20261202-235959-ab12cd") == "2026-12-02"
    made = run_colophon("20270101-000000-ab12cd", "offline", 3, ["/a.pdf", "/b.csv", "/a.pdf"])
    assert made == Colophon("2027-01-01", quartet_version(), "offline", 3, 2)


async def test_a_report_read_back_gets_only_its_own_colophon(disk_service):
    """A Markdown report turned into HTML: its colophon is no body text of the new report,
    which ends with its own; a report made outside a run has none."""
    svc = disk_service
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    old = Colophon("2026-11-30", "0.0.9", "openai:gpt-4o-mini", 7, 2)
    new = Colophon("2026-12-02", "0.1.0", "offline", 9, 3)
    args = {"requirements": "brief", "from_paths": ["/workspace/notes/en.md", page.path]}
    first = build_toolkit("generate", service=svc, evidence=None, model=None, colophon=old)
    await call(first, "generate_markdown", out_path=f"{REPORTS}.md", **args)
    md = await svc.read_text(f"{REPORTS}.md")
    assert md.endswith(f"{COLOPHON_MARKER}\n\n{colophon_text(old)}\n")
    assert without_colophon(md) == md.split(f"\n\n{COLOPHON_MARKER}")[0] + "\n"
    second = build_toolkit("generate", service=svc, evidence=None, model=None, colophon=new)
    await call(second, "generate_html", out_path=f"{REPORTS}.html", **args | {
        "from_paths": [f"{REPORTS}.md"]
    })  # fmt: skip
    doc = lxml_html.fromstring(await svc.read_bytes(f"{REPORTS}.html"))
    assert doc.xpath("//footer[@class='colophon']/p/text()") == [colophon_text(new)]
    assert "0.0.9" not in doc.text_content()
    bare = build_toolkit("generate", service=svc, evidence=None, model=None)
    await call(bare, "generate_pptx", out_path=f"{REPORTS}.pptx", **args)
    deck = Presentation(io.BytesIO(await svc.read_bytes(f"{REPORTS}.pptx")))
    words = [s.text_frame.text for sl in deck.slides for s in sl.shapes if s.has_text_frame]
    assert not [w for w in words if "Made by Quartet" in w]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_secret_in_a_model_name_is_masked(lang):
    from subagents.secrets import secret_scope

    with secret_scope(["sk-hidden-4d2a9c"]):
        line = colophon_text(Colophon("2026-12-02", "0.1.0", "openai:sk-hidden-4d2a9c", 1, 2), lang)
    assert "sk-hidden" not in line and "openai:" in line
