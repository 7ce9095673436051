"""Every downloaded document is read before the report, whenever it was downloaded.

A small web on 127.0.0.1: the only page search finds links to an archive page, and the
archive links to the founding charter (a PDF, the only source that answers the question)
and to a damaged PDF. The charter is therefore downloaded only after a later round has read
the archive. Two Hosts drive the offline pipeline over it in ways an LLM Host may: one
reads ``/workspace/downloads/`` once, early, then researches on; the other never reads
the downloads and asks straight for the report. In both runs the charter must be read and
cited, and the damaged document handed to the File subagent once, never in a loop.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_sites import SiteServer, page
from file_support import pdf_from_html

from demo.corpus import read_report, report_sources
from demo.search_web import Document, SearchWeb
from demo.settings import demo_settings
from demo.web import DemoWorld
from host.brains import make_brain
from host.brains.offline import HostPolicy
from host.config import Settings
from host.orchestration.delegation import READ_DOWNLOADS, Delegation
from host.orchestration.hub import Host, HostAgent, RunResult
from subagents.offline import CallResult

QUESTION = "Who founded the Kestrel Observatory?"
DOWNLOADS = "/workspace/downloads/"
CHARTER = f"{DOWNLOADS}kestrel-charter.pdf"
DAMAGED = f"{DOWNLOADS}kestrel-plans.pdf"
FOUNDER = "Margaret Lindqvist"

HOME = """<!doctype html><html><head><title>The Kestrel Observatory</title></head><body>
<article><h1>The Kestrel Observatory</h1>
<p>The Kestrel Observatory stands on the ridge above the town of Carrow, where the night
sky is dark.</p>
<p>Its dome houses a refractor with a lens of twenty-four inches, still used by students
every winter.</p>
<p>The papers of its early years are kept in the
<a href="/kestrel-archive.html">Kestrel Observatory founding archive</a>.</p>
</article></body></html>"""
ARCHIVE = """<!doctype html><html><head><title>Founding archive of the Kestrel Observatory
</title></head><body><article><h1>Founding archive of the Kestrel Observatory</h1>
<p>The archive keeps letters, plans and accounts from the first years of the Kestrel
Observatory.</p>
<p>The founding charter is kept as a scanned document:
<a href="/docs/kestrel-charter.pdf">Kestrel Observatory founding charter (PDF)</a>.</p>
<p>The building plans were scanned too:
<a href="/docs/kestrel-plans.pdf">Kestrel Observatory founding plans (PDF)</a>.</p>
</article></body></html>"""
CHARTER_HTML = f"""<html><body><h1>Founding charter of the Kestrel Observatory</h1>
<p>The Kestrel Observatory was founded in 1871 by the astronomer {FOUNDER}, who paid for
its first telescope herself.</p></body></html>"""


# ------------------------------------------------------------------------------ the world


def serve(site: SiteServer) -> None:
    """Give ``site`` its pages: the home page, the archive, the charter, a damaged PDF."""
    site.routes.update(
        {
            "/kestrel-observatory.html": page(HOME.encode()),
            "/kestrel-archive.html": page(ARCHIVE.encode()),
            "/docs/kestrel-charter.pdf": page(
                pdf_from_html(CHARTER_HTML), content_type="application/pdf"
            ),
            "/docs/kestrel-plans.pdf": page(
                b"%PDF-1.7\nnot a document", content_type="application/pdf"
            ),
        }
    )


@pytest.fixture
def world() -> Iterator[DemoWorld]:
    """The site and search engines on 127.0.0.1; search finds the home page only."""
    site = SiteServer().start()
    serve(site)
    found = Document(
        "The Kestrel Observatory",
        site.url("/kestrel-observatory.html"),
        "The Kestrel Observatory stands on the ridge above the town of Carrow.",
    )
    try:
        with SearchWeb([found]) as engines:
            yield DemoWorld(
                question=QUESTION,
                question_zh="",
                input_dir=None,  # type: ignore[arg-type]  # no input files
                site_url=site.base,
                endpoints=dict(engines.urls),
                hosts=(f"127.0.0.1:{site.port}", engines.base.removeprefix("http://")),
                site_requests=[],
            )
    finally:
        site.stop()


class ScriptedHost(Host):
    """A Host whose own agent thinks with the given policy; subagents stay offline."""

    def __init__(self, settings: Settings, policy: HostPolicy) -> None:
        super().__init__(settings, make_brain("offline"))
        self.policy = policy

    def _make_host_agent(self) -> HostAgent:
        agent = super()._make_host_agent()
        agent.model = self.policy
        return agent


def research(world: DemoWorld, runs: Path, policy: HostPolicy) -> RunResult:
    """Research :data:`QUESTION` offline over ``world`` with ``policy`` as the Host's brain."""
    settings = demo_settings(Settings(runs_dir=runs, formats=("md",), quiet=True), world)
    return asyncio.run(ScriptedHost(settings, policy).run(QUESTION))


