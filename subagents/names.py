"""The subagents' names, for code that must not import their tools (the CLI's parser,
configuration checks)."""

PIPELINE_ORDER = ("search", "browser", "file", "generate")
