"""Generate: every format rendered from English and Chinese notes and read back."""

from __future__ import annotations

import io
import re

import pypdf
import pytest
from generate_samples import en_notes, en_page, pdf_fonts, report_facts, zh_notes, zh_page
from lxml import html as lxml_html
from pptx import Presentation
from scripted import call_tool as call

from fs_service import ALL_OPS, FileDomainService, MemoryFileSystem
from subagents import build_toolkit
from subagents.results import text_of

CASES = {
    "en": (en_page, en_notes, "Solar power outlook", "Growth", "Module prices fell by almost"),
    "zh": (zh_page, zh_notes, "中国茶叶概览", "起源", "唐代陆羽撰写《茶经》"),
}


# On a slide the markers are held to the last word, so that "[1]" never starts a line of
# its own: by a no-break space after Latin words, and after Chinese text by a word joiner
# (U+2060: zero-width, no space of any kind).
GLUE = {"en": "\u00a0", "zh": "\u2060"}
LEADS = {
    "en": "Solar capacity is growing fast and getting cheaper.\u00a0[1]",
    "zh": "茶在中国已有数千年历史，至今产量仍居世界第一。\u2060[1][2]",
}
#: A space of any kind (or a no-break one) between Chinese text and a marker.
SPACED_MARKER = re.compile(r"[\u2e80-\uffef][\s\u00a0\u2007\u202f\u3000]+\u2060?\[\d")


