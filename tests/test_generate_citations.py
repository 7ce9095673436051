"""Generate: citations are checked against stored pages; prose is extractive or the model's."""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser

import pytest
from agentscope.message import TextBlock
from agentscope.model import ChatModelBase, ChatResponse
from generate_samples import (
    EN_PAGE,
    en_notes,
    en_page,
    make_items,
    pdf_text,
    pptx_text,
    report_facts,
    write_page,
    zh_page,
)
from scripted import call_tool as call

from research.labels import RESEARCH_MARKER
from subagents import build_toolkit
from subagents.evidence import EvidenceItem, EvidenceLedger, evidence_id
from subagents.generate.notes import parse_notes
from subagents.results import text_of

FORMATS = {
    "generate_markdown": "md",
    "generate_html": "html",
    "generate_pdf": "pdf",
    "generate_pptx": "pptx",
}


class ScriptedModel(ChatModelBase):
    """A chat model that answers with prepared texts and records what it was asked."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(model_name="scripted", stream=False)
        self.replies = list(replies)
        self.prompts: list[str] = []

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        self.prompts.append(repr(messages))
        text = self.replies.pop(0) if self.replies else ""
        return ChatResponse(content=[TextBlock(type="text", text=text)])


class FailingModel(ChatModelBase):
    def __init__(self) -> None:
        super().__init__(model_name="failing", stream=False)

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        raise ConnectionError("provider unreachable")


def prose_of(res) -> str:
    """Who wrote the prose, as the first line of a generate_* result says."""
    m = re.search(r", prose (\w+)\.$", text_of(res).splitlines()[0])
    assert m, text_of(res)
    return m.group(1)


def written(res, path: str) -> dict:
    """The facts of a successful generate_* result that wrote ``path``."""
    assert res.metadata["status"] == "ok", text_of(res)
    facts = report_facts(res)
    assert facts["path"] == path and res.metadata["paths"][0] == path, text_of(res)
    return facts


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[str] = []

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)


def html_text(data: bytes) -> str:
    p = _Text()
    p.feed(data.decode())
    return "".join(p.chunks)


async def all_formats_text(svc, toolkit, stem: str, **kwargs) -> dict[str, str]:
    """Generate every format; return each file's readable text (checked to exist)."""
    texts = {}
    for tool, ext in FORMATS.items():
        path = f"/workspace/reports/{stem}.{ext}"
        res = await call(toolkit, tool, out_path=path, **kwargs)
        written(res, path)
        data = await svc.read_bytes(path)
        texts[ext] = {
            "md": lambda d: d.decode(),
            "html": html_text,
            "pdf": pdf_text,
            "pptx": pptx_text,
        }[ext](data)
    return texts


@pytest.fixture
def svc(disk_service):
    return disk_service


