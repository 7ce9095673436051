"""The bundled demo web: built, served on 127.0.0.1 and fetched over real HTTP."""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import httpx
import pytest
from bs4 import BeautifulSoup

from demo.site import (
    DEMO_QUESTION,
    DEMO_QUESTION_ZH,
    REDIRECTS,
    SiteIndex,
    build_site,
    search_corpus,
    serve_site,
    write_sample_inputs,
)
from subagents.browser.session import CHROMIUM_FLAGS, chromium_path

MIME = {
    ".pdf": "application/pdf",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".csv": "text/csv",
    ".html": "text/html",
    ".css": "text/css",
    ".js": "text/javascript",
}


@dataclass
class Demo:
    index: SiteIndex
    base: str
    inputs: list[Path]
    http: httpx.Client
    seconds: float


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    root = tmp_path_factory.mktemp("demo")
    started = time.perf_counter()
    index = build_site(root / "site")
    inputs = write_sample_inputs(root / "input")
    seconds = time.perf_counter() - started
    with serve_site(index.folder) as base, httpx.Client(timeout=10) as http:
        yield Demo(index, base, inputs, http, seconds)


def _words(text: str) -> int:
    return len(re.findall(r"[A-Za-z0-9']+", text)) + len(re.findall(r"[\u4e00-\u9fff]", text))


def _internal_links(page_url: str, html_text: str, base: str) -> set[str]:
    soup = BeautifulSoup(html_text, "html.parser")
    refs = [a.get("href") for a in soup.find_all("a")]
    refs += [link.get("href") for link in soup.find_all("link")]
    refs += [script.get("src") for script in soup.find_all("script")]
    found = set()
    for ref in refs:
        if not ref:
            continue
        url = urldefrag(urljoin(page_url, ref)).url
        if url.startswith(base):
            found.add(url)
    return found


def test_site_has_the_pages_and_documents_asked_for(demo: Demo) -> None:
    english = [p for p in demo.index.pages if p.lang == "en"]
    chinese = [p for p in demo.index.pages if p.lang == "zh"]
    assert len(english) >= 24
    assert len(chinese) >= 12
    assert {Path(d.path).suffix for d in demo.index.documents} == {".pdf", ".xlsx", ".csv", ".pptx"}
    assert sum(p.script_rendered for p in demo.index.pages) == 1
    for page in demo.index.pages:
        assert 300 <= _words(page.text) <= 1100, (page.path, _words(page.text))
    for page in chinese:  # wrapped Chinese lines must not leave spaces inside sentences
        assert not re.search(r"[\u4e00-\u9fff，。] [\u4e00-\u9fff]", page.text), page.path
    print(f"build_site + write_sample_inputs: {demo.seconds:.2f} s")


def test_every_page_is_served_with_boilerplate_and_every_internal_link_resolves(
    demo: Demo,
) -> None:
    to_check: set[str] = {demo.base}
    for page in demo.index.pages:
        url = demo.base + page.path
        response = demo.http.get(url)
        assert response.status_code == 200, url
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        soup = BeautifulSoup(response.text, "html.parser")
        assert soup.find("header") and soup.find("nav") and soup.find("footer"), url
        assert soup.title and page.title in soup.title.text
        links = _internal_links(url, response.text, demo.base)
        doc_links = {u for u in links if "/docs/" in u}
        page_links = {u for u in links if u.endswith(".html") and u != url}
        assert len(page_links) >= 5, url
        if not page.script_rendered:
            assert soup.find("main").find("h2"), f"{url} has no headings"
            article_links = {
                urljoin(url, a["href"]) for a in soup.find("main").find_all("a", href=True)
            }
            assert len(article_links) >= 3, url
        to_check |= links | doc_links
    assert any("/docs/" in u for u in to_check)
    home = demo.http.get(demo.base)
    to_check |= _internal_links(demo.base, home.text, demo.base)
    broken = []
    for url in sorted(to_check):
        response = demo.http.get(url, follow_redirects=True)
        if response.status_code != 200:
            broken.append((url, response.status_code))
    assert broken == []
    assert len(to_check) > len(demo.index.pages)


def test_content_types_and_missing_paths(demo: Demo) -> None:
    for document in demo.index.documents:
        response = demo.http.get(demo.base + document.path)
        assert response.status_code == 200
        assert response.headers["content-type"].split(";")[0] == MIME[Path(document.path).suffix]
        assert response.headers["content-type"] == document.content_type
        assert int(response.headers["content-length"]) == len(response.content) > 500
    for asset in ("assets/site.css", "assets/timeline.js"):
        response = demo.http.get(demo.base + asset)
        assert response.headers["content-type"].split(";")[0] == MIME[Path(asset).suffix]
    assert demo.http.get(demo.base + "en/no-such-page.html").status_code == 404
    assert demo.http.get(demo.base + "docs/").status_code == 404  # no directory listings


