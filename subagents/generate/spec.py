"""The Generate subagent: reports in Markdown, HTML, PDF and PPTX with checked citations."""

from __future__ import annotations

from typing import Any

from subagents.offline import CallResult
from subagents.outcomes import GenerateOutcome
from subagents.spec import SubAgentSpec, ToolGroup

from . import offline, stage
from .tools import generate_html, generate_markdown, generate_pdf, generate_pptx

SYS_PROMPT = """You are the Generate subagent. You turn the run's notes and evidence into
report files with the generate_* tools.

- Write each format the task asks for, with out_path under /workspace/reports/ named
  by the context's "name" and the format (e.g. with name "tidal-mills":
  tidal-mills.md, tidal-mills.html, tidal-mills.pdf, tidal-mills.pptx).
- Pass the notes and pages to use in from_paths, e.g. ["/workspace/notes/",
  "/workspace/pages/"]; omit from_paths to use all evidence collected in this run.
- Notes are Markdown: "# Title", a short lead paragraph, "## Section" headings, and
  evidence ids in square brackets such as [ev-1a2b3c4d5e6f] after the claims they support.
- Citations that do not verify are dropped and listed in the tool result; report that
  list in your answer instead of trying to cite those sources another way.
- Finish with the paths written and the number of citations kept and dropped."""

TASK = (
    "Write the report that answers the question, in each format named in the context, "
    "under /workspace/reports/, from the notes and evidence the context lists (from_paths), "
    "following its requirements. Cite only evidence that exists; never invent a source."
)


def carry(done: list[CallResult]) -> dict[str, Any]:
    """The report files written, the citations they kept, and how the writer's claims fared
    (citations dropped, claims unsupported by their spans, claims checked and the
    accuracy), with the citations per source: every format renders the same prose, so
    the first report's figures hold."""
    written = [offline.facts(r) for r in done if r.name.startswith("generate_") and r.ok]
    first = written[0] if written else {}
    return {
        "outputs": [str(f["path"]) for f in written if f.get("path")],
        "citations": max((int(f.get("citations", 0)) for f in written), default=0),
        "citation_check": {k: first.get(k) for k in CHECK_FIGURES if k in first},
        "cited": dict(first.get("cited") or {}),
    }


#: What a report's facts say of its citations' checks.
CHECK_FIGURES = ("dropped", "unsupported", "claims_checked", "citation_accuracy")


SPEC = SubAgentSpec(
    name="generate",
    description="Writes the report (Markdown, HTML, PDF, PPTX) with span-checked citations.",
    sys_prompt=SYS_PROMPT,
    groups=(
        ToolGroup(
            name="basic",
            tools=(generate_markdown, generate_html, generate_pdf, generate_pptx),
            writes=frozenset(
                {"generate_markdown", "generate_html", "generate_pdf", "generate_pptx"}
            ),
        ),
    ),
    requires=("service", "evidence", "model", "colophon"),
    task=TASK,
    title="Writing the report",
    outcome=GenerateOutcome,
    carry=carry,
    offline_plan=offline.plan,
    offline_outcome=offline.outcome,
    host_line=(
        "writes the report in the run's formats (it reads any document still unread "
        'first); send it last, with "formats" to choose among them.'
    ),
    prepare=stage.prepare,
    report=stage.report,
    writes_report=True,
    skills=("report-writing",),
)
