"""What became of each of the user's own files: the account a run gives of its input
folder, file by file, so that none is passed over in silence.

A file is *cited* when the report quotes it, a *brief* when its instructions became the
writer's requirements (its facts may be cited as well), *read* when its text was taken
in but the report quotes none of it, *unreadable* when its reader failed (with the
reader's reason), and *not read* when no reader takes its type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

#: How a file was used, from the most to the least.
USES = ("cited", "brief", "read", "unreadable", "not read")


@dataclass(frozen=True)
class FileUse:
    """One input file and what the run did with it."""

    #: its logical path (``/userinput/notes.md``)
    path: str
    #: one of :data:`USES`
    use: str
    #: the report's quotes from it
    citations: int = 0
    #: why it was not read, in the reader's words (empty when it was read)
    note: str = ""

    @property
    def name(self) -> str:
        """The file's name, as a reader knows it."""
        return PurePosixPath(self.path).name

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def file_uses(
    listed: Iterable[str],
    read: Iterable[str],
    failed: Mapping[str, str],
    briefs: Iterable[str],
    cited: Mapping[str, int],
) -> list[FileUse]:
    """Each input file with its use, in path order.

    Args:
        listed: the files in the input folder (logical paths).
        read: the files a reader returned text for.
        failed: the files a reader failed on, each with the reason it gave.
        briefs: the files read as briefs.
        cited: the report's citations per source address (an input file's address is
            its logical path).
    """
    read, briefs = set(read), set(briefs)
    paths = sorted({*listed, *read, *failed})
    uses = []
    for path in paths:
        n = int(cited.get(path, 0))
        if path in briefs:
            uses.append(FileUse(path, "brief", n))
        elif n:
            uses.append(FileUse(path, "cited", n))
        elif path in read:
            uses.append(FileUse(path, "read"))
        elif path in failed:
            uses.append(FileUse(path, "unreadable", note=failed[path]))
        else:
            suffix = PurePosixPath(path).suffix.lower() or "extension-less"
            uses.append(FileUse(path, "not read", note=f"no reader for {suffix} files"))
    return uses


def told_uses(files: Sequence[Mapping[str, Any]]) -> str:
    """What became of the user's files (as ``run.json`` lists them), counted by use with
    those not quoted named ("4: 1 cited, 1 brief, 1 read but not cited (recipes.txt),
    1 not read (letter.doc: no reader for .doc files)")."""
    uses = [FileUse(**f) for f in files]
    parts = []
    for use in USES:
        these = [u for u in uses if u.use == use]
        if not these:
            continue
        words = "read but not cited" if use == "read" else use
        if use in ("cited", "brief"):
            parts.append(f"{len(these)} {words}")
            continue
        named = ", ".join(u.name + (f": {u.note}" if u.note else "") for u in these)
        parts.append(f"{len(these)} {words} ({named})")
    return f"{len(files)}: " + ", ".join(parts)
