"""The Browser subagent: read pages, download files, and drive a browser page."""

from __future__ import annotations

import re
from typing import Any

from ..offline import CallResult
from ..outcomes import BrowserOutcome
from ..spec import SubAgentSpec, ToolGroup
from ..untrusted import outside
from . import offline, stage
from .automation import (
    browser_click,
    browser_navigate,
    browser_screenshot,
    browser_snapshot,
    browser_type,
    browser_wait,
)
from .download import http_download
from .viewer import viewer_fetch

SYS_PROMPT = """You are the Browser agent. You read the web pages you are given and bring back \
exact, citable evidence.

- Read pages with viewer_fetch. Pass `query` to get an answer with verified quotes; the quotes \
are recorded as evidence. The full page text is stored under /workspace/pages/.
- Save files (PDF, spreadsheets, images) with http_download into /workspace/downloads/.
- Use the browser_* tools only for pages that need interaction: browser_navigate, then \
browser_snapshot to see the page, then browser_click / browser_type / browser_wait, and \
browser_screenshot to keep an image.
- A tool result starting with "Error:" says what to change. If a site is unavailable, move on to \
the next URL.
- Finish with a short summary: what each page said about the task and which pages were stored."""

TASK = (
    "Read the pages in the context with viewer_fetch, passing the sub-question as `query`, "
    "so that every answer comes with exact quoted evidence. Download the documents they "
    "link to (PDF, XLSX, CSV, PPTX) with http_download into /workspace/downloads/. Skip "
    "pages that fail. Finish with the evidence ids found and what is still missing."
)
_STORED = re.compile(r"^Stored: (\S+)", re.M)
_SAVED = re.compile(r"^(?:Saved \S+ to|Already downloaded in this run: \S+ is at) (\S+?)[ .]")


def carry(done: list[CallResult]) -> dict[str, Any]:
    """Pages stored and documents saved, as the results name them."""
    pages = [
        p
        for r in done
        if r.name == "viewer_fetch" and r.ok
        for p in _STORED.findall(outside(r.text))
    ]
    saved = [
        m.group(1)
        for r in done
        if r.name == "http_download" and r.ok
        if (m := _SAVED.match(r.text))
    ]
    return {"pages": list(dict.fromkeys(pages)), "downloads": list(dict.fromkeys(saved))}


SPEC = SubAgentSpec(
    name="browser",
    description=(
        "Reads web pages into Markdown with verified quotes, downloads files, and drives a "
        "browser page for sites that need clicks or typing."
    ),
    sys_prompt=SYS_PROMPT,
    groups=(
        ToolGroup(
            name="viewer",
            tools=(viewer_fetch, http_download),
            description=(
                "Read web pages as Markdown (stored under /workspace/pages/, optionally "
                "answering a question with exact quotes) and download files into "
                "/workspace/downloads/."
            ),
            active=True,
            writes=frozenset({"http_download"}),
            areas={"viewer_fetch": "pages", "http_download": "downloads"},
        ),
        ToolGroup(
            name="automation",
            tools=(
                browser_navigate,
                browser_snapshot,
                browser_screenshot,
                browser_click,
                browser_type,
                browser_wait,
            ),
            description=(
                "Drive one browser page step by step: open a URL, read its accessibility "
                "snapshot, click, type, wait for elements, and save screenshots. Use it for "
                "pages that need interaction; viewer_fetch is faster for plain reading."
            ),
            active=True,
            writes=frozenset({"browser_screenshot"}),
            areas={"browser_screenshot": "screenshots"},
        ),
    ),
    requires=("service", "browser", "evidence", "model", "settings"),
    task=TASK,
    title="Reading pages",
    outcome=BrowserOutcome,
    carry=carry,
    offline_plan=offline.plan,
    offline_outcome=offline.outcome,
    host_line=(
        'reads pages for one sub-question and quotes exact evidence: {"subquestion": '
        '"q1", "urls": [...the best unread pages a search result lists...]}; without a '
        'sub-question, {"download": true} downloads the documents found.'
    ),
    prepare=stage.prepare,
    absorb=stage.absorb,
    step_fields=("urls",),
    web=True,
    skills=("browser-access", "page-reading"),
)
