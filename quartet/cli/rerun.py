"""The commands that take up a past run: ``resume`` (continue a stopped run from its last
checkpoint) and ``replay`` (run a recording again and compare)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from demo.settings import demo_settings
from host.config import Settings
from host.durability.resume import demo_ports, resumable, resumed_settings
from host.durability.runs import chosen_input
from host.printable import plural, printable, printable_json

from .running import (
    brain_of,
    confirmer,
    given_input,
    interruptible,
    load_framework,
    report,
    run_async,
    settings_of,
)

if TYPE_CHECKING:
    from host.orchestration.result import RunResult


def cmd_resume(args: argparse.Namespace) -> int:
    """``quartet resume RUN_ID``: continue a stopped run from its last checkpoint."""
    from host.durability.run_folder import RunFolder

    settings = settings_of(args)
    folder, saved = resumable(settings, args.run_id)
    origin = saved.get("origin") if isinstance(saved.get("origin"), dict) else {}
    demo = origin.get("kind") == "demo"  # the demo world brings its own inputs
    inputs = None
    if not demo:
        given = given_input(args, settings)
        inputs = chosen_input(folder.name, saved.get("input_dir"), given, confirmer())
    settings = resumed_settings(settings, saved, args.model, inputs)
    brain = brain_of(settings)

    async def resume(settings: Settings) -> RunResult:
        from host.display.progress import Progress
        from host.orchestration.hub import Host

        quiet = settings.quiet or settings.json_output
        progress = Progress(quiet=quiet, verbose=settings.verbose)
        host = Host(settings, brain, on_event=progress)
        try:
            return await interruptible(
                host, host.resume(RunFolder.open(folder, settings.input_dir))
            )
        finally:
            progress.close()

    if demo:
        from demo.web import demo_world

        with demo_world(settings.runs_dir, ports=demo_ports(origin)) as world:
            result = run_async(resume(demo_settings(settings, world)))
    else:
        result = run_async(resume(settings))
    return report(result, settings)


def cmd_replay(args: argparse.Namespace) -> int:
    """``quartet replay RUN_ID``: run a recording again; 0 when it is reproduced."""
    load_framework()
    from demo.web import cached_inputs
    from host.brains.providers import replay_brain
    from host.durability.replay import compare, open_recording, replay_input, replay_settings
    from host.durability.run_folder import RunFolder
    from subagents.tape import Tape

    base = settings_of(args)
    recording = open_recording(base.runs_dir, args.run_id)
    inputs = replay_input(base, recording, given_input(args, base), confirmer(), cached_inputs)
    settings = replay_settings(base, recording, inputs)

    async def replay() -> tuple[RunResult, Any]:
        from host.display.progress import Progress
        from host.orchestration.hub import Host

        tape = await Tape.load(RunFolder.open(recording.folder, settings.input_dir).host_service)
        brain = replay_brain(settings.model, tape)
        quiet = settings.quiet or settings.json_output
        host = Host(settings, brain, on_event=Progress(quiet=quiet), tape=tape)
        result = await interruptible(host, host.run(str(recording.record["question"])))
        verdict = compare(recording, result, tape)
        await result.run.host_service.write_text(
            "/internal/replay.json", json.dumps(verdict.to_dict(), ensure_ascii=False, indent=2)
        )
        return result, verdict

    result, verdict = run_async(replay())  # type: ignore[arg-type]
    if settings.json_output:
        print(printable_json({**verdict.to_dict(), "run": result.run.id}, indent=None))
    elif not settings.quiet:
        print(f"Replayed run {recording.id} as {result.run.id} ({result.run.path}).")
    if verdict.reproduced:
        if not settings.json_output:
            print("Reproduced: the replay made the same requests and wrote the same report.")
        return 0
    print(f"quartet: the replay diverged: {printable(verdict.divergences[0])}", file=sys.stderr)
    if len(verdict.divergences) > 1:
        print(
            f"quartet: {plural(len(verdict.divergences) - 1, 'more difference')} in "
            f"{result.run.path / 'internal' / 'replay.json'}",
            file=sys.stderr,
        )
    return 1
