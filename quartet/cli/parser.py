"""The table of commands and options: ``build_parser`` and the parser class that takes no
abbreviations and suggests the nearest name for a misspelled one."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from subagents.names import PIPELINE_ORDER

from .cache import cmd_cache_clear, cmd_cache_stats
from .explain import cmd_explain
from .questions import cmd_batch, cmd_demo, cmd_run
from .rerun import cmd_replay, cmd_resume
from .runs import cmd_runs, cmd_show
from .skills import cmd_skills_list, cmd_skills_merge, cmd_skills_show
from .tools import cmd_mcp, cmd_tools

#: The examples ``quartet --help`` ends with.
EXAMPLES = """examples:
  quartet demo                      research the demo question offline, on a bundled web
  quartet demo --question "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"
  quartet run "How do heat pumps work?" --input myfiles/ --formats md,html
  quartet runs                      list past runs, newest first
  quartet show 20260101-120000      one run's summary (an id, or a prefix only it has)
  quartet resume 20260101-120000    continue a stopped or interrupted run

"quartet COMMAND --help" lists a command's options."""


#: ``--runs-dir``'s help, in every command that takes it.
RUNS_DIR_HELP = (
    "where run folders are (default: runs, in the current folder; the QUARTET_RUNS_DIR "
    "environment variable sets it too)"
)


#: Each command's examples, at the end of its ``--help``.
COMMAND_EXAMPLES = {
    "demo": """examples:
  quartet demo
  quartet demo --question "京杭大运河是如何修建并解决水源问题的？它为何衰落，今天又发挥着什么作用？"
  quartet demo --question "How do locks on the Grand Canal work?" --formats md,html""",
    "run": """examples:
  quartet run "How do heat pumps work?"
  quartet run "Why did colony losses rise?" --input myfiles/ --formats md,pdf
  quartet run "How was the Grand Canal built?" --model openai:gpt-4o-mini --max-pages 12""",
    "resume": """examples:
  quartet resume 20260101-120000
  quartet resume 20260101-120000-ab12cd --input myfiles/ --runs-dir /data/runs""",
    "replay": """examples:
  quartet run "How do heat pumps work?" --record
  quartet replay 20260101-120000""",
    "batch": """examples:
  quartet batch questions.txt --demo
  quartet batch questions.csv --formats md,html --concurrency 2""",
    "runs": """examples:
  quartet runs
  quartet runs --runs-dir /data/runs --json""",
    "show": """examples:
  quartet show 20260101-120000
  quartet show 20260101 --json""",
    "explain": """examples:
  quartet explain 20260101-120000
  quartet explain 20260101-120000 --part q2 --top 3""",
    "tools": """examples:
  quartet tools
  quartet tools --json""",
    "mcp": """examples:
  quartet mcp search
  quartet mcp file --input myfiles/""",
    "skills": """examples:
  quartet skills list
  quartet skills show browser-access
  quartet skills merge browser-access""",
    "skills list": """examples:
  quartet skills list
  quartet skills list --runs-dir /data/runs""",
    "skills show": """examples:
  quartet skills show browser-access
  quartet skills show search-queries --runs-dir /data/runs""",
    "skills merge": """examples:
  quartet skills merge browser-access
  quartet skills merge browser-access --model openai:gpt-4o-mini
  QUARTET_STORE=~/quartet.sqlite quartet skills merge page-reading""",
    "cache": """examples:
  quartet cache stats
  quartet cache clear
  QUARTET_PROJECT=thesis quartet cache clear""",
    "cache stats": """examples:
  quartet cache stats
  quartet cache stats --runs-dir /data/runs""",
    "cache clear": """examples:
  quartet cache clear
  QUARTET_PROJECT=thesis quartet cache clear""",
}