async def test_fabricated_citations_never_reach_any_format(svc):
    page = await en_page(svc)
    good, altered_src, _ = page.items
    # A known id whose span was altered (sidecar says one thing, page text another).
    altered = EvidenceItem(
        url=page.url,
        span="Module prices doubled over two years",
        start=altered_src.start,
        end=altered_src.start + len("Module prices doubled over two years"),
        page_path=page.path,
        id="ev-aaaaaaaaaaaa",
    )
    # A second page whose text changes after its evidence was recorded.
    other = await write_page(
        svc,
        "/workspace/pages/wind.md",
        "http://127.0.0.1:8765/wind",
        "Wind",
        "Offshore wind turbines keep getting larger every year.\n",
        ["Offshore wind turbines keep getting larger every year."],
        extra=[altered.to_dict()],
    )
    await svc.write_text(other.path, "Offshore wind farms were delayed by supply problems.\n")
    notes = (
        "# Energy notes\n\n## Claims\n\n"
        f"Solar grew fastest in 2024. [{good.id}]\n\n"
        "Prices doubled. [ev-aaaaaaaaaaaa]\n\n"
        "Invented study says otherwise. [ev-123456789abc]\n\n"
        f"Turbines keep growing. [{other.ids()[0]}]\n"
    )
    await svc.write_text("/workspace/notes/n.md", notes)
    toolkit = build_toolkit("generate", service=svc, evidence=EvidenceLedger(), model=None)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="Energy",
        out_path="/workspace/reports/x.md",
        from_paths=["/workspace/notes/n.md", page.path, other.path],
    )
    text = text_of(res)
    assert "[ev-123456789abc] is not an evidence id" in text
    assert "[ev-aaaaaaaaaaaa] quotes a span that is not at" in text
    assert f"[{other.ids()[0]}] quotes a span" in text
    assert report_facts(res)["dropped"] == 3
    assert sorted(res.metadata["evidence_ids"]) == sorted(page.ids())  # the good ones only

    texts = await all_formats_text(
        svc,
        toolkit,
        "fab",
        requirements="Energy",
        from_paths=["/workspace/notes/n.md", page.path, other.path],
    )
    for ext, body in texts.items():
        flat = re.sub(r"\s+", "", body)
        for bad in ("ev-aaaaaaaaaaaa", "ev-123456789abc", other.ids()[0]):
            assert bad not in flat, (ext, bad)
        assert "Moduleprices doubled" not in flat and "doubledovertwo" not in flat, ext
        assert "getting larger" not in body and "8765/wind" not in body, ext
        assert "Solargrewfastestin2024.[1]" in flat, ext
        # The good id is machine provenance: kept in the Markdown's comments, shown nowhere.
        assert (good.id in flat) == (ext == "md"), ext
        assert "ev-" not in re.sub(r"<!--.*?-->", "", body), ext
    md = texts["md"]
    sources = md.split("## Sources", 1)[1]
    assert re.findall(r"^  - \[(\d+)\] ", sources, re.M) == ["1", "2", "3"]
    assert "wind" not in sources.lower()
    # Every [n] in the body points at an entry of the sources list.
    body_numbers = {int(n) for n in re.findall(r"\[(\d+)\]", md.split("## Sources")[0])}
    assert body_numbers <= {1, 2, 3} and 1 in body_numbers


async def test_ledger_ids_verify_and_unverified_ledger_items_are_dropped(svc):
    items = make_items(EN_PAGE, ["Grid operators now curtail solar output"], "u", "/workspace/p.md")
    await svc.write_text("/workspace/p.md", EN_PAGE)
    ledger = EvidenceLedger()
    ok_item = ledger.add(EvidenceItem(**{**items[0].to_dict(), "id": ""}))
    moved = ledger.add(
        EvidenceItem(url="u", span="Grid operators", start=3, end=17, page_path="/workspace/p.md")
    )
    hidden = ledger.add(
        EvidenceItem(url="u", span="x", start=0, end=1, page_path="/internal/secret.md")
    )
    await svc.write_text(
        "/workspace/notes/a.md",
        f"## Grid\n\nCurtailment happens. [{ok_item.id}] Also [{moved.id}] and [{hidden.id}].\n",
    )
    toolkit = build_toolkit("generate", service=svc, evidence=ledger, model=None)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="Grid report",
        out_path="/workspace/r.md",
        from_paths=["/workspace/notes/a.md"],
    )
    md = (await svc.read_text("/workspace/r.md")).split("## Sources")
    assert "Curtailment happens.[1]\n" in md[0]  # the claims whose citations fail are gone
    assert "Also" not in md[0] and " and" not in md[0]
    assert ok_item.id in md[1] and moved.id not in md[1] and hidden.id not in md[1]
    assert "/internal/secret.md is unreadable" in text_of(res)
    assert report_facts(res) == {
        "path": "/workspace/r.md",
        "format": "Markdown",
        "sections": 1,
        "citations": 1,
        "dropped": 2,
        "unsupported": 0,
        "claims_checked": 0,
        "citation_accuracy": None,
        "empty": False,
        "cited": {"u": 1},  # the one quote kept, by its source's address
    }
    assert prose_of(res) == "extractive"
    assert res.metadata == {
        "status": "ok",
        "paths": [  # the report, the copy of its cited page, its archive, what it read
            "/workspace/r.md",
            "/workspace/copies/p.md",
            "/workspace/r.zip",
            "/workspace/notes/a.md",
        ],
        "evidence_ids": [ok_item.id],
        "reason": "",
    }


