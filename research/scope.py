"""A context variable set for a block of code: what the research core lends a run (its
cut book, its score book, the documents it holds) for as long as the run lasts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def setting(var: ContextVar[T], value: T) -> Iterator[T]:
    """``var`` set to ``value`` for the code inside (and the tasks and threads it starts);
    ``value``."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)


__all__ = ["setting"]
