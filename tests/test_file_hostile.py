"""File tools against hostile shapes: far-corner cells, giant areas, odd CSV shapes.

Calls that could run away (memory, time) run in a child process (``tool_probe``) with a
memory ceiling and a deadline, and report their peak memory.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import openpyxl
import pytest
from file_support import FileTools
from tool_probe import probe

from fs_service import FileDomainService
from subagents.file.limits import MAX_TEXT_CHARS

#: The memory one tool call may use, whatever the input.
MAX_CALL_MB = 512


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


def workbook(cells: dict[str, str]) -> bytes:
    wb = openpyxl.Workbook()
    for ref, value in cells.items():
        wb.active[ref] = value
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def with_sheet_xml(data: bytes, after_sheet_data: bytes) -> bytes:
    """``data`` (an .xlsx made by openpyxl) with XML inserted after its first sheet's cells."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w") as zout:
        for info in zin.infolist():
            part = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                part = part.replace(b"</sheetData>", b"</sheetData>" + after_sheet_data)
            zout.writestr(info, part, zipfile.ZIP_DEFLATED)
    return out.getvalue()


# ---------------------------------------------------------------- far-corner cells


def test_writing_the_far_corner_cell_costs_what_one_cell_costs(tmp_path: Path):
    root = tmp_path / "run"
    first = probe(
        "file",
        "xlsx_write_cells",
        {"path": "/workspace/far.xlsx", "range": "XFD1048576", "values": [["corner"]]},
        root,
    )
    assert first["outcome"] == "done" and first["status"] == "ok", first
    assert first["peak_mb"] < MAX_CALL_MB
    assert first["text"].startswith("Wrote 1 cells to Sheet1!XFD1048576:XFD1048576")
    # the workbook now claims the whole grid as its used range; editing it stays cheap
    second = probe(
        "file",
        "xlsx_write_cells",
        {"path": "/workspace/far.xlsx", "range": "A1", "values": [["origin", "42"]]},
        root,
    )
    assert second["outcome"] == "done" and second["status"] == "ok", second
    assert second["peak_mb"] < MAX_CALL_MB
    wb = openpyxl.load_workbook(root / "workspace" / "far.xlsx", read_only=True)
    ws = wb.active
    assert ws.calculate_dimension() == "A1:XFD1048576"
    assert [c.value for c in next(ws.iter_rows(max_row=1, max_col=2))] == ["origin", 42]
    wb.close()


@pytest.mark.parametrize("rng", ["Sheet!", "A1:XFD1048576", "A:C", "1:3", "XFA1048570:XFD1048576"])
async def test_a_workbook_claiming_the_whole_grid_is_read_in_bounded_parts(tools, input_dir, rng):
    (input_dir / "far.xlsx").write_bytes(workbook({"A1": "first", "XFD1048576": "last"}))
    resp = await tools.call("xlsx_read_cells", path="/userinput/far.xlsx", range=rng)
    text = resp.content[0]["text"]
    assert resp.metadata["status"] == "ok", text[:300]
    assert len(text) <= MAX_TEXT_CHARS
    assert "used range A1:XFD1048576" in text
    if rng in ("Sheet!", "A1:XFD1048576", "1:3"):
        assert "| 1 | first |" in text
        assert "[Columns BI–XFD not read (at most 60 columns per call)." in text
        assert 'call xlsx_read_cells with range="Sheet!BI1:DP' in text
    if rng.startswith("XFA"):
        assert "| last |" in text


