"""Where the sources disagree: the same quantity given differently by different sources.

Every sentence of the sources read is searched for quantities with a unit ("about 1,800
km", "1,794 to 1,797 km", "约1,794至1,797公里") that say what they measure (a length,
a distance, a route). Values of one kind and unit that lie close together
are taken to be the same quantity (within 10 %); when such a group holds values that do not agree
(ranges that do not overlap) from at least two sources, it is a disagreement, and every
value is cited: for each value, by a sentence that gives that value alone when one does
(in the question's language when one is), so that each citation says what it is cited for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from research.text import language, passages, plain
from subagents.evidence import EvidenceItem
from subagents.generate.writer import leans_on_context

from .research import Research

_QUANTITY = re.compile(
    r"(?P<about>about|around|roughly|some|nearly|almost|约|大约|近)?\s*"
    r"(?P<low>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(?:\s*(?:to|–|-|—|至|到|~)\s*(?P<high>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?))?"
    r"\s*(?P<unit>km\b|kilomet(?:re|er)s?\b|miles?\b|公里|千米)",
    re.I,
)
_MEASURES = {
    "length": re.compile(
        r"\b(long|length|distance|route|runs|stretch(?:es)?|total)\b|全长|长度|里程|全程", re.I
    ),
}
_UNITS = {"km": "km", "kilometre": "km", "kilometer": "km", "公里": "km", "千米": "km"}
NAMES = {"en": {"length": "the length"}, "zh": {"length": "全长"}}
#: Values within this ratio of each other are one quantity given differently.
SAME_QUANTITY = 1.1


@dataclass
class Claim:
    """One value for a quantity, as a source gives it."""

    text: str
    low: float
    high: float
    unit: str
    ev_id: str
    url: str
    about: bool = False  # "about 1,800 km": a round figure
    alone: bool = True  # the sentence gives no other value of this kind
    lang: str = "en"  # the language of the sentence
    leans: bool = False  # the sentence leans on the one before it ("They …", "此…")


@dataclass
class Disagreement:
    """A quantity the sources give differently, with every value and its citation."""

    measure: str
    unit: str
    claims: list[Claim] = field(default_factory=list)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _unit(raw: str) -> str:
    raw = raw.lower()
    for prefix, unit in _UNITS.items():
        if raw.startswith(prefix):
            return unit
    return "mi" if raw.startswith("mile") else raw


def _claims(research: Research) -> list[tuple[str, Claim]]:
    """``(measure, claim)`` for every measured quantity in the sources read."""
    out = []
    for path, text in research.texts.items():
        source = research.sources.get(path)
        if source is None:
            continue
        for sentence in passages(text):
            said = plain(sentence.text)
            kinds = [k for k, rx in _MEASURES.items() if rx.search(said)]
            if not kinds or not sentence.complete:
                continue
            found = _QUANTITY.finditer(sentence.text)
            matches = [m for m in found if _number(m.group("low")) >= 10]
            for match in matches:
                low = _number(match.group("low"))
                high = _number(match.group("high")) if match.group("high") else low
                item = research.ledger.add(
                    EvidenceItem(
                        url=source.url,
                        span=sentence.text,
                        start=sentence.start,
                        end=sentence.end,
                        page_path=path,
                        locator=sentence.section if source.kind == "file" else "",
                    )
                )
                shown = plain(match.group(0)).strip()
                claim = Claim(
                    shown,
                    low,
                    high,
                    _unit(match.group("unit")),
                    item.id,
                    source.url,
                    about=bool(match.group("about")),
                    alone=len(matches) == 1,
                    lang=language(said),
                    leans=leans_on_context(said),
                )
                out.append((kinds[0], claim))
    return out


def _agree(a: Claim, b: Claim) -> bool:
    """Two values that say the same (ranges overlap, a round figure within 0.5 %)."""
    return a.low <= b.high * 1.005 and b.low <= a.high * 1.005


def find_disagreements(research: Research) -> list[Disagreement]:
    """Every quantity the sources read give differently, largest groups first; each value
    cited by the sentence that gives it best (alone, in the question's language)."""
    lang = research.plan.language
    groups: dict[tuple[str, str], list[Claim]] = {}
    for measure, claim in _claims(research):
        groups.setdefault((measure, claim.unit), []).append(claim)
    found: list[Disagreement] = []
    for (measure, unit), claims in groups.items():
        claims.sort(key=lambda c: (c.low, c.high))
        cluster: list[Claim] = []
        for claim in [*claims, None]:
            if claim is not None and (not cluster or claim.low <= cluster[0].low * SAME_QUANTITY):
                cluster.append(claim)
                continue
            disagreement = _disagreement(measure, unit, cluster, lang)
            if disagreement is not None:
                found.append(disagreement)
            cluster = [claim] if claim is not None else []
    found.sort(key=lambda d: -len(d.claims))
    return found


def _disagreement(
    measure: str, unit: str, cluster: list[Claim], lang: str = "en"
) -> Disagreement | None:
    """The distinct values of one quantity (one claim each), if two sources disagree.

    A value is cited by a sentence that gives it alone when there is one, one that does
    not lean on the sentence before it ("They do not add up to …") before one that does,
    and one in ``lang`` before one in another language; otherwise by the first found.
    """
    values: dict[tuple[float, float], Claim] = {}
    ranked = sorted(cluster, key=lambda c: (not c.alone, c.leans, c.lang != lang))
    for claim in ranked:
        values.setdefault((claim.low, claim.high), claim)
    values = dict(sorted(values.items()))
    distinct = list(values.values())
    pairs = [(a, b) for i, a in enumerate(distinct) for b in distinct[i + 1 :] if not _agree(a, b)]
    if len({c.url for pair in pairs for c in pair}) < 2:
        return None
    return Disagreement(measure, unit, distinct)
