"""How viewer_fetch spends its work: worker processes, one HTTP transport, one parse a page."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import bs4
import lxml.html
import pytest
import trafilatura
import trafilatura.core
from browser_sites import bench_page, running_site
from browser_support import LOOPBACK_SETTINGS, stored_path, tier_of

from subagents.browser import extract, workers
from subagents.browser.download import http_download
from subagents.browser.viewer import viewer_fetch
from subagents.net.netpin import GuardedTransport

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def site():
    with running_site() as server:
        yield server


async def test_the_pool_is_other_processes_one_per_core_but_the_runs_own():
    wanted = max(1, len(os.sched_getaffinity(0)) - 1)
    assert workers.worker_count() == wanted
    assert workers.pool()._max_workers == wanted
    pids = set(await asyncio.gather(*(workers.run_in_pool(os.getpid) for _ in range(8))))
    assert os.getpid() not in pids and 1 <= len(pids) <= wanted


async def test_a_batch_of_fetches_extracts_in_the_pool_while_the_loop_keeps_running(
    site, memory_service, monkeypatch
):
    real = workers.run_in_pool
    in_flight = 0
    jobs: list[str] = []
    ticks_during_jobs = 0
    done = asyncio.Event()

    async def spy(fn, *args):
        nonlocal in_flight
        jobs.append(fn.__name__)
        in_flight += 1
        try:
            return await real(fn, *args)
        finally:
            in_flight -= 1

    async def ticker():
        nonlocal ticks_during_jobs
        while not done.is_set():
            if in_flight:
                ticks_during_jobs += 1
            await asyncio.sleep(0)

    monkeypatch.setattr(workers, "run_in_pool", spy)
    urls = [site.url(f"/bench/{i}.html") for i in range(12)]
    ticking = asyncio.create_task(ticker())
    try:
        results = await asyncio.gather(
            *(viewer_fetch(u, service=memory_service, settings=LOOPBACK_SETTINGS) for u in urls),
            viewer_fetch(
                urls[0],
                query="What does the report say?",
                service=memory_service,
                settings=LOOPBACK_SETTINGS,
            ),
        )
    finally:
        done.set()
        await ticking
    assert [r.metadata["status"] for r in results] == ["ok"] * 13
    assert {tier_of(r) for r in results} == {"http"}
    stored = await memory_service.read_text(stored_path(results[3]))
    assert "Garden report 3" in stored and "| Terrace | Tonnes |" in stored
    # pages are extracted in the pool; the one asked about is answered in this process
    assert jobs == ["html_to_markdown"] * 13
    assert ticks_during_jobs > 0


async def test_a_run_fetches_and_downloads_through_one_transport(site, memory_service, monkeypatch):
    used: list[int] = []
    real_open = GuardedTransport.open

    async def spy(self, request):
        used.append(id(self))
        return await real_open(self, request)

    monkeypatch.setattr(GuardedTransport, "open", spy)
    urls = [site.url(f"/bench/{i}.html") for i in range(20, 30)]
    first = await asyncio.gather(
        *(viewer_fetch(u, service=memory_service, settings=LOOPBACK_SETTINGS) for u in urls)
    )
    later = await viewer_fetch(
        site.url("/static/article.html"), service=memory_service, settings=LOOPBACK_SETTINGS
    )
    saved = await http_download(
        site.url("/download/table.csv"),
        "/workspace/downloads/t.csv",
        service=memory_service,
        settings=LOOPBACK_SETTINGS,
    )
    assert [r.metadata["status"] for r in [*first, later, saved]] == ["ok"] * 12
    assert len(used) >= 12 and len(set(used)) == 1


async def test_a_page_is_parsed_once_and_trafilatura_reads_that_tree(monkeypatch):
    """The page's HTML text is parsed once; link resolution, the gate's figures and
    trafilatura all use that tree (trafilatura's own fallback comparison re-parses the
    fragment it chose, which is internal to the library)."""
    text_parses: list[str] = []
    handed: list[str] = []
    ours: list[str] = []

    real_load = trafilatura.load_html

    def load_spy(content, *args, **kwargs):
        handed.append(type(content).__name__)
        if isinstance(content, str | bytes):
            text_parses.append(sys._getframe(1).f_globals["__name__"])
        return real_load(content, *args, **kwargs)

    def from_extract(name, fn):
        def wrapper(*args, **kwargs):
            if sys._getframe(1).f_globals["__name__"] == extract.__name__:
                ours.append(name)
            return fn(*args, **kwargs)

        return wrapper

    for module in (trafilatura, trafilatura.core, sys.modules["trafilatura.baseline"]):
        monkeypatch.setattr(module, "load_html", load_spy)
    for name in ("document_fromstring", "fromstring", "fragment_fromstring", "tostring"):
        monkeypatch.setattr(lxml.html, name, from_extract(name, getattr(lxml.html, name)))
    monkeypatch.setattr(bs4, "BeautifulSoup", from_extract("soup", bs4.BeautifulSoup))

    html = (
        bench_page(7)
        .decode()
        .replace("</h1>", "</h1><p>The <a href='8.html'>next report</a> follows this one.</p>")
    )
    page = extract.html_to_markdown(html, "http://127.0.0.1:9/en/7.html")
    assert page.extractor == "trafilatura" and "Garden report 7" in page.markdown
    assert "[next report](http://127.0.0.1:9/en/8.html)" in page.markdown
    assert page.visible_chars > 1000 and page.title == "Report 7"
    assert text_parses == [extract.__name__]
    assert ours == []
    assert handed.count("HtmlElement") == 1


CHILD = """
import asyncio, os, sys
from subagents.browser import workers

