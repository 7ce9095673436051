"""File subagent: CSV and XLSX tools on real files, hostile ones included."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import openpyxl
import pytest
from file_support import FileTools, thread_spy, zip_bomb

from fs_service import FileDomainService


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


# ---------------------------------------------------------------- CSV

ROWS = [["城市", "人口", "备注"], ["北京", "2189"], ["上海", "2487", "直辖市, 沿海"], ["广州"]]


def csv_rows(text: str) -> list[list[str]]:
    """The rows a csv_read result shows (``N: fields`` lines, notes in brackets left out)."""
    body = text.split("\n", 1)[1].split("\n[", 1)[0]
    return list(csv.reader(io.StringIO(re.sub(r"^\d+: ", "", body, flags=re.M), newline="")))


def table_of(text: str) -> list[list[str]]:
    """The cells of an xlsx_read_cells result's Markdown table, row by row, as shown."""
    rows = []
    for line in text.splitlines():
        if re.match(r"^\| \d+ \| ", line):
            rows.append(re.split(r"(?<!\\) \| ", line[2:-2])[1:])
    return rows


def _csv_bytes(rows: list[list[str]], encoding: str) -> bytes:
    text = "\n".join(",".join(f'"{f}"' if "," in f else f for f in r) for r in rows) + "\n"
    return text.encode(encoding)


@pytest.mark.parametrize(
    ("encoding", "reported"),
    [("utf-8", "UTF-8"), ("utf-8-sig", "UTF-8 with BOM"), ("gbk", "GBK/GB18030")],
)
async def test_csv_read_detects_encoding_and_keeps_ragged_rows(
    tools, input_dir, encoding, reported
):
    (input_dir / "t.csv").write_bytes(_csv_bytes(ROWS, encoding))
    resp = await tools.call("csv_read", path="/userinput/t.csv")
    text = resp.content[0]["text"]
    assert csv_rows(text) == ROWS
    assert text.startswith(f"/userinput/t.csv — 4 rows ({reported}, comma-separated)")
    assert resp.metadata["paths"] == ["/userinput/t.csv"]
    assert "rows have 1 to 3 fields (kept as they are)" in text
    assert '3: 上海,2487,"直辖市, 沿海"' in text


async def test_csv_read_bounds_huge_fields_and_pages_long_files(tools, input_dir):
    rows = [["id", "text"], ["0", "长" * 1_000_000]] + [[str(i), f"行{i}"] for i in range(1, 6000)]
    (input_dir / "big.csv").write_bytes(_csv_bytes(rows, "utf-8"))
    resp = await tools.call("csv_read", path="/userinput/big.csv")
    text = resp.content[0]["text"]
    assert len(text) < 40_000
    assert "长" * 300 + "…[+65234 chars]" in text
    assert "[Lines longer than 65,536 characters were parsed only in part: line 2.]" in text
    assert text.startswith("/userinput/big.csv — 6001 rows (UTF-8, comma-separated)")
    assert "[Fields longer than 300 characters are shortened above" in text
    shown = csv_rows(text)
    assert shown[0] == ["id", "text"] and shown[2:] == rows[2 : len(shown)]
    hint = re.search(
        r"Rows (\d+)–6001 not shown\. To read them, call read_text_file with "
        r"range=\[(\d+), (\d+)\]",
        text,
    )
    assert hint, text[-400:]
    first_hidden, line = int(hint.group(1)), int(hint.group(2))
    more = await tools.text("read_text_file", path="/userinput/big.csv", range=[line, line])
    assert more.splitlines()[1] == ",".join(rows[first_hidden - 1])


async def test_csv_read_refuses_binary(tools, input_dir):
    (input_dir / "x.csv").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    text = await tools.text("csv_read", path="/userinput/x.csv")
    assert text.startswith("Error:") and "PNG image" in text and "image_qa" in text


async def test_csv_write_round_trips_chinese_and_quoting(tools, input_dir):
    rows = [["名称", "说明"], ["甲", 'a "quoted", comma'], ["乙", "两行\n文本"], ["丙"]]
    resp = await tools.call("csv_write", path="/workspace/o.csv", rows=rows)
    assert resp.content[0]["text"].startswith("Wrote /workspace/o.csv: 4 rows")
    raw = await tools.service.read_bytes("/workspace/o.csv")
    assert raw.startswith(b"\xef\xbb\xbf")
    back = await tools.call("csv_read", path="/workspace/o.csv")
    assert csv_rows(back.content[0]["text"]) == rows
    refused = await tools.text("csv_write", path="/userinput/o.csv", rows=rows)
    assert refused.startswith("Error: writing is not allowed under /userinput/")
    assert not (input_dir / "o.csv").exists()
    bad = await tools.text("csv_write", path="/workspace/p.csv", rows="a,b")
    assert bad.startswith("Error: rows must be a list of rows")


