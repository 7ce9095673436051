"""The spec kit: a declarative spec becomes a toolkit holding exactly its allowlist."""

from __future__ import annotations

import pytest
from agentscope.message import ToolUseBlock
from agentscope.tool import ToolResponse

from subagents import AllowlistError, SubAgentSpec, ToolGroup, all_schemas, check_allowlist
from subagents.results import (
    ENVELOPE_KEYS,
    bounded,
    error,
    ok,
    refused,
    status_of,
    text_of,
    unavailable,
)
from subagents.spec import build, injected_params


async def echo(text: str, service: object) -> ToolResponse:
    """Echo text back with the injected dependency's name.

    Args:
        text (str): What to echo.
    """
    return ok(f"{service}:{text}")


async def scribble(path: str, service: object) -> ToolResponse:
    """Write something.

    Args:
        path (str): Where to write.
    """
    return ok(f"wrote {path}")


async def press(selector: str) -> ToolResponse:
    """Press an element.

    Args:
        selector (str): CSS selector.
    """
    return ok(selector)


SPEC = SubAgentSpec(
    name="demo",
    description="test spec",
    sys_prompt="You test.",
    groups=(
        ToolGroup("basic", (echo, scribble), writes=frozenset({"scribble"})),
        ToolGroup("automation", (press,), description="Pressing things.", active=False),
    ),
    requires=("service",),
)


def test_build_registers_exactly_the_allowlist_and_hides_injected_params():
    tk = build(SPEC, {"service": "svc-object"})
    assert sorted(tk.tools) == ["echo", "press", "scribble"]
    schemas = {s["function"]["name"]: s for s in all_schemas(tk)}
    assert schemas["echo"]["function"]["parameters"]["properties"].keys() == {"text"}
    assert "service" not in str(schemas)
    # inactive groups are in the full dump but not in what the model sees now
    assert [s["function"]["name"] for s in tk.get_json_schemas()] == ["echo", "scribble"]
    assert tk.groups["automation"].active is False


def test_a_tool_is_read_into_its_schema_once_and_each_toolkit_gets_its_own(monkeypatch):
    from agentscope.tool import _toolkit

    from subagents import spec as spec_module

    read: list[str] = []
    real = _toolkit._parse_tool_function

    def counted(func, **kwargs):
        read.append(func.__name__)
        return real(func, **kwargs)

    monkeypatch.setattr(_toolkit, "_parse_tool_function", counted)
    monkeypatch.setattr(spec_module, "_schemas", {})
    spec = SubAgentSpec(
        name="again", description="d", sys_prompt="s", groups=(ToolGroup("basic", (press,)),)
    )
    first = build(spec, {})
    second = build(spec, {})
    assert read == ["press"]
    assert all_schemas(second) == all_schemas(first)
    second.tools["press"].json_schema["function"]["description"] = "changed"
    assert all_schemas(build(spec, {})) == all_schemas(first)


async def test_injected_dependency_reaches_the_tool():
    tk = build(SPEC, {"service": "svc-object"})
    call = ToolUseBlock(type="tool_use", id="1", name="echo", input={"text": "hi"})
    chunks = [c async for c in await tk.call_tool_function(call)]
    assert text_of(chunks[-1]) == "svc-object:hi"


def test_read_only_drops_writing_tools():
    tk = build(SPEC, {"service": 1}, read_only=True)
    assert sorted(tk.tools) == ["echo", "press"]
    assert SPEC.allowlist(read_only=True) == ["echo", "press"]


def test_missing_dependency_is_a_clear_error():
    with pytest.raises(TypeError, match="needs: service"):
        build(SPEC, {})


def test_allowlist_check_catches_extra_tools():
    tk = build(SPEC, {"service": 1})
    tk.register_tool_function(press, func_name="sneaky")
    with pytest.raises(AllowlistError, match="extra \\['sneaky'\\]"):
        check_allowlist(tk, SPEC)
    check_allowlist(tk, SPEC, extra=("sneaky",))


def test_injected_params_are_those_annotated_object():
    assert injected_params(echo) == ["service"]
    assert injected_params(press) == []


def test_result_helpers():
    fine = ok("fine", paths=["/workspace/a.md", "/workspace/a.md"], evidence_ids=["ev-1"])
    assert text_of(fine) == "fine"
    assert fine.metadata == {
        "status": "ok",
        "paths": ["/workspace/a.md"],
        "evidence_ids": ["ev-1"],
        "reason": "",
    }
    assert text_of(error("bad input")) == "Error: bad input"
    assert error("bad input").metadata == {
        "status": "error",
        "paths": [],
        "evidence_ids": [],
        "reason": "bad input",
    }
    assert text_of(error("Error: already")) == "Error: already"
    resp = unavailable("network down")
    assert resp.metadata == {
        "status": "unavailable",
        "paths": [],
        "evidence_ids": [],
        "reason": "network down",
    }
    assert text_of(resp).startswith("Error: unavailable: network down")
    no = refused("the page budget is spent")
    assert text_of(no) == "Error: the page budget is spent"
    assert no.metadata["status"] == "refused" and no.metadata["reason"] == text_of(no)[7:]
    assert all(tuple(r.metadata) == ENVELOPE_KEYS for r in (fine, resp, no))
    assert [status_of(r) for r in (fine, error("x"), resp, no)] == [
        "ok",
        "error",
        "unavailable",
        "refused",
    ]
    cut = bounded("x" * 50, 10, "Ask for more.")
    assert cut.startswith("x" * 10) and "40 more characters" in cut and "Ask for more." in cut
    assert bounded("short", 10, "-") == "short"
