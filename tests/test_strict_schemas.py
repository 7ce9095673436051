"""Schemas fit for strict providers: the task tool's enum, OpenAI's strict form (checked
against the documented strict-mode rules), nulls read as "not given", and the File
subagent's read-only toolkit for the reading tasks the Host delegates."""

from __future__ import annotations

import asyncio
import copy
import json
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest
from agentscope.agent import ReActAgent
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolUseBlock
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.tool import Toolkit
from cli_support import shared_cache

import schemas
from demo.settings import demo_settings
from demo.web import demo_world
from host.brains import Brain, ModelCallStats, RetryPolicy, make_brain, resilient_model
from host.brains.strict import OpenAIStrictTools, strict_tool, strict_tools
from host.config import Settings
from host.orchestration.delegation import Delegator, task
from host.orchestration.hub import Host
from host.orchestration.task_schema import task_json_schema
from subagents import SPECS, all_schemas, schema_toolkit
from subagents.file.spec import READERS
from subagents.spec import AllowlistError, build, check_allowlist, for_tasks

# -- OpenAI's strict-mode rules (Structured Outputs, "Supported schemas") ----------------

#: Keywords a strict schema may use; anything else (default, allOf, oneOf, not,
#: minLength, uniqueItems, patternProperties, ...) is rejected.
ALLOWED_KEYWORDS = {
    "type", "description", "title", "properties", "required", "additionalProperties",
    "items", "anyOf", "enum", "const", "$defs", "$ref",
    "pattern", "format",  # strings
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",  # numbers
    "minItems", "maxItems",  # arrays
}  # fmt: skip
TYPES = {"string", "number", "boolean", "integer", "object", "array", "null"}
MAX_DEPTH = 10
MAX_PROPERTIES = 5000
MAX_ENUM_VALUES = 1000
MAX_STRING_CHARS = 120_000


def strict_violations(tool: dict[str, Any]) -> list[str]:
    """Every way ``tool`` (a chat-completions function tool) breaks the strict rules."""
    function = tool.get("function") or {}
    params = function.get("parameters") or {}
    found: list[str] = []
    if function.get("strict") is not True:
        found.append("strict is not true")
    if params.get("type") != "object" or "anyOf" in params:
        found.append("the root is not an object")
    counts = {"properties": 0, "enum": 0, "chars": 0}
    _check(params, params, "#", 0, found, counts)
    if counts["properties"] > MAX_PROPERTIES:
        found.append(f"{counts['properties']} properties")
    if counts["enum"] > MAX_ENUM_VALUES:
        found.append(f"{counts['enum']} enum values")
    if counts["chars"] > MAX_STRING_CHARS:
        found.append(f"{counts['chars']} characters of names and enum values")
    return found


def _check(node: Any, root: dict, at: str, depth: int, found: list[str], counts: dict) -> None:
    if not isinstance(node, dict):
        found.append(f"{at}: not a schema")
        return
    if depth > MAX_DEPTH:
        found.append(f"{at}: nested deeper than {MAX_DEPTH}")
    found.extend(f"{at}: {key!r} is not permitted" for key in set(node) - ALLOWED_KEYWORDS)
    if "$ref" in node:
        if len(node) > 1:
            found.append(f"{at}: $ref with sibling keys")
        ref = node["$ref"]
        target: Any = root
        for part in [p for p in ref[1:].split("/") if p] if ref.startswith("#") else [None]:
            target = target.get(part) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            found.append(f"{at}: $ref {ref!r} does not resolve")
    kinds = node.get("type")
    for kind in kinds if isinstance(kinds, list) else [kinds] if kinds else []:
        if kind not in TYPES:
            found.append(f"{at}: type {kind!r}")
    if "type" not in node and not {"anyOf", "$ref", "enum", "const"} & set(node):
        found.append(f"{at}: no type")
    is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds)
    if is_object or "properties" in node:
        props = node.get("properties") or {}
        counts["properties"] += len(props)
        counts["chars"] += sum(len(p) for p in props)
        if node.get("additionalProperties") is not False:
            found.append(f"{at}: additionalProperties is not false")
        if sorted(node.get("required") or []) != sorted(props):
            found.append(f"{at}: not every property is required")
        for name, prop in props.items():
            _check(prop, root, f"{at}/properties/{name}", depth + 1, found, counts)
    if "items" in node:
        _check(node["items"], root, f"{at}/items", depth + 1, found, counts)
    for i, variant in enumerate(node.get("anyOf") or []):
        _check(variant, root, f"{at}/anyOf/{i}", depth, found, counts)
    for name, sub in (node.get("$defs") or {}).items():
        counts["chars"] += len(name)
        _check(sub, root, f"{at}/$defs/{name}", depth, found, counts)
    counts["enum"] += len(node.get("enum") or [])
    counts["chars"] += sum(len(str(v)) for v in node.get("enum") or [])