# ---------------------------------------------------------------- XLSX


def _with_cached_values(data: bytes, cached: dict[str, str]) -> bytes:
    """Add cached results to formula cells, as a spreadsheet program saves them."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            body = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                xml = body.decode()
                for ref, value in cached.items():
                    xml = re.sub(
                        rf'(<c r="{ref}"[^>]*>)(<f>[^<]*</f>)(<v\s*/>|<v></v>)?',
                        rf"\1\2<v>{value}</v>",
                        xml,
                    )
                body = xml.encode()
            dst.writestr(item, body)
    return out.getvalue()


def _formula_book() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "数据"
    ws.append(["项目", "数量", "单价", "金额"])
    ws.append(["苹果", 3, 2.5, "=B2*C2"])
    ws.append(["梨", 4, 1.5, "=B3*C3"])
    ws["D4"] = "=SUM(D2:D3)"
    wb.create_sheet("Other")["A1"] = "其他"
    buf = io.BytesIO()
    wb.save(buf)
    return _with_cached_values(buf.getvalue(), {"D2": "7.5", "D4": "13.5"})


async def test_xlsx_read_returns_cached_values_and_marks_missing_ones(tools, input_dir):
    (input_dir / "f.xlsx").write_bytes(_formula_book())
    resp = await tools.call("xlsx_read_cells", path="/userinput/f.xlsx", range="A1:D4")
    text = resp.content[0]["text"]
    assert text.startswith("/userinput/f.xlsx — sheet '数据' (sheets: 数据, Other;")
    assert "\nCells 数据!A1:D4:\n" in text
    assert table_of(text) == [
        ["项目", "数量", "单价", "金额"],
        ["苹果", "3", "2.5", "7.5"],
        ["梨", "4", "1.5", "⟨formula =B3*C3; no cached value⟩"],
        ["", "", "", "13.5"],
    ]
    assert "[1 formula cell(s) have no cached value" in text
    assert "| 2 | 苹果 | 3 | 2.5 | 7.5 |" in text
    assert "⟨formula =B3*C3; no cached value⟩" in text and "never computed" in text
    other = await tools.call("xlsx_read_cells", path="/userinput/f.xlsx", range="Other!A1")
    assert table_of(other.content[0]["text"]) == [["其他"]]
    bad = await tools.text("xlsx_read_cells", path="/userinput/f.xlsx", range="Nope!A1")
    assert bad.startswith("Error:") and "'数据', 'Other'" in bad
    junk = await tools.text("xlsx_read_cells", path="/userinput/f.xlsx", range="hello world")
    assert junk.startswith("Error:") and "A1 notation" in junk


async def test_xlsx_write_then_read_round_trips_chinese(tools):
    values = [
        ["城市", "人口", "编号"],
        ["北京", "2189", "007"],
        ["上海", "2487.5", "1234567890123456789"],
    ]
    resp = await tools.call(
        "xlsx_write_cells", path="/workspace/x.xlsx", range="城市表!B2", values=values
    )
    assert "to 城市表!B2:D4 in a new workbook" in resp.content[0]["text"]
    back = await tools.call("xlsx_read_cells", path="/workspace/x.xlsx", range="'城市表'!B2:D4")
    assert table_of(back.content[0]["text"]) == [
        ["城市", "人口", "编号"],
        ["北京", "2189", "007"],
        ["上海", "2487.5", "1234567890123456789"],
    ]
    # numbers were written as numbers, and text that only looks like one stays text
    wb = openpyxl.load_workbook(io.BytesIO(await tools.service.read_bytes("/workspace/x.xlsx")))
    assert [[c.value for c in row] for row in wb["城市表"]["B2:D4"]] == [
        ["城市", "人口", "编号"],
        ["北京", 2189, "007"],
        ["上海", 2487.5, "1234567890123456789"],
    ]
    whole = await tools.call("xlsx_read_cells", path="/workspace/x.xlsx", range="城市表!")
    assert "\nCells 城市表!A1:D4:\n" in whole.content[0]["text"]


async def test_xlsx_write_keeps_the_rest_of_an_existing_workbook(tools):
    await tools.service.write_bytes("/workspace/f.xlsx", _formula_book())
    resp = await tools.call(
        "xlsx_write_cells", path="/workspace/f.xlsx", range="Other!A2:B2", values=[["新", "值"]]
    )
    assert "the existing workbook" in resp.content[0]["text"]
    assert "3 formula cell(s)" in resp.content[0]["text"]
    wb = openpyxl.load_workbook(io.BytesIO(await tools.service.read_bytes("/workspace/f.xlsx")))
    assert wb.sheetnames == ["数据", "Other"]
    assert wb["数据"]["D4"].value == "=SUM(D2:D3)"
    assert [c.value for c in wb["Other"][2]] == ["新", "值"]
    wrong = await tools.text(
        "xlsx_write_cells", path="/workspace/f.xlsx", range="A1:C3", values=[["a"]]
    )
    assert wrong.startswith("Error: range A1:C3 is 3 rows × 3 columns but values is 1 rows")


async def test_xlsx_large_area_is_paged_with_the_next_range(tools):
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 2001):
        ws.append([f"r{r}c{c}" for c in range(1, 11)])
    buf = io.BytesIO()
    wb.save(buf)
    await tools.service.write_bytes("/workspace/big.xlsx", buf.getvalue())
    resp = await tools.call("xlsx_read_cells", path="/workspace/big.xlsx", range="A1:J2000")
    text = resp.content[0]["text"]
    assert len(text) <= 31_000
    shown = table_of(text)
    assert shown == [[f"r{r}c{c}" for c in range(1, 11)] for r in range(1, len(shown) + 1)]
    m = re.search(
        r"\[Rows (\d+)–2000 not shown\. To read on, call xlsx_read_cells with "
        r"range=\"Sheet!A(\d+):J(\d+)\"",
        text,
    )
    assert m and m.group(1) == m.group(2), text[-300:]
    nxt = await tools.call(
        "xlsx_read_cells", path="/workspace/big.xlsx", range=f"A{m.group(2)}:J{m.group(3)}"
    )
    assert table_of(nxt.content[0]["text"])[0][0] == f"r{m.group(2)}c1"


async def test_xlsx_zip_bomb_is_refused_before_parsing(tools, input_dir):
    bomb = zip_bomb("xlsx")
    assert len(bomb) < 1_000_000
    (input_dir / "bomb.xlsx").write_bytes(bomb)
    text = await tools.text("xlsx_read_cells", path="/userinput/bomb.xlsx", range="A1")
    assert text.startswith("Error:") and "zip bomb" in text
    await tools.service.write_bytes("/workspace/bomb.xlsx", bomb)
    write = await tools.text(
        "xlsx_write_cells", path="/workspace/bomb.xlsx", range="A1", values=[["x"]]
    )
    assert write.startswith("Error:") and "zip bomb" in write
    assert await tools.service.read_bytes("/workspace/bomb.xlsx") == bomb


async def test_xlsx_garbage_and_userinput_writes_are_refused(tools, input_dir):
    (input_dir / "g.xlsx").write_bytes(b"not a workbook at all" * 10)
    text = await tools.text("xlsx_read_cells", path="/userinput/g.xlsx", range="A1")
    assert text.startswith("Error:") and "not a valid .xlsx" in text
    refused = await tools.text(
        "xlsx_write_cells", path="/userinput/g.xlsx", range="A1", values=[["x"]]
    )
    assert refused.startswith("Error: writing is not allowed under /userinput/")
    assert (input_dir / "g.xlsx").read_bytes() == b"not a workbook at all" * 10


async def test_parsing_and_saving_run_off_the_event_loop(tools, input_dir, monkeypatch):
    from subagents.file import tables

    (input_dir / "t.csv").write_bytes(_csv_bytes(ROWS, "utf-8"))
    csv_calls = thread_spy(monkeypatch, tables, "decode_text")
    assert "北京" in await tools.text("csv_read", path="/userinput/t.csv")
    new_calls = thread_spy(monkeypatch, tables, "Workbook")
    load_calls = thread_spy(monkeypatch, tables, "load_workbook")
    for values in ([["城市", "人口"]], [["北京", "2189"]]):
        out = await tools.text(
            "xlsx_write_cells", path="/workspace/t.xlsx", range="A1", values=values
        )
        assert out.startswith("Wrote"), out
    assert "北京" in await tools.text("xlsx_read_cells", path="/workspace/t.xlsx", range="A1:B1")
    assert csv_calls == [False] and new_calls == [False]
    assert load_calls and not any(load_calls)


async def test_xlsx_write_bad_cell_text_or_sheet_name_says_what_to_fix(tools):
    out = await tools.text(
        "xlsx_write_cells", path="/workspace/c.xlsx", range="A1", values=[["ok", "page\x0cbreak"]]
    )
    assert out.startswith("Error: values[0][1] contains the control character U+000C"), out
    assert "damaged" not in out
    out = await tools.text(
        "xlsx_write_cells", path="/workspace/c.xlsx", range="Bad/Name!A1", values=[["x"]]
    )
    assert out.startswith("Error: 'Bad/Name' is not a valid sheet name"), out
    assert not await tools.service.exists("/workspace/c.xlsx")
