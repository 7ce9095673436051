"""HTML rendering of a Report (one self-contained file), and the generate_html tool.

The body is the report's Markdown rendered by markdown-it-py with raw HTML and images
off, so text from the inputs is always escaped; ``[n]`` markers become superscript links
to the Sources list. All CSS is inline; the page loads nothing from anywhere. It reads on
a phone (viewport, fluid width), on a desk and in print (``@media print``, ``@page``); the
font stack names the installed CJK fonts (Noto Sans CJK SC, WenQuanYi Zen Hei) so the
same file renders Chinese in Chromium and in weasyprint.
"""

from __future__ import annotations

import html
import re

from agentscope.tool import ToolResponse
from markdown_it import MarkdownIt

from .flow import Format, generate
from .markdown import points_markdown
from .notes import parser
from .report import Report

CSS = """
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;color:#1f2328;background:#fff;line-height:1.65;font-size:17px;
 font-family:"Liberation Sans","DejaVu Sans",Arial,"Helvetica Neue",Roboto,
 "Noto Sans CJK SC","WenQuanYi Zen Hei","PingFang SC","Microsoft YaHei",sans-serif}
html:lang(zh) body{font-family:"Noto Sans CJK SC","WenQuanYi Zen Hei","PingFang SC",
 "Hiragino Sans GB","Microsoft YaHei","Liberation Sans","DejaVu Sans",sans-serif;
 line-height:1.8}
.report{max-width:46rem;margin:0 auto;padding:1.5rem 1.1rem 3rem}
h1{font-size:1.9rem;line-height:1.25;margin:.4rem 0 1.2rem;overflow-wrap:break-word}
h2{font-size:1.3rem;line-height:1.3;margin:2rem 0 .7rem;padding-bottom:.3rem;
 border-bottom:1px solid #d0d7de;break-after:avoid}
p,li{overflow-wrap:break-word;word-wrap:break-word}
p{margin:.6rem 0}
ul,ol{padding-left:1.4rem}
li{margin:.3rem 0}
.summary{background:#f3f6fa;border-left:4px solid #0b62c4;border-radius:4px;
 padding:.6rem 1rem;margin:0 0 1.5rem}
.summary h2{font-size:.85rem;letter-spacing:.06em;text-transform:uppercase;color:#0b62c4;
 border:0;margin:.3rem 0 .2rem;padding:0}
sup.cite{font-size:.72em;line-height:0;white-space:nowrap}
sup.cite a{text-decoration:none;color:#0b62c4}
.sources ol{padding-left:1.8rem}
.sources li{margin:0 0 .9rem;break-inside:avoid;font-size:.95rem}
.sources .src-title{font-weight:600}
.sources .src-url{display:block;word-break:break-all;color:#0b62c4;font-size:.88rem}
.sources blockquote{margin:.3rem 0 0;padding:.1rem 0 .1rem .8rem;color:#555f6a;
 border-left:3px solid #d0d7de;font-size:.9rem}
.sources .ev{color:#8c959f;font-size:.78rem;font-family:"DejaVu Sans Mono",monospace}
a{color:#0b62c4}
@media (max-width:480px){body{font-size:16px}.report{padding:1rem .8rem 2rem}
 h1{font-size:1.5rem}h2{font-size:1.15rem}}
@page{size:A4;margin:18mm 16mm 20mm}
@media print{body{font-size:10.5pt;color:#000}.report{max-width:none;padding:0}
 .summary{background:none;border:1px solid #888;border-left:4px solid #444}
 a,sup.cite a,.sources .src-url{color:#000}h2{break-after:avoid}
 li,p{orphans:2;widows:2}}
"""


def _render_citation(self, tokens, idx, options, env) -> str:
    links = "".join(
        f'<a href="#src-{int(k[1:])}">[{int(k[1:])}]</a>' for k in tokens[idx].meta["keys"]
    )
    return f'<sup class="cite">{links}</sup>'


def _md() -> MarkdownIt:
    md = parser()
    md.add_render_rule("citation", _render_citation)
    return md


def _sources_html(report: Report) -> str:
    items = []
    for c in report.citations:
        url = c.item.url
        shown = html.escape(url if len(url) <= 72 else url[:71] + "…")
        if re.fullmatch(r"https?://\S+", url):
            href = html.escape(url, quote=True)
            link = f'<a class="src-url" href="{href}">{shown}</a>'
        else:
            link = f'<span class="src-url">{shown}</span>'
        title = f'<span class="src-title">{html.escape(c.title)}</span>' if c.title else ""
        span = re.sub(r"\s+", " ", c.item.span).strip()
        if len(span) > 600:
            span = span[:599] + "…"
        items.append(
            f'<li id="src-{c.number}">{title}{link}'
            f"<blockquote>{html.escape(span)}</blockquote>"
            f'<span class="ev">{html.escape(c.item.id)}</span></li>'
        )
    return (
        f'<section class="sources"><h2>{html.escape(report.label("sources"))}</h2>'
        f"<ol>{''.join(items)}</ol></section>"
    )


def render_html(report: Report) -> str:
    """The report as one self-contained HTML document."""
    md = _md()
    parts = [f"<h1>{html.escape(report.title)}</h1>"]
    if report.summary:
        parts.append(
            f'<section class="summary"><h2>{html.escape(report.label("summary"))}</h2>'
            f"{md.render(points_markdown(report.summary))}</section>"
        )
    for section in report.sections:
        parts.append(
            f"<section><h2>{html.escape(section.heading)}</h2>"
            f"{md.render(points_markdown(section.points))}</section>"
        )
    if report.citations:
        parts.append(_sources_html(report))
    lang = "zh-CN" if report.lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(report.title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f'<body>\n<main class="report">\n{chr(10).join(parts)}\n</main>\n</body>\n</html>\n'
    )


HTML = Format("HTML", (".html", ".htm"), lambda r: render_html(r).encode("utf-8"))


async def generate_html(
    requirements: str,
    out_path: str,
    from_paths: list[str] | None = None,
    service: object = None,
    evidence: object = None,
    model: object = None,
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
    return await generate(HTML, requirements, out_path, from_paths, service, evidence, model)
