"""Questions in languages other than English and Chinese, read from their data files.

Each language in ``research/lang/`` gives the words a question asks with, the words that
join two asks and the subject pronouns of a later ask; its most common words (wordfreq's
list) say nothing of what a part asks. A question in such a language is cut into its
asks, its subject is a name it says (never its question word), a part's facets are its
content words, and a later ask that names nothing searches with the question's subject.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import research.lang
from research.lang import (
    LATIN_LANGUAGES,
    asked_in,
    language,
    language_name,
    served,
    text_language,
)
from research.plan import checked, offline_plan
from research.question import question_kind
from research.text import reading, stem, terms, words

# Invented questions: each asks two things of one named thing, the second by a pronoun
# or by nothing at all.
TWO_ASKS = [
    ("de", "Wie lang ist die Orvaldbrücke und wann wurde sie eröffnet?", "Orvaldbrücke"),
    ("ru", "Когда построили мост Орвальд и кто его спроектировал?", "Орвальд"),
    ("el", "Πότε χτίστηκε η γέφυρα Όρβαλντ και ποιος τη σχεδίασε;", "Όρβαλντ"),
    ("tr", "Orvald köprüsü ne zaman yapıldı ve kim tasarladı?", "Orvald"),
    ("vi", "Cầu Orvald được xây dựng khi nào và ai đã thiết kế nó?", "Orvald"),
    ("ro", "Când a fost construit podul Orvald și cine l-a proiectat?", "Orvald"),
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
        named = (name.lower(), stem(name.lower()))  # a stem of its script's stemmer
        assert any(t in n for t in focus.subject for n in named), (sub.text, focus.subject)
        assert not ({f.term for f in focus.facets} & idle), (sub.text, focus.facets)
        assert any(name in q for q in sub.queries), (sub.text, sub.queries)


@pytest.mark.parametrize(
    ("lang", "question", "auxiliary"),
    [
        ("de", "Wann wurden die Türme von Altdorf gebaut?", "wurden"),
        ("de", "Wann wurde die Brücke in Altdorf gebaut?", "wurde"),
        ("pt", "Quando foram construídas as torres de Vilarinho?", "foram"),
        ("it", "Quando furono costruite le torri di Borgoleone?", "furono"),
    ],
)
def test_an_auxiliary_is_no_word_a_sentence_must_say(lang, question, auxiliary):
    """The verbs of being, having and becoming that make a tense or the passive ("wurde
    gebaut") say nothing of what is asked, though many are rarer than a language's most
    common words: none is a facet."""
    plan = offline_plan(question)
    (sub,) = plan.subquestions
    facets = {f.term for f in plan.focus(sub).facets}
    with asked_in(lang):
        said = set(terms(auxiliary))
    assert facets and not facets & said, facets


# Invented questions whose later ask stands for a name with the noun it names or places:
# the ask, as planned, names the whole phrase.
PHRASES = [
    ("Wann wurde die Brücke von Altdorf gebaut, und wie lang ist sie?", "die Brücke von Altdorf"),
    (
        "Warum schrumpft der Gletscher am Kerntal, und wie schnell schmilzt er?",
        "der Gletscher am Kerntal",
    ),
    ("Wanneer werd de toren van Ellendam gebouwd en hoe hoog is hij?", "de toren van Ellendam"),
    ("¿Cuándo se construyó el puente de Alcántara y cuánto mide?", "el puente de Alcántara"),
    (
        "¿Cuáles son las causas de la sequía en Valdera y cómo afecta a la agricultura?",
        "la sequía en Valdera",
    ),
    ("Quando è stato costruito il ponte di Valdora e quanto è lungo?", "il ponte di Valdora"),
    ("Quando foi construída a ponte de Valmar e quanto mede?", "a ponte de Valmar"),
    # a pronoun attached after its verb ("mesure-t-il") stands there for the phrase
    ("Quand le pont de Millau a-t-il été construit et combien mesure-t-il ?", "le pont de Millau"),
    ("Quand la tour de Vernay a-t-elle été bâtie et que mesure-t-elle ?", "la tour de Vernay"),
]


@pytest.mark.parametrize(("question", "phrase"), PHRASES)
def test_a_later_ask_names_the_phrase_a_name_stands_in(question, phrase):
    """A pronoun, or a subject a language leaves unsaid ("¿cuánto mide?"), stands for the
    thing the name names or places, with its article, not for the bare name; the query
    names it without its articles and prepositions."""
    plan = offline_plan(question)
    assert len(plan.subquestions) == 2, [s.text for s in plan.subquestions]
    later = plan.subquestions[1]
    assert phrase in later.text
    assert "-t-" not in later.text and not any("-t-" in q for q in later.queries)
    noun, name = phrase.split()[1], phrase.split()[-1]
    assert any(f"{noun} {name}" in q for q in later.queries), later.queries


@pytest.mark.parametrize(
    ("question", "later", "name"),
    [
        (
            "¿Cuándo se fundó la ciudad de Valdera y quién fue su primer alcalde?",
            "Quién fue su primer alcalde?",
            "Valdera",
        ),
        (
            "Quando è stato fondato il porto di Valdora e chi era il suo primo direttore?",
            "Chi era il suo primo direttore?",
            "Valdora",
        ),
        (
            "Quando foi fundada a cidade de Valmar e quem foi o seu primeiro prefeito?",
            "Quem foi o seu primeiro prefeito?",
            "Valmar",
        ),
        # a capital names no thing in German: the director is still the harbour's
        (
            "Wann wurde der Hafen von Valdora gegründet und wer war sein erster Direktor?",
            "Wer war sein erster Direktor?",
            "Valdora",
        ),
    ],
)
def test_an_ask_of_what_a_possessive_gives_the_subject_is_about_the_subject(question, later, name):
    """A possessive ("su", "il suo", "o seu") gives the thing asked to the question's
    subject: the ask keeps its words as written (the subject is not put in as its own),
    is about the subject, and is searched with it first."""
    plan = offline_plan(question)
    part = plan.subquestions[1]
    assert part.text == later
    assert name in part.queries[0], part.queries
    code = plan.read_as["code"]
    with reading(code), asked_in(code):
        focus, named, linked = plan.focus(part), terms(name), terms("von de di")
    assert set(named) <= set(focus.core), focus
    assert not set(linked) & set(focus.subject), focus


@pytest.mark.parametrize(
    ("question", "parts", "kinds"),
    [
        (
            "Valdora limanı ne zaman kuruldu ve ilk müdürü kimdi?",
            ["Valdora limanı ne zaman kuruldu?", "İlk müdürü kimdi?"],
            ["when", "who"],
        ),
        (
            "Belis köprüsü ne kadar uzun ve neden kapatıldı?",
            ["Belis köprüsü ne kadar uzun?", "Neden kapatıldı?"],
            ["number", "why"],
        ),
        # one ask of two things: the joiner cuts nothing
        ("Valdora ve Belis limanları ne zaman kuruldu?", None, ["when"]),
        (
            "वाल्डोरा बंदरगाह कब बना और उसका पहला निदेशक कौन था?",
            ["वाल्डोरा बंदरगाह कब बना?", "उसका पहला निदेशक कौन था?"],
            ["when", "who"],
        ),
    ],
)
def test_asks_whose_question_words_stand_late_are_cut_at_the_joiner_between_them(
    question, parts, kinds
):
    """In Turkish and Hindi the question word stands late in its clause, before the verb:
    two asks joined by "ve" or "और" are two parts, each with its question word, while one
    ask of two things joined by it stays whole."""
    plan = offline_plan(question)
    texts = [s.text for s in plan.subquestions]
    assert texts == (parts or [question]), texts
    with asked_in(plan.read_as["code"]):
        assert [question_kind(t) for t in texts] == kinds


def test_an_ask_with_its_own_subject_keeps_it_and_searches_the_questions_too():
    plan = offline_plan("¿Por qué se secó el lago de Valdera y qué hizo el gobierno?")
    later = plan.subquestions[1]
    assert later.text == "Qué hizo el gobierno?"
    assert any(q.startswith("lago Valdera ") for q in later.queries), later.queries


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


# Invented questions in languages with no data file: each is named, and read generically.
GENERIC = [
    ("mk", "Кога е изграден мостот Орвалд и кој го проектирал?"),
    ("fa", "پل اوروالد چه زمانی ساخته شد و چه کسی آن را طراحی کرد؟"),
    ("he", "מתי נבנה גשר אורוולד ומי תכנן אותו?"),
    ("sl", "Kdaj so zgradili most Orvald in kdo ga je načrtoval?"),
    ("lt", "Kada buvo pastatytas Orvaldo tiltas ir kas jį suprojektavo?"),
    ("lv", "Kad tika uzbūvēts Orvalda tilts un kas to projektēja?"),
    # languages wordfreq has no word list for, told by the language model alone
    ("et", "Millal ehitati Kalvi mõis ja kes selle ehitas?"),
    ("cy", "Pryd cafodd Castell Penrhos ei adeiladu?"),
    ("eu", "Noiz eraiki zen Arrizabalgako zubia?"),
    ("sq", "Kur u ndërtua kalaja e Velçanit?"),
    ("lb", "Wéini gouf d'Buerg Hesper gebaut?"),
    ("mt", "Meta nbena l-Kastell ta' Ħal Far?"),
    ("ga", "Cathain a tógadh Caisleán Bhaile an Róistigh?"),
]


@pytest.mark.parametrize(("lang", "question"), GENERIC, ids=[g[0] for g in GENERIC])
def test_a_language_without_data_is_named_and_read_generically(lang, question):
    assert text_language(question) == lang
    assert served(lang) == "generic"
    read = offline_plan(question).to_dict()["question_language"]
    assert read == {"code": lang, "name": language_name(lang), "read": "generic"}
    assert read["name"] != lang  # a name a reader knows, not a code


# Invented questions in languages with no data file, joined by the language's own "and"
# before a question word its treebank shows, with each part's own words.
GENERIC_ASKS = [
    ("lv", "Kad tika uzbūvēts Orvalda tilts un kas to projektēja?", ["uzbūvēts", "projektēja"]),
    (
        "lt",
        "Kada buvo pastatytas Orvaldo tiltas ir kas jį suprojektavo?",
        ["pastatytas", "suprojektavo"],
    ),
    ("eu", "Noiz eraiki zen Orvald zubia eta nork diseinatu zuen?", ["eraiki", "diseinatu"]),
    ("cy", "Pryd adeiladwyd Pont Orvald a pwy a'i cynlluniodd?", ["adeiladwyd", "cynlluniodd"]),
    ("mk", "Кога е изграден мостот Орвалд и кој го проектирал?", ["изграден", "проектирал"]),
    ("fa", "پل اوروالد چه زمانی ساخته شد و چرا آن را بستند؟", ["ساخته", "بستند"]),
]


@pytest.mark.parametrize(
    ("lang", "question", "said"), GENERIC_ASKS, ids=[g[0] for g in GENERIC_ASKS]
)
def test_a_language_without_data_is_cut_at_its_own_and(lang, question, said):
    plan = offline_plan(question)
    assert plan.read_as["read"] == "generic"
    parts = [s.text for s in plan.subquestions]
    assert len(parts) == 2, parts
    for part, word in zip(parts, said, strict=True):
        assert word in part
        assert part[-1] == question[-1]  # closed as the question is (؟ in Persian)
    # the joiner and the question words are no words a part searches with
    known = research.lang.generic(lang)
    queries = {w.casefold() for s in plan.subquestions for q in s.queries for w in q.split()}
    assert not queries & (known.joiners | set(known.question_words))


def test_a_sentence_asking_with_a_word_its_treebank_lacks_is_not_cut():
    """Estonian's treebank shows "kes" (who) but not "millal" (when): the question is
    kept whole, not cut into a lead-in and an ask that loses its "ja"."""
    question = "Millal ehitati Kalvi mõis ja kes selle ehitas?"
    assert [s.text for s in offline_plan(question).subquestions] == [question]


def test_the_words_read_from_treebanks_are_for_languages_with_no_file_only():
    import json

    raw = json.loads(research.lang.WORDS.read_text(encoding="utf-8"))
    assert raw["read_from"] and all(len(c) == 40 for c in raw["read_from"].values())
    for code, read in raw["languages"].items():
        assert language(code) is None and served(code) == "generic"
        assert not set(read["joiners"]) & set(read["question_words"])


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("When was the Orvald Bridge built?", "full"),
        ("奥尔瓦德桥是什么时候建成的？", "full"),
        ("奧爾瓦德橋是甚麼時候建成的？", "full"),
        ("Wann wurde die Orvaldbrücke gebaut?", "lists"),
        ("متى بني جسر أورفالد ومن صممه؟", "lists"),
        ("ओरवाल्ड पुल कब बनाया गया था?", "lists"),
        ("แมวของออร์วัลด์ชื่ออะไร", "lists"),
    ],
)
def test_english_chinese_and_languages_with_data_are_not_read_generically(question, read):
    assert offline_plan(question).read_as["read"] == read


# Invented questions, each with the kind of answer its question word asks for.
KINDS = [
    ("สะพานออร์วัลด์สร้างขึ้นเมื่อใด?", "when"),
    ("สะพานออร์วัลด์ยาวเท่าไหร่?", "number"),
    ("ใครเลี้ยงแมวของออร์วัลด์?", "who"),
    ("ทำไมสะพานออร์วัลด์จึงปิด?", "why"),
    ("แมวของออร์วัลด์ชื่ออะไร?", "what"),
    ("ओरवाल्ड पुल कब बनाया गया था?", "when"),
    ("ओरवाल्ड पुल की लंबाई कितनी है?", "number"),
    ("ओरवाल्ड पुल किसने बनाया?", "who"),
    ("ओरवाल्ड पुल कहाँ है?", "where"),
    ("متى بني جسر أورفالد؟", "when"),
    ("كم يبلغ طول جسر أورفالد؟", "number"),
    ("من هو مهندس جسر أورفالد؟", "who"),
    # short question words inside longer words, and "من" as "from", ask nothing
    ("ما هو نظام الحكم في مدينة أورفالد؟", "what"),
    ("ما الذي جاء من مدينة أورفالد؟", "what"),
    # languages written in Latin, Cyrillic and Greek letters, each by its own words
    ("Wann wurde der Orvaldturm gebaut?", "when"),
    ("Wie viele Schleusen hat der Kanal von Brannow?", "number"),
    ("Wie lang ist die Orvaldbrücke?", "number"),
    ("Wie funktioniert die Schleuse von Brannow?", "how"),
    ("Wie heißt der Architekt des Orvaldturms?", "what"),
    ("Wer hat den Orvaldturm entworfen?", "who"),
    ("¿Por qué se secó el lago de Valdera?", "why"),
    ("¿Cuándo se fundó Valdemora?", "when"),
    ("¿Cuántos habitantes tiene Valdemora?", "number"),
    ("¿Cómo se llama el río de Valdemora?", "what"),
    ("¿Qué hizo Valdemora cuando llegó el tren?", "what"),
    ("Quand le phare de Kerbasq a-t-il été construit ?", "when"),
    ("Combien d'habitants compte Kerbasq ?", "number"),
    ("Qui a fondé Kerbasq ?", "who"),
    ("Quelle est la rivière qui traverse Kerbasq ?", "what"),
    ("Quale città è nota come la perla di Valdora?", "what"),
    ("Come funziona la chiusa di Borgoleone?", "how"),
    ("Onde fica a Torre Vilarinho?", "where"),
    ("Waarom werd de Dromtoren gesloten?", "why"),
    ("Ile mieszkańców ma Orwaldowo?", "number"),
    ("Vem ritade Orvaldbron?", "who"),
    ("Când a fost construit podul Orvald?", "when"),
    ("Когда построили мост Орвальд?", "when"),
    ("Сколько пролётов у моста Орвальд?", "number"),
    ("Как работает шлюз Орвальдска?", "how"),
    ("Как называется река, на которой стоит Орвальдск?", "what"),
    ("Γιατί έκλεισε η γέφυρα Όρβαλντ;", "why"),
    ("Πού βρίσκεται η γέφυρα Όρβαλντ;", "where"),
    ("Orvald köprüsü kaç metre uzunluğundadır?", "number"),
    ("Orvald köprüsünü kim tasarladı?", "who"),
    ("Cầu Orvald dài bao nhiêu mét?", "number"),
    ("Tại sao cầu Orvald bị đóng cửa?", "why"),
]


@pytest.mark.parametrize(("question", "kind"), KINDS)
def test_a_questions_kind_is_read_by_its_languages_question_words(question, kind):
    assert question_kind(question) == kind


# Invented questions of two asks, each with the kind of answer each part asks for: a
# part is cut at the language's own "and", asks by its own question word, and searches
# with the question's subject.
PARTS = [
    ("Wann wurde der Orvaldturm gebaut und wer hat ihn entworfen?", "Orvaldturm", "when who"),
    ("Wie hoch ist der Orvaldturm und warum wurde er gebaut?", "Orvaldturm", "number why"),
    ("¿Cuántos habitantes tiene Valdemora y por qué creció tanto?", "Valdemora", "number why"),
    ("¿Dónde está Valdemora y quién la fundó?", "Valdemora", "where who"),
    ("Combien d'habitants compte Kerbasq et qui l'a fondée ?", "Kerbasq", "number who"),
    ("Quand la tour de Vernay a-t-elle été bâtie et pourquoi ?", "Vernay", "when why"),
    ("Quando fu costruito il ponte di Valdora e perché fu chiuso?", "Valdora", "when why"),
    ("Quantos habitantes tem Vilarinho e quem a fundou?", "Vilarinho", "number who"),
    ("Wanneer werd de Dromtoren gebouwd en waarom werd hij gesloten?", "Dromtoren", "when why"),
    ("Kiedy zbudowano most w Orwaldowie i kto go zaprojektował?", "Orwaldow", "when who"),
    ("Когда построили мост Орвальд и кто его спроектировал?", "Орвальд", "when who"),
    ("Сколько жителей в Орвальдске и почему город растёт?", "Орвальдск", "number why"),
    ("Πότε χτίστηκε η γέφυρα Όρβαλντ και ποιος τη σχεδίασε;", "Όρβαλντ", "when who"),
    ("Orvald köprüsü ne zaman yapıldı ve neden kapandı?", "Orvald", "when why"),
    ("Cầu Orvald dài bao nhiêu mét và ai đã thiết kế nó?", "Orvald", "number who"),
    ("Când a fost construit podul Orvald și cine l-a proiectat?", "Orvald", "when who"),
]


@pytest.mark.parametrize(("question", "name", "kinds"), PARTS, ids=[p[1] for p in PARTS])
def test_each_part_of_a_question_asks_the_kind_its_own_question_word_asks(question, name, kinds):
    plan = offline_plan(question)
    parts = plan.subquestions
    assert [plan.focus(s).kind for s in parts] == kinds.split(), [s.text for s in parts]
    for sub in parts:
        assert any(name in q for q in sub.queries), (sub.text, sub.queries)


def test_a_models_plan_in_the_questions_own_language_is_kept():
    """A German plan for a German question is the model's; an English plan for it is not."""
    question = "Wann wurde der Orvaldturm gebaut und wer hat ihn entworfen?"
    german = {
        "subquestions": [
            {"text": "Wann wurde der Orvaldturm gebaut?", "queries": ["Orvaldturm Bau"]},
            {"text": "Wer hat den Orvaldturm entworfen?", "queries": ["Orvaldturm Architekt"]},
        ]
    }
    assert checked(german, question).planner == "model"
    english = {"subquestions": [{"text": "When was Orvald Tower built?", "queries": ["Orvald"]}]}
    plan = checked(english, question)
    assert plan.planner.startswith("offline (fallback: part q1 is in English")
    assert "German" in plan.planner


def test_a_word_of_another_script_is_compared_by_its_scripts_stemmer():
    """Inflected forms of one word share a term in Cyrillic, Greek, Arabic and
    Devanagari, so a question's "моста" meets a page's "мосту"; Latin words with accents
    stay as they are, and no stem is ever empty."""
    for forms in (("моста", "мосту", "мостом"), ("γέφυρα", "γέφυρας"), ("पुल", "पुलों")):
        assert len({stem(w) for w in forms}) == 1, forms
    assert stem("école") == "école"
    assert all(stem(w) for w in ("и", "в", "ال", "و", "και", "के"))
    page = "Мост через реку открыли в 1874 году."
    assert set(terms("Когда открыли этот мост?")) & set(terms(page)) >= {stem("мост")}


def test_words_in_latin_letters_are_compared_in_the_language_read():
    """Inside ``reading(code)`` a word in Latin letters is stemmed as a word of that
    language, so a page's inflected forms meet the question's; outside it, and for
    English, words are stemmed as English as before; a language that does not inflect
    keeps its words as written; a word's article or ending after an apostrophe is cut."""
    with reading("tr"):
        assert stem("köprülerin") == stem("köprünün") == stem("köprü")
        assert terms("Ankara'da") == terms("Ankara'nın") == [stem("ankara")]
    with reading("de"):
        assert stem("brücke") == stem("brücken")
    with reading("es"):
        assert stem("construida") == stem("construido")
        assert terms("l'agua") == [stem("agua")]
    with reading("vi"):
        assert stem("cầu") == "cầu" and stem("building") == "building"
    assert stem("köprülerin") != stem("köprü")  # English reading: accents as written
    assert stem("building") == stem("built")
    with reading("en"):
        assert terms("the bridge's length") == [stem("bridge"), stem("length")]


def test_a_page_read_for_its_answer_is_read_in_the_questions_language():
    """The Browser's BM25 pass runs in a thread, which the reading language must reach:
    an inflected question word finds its sentence only when read in its own language."""
    import asyncio

    from subagents.browser.workers import answer_from_text

    page = (
        "Eski köprü taştan yapılmıştır ve nehrin iki yakasını birleştirir.\n\n"
        "Pazar yeri her hafta açılır ve çevre köylerden satıcılar gelir."
    )

    async def quoted(language: str) -> list[str]:
        with reading(language):
            answer = await answer_from_text(page, "Köprülerin taşı", "http://127.0.0.1/", "p.md")
        return [item.span for item in answer.items]

    assert asyncio.run(quoted("en")) == []
    assert asyncio.run(quoted("tr")) == [page.split("\n\n")[0]]


def test_a_word_keeps_its_vowel_signs_and_thai_is_cut_into_words():
    """A vowel sign is a mark, not a letter: a Devanagari word stays one word, so its
    inflected forms meet; Thai, written without spaces, is cut into dictionary words, its
    function words dropped, so a question's words meet a page's sentence."""
    assert words("पुलों की लंबाई") == ["पुलों", "की", "लंबाई"]
    assert stem(words("पुलों")[0]) == stem("पुल")
    sentence = "กาน้ำชาใบนี้ทำจากดินเผาสีแดงโดยช่างปั้นฝีมือดี"
    question = "กาน้ำชาทำจากอะไร"
    assert {"น้ำชา", "ทำ"} <= set(terms(question)) & set(terms(sentence))
    assert "และ" not in terms("สะพานและถนน")
    assert words("e\u0301cole") == ["e\u0301cole"]  # a decomposed accent stays in its word


def test_telling_a_language_keeps_no_word_list_nor_table_of_words():
    """Telling a text's language weighs it in thirty-odd languages' word lists; a
    process that does so keeps neither wordfreq's lists (about 200 MB) nor its tables of
    words (about 100 MB, in the run and in every page worker), only each language's words
    as hashes with their frequency bands, which give the same frequencies."""
    from wordfreq import zipf_frequency

    from research.lang import zipf

    code = (
        "from research.lang import text_language\n"
        "from wordfreq import get_frequency_dict, get_frequency_list\n"
        "told = text_language('Wie viele Schleusen hat der Kanal zwischen den beiden Seen?')\n"
        "print(told, get_frequency_dict.cache_info().currsize,"
        " get_frequency_list.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.split() == ["de", "0", "0"], out.stdout
    for word in ("Schleusen", "Kanal", "zwischen", "l'écluse", "Wasserstraße", "xqzvw"):
        for lang in ("de", "fr", "en", "es"):
            assert zipf(word, lang) == zipf_frequency(word, lang, "small"), (word, lang)


def test_a_questions_words_are_weighed_by_the_large_lists_without_holding_them():
    """A question's words weigh by wordfreq's large English and Chinese lists, read as
    hashes with their bands: the same frequencies, digits and guessed word breaks
    included, and a two-letter word never takes the band of the one Chinese character
    whose two stored bytes are its own ("kp", "火")."""
    from wordfreq import zipf_frequency

    from research.lang import zipf

    for word, lang in (
        ("kp", "en"),
        ("火", "zh"),
        ("1855", "en"),
        ("waterways", "en"),
        ("grand canal", "en"),
        ("大运河", "zh"),
        ("换热站", "zh"),
        ("1855年", "zh"),
        ("ohmynews", "zh"),
    ):
        assert zipf(word, lang, "best") == zipf_frequency(word, lang), (word, lang)
    code = (
        "from research.question import weight\n"
        "from wordfreq import get_frequency_dict\n"
        "print(weight('waterway'), weight('运河'), get_frequency_dict.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    assert out.stdout.split()[-1] == "0", out.stdout


def test_a_word_list_read_once_is_kept_for_the_next_run_and_a_damaged_copy_read_again(
    tmp_path,
):
    """A word list is read from wordfreq once and kept as bands in the cache folder;
    the next process maps the kept table without reading wordfreq's list, and a damaged
    table is read again from wordfreq, with the same frequencies."""
    code = (
        "import wordfreq\n"
        "read = []\n"
        "real = wordfreq.get_frequency_list\n"
        "def counted(*args):\n"
        "    read.append(args)\n"
        "    return real(*args)\n"
        "counted.cache_clear = real.cache_clear\n"
        "wordfreq.get_frequency_list = counted\n"
        "from research.question import weight\n"
        "print(weight('waterway'), weight('运河'), len(read))\n"
    )
    env = {**os.environ, "QUARTET_CACHE_DIR": str(tmp_path)}

    def run() -> list[str]:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return out.stdout.split()

    first = run()
    kept = sorted(p.name for p in tmp_path.glob("wordfreq-*/*") if p.is_dir())
    assert kept == ["en-best", "zh-best"] and first[-1] == "2"
    assert run() == [*first[:2], "0"]  # mapped, not read
    damaged = next(tmp_path.glob("wordfreq-*/en-best/keys.npy"))
    damaged.write_bytes(damaged.read_bytes()[:1000])
    assert run() == [*first[:2], "1"]  # the damaged list read again, the same weights
    assert not list(tmp_path.glob("wordfreq-*/.*"))  # no half-written table left


PLANNED = (
    "import sys\n"
    "import host.orchestration.hub\n"
    "from research.plan import offline_plan\n"
    "offline_plan(sys.argv[1])\n"
    "jieba = sys.modules.get('jieba')\n"
    "print(bool(jieba and jieba.dt.initialized))\n"
)


@pytest.mark.parametrize(
    ("question", "loaded"),
    [("How do heat pumps work and what do they cost?", "False"), ("热泵是如何工作的？", "True")],
)
def test_only_a_chinese_question_loads_the_chinese_word_list(question, loaded):
    """jieba's dictionary (about 70 MB, most of a second to load) is loaded for Chinese
    text only: not when the Host is imported, nor to plan an English question."""
    out = subprocess.run(
        [sys.executable, "-c", PLANNED, question],
        cwd=Path(__file__).resolve().parent.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == loaded


def test_english_lemmas_are_lemminflects_answers_read_from_a_kept_table(tmp_path):
    """A word's lemmas come from a table kept in the cache folder, not from lemminflect's
    dictionaries in memory, and they are lemminflect's own answers: for words its table
    lists, for inflected and unknown words, and for a word with capitals."""
    from lemminflect import getAllLemmas

    from research.lemmas import all_lemmas

    for word in ("built", "fed", "batteries", "canals", "us", "'s", "xqzvw", "Built", "NASA"):
        assert all_lemmas(word) == getAllLemmas(word), word
    code = (
        "import sys\n"
        "from research.text import lemma, readings\n"
        "print(lemma('built'), sorted(readings('managed')), 'lemminflect' in sys.modules)\n"
    )
    first, second = _in_two_processes(code, tmp_path)
    assert first == ["build", "['ADJ',", "'VERB']", "True"]
    assert second == ["build", "['ADJ',", "'VERB']", "False"]
    assert list(tmp_path.glob("lemminflect-*/lemmas/keys.npy"))


def _in_two_processes(code: str, cache: Path) -> list[list[str]]:
    """The words ``code`` prints in a process that keeps its tables in ``cache``, then in
    one that maps them from there."""
    env = {**os.environ, "QUARTET_CACHE_DIR": str(cache)}
    printed = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        assert out.returncode == 0, out.stderr[-2000:]
        printed.append(out.stdout.split())
    return printed


def test_a_verb_form_and_a_capitalised_word_are_read_without_lemminflects_dictionaries(
    tmp_path,
):
    """Whether a word of a brief is a finite verb ("rose", "decides") and a capitalised
    word's lemmas are lemminflect's answers, read from tables kept in the cache folder:
    a later process loads neither of its dictionaries (about 65 MB)."""
    from lemminflect import getAllInflections, getAllLemmas

    from research.brief import is_finite
    from research.lemmas import PAST, THIRD_PERSON, verb_form

    def by_lemminflect(word: str) -> int:
        flags = 0
        for lemma in getAllLemmas(word).get("VERB") or ():
            forms = getAllInflections(lemma, upos="VERB")
            flags |= PAST if word in forms.get("VBD", ()) else 0
            flags |= THIRD_PERSON if word in forms.get("VBZ", ()) else 0
        return flags

    for word in ("rose", "found", "grazes", "phases", "built", "table", "walks", "xqzvw"):
        assert verb_form(word) == by_lemminflect(word), word
    assert [is_finite(w) for w in ("rose", "decides", "phases", "table")] == [
        True, True, False, False
    ]  # fmt: skip
    code = (
        "from lemminflect.core.Inflections import Inflections\n"
        "from lemminflect.core.Lemmatizer import Lemmatizer\n"
        "from research.brief import is_finite\n"
        "from research.lemmas import all_lemmas\n"
        "print(is_finite('rose'), all_lemmas('Built')['VERB'][0],\n"
        "      hasattr(Lemmatizer(), 'lemma_dict') or hasattr(Inflections(), 'infl_dict'))\n"
    )
    first, second = _in_two_processes(code, tmp_path)
    assert first == ["True", "Build", "True"] and second == ["True", "Build", "False"]
    assert list(tmp_path.glob("lemminflect-*/verb-forms/keys.npy"))


@pytest.mark.parametrize(
    ("question", "subject", "query"),
    [
        ("Wie viele Einwohner hat Brannow?", "Brannow", "Brannow Einwohner"),
        ("Welche Farbe hat die Flagge von Norland?", "Flagge von Norland", "Flagge Norland Farbe"),
    ],
)
def test_a_german_question_is_about_its_rarest_capitalised_name(question, subject, query):
    """German writes every noun with a capital: of two capitalised words the rarer names
    the thing asked about, and "wie viele" asks, so neither word is searched."""
    from research.question import entity

    assert entity(question) == subject
    assert offline_plan(question).subquestions[0].queries[0] == query


def test_every_word_of_every_language_file_is_read_as_a_word() -> None:
    """YAML reads a bare on, no, yes or off as true or false: a word written so in a
    language's data ("on" the Polish pronoun, "no" the Portuguese link) must be quoted, or
    the language loses it."""
    import yaml

    here = Path(research.lang.__file__).parent

    def flags(value: object, where: str) -> list[str]:
        if isinstance(value, dict):
            return [f for k, v in value.items() for f in flags(v, f"{where}.{k}")]
        if isinstance(value, list):
            return [f"{where}: {v}" for v in value if isinstance(v, bool)]
        return []

    found = [
        flag
        for path in sorted([*here.glob("*.yaml"), *here.glob("brief/*.yaml")])
        for flag in flags(yaml.safe_load(path.read_text(encoding="utf-8")), path.name)
    ]
    assert not found, found


# Invented questions whose later ask points at the question's subject with an object
# pronoun: a clitic before the verb (lo, l', l-a, o/a), or one no article is written as
# (ihn, hem, go, его); with the name every query of that ask must say.
OBJECT_PRONOUNS = [
    ("de", "Wann wurde der Turm von Brannow gebaut und wer hat ihn entworfen?", "Brannow"),
    ("es", "¿Cuándo se construyó el puente de Alcubilla y quién lo diseñó?", "Alcubilla"),
    ("fr", "Quand le pont de Vernelle a-t-il été construit et qui l'a conçu ?", "Vernelle"),
    ("it", "Quando è stato costruito il ponte di Varenna e chi lo ha progettato?", "Varenna"),
    ("pt", "Quando foi construída a ponte de Vilarinho e quem a projetou?", "Vilarinho"),
    ("ro", "Când a fost construit podul Vâlcele și cine l-a proiectat?", "Vâlcele"),
    ("nl", "Wanneer werd de Dromtoren gebouwd en wie heeft hem ontworpen?", "Dromtoren"),
    ("sv", "När byggdes Norrviks slott och vem ritade det?", "Norrviks"),
    ("pl", "Kiedy zbudowano most w Zalesiu i kto go zaprojektował?", "Zalesiu"),
    ("ru", "Когда был построен мост в Орвальде и кто его спроектировал?", "Орвальде"),
]


@pytest.mark.parametrize(
    ("lang", "question", "name"), OBJECT_PRONOUNS, ids=[o[0] for o in OBJECT_PRONOUNS]
)
def test_an_object_pronoun_of_a_later_ask_stands_for_the_questions_subject(lang, question, name):
    assert text_language(question) == lang
    first, later = offline_plan(question).subquestions
    assert name in first.text and name in later.text, later.text
    assert later.queries and all(name in q for q in later.queries), later.queries
    pronoun = {
        "de": "ihn",
        "es": "lo",
        "fr": "l'a",
        "it": "lo",
        "nl": "hem",
        "pl": "go",
        "ro": "l-a",
        "ru": "его",
        "sv": "det",
    }.get(lang)
    assert pronoun is None or pronoun not in later.text.split()


@pytest.mark.parametrize(
    "question",
    [
        "¿Quién es la autora del libro Arenal y cuándo lo publicó?",
        "Qual é a altura da ponte de Vilarinho e quem a projetou?",
        "Qui est la fondatrice de la ville de Vernelle et quand l'a-t-elle fondée ?",
    ],
)
def test_an_article_after_the_verb_is_no_object_pronoun(question):
    # "la autora", "a altura", "la fondatrice": an article after the verb opens a noun
    first = offline_plan(question).subquestions[0].text
    assert first.rstrip("?").split()[2] in {"la", "a"}, first


def test_romanian_written_with_cedillas_is_read_as_written_with_commas_below():
    # older keyboards type ş and ţ (cedilla) for Romanian's ș and ț (comma below)
    comma = "Câți locuitori are orașul Vâlcele și când a fost fondat?"
    cedilla = comma.replace("ț", "ţ").replace("ș", "ş")
    assert cedilla != comma
    plans = [offline_plan(q) for q in (comma, cedilla)]
    assert [s.text for s in plans[1].subquestions] == [s.text for s in plans[0].subquestions]
    assert len(plans[1].subquestions) == 2
    with asked_in("ro"):
        assert [question_kind(s.text) for s in plans[1].subquestions] == ["number", "when"]


@pytest.mark.parametrize(
    "question",
    [
        "หอคอยออร์วัลด์เปิดเมื่อใด และใครทาสีหอคอย?",
        "หอคอยออร์วัลด์เปิดเมื่อใดและใครทาสีหอคอย",
    ],
)
def test_a_thai_question_is_cut_at_its_joiner_against_the_next_question_word(question):
    """Thai writes no spaces between words: "และ" stands against the question word after
    it. The later ask, whose subject cannot be told from its words, opens with what the
    first ask says before its question word."""
    plan = offline_plan(question)
    parts = [s.text for s in plan.subquestions]
    assert parts == ["หอคอยออร์วัลด์เปิดเมื่อใด?", "หอคอยออร์วัลด์เปิด ใครทาสีหอคอย?"]
    assert [plan.focus(s).kind for s in plan.subquestions] == ["when", "who"]
    # two questions in a row share nothing: each is its own
    apart = offline_plan("ใครเปิดหอคอยออร์วัลด์? หอคอยสูงเท่าไร?").subquestions
    assert [s.text for s in apart] == ["ใครเปิดหอคอยออร์วัลด์?", "หอคอยสูงเท่าไร?"]
