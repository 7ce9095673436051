"""Sample pages, sidecars and notes (English and Chinese) written through the service."""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from agentscope.tool import ToolResponse

from subagents.evidence import EvidenceItem, PageRecord, evidence_id, sidecar_path
from subagents.results import text_of

_FACTS = re.compile(r"```json\n(.*?)\n```", re.S)


def report_facts(res: ToolResponse) -> dict[str, Any]:
    """The JSON block a generate_* result ends with (path, format, sections, citations…)."""
    found = _FACTS.findall(text_of(res))
    assert found and text_of(res).rstrip().endswith("```"), text_of(res)
    return json.loads(found[-1])


EN_PAGE = """# Solar power in 2024

Solar photovoltaic capacity grew faster than any other source of electricity in 2024.
Module prices fell by almost half over two years, which made rooftop systems cheaper.
Grid operators now curtail solar output on sunny spring afternoons in several regions.
Battery storage is being paired with new solar farms to shift power into the evening.
"""

EN_SPANS = [
    "Solar photovoltaic capacity grew faster than any other source of electricity in 2024.",
    "Module prices fell by almost half over two years",
    "Battery storage is being paired with new solar farms to shift power into the evening.",
]

ZH_PAGE = """# 中国茶叶简史

茶起源于中国西南地区，已有数千年的饮用历史。
唐代陆羽撰写了《茶经》，系统总结了种茶、制茶和饮茶的方法。
宋代流行点茶，明代以后散茶冲泡逐渐成为主流。
今天中国仍是世界上最大的茶叶生产国。
"""

ZH_SPANS = [
    "茶起源于中国西南地区，已有数千年的饮用历史。",
    "唐代陆羽撰写了《茶经》，系统总结了种茶、制茶和饮茶的方法。",
    "今天中国仍是世界上最大的茶叶生产国。",
]


@dataclass
class SamplePage:
    path: str
    url: str
    title: str
    text: str
    items: list[EvidenceItem]

    def ids(self) -> list[str]:
        return [i.id for i in self.items]


def make_items(text: str, spans: list[str], url: str, path: str) -> list[EvidenceItem]:
    items = []
    for span in spans:
        start = text.index(span)
        item = EvidenceItem(url=url, span=span, start=start, end=start + len(span), page_path=path)
        items.append(EvidenceItem(**{**item.to_dict(), "id": evidence_id(item)}))
    return items


async def write_page(
    svc, path: str, url: str, title: str, text: str, spans: list[str], extra: list[dict] = ()
) -> SamplePage:
    """Store page text + a PageRecord sidecar whose evidence spans are at their offsets."""
    items = make_items(text, spans, url, path)
    record = PageRecord(
        url=url,
        final_url=url,
        fetched_at="2024-06-01T00:00:00+00:00",
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        tier="viewer",
        extractor="trafilatura",
        markdown_path=path,
        title=title,
        content_type="text/html",
        evidence=[i.to_dict() for i in items] + list(extra),
    )
    await svc.write_text(path, text)
    await svc.write_text(sidecar_path(path), record.to_json())
    return SamplePage(path, url, title, text, items)


async def en_page(svc) -> SamplePage:
    return await write_page(
        svc,
        "/workspace/pages/solar.md",
        "http://127.0.0.1:8765/solar",
        "Solar power in 2024",
        EN_PAGE,
        EN_SPANS,
    )


async def zh_page(svc) -> SamplePage:
    return await write_page(
        svc,
        "/workspace/pages/tea.md",
        "http://127.0.0.1:8765/tea",
        "中国茶叶简史",
        ZH_PAGE,
        ZH_SPANS,
    )


def en_notes(page: SamplePage) -> str:
    a, b, c = page.ids()
    return f"""# Solar power outlook

Solar capacity is growing fast and getting cheaper. [{a}]

## Growth

- Solar photovoltaic capacity grew faster than any other source in 2024. [{a}]
- Module prices fell by almost half over two years. [{b}]

## Storage

Batteries are now built next to new solar farms to move power into the evening. [{c}]
Some grids already curtail solar output on spring afternoons.
"""


def zh_notes(page: SamplePage) -> str:
    a, b, c = page.ids()
    return f"""# 中国茶叶概览

茶在中国已有数千年历史，至今产量仍居世界第一。[{a}][{c}]

## 起源

- 茶起源于中国西南地区。[{a}]
- 唐代陆羽撰写《茶经》，总结了种茶、制茶和饮茶的方法。[{b}]

## 现状

今天中国仍是世界上最大的茶叶生产国。[{c}]
"""


def pdf_fonts(reader) -> set[str]:
    """The base font names a PDF's pages use (pypdf ``PdfReader``)."""
    return {
        str(f.get_object()["/BaseFont"])
        for page in reader.pages
        for f in (page["/Resources"].get("/Font") or {}).values()
    }


def pdf_text(data: bytes) -> str:
    """The text layer of a PDF (NUL bytes of CFF-font CJK text removed)."""
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    return "".join(p.extract_text() for p in reader.pages).replace("\x00", "")


def pptx_text(data: bytes) -> str:
    """Every word of a deck: its text boxes, its tables' cells and its speaker notes."""
    from pptx import Presentation

    prs = Presentation(io.BytesIO(data))
    out = []
    for slide in prs.slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                out.append(shape.text_frame.text)
            if shape.has_table:
                out.extend(cell.text for row in shape.table.rows for cell in row.cells)
        if slide.has_notes_slide:
            out.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(out)