# -- the schemas sent ---------------------------------------------------------------------


def outcome_schema(name: str) -> dict[str, Any]:
    """The ``generate_response`` tool a delegated worker of ``name`` is offered."""
    toolkit = Toolkit()

    def generate_response(**kwargs: Any) -> None:
        """Generate the required structured output."""

    toolkit.register_tool_function(generate_response)
    toolkit.set_extended_model("generate_response", SPECS[name].outcome)
    return toolkit.get_json_schemas()[0]


def every_tool() -> list[dict[str, Any]]:
    """Every tool the Host or a subagent is offered, as agentscope emits it."""
    tools = [s for name in sorted(SPECS) for s in all_schemas(schema_toolkit(name))]
    tools += [outcome_schema(name) for name in sorted(SPECS)]
    return [*tools, task_json_schema(SPECS)]


def test_the_validator_rejects_what_strict_mode_rejects():
    canonical = schemas.load("file")
    for tool in ("read_text_file", "pptx_write", "edit_file"):
        assert strict_violations(canonical[tool]), tool
    found = strict_violations(canonical["read_text_file"])
    assert "strict is not true" in found
    assert "#: additionalProperties is not false" in found
    assert "#: not every property is required" in found
    assert "#/properties/range: 'default' is not permitted" in found
    loose = {"type": "object", "additionalProperties": True, "properties": {}, "required": []}
    params = {"type": "object", "properties": {"c": loose}, "required": ["c"]}
    params["additionalProperties"] = False
    free = {"type": "function", "function": {"name": "f", "strict": True, "parameters": params}}
    assert strict_violations(free) == ["#/properties/c: additionalProperties is not false"]


@pytest.mark.parametrize("tool", every_tool(), ids=lambda t: t["function"]["name"])
def test_every_tool_passes_the_strict_rules_in_strict_form(tool):
    assert strict_violations(strict_tool(tool)) == []


@pytest.mark.parametrize("tool", every_tool(), ids=lambda t: t["function"]["name"])
def test_strict_form_keeps_the_fields_and_makes_only_the_optional_ones_nullable(tool):
    strict = strict_tool(tool)["function"]["parameters"]
    params = tool["function"]["parameters"]
    assert list(strict["properties"]) == list(params["properties"])
    defs = {"$defs": strict.get("$defs", {})}
    required = set(params.get("required") or [])
    for name, prop in strict["properties"].items():
        takes_null = jsonschema.Draft202012Validator({**prop, **defs}).is_valid(None)
        was_nullable = jsonschema.Draft202012Validator(
            {**params["properties"][name], "$defs": params.get("$defs", {})}
        ).is_valid(None)
        assert takes_null == (name not in required or was_nullable), name


def test_the_canonical_schemas_stay_as_they_are():
    for name in sorted(SPECS):
        canonical = schemas.load(name)
        before = copy.deepcopy(canonical)
        strict_tools(list(canonical.values()))
        assert canonical == before
        built = {s["function"]["name"]: s for s in all_schemas(schema_toolkit(name))}
        assert built == canonical  # what the contract tests compare is untouched
        assert not any("strict" in s["function"] for s in built.values())


