"""What a sentence states, read the same way everywhere: dates, quantities with their
units, stated causes, whether it leans on the sentence before it, and whether a pronoun
or pointing word in it stands for something it does not name.

Every judgement that needs one of these asks this module: relevance (a *when* part wants
a date, a *how many* part a quantity, a *why* part a cause), where a quote starts, the
choice of a part's summary line, the order of a historical part's sentences, the
quantities the sources give differently, and the writer's test of a sentence that cannot
stand alone. The patterns are about how English and Chinese write dates, numbers, units,
connectives and pronouns (the noun a number counts in any script: "12 ships", "5
миллионов"); none is about a subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from .lang import generic, language
from .text import (
    CJK,
    CJK_CLASS,
    CJK_TEXT,
    MONTHS,
    STOP_WORDS,
    is_bare_verb,
    is_verb_form,
    plain,
    reading_language,
    readings,
    terms,
)

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
#: A day of a month in English: "3 May", "May 3".
DAY_OF_MONTH = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{'|'.join(sorted(MONTHS))})\b"
    rf"|\b(?:{'|'.join(sorted(MONTHS))})\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?![\d,.])",
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


#: A stated cause: "because", "due to", "led to", "the result of", "因为", "导致".
CAUSE = re.compile(
    r"\b(?:because|due to|lead to|led to|leads to|caus(?:e|es|ed|ing)|brought about|"
    r"as a result|result(?:s|ed)? in|(?:the )?results? of|resulting from|stem(?:s|med)? from|"
    r"owing to|thanks to|so that|therefore)\b"
    r"|因为|由于|导致|造成|因此|所以|致使|使得"
    # 使 as "made (it) …", not in 使用 (use), 大使 (envoy), 即使 (even if) and the like
    r"|(?<![即假纵大天特出公])使(?![用馆者命节臣徒])",
    re.I,
)


@lru_cache(maxsize=65536)
def states_cause(text: str) -> bool:
    """Whether a sentence states a cause or a consequence in its own words."""
    return bool(CAUSE.search(plain(text)))


#: How a thing is done, step by step or by what means: "by closing one gate and opening
#: the other", "… until the level matched", "and then", "so that", 通过, 然后, 直到, 从而.
MEANS = re.compile(
    r"\b(?:by|through)\s+(?:\w+ly\s+)?\w+ing\b|\buntil\b|\bthen\b|\bin turn\b|\bso that\b"
    r"|\bin order to\b|\bwhich (?:allows?|allowed|lets?|made|makes)\b|\bstep by step\b"
    r"|通过|透过|然后|随后|直到|直至|从而|以便|借助|利用|依靠|先后|逐级|依次",
    re.I,
)


@lru_cache(maxsize=65536)
def states_means(text: str) -> bool:
    """Whether a sentence says how something is done: by what means, or in what steps
    (see :data:`MEANS`): what a *how* part is answered by."""
    return bool(MEANS.search(plain(text)))


# -- figures given as others give them ---------------------------------------------------

#: Who may be said to give a figure, in English: "some older reference *works* give".
_EN_TELLERS = (
    r"works?|sources?|authors?|accounts?|writers?|scholars?|historians?|estimates?|"
    r"references?|books?|studies|reports?|texts?|records?|surveys?|maps?|guides?|"
    r"authorities|people|experts?"
)
#: What they do with it: "give", "put", "say", "estimate", …
_EN_TELLING = (
    r"give|gives|gave|say|says|said|put|puts|state|states|claim|claims|list|lists|record|"
    r"records|suggest|suggests|cite|cites|quote|quotes|report|reports|estimate|estimates|have"
)
#: Per language, the ways a sentence gives a figure as others give it rather than as its
#: own: "some older works give …", "is sometimes given as …", "according to …", "others
#: say …", 有人认为, 也有说法, 一说, 据…记载. Language as data, about no subject.
REPORTING = {
    "en": re.compile(
        r"\baccording to\b"
        rf"|\b(?:some|other|older|earlier|several|many|various|a few)\s+(?:[a-z-]+\s+){{0,2}}"
        rf"(?:{_EN_TELLERS})\s+(?:[a-z]+ly\s+|still\s+|also\s+)?(?:{_EN_TELLING})\b"
        r"|\bothers\s+(?:say|said|give|gave|put|claim|state|suggest|report|estimate)\b"
        r"|\bsome\s+(?:say|said|claim|give|put|suggest|argue|believe)\b"
        r"|\b(?:is|are|was|were|been)\s+(?:[a-z]+ly\s+|also\s+)?"
        r"(?:said|claimed|alleged|rumou?red|reputed)\s+to\b"
        r"|\b(?:sometimes|also|occasionally|elsewhere|variously|alternatively|formerly|"
        r"previously|once)\s+(?:been\s+)?(?:given|quoted|cited|stated|put|reported|estimated|"
        r"listed|recorded|reckoned)\s+(?:as|at)\b",
        re.I,
    ),
    "zh": re.compile(
        r"有人(?:认为|说|称|指出|估计|主张)"
        r"|(?:也|亦|另|还)有(?:人|说法|记载|资料|文献|学者|一说)"
        r"|有(?:的|些)(?:人|资料|文献|学者|著作|书|史料|记载|研究|说法)"
        r"|(?:一些|部分|其他|其它|早期|旧|较早的?|另一些)(?:资料|文献|学者|著作|书籍|史料|记载|研究|说法)"
        r"|(?:^|[，,；;。（(、：:])\s*(?:一说|又说|或说|另说)"
        r"|据(?:说|称|传)|相传|传说"
        r"|据[^，,。；;]{1,12}(?:记载|所载|所记|所述|称|说)"
    ),
}


@lru_cache(maxsize=65536)
def reports_others(text: str) -> bool:
    """Whether a sentence gives figures as others give them ("some older works give 80
    km", "is sometimes given as", "according to", 有人认为, 一说…) rather than only as
    its own: such a sentence tells how a figure is given, and is no citation for one of
    its figures as the source's own (see :data:`REPORTING`)."""
    said = plain(text)
    return any(pattern.search(said) for pattern in REPORTING.values())


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
    r"\s*(?P<scale>(?:thousand|million|billion|trillion)\b|千|万|亿)?"  # not "Millionen"
    r"\s*(?:多|余)?\s*"
    rf"(?P<unit>{_EN_UNIT})?"
    r"(?:\s*(?<=\s)(?P<noun>[^\W\d_]{3,})\b)?",  # letters of any script: "5 миллионов"
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
    if noun and noun not in _NOT_COUNTED and noun not in MONTHS and noun not in _idle_words():
        return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun
    return ""


def _idle_words() -> frozenset[str]:
    """The words of the language being read (see :func:`research.text.reading`) that name
    nothing a number counts: its commonest words ("и", "και", "der"), as "and", "of" and
    the like are in English (:data:`_NOT_COUNTED`)."""
    code = reading_language()
    known = language(code) or generic(code)
    return known.function_words if known is not None else frozenset()


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


#: What each unit of :data:`UNITS` measures, as compared.
MEASURES = {
    "km": "length",
    "mi": "length",
    "m": "length",
    "cm": "length",
    "mm": "length",
    "ft": "length",
    "km²": "area",
    "m²": "area",
    "mi²": "area",
    "ha": "area",
    "acre": "area",
    "kg": "weight",
    "t": "weight",
    "%": "share",
    "$": "amount",
    "€": "amount",
    "£": "amount",
    "¥": "amount",
    "yuan": "amount",
}
#: The measures a question asks its quantity in, by the words that ask it, the first that
#: matches: a span of time ("how long did …", 多长时间, 多久), a length ("how long is …"),
#: either ("how long was …"), a length ("how tall", "how deep", "how far", "the length
#: of", 多长, 全长, 多高, 多远), a weight ("how heavy", 多重), an area ("the area of", 面积).
#: "How big", "how large" and 多大 ask no one measure (a lake's area, a loss's share, a
#: city's people).
ASKS_MEASURE = tuple(
    (re.compile(pattern, re.I), frozenset(measures.split()))
    for pattern, measures in (
        (
            r"多长时间|多久|\bhow long\s+(?:did|does|do|will|would|has|have|had)\b",
            "duration",
        ),
        (r"\bhow long\s+(?:is|are)\b", "length"),
        (r"\bhow long\b", "length duration"),
        (
            r"\bhow (?:tall|high|deep|far|wide|thick)\b|\b(?:length|height|depth|width|distance)"
            r"\s+of\b|多长|全长|长度|多高|高度|海拔|多深|深度|多远|距离|多宽|宽度",
            "length",
        ),
        (r"\bhow heavy\b|\bweight\s+of\b|多重|重量", "weight"),
        (r"\barea\s+of\b|面积", "area"),
    )
)
#: A number of English words or digits, as a span of time counts ("two", "18", "a few").
_SPAN_NUMBER = (
    r"(?:\d[\d,.]*|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|several|many|some"
    r"|hundreds of|thousands of|a few)"
)
#: An English unit of time ("years", "a decade").
_TIME_WORDS = (
    r"(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|decades?|centuries|century"
    r"|millennia|millennium)"
)
#: A span of time in English: a number of years, months, days… ("two years", "a decade",
#: "18 months", "five to six weeks"), or a range of years ("from 1790 to 1880").
_DURATION = re.compile(
    rf"\b(?:{_SPAN_NUMBER}\s*(?:to|or|–|-)\s*)?{_SPAN_NUMBER}\s+{_TIME_WORDS}\b"
    r"|\b(?:1\d{3}|20\d{2})\s*(?:–|-|—|to|until)\s*(?:1\d{3}|20\d{2})\b",
    re.I,
)


#: A unit of time an English question may count in ("how many years …").
_TIME_UNIT = re.compile(rf"\b{_TIME_WORDS}\b", re.I)


def count_of(question: str, text: str) -> str:
    """``text`` as it may give the count an English "how many" ``question`` asks for:
    its spans of time blanked ("five to six weeks" counts no bees; each character kept
    in place), unless the question asks a measure or how often, or counts in a unit of
    time itself ("how many years …")."""
    if _TIME_UNIT.search(question) or measure_asked(question) or asks_frequency(question):
        return text
    return _DURATION.sub(lambda m: " " * len(m.group(0)), text)


#: The dimension of a length, by the words that ask it or say it (English and Chinese):
#: a height ("how tall", "2,140 metres above sea level", "the highest point, at 2,140
#: metres", 海拔), a depth, a distance ("100 km away", "60 km north of the capital", 距离),
#: a width ("40 km across", 直径) or a length along ("2 km long", 全长). A bare Chinese
#: character (高, 长) says one only right before the number (塔高350米, 长约584公里): else
#: it is part of too many names.
_DIMENSIONS = tuple(
    (name, re.compile(pattern, re.I))
    for name, pattern in (
        (
            "height",
            r"\b(?:tall|taller|tallest|high|higher|highest|height|elevation|altitude"
            r"|above sea level)\b|海拔|高度|高达|多高|高$",
        ),
        ("depth", r"\b(?:deep|deeper|deepest|depth)\b|深度|深达|水深|多深|深$"),
        (
            "distance",
            r"\b(?:how far|away|distant|distance|(?:north|south|east|west)(?:east|west)?(?:ern)?"
            r"\s+of)\b|距|之遥|多远",
        ),
        ("width", r"\b(?:wide|wider|widest|width|across|diameter|thick)\b|宽度|直径|多宽|宽$"),
        ("length", r"\b(?:long|longer|longest|length)\b|全长|长度|长达|多长|长$"),
    )
)
#: How far from a length the words saying its dimension are looked for (characters).
_DIMENSION_REACH = 40
#: What ends the words said of one length: another number, a clause's punctuation, "and".
_CLAUSE_BREAK = re.compile(r"\d|[,，;；。:：(（]|\band\b")


def dimension_asked(question: str) -> str:
    """The dimension of length a question asks its measure in ("how tall": height; "how
    far": distance; see :data:`_DIMENSIONS`), by the first such word after its question
    word; "" when it asks none."""
    if "length" not in measure_asked(question):
        return ""
    found = [(m.start(), name) for name, pattern in _DIMENSIONS for m in pattern.finditer(question)]
    return min(found)[1] if found else ""


def dimension_of(text: str, start: int, end: int) -> str:
    """The dimension a length at ``start:end`` of ``text`` is said to be of: that of the
    nearest word saying one (see :data:`_DIMENSIONS`) within :data:`_DIMENSION_REACH`
    characters and its own clause, not past another number ("3 km north of the bay and
    rises 214 m": a distance, then a length no word says); "" when none says."""
    after = _CLAUSE_BREAK.split(text[end : end + _DIMENSION_REACH])[0]
    before = _CLAUSE_BREAK.split(text[max(0, start - _DIMENSION_REACH) : start])[-1]
    found = []
    for name, pattern in _DIMENSIONS:
        found += [(m.start(), name) for m in pattern.finditer(after)]
        found += [(len(before) - m.end(), name) for m in pattern.finditer(before)]
    return min(found)[1] if found else ""


def fits_dimension(text: str, quantity: Quantity, dimension: str) -> bool:
    """Whether a length ``text`` gives can be of the ``dimension`` asked: said to be of
    it, or of none ("100 km southwest of the capital" is no height)."""
    if not dimension or MEASURES.get(quantity.unit) != "length":
        return True
    return placed_in(quantity, dimension_of(text, quantity.start, quantity.end), dimension)


def placed_in(quantity: Quantity, said_of: str, dimension: str) -> bool:
    """Whether a quantity whose words say it is of the dimension ``said_of`` (see
    :func:`dimension_of`; "" for none) can be of the ``dimension`` asked: any quantity
    but a length, and a length said to be of it or of none."""
    return MEASURES.get(quantity.unit) != "length" or said_of in ("", dimension)


def measure_asked(question: str) -> frozenset[str]:
    """The measures a question asks its quantity in (see :data:`ASKS_MEASURE`): "how
    long is the pier" a length or a span of time; none for a question that asks a count
    or no quantity."""
    return next((m for pattern, m in ASKS_MEASURE if pattern.search(question)), frozenset())


def gives_measure(text: str, measures: frozenset[str], dimension: str = "") -> bool:
    """Whether ``text`` gives a quantity in one of ``measures``: a length in km or feet
    (of the ``dimension`` asked, or of none said: see :func:`fits_dimension`), an area, a
    weight, a span of time ("two years", 六年, "from 1790 to 1880"); a count ("seven
    sections") is none of them."""
    said = plain(text)
    if "duration" in measures and (_DURATION.search(said) or has_span(said)):
        return True
    return any(
        MEASURES.get(q.unit) in measures and fits_dimension(said, q, dimension)
        for q in quantities(said)
    )


#: A question that asks how often (a number of times in a span of time, or a word that
#: says how frequent).
ASKS_FREQUENCY = re.compile(
    r"\bhow (?:often|frequently)\b|\bwith what frequency\b|多久一次|多长时间一次|频率|多常",
    re.I,
)
#: How often something happens: "every five years", "twice a year", "three times per
#: season", "annually", "rarely"; 每年, 每隔, 一年一次, 两次, 经常, 很少.
_FREQUENCY = re.compile(
    r"\bevery\s+(?:\w+\s+){0,2}\w+|\beach\s+(?:year|month|week|day|hour|decade|century|season)"
    r"|\b(?:once|twice|thrice|(?:\w+|\d+)\s+times)\s+(?:a|an|per|each|every|in)\b"
    r"|\b(?:annually|yearly|biennially|monthly|weekly|daily|nightly|hourly|quarterly"
    r"|rarely|seldom|often|frequently|occasionally|regularly|periodically|constantly"
    r"|continuously|always|never|sometimes|usually)\b"
    r"|每(?:年|月|周|星期|天|日|晚|小时|隔|届|季|次)|[一二两三四五六七八九十\d]+(?:年|月|周|天|日)一次"
    r"|[一二两三四五六七八九十\d]+次|经常|很少|偶尔|定期|不定期|频繁|常常|时常|一年一度",
    re.I,
)


def asks_frequency(question: str) -> bool:
    """Whether a question asks how often."""
    return bool(ASKS_FREQUENCY.search(question))


def has_frequency(text: str) -> bool:
    """Whether ``text`` says how often something happens (see :data:`_FREQUENCY`)."""
    return bool(_FREQUENCY.search(plain(text)))


# -- pointing back ---------------------------------------------------------------------

#: Words that open a sentence to join it to the one before ("However", "因此") without
#: standing for anything in it: the sentence keeps its own subject.
_CONNECTIVES = (
    "however|therefore|thus|hence|moreover|meanwhile|instead|likewise|similarly|also|"
    "in addition|as a result|at the same time"
)
_ZH_CONNECTIVES = "因此|所以|于是|与此同时|同时|但|然而|而|此外|另外|不过|并且|也"
_LEANING_START = re.compile(
    r"^(?:(?:when|after|as|but|and|so|then|yet|because|while|since)\s+"
    r"(?:it|its|they|them|their|this|these|those|such|he|she|his|her)\b|"
    rf"(?:{_CONNECTIVES}|in this way)\b|"
    r"(?:this|that|these|those|such|it|they|he|she)\b)",
    re.I,
)
#: An opening connective set off by its comma, with the space after it.
_CONNECTIVE_OPENING = re.compile(rf"(?:{_CONNECTIVES}|{_ZH_CONNECTIVES})\s*[,，]\s*", re.I)
_PRONOUN = re.compile(r"\b(?:it|they|them|he|she|him)\b", re.I)
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|such)\s+(?!is\b|was\b|are\b|were\b)[a-z]", re.I)
#: A sentence whose subject is a share of something named before it ("several of them").
_SHARE_OF_THEM = re.compile(
    r"\b(?:several|some|many|most|all|each|none|one|both|few|two|three) of (?:them|these|those)\b",
    re.I,
)
_NAMED = re.compile(r"(?<!^)\b[A-Z][a-z]+|\d")
_ZH_OPENING = re.compile(rf"^(?:此|这|那|该|其|它|他|她|{_ZH_CONNECTIVES})")
_ZH_LEANING = re.compile(
    rf"^(?:此|这|那|该|其|它|他|她|{_ZH_CONNECTIVES}|[^，。；]{{0,6}}(?:此|这些|这一|该|其))"
)


