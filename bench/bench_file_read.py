"""Read throughput of the File subagent's PDF, XLSX and PPTX tools on generated files.

Run: .venv/bin/python bench/bench_file_read.py [--pages 120] [--rows 10000] [--slides 100]

Files are generated in a temporary folder with weasyprint, openpyxl and python-pptx, then
read through the real toolkit (build_toolkit("file", service=...)), as an agent would.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import re
import statistics
import tempfile
import time
from pathlib import Path

import openpyxl
from agentscope.message import ToolUseBlock
from pptx import Presentation
from weasyprint import HTML

from fs_service import ALL_OPS, DiskFileSystem, FileDomainService
from subagents import build_toolkit
from subagents.results import text_of
from subagents.settings import ToolSettings


def make_pdf(pages: int) -> bytes:
    body = "".join(
        f'<section style="page-break-after: always"><h1>第{i}页 Page {i}</h1>'
        + "".join(f"<p>{i}.{j} 研究报告显示市场规模持续增长 research data</p>" for j in range(20))
        + "</section>"
        for i in range(1, pages + 1)
    )
    html = f"<html><body style=\"font-family: 'WenQuanYi Zen Hei'\">{body}</body></html>"
    return HTML(string=html).write_pdf()


def make_xlsx(rows: int, cols: int = 10) -> bytes:
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("数据")
    for r in range(rows):
        ws.append([f"单元{r}-{c}" if c % 2 else r * c for c in range(cols)])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def make_pptx(slides: int) -> bytes:
    prs = Presentation()
    for i in range(1, slides + 1):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = f"第{i}页 Slide {i}"
        frame = slide.placeholders[1].text_frame
        frame.text = f"要点 {i}-0"
        for j in range(1, 6):
            frame.add_paragraph().text = f"要点 {i}-{j}: 数据与结论"
        slide.notes_slide.notes_text_frame.text = f"讲稿 {i}"
    buf = io.BytesIO()
    prs.save(buf)
    return buf.getvalue()


async def call(toolkit, name: str, **kwargs):
    last = None
    block = ToolUseBlock(type="tool_use", id="b", name=name, input=kwargs)
    async for chunk in await toolkit.call_tool_function(block):
        last = chunk
    return last


async def timed(runs: int, fn) -> tuple[float, object]:
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = await fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


async def main(pages: int, rows: int, slides: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        (root / "in").mkdir()
        (root / "in" / "big.pdf").write_bytes(make_pdf(pages))
        (root / "in" / "big.xlsx").write_bytes(make_xlsx(rows))
        (root / "in" / "big.pptx").write_bytes(make_pptx(slides))
        print(f"generated files in {time.perf_counter() - t0:.1f} s")
        fs = DiskFileSystem(root / "run", mounts={"/userinput/": root / "in"})
        svc = FileDomainService(fs.create_handle([{"prefix": "/userinput/", "ops": ALL_OPS}]))
        tk = build_toolkit("file", service=svc, settings=ToolSettings())

        async def read_pdf():
            # Every page, in the batches the results ask for ("call pdf_read_text with pages=").
            first = text_of(await call(tk, "pdf_read_text", path="/userinput/big.pdf", pages=[1]))
            total = int(re.search(r" — (\d+) pages", first).group(1))
            got: set[int] = set()
            wanted = list(range(1, total + 1))
            while wanted:
                out = text_of(
                    await call(tk, "pdf_read_text", path="/userinput/big.pdf", pages=wanted[:50])
                )
                shown = {int(n) for n in re.findall(r"^--- page (\d+) ---$", out, re.M)}
                if not shown:
                    raise SystemExit(out[:300])
                got |= shown
                wanted = [p for p in wanted if p not in got]
            return len(got)

        secs, n = await timed(runs, read_pdf)
        print(f"PDF : {n} pages in {secs:.2f} s -> {n / secs:,.1f} pages/s (every page shown)")

        async def read_xlsx():
            # The whole area: each call shows what fits, the next asks from the first row
            # not shown yet.
            cells, first = 0, 1
            while first <= rows:
                resp = await call(
                    tk, "xlsx_read_cells", path="/userinput/big.xlsx", range=f"A{first}:J{rows}"
                )
                shown = re.findall(r"^\| (\d+) \| (.*) \|$", text_of(resp), re.M)
                if not shown:
                    raise SystemExit(text_of(resp)[:300])
                cells += sum(len(line.split(" | ")) for _, line in shown)
                first = int(shown[-1][0]) + 1
            return cells

        secs, n = await timed(runs, read_xlsx)
        print(f"XLSX: {n:,} cells in {secs:.2f} s -> {n / secs:,.0f} cells/s (every cell shown)")

        async def read_pptx():
            out = text_of(await call(tk, "pptx_read_outline", path="/userinput/big.pptx"))
            return int(re.search(r" — (\d+) slides", out).group(1))

        secs, n = await timed(runs, read_pptx)
        print(f"PPTX: {n} slides in {secs:.2f} s -> {n / secs:,.1f} slides/s (one call)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=120)
    ap.add_argument("--rows", type=int, default=10_000, help="rows of 10 cells")
    ap.add_argument("--slides", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    asyncio.run(main(a.pages, a.rows, a.slides, a.runs))