def test_a_free_form_object_is_sent_as_it_was_not_strict():
    blob = {"type": "object", "additionalProperties": True}
    params = {"type": "object", "properties": {"blob": blob}, "required": ["blob"]}
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": params}}
    assert strict_tool(tool) == tool


# -- the task tool -------------------------------------------------------------------------


def test_subagent_type_is_an_enum_of_the_registered_subagents():
    schema = task_json_schema(SPECS)["function"]["parameters"]
    assert schema["properties"]["subagent_type"]["enum"] == list(SPECS)
    assert schema["required"] == ["description", "subagent_type"]
    two = task_json_schema({n: SPECS[n] for n in ("search", "file")})["function"]["parameters"]
    assert two["properties"]["subagent_type"]["enum"] == ["search", "file"]
    strict = strict_tool(task_json_schema(SPECS))["function"]["parameters"]
    validator = jsonschema.Draft202012Validator(strict)
    good = {"description": "x", "subagent_type": "file", "context": None}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "subagent_type": "magic"})


def test_the_host_offers_task_with_the_enum_of_its_subagents(tmp_path):
    specs = {name: SPECS[name] for name in ("search", "browser", "file", "generate")}
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True)
    with demo_world(shared_cache()) as world:
        host = Host(demo_settings(settings, world), make_brain("offline"), specs=specs)
        result = asyncio.run(host.run(world.question))
    assert result.exit_code == 0
    agent = host.state.host_agent
    assert agent is not None
    offered = {s["function"]["name"]: s for s in agent.toolkit.get_json_schemas()}
    enum = offered["task"]["function"]["parameters"]["properties"]["subagent_type"]["enum"]
    assert enum == list(specs)
    assert "delegator" not in json.dumps(offered["task"])


def _delegator(names: list[str]) -> Delegator:
    settings = SimpleNamespace(concurrency=1)
    specs = {name: SPECS[name] for name in names}
    return Delegator(specs, None, None, None, None, None, settings, lambda *a, **k: None)


async def _call(toolkit: Toolkit, args: dict[str, Any]) -> str:
    block = ToolUseBlock(type="tool_use", id="c1", name="task", input=args)
    texts = []
    async for chunk in await toolkit.call_tool_function(block):
        texts = [b["text"] for b in chunk.content if b.get("type") == "text"]
    return "".join(texts)


def test_an_unknown_subagent_type_is_still_refused_at_run_time():
    delegator = _delegator(["search", "file"])
    toolkit = Toolkit()
    schema = task_json_schema({n: SPECS[n] for n in ("search", "file")})
    toolkit.register_tool_function(task, preset_kwargs={"delegator": delegator}, json_schema=schema)
    text = asyncio.run(_call(toolkit, {"description": "x", "subagent_type": "magic"}))
    assert text.startswith("Error: unknown subagent_type 'magic'")
    assert "search, file" in text
    assert delegator.started == 0 and delegator.delegations == []


# -- nulls from a strict model -------------------------------------------------------------


