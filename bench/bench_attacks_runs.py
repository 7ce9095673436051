"""The run-folder, recording and terminal attack corpus against the command line.

    .venv/bin/python bench/bench_attacks_runs.py

What a run folder, a recording or a questions file from elsewhere can do to the machine
that opens it, and what text can do to the terminal. Classes:

- tampered key names: a recording whose ``settings.key_names`` lists ``PYTHONPATH``,
  ``LD_PRELOAD``, ``PATH`` and others is replayed from a folder holding
  ``replay-placeholder-pythonpath/sitecustomize.py``; bypassed when a listed variable
  other than the project's own keys is set during the replay, or the trap's code runs;
- run id path escapes: ``show``, ``resume`` and ``replay`` given an absolute path,
  ``../``, ``ID/../..``, ``..`` or ``.`` as run id; bypassed unless the command ends with
  "no run" (exit 2) and the folder outside the runs folder is untouched;
- foreign input folder: a checkpoint or recording naming a local folder (or ``/``) as
  its input folder; bypassed when the command mounts it as ``/userinput/`` without the
  user having given it or confirmed it (also at a terminal answering "n");
- terminal escapes: OSC 8 links, clear-screen, 8-bit CSI, title changes, carriage
  returns and a right-to-left override in a run's question, plan, errors, status,
  report path and folder name, shown by ``runs``, ``show`` (text and ``--json``) and in
  a batch's progress; bypassed when any of those characters reaches the output;
- rich markup: ``[/b]`` and friends in a ``demo --question``, a ``--plan`` part and a
  batch question; bypassed when the run ends without its report or with a MarkupError;
- broken pipe: ``runs``, ``runs --json``, ``tools``, ``tools --json``, ``show`` and
  ``--version`` with their stdout closed at once; bypassed on a traceback or an exit
  status other than 141.

Each attack runs the real command line (``quartet.cli.main``) in a child process of this
script (``--child``), which watches from outside: the variables set while a replay runs,
and (for the input-folder class) the folder a resume or replay would mount, stopping it
there. Crashed/hung: a traceback, an unexpected exit status, or no end within the
deadline. Peak memory per call is the growth of the child's resident set during the
command (its kernel high-water mark, reset at the start), or a worker process's peak,
whichever is larger; above 512 MB counts as bypassed. Everything stays on the machine.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import pty
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from attack_tally import MiB, Tally, print_table  # noqa: E402

MAX_CALL_MB = 512
DEADLINE_S = 300
RUN_DEADLINE_S = 900
#: Variables a tampered recording lists as "key names".
FOREIGN_NAMES = (
    "PYTHONPATH",
    "LD_PRELOAD",
    "PATH",
    "HOME",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONINSPECT",
    "QUARTET_NETWORK",
    "QUARTET_ALLOW_HOSTS",
    "HTTPS_PROXY",
)
OWN_KEY = "GITHUB_TOKEN"
#: Exit status of the child when the input-folder spy stopped the command at its mount.
MOUNTED = 99
CONTROLS = (
    "How \x1b]8;;https://evil.example/\x1b\\was\x1b]8;;\x1b\\ it \x1b[2J\x1b[Hbuilt"
    "\x9b2J\x1b]0;pwned\x07\rand \u202eused?"
)
MARKUP = "How was the Grand Canal built [/b]? [bold red]Who[/] paid [link=https://evil.example]"
#: What no output may contain: ESC, 8-bit CSI/OSC/ST, BEL, CR, the other C0 controls but
#: newline and tab, and the bidirectional overrides.
FORBIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


# -- the child: one command line, watched ------------------------------------------------


def _kib(name: str) -> int:
    match = re.search(rf"^{name}:\s+(\d+) kB", Path("/proc/self/status").read_text(), re.M)
    return int(match.group(1)) if match else 0


def child(out: Path, stop_at_mount: bool, argv: list[str]) -> None:
    """Run ``quartet ARGV`` here, noting what the parent judges, into ``out`` at exit."""
    from host.durability.run_folder import RunFolder
    from quartet.cli import entry, rerun

    seen: dict[str, Any] = {"env": None, "mounted": None}
    real_run, real_open = rerun.run_async, RunFolder.open.__func__  # type: ignore[attr-defined]

    def run_async(work: Any) -> Any:  # the replay's work runs here, placeholders set
        if seen["env"] is None:
            seen["env"] = {name: os.environ.get(name) for name in (*FOREIGN_NAMES, OWN_KEY)}
        return real_run(work)

    def open_run(cls: type, path: Path, input_dir: Path | None = None) -> Any:
        seen["mounted"] = str(input_dir) if input_dir else None
        if stop_at_mount:
            raise SystemExit(MOUNTED)
        return real_open(cls, path, input_dir)

    rerun.run_async = run_async  # type: ignore[assignment]
    RunFolder.open = classmethod(open_run)  # type: ignore[method-assign,assignment]
    base = _kib("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak to the current set

    def report() -> None:
        workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        peak = max((_kib("VmHWM") - base) / 1024, workers)
        out.write_text(json.dumps({**seen, "peak_mb": peak}))

    atexit.register(report)
    raise SystemExit(entry.main(argv))


# -- the parent ----------------------------------------------------------------------------


@dataclass
class Outcome:
    code: int | None
    out: str
    err: str
    seen: dict[str, Any] = field(default_factory=dict)
    peak_mb: float = 0.0

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.err


def quartet(
    argv: list[str],
    *,
    work: Path,
    cwd: Path = ROOT,
    close_stdout: bool = False,
    answer: str | None = None,
    stop_at_mount: bool = False,
    env: dict[str, str] | None = None,
    timeout: float = DEADLINE_S,
) -> Outcome:
    """``quartet ARGV`` in a watched child; ``answer`` is typed at a terminal (a pty)."""
    out_file = Path(tempfile.mkstemp(dir=work, suffix=".json")[1])
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(out_file)]
    cmd += ["--stop-at-mount"] if stop_at_mount else []
    master = slave = None
    stdin: Any = subprocess.DEVNULL
    stderr: Any = subprocess.PIPE
    if answer is not None:
        master, slave = pty.openpty()
        stdin = stderr = slave
    proc = subprocess.Popen(
        [*cmd, "--", *argv],
        cwd=cwd,
        env=env or base_env(),
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    if slave is not None:
        os.close(slave)
    if close_stdout:
        assert proc.stdout is not None
        proc.stdout.close()
    if master is not None:
        os.write(master, (answer or "").encode() + b"\n")
    try:
        if close_stdout:
            assert proc.stderr is not None
            out, err = "", proc.stderr.read()
            proc.wait(timeout=timeout)
        else:
            out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return Outcome(None, "", "hung")
    if master is not None:
        err = _drain(master)
    try:
        record = json.loads(out_file.read_text() or "{}")
    except ValueError:
        record = {}
    return Outcome(proc.returncode, out or "", err or "", record, record.get("peak_mb", 0.0))


def _drain(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode("utf-8", "replace")


def base_env() -> dict[str, str]:
    """This environment without credentials (no attack needs one)."""
    return {k: v for k, v in os.environ.items() if not k.endswith(("_KEY", "_TOKEN"))}


@dataclass
class Attack:
    kind: str
    tool: str
    note: str
    go: Callable[[], Outcome]
    #: Judges a finished command: True when the attack was refused.
    refused: Callable[[Outcome], bool]
    #: Exit statuses that are an ordinary end of the command.
    codes: tuple[int, ...] = (2,)
    #: Whether the attack got through, even when the command then crashed.
    breached: Callable[[Outcome], bool] | None = None


def judge(attack: Attack, tally: Tally) -> None:
    tally.tried += 1
    started = time.perf_counter()
    outcome = attack.go()
    took = time.perf_counter() - started
    print(
        f"  {attack.kind}: {attack.tool} {attack.note}: exit {outcome.code}, {took:.1f} s, "
        f"peak {outcome.peak_mb:.0f} MB",
        file=sys.stderr,
    )
    tally.rss = max(tally.rss, int(outcome.peak_mb * MiB))
    if attack.breached is not None and attack.breached(outcome):
        tally.bypassed += 1
        tally.notes.append(f"{attack.tool} {attack.note}: got through, exit {outcome.code}")
    elif outcome.code not in attack.codes or outcome.traceback:
        tally.crashed += 1
        tally.notes.append(
            f"{attack.tool} {attack.note}: exit {outcome.code} {outcome.err[-300:]!r}"
        )
    elif attack.refused(outcome) and outcome.peak_mb < MAX_CALL_MB:
        tally.refused += 1
    else:
        tally.bypassed += 1
        tally.notes.append(
            f"{attack.tool} {attack.note}: exit {outcome.code} {outcome.seen} "
            f"{(outcome.out + outcome.err)[-300:]!r}"
        )


class Corpus:
    """The recording, the run folders and the files the attacks use, under ``base``."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.runs = base / "runs"
        self.victim = base / "victim"
        self.victim.mkdir()
        (self.victim / "secret.txt").write_text("the victim's private notes", encoding="utf-8")
        self.own = base / "own"
        self.own.mkdir()
        self.trap = base / "cwd"
        (self.trap / "replay-placeholder-pythonpath").mkdir(parents=True)
        self.marker = base / "the-recording-ran-code"
        (self.trap / "replay-placeholder-pythonpath" / "sitecustomize.py").write_text(
            f"open({str(self.marker)!r}, 'w').write('ran')\n", encoding="utf-8"
        )
        self.recording: Path | None = None

    def build_demo(self) -> None:
        """Build the demo site and inputs in the runs folder once, before the attacks, so
        that no attack's peak memory includes building them."""
        script = "import sys; from pathlib import Path; from demo.web import cached_inputs, "
        script += "cached_site; c = Path(sys.argv[1]); cached_site(c); cached_inputs(c)"
        cache = self.runs / ".demo-cache"
        cache.mkdir(parents=True)
        subprocess.run([sys.executable, "-c", script, str(cache)], cwd=ROOT, check=True)

    def record(self) -> None:
        """A recorded demo run, the original of every tampered recording."""
        argv = ["demo", "--record", "--formats", "md", "--quiet", "--runs-dir", str(self.runs)]
        outcome = quartet(argv, work=self.base, timeout=RUN_DEADLINE_S)
        found = [p for p in self.runs.iterdir() if (p / "internal" / "tape").is_dir()]
        if outcome.code != 0 or not found:
            raise SystemExit(f"the demo run to record failed: {outcome.err[-2000:]}")
        self.recording = found[0]

    def copy(self, name: str, into: Path | None = None, **settings: Any) -> Path:
        """A copy of the recording named ``name``, its recorded settings changed."""
        assert self.recording is not None, "the recorded demo run failed"
        target = (into or self.runs) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.recording, target)
        path = target / "internal" / "run.json"
        record = json.loads(path.read_text(encoding="utf-8"))
        record["settings"].update(settings)
        path.write_text(json.dumps(record), encoding="utf-8")
        return target

    def stopped(self, name: str, into: Path | None = None, **settings: Any) -> Path:
        """A stopped run: a checkpoint and no run.json."""
        folder = (into or self.runs) / name
        (folder / "internal").mkdir(parents=True)
        (folder / "workspace").mkdir()
        state = {"version": 1, "question": "What is the canal used for?", "settings": settings}
        (folder / "internal" / "checkpoint.json").write_text(json.dumps(state), encoding="utf-8")
        return folder


