"""Contract tests: every built toolkit equals its canonical schemas in schemas/ exactly."""

from __future__ import annotations

import json
import re

import pytest

import schemas
from subagents import SPECS, all_schemas, schema_toolkit
from subagents.search.sources import BUILT_IN, BUILT_IN_SOURCES

SECRET_WORDS = re.compile(
    r"\b(api[_ ]?keys?|keys?|tokens?|secrets?|cookies?|passwords?|passwd|sessions?|"
    r"clients?|services?|handles?|credentials?|auth)\b",
    re.IGNORECASE,
)

BUILT = sorted(SPECS)

#: The built-in search tools, as the built-in sources hold them: a new built-in source's
#: tool is checked here and against its schema without a line of this file changing.
_SEARCH = tuple(source.tool_name for source in BUILT_IN_SOURCES.built_in_sources())
_WRITERS = ("generate_markdown", "generate_html", "generate_pptx")
#: SPEC §3, the exact field set of every tool, "not one more, not one less" (seed 003):
#: subagent → tool → its parameters, a "?" marking an optional one. Safety options such
#: as writing real formulas are Host-side settings, never parameters.
SPEC_FIELDS: dict[str, dict[str, str]] = {
    "search": dict.fromkeys(_SEARCH, "query"),
    "browser": {
        "viewer_fetch": "url, query?",
        "http_download": "url, save_path",
        "browser_navigate": "url",
        "browser_snapshot": "",
        "browser_screenshot": "",
        "browser_click": "selector",
        "browser_type": "selector, text",
        "browser_wait": "selector, timeout",
    },
    "file": {
        "list_allowed_directories": "",
        "list_directory": "path",
        "get_file_info": "path",
        "delete_file": "path",
        "read_text_file": "path, range?",
        "write_file": "path, content",
        "edit_file": "path, edits",
        "csv_read": "path",
        "csv_write": "path, rows",
        "pdf_read_text": "path, pages?",
        "xlsx_read_cells": "path, range",
        "xlsx_write_cells": "path, range, values",
        "pptx_read_outline": "path",
        "pptx_write": "path, slides_spec",
        "image_qa": "img_path, query?",
    },
    "generate": {
        **dict.fromkeys(_WRITERS, "requirements, out_path, from_paths?"),
        "generate_pdf": "out_path, requirements?, from_paths?",
    },
}
#: SPEC §3, the fields of the objects a list parameter holds: (tool, parameter) → names.
SPEC_ITEM_FIELDS = {
    ("edit_file", "edits"): {"old_text", "new_text"},
    ("pptx_write", "slides_spec"): {"title", "bullets", "notes"},
}


def spec_fields(listed: str) -> tuple[set[str], set[str]]:
    """``"url, query?"`` → (every parameter, the required ones)."""
    names = [n.strip() for n in listed.split(",") if n.strip()]
    return {n.rstrip("?") for n in names}, {n for n in names if not n.endswith("?")}


def field_set(schema: dict) -> tuple[set[str], set[str]]:
    """(every parameter, the required ones) of a tool schema."""
    params = schema["function"]["parameters"]
    return set(params.get("properties", {})), set(params.get("required", []))


def item_fields(schema: dict, param: str) -> set[str]:
    """The field names of the objects that list parameter ``param`` holds."""
    params = schema["function"]["parameters"]
    ref = params["properties"][param]["items"]["$ref"]
    return set(params["$defs"][ref.rsplit("/", 1)[1]]["properties"])


def test_the_spec_table_lists_27_tools_and_one_per_search_source():
    assert sum(len(tools) for name, tools in SPEC_FIELDS.items() if name != "search") == 27
    # one search_<name> tool per built-in source (five: 32 tools in all)
    assert list(SPEC_FIELDS["search"]) == [f"search_{name}" for name in BUILT_IN]
    assert sorted(SPEC_FIELDS) == BUILT


