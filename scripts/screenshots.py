"""Take the README's two screenshots of ``quartet serve``, 1280×800 PNG each.

    .venv/bin/python scripts/screenshots.py                # rewrites both images
    .venv/bin/python scripts/screenshots.py --out /tmp/s   # writes them elsewhere

It starts ``quartet serve`` on 127.0.0.1 with a runs folder of its own (a temporary
folder, removed afterwards; the demo site already built in ``runs/.demo-cache/`` is copied
into it when there is one), opens the start page in headless Chromium, asks the demo's
own question against the bundled demo web from the start form (no network, no key) and
waits for the run to end. Then:

- ``serve.png``: the run's page in the app, with each part's status, the pages read and
  the evidence kept, and the start of the report;
- ``report.png``: the run's HTML report, as the app's "Open the report on its own page"
  shows it: the question, the summary's answer lines and the first section, each quote
  with its citation.

Chromium is ``$QUARTET_BROWSER``, else Playwright's own, else ``/usr/bin/chromium``,
launched with the flags the Browser subagent uses. An image over ``--max-kb`` (400) is
reduced to 256 colours. The whole takes about a minute on two cores; it prints each part's
status, so that a run that found less than usual can be taken again.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from demo.site import DEMO_QUESTION
from subagents.browser.session import CHROMIUM_FLAGS, chromium_path

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 800
START_TIMEOUT_S = 120.0
RUN_TIMEOUT_MS = 20 * 60 * 1000
FORMATS = ("md", "html")


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serve(runs_dir: Path) -> Iterator[str]:
    """Run ``quartet serve`` on 127.0.0.1 until the block ends (then Ctrl-C); its URL."""
    import httpx

    port = free_port()
    log = runs_dir.parent / "serve.log"
    env = {k: v for k, v in os.environ.items() if k != "QUARTET_SERVE_TOKEN"}
    cmd = [sys.executable, "-m", "quartet", "serve", "--host", "127.0.0.1", "--port", str(port)]
    cmd += ["--runs-dir", str(runs_dir)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"quartet serve ended:\n{log.read_text(errors='replace')}")
            if time.monotonic() > deadline:
                raise SystemExit("quartet serve did not start in time")
            with contextlib.suppress(httpx.TransportError):
                httpx.get(url + "/favicon.ico", timeout=5)
                break
            time.sleep(0.2)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def save(png: bytes, path: Path, max_kb: int) -> None:
    """Write ``png`` to ``path``, reduced to 256 colours when it is over ``max_kb``."""
    if len(png) > max_kb * 1024:
        from PIL import Image

        image = Image.open(io.BytesIO(png)).convert("RGB")
        reduced = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=0)
        out = io.BytesIO()
        reduced.save(out, format="PNG", optimize=True)
        png = out.getvalue()
    path.write_bytes(png)
    print(f"{path} ({len(png) // 1024} KB)")


def take(url: str, out: Path, max_kb: int) -> None:
    """Start the demo run from the form, wait for it, and take both screenshots."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(os.environ.get("QUARTET_BROWSER")),
            args=list(CHROMIUM_FLAGS),
        )
        try:
            context = browser.new_context(
                viewport={"width": WIDTH, "height": HEIGHT},
                device_scale_factor=1,
                color_scheme="light",
            )
            page = context.new_page()
            page.goto(url + "/")
            page.fill("#question", DEMO_QUESTION)
            page.check("#demo")
            page.click("details summary")
            for box in page.locator("input[name=formats]").all():
                if box.get_attribute("value") not in FORMATS:
                    box.uncheck()
            page.click("#start button[type=submit]")
            page.wait_for_url("**/jobs/*")
            print(f"the demo run is under way: {page.url}")
            page.wait_for_selector("#job[data-ended=true]", timeout=RUN_TIMEOUT_MS)
            page.wait_for_selector("#result #report", timeout=RUN_TIMEOUT_MS)
            page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(500)  # the last figures and the bar's transition
            save(page.screenshot(), out / "serve.png", max_kb)

            statuses = page.locator("#parts [data-status]").all_inner_texts()
            print("parts: " + ", ".join(" ".join(s.split()) for s in statuses))
            report = page.locator("#open-report").get_attribute("href")
            page.goto(url + str(report))
            page.wait_for_load_state("load")
            save(page.screenshot(), out / "report.png", max_kb)
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT / "docs" / "images", help="folder for the two PNGs"
    )
    parser.add_argument(
        "--max-kb", type=int, default=400, help="reduce an image over this size to 256 colours"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quartet-screenshots-") as tmp:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        cache = ROOT / "runs" / ".demo-cache"
        if cache.is_dir():
            shutil.copytree(cache, runs / ".demo-cache", symlinks=True)
        with serve(runs) as url:
            take(url, args.out, args.max_kb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
