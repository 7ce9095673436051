"""Failures told to a person: an exception's class name, and the module that names it,
never lead a reason, whether the reason is said now or was recorded by an older version
(a run's record, a checkpoint a run resumes from)."""

from __future__ import annotations

import json

from host.durability import checkpoint
from host.durability.run_folder import RunFolder
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


async def test_reasons_restored_from_an_older_checkpoint_are_told_in_words(tmp_path):
    """A checkpoint written by a version that led reasons with class names: the failed
    requests a report's limits name, the file a reader failed on and the failed task
    come back without them when the run resumes from it."""
    run = RunFolder.create(tmp_path / "runs")
    state = {
        "version": checkpoint.VERSION,
        "research": {
            "failures": [
                "browser_navigate: RuntimeError: the site went away",
                "read_text_file: json.decoder.JSONDecodeError: Expecting value",
            ]
        },
        "delegator": {
            "delegations": [
                {"id": "d1", "status": "error", "error": "httpx.ReadTimeout: timed out"}
            ],
            "files_failed": {"/userinput/a.json": "json.decoder.JSONDecodeError: Expecting value"},
        },
    }
    await run.host_service.write_text(checkpoint.CHECKPOINT, json.dumps(state))
    loaded = await checkpoint.load(run.host_service)
    assert loaded["research"]["failures"] == [
        "browser_navigate: the site went away",
        "read_text_file: Expecting value",
    ]
    assert loaded["delegator"]["delegations"][0]["error"] == "timed out"
    assert loaded["delegator"]["files_failed"] == {"/userinput/a.json": "Expecting value"}
