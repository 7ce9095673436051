"""Fingerprints of the benchmark data, so that a test can find benchmark text in the repository.

Usage:
    .venv/bin/python scripts/benchmark_fingerprints.py            # rewrite tests/data/…
    .venv/bin/python scripts/benchmark_fingerprints.py --check    # exit 1 if out of date
    [--xquad GITDIR] [--cmrc GITDIR] [--out PATH]

The data is read at run time from the same git repositories ``bench/bench_general.py``
reads (``/tmp/xquad.git`` with the twelve ``xquad.*.json`` and ``/tmp/cmrc2018.git`` with
``data/cmrc2018_dev.json`` and ``data/cmrc2018_trial.json``, or ``QUARTET_XQUAD`` and
``QUARTET_CMRC``). What is written holds only hashes, never text:
``tests/data/benchmark_fingerprints.bin`` (the sorted hashes, six bytes each, big-endian)
and ``tests/data/benchmark_fingerprints.json`` beside it (the parameters below, the data
repositories' commits, counts and the SHA-256 of the ``.bin``). The output depends only on
the data and these parameters, so running the script twice writes the same bytes.
``tests/test_provenance.py`` reads every tracked text file, computes its shingles with the
functions here and fails on every one found among the fingerprints.

Text is normalised first: NFKC, lower case, and every character that is not a letter, a
mark or a digit becomes a space, so punctuation, underscores and line breaks do not hide a
copy. Han, kana and Thai characters are one token each (those scripts are written without
spaces); any other run of letters and digits is one word. A shingle is a run of tokens
from each position that is just long enough: :data:`WORDS` words or :data:`CHARS`
characters, a word counting as ``CHARS / WORDS`` characters when scripts mix.

Why these numbers (measured on this repository's own prose, about 3 MB of English and
Chinese, which must give no hit by chance):

- ``WORDS = 6``: five-word runs of English ("as a result of the", "one of the most
  important") are anyone's prose; six words is still short enough that a copied question
  (eight to twelve words) gives several shingles.
- ``CHARS = 10``: with eight or nine Han characters, a question frame that any Chinese
  example may use matched an invented example (石溪镇是以谁的名字命名的 met a benchmark
  question on its last nine characters); ten characters is about five or six Chinese words,
  and a copied Chinese question (ten to twenty characters) still gives one shingle or
  more.
- Stock phrases: a shingle found in :data:`STOCK_ITEMS` or more different articles of the
  data (an XQuAD article counts once over its twelve languages; each CMRC context is one) is
  dropped, and so is one made only of common words (each at least :data:`COMMON_ZIPF` on
  wordfreq's scale in the text's language, i.e. more than 30 in a million words: "what is
  the population of the", "in the united states of"). Such runs are usage, not the text
  of one benchmark item, and ordinary prose here may contain them; a copied item still has
  its shingles with a name or a rarer word in them.
- Every non-stock shingle of every question, of every answer of :data:`MIN_ANSWER_CHARS`
  or more characters and of every article title is kept: they are short, and they are what
  an example copies. A title or question shorter than one shingle is kept whole when it has
  :data:`MIN_WHOLE_TOKENS` tokens or more and is at least half a shingle long (a name of
  three words, a five-character Chinese question). An answer shorter than a shingle is
  not: it is a name or a term (two dynasties, a unit of measure) that prose on the same
  subject uses too, and the question and paragraph around it are what would be copied.
- Contexts (the paragraphs) are most of the data and are winnowed (Schleimer, Wilkerson
  and Aiken 2003, the method of MOSS): of every :data:`WINDOW` consecutive non-stock
  shingles only the smallest hash is kept, about ``2 / (WINDOW + 1)`` of them. The test
  checks every shingle of the repository against this set, so a copy of ``WINDOW``
  consecutive shingles of a paragraph, i.e. ``WINDOW + WORDS - 1`` = 14 words or ``WINDOW +
  CHARS - 1`` = 18 Han characters, is always found, and a shorter copy with a chance of
  about one in five for each shingle it shares. Questions are not winnowed, so a copied
  question is found unless every run of it is a stock phrase.
- Hashes are the first :data:`HASH_BYTES` = 6 bytes (48 bits) of BLAKE2b: with about
  330,000 fingerprints and a few million runs checked in the repository, the chance of one
  accidental collision is about 4e6 * 3.3e5 / 2**48, under one in a hundred, and the file
  stays under 2 MB (with eight bytes it would be 2.6 MB; a window of 8 gave 2.1 MB).
"""

from __future__ import annotations