async def test_without_from_paths_the_whole_ledger_is_reported(svc):
    page = await en_page(svc)
    ledger = EvidenceLedger()
    for item in page.items:
        ledger.add(item)
    toolkit = build_toolkit("generate", service=svc, evidence=ledger, model=None)
    res = await call(
        toolkit, "generate_markdown", requirements="Solar digest", out_path="/workspace/d.md"
    )
    assert written(res, "/workspace/d.md")["citations"] == 3
    assert sorted(res.metadata["evidence_ids"]) == sorted(page.ids())
    md = await svc.read_text("/workspace/d.md")
    assert md.splitlines()[2] == "# Solar digest"
    for item in page.items:
        assert item.span in md


async def test_requirements_ids_are_cited_and_unknown_ones_reported(svc):
    page = await en_page(svc)
    ledger = EvidenceLedger()
    ledger.add(page.items[1])
    toolkit = build_toolkit("generate", service=svc, evidence=ledger, model=None)
    await svc.write_text("/workspace/notes/a.md", "## Prices\n\nPanels got cheaper.\n")
    res = await call(
        toolkit,
        "generate_markdown",
        requirements=f"Cite {page.items[1].id} and ev-0000000000ff please",
        out_path="/workspace/q.md",
        from_paths=["/workspace/notes/a.md"],
    )
    md = await svc.read_text("/workspace/q.md")
    assert page.items[1].id in md and page.items[0].id not in md
    assert "[ev-0000000000ff] is not an evidence id" in text_of(res)


def _sentences(text: str) -> list[str]:
    text = re.sub(r"\[\d+\]|\[ev-[0-9a-f]{12}\]", " ", text)
    parts = re.split(r"(?<=[.!?。！？])\s*|\n+", text)
    return [re.sub(r"\s+", " ", p).strip(" -") for p in parts if p.strip(" -\n")]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\[ev-[0-9a-f]{12}\]", " ", text))


async def test_offline_body_is_extractive(svc):
    en = await en_page(svc)
    zh = await zh_page(svc)
    notes = en_notes(en)
    await svc.write_text("/workspace/notes/en.md", notes)
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    requirements = "Solar outlook for planners"
    await call(
        toolkit,
        "generate_markdown",
        requirements=requirements,
        out_path="/workspace/e.md",
        from_paths=["/workspace/notes/en.md", en.path, zh.path],
    )
    md = await svc.read_text("/workspace/e.md")
    body = md.split("## Sources")[0].split("\n", 1)[1]
    fixed = {"Sources", "Summary", "Evidence", "(in Chinese)"}
    inputs = _norm(notes) + " " + _norm(en.text) + " " + _norm(zh.text) + " " + requirements
    inputs += " " + en.title + " " + zh.title
    checked = 0
    for line in body.splitlines():
        line = line.lstrip("#").strip()
        for sentence in _sentences(line):
            if sentence in fixed:
                continue
            assert sentence in inputs, sentence
            checked += 1
    assert checked >= 8
    # The Chinese page's evidence (not cited in the notes) is quoted under its title, and
    # marked as Chinese in this English report.
    assert "## 中国茶叶简史" in md and "今天中国仍是世界上最大的茶叶生产国。 (in Chinese)[" in md


def _brief_args(page) -> dict:
    """The solar brief's requirements and material: its notes and its page."""
    return {
        "requirements": "Short solar brief",
        "from_paths": ["/workspace/notes/en.md", page.path],
    }


