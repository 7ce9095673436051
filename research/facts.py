"""What a sentence states, read the same way everywhere: dates, quantities with their
units, stated causes, and whether it leans on the sentence before it.

Every judgement that needs one of these asks this module: relevance (a *when* part wants
a date, a *how many* part a quantity, a *why* part a cause), the choice of a part's
summary line, the order of a historical part's sentences, the quantities the sources
give differently, and the writer's test of a sentence that cannot stand alone. The
patterns are about how English and Chinese write dates, numbers, units and connectives;
none is about a subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .text import CJK_CLASS, plain, terms

#: What a three-digit number counts when it is not a year ("186 to 196 km", "800 men").
_COUNTED = r"(?:km|kilomet|metres?|meters?|miles?|men\b|people|tons?\b|li\b|%|years)"
#: A date: a year with an era ("221 BC"), a four-digit year, a Chinese year ("1905年"),
#: or a three-digit year where a year is written ("in 793", "793–796", "793 CE", a
#: timeline's "**800** —").
DATE = re.compile(
    r"\b(?P<era_year>\d{1,4})\s*(?P<era>BCE|BC)\b"
    r"|公元前\s*(?P<zh_era>\d{1,4})\s*年"
    r"|\b(?P<year>1\d{3}|20\d{2})\b"
    r"|(?P<zh>\d{2,4})\s*年"
    r"|\b(?:in|from|until|since|after|before|around|between|by|AD|CE)\s+(?P<short>[1-9]\d{2})\b"
    r"(?![,.]?\d)(?!\s*(?:BCE|BC)\b)(?!(?:\s*(?:[–—-]|to|and)\s*\d[\d,.]*)?\s*" + _COUNTED + ")"
    r"|\b(?P<ce>[1-9]\d{2})(?:\s*(?:CE|AD)\b|\s?[–—-]\s?[1-9]\d{2,3}\b(?!\s*" + _COUNTED + "))"
    r"|^[*_\s]*(?P<listed>[1-9]\d{2})[*_]*\s+[–—-]",
    re.I,
)
#: Years outside this range are not dates a report orders by.
_YEARS = (1, 2100)


def year_of(match: re.Match[str]) -> int | None:
    """The year a :data:`DATE` match gives (BCE as negative), or None for a Chinese
    "50年" that counts years rather than naming one."""
    if match.group("era_year") or match.group("zh_era"):
        return -int(match.group("era_year") or match.group("zh_era"))
    for name in ("year", "zh", "short", "ce", "listed"):
        value = match.group(name)
        if value:
            year = int(value)
            if name == "zh" and year < 100:
                return None
            return year if _YEARS[0] <= year <= _YEARS[1] else None
    return None


@lru_cache(maxsize=65536)
def has_date(text: str) -> bool:
    """Whether ``text`` gives a date."""
    return bool(DATE.search(text))


def years(text: str) -> list[int]:
    """The years ``text`` gives, in order (BCE as negative)."""
    return list(_years(text))


@lru_cache(maxsize=65536)
def _years(text: str) -> tuple[int, ...]:
    found = (year_of(m) for m in DATE.finditer(plain(text)))
    return tuple(y for y in found if y is not None)


def first_year(text: str) -> float | None:
    """The first year a sentence mentions (BCE as negative), or None."""
    found = years(text)
    return float(found[0]) if found else None


#: A stated cause: "because", "due to", "led to", "因为", "导致".
CAUSE = re.compile(
    r"\b(?:because|due to|lead to|led to|leads to|caus(?:e|es|ed|ing)|brought about|"
    r"as a result|result(?:s|ed)? in|owing to|thanks to|so that|therefore)\b"
    r"|因为|由于|导致|造成|因此|所以|致使|使得"
    # 使 as "made (it) …", not in 使用 (use), 大使 (envoy), 即使 (even if) and the like
    r"|(?<![即假纵大天特出公])使(?![用馆者命节臣徒])",
    re.I,
)


@lru_cache(maxsize=65536)
def states_cause(text: str) -> bool:
    """Whether a sentence states a cause or a consequence in its own words."""
    return bool(CAUSE.search(plain(text)))


# -- quantities ------------------------------------------------------------------------

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
#: Chinese measure words: after a number they say that it counts things ("3座", "两所").
ZH_MEASURE_WORDS = "个座名所种位条次倍家艘架辆部本项件块首只间层张篇届支集场"
#: Units of measure, as written → the unit they are compared in.
UNITS = {
    "km": "km",
    "kilometre": "km",
    "kilometer": "km",
    "公里": "km",
    "千米": "km",
    "mile": "mi",
    "mi": "mi",
    "英里": "mi",
    "square kilometre": "km²",
    "square kilometer": "km²",
    "square mile": "mi²",
    "平方英里": "mi²",
    "km2": "km²",
    "km²": "km²",
    "平方公里": "km²",
    "平方千米": "km²",
    "metre": "m",
    "meter": "m",
    "m": "m",
    "米": "m",
    "平方米": "m²",
    "cm": "cm",
    "厘米": "cm",
    "公分": "cm",
    "mm": "mm",
    "毫米": "mm",
    "feet": "ft",
    "foot": "ft",
    "ft": "ft",
    "英尺": "ft",
    "kg": "kg",
    "kilogram": "kg",
    "公斤": "kg",
    "千克": "kg",
    "tonne": "t",
    "ton": "t",
    "吨": "t",
    "hectare": "ha",
    "公顷": "ha",
    "acre": "acre",
    "英亩": "acre",
    "%": "%",
    "％": "%",
    "percent": "%",
    "per cent": "%",
    "people": "people",
    "inhabitants": "people",
    "residents": "people",
    "人": "people",
    "元": "yuan",
    # Chinese measure words count what they measure ("3座", "12艘")
    **dict.fromkeys(ZH_MEASURE_WORDS, ""),
    "美元": "$",
}
_SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "千": 1e3,
    "万": 1e4,
    "亿": 1e8,
}
_CURRENCY = {"$": "$", "US$": "$", "€": "€", "£": "£", "¥": "¥"}
UNITS = {written: unit or written for written, unit in UNITS.items()}


def _unit_pattern(written: str) -> str:
    """A unit as a pattern: an English one whole and maybe plural ("km", "miles")."""
    english = written[-1].isascii() and written[-1].isalpha()
    return re.escape(written) + (r"s?\b" if english else "")


_EN_UNIT = "|".join(_unit_pattern(u) for u in sorted(UNITS, key=len, reverse=True))
_QUANTITY = re.compile(
    r"(?P<about>\b(?:about|around|roughly|some|nearly|almost|approximately|over|more than)\b"
    r"|约|大约|近|超过|逾)?\s*"
    r"(?P<currency>US\$|[$€£¥])?\s*"
    rf"(?P<low>{_NUMBER})"
    rf"(?:\s*(?:to|–|-|—|至|到|~)\s*(?P<high>{_NUMBER}))?"
    r"\s*(?P<scale>thousand|million|billion|trillion|千|万|亿)?"
    r"\s*(?:多|余)?\s*"
    rf"(?P<unit>{_EN_UNIT})?"
    r"(?:\s*(?<=\s)(?P<noun>[a-z]{3,})\b)?",
    re.I,
)
#: Words after a number that do not name what it counts.
_NOT_COUNTED = frozenset(
    re.findall(
        r"\w+",
        "and or to of in on at by for from with the a an than years year days months weeks "
        "hours minutes times bc bce ad ce am pm",
    )
)


@dataclass(frozen=True)
class Quantity:
    """A number a sentence gives with what it counts: ``low``–``high`` (equal for one
    value) in ``unit`` ("km", "people", "%", or the counted noun: "ship")."""

    text: str
    low: float
    high: float
    unit: str
    about: bool
    start: int
    end: int


def _value(raw: str) -> float:
    return float(raw.replace(",", ""))


def _unit_of(match: re.Match[str]) -> str:
    """What a quantity counts: a unit of measure, a currency, or the noun after it."""
    currency = match.group("currency")
    if currency:
        return _CURRENCY.get(currency, currency)
    unit = (match.group("unit") or "").lower()
    if unit:
        key = unit if unit in UNITS else unit.rstrip("s")
        return UNITS.get(key, key)
    noun = (match.group("noun") or "").lower()
    if noun and noun not in _NOT_COUNTED:
        return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
    return ""


def quantities(text: str) -> list[Quantity]:
    """The quantities ``text`` gives with a unit or a counted noun ("about 1,800 km",
    "3.2 million people", "40%", "约1,160至1,190公里", "1200万人", "12 ships"); a year
    is not a quantity, nor is a number with nothing said of what it counts."""
    out = []
    for match in _QUANTITY.finditer(text):
        unit = _unit_of(match)
        measured = bool(match.group("unit") or match.group("currency"))
        if not unit or (not measured and _is_year(match.group("low"))):
            continue
        if _is_year(match.group("low")) and _DATE_BEFORE.search(text[: match.start("low")]):
            continue  # "in 1855 people left": a year, then the sentence goes on
        scale = _SCALES.get((match.group("scale") or "").lower(), 1.0)
        low = _value(match.group("low")) * scale
        high = _value(match.group("high")) * scale if match.group("high") else low
        last = "unit" if match.group("unit") else "noun" if not measured else None
        ends = (match.end("low"), match.end("high"), match.end("scale"))
        end = match.end(last) if last else max(ends)
        begin = match.start("about") if match.group("about") else match.start("low")
        if match.group("currency"):
            begin = min(begin, match.start("currency"))
        out.append(
            Quantity(
                text=text[begin:end],
                low=min(low, high),
                high=max(low, high),
                unit=unit,
                about=bool(match.group("about")),
                start=begin,
                end=end,
            )
        )
    return out


_DATE_BEFORE = re.compile(r"\b(?:in|since|by|until|from|after|before|of|during)\s*$|年\s*$", re.I)


def _is_year(raw: str) -> bool:
    return bool(re.fullmatch(r"1\d{3}|20\d{2}", raw))


_ZH_NUMERAL = "一二三四五六七八九十百千万两"
#: Not a span of years: a year in digits (2000年), 年 of a grade, decade or date (五年级,
#: 1990年代, 年底), and a numeral after one of these (同一年, 第二年, 去年), shared by
#: :data:`_BARE_COUNT` and :data:`_ZH_SPAN`.
_NOT_A_YEAR = r"(?!(?:1\d{3}|20\d{2})\s?年)"
_SPAN_YEAR = "年(?![级代月底初])"
_NOT_SPAN_BEFORE = f"{_ZH_NUMERAL}〇零同这那第每当前后去明今"
#: A number that is a quantity even with nothing named after it: grouped or decimal
#: ("12,000", "3.5"), two digits or more that are not a year, a Chinese count ("三座",
#: "两所") or span of years ("50多年", "六年"). A year is no span of years: "2000年",
#: "于605年"; nor is "同一年", "第二年" or "五年级".
_BARE_COUNT = re.compile(
    r"\d{1,3}(?:,\d{3})+|\d+\.\d+|\b(?!1[0-9]{3}\b|20[0-9]{2}\b)\d{2,}\b"
    rf"|(?<![\d于在从自])(?<![于在从自]\s){_NOT_A_YEAR}"
    r"\d+\s?(?:万|亿|千|百|多|余)?\s?(?:年|平方)"
    rf"|[{_ZH_NUMERAL}]+(?:[{ZH_MEASURE_WORDS}]|万|亿)"
    rf"|(?<![{_NOT_SPAN_BEFORE}])[{_ZH_NUMERAL}]{{1,3}}(?:多|余)?{_SPAN_YEAR}"
)


#: English numbers written as words ("two universities", "dozens of"); "one" is left out,
#: as it is a pronoun as often as a number.
_NUMBER_WORD = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundreds?|thousands?|millions?|billions?|dozens?|half|twice|thrice"
    r"|double|triple)\b",
    re.I,
)
#: What a Chinese number may be counted in: a measure word, a unit of time, age, people.
_COUNTS_IN = f"{ZH_MEASURE_WORDS}年月天日周岁人"
#: A unit a number is measured in, not counted (公里, 英亩, %), after the number.
_MEASURED = re.compile(
    r"\s*(?:"
    + "|".join(
        re.escape(u)
        for u in sorted(UNITS, key=len, reverse=True)
        if u not in ZH_MEASURE_WORDS and u != "人"
    )
    + ")"
)
#: What a Chinese "how many" counts in when it says so: 多少所 (a measure word), 几年, 多少人.
_ZH_COUNTED_IN = re.compile(rf"(?:多少|几)\s?([{_COUNTS_IN}])")
_ZH_COUNT = re.compile(
    rf"(?P<number>\d[\d,.]*|[{_ZH_NUMERAL}几数]+)\s?[十百千万亿]*\s?(?:多|余)?\s?"
    rf"(?P<measure>[{_COUNTS_IN}])?"
)


def counted_in(question: str) -> str:
    """The measure word or unit a Chinese "how many" asks in (所 in 有多少所大学, 年 in
    持续了几年), or "" when it names none (多久, 多少)."""
    match = _ZH_COUNTED_IN.search(question)
    return match.group(1) if match else ""


def has_count(text: str, measure: str) -> bool:
    """Whether ``text`` gives a number counted in ``measure`` ("两所", "5万至6万只",
    "数百只", "5000万人", "12 个"), or a number in digits counted in nothing, which may
    be one ("最常被引用的数字是5000万"); not one counted in something else ("一年" for
    多少只, "1918年" for 多少人)."""
    said = plain(text)
    for match in _ZH_COUNT.finditer(said):
        counted = match.group("measure")
        if counted == measure:
            return True
        measured = _MEASURED.match(said, match.end()) is not None  # 21英亩, 5.3%
        if not counted and not measured and match.group("number")[0].isdigit():
            return True
    return False


#: A span of time in Chinese: a number of years, months, days, weeks, hours or centuries
#: (六年, 50多年, 三个月, 10天); not a year (2000年, 于605年), a date (2月28日) or 第二年.
_SPAN_UNIT = rf"\s?(?:多|余)?\s?(?:{_SPAN_YEAR}|个月|个?世纪|个?星期|个?小时|天|周|分钟)"
_ZH_SPAN = re.compile(
    rf"(?<![\d于在从自第]){_NOT_A_YEAR}\d+{_SPAN_UNIT}"
    rf"|(?<![{_NOT_SPAN_BEFORE}])[{_ZH_NUMERAL}几数]+{_SPAN_UNIT}"
)


def has_span(text: str) -> bool:
    """Whether a Chinese text gives a span of time (六年, 三个月, 50多年): the answer to
    多久 or 多长时间."""
    return _ZH_SPAN.search(plain(text)) is not None


@lru_cache(maxsize=65536)
def has_quantity(text: str) -> bool:
    """Whether ``text`` gives a quantity: one with a unit or a counted noun (see
    :func:`quantities`), a number that can only be one (see :data:`_BARE_COUNT`), or a
    number written as a word."""
    said = plain(text)
    return bool(_BARE_COUNT.search(said) or _NUMBER_WORD.search(said) or quantities(said))


# -- pointing back ---------------------------------------------------------------------

_LEANING_START = re.compile(
    r"^(?:(?:when|after|as|but|and|so|then|yet|because|while|since)\s+"
    r"(?:it|its|they|them|their|this|these|those|such|he|she|his|her)\b|"
    r"(?:however|therefore|thus|hence|moreover|meanwhile|instead|likewise|similarly|also|"
    r"in addition|as a result|at the same time|in this way)\b|"
    r"(?:this|that|these|those|such|it|they|he|she)\b)",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:it|they|them|he|she|him)\b", re.I)
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|such)\s+(?!is\b|was\b|are\b|were\b)[a-z]", re.I)
#: A sentence whose subject is a share of something named before it ("several of them").
_SHARE_OF_THEM = re.compile(
    r"\b(?:several|some|many|most|all|each|none|one|both|few|two|three) of (?:them|these|those)\b",
    re.I,
)
_NAMED = re.compile(r"(?<!^)\b[A-Z][a-z]+|\d")
_ZH_OPENING = re.compile(
    r"^(?:此|这|那|该|其|它|他|她|因此|所以|于是|与此同时|同时|但|然而|而|此外|另外|不过|并且|也)"
)
_ZH_LEANING = re.compile(
    r"^(?:此|这|那|该|其|它|他|她|因此|所以|于是|与此同时|同时|但|然而|而|此外|另外|不过|并且|也|"
    r"[^，。；]{0,6}(?:此|这些|这一|该|其))"
)
#: A Chinese character, or CJK punctuation or a full-width form.
_CJK = re.compile(rf"[\u3000-\u303f{CJK_CLASS}\uff00-\uffef]")


def _chinese(said: str) -> bool:
    """Whether a sentence is Chinese: Chinese near its start, not opening in Latin."""
    return bool(_CJK.search(said[:12])) and not re.match(r"[A-Za-z]", said)


def _bare_pronoun(said: str) -> bool:
    """Whether a pronoun ("it", "they") stands in a sentence before anything is named
    for it to stand for: "After the closure of the mine it grew further"."""
    pronoun = _PRONOUN.search(said)
    return bool(pronoun) and not _NAMED.search(said[: pronoun.start()])


def leans_on_context(text: str, opening_only: bool = False) -> bool:
    """Whether a sentence's meaning depends on the sentence before it.

    It opens with a connective ("However", "At the same time", "因此", "与此同时") or with
    a pronoun or demonstrative ("It", "These", "此", "该"); or, unless ``opening_only``,
    its subject further on is one ("On the bridge this problem was …", "… several of
    them") with nothing named before it for that word to point to.
    """
    said = plain(text).strip()
    if _chinese(said):
        leaning = _ZH_OPENING if opening_only else _ZH_LEANING
        return bool(leaning.match(said))
    if _LEANING_START.match(said):
        return True
    if opening_only:
        return False
    if _DEMONSTRATIVE.search(" ".join(said.split()[:8])) or _SHARE_OF_THEM.search(said):
        return True
    return _bare_pronoun(said)


def points_back(text: str) -> bool:
    """Whether a sentence cannot stand in a part's body: it opens by pointing back (see
    :func:`leans_on_context`), or a pronoun in it has nothing named before it to stand for.
    A demonstrative further on that names its noun ("On the bridge this problem was …")
    still reads on its own there."""
    if leans_on_context(text, opening_only=True):
        return True
    said = plain(text).strip()
    return not _chinese(said) and _bare_pronoun(said)


#: A pronoun for a thing ("it", "them", 它): read alone, it stands for something named.
_THING_PRONOUN = re.compile(r"\b(?:it|they|them)\b|它们?", re.I)


def names_subject(text: str, core: Sequence[str]) -> bool:
    """Whether a sentence names the subject whose core terms are ``core`` by its name
    ("the Eiffel Tower", not only "the tower"), in Chinese by one of its terms."""
    said = plain(text)
    if not core:
        return False
    if _chinese(said):
        return any(term in said for term in core)
    words, n = terms(said), len(core)
    return any(tuple(words[i : i + n]) == tuple(core) for i in range(len(words) - n + 1))


def pronoun_before_subject(text: str, core: Sequence[str]) -> bool:
    """Whether a pronoun for a thing ("it", "they", 它) stands in a sentence before the
    subject is named in it. A sentence read on its own, as a summary line is, leaves
    such a pronoun standing for nothing it says ("… built a dam across it").
    """
    said = plain(text)
    pronoun = _THING_PRONOUN.search(said)
    return bool(pronoun) and not names_subject(said[: pronoun.start()], core)


#: A sentence opening with a pronoun or demonstrative for its subject, after at most a
#: connective: "It …", "When they …", "Its …", "此…", "该…".
_PRONOUN_START = re.compile(
    r"(?:(?:when|after|as|but|and|so|then)\s+)?(?:it|its|they|them|their|this|that|these|"
    r"those|such|he|she|his|her)\b|[它其该这此他她]",
    re.I,
)


@lru_cache(maxsize=65536)
def opens_leaning(text: str) -> bool:
    """Whether a sentence's subject is a pronoun or a share of something named before it
    ("It …", "Several of them …", "该…"): it says less on its own. A connective alone
    ("However", "因此") leaves the sentence its own subject."""
    said = plain(text).strip()
    return bool(_PRONOUN_START.match(said) or _SHARE_OF_THEM.search(said))
