"""MCP both ways: :mod:`.client` attaches allowlisted tools of external MCP servers to a
subagent's toolkit; :mod:`.serving` serves a subagent's own toolkit as an MCP server
(``quartet mcp NAME``)."""