async def _model_brief(svc, page, model):
    """The solar brief written by ``model`` to /workspace/m.md: its toolkit and result."""
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=model)
    res = await call(toolkit, "generate_markdown", out_path="/workspace/m.md", **_brief_args(page))
    return toolkit, res


async def test_model_writes_prose_and_cannot_add_unverified_sources(svc):
    page = await en_page(svc)
    a, b, _ = page.ids()
    reply = (
        "```markdown\n# Solar, briefly\n\nSolar capacity grew faster than any other source. "
        f"[{a}]\n\n## Why it matters\n\nCheaper modules lower costs for homes. [{b}] "
        "A secret report says solar will triple. [ev-fedcba987654]\n\n"
        f"- Numbered markers are not sources either. [3]\n\n## Sources\n\n- [{a}] solar page\n```"
    )
    model = ScriptedModel([reply] * 5)
    toolkit, res = await _model_brief(svc, page, model)
    assert prose_of(res) == "model"
    assert "[ev-fedcba987654] is not an evidence id" in text_of(res)
    assert "[3] is a numbered marker with no matching entry" in text_of(res)
    prompt = model.prompts[0]
    assert "Short solar brief" in prompt and a in prompt and page.items[2].span in prompt
    md = await svc.read_text("/workspace/m.md")
    assert "# Solar, briefly" in md
    assert "Cheaper modules lower costs for homes.[2]" in md
    # A claim whose citation does not verify is removed with it, never left uncited.
    assert "A secret report says" not in md and "Numbered markers are not sources" not in md
    assert "ev-fedcba987654" not in md and "solar page" not in md
    assert md.count("## Sources") == 1
    texts = await all_formats_text(svc, toolkit, "model", **_brief_args(page))
    for ext, body in texts.items():
        assert "ev-fedcba987654" not in body and "A secret report says" not in body, ext
        assert "Solar, briefly" in body, ext


async def _research_notes(svc):
    """Research notes (as the Host writes them) quoting the solar page: its path and the page."""
    page = await en_page(svc)
    lines = [RESEARCH_MARKER, "", "# Solar in brief", "", "## How fast is solar growing?", ""]
    lines += [f"- {item.span} [{item.id}]" for item in page.items]
    await svc.write_text("/workspace/notes/research.md", "\n".join(lines) + "\n")
    return "/workspace/notes/research.md", page


async def test_formats_asked_at_once_are_one_report_written_and_laid_out_once(svc, monkeypatch):
    """A run asks for its formats at once: the report is written once and laid out on
    pages once (to check its length) for all of them; asked again later, it is written
    again."""
    import subagents.generate.flow as flow
    import subagents.generate.pdf as pdf

    built, laid = [], []
    real_build, real_layout = flow.build_report, pdf._layout

    async def counting_build(*args, **kwargs):
        built.append(1)
        return await real_build(*args, **kwargs)

    def counting_layout(html):
        laid.append(1)
        return real_layout(html)

    monkeypatch.setattr(flow, "build_report", counting_build)
    monkeypatch.setattr(pdf, "_layout", counting_layout)
    notes, page = await _research_notes(svc)
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    args = {"requirements": "Solar in brief", "from_paths": [notes, page.path]}
    results = await asyncio.gather(
        *(
            call(toolkit, tool, out_path=f"/workspace/reports/once.{ext}", **args)
            for tool, ext in FORMATS.items()
        )
    )
    assert all(r.metadata["status"] == "ok" for r in results), [text_of(r) for r in results]
    assert (len(built), len(laid)) == (1, 1)
    texts = [
        await svc.read_text("/workspace/reports/once.md"),
        html_text(await svc.read_bytes("/workspace/reports/once.html")),
        pdf_text(await svc.read_bytes("/workspace/reports/once.pdf")),
    ]
    assert all(page.items[0].span[:40] in " ".join(t.split()) for t in texts)
    await call(toolkit, "generate_markdown", out_path="/workspace/again.md", **args)
    assert len(built) == 2


