"""The File subagent: its tools, prompt and the tools that write."""

from typing import Any

from ..offline import CallResult
from ..outcomes import FileOutcome
from ..spec import SubAgentSpec, ToolGroup
from . import offline, stage
from .documents import pdf_read_text, pptx_read_outline, pptx_write
from .generic import (
    delete_file,
    edit_file,
    get_file_info,
    list_allowed_directories,
    list_directory,
    read_text_file,
    write_file,
)
from .images import image_qa
from .stage import READERS, read_path
from .tables import csv_read, csv_write, xlsx_read_cells, xlsx_write_cells

SYS_PROMPT = """You are File, the file specialist of a research team.
You read the user's input files and files downloaded by the team and extract what the task
needs (text, tables, slides, images); when your tools include writers, you also write
intermediate files when asked.

- Use only logical absolute paths such as /userinput/report.pdf or /workspace/notes.md;
  call list_allowed_directories if unsure where you may read and write.
- Pick the reader for the file type: read_text_file (text, Markdown, JSON, and HTML,
  Word .docx, OpenDocument .odt, EPUB and RTF as converted text), csv_read,
  xlsx_read_cells, pdf_read_text, pptx_read_outline, image_qa.
- Long results come in parts; each ends with the exact call that reads the next part.
- A result starting with "Error:" says what went wrong and what to do instead; follow it
  rather than retrying the same call.
- Report facts with the path (and page, sheet/cell or slide) they came from."""

TASK = (
    "Read the files named in the context (by default every file under /userinput/ and "
    "/workspace/downloads/) with the reader for each type, every page, sheet and slide. "
    "Finish with the files read and any that could not be read."
)


def carry(done: list[CallResult]) -> dict[str, Any]:
    """What each reader returned, with the file it read: the Host keeps it as a source."""
    return {
        "reads": [
            {
                "tool": r.name,
                "path": read_path(r.input),
                "text": r.text,
            }
            for r in done
            if r.name in READERS and r.ok
        ]
    }


SPEC = SubAgentSpec(
    name="file",
    description="Reads and writes files: text, Word, CSV, Excel, PDF, PowerPoint and images.",
    sys_prompt=SYS_PROMPT,
    groups=(
        ToolGroup(
            name="basic",
            tools=(
                list_allowed_directories,
                list_directory,
                get_file_info,
                read_text_file,
                write_file,
                edit_file,
                delete_file,
                csv_read,
                csv_write,
                pdf_read_text,
                xlsx_read_cells,
                xlsx_write_cells,
                pptx_read_outline,
                pptx_write,
                image_qa,
            ),
            description="File tools over the granted directories.",
            writes=frozenset(
                {
                    "write_file",
                    "edit_file",
                    "delete_file",
                    "csv_write",
                    "xlsx_write_cells",
                    "pptx_write",
                }
            ),
        ),
    ),
    requires=("service", "settings"),
    task=TASK,
    title="Reading files",
    outcome=FileOutcome,
    carry=carry,
    offline_plan=offline.plan,
    offline_outcome=offline.outcome,
    task_read_only=True,
    host_line=(
        "reads the user's input files (send it first) and, with "
        '{"paths": ["/workspace/downloads/"]}, the documents saved; send it again whenever '
        'a result lists "downloads_unread".'
    ),
    prepare=stage.prepare,
    absorb=stage.absorb,
    reads_downloads=True,
    skills=("pdf-documents", "office-documents"),
)
