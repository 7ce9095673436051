"""The web app's attack corpus against a real ``quartet serve``, and its memory under it.

    .venv/bin/python bench/bench_attacks_serve.py [--bodies 16] [--body-mb 64] [--stalls 200]

Starts ``quartet serve`` on a free loopback port (one run at a time, the header and body
idle limits at five seconds) over a runs folder built for the attacks, and attacks it
over HTTP, as a page of another site, a run folder from elsewhere or a script on the
machine could. Classes (the ten holes of issue 39, point 7, several variants each):

- crafted report: a report of quote items left open (121 KB and 1 MB; once a pattern
  took time growing with the square of its size, on the event loop), served as a
  workspace file, inline in the run page, eight at once, and as a stored page and a
  quote panel; and, ``--bodies`` at once each, documents larger than a page lays out (a
  report of 40,000 tags, one of 6 MB, a stored page of 250,000 list items in its panels,
  a text file and a run folder of 30 MB); bypassed when one is laid out all the same, or
  the server stops answering other requests meanwhile;
- paths outside the runs folder: a ``run.json`` whose ``outputs`` climb with ``..`` or
  name ``/etc/passwd``, a ``workspace``, ``internal``, report, evidence ledger or whole
  run folder that is a symbolic link, a zip of a run holding links, and ``..`` in the
  address; bypassed when what lies outside ("the secret") is sent;
- bodies before the checks: ``--bodies`` requests at once of ``--body-mb`` each (a form
  claimed or sent chunked to a small form's address, uploads without the page's token or
  with another, uploads with it that are too large, a giant text field, too many fields
  or files); bypassed when one is taken (a job, a kept upload);
- malformed run.json: numbers out of range (``1e999``, ``NaN``), JSON that is no object,
  nested too deep, a named pipe, a record over the cap, twenty records just under it
  (8 MB questions) listed by ``--bodies`` requests at once, and the page of a record of
  80,000 rows (failed tasks, plan parts) as many times at once; bypassed on a page that
  fails or hides the runs;
- numbers: ``²``, ``٣``, 5,000 digits and signs in ``Last-Event-ID``, ``?after=``, an
  answer's ``ask``, the form's budgets and ``Content-Length``; bypassed on a 500;
- look-alike names: ``café.txt`` composed and decomposed, and differing in case only, in
  one upload; bypassed when both are kept;
- uploads half kept: an upload whose third file is refused (a folder in its name, over
  20 MB), 21 files, and one the disk refuses; bypassed when a file stays behind or the
  page names the runs folder;
- stalled requests: ``--stalls`` connections each of headers sent a byte a second, of
  silence, and of a body that stops coming; bypassed when one is still open well after
  the limit;
- queue flooding: more jobs than the queue holds, each with the longest question the
  form takes, and jobs of a 60 KB question; the start page fetched by ``--bodies`` at
  once with the queue full; 300 jobs queued and cancelled; bypassed when more are
  queued than the cap, a longer question is taken, or ended jobs are all kept;
- double stop: two stops at once, then five in a row, on a run waiting for its plan's
  review; bypassed when more than one interrupt is sent or the run ends other than
  stopped.

Each attack is judged by what the server answered: refused (the attack did not get
through), bypassed (it did, or the server's memory passed 400 MB during it), crashed (a
500, or the server died) or hung (no answer within two minutes, or the server left a
probe request, sent every tenth of a second throughout, unanswered for five seconds).

Memory: the resident set of the server process (``/proc/PID/status``), sampled every
10 ms from a thread of this script, and its kernel high-water mark (``VmHWM``), reset
before each attack; the peak is the highest of either. The baseline is the idle server's
resident set in the same run, once a few small pages were served. Its runs work in
worker processes of their own, reported beside it. Everything stays on the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from attack_tally import MiB, Tally  # noqa: E402
from serve_support import Served, serve  # noqa: E402

from host.durability.runs import MAX_QUESTION_CHARS  # noqa: E402
from webapp.runner import MAX_ENDED, MAX_QUEUED  # noqa: E402

#: The server's peak resident memory the attacks must keep it under.
MEMORY_LIMIT_MB = 400
#: A probe request answered later than this: the server hung.
PROBE_LIMIT_S = 5.0
#: Seconds any one request is waited for.
CLIENT_TIMEOUT = 120.0
#: The server's limits on a request's headers and on its body's idle time, here.
STALL_SECONDS = 5
SECRET = "the secret"
KB = 1024
#: A crafted report's quote items, each left open.
OPEN_ITEM = '<li id="src-1" data-ev="ev-aaaaaaaaaaaa">x'
EVIDENCE = "ev-0123456789ab"

# -- run folders -------------------------------------------------------------------------

CRAFTED = "20260101-000000-aaaaaa"
#: A run whose report has more tags than a page lays out, whose stored page is a list
#: of 250,000 items, and whose workspace holds a text file of 30 MB.
CRAFTED_LARGE = "20260101-000010-aaaaaa"
#: A run whose report is 6 MB of text.
CRAFTED_WIDE = "20260101-000011-aaaaaa"
EVIDENCE_LARGE = "ev-ba9876543210"
CLIMBING = "20260101-000001-aaaaaa"
ABSOLUTE = "20260101-000002-aaaaaa"
LINKED_WORKSPACE = "20260101-000003-aaaaaa"
LINKED_REPORT = "20260101-000004-aaaaaa"
LINKED_INTERNAL = "20260101-000005-aaaaaa"
LINKED_FOLDER = "20260101-000006-aaaaaa"
LINKED_LEDGER = "20260101-000007-aaaaaa"
LINKED_INSIDE = "20260101-000008-aaaaaa"
ODD_NUMBERS = tuple(f"20260102-00000{n}-aaaaaa" for n in range(4))
BROKEN = {
    "20260103-000000-aaaaaa": "[1, 2, 3]",
    "20260103-000001-aaaaaa": "{not json",
    "20260103-000002-aaaaaa": "[" * 100_000,
    "20260103-000003-aaaaaa": "",  # a named pipe in its place
    "20260103-000004-aaaaaa": json.dumps({"question": "x" * (9 * MiB)}),
}
#: Runs whose record is just under the 8 MB cap, nearly all of it the question.
NEAR_CAP = tuple(f"20260104-0000{n:02d}-aaaaaa" for n in range(20))
#: A run whose record holds 40,000 failed tasks and a plan of 40,000 parts.
MANY = "20260105-000000-aaaaaa"


def run_folder(runs: Path, run_id: str, record: dict[str, object] | str) -> Path:
    """A run folder whose ``internal/run.json`` holds ``record`` (JSON, or as text)."""
    run = runs / run_id
    (run / "internal").mkdir(parents=True)
    (run / "workspace" / "reports").mkdir(parents=True)
    text = record if isinstance(record, str) else json.dumps(record)
    (run / "internal" / "run.json").write_text(text, encoding="utf-8")
    return run


def crafted_runs(runs: Path) -> None:
    """A run whose report, stored page and quoted page are crafted to cost much."""
    reports = ["/workspace/reports/crafted.html", "/workspace/reports/crafted.md"]
    run = run_folder(runs, CRAFTED, {"question": "Crafted?", "outputs": reports})
    big = f"<html><body><ul>{OPEN_ITEM * 24_000}</ul></body></html>"
    small = f"<html><body><ul>{OPEN_ITEM * 2_900}</ul></body></html>"
    (run / "workspace" / "reports" / "crafted.html").write_text(big, encoding="utf-8")
    (run / "workspace" / "reports" / "small.html").write_text(small, encoding="utf-8")
    (run / "workspace" / "reports" / "crafted.md").write_text("# x\n", encoding="utf-8")
    pages = run / "workspace" / "pages"
    pages.mkdir()
    markdown = (
        "> " * 50_000
        + "\n"
        + "[" * 100_000
        + "\n"
        + "*a **a " * 30_000
        + "\n"
        + "<" * 100_000
        + "\n"
        + "- " * 50_000
        + "\n"
        + "`" * 100_000
        + "\n"
    )
    (pages / "crafted.md").write_text(markdown, encoding="utf-8")
    item = {
        "id": EVIDENCE,
        "url": "https://example.org/",
        "page_path": "/workspace/pages/crafted.md",
    }
    item |= {"span": "[[[[", "start": 0, "end": 0}
    (run / "internal" / "evidence.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    large_runs(runs)


def large_runs(runs: Path) -> None:
    """The runs of documents larger than a page lays out (see :data:`CRAFTED_LARGE`)."""
    reports = ["/workspace/reports/tags.html"]
    run = run_folder(runs, CRAFTED_LARGE, {"question": "Large?", "outputs": reports})
    tags = f"<html><body><ul>{OPEN_ITEM * 40_000}</ul></body></html>"
    (run / "workspace" / "reports" / "tags.html").write_text(tags, encoding="utf-8")
    with (run / "workspace" / "reports" / "huge.md").open("w", encoding="utf-8") as out:
        for _ in range(30):
            out.write("The canal was built in stages. " * (MiB // 31))
    (run / "workspace" / "pages").mkdir()
    (run / "workspace" / "pages" / "items.md").write_text("- a\n" * 250_000, encoding="utf-8")
    item = {"id": EVIDENCE_LARGE, "url": "https://example.org/", "span": "- a"}
    item |= {"page_path": "/workspace/pages/items.md", "start": 400_000, "end": 400_003}
    (run / "internal" / "evidence.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    wide = run_folder(
        runs, CRAFTED_WIDE, {"question": "Wide?", "outputs": ["/workspace/reports/wide.html"]}
    )
    text = "The canal was built in stages. " * (6 * MiB // 31)
    (wide / "workspace" / "reports" / "wide.html").write_text(
        f"<html><body><p>{text}</p></body></html>", encoding="utf-8"
    )


def outside_runs(runs: Path, outside: Path) -> None:
    """Runs that point outside the runs folder, each at a file saying "the secret"."""
    (outside / "reports").mkdir(parents=True)
    (outside / "internal").mkdir()
    for name in ("secret.md", "secret.html", "secret.pdf", "secret.zip", "reports/secret.md"):
        (outside / name).write_text(f"{SECRET}\n", encoding="utf-8")
    record = {"question": f"{SECRET} question", "status": "finished"}
    (outside / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    ledger = {"id": EVIDENCE, "url": "/userinput/x", "page_path": "/workspace/pages/p.md"}
    (outside / "evidence.jsonl").write_text(json.dumps(ledger) + "\n", encoding="utf-8")
    climbing = [f"/workspace/reports/../../../outside/secret.{f}" for f in ("md", "html", "pdf")]
    run_folder(runs, CLIMBING, {"question": "Climbing?", "outputs": climbing})
    run_folder(runs, ABSOLUTE, {"question": "Absolute?", "outputs": ["/../../../etc/passwd"]})
    linked = run_folder(runs, LINKED_WORKSPACE, {"question": "Linked workspace?"})
    shutil.rmtree(linked / "workspace")
    (linked / "workspace").symlink_to(outside, target_is_directory=True)
    report = run_folder(
        runs, LINKED_REPORT, {"question": "Linked report?", "outputs": ["/workspace/reports/r.md"]}
    )
    (report / "workspace" / "reports" / "r.md").symlink_to(outside / "secret.md")
    (report / "workspace" / "reports" / "r.zip").symlink_to(outside / "secret.zip")
    internal = run_folder(runs, LINKED_INTERNAL, {})
    shutil.rmtree(internal / "internal")
    (internal / "internal").symlink_to(outside / "internal", target_is_directory=True)
    (runs / LINKED_FOLDER).symlink_to(outside, target_is_directory=True)
    ledger_run = run_folder(runs, LINKED_LEDGER, {"question": "Ledger?", "status": "finished"})
    (ledger_run / "workspace" / "pages").mkdir()
    (ledger_run / "workspace" / "pages" / "p.md").write_text("page\n", encoding="utf-8")
    (ledger_run / "internal" / "evidence.jsonl").symlink_to(outside / "evidence.jsonl")
    inside = run_folder(runs, LINKED_INSIDE, {"question": "Links inside?"})
    (inside / "workspace" / "notes.md").symlink_to(outside / "secret.md")
    (inside / "workspace" / "elsewhere").symlink_to(outside, target_is_directory=True)
    (inside / "workspace" / "own.md").write_text("own words\n", encoding="utf-8")


def malformed_runs(runs: Path) -> None:
    """Runs whose record has numbers out of range, is broken, or is near the cap."""
    for run_id, bad in zip(ODD_NUMBERS, ("1e999", "NaN", "1e20", "-1e400"), strict=True):
        text = f'{{"question": "Odd {bad}?", "seconds": {bad}, "exit_code": {bad}, '
        text += f'"started": {bad}, "pages_read": {bad}, "answered": {bad}}}'
        run_folder(runs, run_id, text)
    for run_id, text in BROKEN.items():
        run = run_folder(runs, run_id, text)
        if not text:
            (run / "internal" / "run.json").unlink()
            os.mkfifo(run / "internal" / "run.json")


def build_runs(base: Path) -> Path:
    runs = base / "runs"
    runs.mkdir()
    crafted_runs(runs)
    outside_runs(runs, base / "outside")
    malformed_runs(runs)
    return runs


# -- watching the server ----------------------------------------------------------------


def status_kb(pid: int, name: str) -> int:
    """Field ``name`` (``VmRSS``, ``VmHWM``) of ``/proc/PID/status`` in kB (0 when gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{name}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (its runs' workers and what they start), but those
    not yet started as a program of their own (a fork of the server shares its memory
    until it starts its worker)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            kids = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        found += [int(k) for k in kids if _command(int(k)) != _command(pid)]
        todo += [int(k) for k in kids]
    return found


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


class Watch:
    """The server's memory, and a probe request every 0.1 s. Its memory is sampled every
    10 ms in a thread, and its kernel high-water mark is reset at each ``mark`` (when
    the kernel allows it); the probes come from a process of their own (this one's
    threads, sending bodies, would otherwise slow them). ``span`` gives the peaks since
    the last ``mark``."""

    def __init__(self, served: Served) -> None:
        self.pid, self.url = served.proc.pid, served.url
        self.peak_kb = self.span_kb = self.before_kb = self.workers_kb = 0
        self.slowest = self.span_slowest = 0.0
        self.probe_failures = 0
        self.resets = reset_high_water(self.pid)
        self.stopped = threading.Event()
        command = [sys.executable, str(Path(__file__).resolve()), "--probe", self.url]
        self.prober = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        self.threads = [
            threading.Thread(target=self._sample, daemon=True),
            threading.Thread(target=self._probes, daemon=True),
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopped.set()
        self.prober.terminate()
        self.prober.wait()
        for thread in self.threads:
            thread.join()

    def mark(self) -> None:
        self.before_kb = self.peak_kb
        self.resets = self.resets and reset_high_water(self.pid)
        self.span_kb, self.span_slowest = status_kb(self.pid, "VmRSS"), 0.0

    def span(self) -> tuple[float, float, bool]:
        """The server's peak memory (MB) and the slowest probe (s) since the mark, and
        whether that peak is the highest yet (its memory is not given back at once: a
        later attack's peak may be an earlier one's)."""
        if self.resets:
            self.span_kb = max(self.span_kb, status_kb(self.pid, "VmHWM"))
            self.peak_kb = max(self.peak_kb, self.span_kb)
        return self.span_kb / 1024, self.span_slowest, self.span_kb > self.before_kb

    def _sample(self) -> None:
        while not self.stopped.is_set():
            rss = status_kb(self.pid, "VmRSS")
            self.peak_kb, self.span_kb = max(self.peak_kb, rss), max(self.span_kb, rss)
            workers = sum(status_kb(p, "VmRSS") for p in descendants(self.pid))
            self.workers_kb = max(self.workers_kb, workers)
            time.sleep(0.01)  # a sample every 10 ms

    def _probes(self) -> None:
        assert self.prober.stdout is not None
        for line in self.prober.stdout:
            if line.startswith("failed"):
                self.probe_failures += 1
                continue
            took = float(line)
            self.slowest, self.span_slowest = max(self.slowest, took), max(self.span_slowest, took)


def probe(url: str) -> None:
    """Ask ``url`` for its smallest page every 0.1 s for ever, printing how long each
    answer took (seconds), or "failed"."""
    with httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT) as http:
        while True:
            started = time.monotonic()
            try:
                http.get("/favicon.ico")
            except httpx.HTTPError:
                print("failed", flush=True)
            else:
                print(f"{time.monotonic() - started:.4f}", flush=True)
            time.sleep(0.1)  # a probe every tenth of a second


def idle_rss_mb(served: Served) -> float:
    """The idle server's resident memory: the median of a second's samples, after its
    pages were each served once."""
    with served.client() as http:
        for path in ("/", "/runs", f"/runs/{CRAFTED}/download/md", f"/runs/{LINKED_LEDGER}"):
            http.get(path)
    samples = []
    for _ in range(100):
        samples.append(status_kb(served.proc.pid, "VmRSS") / 1024)
        time.sleep(0.01)  # a sample every 10 ms
    return statistics.median(samples)


def reset_high_water(pid: int) -> bool:
    """Reset the kernel's high-water mark of ``pid``'s resident set; False if refused."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


# -- requests -----------------------------------------------------------------------------


@dataclass
class Answer:
    """What the server answered a request: its status (None: no answer in time; 0: the
    connection closed without one) and its text."""

    status: int | None
    text: str = ""
    took: float = 0.0


def _complete(got: bytes) -> bool:
    head, sep, body = got.partition(b"\r\n\r\n")
    if not sep:
        return False
    if re.search(rb"\r\ntransfer-encoding:\s*chunked", head, re.I):
        return body.endswith(b"0\r\n\r\n")
    found = re.search(rb"\r\ncontent-length:\s*(\d+)", head, re.I)
    return found is None or len(body) >= int(found.group(1))


def exchange(address: tuple[str, int], head: bytes, body: Iterator[bytes] | None = None) -> Answer:
    """Send ``head`` then ``body``'s chunks on a new connection, as fast as the server
    takes them, until it answers (it may answer before the body is sent) or closes."""
    started = time.monotonic()
    deadline = started + CLIENT_TIMEOUT
    got, pending, sending = b"", head, True
    body = body if body is not None else iter(())
    with socket.create_connection(address, timeout=CLIENT_TIMEOUT) as sock:
        sock.setblocking(False)
        while not _complete(got):
            if time.monotonic() > deadline:
                return Answer(None, "no answer", time.monotonic() - started)
            readable, writable, _ = select.select([sock], [sock] if sending else [], [], 1.0)
            if readable:
                try:
                    data = sock.recv(65536)
                except ConnectionError:
                    break
                if not data:
                    break
                got += data
            if writable and sending:
                if not pending:
                    pending = next(body, b"")
                    sending = bool(pending)
                    continue
                try:
                    pending = pending[sock.send(pending) :]
                except (BlockingIOError, InterruptedError):
                    continue
                except ConnectionError:
                    sending = False
    took = time.monotonic() - started
    line = got.split(b"\r\n", 1)[0].decode("latin-1")
    found = re.match(r"HTTP/1\.[01] (\d{3})", line)
    text = got.partition(b"\r\n\r\n")[2].decode("utf-8", "replace")
    return Answer(int(found.group(1)) if found else 0, text, took)


def repeated(size: int, block: bytes = b"a" * MiB) -> Iterator[bytes]:
    """``size`` bytes of ``block`` repeated, a block at a time."""
    while size > 0:
        yield block[:size]
        size -= len(block)


def chunked(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """``chunks`` in HTTP/1.1 chunked transfer encoding."""
    for chunk in chunks:
        yield f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    yield b"0\r\n\r\n"


@dataclass
class Part:
    """One part of a multipart form: a field or a file of ``size`` bytes of ``data``."""

    name: str
    size: int = 0
    data: bytes = b"a"
    filename: str | None = None


BOUNDARY = "quartetattackboundary"


def multipart(parts: list[Part]) -> tuple[int, Callable[[], Iterator[bytes]]]:
    """The length of a multipart form of ``parts``, and a maker of its chunks."""

    def heading(part: Part) -> bytes:
        named = f'form-data; name="{part.name}"'
        if part.filename is not None:
            named += f'; filename="{part.filename}"'
        return f"--{BOUNDARY}\r\nContent-Disposition: {named}\r\n\r\n".encode()

    closing = f"--{BOUNDARY}--\r\n".encode()
    length = sum(len(heading(p)) + p.size + 2 for p in parts) + len(closing)

    def chunks() -> Iterator[bytes]:
        buffer = io.BytesIO()
        for part in parts:
            buffer.write(heading(part))
            for piece in repeated(part.size, part.data * max(1, MiB // len(part.data))):
                buffer.write(piece)
                if buffer.tell() >= MiB:
                    yield buffer.getvalue()
                    buffer = io.BytesIO()
            buffer.write(b"\r\n")
        buffer.write(closing)
        yield buffer.getvalue()

    return length, chunks


# -- the attacks ----------------------------------------------------------------------------


@dataclass
class Verdict:
    """How an attack ended (refused, bypassed, crashed or hung) and what to note."""

    end: str
    note: str = ""


def judged(answers: list[Answer], refused: Callable[[Answer], bool]) -> Verdict:
    """The verdict on ``answers``: hung on none, crashed on a 500, else refused when
    ``refused`` holds of each."""
    for answer in answers:
        if answer.status is None:
            return Verdict("hung", answer.text[:200])
        if answer.status >= 500 and not refused(answer):  # a 503 may be the refusal
            return Verdict("crashed", f"{answer.status}: {answer.text[:200]!r}")
    wrong = [a for a in answers if not refused(a)]
    if wrong:
        return Verdict("bypassed", f"{wrong[0].status}: {wrong[0].text[:200]!r}")
    return Verdict("refused")


@dataclass
class Attack:
    kind: str
    note: str
    go: Callable[[], Verdict]


@dataclass
class Bench:
    """The server under attack and what the attacks need of it."""

    served: Served
    bodies: int
    body_mb: int
    stalls: int
    held: list[str] = field(default_factory=list)
    token: str = ""

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.served.url.removeprefix("http://").rsplit(":", 1)
        return host, int(port)

    @property
    def host(self) -> str:
        return self.served.url.removeprefix("http://")

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        started = time.monotonic()
        try:
            with self.served.client() as http:
                response = http.get(path, headers=headers)
        except httpx.TimeoutException:
            return Answer(None, "no answer", time.monotonic() - started)
        return Answer(response.status_code, response.text, time.monotonic() - started)

    def raw_get(self, path: str) -> Answer:
        """``path`` exactly as given (no client normalises its dots)."""
        head = f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nConnection: close\r\n\r\n"
        return exchange(self.address, head.encode())

    def post(self, path: str, data: dict[str, str], files: list | None = None) -> Answer:
        """A form posted as the app's own page posts it (its Origin)."""
        started = time.monotonic()
        try:
            with self.served.client() as http:
                response = http.post(
                    path, data=data, files=files, headers={"Origin": self.served.url}
                )
        except httpx.TimeoutException:
            return Answer(None, "no answer", time.monotonic() - started)
        location = response.headers.get("location", "")
        return Answer(response.status_code, location or response.text, time.monotonic() - started)

    def csrf(self) -> str:
        """The token the app's forms carry (read once from its start page)."""
        if not self.token:
            self.token = self.served.csrf()
        return self.token

    def at_once(self, count: int, call: Callable[[], Answer]) -> list[Answer]:
        with ThreadPoolExecutor(count) as pool:
            return list(pool.map(lambda _: call(), range(count)))

    def kept(self) -> tuple[list[str], list[str]]:
        """The runs folder's entries and the uploads kept (to see nothing was added)."""
        runs = sorted(p.name for p in self.served.runs_dir.iterdir())
        uploads = self.served.runs_dir / ".uploads"
        return runs, sorted(p.name for p in uploads.iterdir()) if uploads.is_dir() else []

    def jobs_listed(self) -> int:
        return self.get("/").text.count('href="/jobs/')

    def start_job(self, question: str, **extra: str) -> Answer:
        return self.post("/jobs", {"csrf": self.csrf(), "question": question, **extra})

    def follow(self, job: str, until: Callable[[str, dict[str, object]], bool]) -> list[str]:
        """The job's events, by kind, until ``until(kind, data)`` holds or it ends."""
        kinds: list[str] = []
        with (
            httpx.Client(base_url=self.served.url, timeout=CLIENT_TIMEOUT) as http,
            http.stream("GET", f"/jobs/{job}/events") as response,
        ):
            kind = ""
            for line in response.iter_lines():
                if line.startswith("event:"):
                    kind = line.partition(":")[2].strip()
                elif line.startswith("data:") and kind:
                    kinds.append(kind)
                    data = json.loads(line.partition(":")[2])
                    if kind == "end" or until(kind, data):
                        return kinds
        return kinds

    def held_job(self) -> str:
        """A job whose run waits for its plan's review (it holds the one working slot)."""
        started = self.start_job("How was the Grand Canal built?", review_plan="on", formats="md")
        assert started.status == 303, started.text[:500]
        job = started.text.rsplit("/", 1)[1]
        kinds = self.follow(job, lambda kind, _: kind == "plan_review")
        assert "plan_review" in kinds, kinds
        return job


def has_secret(answer: Answer) -> bool:
    return SECRET in answer.text


def crafted_report(b: Bench) -> list[Attack]:
    """Reports crafted to cost time growing faster than their size."""
    workspace = f"/runs/{CRAFTED}/workspace"

    def fetched(path: str, count: int = 1) -> Callable[[], Verdict]:
        def go() -> Verdict:
            answers = b.at_once(count, lambda: b.get(path))
            return judged(answers, lambda a: a.status in (200, 404))

        return go

    return [
        Attack("crafted report", "121 KB report", fetched(f"{workspace}/reports/small.html")),
        Attack("crafted report", "1 MB report", fetched(f"{workspace}/reports/crafted.html")),
        Attack(
            "crafted report",
            "1 MB report, 8 at once",
            fetched(f"{workspace}/reports/crafted.html", 8),
        ),
        Attack("crafted report", "inline in the run page", fetched(f"/runs/{CRAFTED}")),
        Attack(
            "crafted report",
            "stored page panel",
            fetched(f"/runs/{CRAFTED}/stored/pages/crafted.md"),
        ),
        Attack("crafted report", "quote panel", fetched(f"/runs/{CRAFTED}/quote/{EVIDENCE}")),
        Attack("crafted report", "quote page", fetched(f"/runs/{CRAFTED}/cite/{EVIDENCE}")),
        *large_documents(b),
    ]


def large_documents(b: Bench) -> list[Attack]:
    """Documents larger than a page lays out, each asked for ``b.bodies`` times at once."""
    large, count = f"/runs/{CRAFTED_LARGE}", b.bodies

    def fetched(path: str, check: Callable[[Answer], bool]) -> Callable[[], Verdict]:
        return lambda: judged(b.at_once(count, lambda: b.get(path)), check)

    def zipped(a: Answer) -> bool:
        return a.status == 200

    def as_text(a: Answer) -> bool:
        return a.status == 200 and "open-quote" not in a.text

    made = [
        (f"report of 40,000 tags, {count} at once", f"{large}/workspace/reports/tags.html",
         as_text),
        (f"its run page, {count} at once", large, lambda a: "report-too-large" in a.text),
        (f"report of 6 MB, its run page, {count} at once", f"/runs/{CRAFTED_WIDE}",
         lambda a: "report-too-large" in a.text),
        (f"stored page of 250,000 list items, {count} at once",
         f"{large}/stored/pages/items.md", lambda a: a.status == 200 and "<li>" not in a.text),
        (f"its quote panel, {count} at once", f"{large}/quote/{EVIDENCE_LARGE}",
         lambda a: a.status == 200 and "<li>" not in a.text),
        (f"its quote page, {count} at once", f"{large}/cite/{EVIDENCE_LARGE}",
         lambda a: a.status == 200),
        (f"text file of 30 MB, {count} at once", f"{large}/workspace/reports/huge.md",
         lambda a: a.status == 200 and len(a.text) >= 30 * 1_000_000),
        (f"run folder's zip (30 MB), {count} at once", f"{large}/zip", zipped),
    ]  # fmt: skip
    return [Attack("crafted report", note, fetched(path, check)) for note, path, check in made]


def paths_outside(b: Bench) -> list[Attack]:
    """Run folders and addresses that lead outside the runs folder."""

    def fetched(path: str, raw: bool = False) -> Callable[[], Verdict]:
        def go() -> Verdict:
            answer = b.raw_get(path) if raw else b.get(path)
            return judged([answer], lambda a: not has_secret(a))

        return go

    def zipped() -> Verdict:
        with b.served.client() as http:
            response = http.get(f"/runs/{LINKED_INSIDE}/zip")
        if response.status_code >= 500:
            return Verdict("crashed", str(response.status_code))
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            texts = [archive.read(name).decode("utf-8", "replace") for name in archive.namelist()]
        own = any("own words" in t for t in texts)
        leaked = any(SECRET in t for t in texts)
        return Verdict("bypassed" if leaked or not own else "refused", "zip" if leaked else "")

    attacks = [
        (f"outputs with .. ({fmt})", fetched(f"/runs/{CLIMBING}/download/{fmt}"))
        for fmt in ("md", "html", "pdf")
    ]
    attacks += [
        ("outputs naming /etc/passwd", fetched(f"/runs/{ABSOLUTE}/download/md")),
        ("linked workspace: page", fetched(f"/runs/{LINKED_WORKSPACE}")),
        ("linked workspace: file", fetched(f"/runs/{LINKED_WORKSPACE}/workspace/secret.md")),
        ("linked workspace: download", fetched(f"/runs/{LINKED_WORKSPACE}/download/md")),
        ("linked report: download", fetched(f"/runs/{LINKED_REPORT}/download/md")),
        ("linked report: zip download", fetched(f"/runs/{LINKED_REPORT}/download/zip")),
        ("linked report: file", fetched(f"/runs/{LINKED_REPORT}/workspace/reports/r.md")),
        ("linked internal", fetched(f"/runs/{LINKED_INTERNAL}")),
        ("linked run folder", fetched(f"/runs/{LINKED_FOLDER}")),
        ("linked run folder: file", fetched(f"/runs/{LINKED_FOLDER}/workspace/secret.md")),
        ("linked ledger: quote", fetched(f"/runs/{LINKED_LEDGER}/cite/{EVIDENCE}")),
        ("linked ledger: panel", fetched(f"/runs/{LINKED_LEDGER}/quote/{EVIDENCE}")),
        ("linked file in workspace", fetched(f"/runs/{LINKED_INSIDE}/workspace/notes.md")),
        (
            "linked folder in workspace",
            fetched(f"/runs/{LINKED_INSIDE}/workspace/elsewhere/secret.md"),
        ),
        ("linked file: stored panel", fetched(f"/runs/{LINKED_INSIDE}/stored/notes.md")),
        ("links in the run's zip", zipped),
        (
            "../ in the address",
            fetched(f"/runs/{CLIMBING}/workspace/../../../outside/secret.md", True),
        ),
        (
            "%2e%2e in the address",
            fetched(f"/runs/{CLIMBING}/workspace/%2e%2e/%2e%2e/%2e%2e/outside/secret.md", True),
        ),
        (
            "%2f in the address",
            fetched(f"/runs/{CLIMBING}/workspace/..%2f..%2f..%2foutside%2fsecret.md", True),
        ),
        ("../ in the run id", fetched("/runs/..%2f..%2foutside", True)),
        (
            "../ in a stored page",
            fetched(f"/runs/{CLIMBING}/stored/..%2f..%2f..%2foutside%2fsecret.md", True),
        ),
    ]
    return [Attack("paths outside", note, go) for note, go in attacks]


def bodies(b: Bench) -> list[Attack]:
    """Large bodies, ``b.bodies`` at once, each refused before it is read whole or
    read to disk and refused."""
    size = b.body_mb * MiB
    origin = f"Origin: {b.served.url}\r\n"

    def sent(path: str, kind: str, length: int | None, chunks: Callable[[], Iterator[bytes]]):
        framing = (
            f"Content-Length: {length}\r\n"
            if length is not None
            else ("Transfer-Encoding: chunked\r\n")
        )
        head = f"POST {path} HTTP/1.1\r\nHost: {b.host}\r\n{origin}Content-Type: {kind}\r\n"
        head += f"{framing}Connection: close\r\n\r\n"

        def one() -> Answer:
            body = chunks() if length is not None else chunked(chunks())
            return exchange(b.address, head.encode(), body)

        return one

    def attack(note: str, one: Callable[[], Answer], statuses: tuple[int, ...]) -> Attack:
        def go() -> Verdict:
            before = b.kept()
            answers = b.at_once(b.bodies, one)
            verdict = judged(answers, lambda a: a.status in statuses)
            if verdict.end == "refused" and b.kept() != before:
                return Verdict("bypassed", "an upload or a run was kept")
            return verdict

        return Attack("bodies before checks", f"{b.bodies} × {note}", go)

    form = "application/x-www-form-urlencoded"
    parts = f"multipart/form-data; boundary={BOUNDARY}"
    token = b.csrf()
    file_length, file_chunks = multipart(
        [
            Part("csrf", len(token), token.encode()),
            Part("question", 1, b"q"),
            Part("files", size - 2 * MiB, filename="big.txt"),
        ]
    )
    field_length, field_chunks = multipart(
        [Part("csrf", len(token), token.encode()), Part("question", size - MiB)]
    )
    many_fields = [Part(f"f{n}", 1) for n in range(size // 80)]
    fields_length, fields_chunks = multipart(many_fields)
    many_files = [Part("files", 1, filename=f"f{n}.txt") for n in range(size // 112)]
    files_length, files_chunks = multipart(many_files)
    mb = f"{b.body_mb} MB"
    other = "/jobs?csrf=" + "x" * len(token)
    mine = f"/jobs?csrf={token}"
    whole = lambda: repeated(size)  # noqa: E731
    # 0: the server closed the connection while the body came (its answer then is lost)
    made = [
        (f"{mb} form, with its length, to stop", "/jobs/x/stop", form, size, whole, 413),
        (f"{mb} form, chunked, to stop", "/jobs/x/stop", form, None, whole, 404, 413),
        (f"{mb} form, chunked, to start", "/jobs", form, None, whole, 400, 413),
        (f"{mb} form, chunked, to a run's delete", f"/runs/{CRAFTED}/delete", form, None, whole,
         413),
        (f"{mb} form to answer", "/jobs/x/answer", form, size, whole, 413),
        (f"{mb} upload without the token", "/jobs", parts, file_length, file_chunks, 403),
        (f"{mb} upload with another token", other, parts, file_length, file_chunks, 403),
        (f"{mb} upload, chunked, without the token", "/jobs", parts, None, file_chunks, 403),
        (f"{mb} upload to a run's delete", f"/runs/{CRAFTED}/delete?csrf={token}", parts,
         file_length, file_chunks, 413),
        (f"{mb} upload with the token (file too large)", mine, parts, file_length, file_chunks,
         400),
        (f"{mb} upload, chunked, with the token", mine, parts, None, file_chunks, 400),
        (f"{mb} text field with the token", mine, parts, field_length, field_chunks, 400),
        (f"{mb} of 1-byte fields with the token", mine, parts, fields_length, fields_chunks,
         400),
        (f"{mb} of 1-byte files with the token", mine, parts, files_length, files_chunks, 400),
    ]  # fmt: skip
    return [
        attack(note, sent(path, kind, length, chunks), (0, *statuses))
        for note, path, kind, length, chunks, *statuses in made
    ]


def malformed(b: Bench) -> list[Attack]:
    """Run records that are broken, out of range or near the cap (those written now,
    not before the idle server was measured, whose runs list would read them)."""
    question = "Why? " * ((8 * MiB - 4 * KB) // 5)
    for run_id in NEAR_CAP:
        run_folder(b.served.runs_dir, run_id, {"question": question, "status": "finished"})
    failed = {"subagent": "browser", "status": "error", "error": "the site went away"}
    delegations = [{**failed, "id": f"d{n}"} for n in range(40_000)]
    parts = [{"id": f"q{n}", "text": "How?", "status": "answered"} for n in range(40_000)]
    record = {"question": "Many?", "status": "finished", "delegations": delegations}
    record["plan"] = {"subquestions": parts}
    run_folder(b.served.runs_dir, MANY, record)

    def listing() -> Verdict:
        answer = b.get("/runs")

        def shown(a: Answer) -> bool:
            rows = a.text.count("<tr data-run=")
            every = len(ODD_NUMBERS) + len(BROKEN) + len(NEAR_CAP)
            return (
                a.status == 200
                and rows >= every
                and all(f"Odd {x}?" in a.text for x in ("NaN", "1e20"))
            )

        return judged([answer], shown)

    def pages() -> Verdict:
        answers = [b.get(f"/runs/{run_id}") for run_id in (*ODD_NUMBERS, *BROKEN, NEAR_CAP[0])]
        return judged(answers, lambda a: a.status in (200, 404))

    def many_listings() -> Verdict:
        answers = b.at_once(b.bodies, lambda: b.get("/runs"))
        return judged(answers, lambda a: a.status == 200)

    def many_rows() -> Verdict:
        answers = b.at_once(b.bodies, lambda: b.get(f"/runs/{MANY}"))
        return judged(answers, lambda a: a.status == 200)

    def searched() -> Verdict:
        answers = b.at_once(b.bodies, lambda: b.get("/runs?q=why"))
        return judged(answers, lambda a: a.status == 200)

    return [
        Attack("malformed run.json", "the runs list", listing),
        Attack("malformed run.json", "each run's page", pages),
        Attack(
            "malformed run.json", f"runs list of 8 MB records, {b.bodies} at once", many_listings
        ),
        Attack("malformed run.json", f"runs search of 8 MB records, {b.bodies} at once", searched),
        Attack("malformed run.json", f"page of 80,000 rows, {b.bodies} at once", many_rows),
    ]


def numbers(b: Bench) -> list[Attack]:
    """Numbers a request gives, as digits that are no ASCII digits or far too many."""
    job = b.held[-1] if b.held else "x"
    odd = ("²", "٣", "9" * 5000, "-1", "1e3", " 1", "0x10")
    attacks = []
    for raw in odd:
        shown = raw if len(raw) < 10 else f"{len(raw)} digits"
        encoded = httpx.QueryParams({"after": raw})

        def events(raw: str = raw) -> Verdict:  # sent raw: a client would not send "²"
            head = f"GET /jobs/{job}/events HTTP/1.1\r\nHost: {b.host}\r\n"
            head += f"Last-Event-ID: {raw}\r\nConnection: close\r\n\r\n"
            return judged([exchange(b.address, head.encode())], lambda a: a.status != 0)

        def after(encoded: httpx.QueryParams = encoded) -> Verdict:
            return judged([b.get(f"/jobs/{job}/events?{encoded}")], lambda a: a.status != 0)

        def ask(raw: str = raw) -> Verdict:
            answer = b.post(
                f"/jobs/{job}/answer", {"csrf": b.csrf(), "ask": raw, "action": "approve"}
            )
            return judged([answer], lambda a: True)

        def budget(raw: str = raw) -> Verdict:  # " 1" is 1 once the form is stripped
            answer = b.start_job("Numbers?", max_pages=raw)
            return judged([answer], lambda a: a.status == 400 and "must be a number" in a.text)

        attacks += [
            Attack("numbers", f"Last-Event-ID {shown}", events),
            Attack("numbers", f"?after={shown}", after),
            Attack("numbers", f"ask={shown}", ask),
        ]
        if raw.strip() == raw:
            attacks.append(Attack("numbers", f"max_pages={shown}", budget))
    for length in ("9" * 5000, "²".encode().decode("latin-1"), "-5", "1e3"):
        head = f"POST /jobs/x/stop HTTP/1.1\r\nHost: {b.host}\r\nOrigin: {b.served.url}\r\n"
        head += f"Content-Length: {length}\r\nConnection: close\r\n\r\n"

        def claimed(head: str = head) -> Verdict:
            answer = exchange(b.address, head.encode("latin-1"))
            return judged([answer], lambda a: a.status in (400, 413))

        shown = length if len(length) < 10 else f"{len(length)} digits"
        attacks.append(Attack("numbers", f"Content-Length {shown}", claimed))
    return attacks


def uploads(b: Bench, *names: tuple[str, bytes]) -> Answer:
    token = b.csrf()
    files = [("files", (name, data)) for name, data in names]
    return b.post(f"/jobs?csrf={token}", {"csrf": token, "question": "Upload?"}, files)


def kept_nothing(b: Bench, check: Callable[[Answer], bool], *names: tuple[str, bytes]) -> Verdict:
    """An upload of ``names``, refused as ``check`` says, leaving nothing on disk."""
    before = b.kept()
    answer = uploads(b, *names)
    partial = (
        list((b.served.runs_dir / ".uploads").glob(".*"))
        if (b.served.runs_dir / ".uploads").is_dir()
        else []
    )
    verdict = judged([answer], check)
    if verdict.end == "refused" and (b.kept() != before or partial):
        return Verdict("bypassed", "files were kept")
    if str(b.served.runs_dir) in answer.text:
        return Verdict("bypassed", "the page names the runs folder")
    return verdict


def look_alike(b: Bench) -> list[Attack]:
    """Two names for one file in one upload."""

    def two(first: str, second: str) -> Callable[[], Verdict]:
        def check(a: Answer) -> bool:
            return a.status == 400 and "two files are named" in a.text

        return lambda: kept_nothing(b, check, (first, b"one"), (second, b"two"))

    return [
        Attack(
            "look-alike names",
            "café.txt composed and decomposed",
            two("caf\u00e9.txt", "cafe\u0301.txt"),
        ),
        Attack("look-alike names", "café.txt and CAFÉ.txt", two("caf\u00e9.txt", "CAF\u00c9.txt")),
        Attack(
            "look-alike names",
            "Ångström.md composed and decomposed",
            two("\u00c5ngstr\u00f6m.md", "A\u030angstro\u0308m.md"),
        ),
    ]


def half_kept(b: Bench) -> list[Attack]:
    """Uploads refused part-way: nothing of them is kept, and no path is shown."""

    def refused(a: Answer) -> bool:
        return a.status == 400

    good = [("a.txt", b"a" * 100_000), ("b.txt", b"b" * 100_000)]

    def disk_refuses() -> Verdict:
        uploads_dir = b.served.runs_dir / ".uploads"
        if uploads_dir.is_dir():
            shutil.rmtree(uploads_dir)
        uploads_dir.write_text("not a folder", encoding="utf-8")
        try:
            answer = uploads(b, *good)
        finally:
            uploads_dir.unlink()
        verdict = judged([answer], lambda a: a.status == 400 and "disk refused" in a.text)
        if str(b.served.runs_dir) in answer.text:
            return Verdict("bypassed", "the page names the runs folder")
        return verdict

    return [
        Attack(
            "uploads half kept",
            "third name has a folder",
            lambda: kept_nothing(b, refused, *good, ("../c.txt", b"c")),
        ),
        Attack(
            "uploads half kept",
            "third file over 20 MB",
            lambda: kept_nothing(b, refused, *good, ("c.txt", b"c" * (21 * MiB))),
        ),
        Attack(
            "uploads half kept",
            "21 files",
            lambda: kept_nothing(b, refused, *[(f"f{n}.txt", b"f") for n in range(21)]),
        ),
        Attack("uploads half kept", "the disk refuses", disk_refuses),
    ]


def stalls(b: Bench) -> list[Attack]:
    """Connections that never finish their request."""
    limit = STALL_SECONDS * 3

    def held(opening: bytes, trickle: bytes | None) -> Callable[[], Verdict]:
        def go() -> Verdict:
            socks = []
            for _ in range(b.stalls):
                sock = socket.create_connection(b.address, timeout=CLIENT_TIMEOUT)
                sock.sendall(opening)
                sock.setblocking(False)
                socks.append(sock)
            started = time.monotonic()
            open_ = set(range(len(socks)))
            answered = 0
            while open_ and time.monotonic() - started < limit:
                for n in list(open_):
                    try:
                        data = socks[n].recv(4096)
                    except BlockingIOError:
                        if trickle is not None:
                            with contextlib.suppress(OSError):
                                socks[n].send(trickle)
                        continue
                    except ConnectionError:
                        data = b""
                    if data.startswith(b"HTTP/1.1 2"):
                        answered += 1
                    if not data or data.startswith(b"HTTP/"):
                        open_.discard(n)
                time.sleep(1.0)  # a byte a second on each connection
            for sock in socks:
                sock.close()
            if open_:
                return Verdict("bypassed", f"{len(open_)} still open after {limit} s")
            if answered:
                return Verdict("bypassed", f"{answered} stalled requests were answered")
            return Verdict("refused")

        return go

    head = f"GET /runs HTTP/1.1\r\nHost: {b.host}\r\n".encode()
    body = f"POST /jobs/x/stop HTTP/1.1\r\nHost: {b.host}\r\nOrigin: {b.served.url}\r\n"
    body += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
    count = b.stalls
    return [
        Attack("stalled requests", f"{count} silent connections", held(b"", None)),
        Attack("stalled requests", f"{count} × headers a byte a second", held(head, b"X")),
        Attack(
            "stalled requests", f"{count} × headers never ended", held(head + b"X-Wait: ", None)
        ),
        Attack(
            "stalled requests", f"{count} × body that stops", held(body.encode() + b"csrf=", None)
        ),
    ]


def queue_flood(b: Bench) -> list[Attack]:
    """More jobs than the queue holds, each with a long question, behind a held run."""
    too_long = "Why " * (60 * KB // 4)
    long_question = ("Why " * MAX_QUESTION_CHARS)[:MAX_QUESTION_CHARS]
    queued: list[str] = []

    def flood() -> Verdict:
        b.held.append(b.held_job())
        answers = [b.start_job(long_question) for _ in range(MAX_QUEUED + 10)]
        queued.extend(a.text.rsplit("/", 1)[1] for a in answers if a.status == 303)
        full = [a for a in answers if a.status == 503 and "Too many runs" in a.text]
        if len(queued) > MAX_QUEUED:
            return Verdict("bypassed", f"{len(queued)} queued")
        verdict = judged(answers, lambda a: a.status in (303, 503))
        if verdict.end == "refused" and len(full) != 10:
            return Verdict("bypassed", f"{len(queued)} queued, {len(full)} refused as full")
        return verdict

    def longer() -> Verdict:
        answers = [b.start_job(too_long) for _ in range(10)]
        return judged(answers, lambda a: a.status == 400 and "The question is longer" in a.text)

    def home_full() -> Verdict:
        answers = b.at_once(b.bodies, lambda: b.get("/"))
        return judged(answers, lambda a: a.status == 200 and a.took < PROBE_LIMIT_S)

    def forgotten() -> Verdict:
        token = b.csrf()
        stops = [b.post(f"/jobs/{job}/stop", {"csrf": token}) for job in queued]
        for _ in range(300):
            started = b.start_job(long_question)
            if started.status == 303:
                b.post(f"{started.text}/stop", {"csrf": token})
        listed = b.jobs_listed()
        if listed > MAX_ENDED + 2:
            return Verdict("bypassed", f"{listed} jobs kept")
        return judged(stops, lambda a: a.status == 303)

    return [
        Attack("queue flooding", f"{MAX_QUEUED + 10} jobs of the longest question", flood),
        Attack("queue flooding", "10 jobs of 60 KB questions", longer),
        Attack("queue flooding", f"start page, queue full, {b.bodies} at once", home_full),
        Attack("queue flooding", "300 jobs queued and cancelled", forgotten),
    ]


def double_stop(b: Bench) -> list[Attack]:
    """Stops sent twice at once, or five times, to a run waiting for its plan review."""

    def stopped(job: str, count: int, together: bool) -> Verdict:
        token = b.csrf()

        def stop() -> Answer:
            return b.post(f"/jobs/{job}/stop", {"csrf": token})

        answers = b.at_once(count, stop) if together else [stop() for _ in range(count)]
        states: list[str] = []

        def ended(kind: str, data: dict[str, object]) -> bool:
            if kind == "state":
                states.append(str(data.get("state")))
            return kind == "state" and data.get("state") in ("stopped", "failed", "finished")

        kinds = b.follow(job, ended)
        if kinds.count("stopping") != 1 or states[-1:] != ["stopped"]:
            return Verdict("bypassed", f"{kinds.count('stopping')} stops sent, ended {states[-1:]}")
        return judged(answers, lambda a: a.status == 303)

    def twice() -> Verdict:
        job = b.held[-1] if b.held else b.held_job()
        return stopped(job, 2, together=True)

    def five() -> Verdict:
        b.held.append(b.held_job())
        return stopped(b.held[-1], 5, together=False)

    return [
        Attack("double stop", "two stops at once", twice),
        Attack("double stop", "five stops in a row", five),
    ]


CLASSES: tuple[Callable[[Bench], list[Attack]], ...] = (
    crafted_report,
    paths_outside,
    malformed,
    look_alike,
    half_kept,
    bodies,
    stalls,
    queue_flood,
    double_stop,
    numbers,
)


@dataclass
class Row:
    tally: Tally = field(default_factory=Tally)
    slowest: float = 0.0


def judge(attack: Attack, row: Row, watch: Watch, served: Served) -> None:
    """Run one attack and count how it ended (its memory and probes as well)."""
    row.tally.tried += 1
    watch.mark()
    started = time.monotonic()
    try:
        verdict = attack.go()
    except Exception as exc:  # the attack could not be made: the server broke it
        verdict = Verdict("crashed", f"{type(exc).__name__}: {exc}"[:300])
    took = time.monotonic() - started
    peak, slowest, highest = watch.span()
    if served.proc.poll() is not None:
        verdict = Verdict("crashed", f"the server ended ({served.proc.returncode})")
    elif slowest > PROBE_LIMIT_S:
        verdict = Verdict("hung", f"a probe waited {slowest:.1f} s")
    elif peak > MEMORY_LIMIT_MB and highest and verdict.end == "refused":
        verdict = Verdict("bypassed", f"the server's memory reached {peak:.0f} MB")
    print(
        f"  {attack.kind}: {attack.note}: {verdict.end}, {took:.1f} s, server peak "
        f"{peak:.0f} MB, slowest probe {slowest * 1000:.0f} ms",
        file=sys.stderr,
    )
    row.tally.rss = max(row.tally.rss, int(peak * MiB))
    row.slowest = max(row.slowest, slowest)
    if verdict.end == "refused":
        row.tally.refused += 1
    elif verdict.end == "bypassed":
        row.tally.bypassed += 1
    else:
        row.tally.crashed += 1
    if verdict.end != "refused":
        row.tally.notes.append(f"{attack.note}: {verdict.end}: {verdict.note}")


def print_rows(rows: dict[str, Row]) -> None:
    head = (
        f"{'class':<28} {'tried':>5} {'refused':>7} {'bypassed':>8} {'crashed/hung':>12} "
        f"{'server peak':>11} {'slowest probe':>13}"
    )
    print(head)
    print("-" * len(head))

    def line(kind: str, t: Tally, slowest: float) -> str:
        return (
            f"{kind:<28} {t.tried:>5} {t.refused:>7} {t.bypassed:>8} {t.crashed:>12} "
            f"{t.rss / MiB:>8.0f} MB {slowest * 1000:>10.0f} ms"
        )

    for kind, row in rows.items():
        print(line(kind, row.tally, row.slowest))
    every = [r.tally for r in rows.values()]
    total = Tally(
        tried=sum(t.tried for t in every),
        refused=sum(t.refused for t in every),
        bypassed=sum(t.bypassed for t in every),
        crashed=sum(t.crashed for t in every),
        rss=max(t.rss for t in every),
    )
    print("-" * len(head))
    print(line("all", total, max(r.slowest for r in rows.values())))
    for kind, row in rows.items():
        for note in row.tally.notes:
            print(f"  {kind} / {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=16, help="requests at once (16)")
    parser.add_argument("--body-mb", dest="body_mb", type=int, default=64, help="MB each (64)")
    parser.add_argument("--stalls", type=int, default=200, help="stalled connections (200)")
    names = ", ".join(make.__name__ for make in CLASSES)
    parser.add_argument("--only", default="", help=f"these classes only, by comma: {names}")
    parser.add_argument("--probe", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(args.probe)
    chosen = [m for m in CLASSES if not args.only or m.__name__ in args.only.split(",")]
    limits = {
        "QUARTET_SERVE_HEADER_SECONDS": str(STALL_SECONDS),
        "QUARTET_SERVE_BODY_IDLE_SECONDS": str(STALL_SECONDS),
    }
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory(prefix="quartet-attacks-serve-") as tmp:
        runs = build_runs(Path(tmp))
        with serve(runs, env=limits, runs_at_once=1) as served:
            idle = idle_rss_mb(served)
            bench = Bench(served, args.bodies, args.body_mb, args.stalls)
            watch = Watch(served)
            watch.start()
            try:
                for make in chosen:
                    for attack in make(bench):
                        judge(attack, rows.setdefault(attack.kind, Row()), watch, served)
            finally:
                watch.stop()
    peak = watch.peak_kb / 1024
    print_rows(rows)
    print()
    print(f"server idle (baseline, same run): {idle:.0f} MB")
    source = "high-water marks reset before each attack" if watch.resets else "no high-water mark"
    print(f"server peak under the attacks: {peak:.0f} MB (samples every 10 ms and {source})")
    print(
        f"peak / baseline: {peak / idle:.2f}×; limit {MEMORY_LIMIT_MB} MB: "
        f"{'kept' if peak < MEMORY_LIMIT_MB else 'EXCEEDED'}"
    )
    print(
        f"its runs' processes (not the server's), together, at their peak: "
        f"{watch.workers_kb / 1024:.0f} MB"
    )
    print(
        f"slowest probe: {watch.slowest * 1000:.0f} ms; probes that failed: {watch.probe_failures}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
