"""File subagent: directories, file facts, and text read / write / edit / delete."""

from __future__ import annotations

import pytest
from file_support import FileTools, pdf_from_html

from fs_service import FileDomainService

WRITES = {"write_file", "edit_file", "delete_file", "csv_write", "xlsx_write_cells", "pptx_write"}


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    return FileTools(disk_service)


def test_toolkit_holds_the_fifteen_tools_and_read_only_drops_writers(disk_service):
    full = set(FileTools(disk_service).toolkit.tools)
    assert len(full) == 15 and full >= WRITES
    assert set(FileTools(disk_service, read_only=True).toolkit.tools) == full - WRITES


async def test_list_allowed_directories_names_both_grants(tools):
    resp = await tools.call("list_allowed_directories")
    text = resp.content[0]["text"]
    assert "/userinput/" in text and "read only" in text
    assert "/workspace/" in text and "read and write" in text
    assert "- `/userinput/` — read only" in text and "- `/workspace/` — read and write" in text
    assert resp.metadata["paths"] == ["/userinput/", "/workspace/"]


async def test_list_directory_and_file_info(tools, input_dir):
    (input_dir / "sub").mkdir()
    (input_dir / "笔记.txt").write_text("你好\n世界\n", encoding="utf-8")
    (input_dir / "r.pdf").write_bytes(pdf_from_html("<p>x</p>"))
    resp = await tools.call("list_directory", path="/userinput/")
    text = resp.content[0]["text"]
    assert "[DIR]  sub/" in text and "[FILE] 笔记.txt (14 bytes)" in text
    assert text.startswith("/userinput/ — 3 entries:") and resp.metadata["paths"] == ["/userinput/"]
    info = await tools.call("get_file_info", path="/userinput/r.pdf")
    facts = info.content[0]["text"].splitlines()
    assert "read with: pdf_read_text" in facts and "type: PDF document" in facts
    assert "allowed: read" in facts and info.metadata["paths"] == ["/userinput/r.pdf"]
    ws = await tools.call("get_file_info", path="/userinput/sub")
    assert "kind: directory" in ws.content[0]["text"].splitlines()
    missing = await tools.text("get_file_info", path="/userinput/nope.txt")
    assert missing.startswith("Error:") and "does not exist" in missing


async def test_list_directory_bounds_many_entries(tools):
    for i in range(520):
        await tools.service.write_text(f"/workspace/many/f{i:04d}.txt", "x")
    text = await tools.text("list_directory", path="/workspace/many/")
    assert "f0499.txt" in text and "f0500.txt" not in text
    assert "20 more entries not shown" in text


async def test_read_text_file_ranges_and_paging_line(tools):
    body = "\n".join(f"{i} 第{i}行" for i in range(1, 5001))
    await tools.service.write_text("/workspace/long.txt", body)
    first = await tools.call("read_text_file", path="/workspace/long.txt")
    text = first.content[0]["text"]
    assert text.startswith("/workspace/long.txt — lines 1–2000 of 5000 (UTF-8)")
    assert "\n2000 第2000行\n" in text and "2001 第" not in text
    assert "call read_text_file with range=[2001, 4000]" in text
    part = await tools.text("read_text_file", path="/workspace/long.txt", range=[10, 12])
    assert part.splitlines()[1:] == ["10 第10行", "11 第11行", "12 第12行"]
    tail = await tools.text("read_text_file", path="/workspace/long.txt", range=[-2, -1])
    assert tail.splitlines()[1:] == ["4999 第4999行", "5000 第5000行"]
    bad = await tools.text("read_text_file", path="/workspace/long.txt", range=[6000, 6001])
    assert bad.startswith("Error:") and "5000 lines" in bad


async def test_read_text_file_bounds_huge_lines_by_characters(tools):
    await tools.service.write_text("/workspace/wide.txt", "\n".join(["x" * 3000] * 40))
    text = await tools.text("read_text_file", path="/workspace/wide.txt")
    shown = [ln for ln in text.splitlines() if ln.startswith("xxx")]
    assert 5 <= len(shown) < 40
    assert f"range=[{len(shown) + 1}, " in text


async def test_read_text_file_decodes_gbk_and_bom(tools, input_dir):
    (input_dir / "gbk.txt").write_bytes("中文内容，编码为GBK。\n第二行".encode("gbk"))
    (input_dir / "bom.txt").write_bytes("\ufeff带BOM的文本".encode())
    gbk = await tools.call("read_text_file", path="/userinput/gbk.txt")
    assert "中文内容，编码为GBK。" in gbk.content[0]["text"]
    assert gbk.content[0]["text"].splitlines()[0].endswith("(GBK/GB18030)")
    bom = await tools.call("read_text_file", path="/userinput/bom.txt")
    assert bom.content[0]["text"].splitlines()[1] == "带BOM的文本"
    assert bom.content[0]["text"].splitlines()[0].endswith("(UTF-8 with BOM)")


