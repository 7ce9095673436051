"""The demo's world: the bundled site and the search engines, on 127.0.0.1, with no keys."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, replace
from pathlib import Path

from ..config import Settings
from .search_web import Document, SearchWeb
from .site import (
    CONTENT,
    DEMO_QUESTION,
    SiteIndex,
    build_site,
    search_corpus,
    serve_site,
    write_sample_inputs,
)
from .site import Document as SiteDocument
from .site import Page as SitePage

#: Keys that must not leave this machine, even towards the local web.
KEY_VARIABLES = ("GOOGLE_API_KEY", "GOOGLE_CSE_ID", "BING_API_KEY", "GITHUB_TOKEN")


@contextmanager
def patched_environ(values: dict[str, str], remove: tuple[str, ...] = ()) -> Iterator[None]:
    """Set and remove environment variables for the block, then restore them."""
    saved = {k: os.environ.get(k) for k in (*values, *remove)}
    try:
        for k in remove:
            os.environ.pop(k, None)
        os.environ.update(values)
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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


@contextmanager
def demo_environment(settings: Settings) -> Iterator[tuple[str, Settings]]:
    """Serve the bundled web and search engines; yield the demo question and settings.

    Every search source points at the local engines, pages may be fetched from
    127.0.0.1 and from nowhere else, API keys are hidden for the duration, and the
    sample input folder is mounted as ``/userinput/``. The built site and inputs are
    kept in ``<runs>/.demo-cache/`` and rebuilt only when the bundled content changes.
    """
    cache = Path(settings.runs_dir) / ".demo-cache"
    cache.mkdir(parents=True, exist_ok=True)
    index = cached_site(cache)
    input_dir = cached_inputs(cache)
    with serve_site(index.folder) as base_url:
        corpus = [Document(d["title"], d["url"], d["text"]) for d in search_corpus(base_url, index)]
        with SearchWeb(corpus) as engines:
            env = {
                **engines.env(),
                "QUARTET_ALLOW_HOSTS": "127.0.0.1,localhost",
                "QUARTET_NETWORK": "allowlist",
            }
            with patched_environ(env, remove=KEY_VARIABLES):
                yield DEMO_QUESTION, replace(settings, input_dir=input_dir)