import argparse
import bisect
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
#: The committed fingerprints and their header.
FINGERPRINTS = ROOT / "tests" / "data" / "benchmark_fingerprints.bin"
HEADER = FINGERPRINTS.with_suffix(".json")

XQUAD_GIT = Path(os.environ.get("QUARTET_XQUAD", "/tmp/xquad.git"))
CMRC_GIT = Path(os.environ.get("QUARTET_CMRC", "/tmp/cmrc2018.git"))
XQUAD_LANGS = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
CMRC_FILES = ("data/cmrc2018_dev.json", "data/cmrc2018_trial.json")

#: Words in a shingle of text written with spaces.
WORDS = 6
#: Characters in a shingle of Han, kana or Thai text.
CHARS = 10
#: Winnowing window over a context's shingles.
WINDOW = 9
#: A shingle in this many different articles is a stock phrase and is dropped.
STOCK_ITEMS = 2
#: Answers shorter than this (in characters) are not fingerprinted.
MIN_ANSWER_CHARS = 12
#: Bytes of BLAKE2b kept per shingle.
HASH_BYTES = 6
#: Fewest tokens in a title or question kept whole.
MIN_WHOLE_TOKENS = 2
#: A word at least this frequent (wordfreq's Zipf scale: 10 ** (z - 9) of all words) is common.
COMMON_ZIPF = 4.5

#: A shingle is full when its tokens weigh this much: a word weighs CHARS, a character WORDS.
FULL = WORDS * CHARS
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f\U00020000-\U0002fa1f"
_TOKEN = re.compile(f"[{_CJK}]|[^\\s{_CJK}]+")
_CHAR = re.compile(f"[{_CJK}]")


class _Fold(dict[int, int]):
    """``str.translate`` table: letters, marks and digits stay, everything else is a space."""

    def __missing__(self, code: int) -> int:
        value = code if unicodedata.category(chr(code))[0] in "LMN" else 32
        self[code] = value
        return value


_FOLD = _Fold()


class Token(NamedTuple):
    """One word or character of normalised text."""

    text: str
    #: Offset in :func:`prepare` of the text (the same line breaks as the original).
    start: int
    weight: int


@dataclass
class Item:
    """One article of the data: its key and its texts by kind."""

    key: str
    lang: str
    titles: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)


class Hit(NamedTuple):
    """A passage of a file whose shingles are benchmark fingerprints."""

    line: int
    text: str


# ----------------------------------------------------------------------------- shingles


def prepare(text: str) -> str:
    """NFKC and lower case (line breaks stay where they were)."""
    return unicodedata.normalize("NFKC", text).lower()


def tokenize(text: str) -> list[Token]:
    """The tokens of a text: each Han, kana or Thai character, and each other word."""
    folded = prepare(text).translate(_FOLD)
    return [
        Token(m.group(), m.start(), WORDS if _CHAR.match(m.group()) else CHARS)
        for m in _TOKEN.finditer(folded)
    ]


def fingerprint(tokens: Sequence[Token]) -> int:
    """The 48-bit hash of a run of tokens."""
    data = " ".join(t.text for t in tokens).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(data, digest_size=HASH_BYTES).digest(), "big")


def full_end(tokens: Sequence[Token], start: int) -> int | None:
    """Where the full shingle starting at ``start`` ends (exclusive), or None at the end."""
    weight = 0
    for end in range(start, len(tokens)):
        weight += tokens[end].weight
        if weight >= FULL:
            return end + 1
    return None


def shingles(tokens: Sequence[Token]) -> list[int]:
    """The hash of the full shingle at every position that has one, in order."""
    out = []
    for start in range(len(tokens)):
        end = full_end(tokens, start)
        if end is None:
            break
        out.append(fingerprint(tokens[start:end]))
    return out


def runs(tokens: Sequence[Token]) -> Iterator[tuple[int, int, int]]:
    """``(start, end, hash)`` of every run the repository is checked with: from each
    position, every run of :data:`MIN_WHOLE_TOKENS` tokens or more up to the full shingle."""
    for start in range(len(tokens)):
        weight = 0
        text = ""
        for end in range(start, len(tokens)):
            token = tokens[end]
            weight += token.weight
            text = f"{text} {token.text}" if text else token.text
            if end + 1 - start >= MIN_WHOLE_TOKENS:
                digest = hashlib.blake2b(text.encode("utf-8"), digest_size=HASH_BYTES).digest()
                yield start, end + 1, int.from_bytes(digest, "big")
            if weight >= FULL:
                break


def winnow(hashes: Sequence[int], window: int = WINDOW) -> set[int]:
    """The smallest hash of every ``window`` consecutive hashes (all of them if fewer)."""
    if len(hashes) <= window:
        return set(hashes)
    return {min(hashes[i : i + window]) for i in range(len(hashes) - window + 1)}


