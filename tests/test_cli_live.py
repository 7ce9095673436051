"""The command line's live figures agree with the run's record: the live view at 80
columns, read frame by frame while a demo run works, says the pages read (in all and per
part, the rows adding up to the total) and each part's kept evidence as the closing
table, ``run.json`` and ``quartet show`` say them afterwards; a page read again from its
stored copy is no page read, live or piped."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace as NS
from typing import Any

import pytest
from agentscope.message import ToolUseBlock
from agentscope.model import ChatResponse
from research_support import host_with
from rich.console import Console

import host.display.progress as progress_module
import host.orchestration.hub as hub
from host.brains.offline import OfflinePolicy
from host.core.records import ToolCallRecord
from host.core.stages import find_context
from host.display.progress import Progress
from host.orchestration.live import Tally
from host.printable import printable
from quartet.cli import main
from research.plan import Plan, SubQuestion
from subagents.evidence import PageRegistry

WIDTH = 80
PAGES = re.compile(r"^\s*(\d+)(?: of \d+)? pages read")
PAGE = "https://example.org/canal"


class RereadingReader(OfflinePolicy):
    """Reads the first page of its task twice, the second time from its stored copy,
    then reads as the offline brain does."""

    rereads = 0

    def __init__(self, spec: Any) -> None:
        super().__init__(spec)
        self.done = False

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):  # type: ignore[no-untyped-def]
        urls = find_context(messages).get("urls") or []
        if not urls or self.done:
            return await super().__call__(messages, tools, tool_choice, **kwargs)
        self.done = True
        RereadingReader.rereads += 1
        calls = [
            ToolUseBlock(type="tool_use", id=f"reread-{RereadingReader.rereads}-{i}",
                         name="viewer_fetch", input={"url": urls[0]})
            for i in range(2)
        ]  # fmt: skip
        return ChatResponse(content=calls)


@dataclass
class Frame:
    """One frame of the live view: each row's figures, and the pages read below."""

    rows: dict[str, tuple[str, int, int]]  # label -> (status, pages, evidence)
    total: int


def frames(raw: str) -> list[Frame]:
    """The frames of the live view in what a terminal was sent, in order."""
    found: list[Frame] = []
    header, rows = "", {}
    # each frame after the first starts by taking the cursor back to its line's start
    for line in printable(raw.replace("\r", "\n"), keep_lines=True).splitlines():
        if line.startswith("part ") and line.rstrip().endswith("evidence"):
            header, rows = line, {}
        elif header and (match := PAGES.match(line)):
            found.append(Frame(rows, int(match.group(1))))
            header = ""
        elif header and line.strip():
            rows[_cell(line, header, "part", "status")] = _figures(line, header)
    return found


def _cell(line: str, header: str, name: str, following: str) -> str:
    return line[header.index(name) : header.index(following)].strip()