def test_the_field_check_catches_one_parameter_more_or_less():
    schema = schemas.load("file")["csv_write"]
    extra = json.loads(json.dumps(schema))
    extra["function"]["parameters"]["properties"]["formulas"] = {"type": "boolean"}
    assert field_set(extra) != spec_fields(SPEC_FIELDS["file"]["csv_write"])
    optional = json.loads(json.dumps(schema))
    optional["function"]["parameters"]["required"].remove("rows")
    assert field_set(optional) != spec_fields(SPEC_FIELDS["file"]["csv_write"])
    assert field_set(schema) == spec_fields(SPEC_FIELDS["file"]["csv_write"])


@pytest.mark.parametrize("name", BUILT)
def test_every_tool_has_exactly_the_spec_field_set(name):
    built = {s["function"]["name"]: s for s in all_schemas(schema_toolkit(name))}
    canonical = schemas.load(name)
    assert sorted(canonical) == sorted(SPEC_FIELDS[name]), "tools differ from SPEC §3"
    for tool, listed in SPEC_FIELDS[name].items():
        want = spec_fields(listed)
        assert field_set(canonical[tool]) == want, f"schemas/{name}/{tool}.json"
        assert field_set(built[tool]) == want, f"built {name}.{tool}"
    for (tool, param), fields in SPEC_ITEM_FIELDS.items():
        if tool in canonical:
            assert item_fields(canonical[tool], param) == fields, f"{tool}.{param}"


def _split_words(name: str) -> str:
    return re.sub(r"[_\-]+", " ", re.sub(r"([a-z])([A-Z])", r"\1 \2", name))


def secret_like(schema: dict) -> list[str]:
    """Parameter names or descriptions that speak of credentials or injected objects."""
    found = []
    props = schema["function"]["parameters"].get("properties", {})
    for pname, prop in props.items():
        if SECRET_WORDS.search(_split_words(pname)):
            found.append(f"parameter name {pname!r}")
        desc = prop.get("description", "")
        if SECRET_WORDS.search(desc):
            found.append(f"description of {pname!r}: {desc!r}")
    return found


def test_secret_scan_catches_planted_names():
    planted = {
        "function": {
            "name": "t",
            "parameters": {
                "properties": {
                    "apiKey": {"type": "string"},
                    "q": {"type": "string", "description": "the session cookie"},
                    "query": {"type": "string", "description": "what to look for"},
                }
            },
        }
    }
    hits = secret_like(planted)
    assert any("apiKey" in h for h in hits)
    assert any("'q'" in h for h in hits)
    assert not any("'query'" in h for h in hits)


@pytest.mark.parametrize("name", BUILT)
def test_toolkit_matches_canonical_schemas(name):
    spec = SPECS[name]
    built = {s["function"]["name"]: s for s in all_schemas(schema_toolkit(name))}
    canonical = schemas.load(name)
    assert sorted(built) == sorted(canonical), "extra or missing tools against schemas/"
    assert sorted(built) == sorted(spec.allowlist()), "toolkit differs from the allowlist"
    for tool, schema in built.items():
        assert schema == canonical[tool], f"{name}.{tool} differs from schemas/{name}/{tool}.json"


@pytest.mark.parametrize("name", BUILT)
def test_schemas_have_no_secret_like_parameters(name):
    for schema in schemas.load(name).values():
        assert secret_like(schema) == [], schema["function"]["name"]


@pytest.mark.parametrize("name", BUILT)
def test_every_tool_and_parameter_is_described(name):
    for schema in schemas.load(name).values():
        fn = schema["function"]
        assert fn.get("description", "").strip(), fn["name"]
        for pname, prop in fn["parameters"].get("properties", {}).items():
            assert prop.get("description", "").strip(), f"{fn['name']}.{pname}"


@pytest.mark.parametrize("name", BUILT)
def test_read_only_drops_every_writing_tool(name):
    spec = SPECS[name]
    writes = {t for g in spec.groups for t in g.writes}
    kept = set(spec.allowlist(read_only=True))
    assert not (kept & writes)
    assert kept | writes == set(spec.allowlist(read_only=False))


def test_schema_folders_belong_to_built_subagents():
    assert set(schemas.subagents_with_schemas()) <= set(SPECS) | {"__pycache__"}