def opening_connective(text: str) -> int:
    """How many characters of ``text`` an opening connective set off by its comma takes
    ("However, ", "然而，"), with the space after it: the rest is a sentence that reads on
    its own, so a quote may start there. 0 when there is none, or when what follows it
    opens in lower case ("However, the …" would not read as a sentence)."""
    found = _CONNECTIVE_OPENING.match(text)
    if found is None or text[found.end() : found.end() + 1].islower():
        return 0
    return found.end()


def _chinese(said: str) -> bool:
    """Whether a sentence is Chinese: Chinese near its start, not opening in Latin."""
    return bool(CJK_TEXT.search(said[:12])) and not re.match(r"[A-Za-z]", said)


def _bare_pronoun(said: str) -> bool:
    """Whether a pronoun ("it", "they") stands in a sentence before anything is named
    for it to stand for: "After the closure of the mine it grew further"."""
    pronoun = _PRONOUN.search(said)
    return bool(pronoun) and not _NAMED.search(said[: pronoun.start()])


#: Words that stand for a share of things named before when a verb follows them ("Some
#: grew …", "Others stood …", "Most were …").
_SHARES = frozenset(["some", "others", "many", "most", "several", "both", "few", "all", "each"])
#: Auxiliaries that follow such a share as its verb ("Most *were* …").
_SHARE_VERBS = frozenset(["is", "are", "was", "were", "had", "have", "has", "did", "do", "could"])


