"""The commands that research: ``run`` (the web), ``demo`` (the bundled local web) and
``batch`` (many questions, each its own run)."""

from __future__ import annotations

import argparse

from demo.settings import demo_settings
from host.config import ConfigError, make_runs_dir

from .running import (
    announce,
    brain_of,
    check_approval_terminal,
    human_of,
    note_early_interrupts,
    pipeline,
    report,
    run_async,
    settings_of,
)


def cmd_run(args: argparse.Namespace) -> int:
    """``quartet run QUESTION``: research the question on the web; the summary's exit status."""
    note_early_interrupts()
    settings = settings_of(args)
    if not args.question.strip():
        raise ConfigError("the question is empty")
    check_approval_terminal(args, settings)
    # --plan and --review-plan are checked by the plan's own code (a second to load): the
    # first line follows them, so that a refusal stays the command's only line
    checked_later = bool(getattr(args, "plan", None) or getattr(args, "review_plan", False))
    if not checked_later:
        announce(args.question, settings)
    human = human_of(args, settings, args.question)
    if checked_later:
        announce(args.question, settings)
    brain = brain_of(settings)
    make_runs_dir(settings.runs_dir)
    return report(run_async(pipeline(args.question, settings, brain, human)), settings)


def cmd_demo(args: argparse.Namespace) -> int:
    """``quartet demo``: research the demo question (or ``--question``) on the bundled web."""
    from demo.site import DEMO_QUESTION

    note_early_interrupts()
    settings = settings_of(args)
    check_approval_terminal(args, settings)
    announce(args.question or DEMO_QUESTION, settings)
    from demo.web import demo_world

    brain = brain_of(settings)
    make_runs_dir(settings.runs_dir)
    with demo_world(settings.runs_dir) as world:
        question = args.question or world.question
        human = human_of(args, settings, question)
        result = run_async(pipeline(question, demo_settings(settings, world), brain, human))
    return report(result, settings)


def cmd_batch(args: argparse.Namespace) -> int:
    """``quartet batch QUESTIONS``: each question its own run, several at once."""
    from ..batch.command import run_command

    return run_command(args)