def _examples(command: str) -> dict[str, Any]:
    """The keyword arguments that give a command's parser its examples in ``--help``."""
    return {
        "epilog": COMMAND_EXAMPLES[command],
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


INPUT_AGAIN_HELP = (
    "folder of input files mounted read-only as /userinput/; the run folder only says "
    "where its inputs were: without --input, mounting that folder again needs your "
    "confirmation at a terminal (elsewhere it is an error)"
)


class Parser(argparse.ArgumentParser):
    """An argument parser that takes no abbreviations (``--max-page`` is not
    ``--max-pages``) and suggests the nearest name for a misspelled command or option.

    Its sub-commands' parsers are of the same class (argparse makes them so), so each one
    reports its own errors with its own usage.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        """Print the usage and ``message`` with a "did you mean" when one fits; exit 2."""
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}{self._suggestion(message)}\n")

    def _suggestion(self, message: str) -> str:
        """``; did you mean demo?`` for an invalid choice or an unknown option."""
        choice = _INVALID_CHOICE.search(message)
        if choice:
            names = [a.choices for a in self._actions if isinstance(a.choices, dict)]
            known = [name for choices in names for name in choices]
            return _did_you_mean(choice.group(1), known)
        if message.startswith("unrecognized arguments:"):
            options = [o for a in self._actions for o in a.option_strings]
            words = message.removeprefix("unrecognized arguments:").split()
            for word in (w.split("=", 1)[0] for w in words if w.startswith("--")):
                hint = _did_you_mean(word, options)
                if hint:
                    return hint
        return ""


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)'")


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    """``; did you mean NAME?`` for the name in ``known`` nearest to ``word``, or ``""``."""
    near = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {near[0]}?" if near else ""


VERBOSE_HELP = (
    "show every task and tool call while the run works (the transcript in the run folder "
    "keeps them too)"
)


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from host.version import quartet_version

        print(f"quartet {quartet_version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``quartet`` and of each of its commands."""
    parser = Parser(
        prog="quartet",
        description="Search → Browser → File → Generate: a question in, a cited report out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", help="one of the commands below"
    )
    for add in (
        _add_tools,
        _add_demo,
        _add_run,
        _add_resume,
        _add_replay,
        _add_batch,
        _add_mcp,
        _add_runs,
        _add_show,
        _add_explain,
        _add_skills,
        _add_cache,
    ):
        add(sub)
    from webapp.command import add_parser as add_serve_parser  # the web app: quartet serve

    add_serve_parser(sub, RUNS_DIR_HELP)
    return parser


def _runs_dir(p: argparse.ArgumentParser) -> None:
    """``--runs-dir``, as every command that reads or writes run folders takes it."""
    p.add_argument("--runs-dir", dest="runs_dir", metavar="DIR", help=RUNS_DIR_HELP)


def _research_options(p: argparse.ArgumentParser) -> None:
    """The options of ``run`` and ``demo``: formats, brain, budgets, approvals, the plan,
    recording and output."""
    p.add_argument("--formats", help="comma-separated: md,html,pdf,pptx (default: all)")
    p.add_argument(
        "--model",
        help="brain: offline (default) or PROVIDER:NAME, e.g. "
        "openai:gpt-4o-mini; also QUARTET_MODEL",
    )
    _runs_dir(p)
    p.add_argument(
        "--max-rounds",
        dest="max_rounds",
        type=int,
        metavar="N",
        help="research rounds per sub-question (default 3)",
    )
    p.add_argument(
        "--max-pages",
        dest="max_pages",
        type=int,
        metavar="N",
        help="pages read in the whole run (default 24)",
    )
    p.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="tasks running at once (default 3)",
    )
    p.add_argument(
        "--max-tokens",
        dest="max_tokens",
        type=int,
        metavar="N",
        help="model tokens (read and written) the run may use; once spent, research "
        "stops and the report is written from what was found (also QUARTET_MAX_TOKENS)",
    )
    p.add_argument(
        "--max-cost",
        dest="max_cost",
        type=float,
        metavar="AMOUNT",
        help="model cost the run may reach, in the currency of the price table in "
        "quartet.toml; once spent, research stops as with --max-tokens "
        "(also QUARTET_MAX_COST)",
    )
    p.add_argument(
        "--approve",
        metavar="TOOL[,TOOL]",
        help="ask before each call of these tools (e.g. http_download): approve, reject "
        "with a reason, or edit the arguments; needs a terminal (without one the command "
        "stops with exit 2: set [quartet.approve] tools and default in quartet.toml "
        "instead)",
    )
    p.add_argument(
        "--review-plan",
        dest="review_plan",
        action="store_true",
        help="show the plan and let you edit it before research starts (needs a terminal)",
    )
    p.add_argument(
        "--plan",
        metavar="FILE",
        help="research this plan (YAML or JSON list of sub-questions) instead of planning",
    )
    p.add_argument(
        "--record",
        action="store_true",
        help="keep every model answer and HTTP response in the run folder, so that "
        "quartet replay RUN_ID can run it again with no network and no keys",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="fetch every page and download from the web, none from the page cache (what "
        "the run fetches is still kept there for later runs)",
    )
    p.add_argument("--quiet", action="store_true", help="print only the report paths")
    p.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    p.add_argument("--json", action="store_true", help="print the run record as JSON")


def _add_tools(sub: Any) -> None:
    """``quartet tools``."""
    tools = sub.add_parser(
        "tools", help="list each subagent's tools and schemas", **_examples("tools")
    )
    tools.add_argument("--json", action="store_true", help="print {subagent: [schema, ...]}")
    tools.set_defaults(func=cmd_tools)


