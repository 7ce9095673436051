"""The Generate subagent's tools: one per format, each writing the run's report through
:func:`.flow.generate`. Their docstrings are the schemas a model reads."""

from __future__ import annotations

from agentscope.tool import ToolResponse

from .flow import generate
from .html import HTML
from .markdown import MARKDOWN
from .pdf import PDF
from .pptx import PPTX


async def generate_markdown(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
    colophon: object = None,
) -> ToolResponse:
    """Write a Markdown report with numbered, span-checked citations and a Sources list.

    The report (title, short summary, sections, [n] citations, Sources) is built from the
    notes and stored pages in from_paths plus the run's evidence. Notes are Markdown: an
    optional "# Title", an optional lead paragraph (the summary), "## Section" headings,
    and citation markers such as [ev-1a2b3c4d5e6f] right after the claims they support.
    Every citation is checked: its evidence id must be known and its quoted span must
    still be at its offsets in the stored page; any other citation is dropped and listed
    in the result. The file is written whole, or not at all.

    Args:
        requirements (str): What the report is for: topic, audience, focus; evidence ids
            named here (e.g. ev-1a2b3c4d5e6f) are cited too. Its first line is the title
            when the notes have none.
        out_path (str): Where to write the report, a .md path you may write, e.g.
            /workspace/reports/report.md.
        from_paths (list[str] | None): Notes files, stored pages (/workspace/pages/*.md
            with their .json sidecars) or folders of them, e.g. ["/workspace/notes/",
            "/workspace/pages/"]. Omit to report on all evidence collected in this run.
    """
    return await generate(
        MARKDOWN, requirements, out_path, from_paths, service, evidence, model, colophon
    )


async def generate_html(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
    colophon: object = None,
) -> ToolResponse:
    """Write the report as one self-contained HTML page (readable on a phone and in print).

    Same report as generate_markdown: title, short summary, sections, numbered [n]
    citations linking to a Sources list with the quoted spans. Notes are Markdown with
    "## Section" headings and markers such as [ev-1a2b3c4d5e6f] after the claims they
    support. Citations whose evidence id is unknown or whose span is no longer at its
    offsets in the stored page are dropped and listed in the result. The page has inline
    CSS only and loads nothing from outside.

    Args:
        requirements (str): What the report is for: topic, audience, focus; evidence ids
            named here (e.g. ev-1a2b3c4d5e6f) are cited too. Its first line is the title
            when the notes have none.
        out_path (str): Where to write the page, an .html path you may write, e.g.
            /workspace/reports/report.html.
        from_paths (list[str] | None): Notes files, stored pages (/workspace/pages/*.md
            with their .json sidecars), a report.md written by generate_markdown, or
            folders of them. Omit to report on all evidence collected in this run.
    """
    return await generate(
        HTML, requirements, out_path, from_paths, service, evidence, model, colophon
    )


async def generate_pdf(
    out_path: str,
    requirements: str | None = None,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
    colophon: object = None,
) -> ToolResponse:
    """Write the report as a printable A4 PDF (Chinese text supported).

    Same report as generate_html, laid out for print. To turn a report you already wrote
    into PDF, pass its Markdown file (from generate_markdown) in from_paths; its citations
    are checked again. Citations that do not verify are dropped and listed in the result;
    the file is written whole, or not at all.

    Args:
        out_path (str): Where to write the PDF, a .pdf path you may write, e.g.
            /workspace/reports/report.pdf.
        requirements (str | None): What the report is for: topic, audience, focus;
            evidence ids named here (e.g. ev-1a2b3c4d5e6f) are cited too. Its first line is
            the title when the notes have none.
        from_paths (list[str] | None): Notes files, stored pages (/workspace/pages/*.md
            with their .json sidecars), a report.md written by generate_markdown, or
            folders of them. Omit to report on all evidence collected in this run.
    """
    return await generate(
        PDF, requirements, out_path, from_paths, service, evidence, model, colophon
    )


async def generate_pptx(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
    colophon: object = None,
) -> ToolResponse:
    """Write the report as a slide deck: title slide, one slide per section, sources slide.

    Bullets carry the [n] citation numbers; each slide's speaker notes list its citations
    with URL and quoted span. Built from the same notes and evidence as generate_markdown
    (notes: "## Section" headings, markers such as [ev-1a2b3c4d5e6f] after claims).
    Citations that do not verify against their stored page are dropped and listed in the
    result; the file is written whole, or not at all.

    Args:
        requirements (str): What the deck is for: topic, audience, focus; evidence ids
            named here (e.g. ev-1a2b3c4d5e6f) are cited too. Its first line is the title
            when the notes have none.
        out_path (str): Where to write the deck, a .pptx path you may write, e.g.
            /workspace/reports/report.pptx.
        from_paths (list[str] | None): Notes files, stored pages (/workspace/pages/*.md
            with their .json sidecars), a report.md written by generate_markdown, or
            folders of them. Omit to report on all evidence collected in this run.
    """
    return await generate(
        PPTX, requirements, out_path, from_paths, service, evidence, model, colophon
    )
