"""The batch's summary, one row per question, as ``summary.csv``, ``summary.xlsx`` and
``summary.html`` in ``runs/batch-<id>/``.

Each row: the question, its status and exit code, the sub-questions answered, the
citations, the time and tokens, the attempts, the run folder and the report (a link in
the HTML and the workbook, relative to the batch folder).

A question is the user's text, and an error may quote a page: every text is written as
text. Control characters are replaced (an .xlsx cell cannot hold them, and a terminal
would obey them), and a text that a spreadsheet program would run as a formula (``=``,
``+``, ``-``, ``@``, tab, carriage return) is kept as text: with a leading apostrophe in
the CSV, as a quote-prefixed text cell in the workbook.
"""

from __future__ import annotations

import csv
import html
import os
from pathlib import Path
from typing import Any

from subagents.cells import csv_field, formula_like, without_controls

from .state import DONE, BatchState, Job

COLUMNS = (
    ("index", "#"),
    ("question", "question"),
    ("status", "status"),
    ("exit_code", "exit code"),
    ("answered", "answered"),
    ("partly", "partly answered"),
    ("parts", "sub-questions"),
    ("citations", "citations"),
    ("seconds", "seconds"),
    ("tokens_in", "tokens in"),
    ("tokens_out", "tokens out"),
    ("attempts", "attempts"),
    ("run_id", "run"),
    ("report", "report"),
    ("error", "error"),
)
FILES = ("summary.csv", "summary.xlsx", "summary.html")


def row(job: Job) -> dict[str, Any]:
    """The summary row of one question, every text without control characters."""
    result = job.result or {}
    found = {
        "index": job.index,
        "question": job.question,
        "status": result.get("status") if job.status == DONE else job.status,
        "exit_code": result.get("exit_code"),
        "answered": result.get("answered"),
        "partly": result.get("partly"),
        "parts": result.get("parts"),
        "citations": result.get("citations"),
        "seconds": round(job.seconds, 1),
        "tokens_in": result.get("tokens_in"),
        "tokens_out": result.get("tokens_out"),
        "attempts": job.attempts,
        "run_id": job.run_id,
        "report": result.get("report"),
        "error": job.error,
    }
    return {k: without_controls(v) if isinstance(v, str) else v for k, v in found.items()}


def _link(report: str | None, folder: Path) -> str | None:
    return os.path.relpath(report, folder) if report else None


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([title for _, title in COLUMNS])
        for r in rows:
            writer.writerow([_csv_value(r[key]) for key, _ in COLUMNS])


def _csv_value(value: Any) -> Any:
    """A CSV field: empty for None, a text never read as a formula."""
    if value is None:
        return ""
    return csv_field(value) if isinstance(value, str) else value


def write_xlsx(path: Path, rows: list[dict[str, Any]]) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    sheet = book.active
    sheet.title = "batch"
    sheet.append([title for _, title in COLUMNS])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    report_col = [key for key, _ in COLUMNS].index("report") + 1
    for r in rows:
        sheet.append([r[key] for key, _ in COLUMNS])
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str) and formula_like(cell.value):
                # what typing an apostrophe first does: the cell is text, never a formula
                cell.data_type, cell.quotePrefix = "s", True
        link = _link(r["report"], path.parent)
        if link:
            cell = sheet.cell(row=sheet.max_row, column=report_col)
            cell.hyperlink, cell.style = link, "Hyperlink"
    keys = [key for key, _ in COLUMNS]
    for key, width in (("question", 60), ("run_id", 24), ("report", 50), ("error", 40)):
        sheet.column_dimensions[get_column_letter(keys.index(key) + 1)].width = width
    sheet.freeze_panes = "A2"
    book.save(path)


#: The page reads on a phone: the table scrolls sideways in its own box (the page does
#: not), the question keeps a readable width, and below 700 px each question is a card
#: whose cells are labelled lines.
STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;line-height:1.4}
.rows{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:4px 6px;
text-align:left;vertical-align:top}th{background:#f2f2f2}td.n{text-align:right}
td.question{min-width:14em;max-width:24em}td.error{min-width:10em;max-width:20em}
td.run_id{white-space:nowrap}
tr.failed td{background:#fde8e8}tr.nothing td{background:#fff7e0}
@media (max-width:700px){body{margin:1em}h1{font-size:1.3em}
table,tbody,tr,td{display:block;width:auto}thead{display:none}
tr{border:1px solid #ccc;border-radius:6px;margin:0 0 1em;padding:.3em .6em}
td{border:none;padding:2px 0;text-align:left;min-width:0;max-width:none}
td.n{text-align:left}td:empty{display:none}td.run_id{white-space:normal;overflow-wrap:anywhere}
td::before{content:attr(data-label) ": ";font-weight:600;color:#555}
td.question{font-weight:600}td.question::before{content:none}}"""
#: Columns left out of the page when no question has a value other than zero in them
#: (the offline brain uses no tokens).
QUIET_COLUMNS = ("tokens_in", "tokens_out")


def shown_columns(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The columns the HTML page shows: all, but the token counts when every run used
    none."""
    return [
        (key, title)
        for key, title in COLUMNS
        if key not in QUIET_COLUMNS or any(r.get(key) for r in rows)
    ]


def write_html(path: Path, rows: list[dict[str, Any]], state: BatchState) -> None:
    columns = shown_columns(rows)

    def cell(r: dict[str, Any], key: str, title: str) -> str:
        value = r[key]
        label = f'data-label="{html.escape(title, quote=True)}"'
        if key == "report" and value:
            href = html.escape(_link(value, path.parent) or "", quote=True)
            name = html.escape(Path(value).name)
            return f'<td class="report" {label}><a href="{href}">{name}</a></td>'
        text = "" if value is None else html.escape(str(value))
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        kind = "n" if numeric else key
        return f'<td class="{kind}" {label}>{text}</td>'

    def kind(r: dict[str, Any]) -> str:
        if r["status"] not in ("finished", "interrupted"):
            return ' class="failed"'
        return ' class="nothing"' if r["exit_code"] == 3 else ""

    counts = state.counts()
    head = "".join(f"<th>{html.escape(title)}</th>" for _, title in columns)
    body = "\n".join(
        f"<tr{kind(r)}>" + "".join(cell(r, key, title) for key, title in columns) + "</tr>"
        for r in rows
    )
    title = f"Quartet batch {state.id}"
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{len(rows)} questions from {html.escape(without_controls(state.source))}: {counts["done"]} done,
{counts["failed"]} failed, {counts["pending"] + counts["running"]} not run.
Model: {html.escape(without_controls(state.model))}.</p>
<div class="rows"><table><thead><tr>{head}</tr></thead><tbody>
{body}
</tbody></table></div></body></html>
"""
    path.write_text(page, encoding="utf-8")


def write_summaries(state: BatchState) -> list[Path]:
    """Write the three summaries into the batch folder; their paths."""
    rows = [row(job) for job in state.jobs]
    state.folder.mkdir(parents=True, exist_ok=True)
    paths = [state.folder / name for name in FILES]
    write_csv(paths[0], rows)
    write_xlsx(paths[1], rows)
    write_html(paths[2], rows, state)
    return paths
