"""Attacks through what the tools write and where: formula injection, hostile file names,
downloads aimed at stored pages."""

from __future__ import annotations

import csv
import io

import openpyxl
import pytest
from file_support import FileTools

from fs_service import FileDomainService

#: Cells a spreadsheet program would run as formulas if stored as they are (OWASP CSV
#: injection: a leading = + - @, and tab or carriage return before one).
HOSTILE_CELLS = [
    '=HYPERLINK("http://127.0.0.1/x?"&A1,"click")',
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1+1",
    "\r=1+1",
    "=cmd|' /C calc'!A0",
]


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


async def test_csv_write_stores_formula_like_fields_as_text(tools, tmp_path):
    numbers = ["-3", "+4.5", "7"] + [""] * (len(HOSTILE_CELLS) - 3)
    rows = [["cell", "number"], *[[c, n] for c, n in zip(HOSTILE_CELLS, numbers, strict=True)]]
    resp = await tools.call("csv_write", path="/workspace/out.csv", rows=rows)
    assert resp.metadata["status"] == "ok"
    raw = (tmp_path / "run" / "workspace" / "out.csv").read_bytes().decode("utf-8-sig")
    got = list(csv.reader(io.StringIO(raw, newline="")))
    fields = [row[0] for row in got[1:]]
    assert fields == ["'" + c for c in HOSTILE_CELLS]
    # plain numbers keep their sign and stay numbers
    assert [row[1] for row in got[1:4]] == ["-3", "+4.5", "7"]


async def test_csv_write_keeps_formulas_when_asked(tools, tmp_path):
    rows = [["1", "2", "=A1+B1"]]
    resp = await tools.call("csv_write", path="/workspace/f.csv", rows=rows, formulas=True)
    assert resp.metadata["status"] == "ok"
    raw = (tmp_path / "run" / "workspace" / "f.csv").read_bytes().decode("utf-8-sig")
    assert raw == "1,2,=A1+B1\r\n"


async def test_xlsx_write_stores_formula_like_cells_as_text(tools, tmp_path):
    values = [HOSTILE_CELLS, ["-3", "+4.5", "42", "007"]]
    resp = await tools.call("xlsx_write_cells", path="/workspace/x.xlsx", range="A1", values=values)
    assert resp.metadata["status"] == "ok", resp
    assert "formula cell" not in resp.content[0]["text"]
    wb = openpyxl.load_workbook(tmp_path / "run" / "workspace" / "x.xlsx")
    ws = wb.active
    for j, text in enumerate(HOSTILE_CELLS, start=1):
        cell = ws.cell(row=1, column=j)
        assert (cell.value, cell.data_type) == (text, "s")
        assert cell.quotePrefix
    assert [ws.cell(row=2, column=j).value for j in range(1, 5)] == [-3, 4.5, 42, "007"]
    # and the file holds no formula element at all
    with openpyxl.reader.excel.ZipFile(tmp_path / "run" / "workspace" / "x.xlsx") as zf:
        assert b"<f>" not in zf.read("xl/worksheets/sheet1.xml")


async def test_xlsx_write_stores_formulas_only_when_asked(tools, tmp_path):
    values = [["2", "3", "=A1*B1", "@x"]]
    resp = await tools.call(
        "xlsx_write_cells", path="/workspace/f.xlsx", range="A1", values=values, formulas=True
    )
    assert resp.metadata["status"] == "ok", resp
    assert "1 formula cell(s)" in resp.content[0]["text"]
    ws = openpyxl.load_workbook(tmp_path / "run" / "workspace" / "f.xlsx").active
    assert (ws["C1"].value, ws["C1"].data_type) == ("=A1*B1", "f")
    # only "=" makes a formula; "@x" is still text
    assert (ws["D1"].value, ws["D1"].data_type) == ("@x", "s")