def _add_demo(sub: Any) -> None:
    """``quartet demo``."""
    demo = sub.add_parser(
        "demo", help="run the whole pipeline offline on a bundled local web", **_examples("demo")
    )
    demo.add_argument("--question", help="ask something else of the bundled web")
    _research_options(demo)
    demo.set_defaults(func=cmd_demo, input=None)


def _add_run(sub: Any) -> None:
    """``quartet run QUESTION``."""
    run = sub.add_parser("run", help="research QUESTION on the web", **_examples("run"))
    run.add_argument(
        "question",
        metavar="QUESTION",
        help="what to research, in English or Chinese; quote it as one argument",
    )
    run.add_argument("--input", metavar="DIR", help="folder of input files (read-only)")
    _research_options(run)
    run.set_defaults(func=cmd_run)


def _add_resume(sub: Any) -> None:
    """``quartet resume RUN_ID``."""
    resume = sub.add_parser(
        "resume",
        help="continue a stopped or interrupted run from its last checkpoint",
        **_examples("resume"),
    )
    resume.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    resume.add_argument("--model", help="brain (default: the one the run started with)")
    _runs_dir(resume)
    resume.add_argument("--input", metavar="DIR", help=INPUT_AGAIN_HELP)
    resume.add_argument("--quiet", action="store_true", help="print only the report paths")
    resume.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    resume.add_argument("--json", action="store_true", help="print the run record as JSON")
    resume.set_defaults(func=cmd_resume)


def _add_replay(sub: Any) -> None:
    """``quartet replay RUN_ID``."""
    replay = sub.add_parser(
        "replay",
        help="run a recorded run (--record) again from its recording, with no network and "
        "no keys; exit 0 when it is reproduced, 1 at the first divergence",
        **_examples("replay"),
    )
    replay.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    _runs_dir(replay)
    replay.add_argument("--input", metavar="DIR", help=INPUT_AGAIN_HELP)
    replay.add_argument("--quiet", action="store_true", help="print only the verdict")
    replay.add_argument("--json", action="store_true", help="print the verdict as JSON")
    replay.set_defaults(func=cmd_replay)


def _add_batch(sub: Any) -> None:
    """``quartet batch QUESTIONS``."""
    batch = sub.add_parser(
        "batch",
        help="research many questions, each its own run, several at once",
        **_examples("batch"),
    )
    batch.add_argument(
        "questions",
        metavar="QUESTIONS",
        help="a text file (one question a line), or a CSV or XLSX file with a question "
        "column and optional input and formats columns",
    )
    _batch_options(batch)
    batch.set_defaults(func=cmd_batch)


def _batch_options(batch: argparse.ArgumentParser) -> None:
    """The options of ``batch``: engine, concurrency, inputs, brain, retries, budgets."""
    batch.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: worker processes on this machine (default); ray: Ray tasks",
    )
    batch.add_argument(
        "--address",
        metavar="ADDR",
        help="the Ray cluster to use (default: start a local one on 127.0.0.1)",
    )
    batch.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="questions running at once (default: the cores, or the cluster's CPUs)",
    )
    batch.add_argument(
        "--input", metavar="DIR", help="input folder for rows that name none (read-only)"
    )
    batch.add_argument("--formats", help="report formats for rows that name none: md,html,pdf,pptx")
    batch.add_argument("--model", help="brain of every run: offline (default) or PROVIDER:NAME")
    batch.add_argument(
        "--demo",
        action="store_true",
        help="research the bundled demo web, served once for the whole batch",
    )
    batch.add_argument(
        "--retries",
        type=int,
        metavar="N",
        help="further attempts for a question that fails, dies or times out (default 2)",
    )
    batch.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="time an attempt may take before its worker is killed (default 3600)",
    )
    batch.add_argument(
        "--max-rounds", dest="max_rounds", type=int, metavar="N", help="rounds per sub-question"
    )
    batch.add_argument(
        "--max-pages", dest="max_pages", type=int, metavar="N", help="pages read per question"
    )
    _runs_dir(batch)
    batch.add_argument("--quiet", action="store_true", help="print only the summaries' paths")
    batch.add_argument("--json", action="store_true", help="print the batch's rows as JSON")


