"""Time each generate_* tool on the bundled English and Chinese samples (offline, disk).

    .venv/bin/python bench/bench_generate.py [--runs 5]

Prints the median and worst wall time per format and language, and the file size.
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

import generate_samples as samples  # noqa: E402
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
            page = await (samples.en_page if lang == "en" else samples.zh_page)(svc)
            notes = (samples.en_notes if lang == "en" else samples.zh_notes)(page)
            await svc.write_text(f"/workspace/notes/{lang}.md", notes)
            for tool, ext in TOOLS.items():
                times = []
                out = f"/workspace/reports/{lang}.{ext}"
                for i in range(runs + 1):
                    call = ToolUseBlock(
                        type="tool_use",
                        id=str(i),
                        name=tool,
                        input={
                            "requirements": "bench",
                            "out_path": out,
                            "from_paths": [f"/workspace/notes/{lang}.md", page.path],
                        },
                    )
                    t0 = time.perf_counter()
                    async for _ in await toolkit.call_tool_function(call):
                        pass
                    if i:  # the first run warms imports and font caches
                        times.append(time.perf_counter() - t0)
                size = (await svc.stat(out)).size
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
