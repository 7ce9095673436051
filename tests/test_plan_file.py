"""``--plan FILE`` is checked before anything is built from it: its size, YAML aliases (the
"billion laughs"), nesting, and the types, counts and lengths of its parts."""

from __future__ import annotations

import json
import subprocess
import tracemalloc

import pytest
from cli_support import ROOT, quartet

from host.orchestration.approval import MAX_PLAN_BYTES, plan_from_file


def alias_bomb(levels: int = 9, width: int = 9) -> str:
    """A plan whose queries are ``width**levels`` texts, written with nested YAML aliases
    in a few hundred bytes (nine levels: 546 bytes that once cost 1.1 GB)."""
    refs = ", ".join(["x"] * width)
    lines = [f"a0: &a0 [{refs}]"]
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * width)}]")
    lines.append(f"subquestions:\n  - text: How was it built?\n    queries: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_before_it_is_expanded(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(alias_bomb(), encoding="utf-8")
    assert len(plan.read_bytes()) < 1024
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"aliases \(\*name\) are not accepted"):
            plan_from_file(plan, "How was it built?")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 1024 * 1024
    # a small bomb, which the old reader expanded into queries and accepted, is refused too
    plan.write_text(alias_bomb(levels=3, width=3), encoding="utf-8")
    with pytest.raises(ValueError, match="aliases"):
        plan_from_file(plan, "How was it built?")


def _part(text: str = "How was it built?", queries: object = None) -> dict:
    return {"text": text, "queries": ["built", "canal"] if queries is None else queries}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            json.dumps([_part(f"Part {n}?") for n in range(7)]),
            "7 sub-questions; a plan has at most 6",
        ),
        (json.dumps([_part("x" * 401)]), "sub-question 1: longer than 400 characters"),
        (json.dumps([_part(queries="built canal")]), "'queries' must be a list of texts"),
        (json.dumps([_part(queries=[["nested"]])]), "'queries' must be a list of texts"),
        (json.dumps([_part(queries=[True])]), "'queries' must be a list of texts"),
        (json.dumps([_part(queries=["a", "b", "c", "d", "e"])]), "at most 4 queries"),
        (json.dumps([_part(queries=["q" * 201])]), "a query is longer than 200 characters"),
        (json.dumps([{"queries": ["a"]}]), "each sub-question is a text or has a 'text'"),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ("subquestions: [unclosed", "cannot read it"),
        (b"- caf\xe9?\n", "not UTF-8 text"),
        ("- " + "x" * MAX_PLAN_BYTES, "larger than 64 KiB"),
    ],
)
def test_a_malformed_plan_file_is_one_clear_error(tmp_path, content, says):
    plan = tmp_path / "plan.yaml"
    if isinstance(content, bytes):
        plan.write_bytes(content)
    else:
        plan.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        plan_from_file(plan, "How was it built?")
    message = str(caught.value)
    assert message.startswith(f"--plan {plan}: ") and says in message, message
    assert "\n" not in message


def test_a_good_plan_file_still_reads(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "subquestions:\n  - How was it built?\n  - text: Why did it decline?\n"
        "    queries: [decline causes, 1855 flood, 42]\n",
        encoding="utf-8",
    )
    read = plan_from_file(plan, "The canal?")
    assert [s.text for s in read.subquestions] == ["How was it built?", "Why did it decline?"]
    assert read.subquestions[1].queries == ["decline causes", "1855 flood", "42"]


def test_the_command_refuses_a_bomb_with_exit_2(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text(alias_bomb(), encoding="utf-8")
    runs = tmp_path / "runs"
    proc = subprocess.run(
        [*quartet("run", "How was it built?", "--plan", str(plan), "--runs-dir", str(runs))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.splitlines() == [
        f"quartet: error: --plan {plan}: cannot read it (aliases (*name) are not accepted "
        "in a plan, line 2, column 10)"
    ]
    assert not runs.exists()


def test_a_plan_file_that_is_not_yaml_is_one_line_with_its_line_number(tmp_path):
    plan = tmp_path / "plan.yaml"
    plan.write_text("subquestions:\n  - text: a\n    b: c: d\n", encoding="utf-8")
    with pytest.raises(ValueError) as bad:
        plan_from_file(plan, "Q?")
    told = str(bad.value)
    assert "\n" not in told and "line 3, column 9" in told
    assert told.startswith(f"--plan {plan}: cannot read it (mapping values are not allowed")