def _share_opening(said: str) -> bool:
    """Whether an English sentence opens with a share of things named before as its
    subject ("Some grew because …"), not of things it names ("Some towns grew …")."""
    first = re.match(r"([A-Za-z]+)\s+([A-Za-z]+)", said)
    if first is None or first.group(1).lower() not in _SHARES:
        return False
    verb = first.group(2).lower()
    return verb in _SHARE_VERBS or (is_verb_form(verb) and "NOUN" not in readings(verb))


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
    if _LEANING_START.match(said) or _share_opening(said):
        return True
    if opening_only:
        return False
    if _DEMONSTRATIVE.search(" ".join(said.split()[:8])) or _SHARE_OF_THEM.search(said):
        return True
    return _bare_pronoun(said)


def points_back(text: str) -> bool:
    """Whether a quote cannot stand in a part's body: it opens by pointing back (see
    :func:`leans_on_context`), or a pronoun or pointing word anywhere in it stands for
    something it does not name (see :func:`refers_outside`: "… the council built a weir across
    it", "From there the road …", "1902年，镇上在它上面…"). A demonstrative further on that
    names its noun ("On the bridge this problem was …") still reads on its own there, and
    so does a quote that carries the sentence its pronoun stands for (see
    :func:`research.relevance.quote_bounds`)."""
    return leans_on_context(text, opening_only=True) or refers_outside(text)


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


