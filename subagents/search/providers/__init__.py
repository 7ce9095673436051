"""One module per source; each exposes ``async def search(client, query) -> list[Item]``."""