def test_old_address_answers_301_to_an_existing_page(demo: Demo) -> None:
    assert demo.index.redirects == REDIRECTS
    for old, new in demo.index.redirects.items():
        assert not (demo.index.folder / old).exists()
        response = demo.http.get(demo.base + old)
        assert response.status_code == 301
        assert urljoin(demo.base + old, response.headers["location"]) == demo.base + new
        followed = demo.http.get(demo.base + old, follow_redirects=True)
        assert followed.status_code == 200
        assert str(followed.url) == demo.base + new
        assert demo.index.page(new).title in followed.text
        assert demo.http.head(demo.base + old).status_code == 301


def test_script_page_is_an_empty_shell_until_its_script_runs(demo: Demo) -> None:
    page = next(p for p in demo.index.pages if p.script_rendered)
    raw = demo.http.get(demo.base + page.path).text
    soup = BeautifulSoup(raw, "html.parser")
    sources = [tag["src"] for tag in soup.find_all("script", src=True)]
    assert sources
    main = soup.find("main")
    assert _words(main.get_text(" ")) < 10
    for tag in soup(["script", "style", "header", "nav", "aside", "footer"]):
        tag.decompose()
    assert _words(soup.get_text(" ")) < 30 < _words(page.text)
    assert "Tongwaxiang" not in raw and "Reading the timeline" not in raw
    script = demo.http.get(urljoin(demo.base + page.path, sources[0]))
    assert script.status_code == 200
    assert "Tongwaxiang" in script.text and "Reading the timeline" in script.text


async def test_script_page_renders_its_text_in_chromium(demo: Demo) -> None:
    from playwright.async_api import async_playwright

    page_info = next(p for p in demo.index.pages if p.script_rendered)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=chromium_path(), args=list(CHROMIUM_FLAGS)
        )
        try:
            tab = await browser.new_page()
            await tab.goto(demo.base + page_info.path)
            await tab.wait_for_selector("main#app table")
            text = await tab.inner_text("main")
        finally:
            await browser.close()
    assert "Tongwaxiang" in text and "Reading the timeline" in text
    assert "Loading" not in text


def _download(demo: Demo, path: str, tmp_path: Path) -> Path:
    response = demo.http.get(demo.base + path)
    assert response.status_code == 200
    out = tmp_path / Path(path).name
    out.write_bytes(response.content)
    return out


def test_documents_open_with_their_libraries(demo: Demo, tmp_path: Path) -> None:
    import openpyxl
    from pptx import Presentation
    from pypdf import PdfReader

    report = PdfReader(_download(demo, "docs/grand-canal-report.pdf", tmp_path))
    assert len(report.pages) >= 3
    text = "\n".join(p.extract_text() for p in report.pages)
    for term in ("Huitong", "Nanwang", "Daicun Dam", "1855", "World Heritage", "通惠河"):
        assert term in text, term

    report_zh = PdfReader(_download(demo, "docs/grand-canal-report-zh.pdf", tmp_path))
    text_zh = "\n".join(p.extract_text() for p in report_zh.pages)
    assert "\x00" not in text_zh
    for term in ("京杭大运河", "南旺", "戴村坝", "南水北调"):
        assert term in text_zh, term

    book = openpyxl.load_workbook(_download(demo, "docs/canal-sections.xlsx", tmp_path))
    assert book.sheetnames == ["Sections", "各段", "Notes"]
    sheet = book["Sections"]
    assert sheet["A1"].value == "Section"
    names = [sheet.cell(row=r, column=2).value for r in range(2, 9)]
    assert names[0] == "通惠河" and names[-1] == "江南运河"
    assert sheet["E9"].value == "=SUM(E2:E8)" and sheet["F9"].value == "=SUM(F2:F8)"
    assert all(isinstance(sheet.cell(row=r, column=5).value, int) for r in range(2, 9))
    lengths = [[sheet.cell(row=r, column=c).value for c in (5, 6)] for r in range(2, 9)]
    sheet = book["各段"]  # the same sections in Chinese, with the same lengths and sums
    assert [c.value for c in sheet[1]] == [
        "河段", "起点", "终点", "长度下限（公里）", "长度上限（公里）", "说明"
    ]  # fmt: skip
    assert [sheet.cell(row=r, column=1).value for r in range(2, 9)] == names
    assert [[sheet.cell(row=r, column=c).value for c in (4, 5)] for r in range(2, 9)] == lengths
    assert sheet["A9"].value == "合计"
    assert sheet["D9"].value == "=SUM(D2:D8)" and sheet["E9"].value == "=SUM(E2:E8)"
    assert "郭守敬" in sheet["F2"].value and "邗沟" in sheet["F7"].value

    raw_csv = _download(demo, "docs/canal-cities.csv", tmp_path).read_bytes()
    rows = list(csv.reader(io.StringIO(raw_csv.decode("utf-8"))))
    assert rows[0][:2] == ["City", "Chinese name"]
    assert len(rows) == 18 and rows[6][:2] == ["Linqing", "临清"]

    deck = Presentation(_download(demo, "docs/grand-canal-slides.pptx", tmp_path))
    slides = list(deck.slides)
    assert 5 <= len(slides) <= 8
    assert all(s.has_notes_slide and s.notes_slide.notes_text_frame.text for s in slides)
    titles = [s.shapes.title.text for s in slides]
    assert "The Huitong summit and Nanwang" in titles


