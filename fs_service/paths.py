r"""Pure validation of logical paths: no I/O, no knowledge of grants.

A logical path is an absolute POSIX path such as ``/workspace/pages/a.md``. Anything that
could mean a different place after decoding or normalising is refused rather than
repaired: ``..`` and ``.`` segments, relative paths, backslashes, ``//``, control
characters, percent-encoded separators or dots, and Unicode look-alikes that normalise
to any of those.

A file name whose bytes are not UTF-8 is written with ``\xNN`` for each such byte
(``/userinput/notes-\xff.txt``): the only backslash a logical path may hold, and only
for bytes 0x80–0xFF that do not spell a UTF-8 character (which is written as itself).
Such a path is shown, logged and stored like any other text.
"""

from __future__ import annotations

import os
import re
import unicodedata
from urllib.parse import unquote

from .errors import InvalidPathError

MAX_PATH_CHARS = 4096
MAX_SEGMENT_BYTES = 255

_BYTE_ESCAPE = re.compile(r"\\x([89a-f][0-9a-f])")
_UNDECODED = re.compile("[\udc80-\udcff]")


def escape_name(text: str) -> str:
    r"""``text`` with each undecodable byte (a lone surrogate, as ``os.fsdecode`` holds
    it) written as ``\xNN``, so that it can be shown and stored as UTF-8."""
    return _UNDECODED.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text)


def disk_name(segment: str) -> str:
    r"""A logical name as the operating system takes it: each ``\xNN`` back to its byte."""
    return _BYTE_ESCAPE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), segment)


def _escapes_problem(path: str) -> str | None:
    if "\\" in _BYTE_ESCAPE.sub("", path):
        return "it contains a backslash"
    if "\\" in path and escape_name(os.fsdecode(os.fsencode(disk_name(path)))) != path:
        return "its \\xNN escapes spell UTF-8 text, which must be written as itself"
    return None


def _problem(path: str) -> str | None:
    """Return why ``path`` is not a clean logical path, or None when it is."""
    if not path.startswith("/"):
        return "it is not absolute (it must start with '/')"
    for ch in path:
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            return f"it contains the control or invisible character U+{ord(ch):04X}"
    escapes = _escapes_problem(path)
    if escapes:
        return escapes
    if "//" in path:
        return "it contains an empty segment ('//')"
    for segment in path.strip("/").split("/"):
        if segment in (".", ".."):
            return f"it contains a '{segment}' segment"
        if segment != segment.strip():
            return "a segment starts or ends with white space"
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            return f"a segment is longer than {MAX_SEGMENT_BYTES} bytes"
    return None


def validate_path(path: object) -> str:
    """Check a logical path and return it unchanged.

    Raises:
        InvalidPathError: with the reason and an example of a valid path.
    """
    if not isinstance(path, str) or not path:
        raise InvalidPathError(
            "Error: invalid path: expected a non-empty string such as '/workspace/notes.md'.",
            None,
        )
    if len(path) > MAX_PATH_CHARS:
        raise InvalidPathError(
            f"Error: invalid path: longer than {MAX_PATH_CHARS} characters.", None
        )
    reason = _problem(path)
    if reason is None:
        # Refuse spellings that turn into something else once decoded or normalised.
        for variant in (unquote(path), unicodedata.normalize("NFKC", path)):
            if variant != path and _problem(variant) is not None:
                reason = "it becomes a different path once decoded or normalised"
                break
    if reason is not None:
        raise InvalidPathError(
            f"Error: invalid path {path!r}: {reason}. Use a clean absolute path such as "
            "'/workspace/notes.md' (no '..', '.', '//', backslashes or control characters).",
            path,
        )
    return path


def segments(path: str) -> list[str]:
    """Split a validated logical path into its non-empty segments."""
    return [s for s in path.split("/") if s]


def parent_of(path: str) -> str:
    """The logical parent directory of a validated path, with a trailing slash."""
    parts = segments(path)
    return "/" + "/".join(parts[:-1]) + ("/" if len(parts) > 1 else "")


def join(directory: str, name: str) -> str:
    """Join a logical directory and a child name."""
    return directory.rstrip("/") + "/" + name
