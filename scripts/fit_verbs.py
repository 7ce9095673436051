"""Read which English words are verbs from a public treebank (``research/model/verbs.json``).

Usage (from the repository root, after ``bash scripts/setup.sh`` and cloning the
treebanks as ``scripts/fit_language.py`` says)::

    .venv/bin/python scripts/fit_verbs.py            # rewrites research/model/verbs.json
    .venv/bin/python scripts/fit_verbs.py --check    # reads again and compares, writes nothing

A word right after "what" or "which" names the kind of thing asked for ("which *river*
flows …"), unless it is the question's verb ("what *threatens* …", "what *caused* …"):
:func:`research.lang.verbs.finite_verb` tells them apart by what this script reads from
the English Web Treebank (every CoNLL-U file its mirror holds, with ``git show``, each
sentence counted once):

- **lemmas**: the lemmas tagged ``VERB`` in at least :data:`VERB_SHARE` of their uses as
  a verb, noun, proper noun or adjective, and at least :data:`LEAST` times;
- **verbs** and **others**: the word forms seen at least :data:`LEAST` times as one of
  those, finite verbs at least once (``VerbForm=Fin``), whose share as a verb is at
  least :data:`VERB_SHARE` (verbs) or under it (others). A form the treebank shows too
  rarely is read by its regular ending from the lemmas ("threatens", "drives").
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fit_language import conllu_files, git_text, head_commit, read_treebanks_main

from research.lang.verbs import VERBS

#: The treebank read.
TREEBANK = "UD_English-EWT"
#: A lemma or form is a verb when at least this share of its uses (as a verb, noun,
#: proper noun or adjective) is as a verb.
VERB_SHARE = 0.5
#: The fewest uses from which a lemma or a form is judged by its own uses.
LEAST = 3
#: The parts of speech weighed against a verb.
WEIGHED = frozenset({"VERB", "NOUN", "PROPN", "ADJ"})


class Counts:
    """Each lemma's and form's uses by part of speech, and the forms used as finite verbs."""

    def __init__(self) -> None:
        self.lemmas: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.forms: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.finite: set[str] = set()
        self.seen: set[str] = set()

    def add(self, text: str) -> None:
        """Add one CoNLL-U file's sentences, each sentence (by its text) once."""
        for block in text.split("\n\n"):
            said = next((ln for ln in block.splitlines() if ln.startswith("# text")), block)
            if said in self.seen:
                continue
            self.seen.add(said)
            for line in block.splitlines():
                row = line.split("\t")
                if len(row) != 10 or not row[0].isdigit() or row[3] not in WEIGHED:
                    continue
                form, lemma, pos = row[1].casefold(), row[2].casefold(), row[3]
                self.lemmas[lemma][pos] += 1
                self.forms[form][pos] += 1
                if pos == "VERB" and "VerbForm=Fin" in row[5]:
                    self.finite.add(form)


def _verb(uses: Counter[str]) -> bool:
    return uses["VERB"] >= VERB_SHARE * sum(uses.values())


def read_verbs(gitdir: Path) -> dict[str, object]:
    """The verb lemmas, and the finite forms judged by their own uses (see the module's
    notes), with the treebank commit they were read from."""
    counts = Counts()
    for path in conllu_files(gitdir, nested=True):
        if (text := git_text(gitdir, path)) is not None:
            counts.add(text)
    if not counts.seen:
        raise SystemExit(f"no sentence from {TREEBANK}: git clone --mirror it into {gitdir}")
    judged = [f for f in counts.finite if sum(counts.forms[f].values()) >= LEAST]
    found = {
        "lemmas": sorted(
            w for w, uses in counts.lemmas.items() if uses["VERB"] >= LEAST and _verb(uses)
        ),
        "verbs": sorted(f for f in judged if _verb(counts.forms[f])),
        "others": sorted(f for f in judged if not _verb(counts.forms[f])),
    }
    sizes = {k: len(v) for k, v in found.items()}
    print(f"{TREEBANK} ({len(counts.seen)} sentences): {sizes}", file=sys.stderr)
    return {"read_from": {TREEBANK: head_commit(gitdir)}, "en": found}


def main() -> None:
    read_treebanks_main(
        __doc__, lambda ud: read_verbs(ud / f"{TREEBANK}.git"), VERBS, "verb list", 0
    )


if __name__ == "__main__":
    main()