def snapshot(folder: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
        for p in folder.rglob("*")
    )


def mounted(o: Outcome) -> str:
    """The input folder the command would have mounted ("None" when none)."""
    return str(o.seen.get("mounted"))


def markup_and_keys(c: Corpus) -> list[Attack]:
    """Markup in a demo run's question; foreign names in a recording's key names."""
    argv = ["demo", "--formats", "md", "--question", MARKUP, "--runs-dir", str(c.runs)]
    a = [
        Attack(
            "rich markup",
            "demo",
            "--question with [/b]",
            lambda: quartet(argv, work=c.base, timeout=RUN_DEADLINE_S),
            lambda o: "[/b]" in o.out,
            codes=(0, 3),
        )
    ]
    replayed: dict[str, Outcome] = {}

    def replay_keys() -> Outcome:  # one replay lists every foreign name at once
        if not replayed:
            run = c.copy("20990101-000000-keys00", key_names=[*FOREIGN_NAMES, OWN_KEY])
            argv = ["replay", run.name, "--runs-dir", str(c.runs), "--quiet"]
            replayed["o"] = quartet(argv, work=c.base, cwd=c.trap, timeout=RUN_DEADLINE_S)
        return replayed["o"]

    parent = base_env()
    for name in FOREIGN_NAMES:

        def set_or_ran(o: Outcome, name: str = name) -> bool:
            env = o.seen.get("env") or {}
            return env.get(name, parent.get(name)) != parent.get(name) or c.marker.exists()

        def untouched(o: Outcome) -> bool:
            return bool((o.seen.get("env") or {}).get(OWN_KEY))  # the own key still is set

        a.append(
            Attack("tampered key names", "replay", name, replay_keys, untouched, (0, 1), set_or_ran)
        )
    return a


