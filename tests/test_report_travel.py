"""Reports that travel: a report folder copied anywhere keeps every link and image.

Each cited source's stored text is copied beside the report (``copies/``), a quote from
the web links the live page at the quote (a text fragment), and ``<name>.zip`` (named after
the question, as the reports are) holds the whole folder. The demo run is the shared one
of the session.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import zipfile
from urllib.parse import unquote

from script_support import load_script

from research.naming import report_name
from subagents.browser.session import CHROMIUM_FLAGS, chromium_path
from subagents.generate.report import text_fragment


def test_a_text_fragment_names_a_short_quote_whole_and_a_long_one_by_its_ends() -> None:
    short = text_fragment("https://example.org/ferry#top", "The **ferry** ran until 1931.")
    assert short == "https://example.org/ferry#:~:text=The%20ferry%20ran%20until%201931."
    long = text_fragment(
        "https://example.org/a",
        "The toll-bridge opened in 1820, and the ferry lost its trade, its crew and its "
        "licence within a decade of the opening.",
    )
    start, end = long.split("#:~:text=")[1].split(",")
    assert unquote(start) == "The toll-bridge opened in 1820, and"
    assert "%2D" in start and "%2C" in start  # the fragment's own delimiters are escaped
    assert unquote(end) == "within a decade of the opening."
    assert text_fragment("/userinput/notes.md", "A note.") == ""


def test_the_report_folder_copied_elsewhere_has_no_broken_link(demo_en, tmp_path) -> None:
    _, result, _ = demo_en
    reports = result.run.real_path("/workspace/reports")
    name = result.run.real_path(result.outputs[0]).stem
    assert name == report_name(result.question)
    broken, unlinked = load_script("bench/bench_reader.py").broken_links(
        reports, ["md", "html", "pdf", "pptx"], name
    )
    assert broken == {"md": [], "html": [], "pdf": [], "pptx": []}
    assert unlinked == 0
    markdown = (reports / f"{name}.md").read_text(encoding="utf-8")
    stored = re.findall(r"\]\(<(copies/[^>]+)>\)", markdown)
    assert stored and all((reports / s).is_file() for s in stored)
    assert re.search(r"\]\(<http://127\.0\.0\.1:\d+/[^>]*#:~:text=[^>]+>\)", markdown)
    with zipfile.ZipFile(reports / f"{name}.zip") as archive:
        names = set(archive.namelist())
    assert {f"{name}.{fmt}" for fmt in ("md", "html", "pdf", "pptx")} <= names
    assert f"{name}-chart-1.png" in names  # the Markdown's chart, named as the report
    assert set(stored) <= names and f"{name}.zip" not in names


def test_the_html_report_opened_offline_makes_no_failed_request(demo_en, tmp_path) -> None:
    _, result, _ = demo_en
    copy = tmp_path / "elsewhere"
    shutil.copytree(result.run.real_path("/workspace/reports"), copy)

    async def failures() -> list[str]:
        from playwright.async_api import async_playwright

        failed: list[str] = []
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=chromium_path(), args=list(CHROMIUM_FLAGS)
            )
            context = await browser.new_context(offline=True)
            page = await context.new_page()
            page.on("requestfailed", lambda r: failed.append(r.url))
            html = copy / result.run.real_path(result.outputs[1]).name
            await page.goto(html.as_uri(), wait_until="load", timeout=60_000)
            images = await page.eval_on_selector_all(
                "img", "els => els.filter(e => !e.complete || e.naturalWidth === 0).length"
            )
            await browser.close()
        return failed + ["broken image"] * images

    assert asyncio.run(failures()) == []
