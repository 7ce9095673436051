"""Whether the web the search sources read can be reached from this machine.

Asked before a run starts, so that a machine with no network says so at once ("no web:
answering from your files") instead of after a run's searches have all failed. A source
is reached when a TCP connection to its endpoint's host opens within the timeout; one is
enough. Endpoints are the sources' own, or those ``QUARTET_<NAME>_URL`` sets.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from ..settings import ToolSettings
from .providers import bing, github, google, sogou, wiki

#: Each built-in source's public endpoint (Wikipedia in English).
PUBLIC = {
    "google": google.PAGE_BASE,
    "bing": bing.PAGE_BASE,
    "sogou": sogou.PAGE_BASE,
    "github": github.API_BASE,
    "wiki": wiki.SITE.replace("{lang}", "en"),
}
#: Seconds a connection may take to open.
TIMEOUT = 3.0


def probe_targets(settings: ToolSettings) -> list[tuple[str, int]]:
    """The ``(host, port)`` of each built-in source's endpoint, once each.

    Args:
        settings: the tools' settings (their configured endpoints).
    """
    out: list[tuple[str, int]] = []
    for name, default in PUBLIC.items():
        url = urlsplit(settings.endpoint(name, default).replace("{lang}", "en"))
        if not url.hostname:
            continue
        port = url.port or (443 if url.scheme == "https" else 80)
        if (url.hostname, port) not in out:
            out.append((url.hostname, port))
    return out


async def _opens(host: str, port: int, timeout: float) -> bool:
    """Whether a TCP connection to ``host:port`` opens within ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def web_reachable(settings: ToolSettings, timeout: float = TIMEOUT) -> bool:
    """Whether any built-in source's endpoint accepts a connection (all tried at once).

    Args:
        settings: the tools' settings (their configured endpoints).
        timeout: seconds each connection may take to open.
    """
    targets = probe_targets(settings)
    opened = await asyncio.gather(*(_opens(h, p, timeout) for h, p in targets))
    return any(opened)


__all__ = ["PUBLIC", "probe_targets", "web_reachable"]
