"""The command line as a user runs it."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from cli_support import demo_runs_dir, named_reports, written_report
from runs_support import make_run

from host.version import quartet_version
from quartet.cli import main
from quartet.cli.entry import BROKEN_PIPE_EXIT
from quartet.cli.parser import build_parser
from research.labels import label
from subagents import PIPELINE_ORDER, SPECS, all_tool_schemas

ROOT = Path(__file__).resolve().parent.parent
#: What light commands (help, version, runs, show, settings) must never import.
HEAVY = (
    "agentscope",
    "playwright",
    "weasyprint",
    "matplotlib",
    "pandas",
    "rich",
    "mcp",
    "ray",
)


@pytest.fixture(scope="module")
def tools_json() -> str:
    """What ``python -m quartet tools --json`` prints (one process serves both tests)."""
    return subprocess.run(
        [sys.executable, "-m", "quartet", "tools", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def test_tools_json_prints_the_builders_schemas(tools_json):
    printed = json.loads(tools_json)
    assert printed == all_tool_schemas()
    assert list(printed) == [n for n in PIPELINE_ORDER if n in SPECS]


def test_tools_text_lists_every_subagent(capsys):
    assert main(["tools"]) == 0
    out = capsys.readouterr().out
    for name in PIPELINE_ORDER:
        assert f"{name}:" in out


def test_console_script_and_python_m_host_are_the_same_command(tools_json):
    """The ``quartet`` script and ``python -m host`` (the specification's name for the
    command) run the command line ``python -m quartet`` runs."""
    script = Path(sys.executable).parent / "quartet"
    assert script.exists()
    for command in ([str(script)], [sys.executable, "-m", "host"]):
        done = subprocess.run(
            [*command, "tools", "--json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert done.stdout == tools_json, command


def test_a_crash_of_the_interpreter_prints_where_each_thread_was():
    """The command line turns on :mod:`faulthandler`: a segmentation fault in a compiled
    library says where it happened instead of ending the run silently."""
    code = (
        "import ctypes, sys; from quartet.cli import main; main(['tools']); "
        "sys.stdout.flush(); ctypes.string_at(0)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONFAULTHANDLER"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "Fatal Python error" in done.stderr and "File " in done.stderr, done.stderr[-2000:]


def test_the_script_leaves_at_once_yet_runs_its_exit_handlers_and_waits_for_threads():
    """``quartet`` ends without taking every module apart (a second with the agent
    framework loaded), but what an exit must do still happens: threads that are not
    daemons finish, exit handlers run, all output is written, the status is kept."""
    code = (
        "import atexit, sys, threading\n"
        "class Teardown:\n"
        "    def __del__(self): print('module teardown', flush=True)\n"
        "kept = Teardown()\n"
        "go = threading.Event()\n"
        "atexit.register(lambda: print('exit handler ran', flush=True))\n"
        "def late():\n"
        "    go.wait(60)\n"
        "    print('thread finished', flush=True)\n"
        "threading.Thread(target=late).start()\n"
        "threading.Thread(target=lambda: (threading.main_thread().join(), go.set()),\n"
        "                 daemon=True).start()\n"
        "sys.argv = ['quartet', 'tools']\n"
        "from quartet.cli import run\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-2:] == ["thread finished", "exit handler ran"], lines[-5:]
    assert "module teardown" not in done.stdout
    assert done.stdout.startswith("search: ")  # the command's own output, whole


def test_a_research_command_loads_the_agent_framework_without_ray():
    """agentscope imports Ray when it is imported, for an evaluator a run never uses: a
    research command loads agentscope with Ray hidden, and a later ``import ray`` (a
    batch) still finds it."""
    code = (
        "import sys\n"
        "from quartet.cli.running import load_framework\n"
        "load_framework()\n"
        "print('agentscope' in sys.modules, 'ray' in sys.modules)\n"
        "import ray\n"
        "print(ray.__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False", "ray"]


def test_bad_arguments_exit_2_with_usage():
    proc = subprocess.run(
        [sys.executable, "-m", "quartet", "fly"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def _run_cli(
    args: list[str],
    env_extra: dict[str, str] | None = None,
    timeout: int = 300,
    cwd: Path = ROOT,
) -> subprocess.CompletedProcess:
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "quartet", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_demo_command_runs_the_pipeline_and_prints_a_json_record(tmp_path):
    runs = demo_runs_dir(tmp_path)
    proc = _run_cli(["demo", "--json", "--formats", "md,html", "--runs-dir", str(runs)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    record = json.loads(proc.stdout)
    assert record["outputs"] == named_reports(record["question"], "md", "html")
    assert record["errors"] == [] and record["citations"] >= 1
    run_dir = tmp_path / record["id"]
    assert written_report(run_dir, record["outputs"], "html").stat().st_size > 1000
    assert (run_dir / "internal/run.json").exists()


def test_a_run_that_reaches_no_web_says_it_answers_from_the_files_only(tmp_path):
    closed = "http://127.0.0.1:9"
    env = {f"QUARTET_{s}_URL": closed for s in ("GOOGLE", "BING", "SOGOU", "GITHUB", "WIKI")}
    env["QUARTET_SEARCH_TIMEOUT"] = "2"
    files = tmp_path / "myfiles"
    files.mkdir()
    (files / "canal.md").write_text(
        "# The Grand Canal\n\nThe Grand Canal is a waterway of about 1,794 kilometres that "
        "links Beijing in the north with Hangzhou in the south of China.\n",
        encoding="utf-8",
    )
    runs = tmp_path / "runs"
    question = "What is the Grand Canal?"
    args = ["run", question, "--input", str(files), "--formats", "md,html"]
    proc = _run_cli([*args, "--runs-dir", str(runs)], env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = [p for p in runs.iterdir() if not p.name.startswith(".")]
    record = json.loads((run_dir / "internal/run.json").read_text(encoding="utf-8"))
    # Every source is down: the searches are made, fail and are recorded...
    searches = [d for d in record["delegations"] if d["subagent"] == "search"]
    assert searches and all(d["status"] == "ok" for d in searches)
    calls = [c for c in record["tool_calls"] if c["tool"].startswith("search_")]
    assert len(calls) >= 5 and not any(c["ok"] for c in calls)
    # ...and the user is told once, in words for a person, as every format tells it.
    told = label("en", "no_web")
    assert record["no_web"] == "no_web" and proc.stderr.count(told) == 1
    assert "try another" not in proc.stderr + proc.stdout  # advice meant for the model
    for fmt in ("md", "html"):
        assert told in written_report(run_dir, record["outputs"], fmt).read_text(encoding="utf-8")
    assert record["citations"] >= 1
    # What failed is kept for people in the cause's words, without the model's advice.
    state = json.loads((run_dir / "internal/checkpoint.json").read_text(encoding="utf-8"))
    failures = state["research"]["failures"]
    assert failures and all(f.startswith("search_") for f in failures)
    assert not any("try another" in f for f in failures)
    # The queries sent are what was searched, although no engine answered them: a report
    # lists them under "What was searched", never "Searched for: —".
    sent = {c["input"]["query"] for c in calls if (c.get("input") or {}).get("query")}
    assert sent and set(state["research"]["queries"]["q1"]) == sent


def test_bad_arguments_get_clear_errors(tmp_path):
    cases = [
        (["run", "q", "--formats", "md,docx"], "unknown docx"),
        (["run", "q", "--model", "gpt-4"], "PROVIDER:NAME"),
        (["run", "q", "--input", str(tmp_path / "missing")], "is not a folder"),
        (["run", "   "], "the question is empty"),
        (["run", "q", "--model", "openai:gpt-4o-mini"], "OPENAI_API_KEY"),
    ]
    for args, message in cases:
        proc = _run_cli([*args, "--runs-dir", str(tmp_path)], {"OPENAI_API_KEY": ""})
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert not any(tmp_path.iterdir())  # nothing was started


def _one_line_error(proc: subprocess.CompletedProcess, *parts: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("quartet: error: "), proc.stderr
    for part in parts:
        assert part in lines[0], (part, lines[0])


def test_version_is_the_packages():
    proc = _run_cli(["--version"])
    assert proc.returncode == 0
    assert proc.stdout == f"quartet {quartet_version()}\n"
    assert (
        quartet_version()
        == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    )


def test_light_commands_import_nothing_heavy(tmp_path):
    make_run(tmp_path, "20260101-000000-abcdef", record={"question": "q", "exit_code": 1})
    code = (
        "import sys, json\n"
        "import host, quartet, quartet.__main__, subagents, host.config, host.durability.runs\n"
        "from quartet.cli import main\n"
        "from quartet.cli.parser import build_parser\n"
        "build_parser().format_help()\n"
        f"main(['runs', '--runs-dir', {str(tmp_path)!r}])\n"
        f"main(['show', '20260101', '--runs-dir', {str(tmp_path)!r}])\n"
        f"main(['cache', 'stats', '--runs-dir', {str(tmp_path)!r}])\n"
        f"main(['cache', 'clear', '--runs-dir', {str(tmp_path)!r}])\n"
        "host.config.load_settings({'runs_dir': " + repr(str(tmp_path)) + "})\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []


def test_an_unknown_toml_key_stops_the_command_with_a_suggestion(tmp_path):
    (tmp_path / "quartet.toml").write_text("[quartet]\nmax_page = 3\n", encoding="utf-8")
    for args in (["run", "q"], ["demo"], ["runs"]):
        proc = _run_cli([*args, "--runs-dir", str(tmp_path / "runs")], cwd=tmp_path)
        _one_line_error(proc, "quartet.toml", "'max_page'", "did you mean max_pages?")
    assert not (tmp_path / "runs").exists()


def test_a_number_that_is_not_finite_in_quartet_toml_is_a_one_line_error(tmp_path):
    for line, named in (
        ("max_pages = inf", "max_pages: expected a finite number, got inf"),
        ("stage_timeout = nan", "stage_timeout: expected a finite number, got nan"),
        ("concurrency = 100000", "concurrency: must be positive and at most 256"),
    ):
        (tmp_path / "quartet.toml").write_text(f"[quartet]\n{line}\n", encoding="utf-8")
        proc = _run_cli(["run", "q", "--runs-dir", str(tmp_path / "runs")], cwd=tmp_path)
        _one_line_error(proc, named)
    assert not (tmp_path / "runs").exists()


def test_a_bad_runs_dir_is_a_one_line_error(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    for runs_dir, reason in (
        (a_file, "is a file, not a folder"),
        (a_file / "below", f"{a_file} is a file, not a folder"),
    ):
        for args in (["run", "q"], ["demo"], ["runs"], ["show", "x"]):
            proc = _run_cli([*args, "--runs-dir", str(runs_dir)])
            _one_line_error(proc, f"--runs-dir {runs_dir}: ", reason)
    proc = _run_cli(["run", "q"], {"QUARTET_RUNS_DIR": str(a_file)})
    _one_line_error(proc, f"--runs-dir {a_file}: ")
    assert a_file.read_text(encoding="utf-8") == "x"


def test_a_closed_pipe_ends_a_command_quietly(tmp_path):
    """``quartet runs | head -1``: the reader goes away; no traceback, the SIGPIPE status."""
    for n in range(3):
        make_run(tmp_path / "runs", f"2026030{n + 1}-090000-aaaaaa")
    for argv in (["runs", "--runs-dir", str(tmp_path / "runs")], ["tools"], ["--version"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "quartet", *argv],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # before the command has written anything
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == BROKEN_PIPE_EXIT == 141, (argv, err)
        assert err == b"", (argv, err)


def _usage_error(capsys, argv: list[str]) -> str:
    """What ``quartet ARGV`` prints on stderr when argparse refuses it (exit 2)."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    return capsys.readouterr().err