# -- what a pronoun or a pointing word stands for --------------------------------------
#
# A third-person pronoun ("it", "them", 它) cannot stand for the subject or the object of
# its own clause ("the council built the weir across it": "it" is neither the council nor the
# weir), so it stands for something an earlier clause of the text names, or for what the
# sentence before says. A pointing word ("there", "at that time", "this" standing alone,
# 此, 那里) does the same. A possessive ("its", 其) may stand for a noun before it in its own
# clause ("the mill lost its wheel"). These patterns are about how English and Chinese
# refer; none is about a subject.

#: An English word that stands for something named elsewhere: a personal pronoun, a
#: demonstrative ("this", "these", a pronoun only when no noun follows it: see
#: :func:`_demonstrative_alone`), a pointing adverb ("there", "here") or a phrase pointing to
#: a time said before ("at that time", "since then", "the following year").
_EN_REFERRING = re.compile(
    r"\b(?P<personal>it|they|them|he|she|him)\b"
    r"|\b(?P<demonstrative>this|these)\b"
    r"|\b(?P<place>there|here)\b"
    r"|\b(?:(?:at|by|until|till|since|from|before|after|around) (?:that|this) "
    r"(?:time|point|date|moment|stage|period)"
    r"|(?:by|until|till|since) then|from then on"
    r"|(?:in|during|by) (?:that|the same|the following|the next|the previous) year)\b",
    re.I,
)
#: An English possessive: it may stand for a noun before it in its own clause.
_EN_POSSESSIVE = re.compile(r"\b(?:its|their|his|her)\b", re.I)
#: "it" standing for nothing, the subject a clause needs when what it says comes later:
#: "it was decided to …", "it was not until 1902 that …", "it took ten years to …",
#: "made it possible to …".
_DUMMY_IT = re.compile(
    r"it\s+(?:(?:is|was|has been|had been|will be|would be|could be|may be|might be|"
    r"seems|seemed|appears|appeared|became|becomes|remains|remained)\s+(?:\S+\s+){0,3}?"
    r"(?:that|to|whether|how|why|not until|until)\b"
    r"|(?:takes|took|take|taking)\s+(?:\S+\s+){0,3}?to\b|(?:means|meant)\s+to\b"
    r"|(?:\S+\s+)?(?:possible|impossible|difficult|easier|easy|harder|hard|necessary|clear)"
    r"\s+(?:to|for|that)\b)",
    re.I,
)
#: What follows an existential "there": a form of "to be" or a verb of being, after at most
#: a few auxiliaries or adverbs ("there is", "there have long been", "there once stood").
_EXISTENTIAL = re.compile(
    r"\s+(?:(?:may|might|must|can|could|will|would|should|shall|has|have|had|also|still|"
    r"once|now|then|never|always|often|usually|long|already|soon|not|no longer|"
    r"(?:seems?|seemed|appears?|appeared|used|(?:is|are|was|were) said) to)\s+){0,3}"
    r"(?:is|are|was|were|be|been|being|exists?|existed|remains?|remained|lived|stands?|"
    r"stood|lies|lay|arose|arises|came|comes|followed|follows|seems|seemed|appears|"
    r"appeared)\b"
    r"|['’]s\b",
    re.I,
)
#: "was there any …", "is there a …": an existential "there" after its verb.
_BE_BEFORE = re.compile(r"\b(?:is|are|was|were)\s+$", re.I)
_QUANTIFIER_AFTER = re.compile(
    r"\s+(?:any|a|an|no|some|much|many|little|few|enough|more|several)\b", re.I
)
#: What follows "this" or "these" standing for something rather than before its noun: a
#: stop, an auxiliary, a preposition or a conjunction, an article.
_DEMONSTRATIVE_ENDS = re.compile(
    r"\s*(?:[,.;:!?)—–]|$)|\s+(?:is|was|are|were|has|had|have|would|could|will|can|may|"
    r"might|must|should|did|does|do|in|of|to|for|with|by|at|on|from|into|as|and|but|or|"
    r"the|a|an)\b",
    re.I,
)
_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")
#: Where an English clause may begin: after a stop or a mark that sets clauses apart, or
#: at a word that opens one (a relative, a subordinator, a conjunction).
_EN_CLAUSE_BREAK = re.compile(
    r"[,;:!?—–]|\.(?=\s|$)|\s-\s|\b(?:that|which|who|whom|whose|where|when|while|whereas|"
    r"because|although|though|since|until|unless|if|after|before|once|and|but|or|so|as|"
    r"yet)\b",
    re.I,
)
_EN_WORD = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")
#: "to" and the word after it: an infinitive when that word is a verb, and not after a
#: verb it completes ("had to enter", "used to carry", "seems to be").
_INFINITIVE = re.compile(
    r"(?<!\bhave )(?<!\bhas )(?<!\bhad )(?<!\bused )(?<!\bought )(?<!\bgoing )"
    r"(?<!\bable )(?<!\bneed )(?<!\bneeds )(?<!\bseem )(?<!\bseems )(?<!\bseemed )"
    r"\bto\s+([a-z]+)\b"
)
#: The end of what comes before a sentence's first word: nothing, a stop, a bullet, a
#: dash, an opening quote or bracket.
_SENTENCE_START = re.compile(r"(?:^|[.!?;:]|[-*•–—\"“‘'(])[\s*_]*$")
#: Auxiliaries and modals: a clause's verb, whatever else it has.
_AUXILIARY_WORDS = (
    "is are was were be been being am has have had do does did can could will would "
    "shall should may might must"
)
_AUXILIARIES = frozenset(_AUXILIARY_WORDS.split())
#: Words after which a verb's bare form is a verb ("who farm", "they carry").
_SUBJECT_WORDS = "who which they we you i also often still never usually"
_BEFORE_BARE_VERB = frozenset(_SUBJECT_WORDS.split())
#: A subject pronoun: before a verb, it may open a clause of its own ("… wrote she had …",
#: "… the toll it had charged").
_SUBJECT_PRONOUN = re.compile(r"\b(?:it|he|she|they|we)\b")
#: A word that may be a participle opening a clause ("… in 1902 granting it a charter").
_PARTICIPLE = re.compile(r"\b[a-z]+ing\b")
#: Someone whose thing is named: "Mara's", "the Hendersons'".
_POSSESSOR = re.compile(r"\b([^\W\d_]+)['’]s?(?!\w)")
#: Words after which an inflected form is a noun, not a verb ("the floods", "of locks").
_NOUN_FOLLOWS = (
    "the a an its their his her our my your these those some many several all both "
    "each every no any few more most other such of in on at by for from with into onto to "
    "over under about between among across through against via per upon near without "
    "along toward towards beyond above below during within throughout despite"
)
_BEFORE_NOUN = frozenset(_NOUN_FOLLOWS.split())


