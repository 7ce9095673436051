"""Pure path validation: what is accepted and what is refused, with the reason."""

from __future__ import annotations

import pytest

from fs_service import InvalidPathError, validate_path
from fs_service.paths import parent_of, segments

GOOD = [
    "/workspace/",
    "/workspace/notes.md",
    "/workspace/pages/a b.md",
    "/userinput/报告/数据.xlsx",
    "/workspace/50%25off.txt",
    "/workspace/..hidden",
    "/workspace/a.b.c",
]

BAD = {
    "workspace/a.txt": "not absolute",
    "": "non-empty",
    "/workspace/../etc/passwd": "'..' segment",
    "/workspace/./a": "'.' segment",
    "/workspace/a/..": "'..' segment",
    "/workspace//a": "empty segment",
    "/workspace\\..\\a": "backslash",
    "/workspace/a\x00b": "U+0000",
    "/workspace/a\nb": "U+000A",
    "/workspace/a\u202eb": "U+202E",
    "/workspace/%2e%2e/x": "decoded or normalised",
    "/workspace/%2E%2e/x": "decoded or normalised",
    "/workspace/a%2f..%2fb": "decoded or normalised",
    "/workspace/a%5cb": "decoded or normalised",
    "/workspace/\uff0e\uff0e/x": "decoded or normalised",  # fullwidth full stops
    "/workspace/\ufe52\ufe52/x": "decoded or normalised",  # small full stops
    "/workspace/a\uff0f..\uff0fb": "decoded or normalised",  # fullwidth solidus
    "/workspace/a\uff3cb": "decoded or normalised",  # fullwidth reverse solidus
    "/workspace/\u2024\u2024/x": "decoded or normalised",  # one dot leaders
    "/workspace/ a": "white space",
}


@pytest.mark.parametrize("path", GOOD)
def test_clean_paths_pass_unchanged(path):
    assert validate_path(path) == path


@pytest.mark.parametrize(("path", "reason"), sorted(BAD.items()))
def test_unclean_paths_are_refused_with_a_reason(path, reason):
    with pytest.raises(InvalidPathError) as info:
        validate_path(path)
    message = str(info.value)
    assert message.startswith("Error:")
    assert reason in message
    assert "/workspace/notes.md" in message  # says what a valid path looks like


@pytest.mark.parametrize("value", [None, 3, b"/workspace/a", ["/workspace/"]])
def test_non_strings_are_refused(value):
    with pytest.raises(InvalidPathError):
        validate_path(value)


def test_overlong_paths_and_segments_are_refused():
    with pytest.raises(InvalidPathError, match="longer than"):
        validate_path("/workspace/" + "a/" * 3000)
    with pytest.raises(InvalidPathError, match="255 bytes"):
        validate_path("/workspace/" + "字" * 90)


def test_segments_and_parent():
    assert segments("/workspace/a/b.txt") == ["workspace", "a", "b.txt"]
    assert parent_of("/workspace/a/b.txt") == "/workspace/a/"
    assert parent_of("/workspace/") == "/"
