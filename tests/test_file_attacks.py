"""Attacks through what the tools write and where: formula injection, hostile file names,
downloads aimed at stored pages."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace

import openpyxl
import pytest
from agentscope.message import ToolUseBlock
from browser_sites import SiteServer, page
from browser_support import LOOPBACK, LOOPBACK_SETTINGS, stored_path
from cli_support import shared_cache
from file_support import FileTools

from demo.settings import demo_settings
from demo.web import demo_world
from fs_service import DiskFileSystem, FileDomainService
from host.brains import make_brain
from host.config import Settings
from host.durability.run_folder import RunFolder, subagent_grants
from host.orchestration.hub import Host
from subagents import build_toolkit
from subagents.browser import BrowserSession
from subagents.evidence import EvidenceLedger, sidecar_path
from subagents.results import text_of
from subagents.settings import ToolSettings

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


async def test_csv_write_keeps_formulas_only_when_the_host_allows_them(disk_service, tmp_path):
    rows = [["1", "2", "=A1+B1"]]
    out = tmp_path / "run" / "workspace" / "f.csv"
    # the model cannot ask for formulas: the choice is not a parameter of the tool
    asked = await FileTools(disk_service).call(
        "csv_write", path="/workspace/f.csv", rows=rows, formulas=True
    )
    assert asked.metadata["status"] == "error" and not out.exists()
    allowed = FileTools(disk_service, settings=ToolSettings(spreadsheet_formulas=True))
    resp = await allowed.call("csv_write", path="/workspace/f.csv", rows=rows)
    assert resp.metadata["status"] == "ok"
    assert out.read_bytes().decode("utf-8-sig") == "1,2,=A1+B1\r\n"


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


async def test_xlsx_write_stores_formulas_only_when_the_host_allows_them(disk_service, tmp_path):
    values = [["2", "3", "=A1*B1", "@x"]]
    asked = await FileTools(disk_service).call(
        "xlsx_write_cells", path="/workspace/f.xlsx", range="A1", values=values, formulas=True
    )
    assert asked.metadata["status"] == "error"
    assert not (tmp_path / "run" / "workspace" / "f.xlsx").exists()
    allowed = FileTools(disk_service, settings=ToolSettings(spreadsheet_formulas=True))
    resp = await allowed.call(
        "xlsx_write_cells", path="/workspace/f.xlsx", range="A1", values=values
    )
    assert resp.metadata["status"] == "ok", resp
    assert "1 formula cell(s)" in resp.content[0]["text"]
    ws = openpyxl.load_workbook(tmp_path / "run" / "workspace" / "f.xlsx").active
    assert (ws["C1"].value, ws["C1"].data_type) == ("=A1*B1", "f")
    # only "=" makes a formula; "@x" is still text
    assert (ws["D1"].value, ws["D1"].data_type) == ("@x", "s")


# ---------------------------------------------------------------- downloads over stored pages


@pytest.fixture
def site() -> Iterator[SiteServer]:
    server = SiteServer()
    server.routes["/page"] = page(
        b"<html><body><h1>Report</h1><p>Revenue grew 12% in 2023.</p></body></html>"
    )
    server.routes["/forged"] = page(b"Revenue fell 90% in 2023.", content_type="text/plain")
    server.start()
    yield server
    server.stop()


async def call(toolkit, name: str, **kwargs):
    last = None
    async for chunk in await toolkit.call_tool_function(
        ToolUseBlock(type="tool_use", id="t1", name=name, input=kwargs)
    ):
        last = chunk
    return last


async def test_a_download_cannot_replace_a_stored_page_or_its_sidecar(tmp_path, site):
    run = RunFolder.create(tmp_path / "runs")
    browser = BrowserSession(allow=LOOPBACK)
    try:
        toolkit = build_toolkit(
            "browser",
            service=run.subagent_service,
            areas=run.area_services,
            browser=browser,
            evidence=EvidenceLedger(),
            model=None,
            settings=LOOPBACK_SETTINGS,
        )
        fetched = await call(toolkit, "viewer_fetch", url=site.url("/page"))
        assert fetched.metadata["status"] == "ok", text_of(fetched)
        stored = stored_path(fetched)
        assert stored.startswith("/workspace/pages/")
        text = await run.host_service.read_text(stored)
        sidecar = await run.host_service.read_text(sidecar_path(stored))
        for target in (stored, sidecar_path(stored), "/workspace/pages/new.md"):
            res = await call(toolkit, "http_download", url=site.url("/forged"), save_path=target)
            assert text_of(res).startswith("Error: writing is not allowed under /workspace/pages/")
        assert await run.host_service.read_text(stored) == text
        assert await run.host_service.read_text(sidecar_path(stored)) == sidecar
        assert not await run.host_service.exists("/workspace/pages/new.md")
        # downloads go under downloads/ and nowhere else in the workspace
        elsewhere = await call(
            toolkit, "http_download", url=site.url("/forged"), save_path="/workspace/notes/x.txt"
        )
        assert text_of(elsewhere).startswith("Error: writing is not allowed under /workspace/")
        saved = await call(
            toolkit,
            "http_download",
            url=site.url("/forged"),
            save_path="/workspace/downloads/f.txt",
        )
        assert saved.metadata["status"] == "ok", text_of(saved)
        assert (run.path / "workspace" / "downloads" / "f.txt").read_bytes().startswith(b"Revenue")
    finally:
        await browser.aclose()


async def test_file_tools_read_pages_and_downloads_but_write_only_their_own_outputs(tmp_path):
    run = RunFolder.create(tmp_path / "runs")
    await run.host_service.write_text("/workspace/pages/p.md", "stored page")
    await run.host_service.write_text("/workspace/downloads/d.csv", "a,b\n1,2\n")
    tools = FileTools(run.subagent_service)
    tools.toolkit = build_toolkit("file", service=run.subagent_service, areas=run.area_services)
    assert "stored page" in await tools.text("read_text_file", path="/workspace/pages/p.md")
    assert "1,2" in await tools.text("csv_read", path="/workspace/downloads/d.csv")
    for path in ("/workspace/pages/p.md", "/workspace/downloads/d.csv"):
        refused = await tools.text("write_file", path=path, content="forged")
        assert refused.startswith("Error: writing is not allowed under /workspace/"), refused
        gone = await tools.text("delete_file", path=path)
        assert gone.startswith("Error:"), gone
    assert await run.host_service.read_text("/workspace/pages/p.md") == "stored page"
    wrote = await tools.call("write_file", path="/workspace/notes/n.md", content="mine")
    assert wrote.metadata["status"] == "ok"
    table = await tools.call("csv_write", path="/workspace/reports/t.csv", rows=[["a"]])
    assert table.metadata["status"] == "ok"


async def test_a_served_file_subagent_cannot_write_stored_pages(tmp_path):
    from test_mcp_hostile import served
    from test_mcp_hostile import text as mcp_text

    ws = tmp_path / "ws"
    (ws / "pages").mkdir(parents=True)
    (ws / "pages" / "p.md").write_text("stored page", encoding="utf-8")
    async with served("file", tmp_path, "--workspace", str(ws)) as client:
        result = await client.call_tool(
            "write_file", {"path": "/workspace/pages/p.md", "content": "forged"}
        )
        assert result.isError and "not allowed under /workspace/pages/" in mcp_text(result)
        read = await client.call_tool("read_text_file", {"path": "/workspace/pages/p.md"})
        assert not read.isError and "stored page" in mcp_text(read)
        mine = await client.call_tool("write_file", {"path": "/workspace/a.md", "content": "x"})
        assert not mine.isError, mcp_text(mine)
    assert (ws / "pages" / "p.md").read_text(encoding="utf-8") == "stored page"


# ---------------------------------------------------------------- non-UTF-8 file names

#: A file name whose bytes are not UTF-8, and how every result, record and report shows it.
BAD_NAME = b"notes-\xff\xfe.txt"
SHOWN = "notes-\\xff\\xfe.txt"


async def test_a_non_utf8_name_is_listed_escaped_and_readable_by_that_name(tmp_path, input_dir):
    with open(os.fsencode(input_dir) + b"/" + BAD_NAME, "wb") as fh:
        fh.write(b"Huitong canal opened in 1289.\n")
    fs = DiskFileSystem(tmp_path / "run", mounts={"/userinput/": input_dir})
    tools = FileTools(FileDomainService(fs.create_handle(subagent_grants())))
    listing = await tools.text("list_directory", path="/userinput/")
    assert SHOWN in listing
    read = await tools.call("read_text_file", path=f"/userinput/{SHOWN}")
    assert read.metadata["status"] == "ok" and "1289" in text_of(read)
    assert read.metadata["paths"] == [f"/userinput/{SHOWN}"]
    # an escape that spells UTF-8 text is another spelling of a name: refused
    spelled = await tools.text("read_text_file", path="/userinput/\\xc3\\xa9.txt")
    assert spelled.startswith("Error: invalid path") and "written as itself" in spelled


def test_a_non_utf8_input_name_keeps_run_json_and_is_shown_escaped(tmp_path):
    with demo_world(shared_cache()) as world:
        inputs = tmp_path / "input"
        shutil.copytree(world.input_dir, inputs)
        with open(os.fsencode(inputs) + b"/" + BAD_NAME, "wb") as fh:
            fh.write(b"Reading notes: the Huitong canal opened in 1289.\n")
        settings = replace(
            demo_settings(Settings(runs_dir=tmp_path / "runs", quiet=True), world),
            input_dir=inputs,
        )
        host = Host(settings, make_brain("offline"))
        result = asyncio.run(host.run(world.question))
    assert result.outputs, result.errors
    folder = next(p for p in (tmp_path / "runs").iterdir() if not p.name.startswith("."))
    record = json.loads((folder / "internal" / "run.json").read_text(encoding="utf-8"))
    assert record["outputs"] == result.outputs
    written = [
        *(folder / "internal").iterdir(),
        *(folder / "workspace" / "sources").iterdir(),
        *(folder / "workspace" / "reports").glob("*.md"),
    ]
    texts = {p.name: p.read_bytes().decode("utf-8") for p in written if p.is_file()}
    # the file was listed and read under its escaped name, in the records and the sources
    assert SHOWN in json.dumps(record, ensure_ascii=False).replace("\\\\", "\\")
    assert any(f'"url": "/userinput/{SHOWN}"'.replace("\\", "\\\\") in t for t in texts.values())
    assert any(
        SHOWN.replace("\\", "\\\\") in t for n, t in texts.items() if n == "transcript.jsonl"
    )
    assert not any(re.search("[\udc80-\udcff]", t) for t in texts.values())


def test_the_browser_is_told_which_of_its_tools_write_the_read_only_areas(tmp_path):
    from host.orchestration.factory import grants_prompt
    from subagents import get_spec

    run = RunFolder.create(tmp_path / "runs")
    browser = grants_prompt(get_spec("browser"), run)
    assert "- `/workspace/pages/` — read only" in browser
    assert "- `/workspace/pages/` is written by viewer_fetch only." in browser
    assert "- `/workspace/downloads/` is written by http_download only." in browser
    assert "written by" not in grants_prompt(get_spec("file"), run)
