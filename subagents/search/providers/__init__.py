"""One module per built-in source. Each defines its provider, ``async def search(client,
query, settings) -> list[Item]``, its tool, ``async def search_<name>(query: str,
settings: object = None)`` (``run_source`` around the provider), and ``SOURCE =
Source("<name>", search_<name>, "<title>")``; its name in
:data:`subagents.search.sources.BUILT_IN` registers it."""
