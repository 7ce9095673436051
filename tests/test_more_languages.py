"""Questions in the languages the detector tells apart that have a data file of their own.

Czech, Slovak, Danish, Norwegian, Finnish, Hungarian, Indonesian, Malay, Ukrainian,
Bulgarian, Serbo-Croatian and Catalan are each read by their file in ``research/lang/``,
not by the generic path: a question of two asks joined by the language's "and" is cut
into its two asks, the later one naming the subject its pronoun (or its unsaid subject)
stands for, each part of the kind its question word asks for, and each part's queries
name the subject and none of the language's question words. The names asked about are
invented.
"""

from __future__ import annotations

import pytest

from research.lang import asked_in, language, served, text_language
from research.plan import offline_plan
from research.question import question_kind

# Invented questions: language, question, its parts, each part's kind, and the name every
# query of every part says.
CASES = [
    (
        "cs",
        "Kdy byl postaven Velkovský hrad a kdo ho navrhl?",
        ["Kdy byl postaven Velkovský hrad?", "Kdo Velkovský hrad navrhl?"],
        ["when", "who"],
        "Velkovský",
    ),
    (
        "cs",
        "Kolik obyvatel má Dolní Lhotka a proč se rozrůstá?",
        ["Kolik obyvatel má Dolní Lhotka?", "Proč se Dolní Lhotka rozrůstá?"],
        ["number", "why"],
        "Dolní Lhotka",
    ),
    (
        "sk",
        "Kedy bol postavený Bránovský hrad a kto ho navrhol?",
        ["Kedy bol postavený Bránovský hrad?", "Kto Bránovský hrad navrhol?"],
        ["when", "who"],
        "Bránovský",
    ),
    (
        "sk",
        "Koľko obyvateľov má Horná Lúčka a prečo rastie?",
        ["Koľko obyvateľov má Horná Lúčka?", "Prečo rastie Horná Lúčka?"],
        ["number", "why"],
        "Horná Lúčka",
    ),
    (
        "da",
        "Hvornår blev Skovlund Tårn bygget, og hvem tegnede det?",
        ["Hvornår blev Skovlund Tårn bygget?", "Hvem tegnede Skovlund Tårn?"],
        ["when", "who"],
        "Skovlund Tårn",
    ),
    (
        "da",
        "Hvor mange indbyggere har Ravnsbæk, og hvorfor vokser den?",
        ["Hvor mange indbyggere har Ravnsbæk?", "Hvorfor vokser Ravnsbæk?"],
        ["number", "why"],
        "Ravnsbæk",
    ),
    (
        "nb",
        "Når ble Fjellvikbrua bygget, og hvem tegnet den?",
        ["Når ble Fjellvikbrua bygget?", "Hvem tegnet Fjellvikbrua?"],
        ["when", "who"],
        "Fjellvikbrua",
    ),
    (
        "nb",
        "Hvor høy er Storrindtinden, og hvor ligger den?",
        ["Hvor høy er Storrindtinden?", "Hvor ligger Storrindtinden?"],
        ["number", "where"],
        "Storrindtinden",
    ),
    (
        "fi",
        "Milloin Kallioniemen linna rakennettiin ja kuka sen suunnitteli?",
        ["Milloin Kallioniemen linna rakennettiin?", "Kuka Kallioniemen linna suunnitteli?"],
        ["when", "who"],
        "Kallioniemen",
    ),
    (
        "fi",
        "Missä Hirvilahti sijaitsee ja milloin se perustettiin?",
        ["Missä Hirvilahti sijaitsee?", "Milloin Hirvilahti perustettiin?"],
        ["where", "when"],
        "Hirvilahti",
    ),
    (
        "hu",
        "Mikor épült a Kővárhíd és ki tervezte?",
        ["Mikor épült a Kővárhíd?", "Ki tervezte a Kővárhíd?"],
        ["when", "who"],
        "Kővárhíd",
    ),
    (
        "hu",
        "Milyen magas a Bércvár és hol áll?",
        ["Milyen magas a Bércvár?", "Hol áll a Bércvár?"],
        ["number", "where"],
        "Bércvár",
    ),
    (
        "id",
        "Kapan Candi Sarimulya dibangun dan siapa yang membangunnya?",
        ["Kapan Candi Sarimulya dibangun?", "Siapa yang membangun Candi Sarimulya?"],
        ["when", "who"],
        "Candi Sarimulya",
    ),
    (
        "id",
        "Kapan Danau Lembayung terbentuk dan berapa luasnya?",
        ["Kapan Danau Lembayung terbentuk?", "Berapa luas Danau Lembayung?"],
        ["when", "number"],
        "Danau Lembayung",
    ),
    (
        "ms",
        "Bilakah Menara Seri Kenanga dibina dan siapakah yang membinanya?",
        ["Bilakah Menara Seri Kenanga dibina?", "Siapakah yang membina Menara Seri Kenanga?"],
        ["when", "who"],
        "Seri Kenanga",
    ),
    (
        "ms",
        "Bilakah Jambatan Sungai Kenari dibina dan berapakah panjangnya?",
        ["Bilakah Jambatan Sungai Kenari dibina?", "Berapakah panjang Jambatan Sungai Kenari?"],
        ["when", "number"],
        "Sungai Kenari",
    ),
    (
        "uk",
        "Коли збудували Вербівський собор і хто його розписав?",
        ["Коли збудували Вербівський собор?", "Хто Вербівський собор розписав?"],
        ["when", "who"],
        "Вербівський",
    ),
    (
        "uk",
        "Скільки мешканців має Ясногірськ і чому він росте?",
        ["Скільки мешканців має Ясногірськ?", "Чому Ясногірськ росте?"],
        ["number", "why"],
        "Ясногірськ",
    ),
    (
        "bg",
        "Кога е построен Орешанският манастир и кой го е изографисал?",
        ["Кога е построен Орешанският манастир?", "Кой Орешанският манастир е изографисал?"],
        ["when", "who"],
        "Орешанският",
    ),
    (
        "bg",
        "Колко висок е връх Сивоглав и къде се намира?",
        ["Колко висок е връх Сивоглав?", "Къде се Сивоглав намира?"],
        ["number", "where"],
        "Сивоглав",
    ),
    (
        "sh",
        "Kada je izgrađen Vranički toranj i tko ga je projektirao?",
        ["Kada je izgrađen Vranički toranj?", "Tko Vranički toranj je projektirao?"],
        ["when", "who"],
        "Vranički",
    ),
    (
        "sh",
        "Koliko stanovnika ima Zelenograd i zašto raste?",
        ["Koliko stanovnika ima Zelenograd?", "Zašto raste Zelenograd?"],
        ["number", "why"],
        "Zelenograd",
    ),
    (
        "ca",
        "Quan es va inaugurar el pont de Vallserra i quant mesura?",
        ["Quan es va inaugurar el pont de Vallserra?", "Quant mesura el pont de Vallserra?"],
        ["when", "number"],
        "Vallserra",
    ),
    (
        "ca",
        "Quants habitants té Rocafosca i per què creix?",
        ["Quants habitants té Rocafosca?", "Per què creix Rocafosca?"],
        ["number", "why"],
        "Rocafosca",
    ),
]
LANGUAGES = ["cs", "sk", "da", "nb", "fi", "hu", "id", "ms", "uk", "bg", "sh", "ca"]


