"""A chart's title: what it shows, worded in the report's language from its columns.

A chart of a table whose caption only names a file and sheet is titled by what it
draws: the measure its columns hold and the thing its rows are — "Depth of each well",
"各水井的深度" — its unit stated once after the title (see
:func:`subagents.generate.charts.chart_heading`). Two columns that are the low and the
high of one measure ("Low (km)" and "High (km)", 长度下限 and 长度上限) are one range of
it: "Length of each trail, low and high", 各路段长度的下限和上限.

The measure is the columns' own name when it is in the report's language; else what
their unit measures (km → length, from the units :mod:`research.facts` reads and the
measure words of :mod:`research.labels`); else the name as written, quoted. The rows are
named by the label column's header, singular ("each trail"), or "by year" for a column
of years. A header in another language than the report's is quoted as written (“路段”),
never mixed into the sentence. Where no measure can be read (a lone "Low", a column per
year), the title names the columns by the label column ("2019 and 2020 by country").
"""

from __future__ import annotations

import re

from lemminflect import getLemma

from research.facts import MEASURES, UNITS
from research.labels import MEASURE_WORDS, RANGE_WORDS, UNIT_MEASURES, label
from research.text import CJK, is_word, language

#: A unit in brackets at the end of a header: ``Depth (m)``, ``深度（米）``.
HEADER_UNIT = re.compile(r"[(（\[]\s*([^()（）\[\]]{1,16}?)\s*[)）\]]\s*$")
#: A header that names a percentage ("loss_pct", "share (percent)", 占比).
PERCENT_HEADER = re.compile(
    r"(?:\b|_)(?:percent|percentage|pct|per\s*cent)(?:\b|_)|%|％|百分比|占比|比例|比率", re.I
)
#: A percentage word that ends a header's name ("loss_pct", "share %"): the unit, which
#: the chart's ticks show.
_PERCENT_END = re.compile(r"[\s_]*(?:\b(?:pct|percent|per\s*cent)|[%％])$", re.I)
_LETTER = re.compile(r"[^\W\d_]")
#: The words of :data:`research.labels.RANGE_WORDS` with their bound, longest first.
_RANGE_WORDS = sorted(
    ((w, bound) for bound, words in RANGE_WORDS.items() for w in words), key=lambda p: -len(p[0])
)


def measure_name(header: str, unit: str = "") -> str:
    """A column's name without its unit, which the chart states once: ``Depth (m)`` →
    ``Depth``, ``深度（米）`` → ``深度``, ``loss_pct`` (a percentage) → ``loss``."""
    name = HEADER_UNIT.sub("", header).replace("_", " ").strip()
    if unit == "%":
        name = _PERCENT_END.sub("", name).strip()
    return name or header.strip()


def _wording(lang: str) -> str:
    """The language a title is worded in: Chinese, or English for any other."""
    return "zh" if lang == "zh" else "en"


def _foreign(text: str, lang: str) -> bool:
    """Whether ``text`` is words of another language than the report's (never a number
    or a sign)."""
    return bool(_LETTER.search(text)) and language(text) != _wording(lang)


def _quoted(name: str, lang: str) -> str:
    return label(lang, "chart_quoted").format(name=name)


def _in_sentence(name: str, lang: str) -> str:
    """A name as it reads inside a sentence of ``lang``: a header in another language
    quoted as written; outside Chinese, an English dictionary word that a header
    capitalises ("Depth", "Well") in lower case; a name ("Marrowdale") as written."""
    if _foreign(name, lang):
        return _quoted(name, lang)
    first = name.split(" ", 1)[0]
    if lang != "zh" and first[:1].isupper() and first[1:].islower() and is_word(first.lower()):
        return first.lower() + name[len(first) :]
    return name


def _singular(name: str) -> str:
    """A label column's English header as one of its rows: ``wells`` → ``well``."""
    *words, last = name.split(" ")
    low = last.lower()
    if low.isascii() and low.endswith("s") and is_word(low):
        lemma = getLemma(low, upos="NOUN")[0]
        last = lemma[:1].upper() + lemma[1:] if last[:1].isupper() else lemma
    return " ".join([*words, last])


def _bound(name: str) -> tuple[str, str]:
    """``(measure, bound)`` of a column that is one bound of a range: ``Low`` →
    ``("", "low")``, ``长度上限`` → ``("长度", "high")``; ``(name, "")`` for any other."""
    for word, bound in _RANGE_WORDS:
        if CJK.match(word) and (name.startswith(word) or name.endswith(word)):
            return name.replace(word, "", 1).strip(), bound
        whole = rf"(?<![\w-]){re.escape(word)}(?![\w-])"
        if not CJK.match(word) and re.search(whole, name, re.I):
            rest = re.sub(whole, "", name, count=1, flags=re.I)
            return re.sub(r"\s+", " ", rest).strip(" ,-–"), bound
    return name, ""