def whole(text: str) -> tuple[Token, ...] | None:
    """The tokens of a title or question shorter than one shingle, when it is kept whole:
    it has :data:`MIN_WHOLE_TOKENS` tokens or more and weighs half a shingle or more."""
    tokens = tokenize(text)
    weight = sum(t.weight for t in tokens)
    if len(tokens) < MIN_WHOLE_TOKENS or weight >= FULL or weight * 2 < FULL:
        return None
    return tuple(tokens)


# ----------------------------------------------------------------------------- building


def _item_texts(item: Item) -> list[str]:
    answers = [a for a in item.answers if len(a.strip()) >= MIN_ANSWER_CHARS]
    return [*item.titles, *item.questions, *answers, *item.contexts]


def _wholes(items: Sequence[Item]) -> dict[tuple[str, ...], int]:
    """Titles and questions kept whole, by their token texts, with their hashes."""
    out: dict[tuple[str, ...], int] = {}
    for item in items:
        for text in [*item.titles, *item.questions]:
            tokens = whole(text)
            if tokens is not None and not common(tokens, item.lang):
                out[tuple(t.text for t in tokens)] = fingerprint(tokens)
    return out


def _whole_items(items: Sequence[Item], wholes: Iterable[tuple[str, ...]]) -> dict[int, set[str]]:
    """For each whole title or question, the keys of the articles whose texts contain it."""
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for words in wholes:
        by_first.setdefault(words[0], []).append(words)
    found: dict[tuple[str, ...], set[str]] = {}
    for item in items:
        for text in _item_texts(item):
            words = [t.text for t in tokenize(text)]
            for i, word in enumerate(words):
                for candidate in by_first.get(word, ()):
                    if tuple(words[i : i + len(candidate)]) == candidate:
                        found.setdefault(candidate, set()).add(item.key)
    return {fingerprint([Token(w, 0, 0) for w in k]): v for k, v in found.items()}


@functools.cache
def _zipf(word: str, lang: str) -> float:
    import wordfreq  # only to build the fingerprints; checking a text does not need it

    if lang not in wordfreq.available_languages():
        return 0.0
    return wordfreq.zipf_frequency(word, lang)


def common(tokens: Sequence[Token], lang: str) -> bool:
    """Whether a run is made only of words at least :data:`COMMON_ZIPF` frequent in its
    language (a Han, kana or Thai character never counts as a common word)."""
    return all(t.weight == CHARS and _zipf(t.text, lang) >= COMMON_ZIPF for t in tokens)


def _stock(items: Sequence[Item]) -> set[int]:
    """Full shingles found in :data:`STOCK_ITEMS` or more different articles, or made only
    of common words."""
    seen: dict[int, str] = {}
    counts: dict[int, int] = {}
    stock: set[int] = set()
    for item in items:
        for text in _item_texts(item):
            tokens = tokenize(text)
            for start in range(len(tokens)):
                end = full_end(tokens, start)
                if end is None:
                    break
                digest = fingerprint(tokens[start:end])
                if common(tokens[start:end], item.lang):
                    stock.add(digest)
                if seen.get(digest) != item.key:
                    seen[digest] = item.key
                    counts[digest] = counts.get(digest, 0) + 1
    return stock | {digest for digest, count in counts.items() if count >= STOCK_ITEMS}


def build(items: Sequence[Item]) -> list[int]:
    """The sorted fingerprints of a set of articles (keys must be unique per article)."""
    stock = _stock(items)
    wholes = _wholes(items)
    whole_items = _whole_items(items, wholes)
    kept: set[int] = set()
    for digest in wholes.values():
        if len(whole_items.get(digest, ())) < STOCK_ITEMS:
            kept.add(digest)
    for item in items:
        answers = [a for a in item.answers if len(a.strip()) >= MIN_ANSWER_CHARS]
        for text in [*item.titles, *item.questions, *answers]:
            kept.update(d for d in shingles(tokenize(text)) if d not in stock)
        for text in item.contexts:
            kept |= winnow([d for d in shingles(tokenize(text)) if d not in stock])
    return sorted(kept)


# ----------------------------------------------------------------------------- matching


def pack(fingerprints: Sequence[int]) -> bytes:
    """Sorted fingerprints as bytes, :data:`HASH_BYTES` each, big-endian."""
    return b"".join(d.to_bytes(HASH_BYTES, "big") for d in sorted(fingerprints))


def unpack(data: bytes) -> frozenset[int]:
    """The fingerprints :func:`pack` wrote."""
    step = HASH_BYTES
    return frozenset(int.from_bytes(data[i : i + step], "big") for i in range(0, len(data), step))