def run_id_escapes(c: Corpus) -> list[Attack]:
    """Run ids naming a recorded, stopped run outside the runs folder."""
    outside = c.copy("outside", into=c.base / "elsewhere")
    state = {"version": 1, "question": "outside", "settings": {}}
    (outside / "internal" / "checkpoint.json").write_text(json.dumps(state))
    path = outside / "internal" / "run.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "status": "stopped"}))
    before = snapshot(outside)
    inside = c.stopped("20990101-000000-inside")
    rel = os.path.relpath(outside, c.runs)

    def refused(o: Outcome) -> bool:
        untouched = snapshot(outside) == before and "outside" not in o.out
        return o.code == 2 and "no run" in o.err and untouched

    a = []
    for command in ("show", "resume", "replay"):
        for note, run_id in (
            ("absolute path", str(outside)),
            ("../ path", rel),
            ("ID/../.. path", f"{inside.name}/../{rel}"),
            ("..", ".."),
            (".", "."),
        ):
            argv = [command, run_id, "--runs-dir", str(c.runs)]
            go = lambda argv=argv: quartet(argv, work=c.base, stop_at_mount=True)  # noqa: E731
            a.append(Attack("run id path escapes", command, note, go, refused, (0, 1, 2, MOUNTED)))
    return a


def foreign_inputs(c: Corpus) -> list[Attack]:
    """Checkpoints and recordings that name a local folder as their input folder."""
    demo_inputs = str(c.runs / ".demo-cache")

    def refused(o: Outcome, said: str = "--input") -> bool:
        return o.code == 2 and o.seen.get("mounted") is None and said in o.err

    def command(*argv: str, answer: str | None = None) -> Callable[[], Outcome]:
        full = [*argv, "--runs-dir", str(c.runs)]
        return lambda: quartet(
            full, work=c.base, answer=answer, stop_at_mount=True, timeout=RUN_DEADLINE_S
        )

    a = []
    for n, (note, named) in enumerate(
        (("a local folder", str(c.victim)), ("/", "/"), ("relative ../", "../victim"))
    ):
        run = c.stopped(f"20990102-000000-in{n:03d}", input_dir=named)
        go = command("resume", run.name)
        a.append(Attack("foreign input folder", "resume", f"checkpoint names {note}", go, refused))
    run = c.stopped("20990102-000000-tty000", input_dir=str(c.victim))
    a += [
        Attack(
            "foreign input folder",
            "resume",
            "at a terminal, answered n",
            command("resume", run.name, answer="n"),
            lambda o: refused(o, "[y/N]"),
            (2, MOUNTED),
        ),
        Attack(
            "foreign input folder",
            "resume",
            "with the user's --input",
            command("resume", run.name, "--input", str(c.own)),
            lambda o: mounted(o) == str(c.own),
            (MOUNTED,),
        ),
    ]
    demo = c.stopped(
        "20990102-000000-demo00", input_dir=str(c.victim), origin={"kind": "demo", "ports": [0, 0]}
    )
    a.append(
        Attack(
            "foreign input folder",
            "resume",
            "demo checkpoint names a folder",
            command("resume", demo.name),
            lambda o: mounted(o).startswith(demo_inputs),
            (MOUNTED,),
        )
    )
    for n, (note, named) in enumerate((("a local folder", str(c.victim)), ("/", "/"))):
        copy = c.copy(f"20990103-000000-rec{n:03d}", origin=None, input_dir=named)
        go = command("replay", copy.name)
        note = f"recording names {note}"
        a.append(Attack("foreign input folder", "replay", note, go, refused, (2, MOUNTED)))
    copy = c.copy("20990103-000000-rectty", origin=None, input_dir=str(c.victim))
    demo_copy = c.copy("20990103-000000-recdemo", input_dir=str(c.victim))
    a += [
        Attack(
            "foreign input folder",
            "replay",
            "at a terminal, answered n",
            command("replay", copy.name, answer="n"),
            lambda o: refused(o, "[y/N]"),
            (2, MOUNTED),
        ),
        Attack(
            "foreign input folder",
            "replay",
            "demo recording names a folder",
            command("replay", demo_copy.name),
            lambda o: mounted(o).startswith(demo_inputs),
            (MOUNTED,),
        ),
    ]
    return a


