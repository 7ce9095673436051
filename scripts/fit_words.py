"""Read the question words and joiners of languages with no data file from public
treebanks (``research/model/words.json``).

Usage (from the repository root, after ``bash scripts/setup.sh`` and cloning the
treebanks as ``scripts/fit_language.py`` says)::

    .venv/bin/python scripts/fit_words.py            # rewrites research/model/words.json
    .venv/bin/python scripts/fit_words.py --check    # reads again and compares, writes nothing

A question in a language with no file in ``research/lang`` is read by the generic path
(:func:`research.lang.generic`). With the words this script reads for it, that path also
cuts a question at the language's own "and" where a question word follows ("… ja millal
…"), as the languages with a file are cut. For each treebank of
``scripts/fit_language.py`` whose language has no file here, it reads every CoNLL-U file
the mirror holds (with ``git show``, never copied here) and takes:

- **joiners**: the coordinating conjunctions (``CCONJ``) that make up at least
  :data:`JOINER_SHARE` of the treebank's, at most :data:`JOINERS` of them;
- **question words**: the words the treebank marks interrogative (``PronType=Int``;
  those marked interrogative or relative, ``Int,Rel``, only inside a question), and the
  pronouns, determiners and adverbs that open at least :data:`OPENS` questions and
  more questions than statements (a treebank that marks no interrogatives still shows
  its question words there); never a joiner, a personal or demonstrative pronoun, nor
  a word whose asking uses (marked interrogative, or opening a question) are fewer than
  :data:`ASKING_SHARE` of its uses (Galician "que" is mostly "that", Persian "که" too).

A language whose treebank holds too few questions to show its question words gets only
its joiners, which then cut nothing (a cut needs a question word after the joiner).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fit_language import TREEBANKS, conllu_files, git_text, head_commit, read_treebanks_main

from research.lang import WORDS, language

#: A conjunction is a joiner when it is at least this share of its treebank's.
JOINER_SHARE = 0.05
#: At most this many joiners a language.
JOINERS = 4
#: A word that opens questions is a question word when it opens at least this many, and
#: more questions than statements.
OPENS = 2
#: The least share of a word's uses that ask (see the module's notes).
ASKING_SHARE = 0.05
#: The parts of speech a question word is.
ASKING = frozenset({"PRON", "ADV", "DET"})
#: The kinds of pronoun that are no question word (personal, demonstrative, indefinite,
#: total, negative, reflexive, reciprocal).
NOT_ASKING = frozenset({"Prs", "Dem", "Ind", "Tot", "Neg", "Rcp", "Emp"})
#: What ends a question.
QUESTION_MARKS = ("?", "؟")


@dataclass
class Counts:
    """What one treebank's sentences show of its language's words."""

    conjunctions: Counter[str] = field(default_factory=Counter)
    interrogative: Counter[str] = field(default_factory=Counter)
    question_openers: Counter[str] = field(default_factory=Counter)
    statement_openers: Counter[str] = field(default_factory=Counter)
    uses: Counter[str] = field(default_factory=Counter)
    questions: int = 0
    statements: int = 0


def _features(raw: str) -> dict[str, str]:
    return dict(f.split("=", 1) for f in raw.split("|") if "=" in f)


def _tokens(block: str) -> list[list[str]]:
    """A CoNLL-U sentence's word lines (no multi-word ranges or empty nodes), split."""
    rows = [line.split("\t") for line in block.splitlines() if line and line[0] != "#"]
    return [r for r in rows if len(r) == 10 and r[0].isdigit()]


def count(text: str, into: Counts) -> None:
    """Add one CoNLL-U file's sentences to ``into``."""
    for block in text.split("\n\n"):
        words = _tokens(block)
        if not words:
            continue
        asked = words[-1][1] in QUESTION_MARKS
        into.questions += asked
        into.statements += not asked
        for word in words:
            form, pos, kind = word[1].casefold(), word[3], _features(word[5]).get("PronType", "")
            into.uses[form] += 1
            if pos == "CCONJ":
                into.conjunctions[form] += 1
            if kind == "Int" or (asked and kind == "Int,Rel"):
                into.interrogative[form] += 1
        first = words[0]
        kind = _features(first[5]).get("PronType", "")
        if first[3] in ASKING and not set(kind.split(",")) & NOT_ASKING:
            openers = into.question_openers if asked else into.statement_openers
            openers[first[1].casefold()] += 1


def joiners(counts: Counts) -> list[str]:
    """The language's joiners (see the module's notes), commonest first."""
    total = sum(counts.conjunctions.values())
    common = counts.conjunctions.most_common(JOINERS)
    return [w for w, n in common if total and n / total >= JOINER_SHARE and w.isalpha()]


def question_words(counts: Counts, joined: list[str]) -> list[str]:
    """The language's question words (see the module's notes), sorted."""
    found = set(counts.interrogative)
    for word, opens in counts.question_openers.items():
        if opens >= OPENS and opens > counts.statement_openers[word]:
            found.add(word)
    asking = counts.interrogative + counts.question_openers
    return sorted(
        w
        for w in found
        if w not in joined
        and any(c.isalpha() for c in w)
        and asking[w] >= ASKING_SHARE * counts.uses[w]
    )


def read_words(ud: Path) -> dict[str, object]:
    """Each language with no file here, its joiners and question words, and the
    treebank commits they were read from."""
    languages: dict[str, dict[str, list[str]]] = {}
    data: dict[str, str] = {}
    for name, code in TREEBANKS.items():
        if language(code) is not None or code in ("en", "zh"):
            continue
        gitdir = ud / f"{name}.git"
        counts = Counts()
        for path in conllu_files(gitdir):
            if (text := git_text(gitdir, path)) is not None:
                count(text, counts)
        if not counts.questions and not counts.statements:
            raise SystemExit(f"no sentence from {name}: git clone --mirror it into {ud}")
        joined = joiners(counts)
        languages[code] = {"joiners": joined, "question_words": question_words(counts, joined)}
        data[name] = head_commit(gitdir)
        found = languages[code]
        print(f"{name} ({counts.questions} questions): {found}", file=sys.stderr)
    return {"read_from": data, "languages": languages}


def main() -> None:
    read_treebanks_main(__doc__, read_words, WORDS, "word list", indent=1)


if __name__ == "__main__":
    main()
