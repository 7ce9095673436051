"""The benchmarks' pages: a link written inside a paragraph is a link of the served page."""

from __future__ import annotations

from pathlib import Path

import httpx

from demo.corpus import CorpusPage, corpus_world, page_html

OVERVIEW = CorpusPage(
    "Harbour Hill",
    "en/harbour-hill",
    [
        "Harbour Hill is a village on a headland <north of the bay>.",
        "- [Fishing fleet](/en/harbour-hill-1.html): Six boats still land their catch here.",
        "Its [old mill](/en/harbour-hill-2.html) & the quay are listed buildings.",
    ],
)


def test_a_link_in_a_paragraph_is_an_anchor_and_its_text_is_read_as_the_words():
    html = page_html(OVERVIEW)
    assert '<li><a href="/en/harbour-hill-1.html">Fishing fleet</a>: Six boats' in html
    assert 'Its <a href="/en/harbour-hill-2.html">old mill</a> &amp; the quay' in html
    assert "&lt;north of the bay&gt;" in html  # the rest is still text, escaped
    assert "Fishing fleet: Six boats still land their catch here." in OVERVIEW.text
    assert "Its old mill & the quay are listed buildings." in OVERVIEW.text
    assert "](" not in OVERVIEW.text


def test_a_served_overview_links_to_the_served_topic_page(tmp_path: Path):
    topic = CorpusPage("Fishing fleet", "en/harbour-hill-1", ["Six boats land here."])
    with corpus_world([OVERVIEW, topic], tmp_path / "site") as world:
        base = world.site_url.rstrip("/")
        overview = httpx.get(f"{base}/en/harbour-hill.html", timeout=30)
        assert overview.status_code == 200
        assert 'href="/en/harbour-hill-1.html"' in overview.text
        linked = httpx.get(f"{base}/en/harbour-hill-1.html", timeout=30)
        assert linked.status_code == 200 and "Six boats land here." in linked.text