async def main():
    pids = set(await asyncio.gather(*(workers.run_in_pool(os.getpid) for _ in range(8))))
    print(" ".join(map(str, sorted(pids))), flush=True)
    await asyncio.Event().wait()  # holds the pool until it is killed

if __name__ == "__main__":
    asyncio.run(main())
"""


async def test_the_workers_of_a_killed_process_exit_with_it(tmp_path):
    import subprocess

    script = tmp_path / "hold_pool.py"
    script.write_text(CHILD, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    worker_pids = [int(p) for p in proc.stdout.readline().split()]
    assert worker_pids and proc.pid not in worker_pids
    proc.kill()
    # The workers (and the fork server) hold the killed process's output pipes: reading
    # them to the end returns only once every one of them has exited.
    proc.communicate(timeout=120)
    assert [pid for pid in worker_pids if _running(pid)] == []


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not exited.

    An exited worker stays a zombie until whoever adopted it reaps it, which can come a
    moment after its pipes closed; a zombie has exited.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


WARM = """
import asyncio
from subagents.browser import workers

def children():
    import os
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                line = fh.read().replace(b"\\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if parent == os.getpid():
            found.append(line)
    return found

if __name__ == "__main__":
    asyncio.run(workers.prewarm())
    live = [p for p in workers.pool()._processes.values() if p.is_alive()]
    server = any("forkserver" in line for line in children())
    print(len(live), workers.worker_count(), int(server), flush=True)
"""


async def test_prewarm_starts_every_worker_before_any_page(tmp_path):
    """A run calls ``prewarm`` as it starts: the pool's processes are then up before
    the first page is handed to them; a fork server runs beside them only when there
    are several to fork (one worker starts on its own: a server would be one more
    process holding the same libraries)."""
    import subprocess

    script = tmp_path / "warm.py"
    script.write_text(WARM, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    live, wanted, server = map(int, out.stdout.split())
    assert live == wanted
    assert server == (wanted > 1)


async def test_a_page_worker_extracts_without_the_agent_framework_or_the_language_tables():
    """A page worker imports what extraction needs, not the agent framework nor the
    language tables (each would add a hundred MiB or more to every worker); the page is
    answered in the run's own process, which holds the tables already."""
    html = (
        "<html><head><title>Locks</title></head><body><article><p>"
        + ("A pound lock holds water between two gates, and boats rise or fall in it. " * 8)
        + "</p></article></body></html>"
    )
    page = await workers.extract_html(html, "http://127.0.0.1/locks.html")
    answer = await workers.answer_from_text(
        page.markdown, "How does a pound lock work?", "http://127.0.0.1/locks.html", "/p.md"
    )
    assert answer.items and "pound lock" in answer.items[0].span
    probe = (
        "sorted({m.split('.')[0] for m in __import__('sys').modules} "
        "& {'agentscope', 'jieba', 'lemminflect', 'wordfreq'})"
    )
    loaded = await asyncio.gather(*(workers.run_in_pool(eval, probe) for _ in range(8)))
    assert loaded == [[]] * 8  # nor the language tables: the run's own process answers
