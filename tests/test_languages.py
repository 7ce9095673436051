"""Questions in languages other than English and Chinese, read from their data files.

Each language in ``research/lang/`` gives the words a question asks with, the words that
join two asks and the subject pronouns of a later ask; its most common words (wordfreq's
list) say nothing of what a part asks. A question in such a language is cut into its
asks, its subject is a name it says (never its question word), a part's facets are its
content words, and a later ask that names nothing searches with the question's subject.
"""

from __future__ import annotations

import pytest

from research.lang import LATIN_LANGUAGES, language, text_language
from research.plan import offline_plan

# Invented questions: each asks two things of one named thing, the second by a pronoun
# or by nothing at all.
TWO_ASKS = [
    ("de", "Wie lang ist die Orvaldbrücke und wann wurde sie eröffnet?", "Orvaldbrücke"),
    ("es", "¿Cuándo se fundó Valdemora y quién diseñó su catedral?", "Valdemora"),
    ("fr", "Quelle est la hauteur du phare de Kerbasq et quand a-t-il été construit ?", "Kerbasq"),
    ("it", "Quanti abitanti ha Borgoleone e quando è stata fondata?", "Borgoleone"),
    ("pt", "Qual é a altura da Torre Vilarinho e quando ela foi construída?", "Vilarinho"),
    ("nl", "Hoe hoog is de Dromtoren en wanneer werd hij gebouwd?", "Dromtoren"),
]


@pytest.mark.parametrize(("lang", "question", "name"), TWO_ASKS, ids=[t[0] for t in TWO_ASKS])
def test_a_question_of_two_asks_gives_two_parts_about_the_name_it_says(lang, question, name):
    assert text_language(question) == lang
    plan = offline_plan(question)
    assert len(plan.subquestions) == 2, [s.text for s in plan.subquestions]
    idle = language(lang).function_words
    for sub in plan.subquestions:
        focus = plan.focus(sub)
        assert any(t in name.lower() for t in focus.subject), (sub.text, focus.subject)
        assert not ({f.term for f in focus.facets} & idle), (sub.text, focus.facets)
        assert any(name in q for q in sub.queries), (sub.text, sub.queries)


@pytest.mark.parametrize(
    "question",
    [
        "Wie hoch ist der Orvaldturm?",
        "¿Cuántos habitantes tiene Valdemora?",
        "Combien d'habitants compte Kerbasq ?",
    ],
)
def test_a_question_word_that_opens_the_question_is_not_its_subject(question):
    plan = offline_plan(question)
    opening = question.lstrip("¿").split()[0].lower()
    assert opening not in plan.focus(plan.subquestions[0]).subject
    assert all(not q.lower().startswith(opening) for q in plan.subquestions[0].queries)


def test_a_bare_question_word_asks_what_the_part_before_asks():
    """A bare "pourquoi" searches what the part before searches."""
    plan = offline_plan("Quand le pont de Kerbasq a-t-il fermé et pourquoi ?")
    assert len(plan.subquestions) == 2
    assert plan.subquestions[1].queries == plan.subquestions[0].queries


def test_every_language_with_data_is_one_the_detector_knows():
    """A data file for a language the detector never returns would never be read."""
    for code in LATIN_LANGUAGES:
        if code != "en":
            known = language(code)
            assert known is not None and known.question_words and known.joiners
    assert language("en") is None and language("xx") is None