def unit_measure(unit: str, lang: str) -> str:
    """What ``unit`` measures, named in ``lang``: ``km`` → "Length", ``公斤`` → 重量, ``%``
    → "Share"; "" for a unit that names no measure (a count, an unknown unit)."""
    written = unit.strip()
    canonical = UNITS.get(written) or UNITS.get(written.lower()) or written
    measure = MEASURES.get(canonical) or UNIT_MEASURES.get(written) or ""
    return MEASURE_WORDS[_wording(lang)].get(measure, "")


def shown_unit(unit: str, lang: str) -> str:
    """A unit as a title in ``lang`` states it: a Chinese unit a reader of English knows
    by its symbol (公里 → km); any other as written."""
    if lang != "zh" and CJK.search(unit):
        return UNITS.get(unit.strip()) or unit
    return unit


def _one_measure(name: str, unit: str, lang: str) -> str:
    """The measure one column (or one range) holds, as a title in ``lang`` names it: its
    own name in the report's language, else what its unit measures, else its name
    quoted; "" when neither says one."""
    if name and not _foreign(name, lang):
        return _in_sentence(name, lang)
    return unit_measure(unit, lang) or (_quoted(name, lang) if name else "")


def _rows(label_header: str, lang: str, ordered: bool) -> str:
    """The thing the rows are, as the title names it ("trail", "year", “路段”)."""
    name = measure_name(label_header)
    if not name or _foreign(name, lang) or ordered:
        return _in_sentence(name, lang) if name else ""
    return _in_sentence(_singular(name), lang)


def _capital(title: str) -> str:
    """A title opens with a capital (an English one: a quoted header stays as written)."""
    return title[:1].upper() + title[1:]


def _joined(names: list[str], lang: str) -> str:
    return label(lang, "chart_and").join(_in_sentence(n, lang) for n in names)


def _range(names: list[str]) -> str | None:
    """The measure two columns are the low and the high of ("" when they name only the
    bounds: "Low", "High"), or None when they are not one range."""
    if len(names) != 2:
        return None
    (a, bound_a), (b, bound_b) = map(_bound, names)
    if {bound_a, bound_b} != {"low", "high"} or a.lower() != b.lower():
        return None
    return a


def shown_title(
    series: list[str], label_header: str, lang: str, unit: str = "", ordered: bool = False
) -> str:
    """What a chart shows, in words of ``lang`` built from its columns, without its unit:
    "Depth of each well", "Length of each trail, low and high", "Ferries by year",
    各水井的深度和宽度, 各路段长度的下限和上限.

    Args:
        series: the names of the columns drawn.
        label_header: the name of the column the bars are labelled by ("" for none).
        lang: the report's language.
        unit: the unit the columns share ("" for none).
        ordered: whether the labels are years or dates (the rows are "by year").

    Returns:
        The title.
    """
    names = list(dict.fromkeys(measure_name(s, unit) for s in series))
    rows = _rows(label_header, lang, ordered)
    shown = _range_title(names, rows, unit, lang, ordered) or _columns_title(
        names, rows, unit, lang, ordered
    )
    return _capital(shown)


def _range_title(names: list[str], rows: str, unit: str, lang: str, ordered: bool) -> str:
    """The title of two columns that are one range of a measure it can name ("Length of
    each trail, low and high"), else ""."""
    span = _range(names)
    measure = _one_measure(span, unit, lang) if span is not None else ""
    if not measure:
        return ""
    key = "chart_range" if not rows else "chart_range_by" if ordered else "chart_range_each"
    return label(lang, key).format(series=measure, label=rows, bounds=label(lang, "chart_bounds"))


def _columns_title(names: list[str], rows: str, unit: str, lang: str, ordered: bool) -> str:
    """The title of columns that each hold a measure ("Depth and width of each well"), or
    of columns named otherwise, by the label column ("2019 and 2020 by country")."""
    named = all(_LETTER.search(n) and not _bound(n)[1] for n in names)
    shown = _one_measure(names[0], unit, lang) if named and len(names) == 1 else ""
    shown = shown or _joined(names, lang)
    if not rows:
        return shown
    key = "chart_each" if named and not ordered else "chart_by"
    return label(lang, key).format(series=shown, label=rows)