def test_sample_inputs_open_with_their_libraries(demo: Demo) -> None:
    import openpyxl
    from pptx import Presentation
    from pypdf import PdfReader

    by_suffix = {p.suffix: p for p in demo.inputs}
    assert set(by_suffix) == {".pdf", ".xlsx", ".csv", ".pptx", ".md", ".png"}
    assert all(p.is_file() and p.stat().st_size > 100 for p in demo.inputs)

    brief = "\n".join(p.extract_text() for p in PdfReader(by_suffix[".pdf"]).pages)
    assert "Research brief" in brief and "summit section" in brief

    book = openpyxl.load_workbook(by_suffix[".xlsx"])
    assert len(book.sheetnames) == 2 and book.sheetnames[1] == "备注"
    assert book["Itinerary"]["C2"].value == "北京"
    assert "南旺" in " ".join(str(c.value) for row in book["备注"] for c in row)

    raw = by_suffix[".csv"].read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    rows = list(csv.reader(io.StringIO(raw.decode("gbk"))))
    assert rows[0][0] == "城市" and "所在河段" in rows[0]
    assert any(row[0] == "淮安" and "漕运总督" in row[-1] for row in rows)

    deck = Presentation(by_suffix[".pptx"])
    assert len(deck.slides) >= 4
    assert all(s.notes_slide.notes_text_frame.text for s in deck.slides)

    assert "Daicun Dam" in by_suffix[".md"].read_text(encoding="utf-8")


def test_sample_image_is_readable_by_ocr(demo: Demo) -> None:
    import pytesseract
    from PIL import Image

    image = next(p for p in demo.inputs if p.suffix == ".png")
    text = pytesseract.image_to_string(Image.open(image), lang="chi_sim+eng")
    assert "CANAL" in text.upper()
    assert "2014" in text
    assert "运河" in text.replace(" ", "")


def test_search_corpus_lists_every_page_and_document_once(demo: Demo) -> None:
    corpus = search_corpus(demo.base, demo.index)
    assert len(corpus) == len(demo.index.pages) + len(demo.index.documents)
    urls = [entry["url"] for entry in corpus]
    assert len(set(urls)) == len(urls)
    assert all(set(entry) == {"title", "url", "text"} for entry in corpus)
    assert all(entry["title"] and len(entry["text"]) > 80 for entry in corpus)
    port = urlsplit(demo.base).port
    assert all(urlsplit(u).hostname == "127.0.0.1" and urlsplit(u).port == port for u in urls)
    reached = set()
    for url in urls:
        response = demo.http.get(url, follow_redirects=True)
        assert response.status_code == 200, url
        reached.add(str(response.url).removeprefix(demo.base))
    assert reached == set(demo.index.paths())
    assert any(url.removeprefix(demo.base) in REDIRECTS for url in urls)
    documents = [e for e in corpus if "/docs/" in e["url"]]
    assert {e["text"] for e in documents} == {d.description for d in demo.index.documents}


def test_demo_questions_are_answered_by_the_corpus(demo: Demo) -> None:
    assert DEMO_QUESTION.endswith("?") and "Grand Canal" in DEMO_QUESTION
    assert "大运河" in DEMO_QUESTION_ZH
    text = "\n".join(entry["text"] for entry in search_corpus(demo.base, demo.index))
    for term in (
        "Sui",
        "Daicun Dam",
        "Nanwang",
        "1855",
        "railway",
        "World Heritage",
        "South-to-North Water Diversion",
        "戴村坝",
        "南水北调",
    ):
        assert term in text, term


def test_server_stops_on_exit(demo: Demo) -> None:
    with serve_site(demo.index.folder) as base:
        assert httpx.get(base + "en/index.html").status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(base + "en/index.html", timeout=2)


def test_demo_environment_reuses_the_built_site_until_the_content_changes(tmp_path, monkeypatch):
    from demo import web

    with web.demo_world(tmp_path) as first:
        site_dirs = sorted((tmp_path / ".demo-cache").glob("site-*"))
        stamp = (site_dirs[0] / ".complete").stat().st_mtime_ns
        assert (first.input_dir / "museum-placard.png").exists()
    with web.demo_world(tmp_path) as second:
        assert second.input_dir == first.input_dir
        assert (site_dirs[0] / ".complete").stat().st_mtime_ns == stamp  # not rebuilt
    monkeypatch.setattr(web, "content_key", lambda: "changed-content")
    with web.demo_world(tmp_path) as third:
        assert third.input_dir.name == "inputs-changed-content"
    assert len(list((tmp_path / ".demo-cache").glob("site-*"))) == 2
    assert not list((tmp_path / ".demo-cache").glob(".*"))  # no half-made folders left