async def test_failing_model_falls_back_to_extractive(svc):
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=FailingModel())
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="x",
        out_path="/workspace/f.md",
        from_paths=["/workspace/notes/en.md"],
    )
    assert prose_of(res) == "extractive"
    assert "model call failed (provider unreachable)" in text_of(res)
    assert "ConnectionError" not in text_of(res)  # no class name reaches the reader
    assert "# Solar power outlook" in await svc.read_text("/workspace/f.md")


async def test_earlier_report_converts_and_is_checked_again(svc):
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/en.md", en_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    await call(
        toolkit,
        "generate_markdown",
        requirements="x",
        out_path="/workspace/reports/r.md",
        from_paths=["/workspace/notes/en.md", page.path],
    )
    first = await svc.read_text("/workspace/reports/r.md")
    # The page changes after the report was written: the Module-prices span moves.
    await svc.write_text(page.path, "Updated: " + page.text)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="",
        out_path="/workspace/reports/r2.md",
        from_paths=["/workspace/reports/r.md"],
    )
    second = await svc.read_text("/workspace/reports/r2.md")
    facts = written(res, "/workspace/reports/r2.md")
    assert facts["citations"] == 0 and facts["dropped"] == 3
    assert res.metadata["evidence_ids"] == []
    assert "## Sources" in first and "## Sources" not in second
    # The page changed: its citations fail, so their claims are gone; the title stays.
    assert "# Solar power outlook" in second and "Module prices fell" not in second
    await svc.write_text(page.path, page.text)
    await call(
        toolkit,
        "generate_markdown",
        requirements="",
        out_path="/workspace/reports/r3.md",
        from_paths=["/workspace/reports/r.md"],
    )
    assert await svc.read_text("/workspace/reports/r3.md") == first


def test_notes_parser_reads_markers_and_escapes_nothing_into_markup():
    draft = parse_notes(
        "# T\n\nLead *text* <b>raw</b>. [ev-0123456789AB, ev-0123456789ac]\n\n"
        "## S\n\n- one [2]\n\n```\ncode\n```\n"
    )
    assert draft.title == "T"
    assert draft.lead[0].text == "Lead text <b>raw</b>. "
    assert [c.key for c in draft.lead[0].cites()] == ["ev-0123456789ab", "ev-0123456789ac"]
    assert draft.sections[0].heading == "S"
    point = draft.sections[0].points[0]
    assert point.text == "one " and point.cites()[0].key == "#2" and point.bullet
    assert len(draft.points()) == 2


def test_evidence_id_of_sample_items_is_stable():
    items = make_items(EN_PAGE, ["Module prices"], "u", "/p.md")
    assert items[0].id == evidence_id(items[0]) and items[0].id.startswith("ev-")


def test_body_text_of_a_span_drops_markdown_syntax_but_keeps_words():
    from subagents.generate.report import readable_span

    span = "The **Lingqu** in *Guangxi* (see [decline](http://x/d.html)) and snake_case, 5 * 3."
    assert readable_span(span) == "The Lingqu in Guangxi (see decline) and snake_case, 5 * 3."
    assert readable_span("a\n  wrapped   line") == "a wrapped line"


@pytest.mark.parametrize(
    "body",
    [
        "[1, 2, 3]",
        '"just a string"',
        '{"url": "u", "final_url": "u", "fetched_at": "", "sha256": "", "tier": "viewer", '
        '"extractor": "x", "markdown_path": "/workspace/pages/p.md", "evidence": 5}',
    ],
)
async def test_other_json_in_a_folder_is_passed_over(svc, body):
    page = await en_page(svc)
    await svc.write_text("/workspace/pages/data.json", body)
    await svc.write_text("/workspace/notes/n.md", en_notes(page))
    toolkit = build_toolkit("generate", service=svc, evidence=EvidenceLedger(), model=None)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="Solar",
        out_path="/workspace/reports/j.md",
        from_paths=["/workspace/notes/", "/workspace/pages/"],
    )
    assert written(res, "/workspace/reports/j.md")["citations"] == 3
    assert "/workspace/pages/data.json" not in res.metadata["paths"]


