"""One list of credential variables and one scrubber for the whole project.

Keys come only from environment variables. Any text that leaves a tool or the Host (a
tool result, a log line, ``run.json``, the transcript, stderr) passes through
:func:`scrub`, which replaces the value of every credential variable set in the process
(and any extra value the caller knows of) with ``***``. A provider or proxy that echoes a
key back ("bad Bearer sk-…") therefore never leaks it. The places text is written use it:
the model's replies (``host.brains.wrapping.ScrubbedModel``), tool records, the
transcript, ``run.json``, checkpoints, log records (:func:`install_log_scrubbing`) and the
command line's stdout and stderr (:func:`scrubbed_output`).

The values are collected once: a run (and a command) holds its settings' secrets in a
:func:`secret_scope`, and :func:`scrub` inside it reads no environment. Only a call
outside any scope (a library user's own, a test's) reads the process's environment.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from typing import Any, TextIO
from urllib.parse import urlsplit

#: Credential variables the project reads, by name.
SECRET_VARS = (
    "GOOGLE_API_KEY",
    "GOOGLE_CSE_ID",
    "BING_API_KEY",
    "GITHUB_TOKEN",
    "OPENAI_API_KEY",
    "DASHSCOPE_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
)
#: Other variables whose names say they hold a credential (a proxy's token, say).
_SECRET_NAME = re.compile(r"(API_KEY|_TOKEN|_SECRET|PASSWORD|_CSE_ID)$", re.IGNORECASE)
#: Variables holding a URL, whose password (``http://user:pass@proxy``) is a credential.
_URL_NAME = re.compile(r"(_PROXY|_URL|_HOST)$", re.IGNORECASE)
#: Values shorter than this are not replaced: too likely to match ordinary text.
MIN_SECRET_CHARS = 6
MASK = "***"


def secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of every credential variable in ``env`` (default: the process's), and
    the password of any URL variable (a proxy or a provider's base URL) that has one."""
    env = os.environ if env is None else env
    found = []
    for name, value in env.items():
        value = (value or "").strip()
        if len(value) >= MIN_SECRET_CHARS and (name in SECRET_VARS or _SECRET_NAME.search(name)):
            found.append(value)
        elif _URL_NAME.search(name) and "@" in value:
            with suppress(ValueError):
                password = urlsplit(value).password or ""
                if len(password) >= MIN_SECRET_CHARS:
                    found.append(password)
    # Longest first, so that a key containing another is replaced whole.
    return sorted(set(found), key=len, reverse=True)


#: The secrets of the run or command under way (None: outside any, read the environment).
_SCOPE: ContextVar[tuple[str, ...] | None] = ContextVar("quartet_secrets", default=None)


def _longest_first(values: Iterable[str]) -> tuple[str, ...]:
    """Each value long enough to be a secret, once, longest first (so that a key holding
    another is replaced whole)."""
    kept = {v.strip() for v in values if v and len(v.strip()) >= MIN_SECRET_CHARS}
    return tuple(sorted(kept, key=len, reverse=True))


@contextmanager
def secret_scope(values: Iterable[str]) -> Iterator[None]:
    """While it lasts, in this context and the tasks and threads started from it,
    :func:`scrub` masks ``values`` (and those of any enclosing scope) and reads no
    environment.

    Args:
        values: the secrets collected once for a run or a command, e.g. a settings
            object's ``secrets`` (see :func:`secret_values`) and its keys.
    """
    token = _SCOPE.set(_longest_first([*(_SCOPE.get() or ()), *values]))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _values_to_mask(extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The values :func:`scrub` replaces: the scope's secrets (outside any scope, every
    credential value set in the environment now) and each of ``extra``."""
    scoped = _SCOPE.get()
    known = secret_values() if scoped is None else scoped
    return _longest_first([*known, *extra])


def _masked(text: str, values: tuple[str, ...]) -> str:
    for value in values:
        if value in text:
            text = text.replace(value, MASK)
    return text


def scrub(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every credential value (and each of ``extra``) replaced by ``***``."""
    if not text:
        return text
    return _masked(text, _values_to_mask(extra))


def scrub_data(data: object, extra: Iterable[str] = ()) -> object:
    """``data`` (JSON-like: dicts, lists, strings) with :func:`scrub` applied to every string.

    The secrets are gathered once for the whole of ``data``, not once for each string.
    """
    return _scrubbed(data, _values_to_mask(extra))


def _scrubbed(data: object, values: tuple[str, ...]) -> object:
    if isinstance(data, str):
        return _masked(data, values)
    if isinstance(data, dict):
        return {_masked(str(k), values): _scrubbed(v, values) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_scrubbed(v, values) for v in data]
    return data


class _ScrubbingFilter(logging.Filter):
    """Rewrites log records so that no credential value reaches a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = scrub(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


_FILTER = _ScrubbingFilter()


def install_log_scrubbing(names: Iterable[str] = ("",)) -> None:
    """Attach the scrubbing filter to the loggers ``names`` and to every handler of the
    root logger (idempotent)."""
    for name in names:
        target = logging.getLogger(name)
        if _FILTER not in target.filters:
            target.addFilter(_FILTER)
    for handler in logging.getLogger().handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)


class ScrubbedStream:
    """A text stream that scrubs everything written to it before passing it on."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(scrub(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def scrubbed_output() -> Iterator[None]:
    """While it lasts, ``sys.stdout`` and ``sys.stderr`` (progress lines, warnings, error
    messages) never show a credential value."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ScrubbedStream(saved[0]), ScrubbedStream(saved[1])  # type: ignore[assignment]
    install_log_scrubbing()
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
