"""A running ``quartet serve`` for the web app's tests, and a few requests to it."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from ports import free_port

if TYPE_CHECKING:
    from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60.0
#: The two sizes the pages are tried at: a desk's screen and a phone's.
DESK, PHONE = (1280, 800), (390, 844)
#: A test run once at each of the two sizes (its ``size`` argument).
SIZES = pytest.mark.parametrize("size", [DESK, PHONE], ids=["desk", "phone"])


@dataclass
class Served:
    """A server: its address, its runs folder, its log and the token it printed."""

    url: str
    runs_dir: Path
    log: Path
    token: str | None
    proc: subprocess.Popen[bytes]

    def client(self, **kwargs: object) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60, **kwargs)  # type: ignore[arg-type]

    def csrf(self) -> str:
        """The CSRF token the app's forms carry (read from its start page)."""
        with self.client(cookies=self.cookies()) as http:
            page = http.get("/").text
        found = re.search(r'name="csrf" value="([^"]+)"', page)
        assert found, page[:500]
        return found.group(1)

    def cookies(self) -> dict[str, str]:
        return {"quartet_token": self.token} if self.token else {}


@contextlib.contextmanager
def serve(
    runs_dir: Path,
    host: str = "127.0.0.1",
    env: dict[str, str] | None = None,
    runs_at_once: int = 2,
) -> Iterator[Served]:
    """Run ``quartet serve`` on a free port until the block ends (then Ctrl-C).

    The server holds no key or token, and its search sources are at a loopback address
    nothing answers (see :func:`no_web`) unless ``env`` says otherwise: its start page
    looks for the web there, and a run not on the demo's web searches nothing else.
    """
    port = free_port()
    log = runs_dir.parent / f"serve-{port}.log"
    environment = {
        k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN", "_BASE_URL"))
    }
    environment |= no_web() | (env or {})
    cmd = [
        sys.executable,
        "-m",
        "quartet",
        "serve",
        "--host",
        host,
        "--port",
        str(port),
        "--runs-dir",
        str(runs_dir),
        "--runs-at-once",
        str(runs_at_once),
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=environment, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        text = ""
        while "serving" not in text:
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, f"the server did not start: {text}"
            time.sleep(0.1)  # polling the log for the start line
            text = log.read_text(encoding="utf-8", errors="replace")
        token = re.search(r"\?token=([A-Za-z0-9_-]+)", text)
        url = f"http://127.0.0.1:{port}"
        while True:  # the start line is printed just before the socket listens
            with contextlib.suppress(httpx.TransportError):
                httpx.get(url + "/favicon.ico", timeout=5)
                break
            assert time.monotonic() < deadline, "the server does not answer"
            time.sleep(0.1)
        yield Served(url, runs_dir, log, token.group(1) if token else None, proc)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def no_web() -> dict[str, str]:
    """The variables that send every search source to a loopback port nothing listens
    on: a machine without the web, whatever this one reaches."""
    from subagents.registry_value import source_names

    unanswered = f"http://127.0.0.1:{free_port()}"
    return {f"QUARTET_{name.upper()}_URL": unanswered for name in source_names()}


def viewport(size: tuple[int, int]) -> dict[str, int]:
    """A browser context's ``viewport`` of ``size`` (width, height)."""
    return {"width": size[0], "height": size[1]}


def tree(folder: Path) -> list[str]:
    """Every path under ``folder`` (to check that nothing was written there)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def shot(page: Page, folder: Path, name: str) -> None:
    """A screenshot of the whole page under ``folder`` (``<name>-<width>.png``), and no
    sideways scrolling."""
    width = page.viewport_size["width"] if page.viewport_size else 0
    path = folder / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width, name