async def test_a_key_echoed_by_a_failing_provider_never_reaches_the_result(svc, monkeypatch):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from agentscope.model import OpenAIChatModel

    key = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)

    class EchoKey(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length") or 0))
            body = json.dumps({"error": {"message": f"bad {self.headers['authorization']}"}})
            self.send_response(401)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), EchoKey)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        model = OpenAIChatModel(
            "m",
            api_key=key,
            stream=False,
            client_kwargs={"base_url": f"http://127.0.0.1:{server.server_port}/v1"},
        )
        page = await en_page(svc)
        await svc.write_text("/workspace/notes/en.md", en_notes(page))
        toolkit = build_toolkit("generate", service=svc, evidence=None, model=model)
        res = await call(
            toolkit,
            "generate_markdown",
            requirements="x",
            out_path="/workspace/k.md",
            from_paths=["/workspace/notes/en.md"],
        )
    finally:
        server.shutdown()
        server.server_close()
    text = text_of(res)
    assert prose_of(res) == "extractive" and "model call failed" in text, text
    assert key not in json.dumps(res.metadata)
    assert key not in text and key not in await svc.read_text("/workspace/k.md")


async def test_an_unreadable_file_in_a_folder_is_passed_over_and_named(svc):
    page = await en_page(svc)
    await svc.write_text("/workspace/notes/n.md", en_notes(page))
    await svc.write_bytes("/workspace/notes/legacy.md", "旧笔记".encode("gbk"))
    await svc.write_text("/workspace/notes/broken.md", "# a page")
    await svc.write_text("/workspace/notes/broken.json", "{not json")
    toolkit = build_toolkit("generate", service=svc, evidence=EvidenceLedger(), model=None)
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="Solar",
        out_path="/workspace/reports/k.md",
        from_paths=["/workspace/notes/", "/workspace/pages/"],
    )
    text = text_of(res)
    assert written(res, "/workspace/reports/k.md")["citations"] == 3, text
    assert "/workspace/notes/legacy.md" not in res.metadata["paths"]
    assert "/workspace/notes/n.md" in res.metadata["paths"]
    assert "passed over /workspace/notes/legacy.md (" in text
    assert "passed over /workspace/notes/broken.json (" in text
    res = await call(
        toolkit,
        "generate_markdown",
        requirements="Solar",
        out_path="/workspace/reports/l.md",
        from_paths=["/workspace/notes/legacy.md"],
    )
    assert text_of(res).startswith("Error:") and not await svc.exists("/workspace/reports/l.md")


async def test_a_claim_its_real_citation_does_not_support_leaves_every_format(svc):
    """A model may cite a real evidence id for a sentence the quote does not say: the
    claim goes, with its marker, from every format, and the report counts it."""
    page = await en_page(svc)
    a, b, c = page.ids()
    reply = (
        "# Solar, briefly\n\nSolar capacity grew faster than any other source in 2024. "
        f"[{a}]\n\n## Why it matters\n\nModule prices fell by almost half in two years. [{b}] "
        f"The Quixotic Lamplighters Guild financed the solar farms with moon bonds. [{c}] "
        "Storage is paired with new solar farms. [" + c + "]\n\n"
        "Everyone agrees this is the future.\n"
    )
    model = ScriptedModel([reply] * 5)
    toolkit, res = await _model_brief(svc, page, model)
    facts = report_facts(res)
    assert facts["unsupported"] == 1 and facts["claims_checked"] == 4
    assert facts["citation_accuracy"] == 0.75
    assert "does not support its claim: states what its source does not" in text_of(res)
    md = await svc.read_text("/workspace/m.md")
    assert "Module prices fell by almost half in two years.[" in md
    assert "Storage is paired with new solar farms.[" in md  # the same id, a true claim
    texts = await all_formats_text(svc, toolkit, "model", **_brief_args(page))
    for ext, body in texts.items():
        flat = " ".join(body.split())
        assert "Quixotic" not in flat and "moon bonds" not in flat, ext
        assert ". ." not in flat and "..[" not in flat, ext  # the text around it reads clean
        assert "Everyone agrees" not in flat, ext  # a sentence that cites nothing goes too
        assert "Module prices fell by almost half" in flat, ext