def _figures(line: str, header: str) -> tuple[str, int, int]:
    """A row's status, pages and evidence (the numbers right-aligned under their
    headings)."""
    status = _cell(line, header, "status", "doing now")
    pages_end = header.index("pages") + len("pages")
    pages = line[pages_end - len("pages") : pages_end].strip()
    evidence = line[pages_end : header.index("evidence") + len("evidence")].strip()
    return status, int(pages or 0), int(evidence or 0)


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``quartet demo`` with a browser that reads a page twice in each task, its live
    view on an 80-column terminal; what it showed, its closing table, its record and
    ``quartet show``."""
    from cli_support import demo_runs_dir

    runs = demo_runs_dir(tmp_path_factory.mktemp("live") / "runs")
    return demo_watched(host_with(RereadingReader), ["--formats", "md"], runs)


def demo_watched(host: type, args: list[str], runs: Path) -> dict[str, Any]:
    """``quartet demo ARGS`` into ``runs`` with ``host`` as the Host, its live view on an
    80-column terminal, then ``quartet show`` of the run: its exit code, the live view's
    frames, the run's record, what ``show`` printed, the closing table and every line the
    view printed."""
    terminal = Console(
        file=io.StringIO(), force_terminal=True, color_system="standard", width=WIDTH,
        highlight=False,
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(progress_module, "Console", lambda **kwargs: terminal)
        patch.setattr(hub, "Host", host)
        patch.setenv("COLUMNS", "200")  # the closing table's lines uncut
        closing = io.StringIO()
        patch.setattr("sys.stdout", closing)
        code = main(["demo", *args, "--runs-dir", str(runs)])
        (folder,) = [p for p in runs.iterdir() if (p / "internal" / "run.json").exists()]
        shown = io.StringIO()
        patch.setattr("sys.stdout", shown)
        assert main(["show", folder.name, "--runs-dir", str(runs)]) == 0
    record = json.loads((folder / "internal" / "run.json").read_text(encoding="utf-8"))
    raw = terminal.file.getvalue()  # type: ignore[attr-defined]
    return {
        "code": code, "frames": frames(raw), "record": record, "show": shown.getvalue(),
        "closing": printable(closing.getvalue(), keep_lines=True),
        "printed": printable(raw, keep_lines=True),
    }  # fmt: skip


def test_the_run_read_stored_copies_again(watched: dict[str, Any]):
    """What the other tests rely on: pages were read again from their stored copies."""
    record = watched["record"]
    reads = [c for c in record["tool_calls"] if c["tool"] == "viewer_fetch" and c["ok"]]
    again = sum(n - 1 for n in Counter(c["input"]["url"] for c in reads).values())
    assert watched["code"] in (0, 3) and again >= 1 and record["pages_read"] > 0


def test_every_live_frame_adds_up_and_never_goes_back(watched: dict[str, Any]):
    shown = watched["frames"]
    assert len(shown) >= 3
    for frame in shown:
        assert sum(pages for _, pages, _ in frame.rows.values()) == frame.total, frame
    totals = [f.total for f in shown]
    assert all(a <= b for a, b in pairwise(totals)), totals


def test_the_last_live_frame_says_what_the_record_and_show_say(watched: dict[str, Any]):
    record, last = watched["record"], watched["frames"][-1]
    assert last.total == record["pages_read"]
    parts = record["plan"]["subquestions"]
    by_id = {label.split()[0]: figures for label, figures in last.rows.items()}
    for part in parts:
        status, _, evidence = by_id[part["id"]]
        assert status.split(" ", 1)[1] == part["status"], (status, part)
        assert evidence == len(part["evidence_ids"]), (part["id"], evidence)
        line = next(ln for ln in watched["show"].splitlines() if f"  {part['id']}  " in ln)
        assert line.endswith(f"({evidence} evidence)"), line
    assert re.search(rf"pages read: {last.total}\b", watched["show"])
    assert re.search(rf"│ pages read\s+│ {last.total}\s", watched["closing"])
    kept = re.findall(r"\((\d+) evidence kept\)", watched["closing"])
    assert [int(k) for k in kept] == [by_id[p["id"]][2] for p in parts]


def test_the_part_rows_are_labelled_by_what_tells_them_apart(watched: dict[str, Any]):
    """At 80 columns no two rows read alike; each part's whole text is printed once above
    the view."""
    labels = [label for label in watched["frames"][-1].rows if label != "other work"]
    assert labels[:2] == ["q1 built", "q2 supplied with water"]
    assert len({label.split(" ", 1)[1] for label in labels}) == len(labels)
    for part in watched["record"]["plan"]["subquestions"]:
        assert f"○ {part['id']} {part['text']}" in watched["printed"]


# -- a stored copy read again, event by event ---------------------------------------------


def _plan() -> Plan:
    parts = [SubQuestion("q1", "How was the canal built?", ["canal built"]),
             SubQuestion("q2", "Why did the canal decline?", ["canal decline"])]  # fmt: skip
    return Plan("How was the canal built and why did it decline?", "en", parts)


def _read(registry: PageRegistry, task: str, stored: bool) -> list[tuple[str, dict[str, Any]]]:
    """A task reading :data:`PAGE`: fetched against the budget, or from its stored copy."""
    if not stored:
        registry.take_page(PAGE)
    rec = ToolCallRecord("browser", "viewer_fetch", {"url": PAGE}, "text", seconds=0.5)
    return [("tool_start", {"stage": "browser", "name": "viewer_fetch", "input": {"url": PAGE},
                            "task": task}), ("tool", {"record": rec, "task": task})]  # fmt: skip


def _events(registry: PageRegistry) -> list[tuple[str, dict[str, Any]]]:
    """q1's task reads a page; q2's reads it again from its stored copy."""
    plan = _plan()
    tasks = [NS(id=f"d{i}", subagent="browser", subquestion=f"q{i}", status="ok", error=None,
                records=[], seconds=1.0) for i in (1, 2)]  # fmt: skip
    out: list[tuple[str, dict[str, Any]]] = [
        ("run_start", {"run": NS(id="r", path=Path("/runs/r")), "pages": registry}),
        ("plan", {"plan": plan}),
    ]
    for task, stored in zip(tasks, (False, True), strict=True):
        out.append(("delegation_start", {"delegation": task, "title": "Reading pages"}))
        out += _read(registry, task.id, stored)
        out.append(("delegation_end", {"delegation": task}))
    return out


def test_a_stored_copy_read_again_is_no_page_read_live_or_piped():
    registry = PageRegistry(budget=24)
    piped = Console(file=io.StringIO(), width=WIDTH, color_system=None, highlight=False)
    progress = Progress(console=piped, live=False)
    for kind, data in _events(registry):
        progress(kind, data)
    text = printable(piped.file.getvalue(), keep_lines=True)  # type: ignore[attr-defined]
    assert text.count("✓ page read") == 1 and "page read: example.org/canal for q1" in text
    assert progress.tally.pages == registry.pages == 1
    assert {p.id: p.pages for p in progress.parts.values()} == {"q1": 1, "q2": 0}
    view = Console(file=io.StringIO(), width=WIDTH, color_system=None, highlight=False)
    view.print(progress.render())
    assert view.file.getvalue().splitlines()[-1].strip() == "1 of 24 pages read"  # type: ignore[attr-defined]


def test_pages_read_before_a_resume_are_put_to_no_part():
    """A resumed run's registry holds the pages fetched before the stop: reading their
    stored copies is no page read, and they count as "other work"."""
    registry = PageRegistry(budget=24)
    registry.take_page(PAGE)
    tally = Tally(registry=registry)
    task = NS(id="d1", subagent="browser", subquestion="q1", status="ok")
    tally("run_start", {"run": NS(id="r"), "pages": None})
    tally("plan", {"plan": _plan()})
    tally("resume", {"calls": 3, "delegations": 1})
    tally("delegation_start", {"delegation": task})
    tally(*_read(registry, "d1", stored=True)[1])
    assert tally.read is None and tally.parts["q1"].pages == 0
    assert tally.pages == 1 and tally.other == 1


def test_a_parts_label_is_its_own_words_in_any_language():
    from demo.site import DEMO_QUESTION_ZH
    from host.display.part_labels import part_labels
    from research.plan import offline_plan

    labels = part_labels(offline_plan(DEMO_QUESTION_ZH))
    assert labels == {"q1": "修建", "q2": "水源", "q3": "衰落", "q4": "今天"}
    # no facet of their own: the words no other part has ("when", "by whom")
    asked = offline_plan("When and by whom was the Grand Canal first built?")
    assert set(part_labels(asked).values()) == {"When", "By whom"}
    # nothing of its own: no label, the row shows the part's text
    same = Plan("Q?", "en", [SubQuestion("q1", "What is a lock?", []),
                             SubQuestion("q2", "What is a lock?", [])])  # fmt: skip
    assert part_labels(same) == {}
