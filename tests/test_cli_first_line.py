"""``quartet run`` and ``quartet demo`` say what they research at once: the first line, on
an 80-column terminal, is the question, printed before the Host and its agents are
imported (which takes seconds), and the run's own lines follow it unchanged; ``--quiet``
and ``--json`` print no such line."""

from __future__ import annotations

import os
import subprocess
import sys

from cli_support import ROOT, shared_cache, world_env

from demo.site import DEMO_QUESTION
from demo.web import demo_world
from host.config import load_settings
from quartet.cli.running import announce

QUESTION = "How was the\x1b[31m Grand Canal\nbuilt?"
#: What the watched interpreter writes to stderr when agentscope is first imported.
IMPORTED = "<agentscope imported>"
#: ``python -m quartet`` with an import hook that says when agentscope (the Host's agents)
#: is first imported, so that the order of the lines shows what came first.
WATCHED = (
    "import sys\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'agentscope':\n"
    f"            sys.stderr.write({IMPORTED!r} + '\\n')\n"
    "            sys.stderr.flush()\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
    "import runpy\n"
    "sys.argv = ['quartet', *sys.argv[1:]]\n"
    "runpy.run_module('quartet', run_name='__main__')\n"
)


def _lines_until_agents(args: list[str], env: dict[str, str]) -> list[str]:
    """The lines ``python -m quartet ARGS`` writes to stderr until agentscope is first
    imported (that moment's line last)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WATCHED, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline()]
        while lines[-1] and IMPORTED not in lines[-1]:
            lines.append(proc.stderr.readline())
    finally:
        proc.kill()
        proc.wait(timeout=60)
    return lines


def test_the_first_line_is_the_question_before_the_agents_are_loaded(tmp_path):
    with demo_world(shared_cache()) as world:
        env = {**world_env(world), "COLUMNS": "80"}
        args = ["run", QUESTION, "--runs-dir", str(tmp_path / "runs"), "--formats", "md"]
        lines = _lines_until_agents(args, env)
    assert lines[0] == "Researching: How was the Grand Canal built?\n", lines
    assert len(lines[0].rstrip("\n")) <= 80
    assert lines[-1].strip() == IMPORTED, lines  # the agents are loaded after it


def test_the_demo_says_its_question_before_it_builds_its_web_and_loads_the_agents(tmp_path):
    args = ["demo", "--runs-dir", str(tmp_path / "runs"), "--formats", "md"]
    lines = _lines_until_agents(args, {**os.environ, "COLUMNS": "80"})
    assert lines[0] == f"Researching: {DEMO_QUESTION}\n", lines
    assert lines[-1].strip() == IMPORTED, lines


def test_quiet_and_json_runs_print_no_first_line(capsys):
    for flag in ("quiet", "json"):
        announce("How was it built?", load_settings({flag: True}))
    assert capsys.readouterr().err == ""
    settings = load_settings({"runs_dir": "somewhere"})
    announce("How was it built?", settings)
    assert settings.run_id
    assert capsys.readouterr().err == (
        f"Researching: How was it built?\nRun folder: somewhere/{settings.run_id}\n"
    )


def test_the_folder_the_first_lines_name_is_the_one_the_run_makes(tmp_path):
    """Said before the agents load, the run folder is the one the run then writes."""
    runs = tmp_path / "runs"
    args = ["run", "How was the Grand Canal built?", "--runs-dir", str(runs), "--formats", "md"]
    with demo_world(shared_cache()) as world:
        proc = subprocess.run(
            [sys.executable, "-m", "quartet", *args],
            cwd=ROOT,
            env={**world_env(world), "COLUMNS": "80"},
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert proc.returncode in (0, 3), proc.stderr[-2000:]
    first, second = proc.stderr.splitlines()[:2]
    assert first == "Researching: How was the Grand Canal built?"
    assert second.startswith("Run folder: "), second
    named = second.removeprefix("Run folder: ")
    made = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    assert [str(p) for p in made] == [named]
    assert (made[0] / "internal" / "run.json").is_file()
    # named once: the run's start does not name it again
    assert sum(named in line for line in proc.stderr.splitlines()[:6]) == 1, proc.stderr[:800]


#: ``python -m quartet`` where a Ctrl-C arrives inside a finaliser as the agents are first
#: imported: Python prints such a KeyboardInterrupt and goes on as if none had come.
SWALLOWED = (
    "import os, signal, sys\n"
    "class Finalised:\n"
    "    def __del__(self):\n"
    "        os.kill(os.getpid(), signal.SIGINT)\n"
    "        for _ in range(100000):\n"
    "            pass\n"
    "class Watch:\n"
    "    fired = False\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'agentscope' and not Watch.fired:\n"
    "            Watch.fired = True\n"
    "            Finalised()\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
    "import runpy\n"
    "sys.argv = ['quartet', *sys.argv[1:]]\n"
    "runpy.run_module('quartet', run_name='__main__')\n"
)


def test_a_ctrl_c_that_python_swallows_while_the_agents_load_still_stops_the_demo(tmp_path):
    runs = tmp_path / "runs"
    proc = subprocess.run(
        [sys.executable, "-c", SWALLOWED, "demo", "--runs-dir", str(runs), "--formats", "md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "KeyboardInterrupt" in proc.stderr  # Python said it ignored one
    assert proc.returncode == 130, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last == "quartet: interrupted before the run started; nothing was kept"
    assert not [p for p in runs.iterdir() if p.name[0].isdigit()]  # no run folder


def test_a_model_without_its_key_is_refused_before_any_folder_is_named(tmp_path):
    """A provider's model whose key is not set is refused at once, in one line, before
    the run's folder is named or the agents are loaded (the brain would refuse it only
    seconds later, after the folder was announced)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "quartet", "run", "What is the tallest tree?", "--model",
         "openai:gpt-4o-mini", "--runs-dir", str(tmp_path / "runs")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "quartet: error: this model needs the environment variable OPENAI_API_KEY; it is not set"
    ]
    assert not (tmp_path / "runs").exists()