@dataclass(frozen=True)
class _Clause:
    """A stretch of an English text between two clause breaks, and whether a verb stands
    in it (a stretch without one belongs to a clause beside it: "In 1902, on her advice,
    …")."""

    start: int
    end: int
    verb: bool


def _verb_at(stretch: str, first: bool) -> int | None:
    """Where the first verb of a stretch of English stands, if one does: an auxiliary
    ("don't" too), an inflected form or a word that is only a verb ("feel"), not after an
    article, a preposition or a possessor ("the board's orders"; nor a capitalised name,
    unless it opens the text: "Built in 1902, …"), or a bare form after a subject ("who
    farm")."""
    before = ""
    for i, match in enumerate(_EN_WORD.finditer(stretch)):
        word = match.group()
        low = word.lower().replace("’", "'")
        if low in _AUXILIARIES or low.endswith("n't"):
            return match.start()
        noun_place = before in _BEFORE_NOUN or before.endswith("'s")
        if not (word[0].isupper() and not (first and i == 0)) and (
            (not noun_place and (is_verb_form(low) or readings(low) == {"VERB"}))
            or (before in _BEFORE_BARE_VERB and is_bare_verb(low))
        ):
            return match.start()
        before = low
    return None


def _embedded_cuts(said: str) -> set[int]:
    """Where a clause without a mark of its own begins: "to" before a verb (an infinitive:
    in "… could be closed to build up water behind it", "it" may be the gate), a participle
    not after an auxiliary or an article ("… in 1902 granting it a charter"), a pronoun
    before a verb, not after a preposition ("… think it was …", "… wrote she had …", "…
    the toll it had charged")."""
    cuts = {m.start() for m in _INFINITIVE.finditer(said) if is_bare_verb(m.group(1))}
    for match in _PARTICIPLE.finditer(said):
        before = _token_before(said, match.start())
        if before and before not in _AUXILIARIES | _BEFORE_NOUN and is_verb_form(match.group()):
            cuts.add(match.start())
    for match in _SUBJECT_PRONOUN.finditer(said):
        before = _token_before(said, match.start())
        after = _EN_WORD.match(said, match.end() + 1)
        if before and before not in _BEFORE_NOUN and after and _verb_at(after.group(), False) == 0:
            cuts.add(match.start())
    return cuts