# ----------------------------------------------------------------------------- the Hosts


Call = tuple[str, dict[str, Any]]


def _task(kind: str, description: str, **context: Any) -> Call:
    """A ``task`` call of the Host."""
    return "task", {"description": description, "subagent_type": kind, "context": context}


def _task_kinds(done: list[CallResult]) -> list[str]:
    return [str(r.input.get("subagent_type")) for r in done if r.name == "task"]


def _reads_downloads(call: Call) -> bool:
    args = call[1]
    return args["subagent_type"] == "file" and args["context"].get("paths") == [DOWNLOADS]


class ReadsDownloadsEarly(HostPolicy):
    """Reads the downloads folder right after the first pages are read, then goes on as
    the offline Host does."""

    def next_calls(self, plan: dict[str, Any], done: list[CallResult]) -> list[Call]:
        kinds = _task_kinds(done)
        if kinds.count("file") == 1 and "browser" in kinds:
            return [_task("file", "Read the downloaded documents.", paths=[DOWNLOADS])]
        return super().next_calls(plan, done)


class NeverReadsDownloads(HostPolicy):
    """Asks for the report where the offline Host would read the downloads."""

    def next_calls(self, plan: dict[str, Any], done: list[CallResult]) -> list[Call]:
        calls = super().next_calls(plan, done)
        if not any(_reads_downloads(c) for c in calls):
            return calls
        return [] if "generate" in _task_kinds(done) else [_task("generate", "Write the report.")]


# ----------------------------------------------------------------------------- checks


def charter_download(result: RunResult) -> int:
    """The index of the browser task that saved the charter."""
    saved = [
        i
        for i, d in enumerate(result.delegations)
        if d.subagent == "browser"
        and any(
            r.name == "http_download" and r.input.get("save_path") == CHARTER for r in d.records
        )
    ]
    assert saved, "the charter was never downloaded"
    return saved[0]


def readers_of(result: RunResult, path: str) -> list[Delegation]:
    """The file tasks that called a reader on ``path``."""
    return [
        d
        for d in result.delegations
        if d.subagent == "file" and any(r.input.get("path") == path for r in d.records)
    ]


def assert_the_charter_is_read_and_cited(result: RunResult) -> None:
    """The charter is read before the report, quoted, and its founder stated and cited."""
    report = read_report(result)
    # Cited by the address it was downloaded from, each quote by its page; the charter's
    # place in the run's folder is no reader's business.
    cited = [
        n
        for n, where in report_sources(report).items()
        if where.startswith("http://") and where.endswith("/docs/kestrel-charter.pdf")
    ]
    assert cited, report
    shown = re.sub(r"<!-- .*? -->", "", report)
    assert CHARTER not in shown and "/workspace/downloads" not in shown, report
    quotes = [ln for ln in shown.splitlines() for n in cited if ln.startswith(f"  - [{n}] ")]
    assert len(quotes) == len(cited) and all(q.rstrip().endswith("(Page 1)") for q in quotes)
    lines = [ln for ln in report.splitlines() if FOUNDER in ln and "[" in ln]
    assert any(f"[{n}]" in ln for ln in lines for n in cited), report
    reader = readers_of(result, CHARTER)[0]
    generate = next(i for i, d in enumerate(result.delegations) if d.subagent == "generate")
    assert result.delegations.index(reader) < generate


# ------------------------------------------------------------------------------- tests


def test_a_document_saved_after_the_hosts_downloads_read_is_read_again(world, tmp_path):
    """The offline Host reads the downloads again after a later task saved the charter."""
    result = research(world, tmp_path / "runs", ReadsDownloadsEarly())
    early = next(
        i for i, d in enumerate(result.delegations) if d.context.get("paths") == [DOWNLOADS]
    )
    assert early < charter_download(result)
    assert_the_charter_is_read_and_cited(result)
    assert readers_of(result, CHARTER)[0].description == "Read the downloaded documents."
    assert [d.description for d in result.delegations].count(READ_DOWNLOADS) == 0
    assert len(readers_of(result, DAMAGED)) == 1


def test_a_report_asked_for_with_unread_downloads_reads_them_first(world, tmp_path):
    """A Host that goes straight to the report still has the downloads read before it."""
    result = research(world, tmp_path / "runs", NeverReadsDownloads())
    charter = readers_of(result, CHARTER)
    assert [d.description for d in charter] == [READ_DOWNLOADS]
    assert charter[0].context["paths"] == [CHARTER, DAMAGED]
    assert_the_charter_is_read_and_cited(result)
    assert [d.subagent for d in result.delegations].count("generate") == 1
    assert len(readers_of(result, DAMAGED)) == 1
