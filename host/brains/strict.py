"""Tool schemas in OpenAI's strict form, and the model's nulls read as "not given".

OpenAI chat completions take a function tool with ``strict: true`` only when its
parameters follow the strict rules: every object has ``additionalProperties: false`` and
lists all its properties in ``required``; an optional property is made nullable instead
(``type: [..., "null"]`` or an ``anyOf`` with ``{"type": "null"}``); ``default`` is not
allowed; a ``$ref`` has no sibling keys. :func:`strict_tools` rewrites agentscope's
schemas that way, on a copy: the canonical schemas (``schemas/``) and the toolkits stay
as they are. A schema that cannot be made strict (a free-form object, ``not``, several
``allOf`` parts) is sent as it was, without ``strict``.

A strict model fills every optional parameter, with ``null`` when it means to leave it
out. :class:`OpenAIStrictTools` sends the strict schemas and removes, from each tool
call of the reply, every null the model gave for a property the original schema does
not require, at any depth, so that a tool sees exactly the arguments it would see
without strict mode.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import AsyncGenerator
from typing import Any

from .wrapping import ModelWrapper

NULL = {"type": "null"}
#: JSON types of Python values, for picking the ``anyOf`` variant a value belongs to.
_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


class NotStrict(ValueError):
    """A schema that OpenAI's strict mode cannot express."""


def strict_tools(schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool schema in strict form (see :func:`strict_tool`)."""
    return [strict_tool(schema) for schema in schemas]


def strict_tool(schema: dict[str, Any]) -> dict[str, Any]:
    """One agentscope tool schema in OpenAI's strict form, ``strict: true`` included.

    Args:
        schema: ``{"type": "function", "function": {"name", "description", "parameters"}}``.

    Returns:
        A new schema; ``schema`` itself unchanged when it cannot be made strict.
    """
    function = schema.get("function") or {}
    params = copy.deepcopy(function.get("parameters") or {"type": "object", "properties": {}})
    try:
        if params.get("type") != "object" or "anyOf" in params:
            raise NotStrict("the parameters must be an object")
        strict = _strict(params, params)
    except NotStrict:
        return schema
    return {**schema, "function": {**function, "parameters": strict, "strict": True}}


def _strict(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """``node`` (a copy, changed in place) made strict, its ``$defs`` included."""
    for name, sub in (node.get("$defs") or {}).items():
        node["$defs"][name] = _strict(sub, root)
    node.pop("default", None)
    if "$ref" in node and len(node) > 1:
        resolved = copy.deepcopy(resolve(node.pop("$ref"), root))
        return _strict({**resolved, **node}, root)
    if "not" in node or "if" in node or len(node.get("allOf") or [None]) > 1:
        raise NotStrict("not, if/then/else and allOf have no strict form")
    if "allOf" in node:
        return _strict({**node.pop("allOf")[0], **node}, root)
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    if "anyOf" in node:
        node["anyOf"] = [_strict(v, root) for v in node["anyOf"]]
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"], root)
    if node.get("type") == "object" or "properties" in node:
        _strict_object(node, root)
    return node


def _strict_object(node: dict[str, Any], root: dict[str, Any]) -> None:
    """Close an object: all properties required, the optional ones nullable."""
    if "properties" not in node and node is not root:
        raise NotStrict("a free-form object has no strict form")
    props = node.setdefault("properties", {})
    optional = [p for p in props if p not in (node.get("required") or [])]
    for name, prop in props.items():
        props[name] = _strict(prop, root)
        if name in optional:
            props[name] = nullable(props[name])
    node["required"] = list(props)
    node["additionalProperties"] = False


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """``node`` allowing ``null`` too: in its ``type`` list, ``anyOf`` or ``enum``."""
    if "anyOf" in node:
        if not any(v.get("type") == "null" for v in node["anyOf"]):
            node["anyOf"].append(dict(NULL))
        return node
    if "$ref" in node:
        return {"anyOf": [node, dict(NULL)]}
    kind = node.get("type")
    if kind is None:
        raise NotStrict("a property without a type has no strict form")
    kinds = kind if isinstance(kind, list) else [kind]
    node["type"] = kinds if "null" in kinds else [*kinds, "null"]
    if "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    """The schema a local ``$ref`` (``#/$defs/Name``) points to."""
    if not ref.startswith("#"):
        raise NotStrict(f"only local references have a strict form, not {ref!r}")
    node: Any = root
    for part in [p for p in ref[1:].split("/") if p]:
        node = node[part]
    return node


def without_nulls(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """``value`` without the nulls given for properties ``schema`` does not require.

    Args:
        value: the arguments (or a part of them) the model gave.
        schema: the original (not strict) schema of ``value``.
        root: the original parameters schema, for ``$ref``.
    """
    schema = _variant(schema, value, root)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        return {
            key: without_nulls(item, props.get(key) or {}, root)
            for key, item in value.items()
            if item is not None or key in required
        }
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [without_nulls(item, schema["items"], root) for item in value]
    return value


def _variant(schema: dict[str, Any], value: Any, root: dict[str, Any]) -> dict[str, Any]:
    """The part of ``schema`` that describes ``value``: ``$ref`` followed, and of an
    ``anyOf``, the first variant of ``value``'s JSON type."""
    if "$ref" in schema:
        schema = {**resolve(schema["$ref"], root), **schema}
    variants = schema.get("anyOf") or schema.get("oneOf")
    if not variants:
        return schema
    kind = next((name for py, name in _JSON_TYPES if isinstance(value, py)), "null")
    for variant in variants:
        if "$ref" in variant:
            variant = resolve(variant["$ref"], root)
        types = variant.get("type")
        if kind in (types if isinstance(types, list) else [types]):
            return variant
    return schema


def given_arguments(response: Any, tools: list[dict[str, Any]]) -> Any:
    """``response`` (a ChatResponse) with each tool call's nulls for optional parameters
    removed, as judged by the original schemas ``tools``. The provider's own text of the
    arguments (``raw_input``) is kept as it came."""
    params = {t["function"]["name"]: t["function"].get("parameters") or {} for t in tools}
    for block in getattr(response, "content", None) or []:
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        schema = params.get(str(block.get("name")))
        if schema is None or not isinstance(block.get("input"), dict):
            continue
        block["input"] = without_nulls(block["input"], schema, schema)
    return response


class OpenAIStrictTools(ModelWrapper):
    """Sends the tools in OpenAI's strict form; reads the model's nulls as not given."""

    async def __call__(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        structured_model: Any = None,
        **kwargs: Any,
    ) -> Any:
        response = await self.model(
            messages,
            tools=strict_tools(tools) if tools else tools,
            tool_choice=tool_choice,
            structured_model=structured_model,
            **kwargs,
        )
        if not tools:
            return response
        if inspect.isasyncgen(response):
            return self._stream(response, tools)
        return given_arguments(response, tools)

    @staticmethod
    async def _stream(chunks: AsyncGenerator, tools: list[dict[str, Any]]) -> AsyncGenerator:
        async for chunk in chunks:
            yield given_arguments(chunk, tools)


__all__ = [
    "NotStrict",
    "OpenAIStrictTools",
    "given_arguments",
    "nullable",
    "strict_tool",
    "strict_tools",
    "without_nulls",
]