def hostile_runs(folder: Path) -> None:
    """Run folders whose run.json (and one's name) carry terminal controls."""
    for name in ("20990104-000000-escape", "20990104-000000-\x1b[2J\x1b]0;x\x07"):
        run = folder / name
        (run / "internal").mkdir(parents=True)
        (run / "workspace").mkdir()
        sub = {"id": "q1", "text": CONTROLS, "status": "answered\x1b[5m", "evidence_ids": ["e"]}
        failed = {"id": "d1", "subagent": "browser\x1b[1m", "status": "error", "error": CONTROLS}
        record = {
            "question": CONTROLS,
            "status": "finished\x1b[31m",
            "plan": {"question": CONTROLS, "subquestions": [sub]},
            "answered": 1,
            "errors": [CONTROLS],
            "outputs": ["/workspace/\x1b[2Jr.md"],
            "delegations": [failed],
        }
        (run / "internal" / "run.json").write_text(json.dumps(record), encoding="utf-8")


def batch(c: Corpus, questions: str, name: str) -> Callable[[], Outcome]:
    """``quartet batch`` of ``questions`` with a model whose key is not set: each question
    fails at once, and the progress shows it."""
    path = c.base / name
    path.write_text(questions, encoding="utf-8")
    argv = ["batch", str(path), "--model", "openai:no-key", "--retries", "0"]
    argv += ["--runs-dir", str(c.base / "batch-runs")]
    return lambda: quartet(argv, work=c.base, timeout=RUN_DEADLINE_S)


