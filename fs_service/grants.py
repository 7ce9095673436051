"""Grants and the handle that enforces them.

Check order for every access: validate the path string → find the granted prefix →
check the operation → delegate to the storage backend.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import InvalidPathError, PermissionDeniedError
from .paths import validate_path

if TYPE_CHECKING:
    from .backends.base import StorageBackend

#: Every operation a grant may allow.
OPS = frozenset({"list", "file", "read_file", "read_re", "read_binary", "write", "delete"})
READ_OPS = frozenset({"list", "file", "read_file", "read_re", "read_binary"})
ALL_OPS = OPS

_OP_WORDS = {
    "list": "listing",
    "file": "file information",
    "read_file": "reading text",
    "read_re": "searching",
    "read_binary": "reading",
    "write": "writing",
    "delete": "deleting",
}


@dataclass(frozen=True)
class Grant:
    """One granted directory and the operations allowed below it."""

    prefix: str
    ops: frozenset[str]

    @classmethod
    def parse(cls, raw: dict | Grant) -> Grant:
        """Build a grant from ``{"prefix": "/workspace/", "ops": {...}}``."""
        if isinstance(raw, Grant):
            return raw
        prefix, ops = raw.get("prefix"), frozenset(raw.get("ops", ()))
        if not isinstance(prefix, str) or not prefix.endswith("/"):
            raise ValueError(f"grant prefix must be an absolute path ending in '/': {prefix!r}")
        validate_path(prefix)
        unknown = ops - OPS
        if unknown:
            raise ValueError(f"unknown ops {sorted(unknown)}; known: {sorted(OPS)}")
        return cls(prefix, ops)

    @property
    def read_only(self) -> bool:
        return not ({"write", "delete"} & self.ops)

    def covers(self, path: str) -> bool:
        return path.startswith(self.prefix) or path == self.prefix.rstrip("/")

    def describe(self) -> str:
        if self.ops >= OPS:
            return "read and write"
        if self.read_only:
            return "read only"
        return ", ".join(_OP_WORDS[o] for o in sorted(self.ops))


class FileSystemHandle:
    """A backend seen through a fixed set of grants."""

    def __init__(self, backend: StorageBackend, grants: Iterable[dict] | Iterable[Grant]):
        self.backend = backend
        self.grants: tuple[Grant, ...] = tuple(
            sorted((Grant.parse(g) for g in grants), key=lambda g: -len(g.prefix))
        )
        if not self.grants:
            raise ValueError("a handle needs at least one grant")

    def grant_for(self, path: str) -> Grant | None:
        """The most specific grant covering ``path``, if any."""
        return next((g for g in self.grants if g.covers(path)), None)

    def check(self, path: object, op: str) -> str:
        """Validate ``path`` and check that ``op`` is granted there; return the path."""
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}")
        clean = validate_path(path)
        grant = self.grant_for(clean)
        if grant is None:
            raise PermissionDeniedError(
                f"Error: {clean} is outside the granted directories. "
                f"Use a path under {self._where()}.",
                clean,
            )
        if op not in grant.ops:
            alternatives = [g.prefix for g in self.grants if op in g.ops]
            hint = f" Use a path under {', '.join(alternatives)} instead." if alternatives else ""
            raise PermissionDeniedError(
                f"Error: {_OP_WORDS[op]} is not allowed under {grant.prefix} "
                f"({grant.describe()}).{hint}",
                clean,
            )
        return clean

    def _where(self) -> str:
        return ", ".join(
            f"{g.prefix} ({g.describe()})" for g in sorted(self.grants, key=lambda g: g.prefix)
        )

    def describe_grants_markdown(self) -> str:
        """A short Markdown block telling a model where it may read and write."""
        lines = ["You may use only these directories (logical absolute paths):"]
        for g in sorted(self.grants, key=lambda g: g.prefix):
            lines.append(f"- `{g.prefix}` — {g.describe()}")
        lines.append(
            "Any other path is refused. Paths must be absolute and clean: "
            "no `..`, `.`, `//` or backslashes."
        )
        return "\n".join(lines)


__all__ = ["ALL_OPS", "OPS", "READ_OPS", "FileSystemHandle", "Grant", "InvalidPathError"]