@pytest.fixture(params=["en", "zh"])
async def sample(request, disk_service):
    make_page, make_notes, title, heading, phrase = CASES[request.param]
    svc = disk_service
    page = await make_page(svc)
    await svc.write_text(f"/workspace/notes/{request.param}.md", make_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    return {
        "svc": svc,
        "toolkit": toolkit,
        "page": page,
        "lang": request.param,
        "title": title,
        "heading": heading,
        "phrase": phrase,
        "from_paths": [f"/workspace/notes/{request.param}.md", page.path],
    }


FORMATS = {"md": "Markdown", "html": "HTML", "pdf": "PDF", "pptx": "PPTX"}


async def _make(sample, tool: str, ext: str) -> bytes:
    path = f"/workspace/reports/report.{ext}"
    kwargs = {"out_path": path, "from_paths": sample["from_paths"], "requirements": "brief"}
    res = await call(sample["toolkit"], tool, **kwargs)
    facts = report_facts(res)
    assert {k: v for k, v in facts.items() if k != "sections"} == {
        "path": path,
        "format": FORMATS[ext],
        "citations": 3,
        "dropped": 0,
        "unsupported": 0,
        "claims_checked": 0,
        "citation_accuracy": None,
        "empty": False,
        "cited": {sample["page"].url: 3},  # the quotes per source, for run.json's files
    }, text_of(res)
    assert facts["sections"] >= 1
    assert text_of(res).startswith(f"Wrote {path} (")
    assert ", 3 citations from 1 pages, prose extractive." in text_of(res).splitlines()[0]
    assert res.metadata["status"] == "ok"
    # the report, the copy of its cited page beside it, its archive, then what it read
    copy = "/workspace/reports/copies/" + sample["page"].path.rsplit("/", 1)[1]
    archive = path.rsplit(".", 1)[0] + ".zip"
    written = [p for p in res.metadata["paths"] if p not in (path, *sample["from_paths"])]
    assert res.metadata["paths"] == [path, *written, *sample["from_paths"]]
    assert copy in written and written[-1] == archive
    assert set(written) - {copy, archive} <= {w for w in written if "-chart-" in w}
    return await sample["svc"].read_bytes(path)


async def test_markdown(sample):
    md = (await _make(sample, "generate_markdown", "md")).decode()
    assert f"# {sample['title']}" in md and f"## {sample['heading']}" in md
    body, sources = md.split("\n## Sources\n" if sample["lang"] == "en" else "\n## 来源\n")
    assert sample["phrase"] in body
    assert set(re.findall(r"\[(\d)\]", body)) == {"1", "2", "3"}
    lines = [x for x in sources.splitlines() if x.strip()]
    (head,) = [x for x in lines if x.startswith("- ")]  # one entry for the one page
    assert sample["page"].url in head and "(<copies/" in head
    quotes = [x for x in lines if x.startswith("  - ")]
    assert [re.match(r"  - \[(\d)\] ", x).group(1) for x in quotes] == ["1", "2", "3"]
    for item in sample["page"].items:
        (line,) = [x for x in quotes if item.id in x]
        assert item.span in line
    # Evidence ids are machine provenance: only inside the comments a reader never sees.
    assert "ev-" not in re.sub(r"<!-- .*? -->", "", md)


async def test_html_is_self_contained_and_cites(sample):
    data = await _make(sample, "generate_html", "html")
    doc = lxml_html.fromstring(data)
    assert doc.get("lang") == sample["lang"]
    assert doc.xpath("//meta[@name='viewport']/@content") == ["width=device-width, initial-scale=1"]
    assert not doc.xpath("//link | //script | //img | //iframe | //object | //embed")
    assert not doc.xpath("//*[@style or @src or @srcset]")
    css = "".join(doc.xpath("//style/text()"))
    assert "@media print" in css and "Noto Sans CJK SC" in css and "WenQuanYi Zen Hei" in css
    assert "url(" not in css and "@import" not in css
    assert doc.xpath("//h1/text()") == [sample["title"]]
    refs = doc.xpath("//sup[@class='cite']/a/@href")
    assert sorted(set(refs)) == ["#src-1", "#src-2", "#src-3"]
    (entry,) = doc.xpath("//section[@class='sources']/ol/li[@class='source']")
    stored = "copies/" + sample["page"].path.rsplit("/", 1)[1]
    assert entry.xpath("./a/@href") == [sample["page"].url, stored]
    assert entry.xpath("./ul[@class='quotes']/li/@id") == ["src-1", "src-2", "src-3"]
    for item in sample["page"].items:
        (li,) = [x for x in entry.xpath("./ul/li") if x.get("data-ev") == item.id]
        assert item.span in li.text_content()
    assert sample["phrase"] in doc.text_content()
    assert "ev-" not in doc.text_content()  # the ids are data, never shown


async def test_pdf_text_has_the_report(sample):
    data = await _make(sample, "generate_pdf", "pdf")
    reader = pypdf.PdfReader(io.BytesIO(data))
    text = "".join(p.extract_text() for p in reader.pages).replace("\x00", "")
    flat = re.sub(r"\s+", "", text)
    assert re.sub(r"\s+", "", sample["title"]) in flat
    assert re.sub(r"\s+", "", sample["phrase"]) in flat
    for item in sample["page"].items:
        assert re.sub(r"\s+", "", item.span) in flat
    assert "ev-" not in flat
    fonts = pdf_fonts(reader)
    if sample["lang"] == "zh":
        assert any("CJK" in f or "WenQuanYi" in f or "ZenHei" in f for f in fonts), fonts


async def test_pptx_outline(sample):
    data = await _make(sample, "generate_pptx", "pptx")
    prs = Presentation(io.BytesIO(data))
    slides = list(prs.slides)
    titles = [s.shapes.title.text for s in slides]
    assert titles[0] == sample["title"]
    assert titles[-1] == ("Sources" if sample["lang"] == "en" else "来源")
    assert sample["heading"] in titles
    section = slides[titles.index(sample["heading"])]
    bullets = [p.text for p in section.placeholders[1].text_frame.paragraphs]
    glue = GLUE[sample["lang"]]
    assert len(bullets) == 2 and all(re.search(rf"[^\s\u2060]{glue}\[\d\]$", b) for b in bullets)
    notes = section.notes_slide.notes_text_frame.text
    noted = re.findall(r"^\[(\d)\] .*\n“(.*)”$", notes, re.M)
    assert {n for n, _ in noted} == set(re.findall(r"\[(\d)\]", " ".join(bullets)))
    spans = {i.span for i in sample["page"].items}
    assert all(span in spans for _, span in noted)
    src = slides[-1].placeholders[1].text_frame.text
    assert src.count(sample["page"].url) == 1  # one entry per source
    assert "[1] [2] [3]" in src and sample["page"].path not in src  # no path inside the run
    sources_notes = slides[-1].notes_slide.notes_text_frame.text
    assert all(item.span in sources_notes for item in sample["page"].items)
    assert "ev-" not in notes + src + sources_notes
    assert slides[0].placeholders[1].text_frame.text == LEADS[sample["lang"]]
    shown = [sh.text_frame.text for s in slides for sh in s.shapes if sh.has_text_frame]
    assert not [t for t in shown if SPACED_MARKER.search(t)]


@pytest.mark.parametrize(
    ("tool", "ext"),
    [
        ("generate_markdown", "md"),
        ("generate_html", "html"),
        ("generate_pdf", "pdf"),
        ("generate_pptx", "pptx"),
    ],
)
async def test_refused_out_paths_create_nothing(disk_service, input_dir, tool, ext):
    svc = disk_service
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    kwargs = {"requirements": "x", "from_paths": ["/workspace/notes/en.md"]}
    for bad in (f"/userinput/r.{ext}", f"/etc/r.{ext}", f"/workspace/../r.{ext}"):
        res = await call(toolkit, tool, out_path=bad, **kwargs)
        assert text_of(res).startswith("Error:"), bad
        assert res.metadata["status"] == "error" and res.metadata["paths"] == [], bad
    assert list(input_dir.iterdir()) == []
    res = await call(toolkit, tool, out_path="/workspace/reports/r.txt", **kwargs)
    assert f"must end with .{ext}" in text_of(res)
    assert not await svc.exists("/workspace/reports/r.txt")


@pytest.mark.parametrize("tool", ["generate_markdown", "generate_pdf", "generate_pptx"])
async def test_failed_generation_leaves_no_file(tool):
    svc = FileDomainService(
        MemoryFileSystem().create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}])
    )
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    ext = {"generate_markdown": "md", "generate_pdf": "pdf", "generate_pptx": "pptx"}[tool]
    out = f"/workspace/reports/r.{ext}"
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    res = await call(
        toolkit,
        tool,
        requirements="x",
        out_path=out,
        from_paths=["/workspace/notes/en.md", "/workspace/notes/missing.md"],
    )
    assert text_of(res).startswith("Error: could not read from_paths, nothing was written")
    assert "/workspace/notes/missing.md" in text_of(res)
    assert not await svc.exists(out)
    # An earlier good file stays exactly as it was after a failed regeneration.
    await svc.write_bytes(out, b"previous")
    res = await call(toolkit, tool, requirements="x", out_path=out, from_paths=["/workspace/x.pdf"])
    assert text_of(res).startswith("Error:")
    assert await svc.read_bytes(out) == b"previous"