@pytest.mark.parametrize(
    ("lang", "question", "parts", "kinds", "name"), CASES, ids=[c[1] for c in CASES]
)
def test_a_question_of_two_asks_is_cut_into_its_asks_each_of_its_kind(
    lang: str, question: str, parts: list[str], kinds: list[str], name: str
) -> None:
    assert text_language(question) == lang
    plan = offline_plan(question)
    assert plan.read_as["read"] == "lists"
    assert [s.text for s in plan.subquestions] == parts
    with asked_in(lang):  # as a run reads each part: in the language of its question
        assert [question_kind(s.text) for s in plan.subquestions] == kinds


@pytest.mark.parametrize(
    ("lang", "question", "parts", "kinds", "name"), CASES, ids=[c[1] for c in CASES]
)
def test_each_parts_queries_name_the_subject_and_no_question_word(
    lang: str, question: str, parts: list[str], kinds: list[str], name: str
) -> None:
    asked = {w for phrase in language(lang).question_words for w in phrase.split()}
    for sub in offline_plan(question).subquestions:
        assert sub.queries and all(name in q for q in sub.queries), (sub.text, sub.queries)
        said = {w.casefold() for q in sub.queries for w in q.split()}
        assert not said & asked, (sub.text, sub.queries)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_is_served_by_its_data_with_the_six_kinds(lang: str) -> None:
    known = language(lang)
    assert sum(case[0] == lang for case in CASES) >= 2  # two invented questions of each
    assert served(lang) == "lists"
    assert known is not None and known.question_words and known.joiners and known.pronouns
    assert {kind for kind, _ in known.kinds} == {"when", "number", "why", "who", "where", "how"}
