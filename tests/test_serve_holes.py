"""Attacks on ``quartet serve`` that once got through, each tried against a real server
(or the part that answers it): a crafted report that froze the server, run folders that
pointed outside the runs folder, bodies read whole before any check, an unbounded queue,
two stops taken as a hard stop, uploads kept half-way or twice under look-alike names,
and numbers that made a page fail."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from serve_support import Served, serve

#: A crafted report: many quote items left open, on which a pattern reading up to each
#: item's end took time growing with the square of the file's size.
OPEN_ITEMS = '<li id="src-1" data-ev="ev-aaaaaaaaaaaa">x' * 24_000


def _run(runs: Path, run_id: str, record: dict, reports: dict[str, str] | None = None) -> Path:
    """A run folder with ``record`` as its run.json and ``reports`` under reports/."""
    run = runs / run_id
    (run / "internal").mkdir(parents=True)
    (run / "workspace" / "reports").mkdir(parents=True)
    (run / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    for name, text in (reports or {}).items():
        (run / "workspace" / "reports" / name).write_text(text, encoding="utf-8")
    return run


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    root = tmp_path_factory.mktemp("holes")
    runs = root / "runs"
    runs.mkdir()
    outside = root / "outside"
    (outside / "reports").mkdir(parents=True)
    (outside / "reports" / "secret.md").write_text("the secret\n", encoding="utf-8")
    (outside / "secret.md").write_text("the secret\n", encoding="utf-8")
    crafted = f"<html><body><ul>{OPEN_ITEMS}</ul></body></html>"
    _run(runs, "20260101-000000-aaaaaa", {"question": "Crafted?"}, {"crafted.html": crafted})
    climbing = ["/workspace/reports/../../../outside/secret.md"]
    _run(runs, "20260101-000000-bbbbbb", {"question": "Climbing?", "outputs": climbing})
    linked = _run(runs, "20260101-000000-cccccc", {"question": "Linked?"})
    (linked / "workspace" / "reports").rmdir()
    (linked / "workspace").rmdir()
    os.symlink(outside, linked / "workspace")
    record = {"question": "Linked?", "outputs": ["/workspace/reports/secret.md"]}
    (linked / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")
    for n, bad in enumerate(["1e999", "NaN", "1e20", "-1e400"]):
        text = f'{{"question": "Odd {n}?", "seconds": {bad}, "exit_code": {bad}, ' + (
            f'"started": {bad}, "pages_read": {bad}, "answered": {bad}}}'
        )
        run = _run(runs, f"20260101-00000{n}-dddddd", {})
        (run / "internal" / "run.json").write_text(text, encoding="utf-8")
    _linked_inside(runs, outside)
    _unreadable(runs)
    stalls = {"QUARTET_SERVE_HEADER_SECONDS": "2", "QUARTET_SERVE_BODY_IDLE_SECONDS": "2"}
    with serve(runs, env=stalls) as server:
        yield server


#: Runs whose own folder, ``internal/`` folder or a file in it is a link to a file
#: outside the runs folder; what they point at says "the secret".
LINKED_RECORD = "20260102-000000-eeeeee"
LINKED_INTERNAL = "20260102-000001-eeeeee"
LINKED_FOLDER = "20260102-000002-eeeeee"
LINKED_CHECKPOINT = "20260102-000003-eeeeee"
LINKED_LEDGER = "20260102-000004-eeeeee"
#: Runs whose record cannot be read: a named pipe (a read waits for a writer for ever),
#: JSON nested past the parser's depth, a record of 9 MB.
PIPED = "20260102-000005-eeeeee"
NESTED = "20260102-000006-eeeeee"
OVERSIZED = "20260102-000007-eeeeee"
#: An evidence item of the outside ledger, quoting a page the linked run does store.
SECRET_ITEM = {
    "id": "ev-0123456789ab",
    "url": "/userinput/the-secret.txt",
    "title": "the secret title",
    "page_path": "/workspace/pages/p.md",
    "span": "page",
    "start": 0,
    "end": 4,
}


def _linked_inside(runs: Path, outside: Path) -> None:
    """The runs whose record, ``internal/`` folder, folder, checkpoint or evidence ledger
    is a symbolic link to a file outside the runs folder."""
    secret = {"question": "the secret question", "status": "finished", "version": 1}
    (outside / "record.json").write_text(json.dumps(secret), encoding="utf-8")
    (outside / "internal").mkdir()
    (outside / "workspace").mkdir()
    (outside / "internal" / "run.json").write_text(json.dumps(secret), encoding="utf-8")
    ledger = outside / "evidence.jsonl"
    ledger.write_text(json.dumps(SECRET_ITEM) + "\n", encoding="utf-8")
    record = _run(runs, LINKED_RECORD, {}) / "internal" / "run.json"
    record.unlink()
    record.symlink_to(outside / "record.json")
    internal = _run(runs, LINKED_INTERNAL, {}) / "internal"
    shutil.rmtree(internal)
    internal.symlink_to(outside / "internal", target_is_directory=True)
    (runs / LINKED_FOLDER).symlink_to(outside, target_is_directory=True)
    checkpoint = _run(runs, LINKED_CHECKPOINT, {}) / "internal"
    (checkpoint / "run.json").unlink()  # stopped: its question is read from the checkpoint
    (checkpoint / "checkpoint.json").symlink_to(outside / "record.json")
    kept = _run(runs, LINKED_LEDGER, {"question": "Ledger?", "status": "finished"})
    (kept / "workspace" / "pages").mkdir()
    (kept / "workspace" / "pages" / "p.md").write_text("page text\n", encoding="utf-8")
    (kept / "internal" / "evidence.jsonl").symlink_to(ledger)


def _unreadable(runs: Path) -> None:
    """The runs whose record is a named pipe, nested too deep, or too large to read."""
    piped = _run(runs, PIPED, {}) / "internal" / "run.json"
    piped.unlink()
    os.mkfifo(piped)
    nested = _run(runs, NESTED, {}) / "internal" / "run.json"
    nested.write_text("[" * 100_000, encoding="utf-8")
    _run(runs, OVERSIZED, {"question": "Oversized?", "padding": "x" * (9 * 1024 * 1024)})


def _row(listing: str, run_id: str) -> str:
    """The runs list's row of run ``run_id``."""
    return listing.split(f'<tr data-run="{run_id}">', 1)[1].split("</tr>", 1)[0]


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (the socket's own
    timeout, a minute, fails the test if it never does)."""
    got = b""
    while chunk := sock.recv(4096):
        got += chunk
    return got


def test_a_request_that_stalls_is_not_waited_for(served: Served):
    """Headers that never end, a connection that says nothing, and a body that stops
    coming are each closed by the server (here after two seconds, as the server was
    told), and a request sent whole is answered on a connection kept alive."""
    host = served.url.removeprefix("http://")
    address, port = host.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=60) as silent:
        assert _until_closed(silent) == b""
    with socket.create_connection((address, int(port)), timeout=60) as slow:
        slow.sendall(f"GET /runs HTTP/1.1\r\nHost: {host}\r\nX-Wait: ".encode())
        assert _until_closed(slow) == b""
    head = (
        f"POST /jobs/x/stop HTTP/1.1\r\nHost: {host}\r\nOrigin: {served.url}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
    )
    with socket.create_connection((address, int(port)), timeout=60) as trickle:
        trickle.sendall(head.encode() + b"csrf=")
        assert b"200 OK" not in _until_closed(trickle)
    with socket.create_connection((address, int(port)), timeout=60) as kept:
        for _ in range(2):
            kept.sendall(f"GET /favicon.ico HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            assert kept.recv(4096).startswith(b"HTTP/1.1 204")


def test_a_crafted_report_is_served_parsed_in_time_linear_in_its_size(served: Served):
    """A megabyte of quote items left open: read as HTML, off the event loop, the page
    comes back well within the client's minute (a pattern took minutes), and the server
    answers other pages after it."""
    with served.client() as http:
        page = http.get("/runs/20260101-000000-aaaaaa/workspace/reports/crafted.html")
        after = http.get("/runs")
    assert page.status_code == 200 and page.text.count("open-quote") == 24_000
    assert after.status_code == 200


def test_documents_with_more_syntax_than_a_page_lays_out_are_shown_as_their_text(
    served: Served,
):
    """A stored page of 100,000 list items (markdown-it held about two kilobytes for
    each token: a megabyte of them took half a gigabyte and ten seconds) and a report of
    40,000 tags: the panels show the page as its text, the quote marked; the report's
    own page sends it as text, and the run page says it is too large to show."""
    from webapp.documents import MAX_LAID_OUT_TAGS
    from webapp.reading import MAX_MARKUP

    items = "- a\n" * (MAX_MARKUP * 5 // 2)
    tags = OPEN_ITEMS.split("x")[0] + "x"
    report = f"<html><body><ul>{tags * (MAX_LAID_OUT_TAGS * 4 // 3)}</ul></body></html>"
    record = {"question": "Too much?", "outputs": ["/workspace/reports/tags.html"]}
    run = _run(served.runs_dir, "20260104-000000-aaaaaa", record, {"tags.html": report})
    (run / "workspace" / "pages").mkdir()
    (run / "workspace" / "pages" / "items.md").write_text(items, encoding="utf-8")
    item = {"id": "ev-0123456789ab", "page_path": "/workspace/pages/items.md", "span": "- a"}
    (run / "internal" / "evidence.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    with served.client() as http:
        stored = http.get(f"/runs/{run.name}/stored/pages/items.md")
        panel = http.get(f"/runs/{run.name}/quote/ev-0123456789ab")
        own = http.get(f"/runs/{run.name}/workspace/reports/tags.html")
        page = http.get(f"/runs/{run.name}")
    assert stored.status_code == 200 and "<pre>- a\n- a" in stored.text
    assert "<li>" not in stored.text
    assert panel.status_code == 200 and "<pre><mark>- a</mark>" in panel.text
    assert own.status_code == 200 and own.headers["content-type"].startswith("text/plain")
    assert own.text == report
    assert page.status_code == 200 and 'id="report-too-large"' in page.text


def test_records_and_documents_are_read_in_the_apps_few_heavy_threads(tmp_path, monkeypatch):
    """The runs list, a run's record, its report laid out (in its page and on its own),
    a stored page and a quote are each read in one of the app's heavy threads: however
    many requests come at once, only that many hold memory for such work (eight pages of
    a crafted report at once took the server past 400 MB in the six threads of the event
    loop's default pool)."""
    import threading

    from starlette.testclient import TestClient

    from webapp import app as app_module
    from webapp.app import HEAVY_THREADS, build_app
    from webapp.security import Guard

    assert HEAVY_THREADS <= 2
    record = {"question": "Heavy?", "outputs": ["/workspace/reports/r.html"]}
    report = '<html><body><main class="report"><p>Found [1].</p></main></body></html>'
    run = _run(tmp_path / "runs", "20260101-000000-aaaaaa", record, {"r.html": report})
    (run / "workspace" / "pages").mkdir()
    (run / "workspace" / "pages" / "p.md").write_text("# Page\n\nFound.\n", encoding="utf-8")
    item = {"id": "ev-0123456789ab", "page_path": "/workspace/pages/p.md", "span": "Found."}
    (run / "internal" / "evidence.jsonl").write_text(json.dumps(item) + "\n", encoding="utf-8")
    seen: list[tuple[str, str]] = []
    names = ("_listed", "_read", "inline_report", "linked_report", "quoted", "stored_text")

    def spied(name: str):
        real = getattr(app_module, name)

        def spy(*args):
            seen.append((name, threading.current_thread().name))
            return real(*args)

        return spy

    for name in names:
        monkeypatch.setattr(app_module, name, spied(name))
    client = TestClient(
        build_app(run.parent, Guard("127.0.0.1", 8765)), base_url="http://127.0.0.1:8765"
    )
    for path in ("/runs", "", "/workspace/reports/r.html", "/stored/pages/p.md"):
        assert client.get(path if path == "/runs" else f"/runs/{run.name}{path}").status_code == 200
    assert client.get(f"/runs/{run.name}/quote/ev-0123456789ab").status_code == 200
    assert {name for name, _ in seen} == set(names)
    assert all(thread.startswith("heavy") for _, thread in seen), seen


def test_a_link_put_in_place_of_a_checked_file_is_never_followed(tmp_path, monkeypatch):
    """A report replaced by a link to a file outside the runs folder once it was found,
    and a folder replaced by a link while the run's zip is written: neither is
    followed (each file is read from the descriptor it was opened on, without following
    a link at any level)."""
    import zipfile

    from starlette.testclient import TestClient

    from webapp import app as app_module
    from webapp.app import build_app
    from webapp.security import Guard

    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("secret.md", "a.txt", "b.txt", "c.txt"):
        (outside / name).write_text("the secret\n", encoding="utf-8")
    runs = tmp_path / "runs"
    record = {"question": "Swapped?", "outputs": ["/workspace/reports/r.md"]}
    run = _run(runs, "20260101-000000-aaaaaa", record, {"r.md": "the report\n"})
    (run / "workspace" / "z").mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (run / "workspace" / "z" / name).write_text("own words\n", encoding="utf-8")
    client = TestClient(build_app(runs, Guard("127.0.0.1", 8765)), base_url="http://127.0.0.1:8765")
    found = app_module._report_file

    def then_swapped(*args):
        where = found(*args)
        report = run / "workspace" / "reports" / "r.md"
        report.unlink()
        report.symlink_to(outside / "secret.md")
        return where

    monkeypatch.setattr(app_module, "_report_file", then_swapped)
    download = client.get(f"/runs/{run.name}/download/md")
    assert download.status_code == 404 and "the secret" not in download.text
    opened, swapped = zipfile.ZipFile.open, []

    def swapping(self, name, mode="r", *args, **kwargs):
        if mode == "w" and not swapped:  # the first file is being written: swap a folder
            shutil.rmtree(run / "workspace" / "z")
            (run / "workspace" / "z").symlink_to(outside, target_is_directory=True)
            swapped.append(name)
        return opened(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", swapping)
    archive = client.get(f"/runs/{run.name}/zip")
    monkeypatch.setattr(zipfile.ZipFile, "open", opened)
    assert archive.status_code == 200 and swapped
    with zipfile.ZipFile(io.BytesIO(archive.content)) as got:
        texts = {name: got.read(name).decode() for name in got.namelist()}
    assert texts and not any("the secret" in text for text in texts.values()), texts


def test_nothing_outside_the_runs_folder_is_served(served: Served):
    with served.client() as http:
        climbing = http.get("/runs/20260101-000000-bbbbbb/download/md")
        linked_page = http.get("/runs/20260101-000000-cccccc")
        linked_file = http.get("/runs/20260101-000000-cccccc/workspace/secret.md")
        linked_download = http.get("/runs/20260101-000000-cccccc/download/md")
    assert climbing.status_code == 404 and "the secret" not in climbing.text
    assert linked_page.status_code == 404
    assert linked_file.status_code == 404 and "the secret" not in linked_file.text
    assert linked_download.status_code == 404 and "the secret" not in linked_download.text


def test_links_inside_a_run_folder_are_never_followed(served: Served, capsys):
    """A run whose record, ``internal/`` folder, own folder, checkpoint or evidence
    ledger is a link to a file outside the runs folder: the web app and the command line
    show each as one broken row saying which file was refused, never what it points at;
    its page answers (or is not found), never with a 500."""
    from quartet.cli import main

    linked = (LINKED_RECORD, LINKED_INTERNAL, LINKED_FOLDER, LINKED_CHECKPOINT)
    with served.client() as http:
        listing = http.get("/runs")
        pages = {run_id: http.get(f"/runs/{run_id}") for run_id in (*linked, LINKED_LEDGER)}
        cite = http.get(f"/runs/{LINKED_LEDGER}/cite/{SECRET_ITEM['id']}")
        panel = http.get(f"/runs/{LINKED_LEDGER}/quote/{SECRET_ITEM['id']}")
    assert listing.status_code == 200 and "the secret" not in listing.text
    said = {
        LINKED_RECORD: "unreadable: internal/run.json is a symbolic link",
        LINKED_INTERNAL: "unreadable: internal is a symbolic link",
        LINKED_FOLDER: "unreadable: the run&#39;s folder is a symbolic link",
        LINKED_CHECKPOINT: "unreadable: internal/checkpoint.json is a symbolic link",
    }
    for run_id, words in said.items():
        assert f'<span class="state state-broken">{words}</span>' in _row(listing.text, run_id)
    for run_id, page in pages.items():
        assert page.status_code in (200, 404) and "the secret" not in page.text, run_id
    assert pages[LINKED_RECORD].status_code == 200 and 'id="broken"' in pages[LINKED_RECORD].text
    assert pages[LINKED_LEDGER].status_code == 200  # its own record is read; the ledger is not
    assert cite.status_code == 404 and "the secret" not in cite.text
    assert panel.status_code == 404 and "the secret" not in panel.text
    assert main(["runs", "--runs-dir", str(served.runs_dir)]) == 0
    assert main(["show", "--runs-dir", str(served.runs_dir), LINKED_CHECKPOINT]) == 0
    printed = capsys.readouterr().out
    assert "the secret" not in printed
    assert "unreadable: internal/run.json is a symbolic link" in printed
    assert f"Run {LINKED_CHECKPOINT}: unreadable: internal/checkpoint.json is a symbolic" in printed


def test_a_record_too_large_nested_too_deep_or_a_pipe_is_one_broken_row(served: Served):
    """A 9 MB ``run.json``, one nested past the JSON parser's depth, and a named pipe in
    its place: each is one broken row of the runs list (read off the event loop, capped,
    never waited on), and the server goes on answering."""
    with served.client() as http:
        listing = http.get("/runs")
        pages = [http.get(f"/runs/{run_id}") for run_id in (PIPED, NESTED, OVERSIZED)]
        home = http.get("/")
    assert listing.status_code == 200
    assert "unreadable: internal/run.json is not a plain file" in _row(listing.text, PIPED)
    assert "unreadable: internal/run.json is not readable JSON" in _row(listing.text, NESTED)
    assert "unreadable: internal/run.json is larger than 8 MB" in _row(listing.text, OVERSIZED)
    assert "Oversized?" not in listing.text
    assert [p.status_code for p in pages] == [200, 200, 200]
    assert home.status_code == 200


def test_numbers_out_of_range_in_a_run_record_leave_the_pages_working(served: Served):
    with served.client() as http:
        listing = http.get("/runs")
        pages = [http.get(f"/runs/20260101-00000{n}-dddddd").status_code for n in range(4)]
    assert listing.status_code == 200
    assert all(f"Odd {n}?" in listing.text for n in range(4))
    assert pages == [200, 200, 200, 200]


def test_numbers_a_request_gives_are_ascii_digits_of_a_bounded_length(served: Served):
    """A superscript two is a digit to Python but no number here, and a number of 5,000
    digits is refused before it is read; neither fails the request."""
    from webapp.security import whole_number

    assert [whole_number(raw) for raw in ("12", "²", "٣", "9" * 5000, "", "-1", " 1")] == [
        12, None, None, None, None, None, None
    ]  # fmt: skip
    form = {"csrf": served.csrf(), "question": "x"}
    with served.client(cookies=served.cookies()) as http:
        for raw in ("²", "9" * 5000):
            start = http.post(
                "/jobs", data={**form, "max_pages": raw}, headers={"Origin": served.url}
            )
            assert start.status_code == 400 and "max-pages must be a number" in start.text


#: A run of the holes' server replayed, to have a job whose events and answers take numbers.
NUMBERED = "20260106-000000-abcabc"
#: Numbers no request may give: a superscript two (a digit to :meth:`str.isdigit`, none
#: to :func:`int`) and more digits than :func:`int` reads.
NO_NUMBERS = ("²", "9" * 5000)


def _event_ids(served: Served, path: str, headers: dict[str, bytes]) -> tuple[int, list[str]]:
    """The status of a job's event stream, and each event's id as sent (its end has none)."""
    with (
        served.client(cookies=served.cookies()) as http,
        http.stream("GET", path, headers=headers) as events,
    ):
        lines = list(events.iter_lines()) if events.status_code == 200 else []
    return events.status_code, [
        line.removeprefix("id:").strip() for line in lines if line.startswith("id:")
    ]


def test_numbers_a_request_gives_are_refused_or_defaulted_by_a_real_server(served: Served):
    """``Last-Event-ID: ²``, ``?after=`` with 5,000 digits and ``ask=²`` sent to a real
    server: the events are sent from the first (no number, so none are skipped), the
    answer is refused as answering nothing, and the server goes on answering."""
    recorded = {"record": True}  # a replay is refused for a run never recorded
    record = {"question": "Numbers?", "status": "finished", "exit_code": 0, "settings": recorded}
    (_run(served.runs_dir, NUMBERED, record) / "internal" / "tape").mkdir()
    form = {"csrf": served.csrf()}
    origin = {"Origin": served.url}
    with served.client(cookies=served.cookies()) as http:
        made = http.post(f"/runs/{NUMBERED}/replay", data=form, headers=origin)
        assert made.status_code == 303, made.text
        job = made.headers["location"].rsplit("/", 1)[1]
        plain = _event_ids(served, f"/jobs/{job}/events", {})
        assert plain[0] == 200 and plain[1][:1] == ["1"], plain
        for raw in NO_NUMBERS:
            latin = {"Last-Event-ID": raw.encode("latin-1")}
            assert _event_ids(served, f"/jobs/{job}/events", latin) == plain, raw
            assert _event_ids(served, f"/jobs/{job}/events?after={raw}", {}) == plain, raw
            answer = http.post(
                f"/jobs/{job}/answer",
                data={**form, "ask": raw, "action": "approve"},
                headers={**origin, "Accept": "application/json"},
            )
            assert answer.status_code == 409, (raw[:10], answer.status_code, answer.text[:200])
            assert answer.json() == {"ok": False, "said": "already answered"}
        assert http.get("/").status_code == 200
        assert http.get(f"/jobs/{job}").status_code == 200


def test_a_form_without_files_is_refused_past_a_small_size_before_it_is_read(served: Served):
    """Only a run's uploads may be large (and their files go to disk as read): any other
    body that claims more than a small form is refused at once."""
    host = served.url.removeprefix("http://")
    claims = (
        f"POST /jobs HTTP/1.1\r\nHost: {host}\r\nOrigin: {served.url}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {60 * 1024 * 1024}\r\n\r\n"
    )
    assert _raw(host, claims).startswith("HTTP/1.1 413")
    stop = (
        f"POST /jobs/x/stop HTTP/1.1\r\nHost: {host}\r\nOrigin: {served.url}\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\n"
        f"Content-Length: {2 * 1024 * 1024}\r\n\r\n"
    )
    assert _raw(host, stop).startswith("HTTP/1.1 413")


def test_a_body_sent_in_chunks_past_a_small_form_is_refused_as_too_large(served: Served):
    """A body without a length (sent in chunks) is counted as it comes: past a small
    form's size it is refused as too large, as one that says its length is, not failed
    with a 500 and a traceback in the server's log; the server goes on answering."""
    from webapp.security import Guard

    host = served.url.removeprefix("http://")
    address, port = host.rsplit(":", 1)
    log_before = served.log.read_text(encoding="utf-8", errors="replace")
    statuses = []
    field = b'--b\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n'
    for kind, start in (
        ("application/x-www-form-urlencoded", b"csrf="),
        ("multipart/form-data; boundary=b", field),
    ):
        head = (
            f"POST /runs/20260101-000000-aaaaaa/delete HTTP/1.1\r\nHost: {host}\r\n"
            f"Origin: {served.url}\r\nContent-Type: {kind}\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"a" * 65536
        with socket.create_connection((address, int(port)), timeout=60) as sock:
            sock.sendall(head.encode() + b"%x\r\n%s\r\n" % (len(start), start))
            with contextlib.suppress(OSError):  # the server may close before the end
                for _ in range(Guard.max_form // len(chunk) + 2):
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sock.sendall(b"0\r\n\r\n")
            statuses.append(sock.recv(4096).decode("latin-1").split("\r\n", 1)[0])
    assert statuses == ["HTTP/1.1 413 Request Entity Too Large"] * 2, statuses
    added = served.log.read_text(encoding="utf-8", errors="replace")[len(log_before) :]
    assert "Traceback" not in added, added[-2000:]
    with served.client() as http:
        assert http.get("/runs").status_code == 200


def test_an_upload_without_the_pages_token_is_refused_before_its_body_is_read(served: Served):
    """A run's uploads may be 64 MB: their CSRF token comes in the address the start page
    posts to, and one without it (or with another) is refused from its headers alone,
    while an upload with the page's token is read and judged on its form."""
    host = served.url.removeprefix("http://")
    token = served.csrf()
    home = served.client(cookies=served.cookies()).get("/").text
    assert f'action="/jobs?csrf={token}"' in home

    def upload(path: str) -> str:
        return (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nOrigin: {served.url}\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\n"
            f"Content-Length: {32 * 1024 * 1024}\r\n\r\n"
        )

    for path in ("/jobs", "/jobs?csrf=", "/jobs?csrf=" + "x" * len(token)):
        assert _raw(host, upload(path)).startswith("HTTP/1.1 403"), path
    with served.client(cookies=served.cookies()) as http:
        sent = http.post(
            f"/jobs?csrf={token}",
            data={"csrf": token, "question": " "},
            files={"files": ("notes.txt", b"notes")},
            headers={"Origin": served.url},
        )
    assert sent.status_code == 400 and "question" in sent.text.lower()  # read, then judged


def _raw(host: str, head: str) -> str:
    """The status line the server answers ``head`` with (a body it claims is not sent)."""
    address, port = host.rsplit(":", 1)
    with socket.create_connection((address, int(port)), timeout=60) as sock:
        sock.sendall(head.encode("utf-8"))
        return sock.recv(4096).decode("latin-1").split("\r\n", 1)[0]


# -- what the server holds in memory ----------------------------------------------------

#: The app in a process of its own serving the pages named on its command line, then
#: printing which of the research tools' libraries it loaded on the way.
PAGES_ONLY = """
import sys, time
from pathlib import Path
from starlette.testclient import TestClient
from webapp.app import build_app
from webapp.security import Guard

app = build_app(Path(sys.argv[1]), Guard("127.0.0.1", 8765))
app.app.state.app.reached = (True, time.monotonic())  # the web's reach is not looked at
client = TestClient(app, base_url="http://127.0.0.1:8765")
for path in sys.argv[2:]:
    assert client.get(path).status_code == 200, path
print(sorted(m for m in ("agentscope", "pypdf", "openpyxl", "docx", "pptx") if m in sys.modules))
"""


def test_the_pages_load_none_of_the_research_tools(tmp_path):
    """The start page names the kinds of file a run reads without loading the readers:
    they bring agentscope and the document libraries (140 MB the server held for as long
    as it ran, most of its memory at rest)."""
    runs = tmp_path / "runs"
    _run(runs, "20260101-000000-aaaaaa", {"question": "Kept?", "status": "finished"})
    pages = ["/", "/runs", "/runs/20260101-000000-aaaaaa"]
    loaded = subprocess.run(
        [sys.executable, "-c", PAGES_ONLY, str(runs), *pages],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert loaded.returncode == 0, loaded.stderr[-2000:]
    assert loaded.stdout.split("\n")[-2] == "[]"


def test_a_question_of_megabytes_is_kept_cut_and_the_form_refuses_a_long_one(tmp_path):
    """A record from elsewhere whose question and plan part are 2 MB each: the runs list
    and the run's page show them cut (every listing held and sent every such question
    whole: twenty of them took the server past a gigabyte); the start form refuses a
    question longer than what a listing keeps, saying so."""
    from starlette.testclient import TestClient

    from host.durability.runs import MAX_QUESTION_CHARS, list_runs, read_run
    from webapp.app import build_app
    from webapp.security import Guard

    runs = tmp_path / "runs"
    plan = {"subquestions": [{"id": "q1", "text": "How? " * 400_000, "status": "answered"}]}
    record = {"question": "Why? " * 400_000, "status": "finished", "plan": plan}
    run = _run(runs, "20260101-000000-aaaaaa", record)
    (summary,) = list_runs(runs)
    assert len(summary.question) == MAX_QUESTION_CHARS and summary.question.endswith("…")
    assert [len(s.text) for s in read_run(run).plan] == [MAX_QUESTION_CHARS]
    guard = Guard("127.0.0.1", 8765)
    client = TestClient(build_app(runs, guard), base_url="http://127.0.0.1:8765")
    listing, page = client.get("/runs"), client.get(f"/runs/{run.name}")
    assert listing.status_code == page.status_code == 200
    assert "Why? Why?" in listing.text and len(listing.text) < 10 * MAX_QUESTION_CHARS
    assert "How? How?" in page.text and len(page.text) < 20 * MAX_QUESTION_CHARS
    form = {"csrf": guard.csrf, "question": "x" * (MAX_QUESTION_CHARS + 1)}
    sent = client.post("/jobs", data=form, headers={"Origin": "http://127.0.0.1:8765"})
    assert sent.status_code == 400
    assert f"The question is longer than {MAX_QUESTION_CHARS:,} characters" in sent.text
    assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == [run.name]


def test_a_run_page_shows_at_most_two_hundred_rows_of_each_list(served: Served):
    """A record of 5 MB holding 40,000 failed tasks and a plan of 40,000 parts: its page
    shows 200 of each and says how many more (it was drawn whole on the event loop:
    sixteen at once held the server for seconds and took it past 400 MB)."""
    from webapp.app import MAX_ROWS

    failed = {"subagent": "browser", "status": "error", "error": "the site went away"}
    parts = [{"id": f"q{n}", "text": "How?", "status": "answered"} for n in range(40_000)]
    record = {"question": "Many?", "status": "finished", "plan": {"subquestions": parts}}
    record["delegations"] = [{**failed, "id": f"d{n}"} for n in range(40_000)]
    run = _run(served.runs_dir, "20260105-000000-aaaaaa", record)
    with served.client() as http:
        page = http.get(f"/runs/{run.name}")
    assert page.status_code == 200
    assert page.text.count("the site went away</li>") == MAX_ROWS
    plan = page.text.split('id="plan"', 1)[1].split("</table>", 1)[0]
    assert plan.count("<tr>") == MAX_ROWS + 1  # and its head
    more = f"… and {40_000 - MAX_ROWS} more"
    assert f"{more} parts: <code>quartet show {run.name}</code>" in page.text
    assert f"{more}: <code>quartet show {run.name}</code> lists them all" in page.text


# -- the runner and the uploads, without a server -------------------------------------

#: A child that says "got" for each interrupt, and how many it had once its stdin closes.
COUNTER = """
import signal, sys
count = 0
def took(*_):
    global count
    count += 1
    sys.stdout.write("got\\n"); sys.stdout.flush()
signal.signal(signal.SIGINT, took)
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.read()
print(count)
"""


async def test_a_second_stop_changes_nothing_and_stop_now_is_its_own_action(tmp_path):
    """Two clicks on Stop (or two tabs) are one Ctrl-C, so the run still writes its
    report; Stop now is the second, once."""
    from webapp.runner import Job, Runner

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", COUNTER, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert await proc.stdout.readline() == b"ready\n"
    runner = Runner(tmp_path)
    job = Job("j1", "run", "q", {}, state="running", proc=proc, live=True)
    runner.jobs[job.id] = job
    runner.stop(job)
    assert await proc.stdout.readline() == b"got\n"
    runner.stop(job)  # a second click, or the page open in two tabs
    runner.stop(job)
    runner.stop(job, now=True)
    assert await proc.stdout.readline() == b"got\n"
    runner.stop(job, now=True)
    runner.stop(job)
    out, _ = await proc.communicate(b"")
    assert out.split()[-1] == b"2"
    assert [json.loads(e.data)["count"] for e in job.events if e.kind == "stopping"] == [1, 2]


def test_the_queue_is_capped_and_ended_jobs_are_forgotten(tmp_path, monkeypatch):
    from webapp.runner import MAX_ENDED, MAX_QUEUED, QueueFull, Runner

    runner = Runner(tmp_path, limit=1)
    monkeypatch.setattr(runner, "_pump", lambda: None)  # nothing starts: every job waits
    for n in range(MAX_QUEUED):
        runner.submit("run", f"q{n}", {})
    assert runner.full and runner.positions()[runner.queue[-1].id] == MAX_QUEUED
    with pytest.raises(QueueFull):
        runner.submit("run", "one too many", {})
    for job in runner.queue:
        job.state = "finished"
    runner.queue.clear()
    for n in range(MAX_ENDED + 10):
        runner.submit("run", f"r{n}", {}).state = "finished"
        runner.queue.clear()
    assert len(runner.jobs) <= MAX_ENDED + 1


def _wait_for_event(served: Served, job: str, kind: str) -> None:
    """Read job ``job``'s events as its page does until one of ``kind`` comes (the
    test fails if the job ends first)."""
    with (
        served.client(cookies=served.cookies()) as http,
        http.stream("GET", f"/jobs/{job}/events") as sent,
    ):
        for line in sent.iter_lines():
            name, _, value = line.partition(":")
            if name == "event" and value.strip() in (kind, "end"):
                assert value.strip() == kind, f"job {job} ended before a {kind} event"
                return
    raise AssertionError(f"job {job}'s events stopped before a {kind} event")


def test_a_real_server_refuses_a_run_past_its_queue_in_words(tmp_path):
    """One run at a time: a run that waits for its plan's review holds the slot, the
    queue is filled behind it, and the next run, from the start form or Run again, is
    refused with a reason a user understands, no path in it; nothing is queued."""
    from cli_support import demo_runs_dir

    from webapp.runner import MAX_QUEUED

    runs = demo_runs_dir(tmp_path / "runs")
    past = "20260107-000000-abcdef"
    _run(runs, past, {"question": "Queued?", "status": "finished", "exit_code": 3})
    with serve(runs, runs_at_once=1) as server:
        form = {"csrf": server.csrf(), "question": "", "demo": "on", "review_plan": "on"}
        origin = {"Origin": server.url}
        with server.client(cookies=server.cookies()) as http:
            first = http.post("/jobs", data=form, headers=origin)
            assert first.status_code == 303, first.text
            _wait_for_event(server, first.headers["location"].rsplit("/", 1)[1], "plan_review")
            for _ in range(MAX_QUEUED):
                assert http.post("/jobs", data=form, headers=origin).status_code == 303
            listed = http.get("/").text.count("data-job-state")
            refusals = [
                http.post("/jobs", data=form, headers=origin),
                http.post(f"/runs/{past}/again", data={"csrf": form["csrf"]}, headers=origin),
            ]
            assert http.get("/").text.count("data-job-state") == listed == MAX_QUEUED + 1
        said = "Too many runs are waiting already: try again once some have started."
        for refused in refusals:
            assert refused.status_code == 503, refused.text[-500:]
            assert said in refused.text
            assert str(tmp_path) not in refused.text
            assert not re.search(r"\b[A-Z]\w*(Error|Exception)\b", refused.text)


def _upload(name: str, data: bytes) -> SimpleNamespace:
    return SimpleNamespace(filename=name, file=io.BytesIO(data))


def test_look_alike_names_are_one_name_and_a_failed_upload_leaves_nothing(tmp_path):
    from webapp.uploads import UploadRefused, check_uploads, save_uploads

    composed, decomposed = "caf\u00e9.txt", "cafe\u0301.txt"
    with pytest.raises(UploadRefused, match="two files are named"):
        check_uploads([_upload(composed, b"a"), _upload(decomposed, b"b")])
    (only,) = check_uploads([_upload(decomposed, b"b")])
    assert only.name == composed

    class Failing(io.BytesIO):
        def read(self, *args):
            raise OSError("the disk is full")

    good = check_uploads([_upload("a.txt", b"a"), _upload("b.txt", b"b")])
    broken = SimpleNamespace(name="c.txt", file=SimpleNamespace(file=Failing()), size=1)
    root = tmp_path / "uploads"
    with pytest.raises(OSError, match="disk is full"):
        save_uploads([*good, broken], root, "job1")
    assert list(root.iterdir()) == []  # neither the folder nor the files written before
    folder = save_uploads(good, root, "job1")
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt", "b.txt"]
    assert [p.name for p in root.iterdir()] == ["job1"]


def test_a_refused_upload_does_not_show_the_runs_folder(tmp_path):
    """The page says the disk refused the files; where the runs folder is stays unsaid."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    runs = tmp_path / "runs"
    runs.mkdir()
    guard = Guard("127.0.0.1", 8765)
    app = build_app(runs, guard)
    (runs / ".uploads").write_text("not a folder", encoding="utf-8")  # the disk refuses
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    page = client.post(
        f"/jobs?csrf={guard.csrf}",
        data={"csrf": guard.csrf, "question": "x"},
        files={"files": ("a.txt", b"a")},
        headers={"Origin": "http://127.0.0.1:8765"},
    )
    assert page.status_code == 400 and "the disk refused them" in page.text
    assert str(runs) not in page.text and str(tmp_path) not in page.text


def test_a_model_without_its_key_is_refused_when_the_form_is_sent(tmp_path, monkeypatch):
    """The start form checks the model as the command line does, before any run starts,
    and says what is wrong in words (no exception's class name on any page)."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.runner import plain_reason
    from webapp.security import Guard

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    runs = tmp_path / "runs"
    runs.mkdir()
    guard = Guard("127.0.0.1", 8765)
    client = TestClient(build_app(runs, guard), base_url="http://127.0.0.1:8765")
    origin = {"Origin": "http://127.0.0.1:8765"}
    for model, said in (
        ("openai:gpt-4o-mini", "needs the environment variable OPENAI_API_KEY"),
        ("acme:big", "or PROVIDER:NAME with PROVIDER one of openai"),
    ):
        form = {"csrf": guard.csrf, "question": "What is x?", "model": model}
        page = client.post("/jobs", data=form, headers=origin)
        assert page.status_code == 400 and said in page.text, page.text[-500:]
        assert "Error" not in page.text.split("<main", 1)[-1]  # no ModelSpecError and such
    assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == []
    assert plain_reason(KeyError()) == "the run failed without saying why"
    assert plain_reason(ValueError("the plan is empty")) == "the plan is empty"


def test_a_resume_whose_model_has_no_key_is_refused_when_it_is_sent(tmp_path, monkeypatch):
    """A stopped run goes on with the model it started with: when that model's key is not
    set, its Resume is refused in words as it is sent, as the start form refuses such a
    model, rather than queued to fail once its worker has loaded."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = {"model": "openai:gpt-4o-mini", "formats": ["md"]}
    record = {"question": "What is x?", "status": "interrupted", "exit_code": 130}
    run = _run(tmp_path / "runs", "20260101-000000-aaaaaa", {**record, "settings": settings})
    checkpoint = {"question": "What is x?", "settings": settings}
    (run / "internal" / "checkpoint.json").write_text(json.dumps(checkpoint), encoding="utf-8")
    guard = Guard("127.0.0.1", 8765)
    app = build_app(run.parent, guard)
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        sent = client.post(
            f"/runs/{run.name}/resume",
            data={"csrf": guard.csrf},
            headers={"Origin": "http://127.0.0.1:8765"},
        )
        jobs = dict(app.app.state.app.runner.jobs)
    assert sent.status_code == 409, sent.status_code
    said = (
        "This run cannot be resumed now with its model openai:gpt-4o-mini: this model needs "
        "the environment variable OPENAI_API_KEY; it is not set."
    )
    assert said in sent.text, sent.text[-800:]
    assert "Error" not in sent.text.split("<main", 1)[-1]
    assert jobs == {}


def test_the_start_form_lists_the_models_and_which_keys_are_set(tmp_path, monkeypatch):
    """The model field offers every provider, and the page says which of them have their
    key set and which variable the others need, never showing a key."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    secret = "sk-start-form-test-4471"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    runs = tmp_path / "runs"
    runs.mkdir()
    guard = Guard("127.0.0.1", 8765)
    page = TestClient(build_app(runs, guard), base_url="http://127.0.0.1:8765").get("/")
    assert page.status_code == 200
    listed = re.findall(r'<option value="([^"]+)">', page.text.split('id="models"', 1)[1])
    assert listed[:1] == ["offline"] and {"openai:", "anthropic:", "ollama:"} <= set(listed)
    keys = page.text.split('id="model-keys"', 1)[1].split("</p>", 1)[0]
    assert 'data-provider="openai" data-ready="yes">openai: key set' in keys
    assert 'data-provider="anthropic" data-ready="no">anthropic: set ANTHROPIC_API_KEY' in keys
    assert 'data-provider="ollama" data-ready="yes">ollama: no key needed' in keys
    assert secret not in page.text


def test_the_start_page_says_when_no_web_can_be_reached(tmp_path, monkeypatch):
    """Every search source pointed at a closed port: the start page says the question
    will be answered from the user's files, before anything starts; one source that
    answers is enough for the notice to go (looked at again once it is stale)."""
    from starlette.testclient import TestClient

    from subagents.search.sources import BUILT_IN
    from webapp import app as app_module
    from webapp.app import build_app
    from webapp.security import Guard

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead = closed.getsockname()[1]
    closed.close()
    for name in BUILT_IN:
        monkeypatch.setenv(f"QUARTET_{name.upper()}_URL", f"http://127.0.0.1:{dead}")
    runs = tmp_path / "runs"
    runs.mkdir()
    guard = Guard("127.0.0.1", 8765)
    client = TestClient(build_app(runs, guard), base_url="http://127.0.0.1:8765")
    page = client.get("/")
    assert page.status_code == 200 and 'id="no-web"' in page.text
    assert "answered from your files alone" in page.text
    with socket.socket() as live:
        live.bind(("127.0.0.1", 0))
        live.listen()
        monkeypatch.setenv("QUARTET_WIKI_URL", f"http://127.0.0.1:{live.getsockname()[1]}")
        monkeypatch.setattr(app_module, "REACH_FRESH", -1.0)
        again = client.get("/")
    assert again.status_code == 200 and 'id="no-web"' not in again.text


def test_runs_are_listed_by_what_happened_not_by_exit_code(tmp_path):
    """A run that found nothing is not shown as a green "finished (3)"."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    runs = tmp_path / "runs"
    _run(
        runs, "20260101-000000-aaaaaa", {"question": "Found?", "status": "finished", "exit_code": 0}
    )
    _run(
        runs, "20260101-000001-aaaaaa", {"question": "None?", "status": "finished", "exit_code": 3}
    )
    _run(
        runs,
        "20260101-000002-aaaaaa",
        {"question": "Cut?", "status": "interrupted", "exit_code": 130},
    )
    client = TestClient(build_app(runs, Guard("127.0.0.1", 8765)), base_url="http://127.0.0.1:8765")
    listing = client.get("/runs").text
    assert '<span class="state state-finished">finished</span>' in listing
    assert '<span class="state state-not-found">finished: found nothing</span>' in listing
    assert '<span class="state state-interrupted">stopped early, report written</span>' in listing
    assert "(3)" not in listing and "(130)" not in listing
    page = client.get("/runs/20260101-000001-aaaaaa").text
    assert 'id="run-status">finished: found nothing</span>' in page


def test_a_form_sent_wrong_comes_back_with_the_reason_and_what_was_written(tmp_path):
    """An empty question, or a bad budget, sends the start form back with the reason
    above it and the question and demo choice kept; nothing is started."""
    from starlette.testclient import TestClient

    from webapp.app import build_app
    from webapp.security import Guard

    runs = tmp_path / "runs"
    runs.mkdir()
    guard = Guard("127.0.0.1", 8765)
    client = TestClient(build_app(runs, guard), base_url="http://127.0.0.1:8765")
    origin = {"Origin": "http://127.0.0.1:8765"}
    empty = client.post("/jobs", data={"csrf": guard.csrf, "question": "  "}, headers=origin)
    assert empty.status_code == 400 and 'id="start"' in empty.text
    assert 'role="alert" id="form-error">Write the question to research' in empty.text
    form = {"csrf": guard.csrf, "question": "Why did the ferry stop?", "demo": "on"}
    bad = client.post("/jobs", data={**form, "max_pages": "lots"}, headers=origin)
    assert bad.status_code == 400 and "max-pages must be a number" in bad.text
    assert ">Why did the ferry stop?</textarea>" in bad.text
    assert 'id="demo" name="demo" checked' in bad.text
    assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == []


def test_resume_is_offered_only_where_a_checkpoint_lets_it_work(tmp_path, capsys):
    """A run stopped at once during start-up left no checkpoint: it is stopped, not
    resumable, and its page offers Run again, not Resume; one that left a checkpoint
    offers Resume."""
    import argparse

    from starlette.testclient import TestClient

    from host.durability.runs import CHECKPOINT_JSON, read_run
    from quartet.cli.runs import cmd_show
    from webapp.app import build_app
    from webapp.security import Guard

    runs = tmp_path / "runs"
    early = _run(runs, "20260101-000000-aaaaaa", {"question": "Early?", "status": "stopped"})
    later = _run(runs, "20260101-000001-aaaaaa", {"question": "Later?", "status": "stopped"})
    (later / CHECKPOINT_JSON).write_text("{}", encoding="utf-8")
    assert not read_run(early).summary.resumable and read_run(later).summary.resumable
    assert read_run(early).summary.told == "stopped"
    args = argparse.Namespace(runs_dir=str(runs), run_id=early.name, json=False)
    assert cmd_show(args) == 0
    shown = capsys.readouterr().out
    assert "there is nothing to resume" in shown and "quartet resume" not in shown
    client = TestClient(build_app(runs, Guard("127.0.0.1", 8765)), base_url="http://127.0.0.1:8765")
    page = client.get(f"/runs/{early.name}").text
    assert 'id="resume"' not in page and "there is nothing to resume" in page
    assert f'action="/runs/{early.name}/again"' in page  # "Run again" in its place
    resumable = client.get(f"/runs/{later.name}").text
    assert 'id="resume"' in resumable and 'id="again"' not in resumable


# -- failures told in words -------------------------------------------------------------


def _broken_for_q2() -> type:
    """A browser brain that raises on the second part only."""
    from host.brains.offline import OfflinePolicy
    from host.core.stages import find_context

    class BrokenForQ2(OfflinePolicy):
        async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
            if find_context(messages).get("subquestion_id") == "q2":
                raise RuntimeError("browser brain crashed on q2")
            return await super().__call__(messages, tools, tool_choice, **kwargs)

    return BrokenForQ2


def _ends_after_planning() -> type:
    """A Host that fails once it has planned the run."""
    from host.orchestration.hub import Host

    class EndsAfterPlanning(Host):
        async def _begin(self, *args, **kwargs):
            await super()._begin(*args, **kwargs)
            raise RuntimeError("the research could not begin")

    return EndsAfterPlanning


#: A run recorded by an older version: a failure's reason led by its class name.
OLDER_FAILURE = "20260103-000000-ffffff"


@pytest.fixture(scope="module")
def failed_runs(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """Two runs of the demo on the offline brain: one whose browser task on q2 raises (the
    run goes on and finishes), one that fails as a whole once planned; and a record of an
    older version's failed run."""
    from research_support import host_with, run_demo

    runs = tmp_path_factory.mktemp("failed") / "runs"
    host, result, _ = run_demo(runs, formats=("md",), host_cls=host_with(_broken_for_q2()))
    before = {p.name for p in runs.iterdir()}
    with pytest.raises(RuntimeError, match="could not begin"):
        run_demo(runs, formats=("md",), host_cls=_ends_after_planning())
    (failed,) = {p.name for p in runs.iterdir()} - before
    older = {"question": "Older?", "status": "finished", "exit_code": 1}
    _run(runs, OLDER_FAILURE, {**older, "errors": ["RuntimeError: the site went away"]})
    return SimpleNamespace(runs=runs, host=host, result=result, failed=failed)


def test_a_failed_task_is_told_without_its_class_name(failed_runs, capsys, monkeypatch):
    """A task whose brain raises: the closing table, ``quartet show`` and the run page
    say why in words ("browser brain crashed on q2"), never "RuntimeError"."""
    from dataclasses import replace

    from quartet.cli import main
    from quartet.cli.running import report

    result = failed_runs.result
    assert any(d.status == "failed" for d in result.delegations)
    monkeypatch.setenv("COLUMNS", "250")  # the closing table's rows on one line each
    report(result, replace(failed_runs.host.settings, quiet=False, json_output=False))
    assert main(["show", "--runs-dir", str(failed_runs.runs), result.run.id]) == 0
    printed = capsys.readouterr().out
    assert "crashed on q2" in printed and "RuntimeError" not in printed
    with serve(failed_runs.runs) as server, server.client() as http:
        page = http.get(f"/runs/{result.run.id}")
    assert page.status_code == 200
    assert "crashed on q2" in page.text and "RuntimeError" not in page.text


def test_a_failed_run_is_listed_as_failed_with_its_reason(failed_runs, capsys):
    """The runs list (web and ``quartet runs``) says "failed: <why>" of a run that ended
    without a report, its reason in words (a class name in an older record left out);
    so does the start page's list of the session's runs."""
    from quartet.cli import main
    from webapp.runner import Job

    said = {
        failed_runs.failed: "failed: the research could not begin",
        OLDER_FAILURE: "failed: the site went away",
    }
    assert main(["runs", "--runs-dir", str(failed_runs.runs)]) == 0
    printed = capsys.readouterr().out
    assert all(words in printed for words in said.values()), printed
    assert "RuntimeError" not in printed
    with serve(failed_runs.runs) as server, server.client() as http:
        listing = http.get("/runs")
        page = http.get(f"/runs/{failed_runs.failed}")
    assert listing.status_code == 200 and "RuntimeError" not in listing.text
    for run_id, words in said.items():
        assert f'<span class="state state-failed">{words}</span>' in _row(listing.text, run_id)
    assert f'id="run-status">{said[failed_runs.failed]}</span>' in page.text
    job = Job("j1", "run", "q", {})
    job.set_state("failed", reason="the plan is empty")
    assert job.told == "failed: the plan is empty"
