"""The hostile-file attack corpus against the File and Browser tools: what gets through.

    .venv/bin/python bench/bench_attacks_files.py

Classes: named pipes, sockets and devices in the input folder; writes to the far corner
of a sheet and workbooks claiming the whole grid; CSV and text shapes that would blow up
a result (a row of fifty million commas, a delimiter sniff that goes quadratic, twenty
million short lines); formula injection through csv_write and xlsx_write_cells; file
names whose bytes are not UTF-8; and writes aimed at stored pages by a download or a
File tool. Several variants each. Every call runs in a child process with a memory
ceiling and a deadline (``tests/tool_probe.py``) and is judged by its outcome:

- refused: the attack did not get through (a clear Error, or a bounded, correct result);
- bypassed: it did (a hostile file was opened or a result passed the cap, a formula was
  stored, a stored page was replaced, an undecodable name leaked, or the call's peak
  memory passed 512 MB);
- crashed/hung: the child died or did not answer within its deadline.

Peak memory is the growth of the child's resident set during the call (the kernel's
high-water mark, reset just before it). Everything stays on the machine: downloads come
from a server on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import socket
import stat
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import openpyxl  # noqa: E402
from attack_tally import MiB, Tally, print_table  # noqa: E402
from browser_sites import SiteServer, page  # noqa: E402
from test_file_hostile import with_sheet_xml, workbook  # noqa: E402
from tool_probe import probe  # noqa: E402

from subagents.file.limits import MAX_TEXT_CHARS  # noqa: E402

MAX_CALL_MB = 512
#: Deadline of one call; a FIFO that is waited on reaches it.
DEADLINE_S = 120
HOSTILE_CELLS = ["=1+1", "+1+1", "-2+3", "@SUM(A1)", "\t=1+1", "\r=1+1", '=HYPERLINK("x")']


@dataclass
class Attack:
    kind: str
    tool: str
    note: str
    subagent: str
    args: dict[str, Any]
    #: Judges a finished call: True when the attack was refused.
    refused: Callable[[dict[str, Any]], bool]
    areas: bool = False
    use_input: bool = True


def error(result: dict[str, Any]) -> bool:
    return result["status"] == "error" and result["text"].startswith("Error:")


def bounded(result: dict[str, Any]) -> bool:
    return result["status"] == "ok" and result["chars"] <= MAX_TEXT_CHARS


class Corpus:
    """The hostile files, made in a run folder and an input folder."""

    def __init__(self, base: Path, site: SiteServer) -> None:
        self.root, self.input, self.site = base / "run", base / "input", site
        (self.root / "workspace" / "pages").mkdir(parents=True)
        self.input.mkdir()
        self.fifo = self.input / "pipe.txt"
        os.mkfifo(self.fifo)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(self.input / "sock.csv"))
        sock.close()
        self.device = False
        with contextlib.suppress(OSError):
            os.mknod(self.input / "zero.txt", 0o644 | stat.S_IFCHR, os.makedev(1, 5))
            self.device = True
        (self.input / "far.xlsx").write_bytes(workbook({"A1": "first", "XFD1048576": "last"}))
        for name, xml in {
            "merged-grid": b'<mergeCells count="1"><mergeCell ref="A1:XFD1048576"/></mergeCells>',
            "hyperlinks": b'<hyperlinks><hyperlink ref="A1:ZZ900000" display="x"/></hyperlinks>',
        }.items():
            book = with_sheet_xml(workbook({"A1": "x"}), xml)
            (self.root / "workspace" / f"{name}.xlsx").write_bytes(book)
        (self.input / "commas.csv").write_bytes(b"," * 50_000_000 + b"\nafter,row\n")
        (self.input / "sniff.csv").write_text('\n,"' * 300_000, encoding="utf-8")
        (self.input / "short.txt").write_bytes(b"ab\n" * 20_000_000)
        with open(os.fsencode(self.input) + b"/notes-\xff\xfe.txt", "wb") as fh:
            fh.write(b"Huitong canal opened in 1289.\n")
        self.page = self.root / "workspace" / "pages" / "article.md"
        self.page.write_text("Revenue grew 12% in 2023.", encoding="utf-8")
        self.sidecar = self.page.with_suffix(".json")
        self.sidecar.write_text('{"url": "http://example.org/"}', encoding="utf-8")

    def unchanged(self, _: dict[str, Any]) -> bool:
        return self.page.read_text(encoding="utf-8") == "Revenue grew 12% in 2023." and (
            self.sidecar.read_text(encoding="utf-8") == '{"url": "http://example.org/"}'
        )

    def csv_neutral(self, name: str) -> Callable[[dict[str, Any]], bool]:
        def judge(result: dict[str, Any]) -> bool:
            raw = (self.root / "workspace" / name).read_bytes().decode("utf-8-sig")
            rows = list(csv.reader(io.StringIO(raw, newline="")))
            # the hostile field is text; the plain number next to it stays a number
            return result["status"] == "ok" and rows[0][0].startswith("'") and rows[0][1] == "-3"

        return judge

    def xlsx_neutral(self, name: str) -> Callable[[dict[str, Any]], bool]:
        def judge(result: dict[str, Any]) -> bool:
            path = self.root / "workspace" / name
            with zipfile.ZipFile(path) as zf:
                formulas = b"<f>" in zf.read("xl/worksheets/sheet1.xml")
            ws = openpyxl.load_workbook(path).active
            text = all(ws.cell(row=1, column=j + 1).data_type == "s" for j in range(7))
            return result["status"] == "ok" and text and not formulas

        return judge

    def attacks(self) -> list[Attack]:
        a: list[Attack] = []
        for tool in ("read_text_file", "csv_read", "pdf_read_text", "get_file_info"):
            judge = (
                (lambda r: r["status"] == "ok" and "never opened" in r["text"])
                if (tool == "get_file_info")
                else error
            )
            a.append(
                Attack(
                    "special files", tool, "FIFO", "file", {"path": "/userinput/pipe.txt"}, judge
                )
            )
        a.append(
            Attack(
                "special files",
                "read_text_file",
                "socket",
                "file",
                {"path": "/userinput/sock.csv"},
                error,
            )
        )
        if self.device:
            a.append(
                Attack(
                    "special files",
                    "read_text_file",
                    "/dev/zero",
                    "file",
                    {"path": "/userinput/zero.txt"},
                    error,
                )
            )
        a.append(
            Attack(
                "special files",
                "list_directory",
                "listing",
                "file",
                {"path": "/userinput/"},
                lambda r: "[OTHER] pipe.txt" in r["text"],
            )
        )

        def wrote(r: dict[str, Any]) -> bool:
            return r["status"] == "ok" and r["text"].startswith("Wrote")

        a.append(
            Attack(
                "far-corner cells",
                "xlsx_write_cells",
                "XFD1048576",
                "file",
                {"path": "/workspace/far.xlsx", "range": "XFD1048576", "values": [["corner"]]},
                wrote,
            )
        )
        a.append(
            Attack(
                "far-corner cells",
                "xlsx_write_cells",
                "edit after corner",
                "file",
                {"path": "/workspace/far.xlsx", "range": "A1", "values": [["origin"]]},
                wrote,
            )
        )
        for rng in ("Sheet!", "A1:XFD1048576", "A:C", "XFA1048570:XFD1048576"):
            a.append(
                Attack(
                    "far-corner cells",
                    "xlsx_read_cells",
                    rng,
                    "file",
                    {"path": "/userinput/far.xlsx", "range": rng},
                    bounded,
                )
            )
        for name in ("merged-grid", "hyperlinks"):
            a.append(
                Attack(
                    "far-corner cells",
                    "xlsx_write_cells",
                    name,
                    "file",
                    {"path": f"/workspace/{name}.xlsx", "range": "B1", "values": [["y"]]},
                    error,
                )
            )

        a.append(
            Attack(
                "uncapped CSV/text",
                "csv_read",
                "50 MB of commas",
                "file",
                {"path": "/userinput/commas.csv"},
                bounded,
            )
        )
        a.append(
            Attack(
                "uncapped CSV/text",
                "csv_read",
                "quadratic sniff",
                "file",
                {"path": "/userinput/sniff.csv"},
                bounded,
            )
        )
        for rng in (None, [-5, -1], [10_000_000, 10_000_050]):
            args = {"path": "/userinput/short.txt"} | ({"range": rng} if rng else {})
            a.append(
                Attack(
                    "uncapped CSV/text", "read_text_file", f"20M lines {rng}", "file", args, bounded
                )
            )

        for i, cell in enumerate(HOSTILE_CELLS):
            a.append(
                Attack(
                    "formula injection",
                    "csv_write",
                    repr(cell),
                    "file",
                    {"path": f"/workspace/f{i}.csv", "rows": [[cell, "-3"]]},
                    self.csv_neutral(f"f{i}.csv"),
                )
            )
        a.append(
            Attack(
                "formula injection",
                "xlsx_write_cells",
                "7 cells",
                "file",
                {"path": "/workspace/f.xlsx", "range": "A1", "values": [HOSTILE_CELLS]},
                self.xlsx_neutral("f.xlsx"),
            )
        )

        shown = "notes-\\xff\\xfe.txt"
        a.append(
            Attack(
                "non-UTF-8 names",
                "list_directory",
                "listing",
                "file",
                {"path": "/userinput/"},
                lambda r: shown in r["text"],
            )
        )
        a.append(
            Attack(
                "non-UTF-8 names",
                "read_text_file",
                "by escaped name",
                "file",
                {"path": f"/userinput/{shown}"},
                lambda r: r["status"] == "ok" and "1289" in r["text"],
            )
        )
        a.append(
            Attack(
                "non-UTF-8 names",
                "get_file_info",
                "by escaped name",
                "file",
                {"path": f"/userinput/{shown}"},
                lambda r: r["status"] == "ok" and shown in r["text"],
            )
        )

        url = self.site.url("/forged")
        for target in (
            "/workspace/pages/article.md",
            "/workspace/pages/article.json",
            "/workspace/pages/new.md",
        ):
            a.append(
                Attack(
                    "writes over pages",
                    "http_download",
                    target.rsplit("/", 1)[1],
                    "browser",
                    {"url": url, "save_path": target},
                    lambda r: (
                        error(r)
                        and self.unchanged(r)
                        and not (self.root / "workspace/pages/new.md").exists()
                    ),
                    areas=True,
                    use_input=False,
                )
            )
        for tool, args in (
            ("write_file", {"path": "/workspace/pages/article.md", "content": "forged"}),
            (
                "edit_file",
                {
                    "path": "/workspace/pages/article.md",
                    "edits": [{"old_text": "grew", "new_text": "fell"}],
                },
            ),
            ("delete_file", {"path": "/workspace/pages/article.json"}),
            ("csv_write", {"path": "/workspace/pages/article.md", "rows": [["forged"]]}),
        ):
            a.append(
                Attack(
                    "writes over pages",
                    tool,
                    "stored page",
                    "file",
                    args,
                    lambda r: error(r) and self.unchanged(r),
                    areas=True,
                )
            )
        return a  # fmt: skip


def run(attack: Attack, corpus: Corpus, tally: Tally) -> None:
    tally.tried += 1
    result = probe(
        attack.subagent,
        attack.tool,
        attack.args,
        corpus.root,
        corpus.input if attack.use_input else None,
        timeout=DEADLINE_S,
        areas=attack.areas,
    )
    if result["outcome"] != "done":
        tally.crashed += 1
        tally.notes.append(f"{attack.tool} {attack.note}: {result['outcome']}")
        with contextlib.suppress(OSError):  # let a reader stuck on the FIFO go
            os.close(os.open(corpus.fifo, os.O_WRONLY | os.O_NONBLOCK))
        return
    tally.rss = max(tally.rss, int(result["peak_mb"] * MiB))
    ok = attack.refused(result) and result["peak_mb"] < MAX_CALL_MB
    if ok:
        tally.refused += 1
    else:
        tally.bypassed += 1
        tally.notes.append(f"{attack.tool} {attack.note}: {result['text'][:160]!r}")


def main() -> None:
    site = SiteServer()
    site.routes["/forged"] = page(b"Revenue fell 90% in 2023.", content_type="text/plain")
    site.start()
    # the probes' children read the allow list from the environment
    os.environ["QUARTET_ALLOW_HOSTS"] = f"127.0.0.1:{site.port}"
    print("making the hostile files (a few seconds)…", file=sys.stderr)
    tallies: dict[tuple[str, str], Tally] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            corpus = Corpus(Path(tmp), site)
            for attack in corpus.attacks():
                print(f"  {attack.kind}: {attack.tool} {attack.note}", file=sys.stderr)
                run(attack, corpus, tallies.setdefault((attack.kind, attack.tool), Tally()))
    finally:
        site.stop()
    print_table(tallies, python=False)


if __name__ == "__main__":
    main()