class ToolCaller(ChatModelBase):
    """Answers every request with the given tool calls and keeps the tools it was sent."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__(model_name="fake", stream=False)
        self.calls, self.sent = calls, []

    async def __call__(self, messages, tools=None, tool_choice=None, **kwargs):
        self.sent.append(tools)
        blocks = [
            ToolUseBlock(
                type="tool_use",
                id=f"c{i}",
                name=name,
                input=copy.deepcopy(args),
                raw_input=json.dumps(args),
            )
            for i, (name, args) in enumerate(self.calls)
        ]
        # a reply with no tool call says something: an empty one would be asked again
        return ChatResponse(content=blocks or [TextBlock(type="text", text="Nothing to call.")])


def _tools() -> list[dict[str, Any]]:
    file_tools = {s["function"]["name"]: s for s in all_schemas(schema_toolkit("file"))}
    return [
        file_tools["read_text_file"],
        file_tools["pptx_write"],
        outcome_schema("file"),
        task_json_schema(SPECS),
    ]


def test_a_null_argument_from_the_model_is_not_given():
    context = {"subquestion": "q1", "queries": None, "urls": None, "download": None,
               "paths": None, "formats": None}  # fmt: skip
    slide = {"title": "T", "bullets": None, "notes": None}
    calls = [
        ("read_text_file", {"path": "/userinput/a.txt", "range": None}),
        ("read_text_file", {"path": None, "range": [1, 5]}),  # required: the tool says why
        ("pptx_write", {"path": "/workspace/d.pptx", "slides_spec": [slide]}),
        ("generate_response", {"summary": "s", "evidence_ids": None, "gaps": ["g"], "files": None}),
        ("task", {"description": "d", "subagent_type": "search", "context": context}),
        ("task", {"description": "d", "subagent_type": "file", "context": None}),
    ]
    inner = ToolCaller(calls)
    reply = asyncio.run(OpenAIStrictTools(inner)([], tools=_tools()))
    given = [block["input"] for block in reply.content]
    assert given == [
        {"path": "/userinput/a.txt"},
        {"path": None, "range": [1, 5]},
        {"path": "/workspace/d.pptx", "slides_spec": [{"title": "T"}]},
        {"summary": "s", "gaps": ["g"]},
        {"description": "d", "subagent_type": "search", "context": {"subquestion": "q1"}},
        {"description": "d", "subagent_type": "file"},
    ]
    assert [json.loads(b["raw_input"]) for b in reply.content] == [a for _, a in calls]
    assert all(strict_violations(t) == [] for t in inner.sent[0])


def _sent_tools(spec: str) -> list[dict[str, Any]]:
    inner = ToolCaller([])
    brain = Brain(inner, OpenAIChatFormatter(), spec)
    model = resilient_model(brain, RetryPolicy(timeout=5, attempts=1), ModelCallStats())
    asyncio.run(model([{"role": "user", "content": "hi"}], tools=_tools()))
    return inner.sent[0]


def test_only_openai_is_sent_strict_tools():
    assert all(t["function"].get("strict") is True for t in _sent_tools("openai:m"))
    for spec in ("anthropic:m", "gemini:m", "ollama:m", "dashscope:m"):
        assert _sent_tools(spec) == _tools(), spec


# -- reading tasks get the read tools only -------------------------------------------------


READ_TOOLS = {"list_allowed_directories", "list_directory", "get_file_info", *READERS}


def test_the_read_only_file_toolkit_is_the_documented_subset():
    spec = for_tasks(SPECS["file"])
    assert set(spec.allowlist()) == READ_TOOLS == set(SPECS["file"].allowlist(read_only=True))
    toolkit = build(spec, {"service": object(), "settings": None})
    assert set(toolkit.tools) == READ_TOOLS
    check_allowlist(toolkit, spec)  # exact for the read-only spec
    with pytest.raises(AllowlistError):
        check_allowlist(toolkit, SPECS["file"])  # and not the full allowlist
    assert for_tasks(SPECS["search"]) is SPECS["search"]


class WatchedHost(Host):
    """A Host that keeps the tools of every worker it builds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.worker_tools: list[tuple[str, set[str]]] = []

    async def make_worker(self, spec):
        agent, guard, extra = await super().make_worker(spec)
        self.worker_tools.append((spec.name, set(agent.toolkit.tools)))
        return agent, guard, extra


def test_a_reading_file_task_gets_only_the_read_tools(tmp_path):
    settings = Settings(runs_dir=tmp_path / "runs", formats=("md",), quiet=True)
    with demo_world(shared_cache()) as world:
        host = WatchedHost(demo_settings(settings, world), make_brain("offline"))
        result = asyncio.run(host.run(world.question))
    files = [tools for name, tools in host.worker_tools if name == "file"]
    assert files, "no file task ran"
    for tools in files:
        assert tools - {ReActAgent.finish_function_name} == READ_TOOLS
    file_tasks = [d for d in result.delegations if d.subagent == "file"]
    assert file_tasks and all(d.status == "ok" for d in file_tasks), [
        d.summary() for d in file_tasks
    ]
    assert any(c.name in READERS and not c.failed for c in result.calls)
