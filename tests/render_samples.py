"""Richer sample material for the renderers: a sourced table with a numeric column, a
spreadsheet source with a locator, a span full of Markdown syntax, and the sections for
disagreements and what could not be found — in English and in Chinese."""

from __future__ import annotations

from dataclasses import dataclass

from generate_samples import (
    SamplePage,
    en_page,
    make_items,
    write_page,
    zh_page,
)

from subagents.evidence import EvidenceItem

EN_TABLE = """| Country | Capacity (GW) | Added in 2024 (GW) | Share of power |
|---|---|---|---|
| China | 1,200 | 277 | 9% |
| United States | 220 | 39 | 6% |
| India | 90 | 24 | 7% |
| Germany | 99 | 16 | 14% |
| Total | 1,609 | 356 | 20–42% |"""

EN_SHEET = f"""## Sheet Capacity

{EN_TABLE}

Figures are rounded to the nearest gigawatt.
"""

EN_MARKUP_PAGE = """# Rooftop notes

Rooftop **solar** is [cheaper than ever](http://127.0.0.1:8765/prices) for most homes.
"""
EN_MARKUP_SPAN = (
    "Rooftop **solar** is [cheaper than ever](http://127.0.0.1:8765/prices) for most homes."
)

ZH_TABLE = """| 省份 | 产量（万吨） | 茶园面积（万亩） |
|---|---|---|
| 云南 | 56.3 | 740 |
| 贵州 | 48.1 | 700 |
| 四川 | 40.5 | 600 |
| 湖北 | 43.2 | 550 |
| 合计 | 188.1 | 2,590 |"""

ZH_SHEET = f"""## Sheet 产量

{ZH_TABLE}

数据按四舍五入保留一位小数。
"""


@dataclass
class RenderSample:
    """The pages of one language's sample and the notes citing them."""

    lang: str
    text: SamplePage
    sheet: SamplePage
    markup: SamplePage | None
    notes: str

    def pages(self) -> list[SamplePage]:
        return [self.text, self.sheet, *([self.markup] if self.markup else [])]

    def from_paths(self, notes_path: str) -> list[str]:
        return [notes_path, *(p.path for p in self.pages())]

    def items(self) -> list[EvidenceItem]:
        return [i for p in self.pages() for i in p.items]


async def _sheet(svc, lang: str) -> SamplePage:
    """A spreadsheet's stored text under /workspace/sources/, its table cited by locator."""
    if lang == "en":
        text, table, name, locator = EN_SHEET, EN_TABLE, "capacity", "Sheet Capacity"
    else:
        text, table, name, locator = ZH_SHEET, ZH_TABLE, "tea-output", "Sheet 产量"
    path, url = f"/workspace/sources/{name}-xlsx.md", f"/userinput/{name}.xlsx"
    items = [
        EvidenceItem(**{**i.to_dict(), "locator": locator})
        for i in make_items(text, [table], url, path)
    ]
    page = await write_page(
        svc, path, url, f"{name}.xlsx", text, [], extra=[i.to_dict() for i in items]
    )
    page.items = items
    return page


async def en_render_sample(svc) -> RenderSample:
    text = await en_page(svc)
    sheet = await _sheet(svc, "en")
    markup = await write_page(
        svc,
        "/workspace/pages/rooftop.md",
        "http://127.0.0.1:8765/rooftop",
        "Rooftop notes",
        EN_MARKUP_PAGE,
        [EN_MARKUP_SPAN],
    )
    a, b, c = text.ids()
    (t,) = sheet.ids()
    notes = f"""# Solar power outlook

Solar capacity is growing fast and getting cheaper. [{a}]

## Growth

- Solar photovoltaic capacity grew faster than any other source in 2024. [{a}]
- Module prices fell by almost half over two years. [{b}]

{EN_TABLE}

Table: Installed solar capacity by country, end of 2024. [{t}]

## Where the sources disagree

How fast prices fell is reported differently by the sources. [{b}]

## What could not be found

No source gave the cost of grid curtailment.

## Storage

Batteries are now built next to new solar farms to move power into the evening. [{c}]
"""
    return RenderSample("en", text, sheet, markup, notes)


async def zh_render_sample(svc) -> RenderSample:
    text = await zh_page(svc)
    sheet = await _sheet(svc, "zh")
    a, b, c = text.ids()
    (t,) = sheet.ids()
    notes = f"""# 中国茶叶概览

茶在中国已有数千年历史，至今产量仍居世界第一。[{a}][{c}]

## 起源

- 茶起源于中国西南地区。[{a}]
- 唐代陆羽撰写《茶经》，总结了种茶、制茶和饮茶的方法。[{b}]

## 产量

{ZH_TABLE}

表：主要产茶省份的产量与茶园面积。[{t}]

## 来源之间的分歧

各来源对茶的起源时间说法不一。[{a}]

## 未能找到的内容

没有来源给出各省的出口数据。

## 现状

今天中国仍是世界上最大的茶叶生产国。[{c}]
"""
    return RenderSample("zh", text, sheet, None, notes)


SAMPLES = {"en": en_render_sample, "zh": zh_render_sample}
