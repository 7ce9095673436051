"""Running the Host on the bundled demo world, and reading the reports it writes."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from cli_support import shared_cache

from demo.settings import demo_settings
from demo.web import DemoWorld, demo_world
from host.brains import make_brain
from host.config import Settings
from host.orchestration.hub import Host, RunResult

#: Facts the bundled site and documents give for each part of the demo question. A part
#: is answered when its cited sentences carry these facts.
DEMO_FACTS = {
    "built": [
        "605", "610", "Sui", "Yuan", "1283", "1289", "1293", "Huitong", "Tongji", "Yongji",
        "Jiangnan Canal", "Luoyang", "Han Gou", "486 BCE", "realign", "Jizhou", "Ming",
    ],
    "water": [
        "Daicun", "Nanwang", "Wen River", "1411", "spring", "water cabinet", "reservoir",
        "Song Li", "Bai Ying", "summit", "lakes",
    ],
    "decline": [
        "1855", "Yellow River", "railway", "sea shipping", "Taiping", "1901", "silt",
        "grain tribute", "steamship",
    ],
    "today": [
        "2014", "World Heritage", "South-to-North", "diversion", "shipping", "freight",
        "touris", "2022", "still",
    ],
}  # fmt: skip
DEMO_FACTS_ZH = {
    "built": ["隋", "605", "元", "会通河", "1289", "开凿", "洛阳", "通济渠", "永济渠", "截弯取直"],
    "water": ["戴村坝", "南旺", "汶", "水柜", "泉", "分水", "1411", "宋礼", "白英"],
    "decline": ["1855", "黄河", "铁路", "海运", "太平天国", "1901", "漕"],
    "today": ["2014", "世界文化遗产", "世界遗产", "南水北调", "航运", "旅游", "2022"],
}


#: The key facts each part must state, as groups: every group needs at least one of its
#: alternatives in the part's cited lines. Building must reach both the Sui canals and the
#: Yuan realignment, not only the earliest canal and the Ming restoration; water supply
#: must name the Daicun Dam and the springs or the water cabinets that fed the summit.
DEMO_KEY_FACTS = {
    "built": [("605", "Sui", "Tongji", "Yongji"), ("1283", "1289", "1293", "Huitong", "Yuan")],
    "water": [("Daicun",), ("spring", "water cabinet")],
    "decline": [("1855",), ("Yellow River",)],
    "today": [("2014",), ("World Heritage",)],
}
DEMO_KEY_FACTS_ZH = {
    "built": [
        ("隋", "605", "通济渠", "永济渠"),
        ("元代", "元朝", "会通河", "济州河", "1283", "1289", "1293"),
    ],
    "water": [("戴村坝",)],
    "decline": [("1855",), ("黄河",)],
    "today": [("2014",), ("世界文化遗产", "世界遗产")],
}


def states(line: str, fact: str) -> bool:
    """Whether a report line states ``fact``: as a whole word for Latin text ("Sui" is
    not in "pursuit"), anywhere for Chinese."""
    if not fact.isascii():
        return fact in line
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(fact)}", line, re.I) is not None


def missing_key_facts(lines: list[str], groups: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The groups of key facts none of whose alternatives the lines state."""
    return [g for g in groups if not any(states(ln, f) for f in g for ln in lines)]


def run_demo(
    runs: Path,
    question: str | None = None,
    host_cls: type[Host] = Host,
    host_kwargs: dict[str, Any] | None = None,
    **overrides: Any,
) -> tuple[Host, RunResult, DemoWorld]:
    """Run the offline Host on the demo world; ``overrides`` replace settings fields."""
    settings = replace(Settings(runs_dir=runs, quiet=True), **overrides)
    with demo_world(shared_cache()) as world:
        host = host_cls(
            demo_settings(settings, world), make_brain("offline"), **(host_kwargs or {})
        )
        result = asyncio.run(host.run(question or world.question))
    return host, result, world


def host_with(policy_cls: type) -> type[Host]:
    """A Host whose browser subagents think with ``policy_cls`` (an OfflinePolicy)."""

    class Patched(Host):
        async def make_worker(self, spec):  # type: ignore[no-untyped-def]
            agent, guard, extra = await super().make_worker(spec)
            if spec.name == "browser":
                agent.model = policy_cls(spec)
            return agent, guard, extra

    return Patched


def sections(markdown: str) -> dict[str, list[str]]:
    """A Markdown report's sections: heading → the lines that cite a source."""
    out: dict[str, list[str]] = {}
    for part in re.split(r"^## ", markdown, flags=re.M)[1:]:
        heading, _, body = part.partition("\n")
        out[heading.strip()] = [ln for ln in body.splitlines() if re.search(r"\[\d+\]", ln)]
    return out


def summary(markdown: str) -> list[str]:
    """The cited lines of a report's summary (before its first section)."""
    head = re.split(r"^## ", markdown, flags=re.M)[0]
    return [ln for ln in head.splitlines() if re.search(r"\[\d+\]", ln)]


def part_lines(markdown: str, parts: list[str]) -> dict[str, list[str]]:
    """Each part's cited lines: its section, and the summary line that answers it (the
    summary answers the parts in order)."""
    found = sections(markdown)
    lead = summary(markdown)
    answered = [p for p in parts if found.get(p)]
    out = {p: list(found.get(p, [])) for p in parts}
    for part, line in zip(answered, lead, strict=False):
        out[part].append(line)
    return out


def sources(markdown: str) -> dict[str, str]:
    """The sources list of a Markdown report: quote number → the source it is quoted from.

    Each source is a top-level bullet (``- **Title** — <url> — [stored copy](…)``) with
    its quotes as ``  - [n] “…”`` bullets under it; a source is named by its URL or path.
    """
    tail = re.split(r"^## (?:Sources|来源)\s*$", markdown, flags=re.M)[-1]
    out: dict[str, str] = {}
    source = ""
    for line in tail.splitlines():
        if line.startswith("- "):
            where = re.sub(r"^\*\*.*?(?<!\\)\*\*(?: — )?", "", line[2:])  # the title
            source = where.split(" — ")[0].strip("<>")
        elif m := re.match(r"^\s+- \[(\d+)\] ", line):
            out[m.group(1)] = source
    return out


def cited_sources(lines: list[str], numbered: dict[str, str]) -> set[str]:
    return {numbered[n] for line in lines for n in re.findall(r"\[(\d+)\]", line) if n in numbered}
