"""Python child processes for the tests that need several real processes: a script run
with the repository on its path, its output read by a thread so that every wait has a
deadline, and its end forced when the test ends."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Seconds any wait on a child process may take before the test fails.
WAIT = 60.0


class Child:
    """A Python child process running ``source`` with ``args``.

    Args:
        tmp_path: where its script and its error output are kept.
        source: the script.
        args: its command-line arguments.
        heard: called with the child and each line it prints, in the thread that reads
            them (the line is kept for :meth:`line` too), so that a test can wait for
            the first of several children to say something.
    """

    def __init__(
        self,
        tmp_path: Path,
        source: str,
        *args: str,
        heard: Callable[[Child, str], None] | None = None,
    ) -> None:
        script = tmp_path / f"child-{id(self)}.py"
        script.write_text(source, encoding="utf-8")
        self.errors = tmp_path / f"child-{id(self)}.err"
        self._heard = heard
        path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        with self.errors.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(script), *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                text=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": path},
            )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.endswith("\n"):  # a line cut short by a kill was never reported
                self._lines.put(line.rstrip("\n"))
                if self._heard is not None:
                    self._heard(self, line.rstrip("\n"))
        self._lines.put(None)

    def line(self) -> str | None:
        """The next line printed, or None once the child's output has ended."""
        try:
            return self._lines.get(timeout=WAIT)
        except queue.Empty:
            pytest.fail(f"no output from the child in {WAIT:.0f} s: {self.stderr()}")

    def expect(self) -> str:
        """The next line printed; the test fails when the child ended first."""
        line = self.line()
        if line is None:
            pytest.fail(f"the child ended early: {self.stderr()}")
        return line

    def rest(self) -> list[str]:
        """Every line printed until the child's output ends."""
        return list(iter(self.line, None))

    def send(self, text: str) -> None:
        """Write ``text`` to the child's standard input."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def stderr(self) -> str:
        """The end of what the child wrote to its standard error."""
        return self.errors.read_text(encoding="utf-8", errors="replace")[-2000:]

    def stop(self) -> None:
        """Kill the child when it still runs, and wait for it."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(WAIT)