def _token_before(said: str, at: int) -> str:
    """The word or number just before ``at``, in lower case ("" after a mark)."""
    before = said[:at].split()
    return before[-1].lower() if before and before[-1][-1:].isalnum() else ""


def _en_clauses(said: str) -> list[_Clause]:
    """An English text's stretches between clause breaks, in order: a break of
    :data:`_EN_CLAUSE_BREAK`, or the start of a clause without a mark of its own (see
    :func:`_embedded_cuts`)."""
    cuts = {0, len(said), *(m.start() for m in _EN_CLAUSE_BREAK.finditer(said))}
    cuts |= _embedded_cuts(said)
    return [
        _Clause(a, b, _verb_at(said[a:b], a == 0) is not None) for a, b in pairwise(sorted(cuts))
    ]


def _verbless_sentence(said: str, clauses: Sequence[_Clause], k: int) -> bool:
    """Whether the sentence holding the stretch ``clauses[k]`` has no verb: a list item or
    a caption ("the Jishuitan basin and the memorial hall beside it")."""
    first = max((i for i in range(k + 1) if said[clauses[i].start] in ".!?"), default=0)
    ends = [i for i in range(k + 1, len(clauses)) if said[clauses[i].start] in ".!?"]
    return not any(c.verb for c in clauses[first : ends[0] if ends else len(clauses)])


def _own_clause_start(said: str, clauses: Sequence[_Clause], at: int) -> int:
    """Where the clause holding the word at ``at`` begins: its stretch, with the stretches
    without a verb just before it ("In 1902, on her advice, the council built …"). A stretch
    without a verb after a clause is a phrase of its own ("… had ditches dug — among them
    the Fenlow"): what that clause names, its pronoun may stand for; so is each stretch of
    a sentence without a verb ("the basin and the hall beside it")."""
    k = max(i for i, c in enumerate(clauses) if c.start <= at)
    if _verbless_sentence(said, clauses, k):
        return clauses[k].start
    while k > 0 and not clauses[k - 1].verb:
        k -= 1
    return clauses[k].start