async def test_inputs_are_escaped_in_every_format(disk_service):
    svc = disk_service
    page = await en_page(svc)
    a = page.ids()[0]
    hostile = (
        "# <script>alert(1)</script> Title\n\n## Links & <b>tags</b>\n\n"
        f"Click [here](http://evil.example/x) ![img](http://evil.example/i.png) now. [{a}]\n\n"
        "<img src=http://evil.example/p.png onerror=alert(2)>\n"
    )
    await svc.write_text("/workspace/notes/h.md", hostile)
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    kwargs = {"requirements": "x", "from_paths": ["/workspace/notes/h.md", page.path]}
    await call(toolkit, "generate_html", out_path="/workspace/h.html", **kwargs)
    raw = (await svc.read_bytes("/workspace/h.html")).decode()
    doc = lxml_html.fromstring(raw)
    assert not doc.xpath("//script | //img | //b")
    assert not [h for h in doc.xpath("//a/@href") if "evil" in h]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Title" in raw
    assert "Click here !img now." in doc.text_content()
    await call(toolkit, "generate_markdown", out_path="/workspace/h.md", **kwargs)
    md = await svc.read_text("/workspace/h.md")
    assert "<script>" not in md and "\\<script\\>" in md and "](http://evil" not in md


async def test_no_material_gives_a_report_that_says_so(disk_service):
    toolkit = build_toolkit("generate", service=disk_service, evidence=None, model=None)
    res = await call(
        toolkit, "generate_html", requirements="茶叶市场调研", out_path="/workspace/e.html"
    )
    facts = report_facts(res)
    assert facts["empty"] is True and facts["citations"] == 0
    assert res.metadata["evidence_ids"] == []
    assert res.metadata["paths"] == ["/workspace/e.html", "/workspace/e.zip"]
    assert "no notes and no verified evidence were found" in text_of(res)
    doc = lxml_html.fromstring(await disk_service.read_bytes("/workspace/e.html"))
    assert doc.xpath("//h1/text()") == ["茶叶市场调研"]
    assert "本报告没有可用的笔记或经过核实的证据。" in doc.text_content()
    assert not doc.xpath("//section[@class='sources']")
