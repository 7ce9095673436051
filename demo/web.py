"""The demo's world: the bundled site and the search engines, on 127.0.0.1, with no keys."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .search_web import Document, Recorded, SearchWeb
from .site import (
    CONTENT,
    DEMO_QUESTION,
    DEMO_QUESTION_ZH,
    SiteIndex,
    build_site,
    search_corpus,
    serve_site,
    write_sample_inputs,
)
from .site import Document as SiteDocument
from .site import Page as SitePage


def demo_glossary() -> tuple[dict[str, tuple[str, ...]], ...]:
    """The demo field's glossary: groups of words that name the same thing and words for
    closely related things."""
    import yaml

    raw = yaml.safe_load((CONTENT / "data" / "glossary.yaml").read_text(encoding="utf-8"))
    return tuple(
        {key: tuple(str(w) for w in entry.get(key) or ()) for key in ("same", "related")}
        for entry in raw
    )


def content_key() -> str:
    """A hash of everything the site and the sample inputs are made from."""
    digest = hashlib.sha256()
    sources = sorted(p for p in CONTENT.rglob("*") if p.is_file())
    for path in [*sources, Path(__file__).with_name("site.py")]:
        digest.update(str(path.relative_to(CONTENT.parent)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _cached(folder: Path, make: Callable[[Path], object]) -> Path:
    """``folder``, made by ``make`` once; a half-made folder is never used."""
    if (folder / ".complete").exists():
        return folder
    tmp = folder.with_name(f".{folder.name}.{secrets.token_hex(4)}")
    try:
        make(tmp)
        (tmp / ".complete").write_text("", encoding="utf-8")
        with suppress(OSError):  # another run finished first; its copy is as good
            os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def cached_site(cache: Path) -> SiteIndex:
    """The built demo site, from ``cache`` when its content has not changed."""
    key = content_key()

    def make(folder: Path) -> None:
        index = build_site(folder)
        record = {
            "pages": [asdict(p) for p in index.pages],
            "documents": [asdict(d) for d in index.documents],
            "redirects": index.redirects,
        }
        (folder / ".index.json").write_text(
            json.dumps(record, ensure_ascii=False), encoding="utf-8"
        )

    folder = _cached(cache / f"site-{key}", make)
    record = json.loads((folder / ".index.json").read_text(encoding="utf-8"))
    return SiteIndex(
        folder=folder,
        pages=[SitePage(**p) for p in record["pages"]],
        documents=[SiteDocument(**d) for d in record["documents"]],
        redirects=record["redirects"],
    )


def cached_inputs(cache: Path) -> Path:
    """The sample input folder, from ``cache`` when its content has not changed."""
    return _cached(cache / f"inputs-{content_key()}", write_sample_inputs)


@dataclass(frozen=True)
class DemoWorld:
    """The running demo: its question, its sample inputs and where its services listen.

    Attributes:
        question: the bundled English question; ``question_zh`` the Chinese one.
        input_dir: the sample input folder (to mount as ``/userinput/``).
        site_url: base URL of the bundled site.
        endpoints: base URL of each search engine, by source name.
        hosts: the ``host:port`` of every demo server, the only places fetching may go.
        site_requests: the path of every GET the site answered, in order.
        glossary: the demo field's words (``data/glossary.yaml``), handed to the Host as
            a user's ``[[quartet.glossary]]`` would be.
        search_requests: every request the search engines received, in order.
    """

    question: str
    question_zh: str
    input_dir: Path
    site_url: str
    endpoints: dict[str, str]
    hosts: tuple[str, ...]
    site_requests: list[str]
    glossary: tuple[dict[str, tuple[str, ...]], ...] = ()
    search_requests: list[Recorded] = field(default_factory=list)

    def run_env(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` (an environment) pointed at this world, for a ``quartet run`` child
        process: the demo's engines, loopback only, and no key or token variables."""
        env = {k: v for k, v in base.items() if not k.endswith(("_KEY", "_TOKEN"))}
        env |= {f"QUARTET_{s.upper()}_URL": url for s, url in self.endpoints.items()}
        env |= {"QUARTET_NETWORK": "allowlist", "QUARTET_ALLOW_HOSTS": "127.0.0.1,localhost"}
        return env

    @property
    def ports(self) -> tuple[int, int]:
        """The site's and the engines' ports (to serve the world there again)."""
        return tuple(int(h.rsplit(":", 1)[1]) for h in self.hosts)  # type: ignore[return-value]


def _host_port(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port}"


@contextmanager
def demo_world(cache_root: Path, ports: tuple[int, int] = (0, 0)) -> Iterator[DemoWorld]:
    """Serve the bundled web and search engines on 127.0.0.1; yield where they are.

    Nothing in the process is changed (no environment variable is set): the caller turns
    the :class:`DemoWorld` into its own settings. The built site and inputs are kept in
    ``<cache_root>/.demo-cache/`` and rebuilt only when the bundled content changes.
    ``ports`` (site, engines) serve the world where a stopped run found it, to resume it;
    by default both are free ports.
    """
    cache = Path(cache_root) / ".demo-cache"
    cache.mkdir(parents=True, exist_ok=True)
    index = cached_site(cache)
    input_dir = cached_inputs(cache)
    requests: list[str] = []
    with serve_site(index.folder, requests=requests, port=ports[0]) as base_url:
        corpus = [Document(d["title"], d["url"], d["text"]) for d in search_corpus(base_url, index)]
        with SearchWeb(corpus, port=ports[1]) as engines:
            yield DemoWorld(
                question=DEMO_QUESTION,
                question_zh=DEMO_QUESTION_ZH,
                input_dir=input_dir,
                site_url=base_url,
                endpoints=dict(engines.urls),
                hosts=(_host_port(base_url), _host_port(engines.base)),
                site_requests=requests,
                glossary=demo_glossary(),
                search_requests=engines.requests,
            )