async def test_read_text_file_on_binary_names_the_right_tool(tools, input_dir):
    (input_dir / "doc.txt").write_bytes(pdf_from_html("<p>hidden pdf</p>"))
    (input_dir / "blob.bin").write_bytes(bytes(range(256)) * 10)
    pdf = await tools.text("read_text_file", path="/userinput/doc.txt")
    assert pdf.startswith("Error:") and "PDF document" in pdf and "pdf_read_text" in pdf
    blob = await tools.text("read_text_file", path="/userinput/blob.bin")
    assert blob.startswith("Error:") and "binary" in blob


async def test_write_file_round_trips_chinese_and_refuses_userinput(tools, input_dir):
    resp = await tools.call("write_file", path="/workspace/out/报告.md", content="# 标题\n正文")
    assert resp.content[0]["text"].startswith("Created /workspace/out/报告.md")
    assert await tools.service.read_text("/workspace/out/报告.md") == "# 标题\n正文"
    again = await tools.text("write_file", path="/workspace/out/报告.md", content="新")
    assert again.startswith("Replaced")
    (input_dir / "keep.txt").write_text("original", encoding="utf-8")
    refused = await tools.text("write_file", path="/userinput/keep.txt", content="changed")
    assert refused.startswith("Error: writing is not allowed under /userinput/")
    assert (input_dir / "keep.txt").read_text(encoding="utf-8") == "original"
    outside = await tools.text("write_file", path="/etc/passwd", content="x")
    assert outside.startswith("Error:") and "outside the granted directories" in outside
    dotted = await tools.text("write_file", path="/workspace/../etc/x", content="x")
    assert dotted.startswith("Error:")


async def test_edit_file_is_exact_and_all_or_nothing(tools):
    path = "/workspace/e.txt"
    await tools.service.write_text(path, "alpha 甲\nbeta 乙\nbeta 乙\ngamma 丙\n")
    ok = await tools.call(
        "edit_file",
        path=path,
        edits=[
            {"old_text": "alpha 甲", "new_text": "ALPHA 甲"},
            {"old_text": "gamma", "new_text": "GAMMA"},
        ],
    )
    text = ok.content[0]["text"]
    assert text.startswith("Applied 2 edit(s)") and "-alpha 甲" in text and "+ALPHA 甲" in text
    after = await tools.service.read_text(path)
    assert after == "ALPHA 甲\nbeta 乙\nbeta 乙\nGAMMA 丙\n"
    twice = await tools.text(
        "edit_file",
        path=path,
        edits=[{"old_text": "ALPHA", "new_text": "x"}, {"old_text": "beta 乙", "new_text": "y"}],
    )
    assert twice.startswith("Error: edit 2") and "occurs 2 times" in twice
    absent = await tools.text(
        "edit_file", path=path, edits=[{"old_text": "delta", "new_text": "x"}]
    )
    assert absent.startswith("Error: edit 1") and "is not in the file" in absent
    malformed = await tools.text("edit_file", path=path, edits=[{"old": "x"}])
    assert malformed.startswith("Error: edits must be a list")
    assert await tools.service.read_text(path) == after


async def test_edit_file_keeps_gbk_and_crlf(tools, input_dir):
    await tools.service.write_bytes("/workspace/g.txt", "第一行\r\n第二行\r\n".encode("gbk"))
    resp = await tools.call(
        "edit_file",
        path="/workspace/g.txt",
        edits=[{"old_text": "第一行\n第二行", "new_text": "甲\n乙"}],
    )
    assert resp.content[0]["text"].startswith("Applied 1 edit(s) to /workspace/g.txt (GBK/GB18030)")
    assert resp.metadata["paths"] == ["/workspace/g.txt"]
    raw = await tools.service.read_bytes("/workspace/g.txt")
    assert raw == "甲\r\n乙\r\n".encode("gbk")


async def test_edit_and_delete_under_userinput_fail_with_service_text(tools, input_dir):
    (input_dir / "a.txt").write_text("keep", encoding="utf-8")
    edit = await tools.text(
        "edit_file", path="/userinput/a.txt", edits=[{"old_text": "keep", "new_text": "x"}]
    )
    delete = await tools.text("delete_file", path="/userinput/a.txt")
    for text in (edit, delete):
        assert text.startswith("Error:") and "not allowed under /userinput/" in text
        assert "/workspace/" in text
    assert (input_dir / "a.txt").read_text(encoding="utf-8") == "keep"


async def test_delete_file(tools):
    await tools.service.write_text("/workspace/d/x.txt", "bye")
    assert (await tools.text("delete_file", path="/workspace/d/x.txt")).startswith("Deleted")
    assert not await tools.service.exists("/workspace/d/x.txt")
    gone = await tools.text("delete_file", path="/workspace/d/x.txt")
    assert gone.startswith("Error:") and "does not exist" in gone


async def test_tools_work_over_the_memory_backend(memory_service):
    tools = FileTools(memory_service)
    await tools.call("write_file", path="/workspace/m.txt", content="内存\n后端")
    text = await tools.text("read_text_file", path="/workspace/m.txt", range=[2, 2])
    assert text.splitlines()[1] == "后端"
