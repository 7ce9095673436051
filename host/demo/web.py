"""The demo's world: the bundled site and the search engines, on 127.0.0.1, with no keys."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from ..config import Settings
from .search_web import Document, SearchWeb
from .site import DEMO_QUESTION, build_site, search_corpus, serve_site, write_sample_inputs

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


@contextmanager
def demo_environment(settings: Settings) -> Iterator[tuple[str, Settings]]:
    """Serve the bundled web and search engines; yield the demo question and settings.

    Every search source points at the local engines, pages may be fetched from
    127.0.0.1 and from nowhere else, API keys are hidden for the duration, and the
    sample input folder is mounted as ``/userinput/``.
    """
    with tempfile.TemporaryDirectory(prefix="quartet-demo-") as tmp:
        site_dir, input_dir = Path(tmp) / "site", Path(tmp) / "input"
        input_dir.mkdir()
        index = build_site(site_dir)
        write_sample_inputs(input_dir)
        with serve_site(site_dir) as base_url:
            corpus = [
                Document(d["title"], d["url"], d["text"]) for d in search_corpus(base_url, index)
            ]
            with SearchWeb(corpus) as engines:
                env = {
                    **engines.env(),
                    "QUARTET_ALLOW_HOSTS": "127.0.0.1,localhost",
                    "QUARTET_NETWORK": "allowlist",
                }
                with patched_environ(env, remove=KEY_VARIABLES):
                    yield DEMO_QUESTION, replace(settings, input_dir=input_dir)
