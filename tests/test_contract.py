"""Contract tests: every built toolkit equals its canonical schemas in schemas/ exactly."""

from __future__ import annotations

import re

import pytest

import schemas
from subagents import SPECS, all_schemas, schema_toolkit

SECRET_WORDS = re.compile(
    r"\b(api[_ ]?keys?|keys?|tokens?|secrets?|cookies?|passwords?|passwd|sessions?|"
    r"clients?|services?|handles?|credentials?|auth)\b",
    re.IGNORECASE,
)

BUILT = sorted(SPECS)


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
