"""Rewrite schemas/<subagent>/<tool>.json from the toolkits the builders make.

Run after changing a tool's signature or docstring, then review the diff: the contract
tests compare the built toolkits with these files exactly.
"""

from __future__ import annotations

import sys

import schemas
from subagents import all_tool_schemas


def main(names: list[str]) -> int:
    for subagent, tool_schemas in all_tool_schemas().items():
        if names and subagent not in names:
            continue
        for path in schemas.dump(subagent, tool_schemas):
            print(path.relative_to(schemas.ROOT.parent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
