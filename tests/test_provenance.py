"""No benchmark text in the repository: every tracked text file is checked against
fingerprints of the benchmark data's questions, long answers, titles and paragraphs.

The fingerprints (``tests/data/benchmark_fingerprints.bin``, hashes only) are written by
``scripts/benchmark_fingerprints.py`` from the data repositories, which this test does not
need. The second half shows on an invented article that the check finds a copy, even
re-wrapped and re-punctuated, and lets a paraphrase, a stock phrase and an article shorter
than a shingle's window of common words pass.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from script_support import load_script

ROOT = Path(__file__).resolve().parent.parent
TEXT_SUFFIXES = (".py", ".md", ".toml", ".yaml", ".yml", ".json", ".html", ".txt", ".cfg", ".sh")


fp = load_script("scripts/benchmark_fingerprints.py")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
    ).stdout.split("\0")
    skip = {fp.FINGERPRINTS.relative_to(ROOT).as_posix(), fp.HEADER.relative_to(ROOT).as_posix()}
    return [
        ROOT / name
        for name in listed
        if name.endswith(TEXT_SUFFIXES) and name not in skip and (ROOT / name).is_file()
    ]


def test_the_committed_fingerprints_are_whole() -> None:
    data = fp.FINGERPRINTS.read_bytes()
    header = json.loads(fp.HEADER.read_text(encoding="utf-8"))
    assert hashlib.sha256(data).hexdigest() == header["sha256"]
    assert len(data) == header["fingerprints"] * fp.HASH_BYTES
    assert header["parameters"]["words"] == fp.WORDS and header["parameters"]["chars"] == fp.CHARS
    assert header["fingerprints"] > 100_000 and len(data) < 2_500_000


def test_no_tracked_file_holds_benchmark_text() -> None:
    fingerprints = fp.load()
    files = _tracked_text_files()
    assert len(files) > 100
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for hit in fp.hits(text, fingerprints):
            found.append(f"{path.relative_to(ROOT)}:{hit.line}: {hit.text}")
    assert not found, "benchmark text in the repository:\n" + "\n".join(found)


# --------------------------------------------------------------------- the matcher itself

ARTICLE = fp.Item(
    "invented:branson",
    "en",
    titles=["Branson-on-Lake ferry"],
    questions=["Which shipwright built the first ferry that crossed Lake Corvane in 1861?"],
    answers=["Hollis Marrow of Port Edda"],
    contexts=[
        "The first ferry across Lake Corvane was built in 1861 by Hollis Marrow of Port Edda, "
        "a shipwright who had learned his trade on the salt barges of the Freedonian coast. "
        "Its paddle wheels were turned by four mules walking a treadmill below the deck, and "
        "the crossing to Branson-on-Lake took a little under three hours in calm weather."
    ],
)
ARTICLE_ZH = fp.Item(
    "invented:qingshi",
    "zh",
    titles=["青石镇渡口"],
    questions=["青石镇的第一条渡船是哪一年由谁造成的？"],
    contexts=[
        "青石镇的第一条渡船于一八六一年由白沙镇的船匠柳成舟造成，船身用本地的青冈木，"
        "靠四头骡子在甲板下踩动踏轮推动桨轮，在无风的日子渡过镜湖到对岸的白沙镇大约要三个小时。"
    ],
)


def test_a_copy_is_found_even_rewrapped_and_repunctuated() -> None:
    fingerprints = set(fp.build([ARTICLE, ARTICLE_ZH]))
    source = (
        '"""Example.\n'
        "\n"
        "    which SHIPWRIGHT built the first ferry that crossed\n"
        "    lake_corvane in 1861\n"
        '"""\n'
        "# its paddle-wheels were turned by four mules, walking a treadmill below the deck;\n"
        "# and the crossing took a while\n"
        'QUESTION = "青石镇的第一条渡船 是哪一年由谁造成的"\n'
    )
    found = fp.hits(source, fingerprints)
    assert [hit.line for hit in found] == [3, 6, 8]
    assert (
        found[0].text == "which shipwright built the first ferry that crossed lake corvane in 1861"
    )
    copied = "its paddle wheels were turned by four mules walking a treadmill below the deck"
    assert found[1].text in copied and len(found[1].text.split()) >= fp.WORDS
    assert found[2].text.replace(" ", "") == "青石镇的第一条渡船是哪一年由谁造成的"


def test_a_paraphrase_and_ordinary_prose_are_not_found() -> None:
    fingerprints = set(fp.build([ARTICLE, ARTICLE_ZH]))
    paraphrase = (
        "Who made the earliest ferry on Lake Corvane? A boatbuilder from Port Edda, in 1861;\n"
        "mules on a treadmill drove its paddles and the trip to Branson took three hours.\n"
        "青石镇最早的渡船是白沙镇船匠柳成舟在一八六一年造的，由骡子踩踏轮驱动。\n"
    )
    assert fp.hits(paraphrase, fingerprints) == []
    # one answer shorter than a shingle is a name, not text, and is not kept on its own
    assert fp.hits("Letters were sent to Hollis Marrow of Port Edda.", fingerprints) == []


def test_stock_phrases_and_common_words_are_dropped() -> None:
    """A run found in two articles, or made only of common words, is usage, not an item."""
    shared = "mules walking a treadmill below the deck"
    one = fp.Item("invented:one", "en", questions=[f"Why were {shared} on the Corvane ferry?"])
    two = fp.Item("invented:two", "en", questions=[f"Were {shared} ever seen in Dunmore?"])
    assert fp.hits(shared, set(fp.build([one])))
    assert fp.hits(shared, set(fp.build([one, two]))) == []
    plain = "what is the name of the first one that they found in the world"
    rare = "what is the name of the first ferry that they found in freedonia"
    common = fp.Item("invented:common", "en", questions=[plain + "?", rare + "?"])
    fingerprints = set(fp.build([common]))
    assert fp.hits(plain, fingerprints) == []
    assert fp.hits(rare, fingerprints)
    copy = "the crossing to Branson-on-Lake took a little under three hours in calm weather"
    assert fp.hits(copy, set(fp.build([ARTICLE])))


def test_fingerprints_are_deterministic_and_hold_no_text() -> None:
    first = fp.pack(fp.build([ARTICLE, ARTICLE_ZH]))
    assert first == fp.pack(fp.build([ARTICLE_ZH, ARTICLE]))
    assert len(first) % fp.HASH_BYTES == 0
    assert b"ferry" not in first and "渡船".encode() not in first
    assert fp.unpack(first) == frozenset(fp.build([ARTICLE, ARTICLE_ZH]))