def load(path: Path = FINGERPRINTS) -> frozenset[int]:
    """The committed fingerprints."""
    return unpack(path.read_bytes())


def hits(text: str, fingerprints: frozenset[int] | set[int]) -> list[Hit]:
    """Every passage of a text whose runs are fingerprints, overlapping runs joined, with the
    line it starts on and its normalised text."""
    tokens = tokenize(text)
    spans: list[list[int]] = []
    for start, end, digest in runs(tokens):
        if digest not in fingerprints:
            continue
        if spans and start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    if not spans:
        return []
    prepared = prepare(text)
    breaks = [i for i, ch in enumerate(prepared) if ch == "\n"]
    out = []
    for start, end in spans:
        words = [t.text for t in tokens[start:end]]
        line = bisect.bisect_right(breaks, tokens[start].start) + 1
        out.append(Hit(line, " ".join(words)))
    return out


# ----------------------------------------------------------------------------- the data


def _git(gitdir: Path, *args: str) -> bytes:
    proc = subprocess.run(["git", "--git-dir", str(gitdir), *args], capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark_fingerprints: error: git {' '.join(args)} in {gitdir}")
    return proc.stdout


def _json(gitdir: Path, path: str) -> Any:
    return json.loads(_git(gitdir, "show", f"HEAD:{path}"))


def xquad_items(gitdir: Path) -> list[Item]:
    """The 48 XQuAD articles in each of the twelve languages (an article's key is its
    English title in every language)."""
    items = []
    english = [a["title"] for a in _json(gitdir, "xquad.en.json")["data"]]
    for lang in XQUAD_LANGS:
        for key, article in zip(english, _json(gitdir, f"xquad.{lang}.json")["data"], strict=True):
            item = Item(f"xquad:{key}", lang, titles=[article["title"]])
            items.append(item)
            for paragraph in article["paragraphs"]:
                item.contexts.append(paragraph["context"])
                for qa in paragraph["qas"]:
                    item.questions.append(qa["question"])
                    item.answers.extend(a["text"] for a in qa["answers"])
    return items


def cmrc_items(gitdir: Path) -> list[Item]:
    """CMRC 2018's development and trial contexts, one article each."""
    items = []
    for path in CMRC_FILES:
        for entry in _json(gitdir, path):
            item = Item(f"cmrc:{entry['context_id']}", "zh", contexts=[entry["context_text"]])
            if entry.get("title", "").strip():
                item.titles.append(entry["title"])
            for qa in entry["qas"]:
                item.questions.append(str(qa["query_text"]))
                item.answers.extend(str(a) for a in qa["answers"])
            items.append(item)
    return items


def header(fingerprints: Sequence[int], data: bytes, xquad: Path, cmrc: Path) -> dict[str, Any]:
    """What the ``.json`` beside the fingerprints says."""
    return {
        "about": "Hashes of shingles of benchmark text; see scripts/benchmark_fingerprints.py.",
        "data": {
            "google-deepmind/xquad": {
                "commit": _git(xquad, "rev-parse", "HEAD").decode().strip(),
                "files": [f"xquad.{lang}.json" for lang in XQUAD_LANGS],
            },
            "ymcui/cmrc2018": {
                "commit": _git(cmrc, "rev-parse", "HEAD").decode().strip(),
                "files": list(CMRC_FILES),
            },
        },
        "parameters": {
            "words": WORDS,
            "chars": CHARS,
            "window": WINDOW,
            "stock_items": STOCK_ITEMS,
            "min_answer_chars": MIN_ANSWER_CHARS,
            "min_whole_tokens": MIN_WHOLE_TOKENS,
            "common_zipf": COMMON_ZIPF,
            "hash": f"blake2b, first {HASH_BYTES} bytes, big-endian",
        },
        "fingerprints": len(fingerprints),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xquad", type=Path, default=XQUAD_GIT)
    parser.add_argument("--cmrc", type=Path, default=CMRC_GIT)
    parser.add_argument("--out", type=Path, default=FINGERPRINTS)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    args = parser.parse_args(argv)
    fingerprints = build(xquad_items(args.xquad) + cmrc_items(args.cmrc))
    data = pack(fingerprints)
    text = json.dumps(header(fingerprints, data, args.xquad, args.cmrc), indent=2) + "\n"
    side = args.out.with_suffix(".json")
    if args.check:
        same = args.out.is_file() and args.out.read_bytes() == data
        same = same and side.is_file() and side.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'out of date'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    side.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(fingerprints)} fingerprints, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