@pytest.mark.parametrize(
    "hostile",
    [
        b'<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>',
        b'<mergeCells count="2"><mergeCell ref="B2:C3"/><mergeCell ref="A:XFD"/></mergeCells>',
        b'<hyperlinks><hyperlink ref="A1:ZZ900000" display="x"/></hyperlinks>',
    ],
    ids=["merged-grid", "merged-columns", "hyperlink-range"],
)
def test_editing_a_workbook_with_a_giant_area_is_refused_before_loading(tmp_path, hostile):
    root = tmp_path / "run"
    (root / "workspace").mkdir(parents=True)
    book = with_sheet_xml(workbook({"A1": "x"}), hostile)
    (root / "workspace" / "m.xlsx").write_bytes(book)
    result = probe(
        "file",
        "xlsx_write_cells",
        {"path": "/workspace/m.xlsx", "range": "B1", "values": [["y"]]},
        root,
        timeout=240,
    )
    assert result["outcome"] == "done" and result["status"] == "error", result
    assert result["text"].startswith("Error: /workspace/m.xlsx has merged areas or hyperlink")
    assert "Write the values to a new workbook instead" in result["text"]
    assert result["peak_mb"] < MAX_CALL_MB
    assert (root / "workspace" / "m.xlsx").read_bytes() == book


async def test_editing_a_workbook_with_small_merged_areas_keeps_them(tools):
    wb = openpyxl.Workbook()
    wb.active.merge_cells("A1:C1")
    wb.active["A1"] = "title"
    buf = io.BytesIO()
    wb.save(buf)
    await tools.service.write_bytes("/workspace/t.xlsx", buf.getvalue())
    resp = await tools.call(
        "xlsx_write_cells", path="/workspace/t.xlsx", range="A2", values=[["1"]]
    )
    assert resp.metadata["status"] == "ok", resp.content[0]["text"]
    back = openpyxl.load_workbook(io.BytesIO(await tools.service.read_bytes("/workspace/t.xlsx")))
    assert [str(r) for r in back.active.merged_cells.ranges] == ["A1:C1"]
    assert back.active["A2"].value == 1


# ---------------------------------------------------------------- CSV and text shapes


def test_a_csv_row_of_fifty_million_commas_is_parsed_in_part(tmp_path, input_dir):
    (input_dir / "commas.csv").write_bytes(b"," * 50_000_000 + b"\nafter,row\n")
    result = probe("file", "csv_read", {"path": "/userinput/commas.csv"}, tmp_path, input_dir)
    assert result["outcome"] == "done" and result["status"] == "ok", result
    assert result["chars"] <= MAX_TEXT_CHARS and result["peak_mb"] < MAX_CALL_MB
    text = result["text"]
    assert text.startswith("/userinput/commas.csv — 2 rows (UTF-8, comma-separated)")
    assert "…[+65,337 more fields]" in text  # 65,537 fields parsed, 200 shown
    assert "2: after,row" in text
    assert "[Lines longer than 65,536 characters were parsed only in part: line 1.]" in text


def test_guessing_the_delimiter_never_takes_quadratic_time(tmp_path, input_dir):
    # csv.Sniffer needs over a minute for 64 KiB of this; the reader gives it a few KiB.
    (input_dir / "sniff.csv").write_text('\n,"' * 300_000, encoding="utf-8")
    result = probe(
        "file", "csv_read", {"path": "/userinput/sniff.csv"}, tmp_path, input_dir, timeout=60
    )
    assert result["outcome"] == "done", result
    assert result["chars"] <= MAX_TEXT_CHARS


@pytest.mark.parametrize("rng", [None, [-5, -1], [10_000_000, 10_000_050]])
def test_reading_twenty_million_short_lines_holds_one_copy_of_the_text(tmp_path, input_dir, rng):
    (input_dir / "short.txt").write_bytes(b"ab\n" * 20_000_000)
    args = {"path": "/userinput/short.txt"} | ({"range": rng} if rng else {})
    result = probe("file", "read_text_file", args, tmp_path, input_dir)
    assert result["outcome"] == "done" and result["status"] == "ok", result
    assert result["peak_mb"] < 256, result  # the bytes and the text; no list of lines
    first = {None: 1, (-5, -1): 19_999_996, (10_000_000, 10_000_050): 10_000_000}
    assert result["text"].startswith(
        f"/userinput/short.txt — lines {first[tuple(rng) if rng else None]}–"
    )
    assert result["text"].splitlines()[1] == "ab"
