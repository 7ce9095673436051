"""Failures told to a person: an exception's class name, and the module that names it,
never lead a reason, whether the reason is said now or was recorded by an older version
(a run's record, a checkpoint a run resumes from)."""

from __future__ import annotations

from subagents.failures import without_class_names


def test_a_class_name_is_taken_out_with_the_module_that_names_it():
    said = {
        "json.decoder.JSONDecodeError: Expecting value": "Expecting value",
        "browser (d3): httpx.ReadTimeout: timed out": "browser (d3): timed out",
        "host: builtins.OSError: [Errno 2] gone": "host: [Errno 2] gone",
        "requests.exceptions.ConnectionError: refused": "refused",
        "ValueError: a: TypeError: b": "a: b",
        "It failed. RuntimeError: x": "It failed. x",
    }
    assert {text: without_class_names(text) for text in said} == said
    for unchanged in ("see example.org: it moved", "Error: plain", "a.b.c", "v1.2: fine"):
        assert without_class_names(unchanged) == unchanged
