"""Render a report's HTML (phone and desktop widths) and its PDF's first page to PNG.

For a person to look at layout, CJK glyphs, overflow and citations. Either pass files::

    .venv/bin/python scripts/render_preview.py --html report.html --pdf report.pdf --out /tmp/p

or let it build the bundled English and Chinese samples with the generate tools::

    .venv/bin/python scripts/render_preview.py --sample en --sample zh --out /tmp/preview

Uses headless /usr/bin/chromium (or $QUARTET_BROWSER) for the HTML and pdftoppm for the
PDF. Prints the PNG paths. Nothing is fetched from the network.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from subagents.browser.session import CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parent.parent
VIEWS = {"phone": (412, 1600), "desktop": (1100, 1400)}


def screenshot(html: Path, png: Path, width: int, height: int) -> Path:
    """One headless Chromium screenshot of ``html`` at ``width``×``height``."""
    browser = os.environ.get("QUARTET_BROWSER", "/usr/bin/chromium")
    with tempfile.TemporaryDirectory(prefix="preview-profile-") as profile:
        subprocess.run(
            [
                browser,
                "--headless",
                *CHROMIUM_FLAGS,
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                f"--screenshot={png}",
                html.resolve().as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
    return png


def pdf_first_page(pdf: Path, png: Path, dpi: int = 80) -> Path:
    """The first page of ``pdf`` as PNG, through pdftoppm."""
    stem = png.with_suffix("")
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            str(dpi),
            "-f",
            "1",
            "-l",
            "1",
            "-singlefile",
            str(pdf),
            str(stem),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return png


async def build_sample(lang: str, folder: Path) -> tuple[Path, Path]:
    """Write the sample notes and page, generate HTML and PDF, return their disk paths."""
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    import generate_samples as samples

    from fs_service import ALL_OPS, DiskFileSystem, FileDomainService
    from subagents import build_toolkit
    from subagents.results import text_of

    fs = DiskFileSystem(folder / "run", mounts={})
    svc = FileDomainService(fs.create_handle([{"prefix": "/workspace/", "ops": set(ALL_OPS)}]))
    page = await (samples.en_page if lang == "en" else samples.zh_page)(svc)
    notes = (samples.en_notes if lang == "en" else samples.zh_notes)(page)
    await svc.write_text(f"/workspace/notes/{lang}.md", notes)
    toolkit = build_toolkit("generate", service=svc, evidence=None, model=None)
    from agentscope.message import ToolUseBlock

    out = {}
    for tool, ext in (("generate_html", "html"), ("generate_pdf", "pdf")):
        call = ToolUseBlock(
            type="tool_use",
            id=ext,
            name=tool,
            input={
                "requirements": "Sample report",
                "out_path": f"/workspace/reports/{lang}.{ext}",
                "from_paths": [f"/workspace/notes/{lang}.md", page.path],
            },
        )
        async for res in await toolkit.call_tool_function(call):
            last = res
        print(text_of(last).splitlines()[0])
        out[ext] = folder / "run" / "workspace" / "reports" / f"{lang}.{ext}"
    return out["html"], out["pdf"]


def render(html: Path | None, pdf: Path | None, out: Path, name: str) -> list[Path]:
    made = []
    if html is not None:
        for view, (w, h) in VIEWS.items():
            made.append(screenshot(html, out / f"{name}-{view}.png", w, h))
    if pdf is not None:
        made.append(pdf_first_page(pdf, out / f"{name}-pdf-page1.png"))
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--html", type=Path)
    ap.add_argument("--pdf", type=Path)
    ap.add_argument("--sample", action="append", choices=["en", "zh"], default=[])
    ap.add_argument("--out", type=Path, default=Path("/tmp/quartet-preview"))
    args = ap.parse_args(argv)
    if not (args.html or args.pdf or args.sample):
        ap.error("give --html/--pdf files or --sample en/zh")
    if not shutil.which("pdftoppm"):
        print("pdftoppm is not installed (Debian: poppler-utils)", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    if args.html or args.pdf:
        made += render(args.html, args.pdf, args.out, "report")
    for lang in args.sample:
        html, pdf = asyncio.run(build_sample(lang, args.out / f"sample-{lang}"))
        made += render(html, pdf, args.out, f"sample-{lang}")
    for path in made:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