def _add_mcp(sub: Any) -> None:
    """``quartet mcp SUBAGENT``."""
    mcp = sub.add_parser(
        "mcp", help="serve one subagent's toolkit as an MCP server (stdio)", **_examples("mcp")
    )
    mcp.add_argument(
        "subagent",
        choices=PIPELINE_ORDER,
        help=f"the subagent whose tools are served: {', '.join(PIPELINE_ORDER)}",
    )
    mcp.add_argument(
        "--workspace",
        metavar="DIR",
        help="folder behind /workspace/, read, write and delete (default: a fresh folder "
        "under the runs folder)",
    )
    mcp.add_argument("--input", metavar="DIR", help="folder mounted read-only as /userinput/")
    _runs_dir(mcp)
    mcp.set_defaults(func=cmd_mcp)


def _add_runs(sub: Any) -> None:
    """``quartet runs``."""
    runs = sub.add_parser("runs", help="list past runs, newest first", **_examples("runs"))
    _runs_dir(runs)
    runs.add_argument("--json", action="store_true", help="print the list as JSON")
    runs.set_defaults(func=cmd_runs)


def _add_show(sub: Any) -> None:
    """``quartet show RUN_ID``."""
    show = sub.add_parser("show", help="print one run's summary", **_examples("show"))
    show.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    _runs_dir(show)
    show.add_argument("--json", action="store_true", help="print the summary as JSON")
    show.set_defaults(func=cmd_show)


def _add_explain(sub: Any) -> None:
    """``quartet explain RUN_ID``."""
    explain = sub.add_parser(
        "explain",
        help="show why each part's best sentences scored as they did",
        **_examples("explain"),
    )
    explain.add_argument("run_id", metavar="RUN_ID", help="a run id, or a prefix only it has")
    explain.add_argument("--part", metavar="ID", help="only this part of the plan (e.g. q2)")
    explain.add_argument(
        "--top", type=int, default=5, metavar="N", help="sentences shown per part (default 5)"
    )
    _runs_dir(explain)
    explain.set_defaults(func=cmd_explain)


#: What ``quartet skills --help`` says of the experience logs.
SKILLS_HELP = (
    "list the subagents' skills and their experience logs, show one, or merge a log's "
    "recent findings into its core experiences (the logs are kept in the memory store: "
    ".store/quartet.sqlite in the runs folder unless store in quartet.toml or the "
    "QUARTET_STORE environment variable names another file)"
)

#: ``skills merge --model``'s help.
MERGE_MODEL_HELP = (
    "condense the log with this model, PROVIDER:NAME (e.g. openai:gpt-4o-mini), its key "
    "read from its environment variable as for run; offline merges without one (default: "
    "the model setting, QUARTET_MODEL or model in quartet.toml, else offline)"
)


def _add_skills(sub: Any) -> None:
    """``quartet skills list|show SKILL|merge SKILL``."""
    skills = sub.add_parser("skills", help=SKILLS_HELP, **_examples("skills"))
    actions = skills.add_subparsers(
        dest="skills_command", required=True, metavar="ACTION", help="list, show or merge"
    )
    listing = actions.add_parser(
        "list",
        help="every skill: its subagent, description and recorded experiences",
        **_examples("skills list"),
    )
    _runs_dir(listing)
    listing.set_defaults(func=cmd_skills_list)
    for action, told, func in (
        ("show", "print a skill's SKILL.md, then its experience log", cmd_skills_show),
        (
            "merge",
            "merge a skill's recent findings into its core experiences: condensed by a "
            "model when one is set, else one entry per title, the most recent kept",
            cmd_skills_merge,
        ),
    ):
        one = actions.add_parser(action, help=told, **_examples(f"skills {action}"))
        one.add_argument("skill", metavar="SKILL", help="a skill's name, as skills list shows it")
        _runs_dir(one)
        one.set_defaults(func=func)
        if action == "merge":
            one.add_argument("--model", help=MERGE_MODEL_HELP)


#: What ``quartet cache --help`` says of the page cache.
CACHE_HELP = (
    "show or empty the page cache: the pages and downloads earlier runs read, kept in the "
    "memory store for the current user and project (.store/quartet.sqlite in the runs "
    "folder unless store in quartet.toml or QUARTET_STORE names another file)"
)


def _add_cache(sub: Any) -> None:
    """``quartet cache stats|clear``."""
    cache = sub.add_parser("cache", help=CACHE_HELP, **_examples("cache"))
    actions = cache.add_subparsers(
        dest="cache_command", required=True, metavar="ACTION", help="stats or clear"
    )
    for action, told, func in (
        (
            "stats",
            "how many pages and downloads the cache holds, their size, the oldest and newest",
            cmd_cache_stats,
        ),
        (
            "clear",
            "remove every cached page and download of this user and project",
            cmd_cache_clear,
        ),
    ):
        one = actions.add_parser(action, help=told, **_examples(f"cache {action}"))
        _runs_dir(one)
        one.set_defaults(func=func)