def test_options_are_never_abbreviated_and_misspellings_get_a_suggestion(capsys):
    err = _usage_error(capsys, ["run", "q", "--max-page", "5"])
    assert "unrecognized arguments: --max-page 5; did you mean --max-pages?" in err
    err = _usage_error(capsys, ["run", "q", "--formts", "md"])
    assert err.startswith("usage: quartet run ") and "did you mean --formats?" in err
    err = _usage_error(capsys, ["demi"])
    assert "invalid choice: 'demi'" in err and err.rstrip().endswith("did you mean demo?")
    err = _usage_error(capsys, ["demo", "--foo"])  # demo's own usage, not quartet's
    assert err.startswith("usage: quartet demo ") and "unrecognized arguments: --foo" in err
    assert "did you mean" not in err
    err = _usage_error(capsys, ["runs", "--runs", "x"])
    assert "did you mean --runs-dir?" in err


def _parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The top-level parser and each command's, by name."""
    found = {"quartet": parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def test_every_argument_has_help_and_every_help_ends_with_examples():
    for name, parser in _parsers(build_parser()).items():
        assert parser.allow_abbrev is False, name
        assert "examples:\n  quartet " in parser.format_help(), name
        for action in parser._actions:
            assert action.help, (name, action.dest)
    commands = _parsers(build_parser())
    assert "QUARTET_RUNS_DIR" in commands["resume"].format_help()
    assert "what to research" in commands["run"].format_help()


def test_quartet_runs_says_where_it_looked_and_how_to_look_elsewhere(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("QUARTET_RUNS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"No runs in {tmp_path / 'runs'}. ")
    assert "--runs-dir DIR" in out and "QUARTET_RUNS_DIR" in out


def test_resume_errors_name_the_run_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    make_run(Path("runs"), "20260301-090000-aaaaaa")  # stopped before its first checkpoint
    with pytest.raises(SystemExit):
        main(["resume", "20260301", "--runs-dir", "runs"])
    err = capsys.readouterr().err
    assert f"run 20260301-090000-aaaaaa stopped before its first checkpoint: {tmp_path}" in err


def test_approve_without_a_terminal_stops_before_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("host.orchestration.approval.has_terminal", lambda: False)
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as stopped:
        main(["run", "q", "--approve", "http_download", "--runs-dir", str(runs)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "no interactive terminal" in err and "[quartet.approve]" in err
    assert len(err.splitlines()) == 1 and not runs.exists()