def terminal_and_markup(c: Corpus) -> list[Attack]:
    """Terminal controls shown by runs, show and a batch; markup in a plan and a batch."""
    shown = c.base / "shown"
    hostile_runs(shown)

    def clean(o: Outcome) -> bool:
        return not FORBIDDEN.search(o.out + o.err)

    def listing(*argv: str) -> Callable[[], Outcome]:
        return lambda: quartet([*argv, "--runs-dir", str(shown)], work=c.base)

    a = [
        Attack("terminal escapes", argv[0], note, listing(*argv), clean, (0,))
        for note, argv in (
            ("(text)", ["runs"]),
            ("--json", ["runs", "--json"]),
            ("(text)", ["show", "20990104-000000-e"]),
            ("--json", ["show", "20990104-000000-e", "--json"]),
            ("id with ESC", ["show", "20990104-000000-\x1b"]),
        )
    ]
    questions = f"{CONTROLS}\nWhy did the canal \x1b[8mdecline?\n"
    go = batch(c, questions, "questions.txt")
    a.append(Attack("terminal escapes", "batch", "progress of hostile questions", go, clean, (1,)))
    plan = c.base / "plan.yaml"
    plan.write_text(
        "- How was the Grand Canal built [/b]?\n"
        '- text: "Why did the Grand Canal decline [bold red]?"\n'
        '  queries: ["Grand Canal decline [/]", "Grand Canal [link=https://evil.example]"]\n',
        encoding="utf-8",
    )
    argv = ["demo", "--formats", "md", "--plan", str(plan), "--runs-dir", str(c.runs)]
    a += [
        Attack(
            "rich markup",
            "demo",
            "--plan part with [/b]",
            lambda: quartet(argv, work=c.base, timeout=RUN_DEADLINE_S),
            lambda o: "[/b]" in o.out,
            (0, 3),
        ),
        Attack(
            "rich markup",
            "batch",
            "question with [/b]",
            batch(c, f"{MARKUP}\n", "markup.txt"),
            lambda o: "[/b]" in o.err,
            (1,),
        ),
    ]
    return a


def broken_pipes(c: Corpus) -> list[Attack]:
    """Commands whose stdout is closed before they write."""
    where = ["--runs-dir", str(c.base / "shown")]
    return [
        Attack(
            "broken pipe",
            argv[0],
            note,
            lambda argv=argv: quartet(argv, work=c.base, close_stdout=True),
            lambda o: o.err == "",
            (141,),
        )
        for note, argv in (
            ("(text)", ["runs", *where]),
            ("--json", ["runs", "--json", *where]),
            ("(text)", ["tools"]),
            ("--json", ["tools", "--json"]),
            ("(text)", ["show", "20990104-000000-e", *where]),
            ("", ["--version"]),
        )
    ]


def attacks(c: Corpus) -> list[Attack]:
    return [
        *markup_and_keys(c),
        *run_id_escapes(c),
        *foreign_inputs(c),
        *terminal_and_markup(c),
        *broken_pipes(c),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", metavar="OUT", help=argparse.SUPPRESS)
    parser.add_argument("--stop-at-mount", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("argv", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child), args.stop_at_mount, args.argv)
    tallies: dict[tuple[str, str], Tally] = {}
    with tempfile.TemporaryDirectory(prefix="quartet-attacks-runs-") as tmp:
        corpus = Corpus(Path(tmp))
        print("building the demo and recording a run (a minute or two)…", file=sys.stderr)
        corpus.build_demo()
        corpus.record()
        for attack in attacks(corpus):
            judge(attack, tallies.setdefault((attack.kind, attack.tool), Tally()))
    print_table(tallies, python=False)


if __name__ == "__main__":
    main()
