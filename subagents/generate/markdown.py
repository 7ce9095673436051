"""Markdown rendering of a Report, and the generate_markdown tool.

Text from the inputs is backslash-escaped, so nothing in a note or span can become a
link, image, HTML or a citation; the only markup is the report's own (headings, bullets,
``[n]`` markers, the Sources list). The first line marks the file as a report so that it
can be read back as a from_path for another format.
"""

from __future__ import annotations

import re

from agentscope.tool import ToolResponse

from .flow import Format, generate
from .notes import REPORT_MARKER, Cite, Point, locator_comment
from .report import Report

_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~])")
_LEADING_NUMBER = re.compile(r"^(\d+)([.)])")
_LEADING_BLOCK = re.compile(r"^([+\-=#])")


def escape(text: str) -> str:
    """``text`` as literal Markdown: inline markup escaped, no block syntax at the start."""
    text = _SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", text))
    text = _LEADING_NUMBER.sub(r"\1\\\2", text)
    return _LEADING_BLOCK.sub(r"\\\1", text)


def tight(point: Point) -> list:
    """A point's parts with the spaces before its citation markers removed."""
    parts = list(point.parts)
    for i, part in enumerate(parts):
        if isinstance(part, str) and i + 1 < len(parts) and isinstance(parts[i + 1], Cite):
            parts[i] = part.rstrip()
    return parts


def inline(point: Point) -> str:
    """A point's text (escaped) with its ``[n]`` markers set right after the words."""
    return "".join(f"[{p.key[1:]}]" if isinstance(p, Cite) else escape(p) for p in tight(point))


def points_markdown(points: list[Point]) -> str:
    """Paragraphs and bullet lists; consecutive bullets form one list."""
    out: list[str] = []
    for i, point in enumerate(points):
        if point.bullet:
            prev_bullet = i > 0 and points[i - 1].bullet
            out.append(("\n" if prev_bullet else "\n\n") + "- " + inline(point))
        else:
            out.append("\n\n" + inline(point))
    return "".join(out).strip("\n")


def source_line(report: Report, n: int, limit: int = 300) -> str:
    """``n. Title — <url> — “span” `ev-…``` for the Sources list."""
    c = report.citations[n - 1]
    span = re.sub(r"\s+", " ", c.item.span).strip()
    if len(span) > limit:
        span = span[:limit] + "…"
    url = c.item.url
    link = f"<{url}>" if re.fullmatch(r"https?://[^\s<>]+", url) else escape(url)
    head = f"{escape(c.title)} — {link}" if c.title else link
    where = locator_comment(c.item.url, c.item.page_path, c.item.start, c.item.end, c.title)
    return f"{n}. {head} — “{escape(span)}” `{c.item.id}` {where}"


def render_markdown(report: Report, marker: bool = True) -> str:
    """The whole report as Markdown."""
    blocks = [REPORT_MARKER] if marker else []
    blocks.append(f"# {escape(report.title)}")
    if report.summary:
        blocks.append(points_markdown(report.summary))
    for section in report.sections:
        blocks.append(f"## {escape(section.heading)}")
        blocks.append(points_markdown(section.points))
    if report.citations:
        blocks.append(f"## {report.label('sources')}")
        blocks.append("\n".join(source_line(report, c.number) for c in report.citations))
    return "\n\n".join(blocks) + "\n"


MARKDOWN = Format("Markdown", (".md", ".markdown"), lambda r: render_markdown(r).encode("utf-8"))


async def generate_markdown(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
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
    return await generate(MARKDOWN, requirements, out_path, from_paths, service, evidence, model)
