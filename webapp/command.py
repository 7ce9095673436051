"""``quartet serve``: the web app, on this machine by default.

This module is imported by the CLI to build its parser, so it imports only the standard
library; the app is imported when the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_RUNS_AT_ONCE = 2

SERVE_HELP = "research in the browser: start runs, watch them live, read their reports"
SERVE_EXAMPLES = """examples:
  quartet serve                         open http://127.0.0.1:8765/ in a browser
  quartet serve --port 9000 --runs-dir /data/runs
  QUARTET_SERVE_TOKEN=... quartet serve --host 0.0.0.0

It listens on 127.0.0.1 (this machine only) unless --host names another address; then
every request needs the access token: QUARTET_SERVE_TOKEN, or a new one printed at start.
Ctrl-C stops the server; runs still working are stopped as by one Ctrl-C (a partial
report; they can be resumed)."""


def add_parser(sub: Any, runs_dir_help: str) -> argparse.ArgumentParser:
    """Add the ``serve`` command to the CLI's sub-parsers."""
    serve = sub.add_parser(
        "serve",
        help=SERVE_HELP,
        epilog=SERVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help="address to listen on (default 127.0.0.1; any other needs the access token)",
    )
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    serve.add_argument("--runs-dir", dest="runs_dir", metavar="DIR", help=runs_dir_help)
    serve.add_argument(
        "--runs-at-once",
        dest="runs_at_once",
        type=int,
        default=DEFAULT_RUNS_AT_ONCE,
        metavar="N",
        help=f"runs working at once; later ones wait in a queue (default {DEFAULT_RUNS_AT_ONCE})",
    )
    serve.set_defaults(func=run_command)
    return serve


class DemoWorld:
    """The bundled demo web, started on first use and stopped with the server."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        self.stack = contextlib.ExitStack()
        self.data: dict[str, Any] | None = None
        self.lock = threading.Lock()

    def __call__(self) -> dict[str, Any]:
        with self.lock:
            if self.data is None:
                from demo.web import demo_world

                world = self.stack.enter_context(demo_world(self.runs_dir))
                self.data = {
                    "endpoints": dict(world.endpoints),
                    "hosts": list(world.hosts),
                    "ports": list(world.ports),
                    "input_dir": str(world.input_dir),
                    "glossary": [dict(group) for group in world.glossary],
                }
            return self.data

    def close(self) -> None:
        self.stack.close()


def run_command(args: argparse.Namespace) -> int:
    """Serve the app until Ctrl-C. The command's line saying where comes at once; the
    server and the app are imported after it (about a third of a second)."""
    from host.config import ConfigError, make_runs_dir, runs_dir_setting

    from .security import TOKEN_ENV, Guard, is_loopback, new_token

    if not 0 < args.port < 65536:
        raise ConfigError(f"--port {args.port}: choose a port from 1 to 65535")
    if args.runs_at_once < 1:
        raise ConfigError("--runs-at-once must be at least 1")
    runs_dir = make_runs_dir(runs_dir_setting(args.runs_dir)).resolve()
    token = os.environ.get(TOKEN_ENV) or None
    loopback = is_loopback(args.host)
    if not loopback and token is None:
        token = new_token()
        print(f"quartet: access token (give it once as ?token=…): {token}", file=sys.stderr)
    guard = Guard(host=args.host, port=args.port, token=token)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    where = f"http://{shown}:{args.port}/"
    if token is not None and not os.environ.get(TOKEN_ENV):
        where += f"?token={token}"
    print(f"quartet: serving {runs_dir} at {where} (Ctrl-C stops it)", file=sys.stderr)
    import uvicorn

    from .app import build_app
    from .protocol import TimedH11Protocol

    demo = DemoWorld(runs_dir)
    app = build_app(runs_dir, guard, limit=args.runs_at_once, demo=demo, on_close=demo.close)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
        http=TimedH11Protocol,  # a request that stalls is not waited for
    )
    return 0
