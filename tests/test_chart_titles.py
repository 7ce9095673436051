"""A chart's title says what it shows, in the report's language, from its table's columns.

The measure the columns hold (their own name, else what their unit measures), the thing
the rows are ("each reach"), a low and a high column read as one range, and the unit once
after the title; a header in another language than the report's is quoted as written.
All tables here are invented.
"""

from __future__ import annotations

import re

from subagents.generate.charts import chart_for, chart_heading
from subagents.generate.notes import Point, Table

SHEET = Point(["rivers.xlsx, sheet Reaches."])


def _table(header: list[str], rows: list[list[str]]) -> Table:
    return Table(header, rows, SHEET)


REACHES = _table(
    ["Reach", "Low (km)", "High (km)"],
    [["Upper reach", "12", "15"], ["Gorge", "30", "34"], ["Delta", "18", "22"]],
)
ZH_REACHES = _table(
    ["渠段", "长度下限（公里）", "长度上限（公里）"],
    [["上段", "12", "15"], ["峡谷段", "30", "34"], ["三角洲段", "18", "22"]],
)


def _heading(table: Table, lang: str) -> str:
    chart = chart_for(table, lang=lang)
    assert chart is not None
    return chart_heading(chart, lang)


def _outside_quotes(text: str) -> str:
    return re.sub(r"“[^”]*”", "", text)


def test_a_low_and_a_high_column_are_a_range_of_the_measure_their_unit_names() -> None:
    assert _heading(REACHES, "en") == "Length of each reach, low and high (km)"
    assert _heading(ZH_REACHES, "zh") == "各渠段长度的下限和上限（公里）"
    lakes = _table(
        ["Lakes", "Min depth (m)", "Max depth (m)"],
        [["Tarn", "3", "9"], ["Mere", "5", "14"], ["Loch", "20", "61"]],
    )
    assert _heading(lakes, "en") == "Depth of each lake, low and high (m)"


def test_a_header_in_another_language_is_quoted_never_mixed_into_the_title() -> None:
    en = _heading(ZH_REACHES, "en")
    assert en == "Length of each “渠段”, low and high (km)"
    assert not re.search(r"[\u4e00-\u9fff]", _outside_quotes(en))
    zh = _heading(REACHES, "zh")
    assert zh == "各“Reach”长度的下限和上限（km）"
    assert not re.search(r"[A-Za-z]", _outside_quotes(zh).removesuffix("（km）"))
    wells = _table(
        ["Well", "Depth (m)", "Width (m)"],
        [["North well", "41", "12"], ["Mill well", "33", "9.5"], ["Chapel well", "27", "8"]],
    )
    assert _heading(wells, "zh") == "各“Well”的“Depth”和“Width”（m）"


def test_a_plain_measure_is_named_by_its_column_of_each_row() -> None:
    orchards = _table(
        ["Orchards", "Yield (kg)"], [["Hill", "410"], ["River", "380"], ["Old farm", "290"]]
    )
    assert _heading(orchards, "en") == "Yield of each orchard (kg)"
    islands = _table(["Island", "Population"], [["Ardra", "310"], ["Bell", "95"], ["Cairn", "40"]])
    assert _heading(islands, "en") == "Population of each island"
    hives = _table(["Apiary", "loss_pct"], [["East", "12%"], ["West", "30%"], ["South", "8%"]])
    assert _heading(hives, "en") == "Loss of each apiary"
    zh = _table(["岛屿", "面积（公顷）"], [["甲岛", "310"], ["乙岛", "95"], ["丙岛", "40"]])
    assert _heading(zh, "zh") == "各岛屿的面积（公顷）"


def test_a_column_of_years_orders_the_rows_and_no_measure_keeps_the_columns_names() -> None:
    ferries = _table(["Year", "Ferries"], [["2019", "4"], ["2020", "6"], ["2021", "5"]])
    assert _heading(ferries, "en") == "Ferries by year"
    bounds = _table(
        ["Island", "Low", "High"], [["Ardra", "3", "5"], ["Bell", "2", "4"], ["Cairn", "1", "2"]]
    )
    assert _heading(bounds, "en") == "Low and high by island"  # no unit: no measure to read
    assert _heading(bounds, "zh") == "各“Island”的“Low”和“High”"
    years = _table(
        ["Country", "2019", "2020"],
        [["Ardland", "4", "5"], ["Bellmark", "6", "7"], ["Cairnholm", "5", "4"]],
    )
    assert _heading(years, "en") == "2019 and 2020 by country"
