"""The entry point: parse the command line, run the command, and turn the errors a user
can act on into one line and an exit status."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import faulthandler
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from host.printable import printable
from subagents.registry_value import Registry, using
from subagents.secrets import scrubbed_output, secret_scope, secret_values

from .parser import build_parser
from .running import RunStopped, StoppedBeforeStart, interrupted_line

#: The exit status of a command whose output pipe was closed early (``quartet runs |
#: head -1``): 128 + SIGPIPE, as a Unix tool killed by that signal reports it.
BROKEN_PIPE_EXIT = 128 + 13


def main(argv: Sequence[str] | None = None, registry: Registry | None = None) -> int:
    """Entry point of ``python -m quartet`` and the ``quartet`` script.

    ``registry`` (for a caller in the same process) is the registry the command uses, its
    subagents and search sources (see :func:`subagents.registry_value.using`); by default
    the current one, the built-in one unless set.

    A crash of the interpreter itself (a fault in a compiled library) prints where each
    thread was on stderr, which says what to report; a Python error is handled below.
    """
    if not faulthandler.is_enabled():
        faulthandler.enable()
    try:
        try:
            with using(registry):
                return _command(argv)
        finally:
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
    except BrokenPipeError:
        return _pipe_closed()


def run() -> NoReturn:
    """The ``quartet`` script and ``python -m quartet``: :func:`main`, then an exit that
    does not take every loaded module apart.

    An interpreter's own exit frees the objects of every module one by one; with the
    agent framework's provider SDKs and the language tables loaded that takes about a
    second after the last line is printed. Here what an exit must do still happens, in
    the interpreter's own order: threads that are not daemons are waited for (the
    worker pools' exit hooks run then, telling the page workers to stop), then the
    exit handlers (logs flushed, temporary folders removed); the output is flushed, and
    the process ends with the command's status. An error that ends the command
    (``SystemExit`` from the argument parser) takes the usual exit.
    """
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with status ``code`` as :func:`run` does: threads that are not
    daemons waited for, the exit handlers run, the output flushed, and no module taken
    apart. For the processes that run a question as the ``quartet`` script does (a
    benchmark's child, say), so that they end as fast as it does.

    Args:
        code: the exit status.
    """
    threading._shutdown()  # what the interpreter's exit runs first
    atexit._run_exitfuncs()
    with contextlib.suppress(OSError, ValueError):  # what main and the handlers wrote
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _command(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; its exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # told by the command's own parser, with its usage, not the top-level one
        _command_parser(parser, args.command).error(f"unrecognized arguments: {' '.join(extra)}")
    # no credential value reaches the terminal; the environment is read for them once
    with secret_scope(secret_values()), scrubbed_output():
        try:
            return int(args.func(args) or 0)
        except ValueError as exc:  # ConfigError, a bad --model, an unknown run id
            parser.exit(2, f"quartet: error: {printable(str(exc))}\n")
        except (RunStopped, StoppedBeforeStart) as exc:
            parser.exit(130, f"quartet: {exc}\n")
        except KeyboardInterrupt:
            parser.exit(130, f"quartet: {interrupted_line(args.command)}\n")


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of sub-command ``command`` (``parser`` itself when there is none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return action.choices[command]
    return parser


def _pipe_closed() -> int:
    """The reader of stdout went away (``quartet runs | head -1``): end quietly.

    As the Python documentation recommends (signal module, "Note on SIGPIPE"), stdout is
    pointed at the null device, so that the interpreter's own flush at exit finds no
    broken pipe; the status is the one a Unix tool killed by SIGPIPE has.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file (a test's capture): nothing to flush
        pass
    finally:
        os.close(devnull)
    return BROKEN_PIPE_EXIT