def _names_a_thing(said: str) -> bool:
    """Whether an English stretch names something a pronoun could stand for: a noun, or a
    word no English dictionary holds (a name, "Dongping"), or a name in Chinese."""
    if CJK.search(said):
        return True
    for word in _EN_WORD.findall(said):
        low = word.lower()
        if low in STOP_WORDS or low in _AUXILIARIES:
            continue
        kinds = readings(low)
        if not kinds or "NOUN" in kinds or "PROPN" in kinds:
            return True
    return False


def _demonstrative_alone(said: str, match: re.Match[str]) -> bool:
    """Whether "this" or "these" stands for something rather than before its noun ("this
    led to …", "this means", "because of this,"; not "this problem", "this crossing",
    "these locks")."""
    if _DEMONSTRATIVE_ENDS.match(said, match.end()):
        return True
    following = _NEXT_WORD.match(said, match.end())
    if following is None:
        return False
    word = following.group(1)
    kinds = readings(word)
    if "NOUN" not in kinds and ("VERB" in kinds or (word.endswith("ly") and "ADJ" not in kinds)):
        return True
    if word.endswith("ing") or not is_verb_form(word):
        return False  # "this crossing", "these works"
    return match.group().lower() == "this" or not word.endswith("s")


def _refers(said: str, match: re.Match[str]) -> bool:
    """Whether a word :data:`_EN_REFERRING` found stands for something: not a dummy "it",
    an existential "there" or a demonstrative before its noun."""
    word = match.group().lower()
    if word == "it":
        return not _DUMMY_IT.match(said, match.start())
    if word == "there":
        inverted = _BE_BEFORE.search(said, 0, match.start()) and _QUANTIFIER_AFTER.match(
            said, match.end()
        )
        return not (inverted or _EXISTENTIAL.match(said, match.end()))
    if match.group("demonstrative"):
        return _demonstrative_alone(said, match)
    return True


def _en_refers_outside(said: str) -> bool:
    """Whether an English text has a pronoun or pointing word with nothing it names to
    stand for (see :func:`refers_outside`)."""
    clauses = _en_clauses(said)
    for match in _EN_REFERRING.finditer(said):
        if _a_name(said, match.start()) or not _refers(said, match):
            continue
        start = _own_clause_start(said, clauses, match.start())
        if not _names_a_thing(said[:start]) and not _possessor_agrees(
            said[start : match.start()], match
        ):
            return True
    return any(_possessive_outside(said, clauses, m) for m in _EN_POSSESSIVE.finditer(said))


def _possessor_agrees(before: str, match: re.Match[str]) -> bool:
    """Whether a pronoun for people may stand for one whose thing its own clause names
    before it, by name (a possessor does not bind it: "Soon after Mara's wedding, she
    moved …"). "it" may not: the possessor beside it is seldom what it stands for ("on Ada
    Lind's advice, the council built a weir across it")."""
    if (match.group("personal") or "").lower() not in ("he", "she", "him", "they", "them"):
        return False
    return any(
        p.group(1)[0].isupper() and p.group(1).lower() not in STOP_WORDS
        for p in _POSSESSOR.finditer(before)
    )


def _possessive_outside(said: str, clauses: Sequence[_Clause], match: re.Match[str]) -> bool:
    """Whether a possessive ("its", "their") stands for something the text does not name:
    nothing is named before it, and it does not lead into a clause naming its subject
    ("Since its founding, the guild has …" names it after; "In its first year it ran …"
    does not)."""
    at = match.start()
    if _a_name(said, at) or _names_a_thing(said[:at]):
        return False
    k = max(i for i, c in enumerate(clauses) if c.start <= at)
    if clauses[k].verb:
        return True
    for clause in clauses[k + 1 :]:
        if said[clause.start] in ".!?":
            return True
        verb = _verb_at(said[clause.start : clause.end], False)
        if verb is not None:
            return not _names_a_thing(said[clause.start : clause.start + verb])
    return True


def _a_name(said: str, at: int) -> bool:
    """Whether the word at ``at`` is capitalised away from a sentence's start: a name
    ("the Zhong He"), not a pronoun."""
    return said[at].isupper() and not _SENTENCE_START.search(said, 0, at)


