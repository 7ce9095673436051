"""Time each generate_* tool on English and Chinese samples (offline, disk).

    .venv/bin/python bench/bench_generate.py [--runs 5]

The samples are the renderers' test material: notes with a sourced table whose numeric
columns get a chart, a spreadsheet source, and the sections for disagreements and for what
could not be found. Prints the median and worst wall time per format and language, and the
size of the file (with its chart images, for Markdown).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import render_samples as samples  # noqa: E402
from agentscope.message import ToolUseBlock  # noqa: E402

from fs_service import ALL_OPS, DiskFileSystem, FileDomainService  # noqa: E402
from subagents import build_toolkit  # noqa: E402

TOOLS = {
    "generate_markdown": "md",
    "generate_html": "html",
    "generate_pdf": "pdf",
    "generate_pptx": "pptx",
}


async def bench(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fs = DiskFileSystem(Path(tmp), mounts={})
        svc = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}]))
        toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
        for lang in ("en", "zh"):
            sample = await samples.SAMPLES[lang](svc)
            notes = f"/workspace/notes/{lang}.md"
            await svc.write_text(notes, sample.notes)
            for tool, ext in TOOLS.items():
                times = []
                folder = f"/workspace/reports/{lang}/"
                out = f"{folder}report.{ext}"
                for i in range(runs + 1):
                    call = ToolUseBlock(
                        type="tool_use",
                        id=str(i),
                        name=tool,
                        input={
                            "requirements": "bench",
                            "out_path": out,
                            "from_paths": sample.from_paths(notes),
                        },
                    )
                    t0 = time.perf_counter()
                    async for res in await toolkit.call_tool_function(call):
                        last = res
                    if last.metadata["status"] != "ok":
                        raise SystemExit(f"{tool} failed: {last.content}")
                    if i:  # the first run warms imports and font caches
                        times.append(time.perf_counter() - t0)
                size = (await svc.stat(out)).size
                if ext == "md":
                    charts = [e for e in await svc.list_dir(folder) if "-chart-" in e.name]
                    size += sum(e.size for e in charts)
                print(
                    f"{lang} {ext:5} median {statistics.median(times) * 1000:7.1f} ms  "
                    f"max {max(times) * 1000:7.1f} ms  {size:>8,} bytes"
                )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    asyncio.run(bench(ap.parse_args().runs))


if __name__ == "__main__":
    main()
