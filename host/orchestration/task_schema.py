"""The JSON schema the Host's ``task`` tool is offered with.

agentscope derives a tool's schema from its signature and docstring; for ``task`` two
parts of it are made exact here. ``subagent_type`` is an enum of the subagents the run
registered, so that a model cannot name another one (a request naming one anyway is
still refused by the delegator, with the list of valid names). ``context`` is an object
with the keys the delegator reads (:class:`TaskContext`), every one optional, instead of
a free-form object, which strict providers cannot accept.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from agentscope.tool import Toolkit
from pydantic import BaseModel, Field

from subagents.spec import SubAgentSpec

from .delegation import task


class TaskContext(BaseModel):
    """The context of one task; each subagent reads the keys named for it."""

    subquestion: str | None = Field(
        default=None,
        description='The sub-question\'s id, e.g. "q2"; search and browser tasks must name it.',
    )
    queries: list[str] | None = Field(
        default=None, description="Search tasks: short keyword queries to run."
    )
    urls: list[str] | None = Field(
        default=None,
        description="Browser tasks: pages to read, from search results or links of pages read.",
    )
    download: bool | None = Field(
        default=None,
        description="Browser tasks without a sub-question: true to download the documents found.",
    )
    paths: list[str] | None = Field(
        default=None,
        description='File tasks: files or folders (ending in "/") to read.',
    )
    formats: list[str] | None = Field(
        default=None,
        description="Generate tasks: the report formats wanted, among the run's formats.",
    )


def subagent_lines(specs: Mapping[str, SubAgentSpec]) -> str:
    """One line per subagent, ``- "name": what it does``, as the Host's prompt and the
    ``task`` tool describe them (each spec's ``host_line``, else its description)."""
    return "\n".join(
        f'- "{name}": {spec.host_line or spec.description}' for name, spec in specs.items()
    )


def task_json_schema(specs: Mapping[str, SubAgentSpec]) -> dict[str, Any]:
    """The ``task`` tool's schema: its description lists the subagents, and
    ``subagent_type`` is limited to them.

    Args:
        specs: the subagents the Host may delegate to, by name, in order.

    Returns:
        The schema to register ``task`` with (``json_schema`` of agentscope's
        ``Toolkit.register_tool_function``).
    """
    names = list(specs)
    scratch = Toolkit()
    scratch.register_tool_function(task, preset_kwargs={"delegator": None})
    schema = copy.deepcopy(scratch.get_json_schemas()[0])
    head, _, rest = schema["function"]["description"].partition("\n")
    subagents = f"The subagents:\n{subagent_lines(specs)}"
    schema["function"]["description"] = f"{head}\n\n{subagents}\n\n{rest.strip()}".rstrip()
    props = schema["function"]["parameters"]["properties"]
    props["subagent_type"] = {
        "type": "string",
        "enum": names,
        "description": f"The subagent that does the task: one of {', '.join(names)}.",
    }
    props["context"] = {
        "anyOf": [context_schema(), {"type": "null"}],
        "default": None,
        "description": props["context"]["description"],
    }
    return schema


def context_schema() -> dict[str, Any]:
    """:class:`TaskContext` as a JSON schema object, without pydantic's titles."""
    schema = TaskContext.model_json_schema()
    schema.pop("title", None)
    for prop in schema["properties"].values():
        prop.pop("title", None)
    return schema


__all__ = ["TaskContext", "context_schema", "task_json_schema"]