#: A Chinese word that stands for something named elsewhere: 它, 他, 她 (not in 其他,
#: 他人), 此 (not 因此, 彼此, 如此, 此外), 该 (not 应该), 这 standing alone (这是, 这使, 这里;
#: not 这些, 这一, 这个 before a noun), 那里, 那时, 当时. Traditional forms alike.
_ZH_REFERRING = re.compile(
    r"它们|它們|(?<!其)它|他们|他們|她们|她們|(?<![其吉利])他(?![人乡鄉国國处處日方者])|她"
    r"|(?<![因彼如特])此(?![外起])"
    r"|(?<![应應活不])[该該]"
    r"|[这這](?![些一个個种種条條座段位项項所次片批类類份部本场場处處样樣么麼般"
    r"〇零二三四五六七八九十两兩几幾])"
    r"|那(?:里|裡|裏|儿|兒|时|時)|当时|當時"
)
#: 其 for "its", "their" (not in 其他, 其实, 尤其, 极其, 与其, 其次): it may stand for a noun
#: before it in its own clause ("磨坊因其水量不足而停工").
_ZH_POSSESSIVE = re.compile(r"(?<![尤极極与與])其(?![他它实實次])")
_ZH_CLAUSE_BREAK = re.compile(r"[，,；;：:。！？!?（(—]")
#: A title in Chinese quotation marks: a name, whatever words it holds (《等她归来》).
_ZH_TITLE = re.compile(r"《[^《》]*》")
#: What a Chinese clause says besides a thing a pronoun could stand for: a time ("1902年",
#: "明代", "此后"), a connective or an adverbial ("然而", "据记载"), a preposition opening it.
_ZH_NOT_A_THING = re.compile(
    r"[\d〇零一二三四五六七八九十百千两兩几]+\s*(?:年代|年|世纪|世紀|月|日|号|天)"
    r"|据记载|據記載|据说|據說|据统计|据传|与此同时|與此同時|后来|後來|当时|當時|起初|最初|"
    r"随后|隨後|之后|之後|以后|以後|从此|從此|如今|目前|现在|現在|今天|今日|首先|其次|最后|"
    r"最後|终于|於是|于是|然而|但是|不过|不過|因此|所以|同时|同時|此外|另外|而且|并且|"
    r"尽管|虽然|雖然|如果|由于|由於|因为|因為|初期|末期|中期|初年|末年|年间|年間|期间|"
    r"期間|时期|時期|以来|以來|以前|之前|时候|時候|概括而言|总之|總之|总的来说|總的來說|"
    r"简而言之|簡而言之|换言之|換言之|也就是说|也就是說|一般认为|一般認為|一般来说|"
    r"一般來說|通常|例如|比如|事实上|事實上|实际上|實際上|另一方面|总体上|總體上|"
    r"时|時|但|而|也|并"
)
#: What follows 此 or 该 when it points to a time or a place, not before a noun.
_ZH_NOT_NOUN = "时時后後前处處地外间間刻"
_ZH_PREPOSITIONS = "在于於从從自到至当當由据據为為对對"
_ZH_PREPOSITION = re.compile(r"^[在于於从從自到至当當]")
_ZH_ERA = re.compile(rf"[{CJK_CLASS}]{{1,2}}[代朝]")
_LATIN_NAME = re.compile(r"[A-Za-z]{2,}")


def _zh_names_a_thing(said: str) -> bool:
    """Whether a Chinese stretch names something a pronoun could stand for: a clause of it
    keeps two Chinese characters, or a Latin name, once its time, connectives and pointing
    words are set aside ("1902年，" and "此后，" name nothing; "河水在石桥下决口，" does)."""
    for clause in _ZH_CLAUSE_BREAK.split(said):
        rest = _ZH_POSSESSIVE.sub("", _ZH_REFERRING.sub("", clause))
        rest = _ZH_PREPOSITION.sub("", _ZH_NOT_A_THING.sub("", rest).strip())
        if _ZH_ERA.fullmatch(rest):
            continue
        if len(CJK.findall(rest)) >= 2 or _LATIN_NAME.search(rest):
            return True
    return False


def _zh_refers_outside(said: str) -> bool:
    """Whether a Chinese text has a pronoun or pointing word with nothing it names to stand
    for (see :func:`refers_outside`)."""
    said = _ZH_TITLE.sub(lambda m: "《" + "名" * (len(m.group()) - 2) + "》", said)
    for match in _ZH_REFERRING.finditer(said):
        cut = max((b.end() for b in _ZH_CLAUSE_BREAK.finditer(said, 0, match.start())), default=0)
        if _zh_bindable(said, match):
            cut = match.start()
        if not _zh_names_a_thing(said[:cut]):
            return True
    return any(not _zh_names_a_thing(said[: m.start()]) for m in _ZH_POSSESSIVE.finditer(said))


def _zh_bindable(said: str, match: re.Match[str]) -> bool:
    """Whether a Chinese pointing word may stand for a thing named before it in its own
    clause, as 其 may: a possessive (它的, 他们的), 该 before its noun (该国), or 此 before its
    noun (此类; not 此时, 此后, 此处, nor 此 as a preposition's object: 在此设立)."""
    follows = said[match.end() : match.end() + 1]
    if follows == "的":
        return True
    if not CJK.match(follows) or follows in _ZH_NOT_NOUN:
        return False
    after_preposition = match.start() > 0 and said[match.start() - 1] in _ZH_PREPOSITIONS
    return match.group() in "该該" or (match.group() == "此" and not after_preposition)


@lru_cache(maxsize=65536)
def refers_outside(text: str) -> bool:
    """Whether a word in a text stands for something the text does not name, anywhere in
    it: a pronoun ("it", "them", 它) with no earlier clause naming a thing it could stand
    for (it cannot stand for its own clause's subject or object: "In 1902 the council built a
    weir across it"), a pointing word ("from there", "at that time", 此, 那里) likewise, or a
    possessive ("its", 其) with nothing named before it. A dummy "it" ("it was decided
    to"), an existential "there" ("there were three locks") and a demonstrative before its
    noun ("this problem") stand for nothing. A text of two sentences may name in the
    first what a word in the second stands for."""
    said = plain(text).strip()
    return _zh_refers_outside(said) if _chinese(said) else _en_refers_outside(said)
