"""The bottom floor of ``host/``: the names and records every other part shares.

The delegation messages and what the Host reads back from them (:mod:`.stages`) and the
record of a tool call (:mod:`.records`). Nothing here imports another part of ``host/``;
``brains/``, ``durability/``, ``mcp/`` and ``orchestration/`` stand on it.
"""