async def test_sources_are_numbered_source_by_source_and_show_no_ids_or_paths(svc):
    """Quotes from one source carry consecutive numbers (sources in order of first
    citation), whatever order the body cites them in; no format shows an evidence id or
    a path inside the run (the ids stay in the Markdown's comments, for reading back)."""
    en, zh = await en_page(svc), await zh_page(svc)
    a, b, c = en.ids()
    x, y, _ = zh.ids()
    await svc.write_text(
        "/workspace/notes/mixed.md",
        f"## One\n\n- Solar grew. [{a}]\n- Tea is old. [{x}]\n- Prices fell. [{b}]\n"
        f"- Tea grows. [{y}]\n- Batteries help. [{c}]\n",
    )
    ledger = EvidenceLedger()
    for item in [*en.items, *zh.items]:
        ledger.add(item)
    toolkit = build_toolkit("generate", service=svc, evidence=ledger, model=None)
    texts = await all_formats_text(
        svc, toolkit, "mixed", requirements="Mixed", from_paths=["/workspace/notes/mixed.md"]
    )
    body, sources = texts["md"].split("\n## Sources\n")
    assert re.findall(r"\[(\d)\]", body.split("## One")[1]) == ["1", "4", "2", "5", "3"]
    groups = [re.findall(r"^  - \[(\d)\]", g, re.M) for g in ("\n" + sources).split("\n- ")[1:]]
    assert groups == [["1", "2", "3"], ["4", "5"]]
    for ext, text in texts.items():
        shown = re.sub(r"<!--.*?-->", "", text)
        assert "ev-" not in shown and "/workspace/" not in shown, ext
    # The Markdown reads back with its numbers and ids: another format from it keeps them.
    res = await call(
        toolkit,
        "generate_html",
        requirements="Mixed",
        out_path="/workspace/reports/again.html",
        from_paths=["/workspace/reports/mixed.md"],
    )
    assert report_facts(res)["citations"] == 5 and report_facts(res)["dropped"] == 0


async def test_a_quote_in_another_language_is_marked_so_in_every_format(svc):
    """A Chinese report quoting an English sentence says it is English, in its body and in
    its sources, in every format; its Chinese quotes carry no such mark."""
    en, zh = await en_page(svc), await zh_page(svc)
    ledger = EvidenceLedger()
    for item in [*en.items, *zh.items]:
        ledger.add(item)
    await svc.write_text(
        "/workspace/notes/zh.md",
        f"# 能源与茶\n\n## 概况\n\n- 茶起源于中国西南地区。[{zh.ids()[0]}]\n"
        f"- Solar grew fastest in 2024. [{en.ids()[0]}]\n",
    )
    toolkit = build_toolkit("generate", service=svc, evidence=ledger, model=None)
    texts = await all_formats_text(
        svc, toolkit, "zh", requirements="能源与茶", from_paths=["/workspace/notes/zh.md"]
    )
    body, sources = texts["md"].split("\n## 来源\n")
    assert "- Solar grew fastest in 2024.（英文）[2]" in body
    assert "茶起源于中国西南地区。[1]" in body and body.count("（英文）") == 1
    (quote,) = [ln for ln in sources.splitlines() if ln.startswith("  - [2] ")]
    assert re.search(r"”(?:\]\(<[^>]+>\))?（英文）$", quote.split(" <!-- ")[0]), quote
    for ext in ("html", "pdf", "pptx"):
        flat = re.sub(r"\s+", "", texts[ext])
        assert flat.count("（英文）") >= 2 - (ext == "pptx"), ext  # the deck: in its notes
